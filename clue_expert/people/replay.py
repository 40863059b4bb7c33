"""Step-through replay of a record, for the classroom: each observation, the
rule firings it caused in order, and how the sheet changed; hindsight (when the
seat could first have named the envelope versus when it did); exports.

Pure: produces :class:`Step` objects; :mod:`clue_expert.render` draws them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from ..core.facts import describe
from ..core.errors import ClueError
from ..engine import Knowledge, Sheet
from ..core.observations import Accusation, DealtHand
from ..core.records import Record


@dataclass
class Step:
    """One observation and what it taught the seat."""

    turn: int
    """0 for the deal, else the record's turn number."""
    observation: str
    """What was observed, in words."""
    firings: list
    """The rule firings it caused, in order."""
    sheet: Sheet
    """The sheet after it."""
    changes: list
    """(owner, card, before, after) for every cell that changed."""
    solved: bool
    """Whether the envelope is known after it."""
    knowledge: Knowledge = field(repr=False, compare=False)
    """The seat's knowledge after this step (the same object for every step of
    a replay, so only the last step's view of it is current)."""
    error: str | None = None
    """A contradiction this observation exposed (the sheet is the one before it)."""


def describe_turn(n: int, turn) -> str:
    """A turn in words, as the record's seat saw it."""
    if isinstance(turn, Accusation):
        text = f"turn {n}: {turn.by} accuses {', '.join(turn.cards)} — {'right' if turn.correct else 'wrong'}"
        if turn.revealed is not None:
            text += f"; {turn.by}'s hand laid open: {', '.join(turn.revealed)}"
        return text
    if turn.asks is not None:  # the generalized game's interrogation
        answer = (f"{turn.asks} shows " + (turn.card if turn.card else "a card")) if turn.shown_by else f"{turn.asks} says no"
        return f"turn {n}: {turn.by} asks {turn.asks} about {', '.join(turn.cards)}; {answer}"
    parts = [f"turn {n}: {turn.by} suggests {', '.join(turn.cards)}"]
    if turn.passed:
        parts.append(f"{', '.join(turn.passed)} cannot disprove")
    if turn.shown_by is None:
        parts.append("nobody can disprove")
    else:
        parts.append(f"{turn.shown_by} shows " + (turn.card if turn.card else "a card"))
    return "; ".join(parts)


def steps(record: Record, *, complete: bool = True, rulesets=None, engine: str | None = None) -> Iterator[Step]:
    """The replay of a record, step by step (``rulesets``: the deduction rules
    of a knowledge level; default: every shipped deduction rule; ``engine``:
    the rule engine, None the default)."""
    fired: list = []
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, complete=complete,
                  rulesets=rulesets, on_fire=fired.append, engine=engine)
    fired.clear()
    before = k.sheet()
    k.observe(DealtHand(record.me, tuple(record.hand)))
    yield _step(0, f"the deal: {record.me} holds {', '.join(record.hand)}", k, before, fired)
    for n, turn in enumerate(record.turns, start=1):
        before = k.sheet()
        fired.clear()
        try:
            k.observe(turn, n)
        except ClueError as exc:  # a contradiction: report it, keep the sheet before it
            yield Step(n, describe_turn(n, turn), [], k.sheet(), [], k.solved(), error=str(exc), knowledge=k)
            return
        yield _step(n, describe_turn(n, turn), k, before, fired)


def _step(n: int, text: str, k: Knowledge, before: Sheet, fired: list) -> Step:
    after = k.sheet()
    return Step(n, text, list(fired), after, after.changes_from(before), k.solved(), knowledge=k)


