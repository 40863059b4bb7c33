"""The completeness step: a SAT backbone over the seat's knowledge.

The deal is encoded with one Boolean per (owner, card): every card has exactly
one owner, every player holds exactly his hand size, the envelope holds exactly
its count of each category (one each in the classic game).  Known held/lacked facts, one-of / not-all clause
facts and bounds ("holds at least *l* and at most *h* of these cards", as
cardinality constraints) enter as *assumptions* (clause facts and bounds through
selector variables), so an unsatisfiable query returns a core made of known facts.

:meth:`SatModel.backbone` finds every literal true in all models -- every fact
entailed by what is known -- and, for each, the core of known facts that refutes
its opposite.  :meth:`SatModel.minimize` shrinks a core to a minimal one
(deletion-based), which is the explanation shown for a case-analysis fact.
Uses Minicard (python-sat), which has native cardinality constraints.
"""
from __future__ import annotations

from contextlib import contextmanager
from itertools import groupby
from typing import Iterable, Iterator, Mapping, Sequence

from pysat.card import CardEnc, EncType
from pysat.solvers import Minicard


def _interrupted(exc: Exception) -> bool:
    """Whether ``exc`` is PySAT's own error for a SIGINT its C code caught (see :func:`_ctrl_c`)."""
    return "keyboard interrupt" in str(exc).lower()


@contextmanager
def _ctrl_c() -> Iterator[None]:
    """PySAT's C code catches SIGINT itself -- in its cardinality encodings
    and its solvers -- and may raise its module's ``error('Caught keyboard
    interrupt')`` instead of :class:`KeyboardInterrupt`; an interrupted
    ``sweep`` then ended with exit 70 (an internal error) instead of the
    summary of the work finished.  Turned back into KeyboardInterrupt here."""
    try:
        yield
    except Exception as exc:
        if _interrupted(exc):
            raise KeyboardInterrupt from None
        raise


class _Minicard(Minicard):
    """Minicard whose ``solve`` is interrupted as Python code is (as
    :func:`_ctrl_c` does, without a context manager's cost per solve)."""

    def solve(self, assumptions: list = []) -> bool | None:  # noqa: B006 - PySAT's own signature
        try:
            return Minicard.solve(self, assumptions)
        except Exception as exc:
            if _interrupted(exc):
                raise KeyboardInterrupt from None
            raise


def _absorb(live: set[int], pos: set[int], m: frozenset) -> None:
    """Take out of ``live`` (and ``pos``, its variables true in every model
    so far) the variables on which model ``m`` (its true cells) disagrees
    with the models before it (see :meth:`SatModel.backbone`)."""
    gone = live.intersection(pos.symmetric_difference(m))
    if gone:
        live.difference_update(gone)
        pos.difference_update(gone)


class Unsatisfiable(Exception):
    """The known facts admit no deal; ``core`` is a set of assumption literals."""

    def __init__(self, core: Sequence[int]):
        super().__init__("unsatisfiable")
        self.core = list(core)


#: The most cells (cards x owners) a game may have for the completion step to
#: run: above it a knowledge runs the rules alone and says so
#: (``Knowledge.completion_note``).  Measured: on 400 cards x 11 owners
#: (4,400 cells) the step took 0.3 s per observation and seat, so a
#: 10-player game did not finish in 60 s; the largest shipped edition at 10
#: players has 330 cells (docs/limits.md).
MAX_COMPLETION_CELLS = 2_000


