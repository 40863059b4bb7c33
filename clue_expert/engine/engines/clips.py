"""The CLIPS adapter: the one module that imports clipspy.

CLIPS 6.4 through clipspy (a maintained binding with wheels on PyPI).  The
rules are compiled to deftemplates and defrules by :mod:`.clp` (see there how
each IR node reads in CLIPS); every defrule's right-hand side first calls
``clue-fire``, a Python function registered here, with its basis's fact
indices (and, for a native rule, the indices of the facts it asserted).

:meth:`ClipsEngine.run` fires one activation at a time (``(run 1)``) and yields
the firing, so what the seat declares for a rule whose right-hand side is
Python is matched before the next activation is chosen.

Memory stays flat over a long run (``python benchmarks/clips_memory.py``):
clipspy 1.0.6's ``Fact`` wrapper retains its fact and never releases it (its
``ReleaseFact`` call has the wrong arity and the error is swallowed), so this
adapter never makes one: facts are asserted with ``(fact-index (assert
...))`` through ``eval`` and known on the Python side by their index; the
agenda is read from each activation's printed form (``30 rule: f-1,*,f-4``).

Speed: clipspy's error router, a Python callback CLIPS asks about every read
and write, is switched off once the rules are built (a run takes half the
time without it).
"""
from __future__ import annotations

import collections
import re
import weakref
from typing import Any, Iterator, Sequence

import clips

from ...core.errors import RuleFileError, RuleLimitError
from ..ir import evaluate
from .base import Activation, EngineFact, EngineFiring, RuleEngine, register_engine
from .clp import (CALLBACK, COUNT_CALLBACK, _Compiled, bindings_of, compile_rule, fact_text, tallies_read, tally_rule,
                  templates)

#: The most firings one run of the rules may make (a native rule runs inside
#: CLIPS, out of reach of the seat's work budget): beyond it the run stops
#: with a :class:`RuleLimitError` naming the rule that fired most.
MAX_FIRINGS = 200_000

_BASIS = re.compile(r"^\s*(-?\d+)\s+(\S+):\s*(.*)$")


