"""What a rule firing's premises mean, and whether they entail its conclusion.

A rule's premises are facts: held / lacked cells, one-of and not-all
clauses, bounds, and the observations (a pass lacks the named cards, a show
holds one of them, a dealt or revealed hand holds its cards, an accusation
holds or does not hold all of its cards).  :class:`PremiseLogic` encodes each
as assumption literals over the deal's variables, on top of the rules of the
game (one owner per card, the hand sizes, the envelope's cards per
category: :class:`~clue_expert.engine.reasoning.backbone.SatModel`), so that

* :meth:`PremiseLogic.entails` checks a rule's stated ``because:`` list
  (``Knowledge(check_premises=True)``: scenarios, ``rules --test``,
  ``deduce --rules``);
* :meth:`PremiseLogic.minimize` shrinks the premises a rule *read* to a
  minimal set that still entails its conclusion, when the fact is first
  explained (:meth:`~clue_expert.engine.seat.knowledge.Knowledge.justification`),
  as the case analysis's premises are.

It is independent of the completion step: a seat without it (the Kingston
and Mitchell levels) builds one on first use.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ...core.facts import ENVELOPE, KEY_TYPES, AnyKey, Key, as_key
from ..reasoning.backbone import SatModel


class PremiseLogic:
    """The rules of one game's deal, and the literals of each fact."""

    def __init__(self, owners: Sequence[str], cards: Sequence[str], categories: Mapping[str, Sequence[str]],
                 hand_sizes: Mapping[str, int], envelope_counts: Mapping[str, int]):
        #: The deal's constraints (its own solver, apart from the completion step's).
        self.sat = SatModel(owners, cards, categories, dict(hand_sizes), ENVELOPE, dict(envelope_counts))
        #: What the constraints were built for: a knowledge rebuilds the logic when its hand sizes change.
        self.stamp = tuple(sorted(hand_sizes.items()))
        self._lits: dict[Key, tuple[int, ...]] = {}
        self._negations: dict[Key, tuple[int, ...]] = {}

    # ----------------------------------------------------------- encoding
    def _cell(self, owner: str, card: str, holds: bool = True) -> int:
        v = self.sat.var(owner, card)
        return v if holds else -v

    def _fresh(self) -> int:
        return self.sat.new_var()

    def _at_least_one(self, key, lits: list) -> int:
        return self.sat.add_clause_fact(key, lits)

    def literals(self, key: AnyKey, values: Mapping | None = None) -> tuple[int, ...]:
        """Assumption literals that say the fact ``key`` holds (``values``:
        an observation's fields); () for the set-up facts (the game, hand
        sizes), which the deal's constraints already say.  A plain tuple is
        read as its record (:func:`~clue_expert.core.facts.as_key`)."""
        found = self._lits.get(key)
        if found is not None:
            return found
        if type(key) not in KEY_TYPES:
            key = as_key(key)
        kind = key.kind
        v = values or {}
        lits: tuple[int, ...]
        if kind == "held":
            lits = (self._cell(key.owner, key.card),)
        elif kind == "lacked":
            lits = (self._cell(key.owner, key.card, False),)
        elif kind == "one-of":
            lits = (self._at_least_one(key, [self._cell(key.owner, c) for c in key.cards]),)
        elif kind == "not-all":
            lits = (self._at_least_one(key, [self._cell(key.owner, c, False) for c in key.cards]),)
        elif kind == "bound":
            lits = (self.sat.add_bound_fact(key, [self._cell(key.owner, c) for c in key.cards], key.low, key.high),)
        elif kind in ("dealt", "revealed"):
            owner = v.get("owner", v.get("player"))
            lits = tuple(self._cell(owner, c) for c in v.get("cards", ()))
        elif kind == "passed":
            lits = tuple(self._cell(v["player"], c, False) for c in v["cards"])
        elif kind == "showed":
            lits = (self._at_least_one(key, [self._cell(v["player"], c) for c in v["cards"]]),)
            if v.get("card") is not None:
                lits += (self._cell(v["player"], v["card"]),)
        elif kind == "accused":
            if v["correct"]:
                lits = tuple(self._cell(ENVELOPE, c) for c in v["cards"])
            else:
                lits = (self._at_least_one(key, [self._cell(ENVELOPE, c, False) for c in v["cards"]]),)
        else:  # game, hand-size: the deal's constraints
            lits = ()
        self._lits[key] = lits
        return lits

    def negation(self, key: AnyKey) -> tuple[int, ...]:
        """Assumption literals that say the conclusion ``key`` is false (a
        plain tuple is read as its record)."""
        found = self._negations.get(key)
        if found is not None:
            return found
        if type(key) not in KEY_TYPES:
            key = as_key(key)
        kind = key.kind
        lits: tuple[int, ...]
        if kind == "held":
            lits = (self._cell(key.owner, key.card, False),)
        elif kind == "lacked":
            lits = (self._cell(key.owner, key.card),)
        elif kind == "one-of":
            lits = tuple(self._cell(key.owner, c, False) for c in key.cards)
        elif kind == "not-all":
            lits = tuple(self._cell(key.owner, c) for c in key.cards)
        elif kind == "bound":  # fewer than low, or more than high
            cells = [self._cell(key.owner, c) for c in key.cards]
            low, high = key.low, key.high
            sides = []
            if low > 0:
                sides.append(self.sat.add_bound_fact(("not", key, "low"), cells, 0, low - 1))
            if high < len(cells):
                sides.append(self.sat.add_bound_fact(("not", key, "high"), cells, high + 1, len(cells)))
            t = self._fresh()
            self.sat.solver.add_clause([-t, *sides])
            lits = (t,)
        else:
            raise ValueError(f"cannot negate a {kind} fact")
        self._negations[key] = lits
        return lits

    # ------------------------------------------------------------ queries
    def _assume(self, keys: Iterable[Key], values: Mapping) -> list[int]:
        out: list[int] = []
        for k in keys:
            out.extend(self.literals(k, values.get(k)))
        return out

    def entails(self, premises: Iterable[Key], conclusion: Key | None, values: Mapping) -> bool:
        """Whether ``premises`` (with the deal's rules) entail ``conclusion``;
        with ``conclusion`` None, whether they contradict each other."""
        extra = [] if conclusion is None else list(self.negation(conclusion))
        return not self.sat.solver.solve(assumptions=self._assume(premises, values) + extra)

    def minimize(self, keep: Sequence[Key], candidates: Sequence[Key], conclusion: Key | None,
                 values: Mapping) -> list[Key]:
        """A minimal subset of ``candidates`` that, with all of ``keep``,
        still entails ``conclusion`` (or contradicts, with None):
        deletion-based, trying the candidates in the order given.  If even
        all of them do not, they are returned unchanged."""
        if not self.entails([*keep, *candidates], conclusion, values):
            return list(candidates)
        base = self._assume(keep, values) + ([] if conclusion is None else list(self.negation(conclusion)))
        lits = {k: self.literals(k, values.get(k)) for k in candidates}
        chosen = list(candidates)
        i = 0
        solver = self.sat.solver
        while i < len(chosen):
            trial = chosen[:i] + chosen[i + 1:]
            if solver.solve(assumptions=base + [x for k in trial for x in lits[k]]):
                i += 1  # needed
            else:
                core = set(solver.get_core() or ())
                if core:  # keep only what the refutation used (a faster shrink), in order
                    trial = [k for k in trial if not lits[k] or any(x in core for x in lits[k])]
                chosen = trial
        return chosen