class _Base:
    """What every :class:`SatModel` of one shape of game shares: its cell
    variables and its hard constraints, worked out once (:func:`_base`)."""

    __slots__ = ("owners", "cards", "vars", "cell", "shape", "cells", "cell_vars", "constraints", "owner_cells",
                 "owner_index", "card_index")

    def __init__(self, owners: Sequence[str], cards: Sequence[str], categories: Mapping[str, Sequence[str]],
                 hand_sizes: Mapping[str, int], envelope: str, envelope_counts: Mapping[str, int] | None):
        self.owners, self.cards = tuple(owners), tuple(cards)
        self.vars: dict[tuple[str, str], int] = {}
        n = 0
        for o in self.owners:
            for c in self.cards:
                n += 1
                self.vars[(o, c)] = n
        self.cell = {v: k for k, v in self.vars.items()}
        #: the positions of a cell variable's owner and card (indexed by the variable; 0 is none)
        self.owner_index = [-1] + [i for i in range(len(self.owners)) for _ in self.cards]
        self.card_index = [-1] + [j for _ in self.owners for j in range(len(self.cards))]
        self.shape = (self.owners, self.cards, tuple(sorted((k, tuple(v)) for k, v in categories.items())),
                      tuple(sorted(hand_sizes.items())), envelope, tuple(sorted((envelope_counts or {}).items())))
        self.cells = n
        self.cell_vars = frozenset(range(1, n + 1))
        #: (owner, [(card, variable), ...] in card order) for every owner (SatModel.owner_cells; never changed).
        self.owner_cells = [(o, [(c, self.vars[(o, c)]) for c in self.cards]) for o in self.owners]
        #: (literals, None): a clause; (literals, k): at most k of them (Minicard's own constraint).
        self.constraints: list[tuple[list[int], int | None]] = []
        for c in self.cards:
            lits = [self.vars[(o, c)] for o in self.owners]
            self.constraints += [(lits, None), (lits, 1)]
        for o in self.owners:
            if o == envelope:
                for cat, cat_cards in categories.items():
                    self._exactly([self.vars[(o, c)] for c in cat_cards], (envelope_counts or {}).get(cat, 1))
            elif hand_sizes.get(o) is not None:
                self._exactly([self.vars[(o, c)] for c in self.cards], hand_sizes[o])

    def _exactly(self, lits: list, n: int) -> None:
        """Exactly ``n`` of ``lits`` are true (two Minicard cardinality constraints)."""
        if n == 0:
            self.constraints += [([-x], None) for x in lits]
            return
        self.constraints += [(lits, n), ([-x for x in lits], len(lits) - n)]


#: The shapes of game seen (see :func:`_base`), at most ``BASES`` of them.
_BASES: dict[tuple, _Base] = {}
BASES = 64


def _base(owners: Sequence[str], cards: Sequence[str], categories: Mapping[str, Sequence[str]],
          hand_sizes: Mapping[str, int], envelope: str, envelope_counts: Mapping[str, int] | None) -> _Base:
    """The shared part of a model of this game, made the first time (a new
    game of the same seats and edition makes its solver from it)."""
    key = (tuple(owners), tuple(cards), tuple((k, tuple(v)) for k, v in categories.items()),
           tuple(hand_sizes.items()), envelope, tuple((envelope_counts or {}).items()))
    base = _BASES.get(key)
    if base is None:
        base = _Base(owners, cards, categories, hand_sizes, envelope, envelope_counts)
        if len(_BASES) >= BASES:
            _BASES.pop(next(iter(_BASES)))
        _BASES[key] = base
    return base


