"""The table assistant in the browser, without the web framework: one game
file, its :class:`~clue_expert.people.notebook.Notebook`, and undo / redo
stacks.  Every method takes and returns plain JSON-able data, so
:mod:`clue_expert.people.server` only routes requests here and the logic is
tested without a server.

Every change goes through the notebook (validated like a typed entry, refused
with nothing changed when it breaks a rule or contradicts earlier turns) and
is saved atomically to the game file, which is the terminal notebook's: a
game moves between ``clue-expert notebook FILE`` and ``clue-expert serve
FILE``.  Deduction, proofs, why-not, odds and advice are the notebook's and
the engine's own functions.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..core.cards import editions, get_edition
from ..core.errors import ClueError, ContradictionError
from ..core.facts import ENVELOPE, held_key, lacked_key
from ..core.records import MAX_PLAYERS, MIN_PLAYERS
from ..engine import compute
from ..engine import DEFAULT_LEVEL
from ..engine import fact_text, prove
from ..play.players import available
from .notebook import (Notebook, clean_stale_temps, conflict_turns, dealt_sizes, hand_fit_warning, mark_text)
from .output import english_list, envelope_cards

#: The strategy the advice button uses unless another is chosen.
DEFAULT_STRATEGY = "clue-expert-focused"
#: ... and in the generalized game.
GENERALIZED_STRATEGY = "clue-expert-generalized"


class TableError(ClueError):
    """A request the table assistant refuses; ``status`` is the HTTP status
    the server answers with, ``detail`` extra JSON for the page."""

    def __init__(self, message: str, status: int = 400, detail: dict | None = None):
        super().__init__(message)
        self.status = status
        self.detail = dict(detail or {})


class TableAssistant:
    """One game kept in the browser (the file ``path``)."""

    def __init__(self, path: str | Path, knowledge: str = DEFAULT_LEVEL, engine: str | None = None):
        self.path = Path(path)
        self.knowledge_level = knowledge
        #: The rule engine of the game's knowledge (``serve --engine``; None: the default).
        self.engine = engine
        #: Earlier lists of turns (undo), newest last; later ones (redo).
        self.undo_stack: list = []
        self.redo_stack: list = []
        #: Temporary files of killed saves removed when the file was opened.
        self.cleaned = clean_stale_temps(self.path)
        self.notebook: Notebook | None = None
        if self.path.exists():
            self.notebook = Notebook.load(self.path, knowledge=knowledge, engine=engine)
        self._advice: dict = {}
        #: The edition whose card names :meth:`named` puts in, and its pattern of card ids.
        self._names_for: object = None
        self._names_re: re.Pattern | None = None

    # ------------------------------------------------------------- set-up
    @staticmethod
    def editions() -> list:
        """The shipped editions a game can use: id, name, cards and the envelope's size."""
        out = []
        for ed_id, ed in sorted(editions().items()):
            out.append({"id": ed_id, "name": ed.name, "cards": len(ed.cards), "envelope": ed.envelope_size})
        return out

    @staticmethod
    def edition_json(ed) -> dict:
        """An edition's categories and cards, in sheet order."""
        return {"id": ed.ref, "name": ed.name, "envelope_size": ed.envelope_size,
                "categories": [{"name": cat, "cards": [{"id": c, "name": ed.display(c)}
                                                       for c in ed.category_cards(cat)]}
                               for cat in ed.categories]}

    @staticmethod
    def _players(players) -> list:
        players = [str(p).strip() for p in players if str(p).strip()]
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise TableError(f"give {MIN_PLAYERS} to {MAX_PLAYERS} players, in seat order")
        if len({p.lower() for p in players}) != len(players):
            raise TableError("two players have the same name")
        if any(p.lower() == ENVELOPE for p in players):
            raise TableError("'envelope' is the case file's name; choose another player name")
        if any(not p.replace("-", "").replace("_", "").isalnum() for p in players):
            raise TableError("player names are single words (letters, digits, - and _)")
        return players

    def preview(self, body: dict) -> dict:
        """The set-up as it is being filled in: the edition's cards, the hand
        sizes that follow from who was dealt first (always adding up), and a
        warning when my hand does not fit them."""
        ed = get_edition(body.get("edition") or self._default_edition(body))
        out: dict = {"edition": self.edition_json(ed)}
        players = [p for p in body.get("players") or [] if str(p).strip()]
        if not players:
            return out
        players = self._players(players)
        first = body.get("first") or players[0]
        if first not in players:
            raise TableError(f"{first} is not one of the players")
        sizes = dealt_sizes(ed, players, first)
        out.update(players=players, first=first, sizes=sizes, dealt=len(ed.cards) - ed.envelope_size)
        me = str(body.get("me") or "")
        hand = [ed.resolve(c) for c in body.get("hand") or []]
        if me in players and hand:
            out["warning"] = hand_fit_warning(ed, players, me, first, len(hand))
        return out

    def new_game(self, body: dict) -> dict:
        """Start a game: ``{game, edition, players (seat order), first, me,
        hand}``; ``game`` is ``speed-clue`` (the default) or ``generalized``
        (its edition a pool, ``pool-N-K``)."""
        if self.notebook is not None and self.notebook.turns and not body.get("replace"):
            raise TableError(f"{self.path} already holds a game of {len(self.notebook.turns)} turns", 409)
        game = body.get("game") or "speed-clue"
        if game not in ("speed-clue", "generalized"):
            raise TableError(f"unknown game {game!r}: speed-clue or generalized")
        ed = get_edition(body.get("edition") or self._default_edition(body))
        players = self._players(body.get("players") or [])
        me = str(body.get("me") or "")
        if me not in players:
            raise TableError(f"who are you? one of {english_list(players, 'or')}")
        first = body.get("first") or players[0]
        if first not in players:
            raise TableError(f"{first} is not one of the players")
        hand = [ed.resolve(c) for c in body.get("hand") or []]
        if len(set(hand)) != len(hand):
            raise TableError("a card is listed twice")
        warning = hand_fit_warning(ed, players, me, first, len(hand))
        if warning:
            raise TableError(warning)
        self.notebook = Notebook(ed, players, me, hand, dealt_sizes(ed, players, first), path=self.path,
                                 knowledge=self.knowledge_level, game=game, engine=self.engine)
        self.undo_stack, self.redo_stack, self._advice = [], [], {}
        return self.state()

    @staticmethod
    def _default_edition(body: dict) -> str:
        return "pool-14-2" if body.get("game") == "generalized" else "cluedo"

    # ------------------------------------------------------------- turns
    def _nb(self) -> Notebook:
        if self.notebook is None:
            raise TableError("no game yet: start one", 409)
        return self.notebook

    def _turn(self, body: dict) -> dict:
        """A turn in record form from the page's fields, checked like a typed entry."""
        nb = self._nb()
        ed = nb.edition
        by = str(body.get("by") or "")
        if by not in nb.players:
            raise TableError("who suggested? tap a player")
        if nb.game == "generalized":
            return self._generalized_turn(by, body)
        if body.get("accuse") is not None:
            cards = [ed.resolve(c) for c in body["accuse"]]
            if body.get("correct") not in (True, False):
                raise TableError("was the accusation right or wrong?")
            return {"by": by, "accuse": list(ed.check_accusation(cards)), "correct": bool(body["correct"])}
        cards = [ed.resolve(c) for c in body.get("suggest") or []]
        if len(cards) != len(ed.categories):
            raise TableError(f"tap one card of each category ({', '.join(ed.categories)})")
        cards = list(ed.check_suggestion(cards))
        i = nb.players.index(by)
        order = nb.players[i + 1:] + nb.players[:i]
        shown_by = body.get("shown_by")
        if shown_by is None:
            passed = list(order) if body.get("passed") is None else list(body["passed"])
        else:
            if shown_by not in order:
                raise TableError(f"{shown_by} cannot show a card for {by}'s own suggestion")
            passed = order[:order.index(shown_by)] if body.get("passed") is None else list(body["passed"])
        turn: dict = {"by": by, "suggest": cards, "passed": passed, "shown_by": shown_by}
        return _with_shown_card(turn, ed, body, cards, "suggested")

    def _generalized_turn(self, by: str, body: dict) -> dict:
        """The generalized game: an ask of one player about any cards, or a guess."""
        nb = self._nb()
        ed = nb.edition
        if body.get("accuse") is not None:
            cards = [ed.resolve(c) for c in body["accuse"]]
            if body.get("correct") not in (True, False):
                raise TableError("was the guess right or wrong?")
            turn: dict = {"by": by, "accuse": list(ed.check_accusation(cards)), "correct": bool(body["correct"])}
            revealed = body.get("revealed") or (list(nb.hand) if by == nb.me else None)
            if not turn["correct"] and revealed:
                turn["revealed"] = [ed.resolve(c) for c in revealed]
            return turn
        asks = body.get("asks")
        if asks not in nb.players or asks == by:
            raise TableError(f"whom did {by} ask? tap another player")
        cards = [ed.resolve(c) for c in body.get("suggest") or []]
        if not cards:
            raise TableError("tap the cards asked about")
        if len(set(cards)) != len(cards):
            raise TableError("a card is asked about twice")
        turn = {"by": by, "asks": asks, "suggest": list(ed.sort_cards(cards))}
        shown_by = body.get("shown_by")
        if shown_by is None:
            turn["passed"] = [asks]
            return turn
        if shown_by != asks:
            raise TableError(f"only {asks}, who was asked, can show a card")
        turn["shown_by"] = asks
        return _with_shown_card(turn, ed, body, cards, "asked about")

    def _change(self, turns: list) -> dict:
        """Adopt ``turns`` (remembering the old ones for undo; a new change
        clears redo), or refuse."""
        nb = self._nb()
        before = list(nb.turns)
        try:
            changes = nb.replace(turns)
        except ContradictionError as exc:
            raise TableError(self._contradiction_text(exc), 409,
                             {"contradiction": {"turn": exc.turn, "reason": self.named(exc.reason),
                                                "facts": [self.named(f) for f in exc.facts],
                                                "turns": conflict_turns(nb.knowledge, exc)}}) from None
        except ClueError as exc:  # a turn the record's rules refuse, said with the edition's names
            raise TableError(self.named(str(exc))) from None
        self.undo_stack.append(before)
        self.redo_stack, self._advice = [], {}
        return self.state(changes)

    def _contradiction_text(self, exc: ContradictionError) -> str:
        turns = conflict_turns(self._nb().knowledge, exc)
        others = [t for t in turns if t != exc.turn]
        with_ = f"turn{'s' if len(others) > 1 else ''} {english_list(others)}" if others else ""
        return (f"refused, nothing changed: turn {exc.turn} contradicts {with_ or 'the turns before it'}: "
                f"{self.named(exc.reason)}")

    def add(self, body: dict) -> dict:
        """Record a new turn."""
        nb = self._nb()
        nb.check_repaired()
        over = nb.winner()
        if over is not None:
            raise TableError(f"the game is over: {over[0]} accused correctly on turn {over[1]} ('undo' removes it)")
        turn = self._turn(body)
        return self._change(nb.turns + [turn])

    def edit(self, n: int, body: dict) -> dict:
        """Replace turn ``n`` (1-based)."""
        nb = self._nb()
        if not 1 <= n <= len(nb.turns):
            raise TableError(f"there is no turn {n}", 404)
        turns = list(nb.turns)
        turns[n - 1] = self._turn(body)
        return self._change(turns)

    def undo(self) -> dict:
        """Go back one change (an entry, an edit, an undo's redo); with no
        change left in this session, remove the last turn."""
        nb = self._nb()
        if self.undo_stack:
            turns = self.undo_stack[-1]
        elif nb.turns:
            turns = nb.turns[:-1]
        else:
            raise TableError("nothing to undo", 409)
        current = list(nb.turns)
        changes = nb.replace(turns)
        if self.undo_stack:
            self.undo_stack.pop()
        self.redo_stack.append(current)
        self._advice = {}
        return self.state(changes, said="undone: " + self._difference(current, turns) + self._changes_text(changes))

    def redo(self) -> dict:
        """Redo the last change undone."""
        nb = self._nb()
        if not self.redo_stack:
            raise TableError("nothing to redo", 409)
        current = list(nb.turns)
        turns = self.redo_stack[-1]
        changes = nb.replace(turns)
        self.redo_stack.pop()
        self.undo_stack.append(current)
        self._advice = {}
        return self.state(changes, said="redone: " + self._difference(current, turns, redo=True)
                          + self._changes_text(changes))

    def _difference(self, before: list, after: list, redo: bool = False) -> str:
        """What going from the turns ``before`` to ``after`` did, in words:
        a turn removed, put back, or changed."""
        nb = self._nb()
        same = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
        if len(after) < len(before):
            gone = range(len(after) + 1, len(before) + 1)
            what = "; ".join(self.turn_text(n, before[n - 1]) for n in gone)
            return f"removed {what}"
        if len(after) > len(before):
            back = range(len(before) + 1, len(after) + 1)
            return ("put back " if redo else "added ") + "; ".join(self.turn_text(n, after[n - 1]) for n in back)
        if same < len(after):
            return f"{self.turn_text(same + 1, after[same])} (as it was before the edit)" if not redo else \
                f"the edit of {self.turn_text(same + 1, after[same])}"
        return f"nothing changed in the {len(nb.turns)} turns"

    @staticmethod
    def _changes_text(changes: list) -> str:
        """``; 3 cells settled, 14 reopened``: the sheet's changes counted
        (settled: now known; reopened: known before, open now)."""
        settled = sum(1 for _, _, _, after in changes if after != "unknown")
        reopened = len(changes) - settled
        def cells(n: int) -> str:
            return f"{n} cell{'s' if n != 1 else ''}"
        parts = [f"{cells(settled)} settled"] if settled else []
        if reopened:
            parts.append(f"{reopened if settled else cells(reopened)} reopened")
        return "; " + ", ".join(parts) if parts else "; no change to the sheet"

    # ------------------------------------------------------------- reading
    # ------------------------------------------------------------- words
    def named(self, text: str) -> str:
        """``text`` (an engine or rule message) with every card id in it
        replaced by the edition's name of the card: ``plum, lead-pipe`` ->
        ``Professor Plum, Lead Pipe``.  Ids that are also player names are left."""
        nb = self._nb()
        ed = nb.edition
        if self._names_for is not ed:
            ids = sorted((c for c in ed.card_ids if c not in nb.players and c != ENVELOPE and ed.display(c) != c),
                         key=len, reverse=True)
            self._names_re = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, ids)) + r")(?![\w-])") if ids else None
            self._names_for = ed
        if self._names_re is None:
            return text
        return self._names_re.sub(lambda m: ed.display(m.group(1)), text)

    def turn_text(self, n: int, turn: dict) -> str:
        """A turn (record form) in words with the edition's card names, each
        thing said once: ``turn 3: ann suggests Professor Plum, Rope, Hall;
        bob cannot disprove; cat shows a card``."""
        nb = self._nb()
        ed = nb.edition
        names = ", ".join(ed.display(c) for c in turn.get("accuse") or turn.get("suggest") or [])
        if turn.get("accuse") is not None:
            verb = "guesses" if nb.game == "generalized" else "accuses"
            text = f"turn {n}: {turn['by']} {verb} {names} — {'right' if turn.get('correct') else 'wrong'}"
            if turn.get("revealed"):
                text += f"; {turn['by']}'s hand laid open: {', '.join(ed.display(c) for c in turn['revealed'])}"
            return text
        shown = turn.get("shown_by")
        what = ed.display(turn["card"]) if turn.get("card") else "a card"
        if turn.get("asks"):
            return (f"turn {n}: {turn['by']} asks {turn['asks']} about {names}; "
                    + (f"{shown} shows {what}" if shown else f"{turn['asks']} says no"))
        parts = [f"turn {n}: {turn['by']} suggests {names}"]
        passed = list(turn.get("passed") or [])
        if shown is None:
            parts.append("nobody can disprove")
        else:
            if passed:
                parts.append(f"{english_list(passed)} cannot disprove")
            parts.append(f"{shown} shows {what}")
        return "; ".join(parts)

    def question(self, owner: str, card: str, status: str) -> str:
        """The question a cell answers, in words: ``Why does bob hold Rope?``,
        ``Is Rope in the envelope?``."""
        name = self._nb().edition.display(card)
        if owner == ENVELOPE:
            return {"held": f"Why is {name} in the envelope?", "lacked": f"Why is {name} not in the envelope?"}.get(
                status, f"Is {name} in the envelope?")
        return {"held": f"Why does {owner} hold {name}?", "lacked": f"Why does {owner} not hold {name}?"}.get(
            status, f"Does {owner} hold {name}?")

    def out_players(self) -> list:
        """Players out of the game after a wrong accusation (they still show cards)."""
        return [t["by"] for t in self._nb().turns if t.get("accuse") is not None and not t.get("correct")]

    # ------------------------------------------------------------- marks
    def mark(self, body: dict) -> dict:
        """Mark a cell by hand: ``{owner, card, mark: held|lacked|null, note}``
        (neither mark nor note: the mark is removed).  A mark is the seat's
        own (a glimpse, a hunch): drawn apart, never deduced from, saved in
        the game file, kept through undo; a deduction that contradicts it is
        pointed out."""
        nb = self._nb()
        owner = str(body.get("owner") or "")
        if owner not in nb.knowledge.owners:
            raise TableError(f"unknown owner {owner!r}", 404)
        mark = body.get("mark")
        if mark not in (None, "held", "lacked"):
            raise TableError("a mark is held, lacked or none")
        note = body.get("note")
        if note is not None and not isinstance(note, str):
            raise TableError("a note is text")
        try:
            kept = nb.set_mark(owner, str(body.get("card") or ""), mark, note)
        except ClueError as exc:
            raise TableError(self.named(str(exc))) from None
        card = nb.edition.resolve(str(body.get("card")))
        where = f"{owner} / {nb.edition.display(card)}"
        return self.state(said=f"marked {mark_text(nb.edition, kept)}" if kept else f"mark removed from {where}")

    def state(self, changes: list | None = None, said: str | None = None) -> dict:
        """Everything the page shows (``said``: what the change just made did, in words)."""
        out: dict = {"file": str(self.path), "editions": self.editions(), "game": None,
                     "strategies": available("strategy"), "default_strategy": DEFAULT_STRATEGY}
        if self.notebook is not None and self.notebook.game == "generalized":
            out["default_strategy"] = GENERALIZED_STRATEGY
        nb = self.notebook
        if nb is None:
            return out
        k = nb.knowledge
        sheet = k.sheet()
        env = envelope_cards(k.envelope()) if k.solved() and nb.conflict is None else None
        conflict = None
        if nb.conflict is not None:
            c = nb.conflict
            conflict = {"turn": c.turn, "reason": self.named(c.reason), "facts": [self.named(f) for f in c.facts],
                        "turns": conflict_turns(k, c)}
        accused = next((t for t in nb.record.turns if getattr(t, "correct", False)), None)
        out["game"] = {
            "game": nb.game, "edition": self.edition_json(nb.edition), "players": nb.players, "me": nb.me, "hand": nb.hand,
            "hand_sizes": nb.hand_sizes, "owners": list(sheet.owners), "cells": sheet.cells,
            "envelope": sheet.envelope, "solved": env is not None,
            "accuse": [nb.edition.display(c) for c in env] if env else None,
            "over": accused.by if accused is not None else None,
            "over_turn": nb.record.turns.index(accused) + 1 if accused is not None else None,
            "turns": [{"n": n, "text": self.turn_text(n, t), "turn": t} for n, t in enumerate(nb.turns, start=1)],
            "out": self.out_players(),
            "counts": {o: [sum(1 for st in sheet.cells[o].values() if st == "held"),
                           nb.edition.envelope_size if o == ENVELOPE else nb.hand_sizes[o]] for o in sheet.owners},
            "marks": [{**m, "text": mark_text(nb.edition, m),
                       "contradicted": k.status(m["owner"], m["card"]) if (m, k.status(m["owner"], m["card"]))
                       in nb.mark_conflicts() else None} for m in nb.marks],
            "conflict": conflict,
            "clauses": {p: [", ".join(nb.edition.display(c) for c in sorted(cl, key=k.sheet_position))
                            for cl in k.one_of_clauses(p)] for p in nb.players},
            "undo": len(self.undo_stack) or len(nb.turns), "redo": len(self.redo_stack),
            "unsaved": nb.unsaved, "changed": [[o, c] for o, c, _, _ in (changes or [])]}
        out["said"] = said
        return out

    def cell(self, owner: str, card: str) -> dict:
        """A cell: its numbered proof when settled (``why --steps``); when
        open, why it is open and what would settle it (``why-not``)."""
        nb = self._nb()
        k = nb.knowledge
        if owner not in k.owners:
            raise TableError(f"unknown owner {owner!r}", 404)
        card = nb.edition.resolve(card)
        status = k.status(owner, card)
        if status != "unknown":
            key = (held_key if status == "held" else lacked_key)(owner, card)
            j = k.justification(key)
            proof = prove(k, key).to_json()
            for item in proof["items"]:  # what a person reads, in the edition's names (ids kept under id_)
                item["id_text"], item["id_message"] = item["text"], item["message"]
                item["text"], item["message"] = self.named(item["text"]), self.named(item["message"] or "")
            proof["header"] = self.named(proof["header"])
            return {"owner": owner, "card": card, "status": status, "fact": self.named(fact_text(k, key)),
                    "question": self.question(owner, card, status), "name": nb.edition.display(card),
                    "turn": j.turn if j is not None else None, "proof": proof, "mark": self._mark_of(owner, card)}
        text = f"{owner} holds {card}"
        return {"owner": owner, "card": card, "status": status, "fact": self.named(text),
                "question": self.question(owner, card, status), "name": nb.edition.display(card),
                "why_not": [{"text": self.named(m.text), "kind": m.kind} for m in nb.why_not(text)],
                "mark": self._mark_of(owner, card)}

    def _mark_of(self, owner: str, card: str) -> dict | None:
        return next((dict(m) for m in self._nb().marks if (m["owner"], m["card"]) == (owner, card)), None)

    def odds(self) -> dict:
        """Exact probabilities of every cell and the likeliest envelopes."""
        nb = self._nb()
        if nb.conflict is not None:
            raise TableError("repair the contradiction first (undo, or edit the turn)", 409)
        b = compute(nb.knowledge)
        top = sorted(b.envelope.items(), key=lambda kv: -kv[1])[:10]
        return {"probabilities": b.probabilities, "entropy_bits": b.entropy_bits,
                "envelopes": [{"cards": [nb.edition.display(c) for c in cards], "p": p} for cards, p in top],
                "count": len(b.envelope)}

    def advice(self, strategy: str | None = None) -> dict:
        """The next suggestion of a shipped strategy (or a strategy file)."""
        nb = self._nb()
        strategy = strategy or (GENERALIZED_STRATEGY if nb.game == "generalized" else DEFAULT_STRATEGY)
        if nb.conflict is not None:
            raise TableError("repair the contradiction first (undo, or edit the turn)", 409)
        if nb.knowledge.solved():
            env = envelope_cards(nb.knowledge.envelope())
            return {"strategy": strategy, "accuse": [nb.edition.display(c) for c in env],
                    "text": f"the envelope is known: accuse {english_list(nb.edition.display(c) for c in env)}"}
        if strategy not in self._advice:
            adviser = Notebook(nb.edition, nb.players, nb.me, nb.hand, nb.hand_sizes, strategy=strategy,
                               turns=nb.turns, knowledge=self.knowledge_level, game=nb.game, engine=self.engine)
            got = adviser.advice()
            if got is None:
                self._advice[strategy] = {"strategy": strategy, "text": f"{strategy} has no advice here"}
            elif got[1].kind == "ask":
                (whom, cards), cand = got
                self._advice[strategy] = {"strategy": strategy, "ask": whom, "cards": list(cards),
                                          "text": f"ask {whom} about {english_list(nb.edition.display(c) for c in cards)}",
                                          "reason": self.named(cand.message or "")}
            else:
                cards, cand = got
                mine = nb.refuters(cards)
                self._advice[strategy] = {
                    "strategy": strategy, "cards": list(cards),
                    "text": f"suggest {english_list(nb.edition.display(c) for c in cards)}",
                    "reason": self.named(cand.message or ""),
                    "note": f"you hold {english_list(nb.edition.display(c) for c in mine)} of these" if mine else ""}
        return self._advice[strategy]


def _with_shown_card(turn: dict, ed, body: dict, cards: list, how: str) -> dict:
    """The turn with the card shown (``body['card']``, when the seat saw it), which must be one
    of the ``cards`` the turn named; ``how`` they were named in the error."""
    if body.get("card"):
        card = ed.resolve(body["card"])
        if card not in cards:
            raise TableError(f"{ed.display(card)} was not {how}")
        turn["card"] = card
    return turn
