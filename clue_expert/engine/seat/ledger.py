"""The completion step's ledger: the SAT model and which known fact each of its literals stands for.

A seat with the completion step on owns one :class:`SatLedger` for its
lifetime (None with the step off), given a new model each game (``renew``).  The fact store tells it
every held / lacked / clause / bound fact it records (``add_cell``,
``add_clause``, ``add_bound``); the completion step asks the model about
the literals of the known facts (``assumptions``) and reads the facts back
from the literals of an answer's core (``keys``); a case-analysis fact's
core waits in ``pending`` until it is first explained (``minimal``).  The
opening of a game is kept and put back whole (``snapshot``, ``restore``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from ..reasoning.backbone import SatModel
from ...core.facts import CellKey, Key


@dataclass(slots=True)
class PendingCore:
    """A case-analysis fact's SAT core, sufficient but not yet minimal:
    shrunk when the fact is first explained (:meth:`SatLedger.minimal`)."""

    lit: int
    """The fact's cell literal."""
    core: tuple[int, ...]
    """The literals of the known facts that entail it."""


@dataclass(frozen=True)
class SatFact:
    """One clause or bound fact of the SAT model, as it was made."""

    selector: int
    """Its selector variable (making the same facts in the same order numbers them the same)."""
    key: Key
    """The fact."""
    lits: Sequence[int]
    """Its cell literals."""
    low: int
    """At least this many of them are true."""
    high: int
    """At most this many."""


@dataclass(frozen=True)
class LedgerSnapshot:
    """What a ledger held at one moment (a game's opening), to put back with :meth:`SatLedger.restore`."""

    facts: dict[int, Key]
    """literal -> the known fact, in the order they were told."""
    pending: dict[Key, PendingCore]
    """The cores waiting to be minimised."""
    done: int
    """See :attr:`SatLedger.done`."""
    sat_facts: list[SatFact]
    """The model's clause and bound facts, in order."""


class SatLedger:
    """The SAT model of the completion step and the known facts it was told (see the module docstring)."""

    __slots__ = ("model", "facts", "done", "pending", "unpinned")

    def __init__(self, model: SatModel) -> None:
        #: The deals of this game as a SAT model (:class:`~clue_expert.engine.reasoning.backbone.SatModel`).
        self.model = model
        #: literal (a cell's, or a clause or bound fact's selector) -> the known fact it stands for, in order.
        self.facts: dict[int, Key] = {}
        #: How many facts the completion step had when it last finished (-1: never).
        self.done = -1
        #: Case-analysis facts whose cores wait to be minimised.
        self.pending: dict[Key, PendingCore] = {}
        #: (how many facts, how many models the model had kept) when it last
        #: found the envelope not pinned (None: never; see CompletionStep.solved).
        self.unpinned: tuple[int, int] | None = None

    def renew(self, model: SatModel) -> None:
        """Start again on ``model`` (a new game, or a game undone to a
        snapshot), which inherits the old model's kept deals (checked again
        before use); nothing is known yet."""
        model.inherit_witnesses(self.model)
        self.model = model
        self.facts = {}
        self.done = -1
        self.pending = {}
        self.unpinned = None

    def add_cell(self, key: CellKey, held: bool) -> None:
        """A held (``held``) or lacked fact is known."""
        var = self.model.vars[(key.owner, key.card)]
        self.facts[var if held else -var] = key

    def add_clause(self, key: Key, owner: str, cards: Iterable[str], sign: int) -> None:
        """A one-of (``sign`` 1) or not-all (``sign`` -1) fact about ``owner`` and ``cards`` is known."""
        model = self.model
        self.facts[model.add_clause_fact(key, [sign * model.var(owner, c) for c in cards])] = key

    def add_bound(self, key: Key, owner: str, cards: Iterable[str], low: int, high: int) -> None:
        """A bound fact is known: ``owner`` holds from ``low`` to ``high`` of ``cards``."""
        model = self.model
        self.facts[model.add_bound_fact(key, [model.var(owner, c) for c in cards], low, high)] = key

    def assumptions(self) -> list[int]:
        """The literals of every known fact, in the order they were told."""
        return list(self.facts)

    def keys(self, lits: Iterable[int]) -> tuple[Key, ...]:
        """The known facts the literals stand for."""
        facts = self.facts
        return tuple(facts[x] for x in lits)

    def minimal(self, pending: PendingCore) -> tuple[Key, ...]:
        """A minimal set of the known facts of a pending core that still entails its fact."""
        return self.keys(self.model.minimize(pending.core, pending.lit))

    def refuting(self, extra: list[int]) -> tuple[Key, ...] | None:
        """A minimal set of known facts refuting the literals ``extra``, or
        None when some deal satisfies them."""
        sat = self.model
        current = self.assumptions()
        if sat.consistent(current + extra):
            return None
        allowed = set(current)
        core = [x for x in (sat.solver.get_core() or current) if x in allowed]
        i = 0
        while i < len(core):
            trial = core[:i] + core[i + 1:]
            if sat.consistent(trial + extra):
                i += 1
            else:
                core = trial
        return self.keys(core)

    def snapshot(self) -> LedgerSnapshot:
        """What the ledger holds now (copies)."""
        sat = self.model
        sat_facts = [SatFact(sel, sat.selectors[sel], *sat.fact_of(sel)) for sel in sat.selectors]
        return LedgerSnapshot(dict(self.facts), dict(self.pending), self.done, sat_facts)

    def restore(self, saved: LedgerSnapshot) -> None:
        """Put back a snapshot into this ledger, whose model is new (made for the same game)."""
        sat = self.model
        for f in saved.sat_facts:
            # f.key[0]: a bound's key, or the SAT's own ("not", key, side) tuple (premises.py)
            made = (sat.add_bound_fact(f.key, f.lits, f.low, f.high) if f.key[0] == "bound"
                    else sat.add_clause_fact(f.key, f.lits))
            if made != f.selector:  # pragma: no cover - the same calls number the same
                raise RuntimeError("the completion step's clause facts did not replay")
        self.facts = dict(saved.facts)
        self.pending = dict(saved.pending)
        self.done = saved.done
        self.unpinned = None
