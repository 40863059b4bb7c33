"""``deduce --watch`` on CLIPS and ``deduce --export-batch``: a record's game
as a CLIPS batch file, and the trace CLIPS prints running it, with the seat's
own account of each firing between its lines.

The batch file loads the exported program (``rules --export clips``: the
seat's rules, with no Python), turns on ``(watch facts)``, ``(watch
activations)`` and ``(watch rules)``, then gives each turn's facts -- what
the seat gave its engine that no rule concludes: the set-up and the deal,
then each turn's suggestion -- as ``(assert ...)`` lines, each turn followed
by ``(run)`` (:func:`.clp.batch_chunks`).  ``--watch`` prints what CLIPS 6.4
(clipspy's) prints running that file, line for line (:func:`.clips.run_batch`);
the seat's account of a firing follows its ``FIRE`` line as a comment,
``;; rule: message => facts``, so ``grep -v '^;;'`` leaves CLIPS's trace.
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from ..core.errors import RuleFileError
from ..core.facts import KINDS, as_key, describe
from ..engine import EngineFact
from ..engine import run_batch
from ..engine import batch_chunks, export_program, fact_key, clips_fact_text as fact_text, input_facts
from ..engine import GIVEN, Firing, Knowledge

#: A line of CLIPS's watch trace that asserts a fact: ``==> f-12    (held ...)``.
_ASSERTED = re.compile(r"^==> f-\d+\s+(\(.*\))\s*$")
#: A multislot's values, sorted to compare a clause however its cards are ordered.
_LIST = re.compile(r"\((cards|players|matching) ([^()]*)\)")


def seat_inputs(k: Knowledge) -> list[EngineFact]:
    """The facts the seat gave its engine that no rule of its concludes
    (observations, the set-up, facts given; counts at 0), in the order it
    gave them (:func:`.clp.input_facts`)."""
    given = [EngineFact(key.kind, tuple((f, k.values[key][f]) for f in KINDS[key.kind]))
             for key in (as_key(x) for x, j in k.justifications.items() if j.rule == GIVEN)]
    return input_facts(k.rule_engine.facts(), k.rules, given)


class TurnInputs:
    """The seat's input facts turn by turn: :meth:`take` after each turn
    keeps the ones new since the last."""

    def __init__(self) -> None:
        self._seen: set = set()
        #: (turn, its new input facts), in order.
        self.turns: list[tuple[int, list[EngineFact]]] = []

    def take(self, k: Knowledge, turn: int) -> None:
        new = []
        for fact in seat_inputs(k):
            key = fact_key(fact)
            if key not in self._seen:
                self._seen.add(key)
                new.append(fact)
        self.turns.append((turn, new))


def exported(rules: Iterable) -> str | None:
    """A seat's rules as a plain CLIPS program, or None when one of them
    runs Python (its right-hand side computed by the seat)."""
    try:
        return export_program(rules, title="the seat's rules (clue-expert deduce --export-batch)")
    except RuleFileError:
        return None


def write_batch(path: str, program: str, inputs: TurnInputs) -> tuple[Path, list[str]]:
    """``--export-batch PATH``: the program beside it (``PATH`` with the
    suffix ``.clp``) and the batch file, which loads it by that path as
    given (run CLIPS from the same folder).  Returns the program's path and
    the batch file's parts."""
    clp = Path(path).with_suffix(".clp")
    clp.write_text(program, encoding="utf-8")
    chunks = batch_chunks(str(clp), (facts for _, facts in inputs.turns))
    Path(path).write_text("".join(chunks), encoding="utf-8")
    return clp, chunks


def _canonical(text: str) -> str:
    """A fact's CLIPS text with its list slots' values sorted."""
    return _LIST.sub(lambda m: f"({m.group(1)} {' '.join(sorted(m.group(2).split()))})", text)


def comment(firing: Firing) -> str:
    """The seat's account of a firing, as a CLIPS comment line."""
    text = f";; {firing.rule}: {firing.message}"
    if firing.conclusions:
        text += "  => " + "; ".join(describe(key) for key in firing.conclusions)
    return " ".join(text.split())


def traced(outputs: Sequence[str], turns: Sequence[int], k: Knowledge) -> Iterator[str]:
    """CLIPS's output of each turn's part of the batch (``outputs``, for
    ``turns``), line for line, with the seat's account of each of its
    firings (``;; ...``) after the ``FIRE`` line of the CLIPS firing that
    asserted its first conclusion (``;; the seat concluded this by RULE:
    ...`` when that firing is another rule's; after the fact's line when no
    rule asserted it in CLIPS); the seat's firings whose conclusions CLIPS
    never asserted (the case analysis, for one) after their turn's run."""
    pending: dict[str, list[Firing]] = {}
    for firing in k.firings:
        for key in map(as_key, firing.conclusions):  # a plain tuple (say a test's) read as its record
            values = k.values.get(key)
            if key.kind in KINDS and values is not None:
                fact = EngineFact(key.kind, tuple((f, values.get(f)) for f in KINDS[key.kind]))
                pending.setdefault(_canonical(fact_text(fact)), []).append(firing)
    told: set[int] = set()
    firings = list(k.firings)
    for turn, output in zip(turns, outputs):
        block: list[str] = []  # a FIRE line and what follows it, its comments after its first line
        notes: list[str] = []

        def flush(block: list[str] = block, notes: list[str] = notes) -> Iterator[str]:
            if block:
                yield block[0]
                yield from notes
                yield from block[1:]
            block.clear()
            notes.clear()

        for line in output.splitlines():
            if line.startswith("FIRE"):
                yield from flush()
            m = _ASSERTED.match(line)
            said = []
            if m:
                for firing in pending.pop(_canonical(m.group(1)), ()):
                    if id(firing) not in told:
                        told.add(id(firing))
                        said.append(comment(firing))
            if block or line.startswith("FIRE"):
                block.append(line)
                fired = block[0].split()[2].rstrip(":").split("--")[0]  # FIRE n rule[--variant]: basis
                notes.extend(note if note.startswith(f";; {fired}: ") else
                             note.replace(";; ", ";; the seat concluded this by ", 1) for note in said)
            else:
                yield line
                yield from said
        yield from flush()
        for firing in firings:
            if id(firing) not in told and (firing.turn or 0) <= turn:
                told.add(id(firing))
                yield comment(firing).replace(";; ", ";; not in CLIPS's run: ", 1)


def clips_watch(k: Knowledge, program: str, inputs: TurnInputs, chunks: Sequence[str] | None = None) -> list[str]:
    """``deduce --watch`` on CLIPS: the lines of :func:`traced` for the batch
    file of ``inputs`` (``chunks``, else made loading ``program`` from a
    temporary file)."""
    turns = [turn for turn, _ in inputs.turns]
    if chunks is None:
        with tempfile.TemporaryDirectory(prefix="clue-watch-") as folder:
            clp = Path(folder) / "game.clp"
            clp.write_text(program, encoding="utf-8")
            outputs = run_batch(batch_chunks(str(clp), (facts for _, facts in inputs.turns)))
    else:
        outputs = run_batch(chunks)
    return [HEADER, *traced(outputs, turns, k)]


#: The first line of ``--watch`` on CLIPS.
HEADER = (";; What CLIPS 6.4 prints running this game's batch file (deduce --export-batch FILE), "
          "with clue-expert's own lines, like this one, starting ;;")


__all__ = ["TurnInputs", "clips_watch", "comment", "exported", "seat_inputs", "traced", "write_batch"]