class SatModel:
    """The deal constraints of one game plus the clause facts added so far."""

    def __init__(self, owners: Sequence[str], cards: Sequence[str], categories: Mapping[str, Sequence[str]],
                 hand_sizes: Mapping[str, int], envelope: str, envelope_counts: Mapping[str, int] | None = None):
        base = _base(owners, cards, categories, hand_sizes, envelope, envelope_counts)
        #: Owner names; the envelope among them.
        self.owners = list(base.owners)
        #: Card ids.
        self.cards = list(base.cards)
        #: (owner, card) -> the variable of "owner holds card" (what :meth:`var` reads; shared, never changed).
        self.vars: dict[tuple[str, str], int] = base.vars
        self._cell = base.cell
        #: what the hard constraints depend on (witnesses carry over between equal shapes)
        self._shape = base.shape
        #: cell variables are 1 .. this
        self._cells = base.cells
        self._cell_vars = base.cell_vars
        self._free = base.cells + 1
        self._base = base
        s = self.solver = _Minicard()
        for lits, at_most in base.constraints:  # in the order _base made them: the same solver
            if at_most is None:
                s.add_clause(lits)
            else:
                s.add_atmost(lits, at_most)
        #: selector literal -> clause key
        self.selectors: dict[int, tuple] = {}
        #: selector literal -> (literals, at least, at most) it stands for
        self._facts: dict[int, tuple] = {}
        #: selector literal -> (True: holds one of / False: not all of, the cell variables) for a clause
        self._quick: dict[int, tuple] = {}
        #: recent models with how many assumptions each was checked against
        self._models: list = []
        #: How many models have been kept so far (:meth:`_keep`).
        self.kept = 0

    def var(self, owner: str, card: str) -> int:
        """The variable of "owner holds card"."""
        return self.vars[(owner, card)]

    def owner_cells(self) -> list[tuple[str, list[tuple[str, int]]]]:
        """(owner, [(card, variable), ...] in card order) for every owner, in order."""
        return self._base.owner_cells

    def owner_groups(self, owner: str, groups: Mapping[str, Iterable[str]]) -> list[list[int]]:
        """The variables of ``owner``'s cells, one list per group of cards (e.g.
        per category), each in card order; worked out once per owner and groups' names."""
        cache = self.__dict__.setdefault("_owner_groups", {})
        made = cache.get((owner, tuple(groups)))
        if made is None:
            order = {c: i for i, c in enumerate(self.cards)}
            made = cache[(owner, tuple(groups))] = [[self.vars[(owner, c)] for c in sorted(cards, key=order.__getitem__)]
                                   for cards in groups.values()]
        return made

    def new_var(self) -> int:
        """A fresh variable, neither a cell nor a selector of this model (an
        encoding's auxiliary variable; selectors are made by the ``add_*`` methods)."""
        v = self._free
        self._free += 1
        return v

    def cell(self, var: int) -> tuple[str, str]:
        """(owner, card) of a cell variable."""
        return self._cell[var]

    def is_cell(self, lit: int) -> bool:
        """Whether a literal is a cell (not a selector)."""
        return abs(lit) in self._cell

    def add_clause_fact(self, key: tuple, lits: Iterable[int]) -> int:
        """Add a clause guarded by a new selector; returns the selector."""
        lits = list(lits)
        sel = self.new_var()
        self.solver.add_clause([-sel, *lits])
        self.selectors[sel] = key
        self._facts[sel] = (lits, 1, len(lits))
        if lits and (all(y > 0 for y in lits) or all(y < 0 for y in lits)):
            # at least one of lits true: some cell held (a one-of) or, all
            # negative, some cell not held (a not-all), checked as a set test
            self._quick[sel] = (lits[0] > 0, frozenset(abs(y) for y in lits))
        return sel

    def add_bound_fact(self, key: tuple, lits: Sequence[int], low: int, high: int) -> int:
        """Add "at least ``low`` and at most ``high`` of ``lits`` are true",
        guarded by a new selector (every clause of its sequential-counter
        encoding gets the selector's negation, so the bound holds only when
        the selector is assumed); returns the selector."""
        lits = list(lits)
        sel = self.new_var()
        parts: list = []
        if low > len(lits) or high < 0:  # nothing can meet it
            self.solver.add_clause([-sel])
        else:
            with _ctrl_c():
                self._encode(lits, low, high, parts)
        for cnf in parts:
            for clause in cnf.clauses:
                self.solver.add_clause([-sel, *clause])
        self.selectors[sel] = key
        self._facts[sel] = (lits, low, high)
        return sel

    def _encode(self, lits: list, low: int, high: int, parts: list) -> None:
        """Appends to ``parts`` the encodings of at least ``low`` and at most ``high`` of ``lits``."""
        if low > 0:
            parts.append(CardEnc.atleast(lits=lits, bound=low, top_id=self._free - 1,
                                         encoding=EncType.seqcounter))
            self._free = max(self._free, parts[-1].nv + 1)
        if high < len(lits):
            parts.append(CardEnc.atmost(lits=lits, bound=high, top_id=self._free - 1,
                                        encoding=EncType.seqcounter))
            self._free = max(self._free, parts[-1].nv + 1)

    def backbone(self, assumptions: Sequence[int], candidates: Iterable[int]) -> list[tuple[int, list[int]]]:
        """Every literal over the ``candidates`` variables entailed under
        ``assumptions``, each with an (unminimized) core, in the order of
        ``candidates``.  Raises :class:`Unsatisfiable` when the assumptions
        themselves conflict.

        A variable is not entailed either way once two models of the
        assumptions disagree on it.  The models found by earlier calls are
        kept (:meth:`_witnesses`: the most recent ones that still satisfy
        every assumption), so most open cells are settled without a solve:
        a solve is needed only for a variable on which every kept model
        agrees -- to find a model that flips it, or to prove it entailed."""
        s = self.solver
        assumptions = list(assumptions)
        models = self._models_of(assumptions)
        candidates = list(candidates)
        # ``live``: the candidates on which every model so far agrees (a
        # variable leaves it once two models disagree on it); ``pos``: those
        # of them true in the models (in all of them, then).  A model
        # disagrees on the live variables in which it differs from ``pos``
        # (:func:`_absorb`).  A live variable's literal is ``v`` when it is in
        # ``pos``, else ``-v``; its flip the opposite.
        live = set(candidates)
        pos = live.intersection(models[0])
        for m in models[1:]:
            _absorb(live, pos, m)
        # the variables every model so far agrees on: for each in turn a
        # model that flips it, with the solver preferring to flip all of them
        # (so that one model settles many), or a proof that it is entailed
        opened = list(filter(live.__contains__, candidates))
        if len(opened) > 1:
            s.set_phases([-v if v in pos else v for v in opened])
            self._flip_groups(opened, assumptions, live, pos)
        found = []
        n = len(assumptions)
        trial = assumptions + [0]
        for v in filter(live.__contains__, opened):  # not flipped by a model found since
            trial[n] = flip = -v if v in pos else v
            if s.solve(trial):
                _absorb(live, pos, self._keep(s.get_model(), n))
            else:
                found.append((-flip, [x for x in (s.get_core() or []) if x != flip]))
        return found

    def _flip_groups(self, opened: list[int], assumptions: list[int], live: set[int], pos: set[int]) -> None:
        """Settle many of ``opened`` (the variables every model so far
        agrees on) with few solves, for :meth:`backbone`: assume the flips of
        a group that can hold together (one cell per card and per owner); a
        model (absorbed into ``live`` and ``pos``, see :func:`_absorb`)
        settles them all, a conflict leaves the flips of its core to
        backbone's one-by-one checks."""
        s = self.solver
        base = self._base
        card_index = base.card_index
        # The variables in runs of one owner each (the candidates come owner
        # by owner): a group takes from each run the first variable still
        # ``avail`` whose card the group lacks -- from the first run of an
        # owner only, as the flat greedy scan over the flips in order does.
        runs = [(owner, list(run)) for owner, run in groupby(opened, base.owner_index.__getitem__)]
        avail = set(opened)  # live (not settled by a model) and not blamed for a conflict
        n = len(assumptions)
        while True:
            group, cards, owners = [], set(), set()
            for owner, run in runs:
                if owner in owners:
                    continue
                for v in run:
                    if v in avail:
                        card = card_index[v]
                        if card not in cards:
                            cards.add(card)
                            owners.add(owner)
                            group.append(-v if v in pos else v)
                            break
            if len(group) < 2:
                break
            if s.solve(assumptions + group):
                _absorb(live, pos, self._keep(s.get_model(), n))
                # the flips settled by it are left out of every later group
                avail.intersection_update(live)
            else:
                core = set(s.get_core() or group)
                # to backbone's one-by-one checks
                avail.difference_update([abs(x) for x in group if x in core] or [abs(x) for x in group])

    def _models_of(self, assumptions: list, first: bool = False) -> list:
        """Models of ``assumptions`` (their true cells): the kept witnesses
        that satisfy them (with ``first``, only the first of them: see
        :meth:`_witnesses`), else one solve's model (kept); raises
        :class:`Unsatisfiable` when there is none."""
        models = self._witnesses(assumptions, first)
        if not models:
            s = self.solver
            if not s.solve(assumptions=assumptions):
                raise Unsatisfiable(s.get_core() or [])
            models = [self._keep(s.get_model(), len(assumptions))]
        return models

    def check(self, assumptions: Sequence[int]) -> None:
        """Raise :class:`Unsatisfiable` unless some deal satisfies ``assumptions``
        (a kept witness that does is enough; else one solve, whose model is kept)."""
        self._models_of(list(assumptions), first=True)

    def pinned(self, assumptions: Sequence[int], groups: Sequence[Sequence[int]]) -> bool:
        """Whether, in every group of variables, the same ones are true in
        every model of ``assumptions`` (e.g. the envelope's cells of each
        category: the envelope is then known).  Kept witnesses that disagree
        on a group answer at once; otherwise one solve per variable true in
        the witnesses, each asking for a model without it (kept)."""
        assumptions = list(assumptions)
        models = self._models_of(assumptions)
        first = models[0]
        for group in groups:
            true = first.intersection(group)
            rest = frozenset(group).difference(true)
            for m in models:
                if not true.issubset(m) or not rest.isdisjoint(m):
                    return False
        s = self.solver
        for group in groups:
            for v in group:
                if v in models[0]:
                    if s.solve(assumptions=assumptions + [-v]):
                        self._keep(s.get_model(), len(assumptions))
                        return False
        return True

    #: How many recent models :meth:`backbone` keeps as witnesses.
    WITNESSES = 48

    def fact_of(self, sel: int) -> tuple:
        """(literals, at least, at most) that a selector stands for."""
        return self._facts[sel]

    def inherit_witnesses(self, other: "SatModel") -> None:
        """Take over another model's kept witnesses (e.g. the last game's),
        when it encodes the same deals (the same owners, cards, hand sizes
        and envelope); each is checked against every assumption before use."""
        if other._shape == self._shape:
            self._models = [[m, 0] for m, _ in other._models]

    def _keep(self, model, checked: int) -> frozenset:
        """Keep a model as a witness (the cell variables it makes true: one
        owner per card), valid for the first ``checked`` assumptions of the
        current list."""
        m = self._cell_vars.intersection(model)
        self.kept += 1
        self._models.append([m, checked])
        if len(self._models) > self.WITNESSES:
            del self._models[0]
        return m

    def _witnesses(self, assumptions: list, first: bool = False) -> list:
        """The kept models that satisfy every assumption (each checked only
        against the assumptions added since it was last checked: the list
        only grows within a game; see :meth:`_tests`).  Those that do not
        are dropped.  With ``first``, the first that does, alone: the ones
        after it are checked by the next call without ``first`` (the kept
        list then is what it would be; every call that keeps a model has
        checked them all)."""
        out = []
        keep = []
        n = len(assumptions)
        models = self._models
        tests: dict[int, tuple] = {}  # checked -> its tests (most models share one)
        for at, entry in enumerate(models):
            m, checked = entry
            if checked > n:
                continue
            test = tests.get(checked)
            if test is None:
                test = tests[checked] = self._tests(assumptions[checked:])
            must, never, clauses, bounds = test
            ok = must.issubset(m) and never.isdisjoint(m)
            if ok and clauses:
                for some, cells in clauses:
                    if cells.isdisjoint(m) if some else cells.issubset(m):
                        ok = False
                        break
            if ok and bounds:
                ok = all(low <= sum(1 for y in lits if ((y in m) if y > 0 else (-y not in m))) <= high
                         for lits, low, high in bounds)
            if not ok:
                continue
            entry[1] = n
            keep.append(entry)
            out.append(m)
            if first:
                keep += models[at + 1:]
                break
        self._models = keep
        return out

    def _tests(self, assumptions: list) -> tuple:
        """What a model (its true cells) must meet to satisfy every one of
        ``assumptions``: (the cells it must make true, those it must not --
        the cell literals --, (True: one of / False: not all, cells) for
        each clause, (literals, at least, at most) for each bound)."""
        held: list[int] = []
        lacked: list[int] = []
        clauses: list[tuple] = []
        bounds: list[tuple] = []
        facts, quick = self._facts, self._quick
        for x in assumptions:
            fact = facts.get(x)
            if fact is None:
                (held if x > 0 else lacked).append(abs(x))
            elif x in quick:  # a one-of / not-all clause
                clauses.append(quick[x])
            else:
                bounds.append(fact)
        return frozenset(held), frozenset(lacked), clauses, bounds

    def entails(self, assumptions: Sequence[int], lit: int) -> bool:
        """Whether ``assumptions`` entail ``lit``."""
        return not self.solver.solve(assumptions=list(assumptions) + [-lit])

    def minimize(self, core: Sequence[int], lit: int | None = None) -> list[int]:
        """A minimal subset of ``core`` that still refutes ``-lit`` (or is
        unsatisfiable on its own when ``lit`` is None)."""
        s = self.solver
        extra = [] if lit is None else [-lit]
        core = list(dict.fromkeys(core))
        i = 0
        while i < len(core):
            trial = core[:i] + core[i + 1:]
            if not s.solve(assumptions=trial + extra):
                shrunk = set(s.get_core() or trial)
                core = [x for x in trial if x in shrunk]
            else:
                i += 1
        return core

    def consistent(self, assumptions: Sequence[int]) -> bool:
        """Whether any deal satisfies ``assumptions``."""
        return bool(self.solver.solve(assumptions=list(assumptions)))

    def example(self, assumptions: Sequence[int]) -> set | None:
        """The true literals of one deal satisfying ``assumptions`` (None if none does)."""
        if not self.solver.solve(assumptions=list(assumptions)):
            return None
        return set(self.solver.get_model())