def hindsight(record: Record, engine: str | None = None) -> dict:
    """When the seat could first have named the envelope -- with complete
    deduction and with the forward rules alone -- versus when it accused
    (on the rule engine ``engine``; None: the default)."""
    def first(complete: bool):
        for s in steps(record, complete=complete, engine=engine):
            if s.solved:
                return s.turn
        return None
    accused = next(((n, t.correct) for n, t in enumerate(record.turns, start=1)
                    if isinstance(t, Accusation) and t.by == record.me), None)
    own_turns = [n for n, t in enumerate(record.turns, start=1) if not isinstance(t, Accusation) and t.by == record.me]
    first_complete = first(True)
    # a player accuses after his own suggestion: the earliest chance is his
    # first own turn after the one at which the envelope became known
    earliest = None
    if first_complete is not None:
        earliest = next((n + 1 for n in own_turns if n >= first_complete), None)
    return {"seat": record.me, "first_turn_complete": first_complete, "first_turn_rules_only": first(False),
            "accused_turn": accused[0] if accused else None, "accused_correctly": accused[1] if accused else None,
            "earliest_accusation_turn": earliest,
            "own_turns_late": (sum(1 for n in own_turns if earliest - 1 <= n < accused[0] - 1)
                               if accused and earliest else None),
            "turns": len(record.turns)}


def hindsight_text(h: dict) -> str:
    """Hindsight in a sentence or two."""
    def when(t):
        return f"not within the {h['turns']} turns recorded" if t is None else (
            "from the deal" if t == 0 else f"after turn {t}")
    if h["first_turn_complete"] is None:
        text = f"{h['seat']} could not have named the envelope within the {h['turns']} turns recorded"
    else:
        text = (f"{h['seat']} could have named the envelope {when(h['first_turn_complete'])} with complete "
                f"deduction ({when(h['first_turn_rules_only'])} with the forward rules alone)")
    if h["accused_turn"] is None:
        text += f", and did not accuse in the {h['turns']} turns recorded."
    else:
        verdict = "correctly" if h["accused_correctly"] else "wrongly"
        text += f"; {h['seat']} accused {verdict} on turn {h['accused_turn']}"
        late = h.get("own_turns_late")
        if late:
            text += f", {late} of its own turn(s) later than it could have"
        elif h.get("earliest_accusation_turn") and h["accused_turn"] <= h["earliest_accusation_turn"]:
            text += ", at the first chance it had"
        text += "."
    return text


def markdown(record: Record, all_steps: list, proofs: list, hind: dict | None = None) -> str:
    """A Markdown export: every step with its firings and changes, the final
    sheet, and the numbered proofs of the envelope cards
    (:func:`~clue_expert.engine.reasoning.proofs.prove`)."""
    ed = record.edition
    out = [f"# Replay: {record.me}'s seat", "", f"Edition {ed.name}; players {', '.join(record.players)}.", ""]
    if hind:
        out += ["**Hindsight.** " + hindsight_text(hind), ""]
    for s in all_steps:
        out.append(f"## {s.observation}")
        out.append("")
        if s.error:
            out += [f"**Contradiction:** {s.error}", ""]
        for f in s.firings:
            concl = "; ".join(describe(c) for c in f.conclusions)
            out.append(f"- `{f.rule}`: {f.message} ⇒ {concl}")
        if s.changes:
            out += ["", "Sheet changes: " + ", ".join(f"{o}/{c}: {a}→{b}" for o, c, a, b in s.changes)]
        if s.solved:
            out += ["", "**The envelope is known.**"]
        out.append("")
    final = all_steps[-1].sheet
    mark = {"held": "✓", "lacked": "✗", "unknown": " "}
    out += ["## Final sheet", "", "| card | " + " | ".join(final.owners) + " |",
            "|---|" + "---|" * len(final.owners)]
    for c in final.cards:
        out.append(f"| {ed.display(c)} | " + " | ".join(mark[final.cells[o][c]] for o in final.owners) + " |")
    out.append("")
    for proof in proofs:
        out += [f"## Why: {describe(proof.goal)}", "", proof.header, ""]
        for item in proof.items:
            how = item.rule + (": " + ", ".join(item.cites) if item.cites else "")
            bullet = "   " * item.depth + "- " if item.depth else ""  # a case analysis nests under its line
            out.append(f"{bullet}{item.label}. {item.text} — *{how.strip(': ')}*")
        out.append("")
    return "\n".join(out)