@register_engine
class ClipsEngine(RuleEngine):
    """Compiled rules on CLIPS (see the module's docstring)."""

    name = "clips"

    def __init__(self) -> None:
        super().__init__()
        self._env: clips.Environment | None = None
        #: defrule name -> its compiled form.
        self._rules: dict[str, _Compiled] = {}
        #: The defrules, by the number their right-hand side reports.
        self._numbered: list[_Compiled] = []
        #: The counts kept, by the number their rule reports.
        self._tallies: list = []
        #: CLIPS fact index -> the fact.
        self._by_index: dict[int, EngineFact] = {}
        #: fact -> its CLIPS fact index.
        self._index: dict[EngineFact, int] = {}
        #: What the firings of the current (run) reported: (defrule number, fact indices) each.
        self._pending: list[tuple] = []
        self._step = 0

    # ------------------------------------------------------------- set up
    def load(self, rules: Sequence[Any]) -> None:
        compiled: dict[str, _Compiled] = {}
        for order, rule in enumerate(rules):
            for c in compile_rule(rule, order=order):
                compiled[c.name] = c
        env = clips.Environment()
        # clipspy's error router is asked about every read and write CLIPS
        # makes (a call into Python each time): it halves the speed of a run
        # (benchmarks/clips_memory.py's game: 12.5 -> 6.9 ms) and slows
        # building the rules as much.  It is needed only to word an error, so
        # it is off, and on again only to build a construct CLIPS refused once more.
        routers = list(env.routers())
        for router in routers:
            router.deactivate()
        for text in templates():
            env.build(text)
        # clipspy keeps an environment's Python functions in a module-level
        # table until the Environment object is deleted; a bound method there
        # would keep this adapter, and so the Environment, alive for ever
        # (every shadow knowledge of an opponent leaked its whole CLIPS
        # environment).  The table holds functions that reach the adapter
        # through a weak reference only.
        env.define_function(_weak(self, "_fired"), CALLBACK)
        env.define_function(_weak(self, "_counted"), COUNT_CALLBACK)
        tallies = tallies_read(rules)
        for number, tally in enumerate(tallies):
            env.build(tally_rule(tally, number))
        numbered = list(compiled.values())
        for number, c in enumerate(numbered):
            try:
                env.build(c.reporting(number))
            except clips.CLIPSError:
                for router in routers:
                    router.activate()
                try:
                    env.build(c.reporting(number))
                except clips.CLIPSError as exc:
                    raise RuleFileError(c.rule.path, c.rule.id, f"CLIPS refused the rule: {exc}") from None
                raise  # pragma: no cover - refused only once
        self._env = env
        self._rules = compiled
        self._numbered = numbered
        self._tallies = tallies
        self.reset()

    def reset(self) -> None:
        env = self._require()
        env.reset()
        self._by_index = {}
        self._index = {}
        self._pending = []
        self._step = 0

    def _require(self) -> clips.Environment:
        if self._env is None:
            raise RuntimeError("load() the rules first")
        return self._env

    # -------------------------------------------------------------- facts
    def declare(self, fact: EngineFact) -> bool:
        env = self._require()
        if fact in self._index:
            return False
        before = self._agenda_keys() if self.watch is not None else None
        index = env.eval(f"(fact-index (assert {fact_text(fact)}))")
        if index in self._by_index:  # an equal fact under another Python value (a list order)
            return False
        self._by_index[index] = fact
        self._index[fact] = index
        if self.watch is not None:
            self._emit("fact", "+", fact)
            self._agenda_events(before, None)
        return True

    def retract(self, fact: EngineFact) -> bool:
        env = self._require()
        index = self._index.pop(fact, None)
        if index is None:
            return False
        before = self._agenda_keys() if self.watch is not None else None
        env.eval(f"(retract {index})")
        del self._by_index[index]
        if self.watch is not None:
            self._emit("fact", "-", fact)
            self._agenda_events(before, None)
        return True

    def facts(self) -> list[EngineFact]:
        return [self._by_index[i] for i in sorted(self._by_index)]

    def memory_used(self) -> int:
        """Bytes CLIPS has allocated (``(mem-used)``): flat over a long run."""
        return int(self._require().eval("(mem-used)"))

    def settle(self, facts: Sequence[EngineFact]) -> None:
        for fact in facts:
            self.declare(fact)
        for activation in list(self._require().activations()):
            activation.delete()

    # -------------------------------------------------------------- firing
    def _fired(self, number: int, *indices: int) -> None:
        """A right-hand side's report: its defrule's number, its basis's fact
        indices, then the indices of the facts it asserted.  Never raises (an
        error inside CLIPS would only be printed): the work is done in :meth:`run`."""
        self._pending.append((number, indices))

    def _counted(self, number: int, *indices: int) -> None:
        """A count's rule raised its count fact by one: the count, the old
        fact's index, the new one's, then the basis's."""
        self._pending.append((-1 - number, indices))

    def _count(self, old: int, new: int) -> None:
        fact = self._by_index.pop(old, None)
        if fact is None:  # pragma: no cover - the seat declares every count
            return
        del self._index[fact]
        made = EngineFact(fact.kind, tuple((f, v + 1 if f == "n" else v) for f, v in fact.values))
        self._by_index[new] = made
        self._index[made] = new
        self._emit("fact", "-", fact)
        self._emit("fact", "+", made)

    def run(self, limit: int | None = None) -> Iterator[EngineFiring]:
        """Fire activations, yielding each firing.  CLIPS runs native
        firings back to back and stops after a firing whose right-hand side
        the seat computes (its ``(halt)``); with a :attr:`watch`, one firing
        at a time, so the agenda's changes are reported between firings."""
        env = self._require()
        left = limit
        stepwise = self.watch is not None
        budget = MAX_FIRINGS
        counts: collections.Counter = collections.Counter()
        while left is None or left > 0:
            before = self._agenda_keys() if stepwise else None
            self._pending = []
            fired = env.run(1 if stepwise else min(budget + 1, left if left is not None else budget + 1))
            if fired == 0:
                break
            if left is not None:
                left -= fired
            budget -= fired
            if budget < 0:
                self._runaway(counts, self._pending)
            pending, self._pending = self._pending, []
            for number, indices in pending:
                if number < 0:
                    self._count(indices[0], indices[1])
                    if before is not None:
                        self._agenda_events(before, (f"count-{self._tallies[-1 - number].kind}", indices[2:]))
                    continue
                compiled = self._numbered[number]
                counts[number] += 1
                firing = self._firing(compiled, indices)
                if before is not None:
                    self._agenda_events(before, (compiled.name, indices[:len(compiled.patterns)]))
                    self._emit("fire", "", firing)
                yield firing

    def _runaway(self, counts: collections.Counter, pending: list) -> None:
        for number, _ in pending:
            if number >= 0:
                counts[number] += 1
        number, times = counts.most_common(1)[0] if counts else (pending[-1][0], 1)
        rule = self._numbered[number].rule if number >= 0 else None
        self._pending = []
        raise RuleLimitError(getattr(rule, "path", "clue_expert/engine/ir.py"), getattr(rule, "id", None),
                             f"the rules fired over {MAX_FIRINGS:,} times in one run (the limit on firings per run); "
                             f"this rule fired {times:,} of them")

    def _firing(self, compiled: _Compiled, indices: tuple) -> EngineFiring:
        n = len(compiled.patterns)
        by_index = self._by_index
        facts = tuple(by_index[i] for i in indices[:n])
        bindings = bindings_of(compiled.patterns, facts)
        native: list[EngineFact] = []
        if len(indices) > n:
            values = dict(bindings)
            for assertion, index in zip(compiled.native, indices[n:]):
                if not isinstance(index, int) or index in by_index:
                    continue  # a fact CLIPS held already
                fact = EngineFact(assertion.kind, tuple((f, evaluate(t, values)) for f, t in assertion.values))
                by_index[index] = fact
                self._index[fact] = index
                native.append(fact)
                self._emit("fact", "+", fact)
        self._step += 1
        return EngineFiring(Activation(compiled.rule.id, compiled.salience, facts, bindings), self._step,
                            tuple(native))

    # -------------------------------------------------------------- agenda
    def _agenda_raw(self) -> list[tuple[str, int, tuple]]:
        """(defrule name, salience, basis fact indices) of every activation, in firing order."""
        out = []
        for activation in self._require().activations():
            m = _BASIS.match(str(activation))
            if m is None:  # pragma: no cover - CLIPS's printed form
                continue
            basis = tuple(int(x[2:]) for x in m.group(3).split(",") if x.startswith("f-"))
            out.append((m.group(2), int(m.group(1)), basis))
        return out

    def _agenda_keys(self) -> dict[tuple, int]:
        return {(name, basis): salience for name, salience, basis in self._agenda_raw()}

    def _agenda_events(self, before: dict | None, fired: tuple | None) -> None:
        after = self._agenda_keys()
        for key in before or {}:
            if key not in after and key != fired:
                self._emit("activation", "-", self._activation(key[0], before[key], key[1]))  # type: ignore[index]
        for key, salience in after.items():
            if key not in (before or {}):
                self._emit("activation", "+", self._activation(key[0], salience, key[1]))

    def _activation(self, name: str, salience: int, basis: tuple) -> Activation:
        facts = tuple(self._by_index[i] for i in basis if i in self._by_index)
        compiled = self._rules.get(name)
        if compiled is None:  # a count's rule
            return Activation(name, salience, facts)
        return Activation(compiled.rule.id, salience, facts, bindings_of(compiled.patterns, facts))

    def agenda(self) -> list[Activation]:
        if self._env is None:
            return []
        return [self._activation(name, salience, basis) for name, salience, basis in self._agenda_raw()]


def _weak(engine: "ClipsEngine", method: str) -> Any:
    """``engine.method`` called through a weak reference to ``engine`` (a no-op once it is gone)."""
    ref = weakref.ref(engine)

    def call(*args: Any) -> None:
        target = ref()
        if target is not None:
            getattr(target, method)(*args)
    return call


__all__ = ["ClipsEngine"]
