"""The published result tables beside ours.

``kingston``: Table 1 (rounds to a solution, deals 1-5 and the generator's
mean, 3 and 6 players, five strategies).  ``mitchell``: tables 5.1 and 5.2
(mean rounds to a solution, same-strategy games) and 5.3 (wins per seat in
basic/advanced mixes).  The published figures are data in
``clue_expert/published/*.yaml``.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import random
import statistics
from dataclasses import dataclass, field
from typing import Callable

import yaml

from ..core.deals import Deal, get_deal
from ..core.errors import ClueError
from ..core.paths import published_dir
from .players import CHOICES, load_decisions
from .simulate import GameSpec, Interrupted, envelope_variants, hash_seed, make_specs, run_games, summarize

KINGSTON_STRATEGIES = ["kingston-no-intelligence", "kingston-deduction", "kingston-next-possible",
                       "kingston-previous-possible", "kingston-next-not-held"]
#: The strategies whose text names a random choice (the seat option choice= applies to them).
KINGSTON_RANDOM = ("kingston-next-possible", "kingston-previous-possible")
MITCHELL = {"basic": "mitchell-basic", "advanced": "mitchell-advanced"}


@dataclass(frozen=True)
class Estimate:
    """Our figure for a cell: the mean over runs and its 10-90 % range."""

    mean: float
    """The mean over the runs (rounded to 2 decimals)."""
    low: float
    """The 10th percentile of the runs."""
    high: float
    """The 90th percentile of the runs."""
    runs: int
    """How many runs."""

    def contains(self, value: float) -> bool:
        """Whether a published value lies inside the 10-90 % range."""
        return self.low - 1e-9 <= value <= self.high + 1e-9

    def __str__(self) -> str:
        if self.low == self.high:
            return f"{self.mean:g}"
        return f"{self.mean:g} ({self.low:g}–{self.high:g})"

    def to_json(self) -> dict:
        return {"mean": self.mean, "p10": self.low, "p90": self.high, "runs": self.runs}


def estimate(values: list) -> Estimate | None:
    """The :class:`Estimate` of a list of figures (None for none): the mean
    and the 10th and 90th percentiles (inclusive method, so a range lies
    within the figures' own span)."""
    xs = sorted(float(x) for x in values if x is not None)
    if not xs:
        return None
    if len(xs) == 1:
        lo = hi = xs[0]
    else:
        cuts = statistics.quantiles(xs, n=10, method="inclusive")
        lo, hi = cuts[0], cuts[-1]
    return Estimate(round(sum(xs) / len(xs), 2), round(lo, 2), round(hi, 2), len(xs))


@dataclass
class Comparison:
    """A published table with our figures beside it."""

    title: str
    """Which table."""
    columns: list
    """Column labels (each cell shows published / ours)."""
    rows: list = field(default_factory=list)
    """(label, [(published, ours), ...])."""
    notes: list = field(default_factory=list)
    """How ours were measured."""
    calibrated: dict = field(default_factory=dict)
    """row label -> a second figure per column (an :class:`Estimate` or
    None): ours as the author's program evidently ran, not as the text
    gives it; never counted with ``rows``."""
    calibrated_heading: str = ""
    """How the calibrated column is headed (empty: none)."""
    flags: dict = field(default_factory=dict)
    """(row label, column) -> why no consistent reading reaches that calibrated cell."""

    def to_json(self) -> dict:
        out = {"title": self.title, "columns": self.columns, "notes": self.notes,
               "rows": [{"label": label, "cells": [self._cell(label, c, p, o) for c, (p, o) in
                                                   zip(self.columns, cells)]}
                        for label, cells in self.rows]}
        if self.calibrated_heading:
            out["calibrated_heading"] = self.calibrated_heading
        return out

    def _cell(self, label: str, column: str, published_value, ours) -> dict:
        out = _cell_json(published_value, ours)
        if label in self.calibrated:
            cal = self.calibrated[label][self.columns.index(column)]
            out["calibrated"] = {"ours": None if cal is None else cal.to_json()}
            if cal is not None and isinstance(published_value, (int, float)):
                out["calibrated"]["inside_range"] = cal.contains(published_value)
                out["calibrated"]["difference"] = round(cal.mean - published_value, 2)
            if (label, column) in self.flags:
                out["calibrated"]["flag"] = self.flags[(label, column)]
        return out


def _cell_json(published_value, ours) -> dict:
    if isinstance(ours, Estimate):
        out = {"published": published_value, "ours": ours.to_json()}
        if isinstance(published_value, (int, float)):
            out["inside_range"] = ours.contains(published_value)
            out["difference"] = round(ours.mean - published_value, 2)
        return out
    return {"published": published_value, "ours": ours}


class ReproductionInterrupted(Interrupted):
    """A reproduction stopped by Ctrl-C: ``tables`` holds the tables whose
    games were (at least partly) played, each partial one with a note."""

    def __init__(self, tables: list, finished: int, total: int):
        #: The tables finished, and the one in progress from the games it finished.
        self.tables = tables
        super().__init__([], total, finished)


class GameRuns:
    """The runs of games of one reproduction, with every game counted up
    front, so that an interruption can say how far it got."""

    def __init__(self, workers: int, progress, total: int, executor=None, engine: str | None = None):
        self.workers, self.progress, self.total = workers, progress, total
        #: Where the games run (None: a local pool of ``workers`` processes).
        self.executor = executor
        #: The rule engine the command chose (``--engine``) for every game's seats whose spec names none, or None.
        self.engine = engine
        self.finished = 0
        #: The run interrupted (later runs are skipped: ``run`` returns None).
        self.interrupted = False

    def run(self, specs) -> list | None:
        if self.interrupted:
            return None
        if self.engine is not None:
            specs = [dataclasses.replace(s, engine=self.engine) for s in specs]
        try:
            results = run_games(specs, self.workers, self.progress, executor=self.executor)
        except Interrupted as exc:
            self.interrupted = True
            results = exc.results
        self.finished += len(results)
        return results

    def note(self, table: "Comparison", planned: int, played: int) -> None:
        if played < planned:
            table.notes.append(f"interrupted: the figures are over the {played} of {planned} games of this "
                               f"table finished")

    def done(self, tables: list) -> list:
        if self.interrupted:
            raise ReproductionInterrupted(tables, self.finished, self.total)
        return tables


@functools.lru_cache(maxsize=None)
def published(name: str) -> dict:
    """The published figures of a paper."""
    with open(published_dir() / f"{name}.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def envelope_sample(deal, envelopes: int, seed: int = 1) -> list:
    """The envelope variants behind the 'all' column: every one of them when
    ``envelopes`` is at least their number (324 for deal 1), else a seeded
    random sample in which every variant has the same chance to be drawn (so
    the sample's mean is an unbiased estimate of the mean over all of them).

    When ``envelopes`` is a multiple of the number of (first category x
    second category) pairs (36 for 6 suspects x 6 weapons), the sample is
    stratified: every pair appears equally often, and the last category's
    cards (the rooms) are dealt out over the pairs from a shuffled, evenly
    repeated list, so every room appears equally often too.  Otherwise it is
    a simple random sample without replacement.  Either way it is never every
    k-th variant in product order, which keeps the room fixed."""
    variants = envelope_variants(deal)
    if envelopes <= 0:
        return []
    if envelopes >= len(variants):
        return variants
    rng = random.Random(hash_seed(seed, envelopes))
    ed = deal.edition
    *front, last = ed.categories
    last_cards = list(ed.category_cards(last))
    by_front: dict = {}
    for v in variants:
        by_front.setdefault(v.envelope[:-1], {})[v.envelope[-1]] = v
    strata = list(by_front)
    per = envelopes // len(strata) if strata and envelopes % len(strata) == 0 else 0
    if not per or per > len(last_cards) or len(front) == 0:
        return rng.sample(variants, envelopes)
    rng.shuffle(strata)
    rng.shuffle(last_cards)
    out: list[Deal] = []
    for i, key in enumerate(strata):
        picks = [last_cards[(i * per + j) % len(last_cards)] for j in range(per)]
        out.extend(by_front[key][c] for c in picks)
    return out


def _list_order(strategy: str, choice: str, response: str) -> bool:
    """Whether every game of the strategy on a deal is the same game,
    whatever its seed: one of Kingston's strategies asking in list order
    (No intelligence, Deduction, Next-not-held; the possible ones with
    choice=first) and a response that answers in list order too.  Such a cell
    is one game (tests/test_reproductions.py checks two seeds play alike)."""
    if strategy not in KINGSTON_STRATEGIES or (strategy in KINGSTON_RANDOM and choice != "first"):
        return False
    return load_decisions("response", response).choice == "first"


def _deal_key(deal: Deal) -> tuple:
    return (deal.players, deal.envelope, tuple(sorted(deal.hands.items())))


class _Plan:
    """The games of a reproduction, each distinct game once: a game is
    named by its deal, seats, response and seed (no seed for a list-order
    seat, whose games are alike whatever it is), and every cell that needs
    it reads it."""

    def __init__(self, response: str):
        self.response = response
        self.specs: list[GameSpec] = []
        self._index: dict = {}
        #: (column, row label, table column, seed) -> the indexes of its games
        self.uses: dict = {}

    def add(self, use: tuple, deal: Deal, seat: str, seed: int | None) -> None:
        key = (_deal_key(deal), seat, seed)
        i = self._index.get(key)
        if i is None:
            i = self._index[key] = len(self.specs)
            self.specs.append(GameSpec(i, deal, (seat,) * len(deal.players), seed if seed is not None else 1,
                                       response=self.response))
        self.uses.setdefault(use, []).append(i)

    def cell(self, rounds: dict, kind: str, label: str, col: str) -> Estimate | None:
        """A cell's estimate from the games played (``rounds``: index -> round):
        a deal cell over every game, the 'all' cell over each seed's mean."""
        values = []
        played: set = set()  # a deal cell's distinct games (a list-order game is every seed's)
        for (k, lab, c, _s), games in self.uses.items():
            if (k, lab, c) != (kind, label, col):
                continue
            if col != "all":
                played.update(games)
                continue
            xs = [rounds[i] for i in games if rounds.get(i) is not None]
            if xs:
                values.append(sum(xs) / len(xs))
        if col != "all":
            values = [rounds[i] for i in sorted(played) if rounds.get(i) is not None]
        return estimate(values)


@dataclass(frozen=True)
class _KingstonOptions:
    """The options of one reproduction of Kingston's Table 1 (see :func:`kingston`)."""

    seeds: int
    """Seeded runs per cell."""
    choice: str
    """How his two possible strategies break ties."""
    bases: tuple
    """The base deals of the 'all' cells."""
    response: str
    """Every seat's responses."""
    extra: tuple
    """Further strategies (seat specs), with rows of their own."""
    knowledge: str
    """The headline's knowledge level."""
    levels: list
    """The knowledge levels with rows: the headline's, and the one beside it if any."""
    per_base: int
    """Envelope variants per base deal and seed behind an 'all' cell (0: none)."""
    seed: int
    """The seed every game's seed derives from."""
    calibrated: bool
    """Whether his strategies get a calibrated column."""


def kingston(*, seeds: int = 10, envelopes: int = 12, choice: str = "random", bases: tuple = (1,),
             workers: int = 1, response: str = "minimal-information", progress: Callable | None = None,
             extra: tuple = (), knowledge: str = "kingston", beside: str | None = None, seed: int = 1,
             executor=None, calibrated: bool = True, engine: str | None = None) -> list[Comparison]:
    """Table 1, each cell over ``seeds`` seeded runs: a deal cell is
    ``seeds`` games of that deal (their random choices seeded apart; one game
    for a strategy that asks in list order, which plays the same game
    whatever the seed), the 'all' cell ``seeds`` means, each over a seeded
    sample of ``envelopes`` envelope variants (see :func:`envelope_sample`)
    of the base deals ``bases`` (shared out evenly).  Every cell is an
    :class:`Estimate` (the mean and the 10-90 % range over the runs), its
    published value inside or outside that range.  Kingston's two possible
    strategies break ties by ``choice`` (the seat option; ``random`` by
    default, as his text says); the others play in list order.  Every seat
    plays at the knowledge level ``knowledge`` (Kingston's by default); with
    ``beside`` each strategy gets a second row at that level.  ``extra``
    strategies (seat specs) get rows of their own, with no published figures.

    With ``calibrated`` each of his strategies also gets a calibrated
    column -- as his program evidently ran, not his text: Deduction and
    Next-not-held without the possible-set inference
    (:data:`WITHOUT_POSSIBLE_SETS`), and at six players the split of his
    hands chosen from those that fit his deal-5 trace by his No-intelligence
    row (:func:`calibrated_split`).  Its deal cells are played as the
    headline's are; its 'all' cells are not played (flagged, with the reason);
    it is counted on its own.  ``engine``: the command's ``--engine`` (None:
    each seat's own choice), as in :func:`mitchell`."""
    _check_kingston_options(seeds, choice, bases)
    pub = published("kingston")
    opts = _KingstonOptions(seeds, choice, bases, response, extra, knowledge,
                            levels=[knowledge] + ([beside] if beside and beside != knowledge else []),
                            per_base=envelopes // len(bases) if envelopes > 0 else 0, seed=seed,
                            calibrated=calibrated)
    rule, tied = calibrated_split()
    plans = []
    for n in (3, 6):
        plan, rows = _kingston_plan(opts, n, rule)
        plans.append((n, plan, rows))
    runs = GameRuns(workers, progress, sum(len(plan.specs) for _, plan, _ in plans), executor, engine)
    tables = []
    for n, plan, rows in plans:
        results = runs.run(plan.specs)
        if results is None:
            break
        tables.append(_kingston_table(opts, n, plan, rows, results, runs, pub, rule, tied))
    return runs.done(tables)


def _check_kingston_options(seeds: int, choice: str, bases: tuple) -> None:
    """Raise :class:`ClueError` for a run of :func:`kingston` that cannot be
    played: fewer than one seed, an unknown tie-break, or base deals other
    than his deals 1-5."""
    if seeds < 1:
        raise ClueError("--seeds must be at least 1")
    if choice not in CHOICES:
        raise ClueError(f"choice is 'first' or 'random', not {choice!r}")
    bad = [b for b in bases if b not in range(1, 6)]
    if bad or not bases:
        raise ClueError(f"base deals are Kingston's deals 1-5, not {bad or 'none'}")


def _kingston_plan(opts: _KingstonOptions, n: int, rule: SplitRule) -> tuple[_Plan, list]:
    """The games of the ``n``-player table and its rows, (row label,
    strategy) each: for every level and strategy its deal cells, its 'all'
    cells and (his strategies at the headline's level, with
    ``opts.calibrated``) its calibrated deal cells, whose six-player deals
    are split by ``rule``."""
    plan = _Plan(opts.response)
    rows = []
    for level in opts.levels:
        for strategy in (*KINGSTON_STRATEGIES, *opts.extra):
            label, seat = _kingston_row(opts, strategy, level)
            rows.append((label, strategy))
            fixed = _list_order(strategy, opts.choice, opts.response)
            _add_deal_cells(plan, opts, ("ours", label), seat, n, fixed,
                            [get_deal(f"kingston-{d}-{n}p") for d in range(1, 6)])
            if opts.per_base:
                _add_all_cells(plan, opts, label, seat, n, fixed)
            if opts.calibrated and level == opts.knowledge and strategy in KINGSTON_STRATEGIES:
                _add_deal_cells(plan, opts, ("calibrated", label), _calibrated_seat(seat, strategy, level), n, fixed,
                                [get_deal(f"kingston-{d}-{n}p") if n == 3 else kingston_split(d, rule.keep)
                                 for d in range(1, 6)])
    return plan, rows


def _kingston_row(opts: _KingstonOptions, strategy: str, level: str) -> tuple[str, str]:
    """A row's label and its seat spec: ``strategy`` at the knowledge level
    ``level`` (unless the spec names one), his possible strategies with the
    tie-break ``opts.choice``; a row beside the headline's is labelled with
    its level."""
    label = strategy if level == opts.knowledge else f"{strategy} (with {_level_words(level)})"
    seat = strategy if ":knowledge=" in strategy else f"{strategy}:knowledge={level}"
    if strategy in KINGSTON_RANDOM:
        seat += f":choice={opts.choice}"
    return label, seat


def _calibrated_seat(seat: str, strategy: str, level: str) -> str:
    """The seat of a strategy's calibrated cells: Deduction and Next-not-held
    at :data:`WITHOUT_POSSIBLE_SETS`, the others at Kingston's level."""
    if strategy in ("kingston-deduction", "kingston-next-not-held"):
        return seat.replace(f":knowledge={level}", f":knowledge={WITHOUT_POSSIBLE_SETS}")
    if level != "kingston":
        return seat.replace(f":knowledge={level}", ":knowledge=kingston")
    return seat


def _add_deal_cells(plan: _Plan, opts: _KingstonOptions, use: tuple, seat: str, n: int, fixed: bool,
                    deals: list) -> None:
    """A row's five deal cells (``use``: the column kind and row label):
    ``opts.seeds`` games of each of ``deals`` (his deals 1-5), one seed for
    all when the seat asks in list order (``fixed``)."""
    for d, deal in enumerate(deals, start=1):
        for s in range(opts.seeds):
            plan.add((*use, f"deal-{d}", s), deal, seat,
                     None if fixed else hash_seed(opts.seed * 100003 + s, d * 10 + n))


def _add_all_cells(plan: _Plan, opts: _KingstonOptions, label: str, seat: str, n: int, fixed: bool) -> None:
    """A row's 'all' cell: for each seed, a seeded sample of
    ``opts.per_base`` envelope variants of each base deal."""
    for s in range(opts.seeds):
        for b in opts.bases:
            sample = envelope_sample(get_deal(f"kingston-{b}-{n}p"), opts.per_base, opts.seed * 1009 + s)
            for k, v in enumerate(sample):
                plan.add(("ours", label, "all", s), v, seat,
                         None if fixed else hash_seed(opts.seed * 100003 + s, 1000 * b + k))


def _kingston_table(opts: _KingstonOptions, n: int, plan: _Plan, rows: list, results: list, runs: GameRuns,
                    pub: dict, rule: SplitRule, tied: int) -> Comparison:
    """The ``n``-player table from its games' ``results``: every row's
    published figures beside ours, the match count, and (with
    ``opts.calibrated``) the calibrated column, its flags and its count."""
    rounds = {r.index: r.solution_round for r in results}
    cols = pub["columns"]
    table = Comparison(f"Kingston Table 1, {n} players: rounds until any player can name the envelope",
                       cols, notes=_kingston_notes(opts, n))
    runs.note(table, len(plan.specs), len(results))
    main_rows = [label for label, _ in rows if "(with" not in label]
    for label, strategy in rows:
        published_row = pub["players"][n].get(strategy, [None] * len(cols))
        table.rows.append((label, [(p, plan.cell(rounds, "ours", label, c)) for p, c in zip(published_row, cols)]))
        if opts.calibrated and label in main_rows and strategy in KINGSTON_STRATEGIES:
            table.calibrated[label] = [None if c == "all" else plan.cell(rounds, "calibrated", label, c)
                                       for c in cols]
    table.notes.append(_match_count(table, knowledge_rows=main_rows))
    if opts.calibrated:
        table.calibrated_heading = "cal. (calibrated, not his text)"
        _kingston_flags(table, n, opts.bases, rule)
        table.notes += [_kingston_calibrated_note(n, rule, tied), _calibrated_count(table)]
    return table


def _kingston_notes(opts: _KingstonOptions, n: int) -> list:
    """How the ``n``-player table's figures were measured: the seeds, levels,
    responses and tie-breaks, the 'all' column's sample, and the match
    criterion."""
    levels = opts.levels
    n_variants = len(envelope_variants(get_deal(f"kingston-1-{n}p")))
    bases_text = "deal " + ", ".join(str(b) for b in opts.bases)
    return [
        f"ours (as his text gives it): mean (10-90 % range) over {opts.seeds} seeds (one game "
        f"for a strategy asking in list order: every seed plays it alike); every seat runs "
        f"the strategy at the knowledge level '{opts.knowledge}'"
        + (f"; rows marked 'with {_level_words(levels[1])}' use the level '{levels[1]}'"
           if len(levels) > 1 else "")
        + f"; responses '{opts.response}'; Next- and Previous-possible choose with "
        f"choice={opts.choice}, the others in list order",
        (f"'all': each seed's figure is the mean over a seeded random sample of {opts.per_base} of "
         f"the {n_variants} envelope variants of {bases_text} (Kingston's generator swaps "
         f"the new envelope cards into the hands)") if opts.per_base else
        "'all': not computed (use --envelopes N)",
        "match: the published value inside our 10-90 % range (stated before the runs)"]


def _kingston_calibrated_note(n: int, rule: SplitRule, tied: int) -> str:
    """What the ``n``-player table's calibrated column is: the levels his
    strategies run at and, at six players, the split rule of his hands."""
    return ("cal. -- calibrated, not his text: as his program evidently ran, not as his paper describes it. "
            "Deduction and Next-not-held at the level 'kingston-without-possible-sets' (without the "
            "possible-set inference his text gives them), the others at 'kingston'"
            + ("" if n == 3 else
               f"; the six-player deals split by the rule 'player1..3 keep positions {rule.label()} of their "
               f"appendix hands', the first of the {tied} rules of the 1,200 that fit his deal-5 trace whose "
               f"No-intelligence rounds (closed form) equal the most of his row: "
               f"{' / '.join(map(str, rule.rounds))} ({rule.matches} of 5)")
            + "; its deal cells are played as ours are")


def _kingston_flags(table: "Comparison", n: int, bases: tuple, rule: SplitRule) -> None:
    """The calibrated cells that no consistent reading reaches, each with its
    one-line reason (computed: the closed form, and counting)."""
    pub = published("kingston")
    for label, _row in table.calibrated.items():
        his_all = pub["players"][n][label][-1]
        if label == "kingston-no-intelligence":
            means = []
            for b in range(1, 6):
                base = get_deal(f"kingston-{b}-{n}p") if n == 3 else kingston_split(b, rule.keep)
                variants = envelope_variants(base)
                means.append(sum(no_intelligence_round(v) for v in variants) / len(variants))
            table.flags[(label, "all")] = (
                f"not played: his generator's hands are not given, and no base deal reaches his {his_all}: "
                f"No intelligence over every envelope of base deals 1-5 gives {min(means):.2f}-{max(means):.2f} "
                f"(closed form)")
        else:
            table.flags[(label, "all")] = ("not played: his generator's hands are not given (see No intelligence's "
                                           "'all' cell)")
    if n == 6:
        three = no_intelligence_round(get_deal("kingston-2-3p"), exhaustive=False)
        six = sorted({no_intelligence_round(kingston_split(2, r.keep), exhaustive=False)
                      for r in split_rules()})
        ed = get_deal("kingston-2-6p").edition
        cap = len(ed.cards) - ed.envelope_size - 3  # every six-player hand has three cards
        reason = (f"no single rule gives both his deal-2 figures (16 here, 12 at three players): with exhaustive "
                  f"elimination a seat of three cards, shown a new card every turn, solves by round {cap}; "
                  f"without it (a seat solves only when its own suggestion goes unanswered) every split that fits "
                  f"his trace gives {'/'.join(map(str, six))} here but {three} at three players")
        for label in ("kingston-no-intelligence", "kingston-deduction"):
            if label in table.calibrated:
                table.flags[(label, "deal-2")] = reason


def _calibrated_count(table: "Comparison") -> str:
    """'K of M' for the calibrated column alone (a flagged or unplayed cell is a miss)."""
    inside = total = 0
    for label, cells in table.rows:
        cal = table.calibrated.get(label)
        if cal is None:
            continue
        for (p, _), o in zip(cells, cal):
            if p is None:
                continue
            total += 1
            inside += o is not None and o.contains(p)
    return (f"cal.: {inside} of {total} published cells inside the calibrated column's 10-90 % range, counted "
            f"on its own (its unplayed 'all' cells count as misses; never added to the line above)")


def _match_count(table: Comparison, knowledge_rows: list) -> str:
    """'N of M published cells inside our range' over the given rows."""
    inside = total = 0
    for label, cells in table.rows:
        if label not in knowledge_rows:
            continue
        for p, o in cells:
            if p is None or o is None:
                continue
            total += 1
            inside += o.contains(p)
    return f"{inside} of {total} published cells of the main rows inside our 10-90 % range"


def _level_words(level: str) -> str:
    return "complete deduction" if level == "complete" else f"{level}'s knowledge"


def _same_strategy_specs(cells: list, games: int, seed: int) -> tuple[list, list]:
    """The games of the cells (deal id, strategy), every seat playing that
    strategy, ``games`` seeded games each -- all in one run -- and the cell of
    each game."""
    specs: list[GameSpec] = []
    cell_of: list[int] = []
    for i, (deal_id, strategy) in enumerate(cells):
        deal = get_deal(deal_id)
        for g in range(games):
            specs.append(GameSpec(len(specs), deal, (strategy,) * len(deal.players), hash_seed(seed, g)))
            cell_of.append(i)
    return specs, cell_of


def _same_strategy_means(cells: list, cell_of: list, results: list, seed: int = 1) -> list:
    """Each cell's :func:`mean_estimate` of rounds to a solution (None for a
    cell without solved games)."""
    per_cell: list = [[] for _ in cells]
    for r in results:
        if r.solution_round is not None:
            per_cell[cell_of[r.index]].append(r.solution_round)
    return [mean_estimate(xs, hash_seed(seed, i)) for i, xs in enumerate(per_cell)]


def mean_estimate(values: list, seed: int = 1, resamples: int = 1000) -> Estimate | None:
    """The mean of the figures with the 10-90 % range of the mean itself: the
    10th and 90th percentiles of ``resamples`` seeded bootstrap means (the
    games resampled with replacement).  None for no figures."""
    xs = [float(x) for x in values if x is not None]
    if not xs:
        return None
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(xs, k=len(xs))) / len(xs) for _ in range(resamples))
    spread = estimate(means)
    assert spread is not None  # means is not empty
    return Estimate(round(sum(xs) / len(xs), 2), spread.low, spread.high, len(xs))


def _within(published_value, ours: Estimate | None, rounds: float = 0.5) -> bool:
    return ours is not None and (abs(published_value - ours.mean) <= rounds + 1e-9 or ours.contains(published_value))


def mitchell(*, games: int = 20, seed: int = 1, workers: int = 1, progress: Callable | None = None,
             tables: tuple = ("5.1", "5.2", "5.3"), extra: tuple = (), knowledge: str = "mitchell",
             response: str = "mitchell", executor=None, calibrated: bool = True,
             calibrated_tables: tuple = ("5.1",), engine: str | None = None) -> list[Comparison]:
    """Tables 5.1-5.3 with ``games`` games per cell (Mitchell used 500).
    Each ``extra`` strategy (seat spec) gets a copy of tables 5.1 and 5.2
    whose cells read *Mitchell's advanced player (published) / the strategy
    (ours)*.  Mitchell's players run at the knowledge level ``knowledge``
    (hers by default: her seven deductions, taken in at her own turn) and
    answer with ``response`` (hers by default: the card already shown to
    the asker, else the first matching card in suspect, weapon, room
    order); ``extra`` strategies at the level and with the response their
    seat spec names (complete and minimal-information by default).

    With ``calibrated`` the tables of ``calibrated_tables`` (5.1 by
    default; 5.2 too on request: its calibrated figures are faster than hers
    in 14 of 16 cells, and its 320 games at complete deduction cost the default
    run a sixth of its time) get a calibrated column: her
    players at the level :data:`COMPLETE_OWN_TURN` (complete deduction,
    taken in at her own turn), the same games' seeds -- as her program
    evidently ran, not her text (her sections 6.3.2 and 6.4 say her players
    did not cross-reference earlier suggestions); counted on its own.
    ``engine``: the rule engine the command chose (``--engine``) for every
    seat whose spec names none (None: each seat's own choice)."""
    pub = published("mitchell")
    note = (f"ours: {games} games per cell (Mitchell: 500), seeded random tie-breaks (seed {seed}), Mitchell's "
            f"players at the knowledge level '{knowledge}' with responses '{response}'")
    cells = _MitchellCells(knowledge, response)
    layouts, cal_cells = _mitchell_layouts(pub, tables, extra, note, cells,
                                           calibrated_tables if calibrated else ())
    specs, cell_of = _same_strategy_specs(cells.cells, games, seed)
    tests = _mitchell_tests(pub, games, seed, knowledge, response) if "5.3" in tables else []
    offsets, every = _one_run(specs, tests)
    runs = GameRuns(workers, progress, len(every), executor, engine)
    played = (runs.run(every) or []) if every else []  # the only run: never None (not interrupted before)
    results = [r for r in played if r.index < len(specs)]
    means = _same_strategy_means(cells.cells, cell_of, results, seed)
    out = []
    for table, rows in layouts:
        table.rows = [(label, [(p, means[i]) for p, i in row]) for label, row in rows]
        runs.note(table, len(specs), len(results))
        if not table.title.split(":")[1].strip().startswith("Mitchell's advanced player (published) /"):
            _same_strategy_counts(table, means, cal_cells)
        out.append(table)
    if tests:
        t = _mitchell_table_5_3(tests, offsets, played, games, note)
        runs.note(t, len(every) - len(specs), len(played) - len(results))
        out.append(t)
    return runs.done(out)


def _her_seat(kind: str, level: str, response: str) -> str:
    """The seat spec of her ``kind`` of player (basic or advanced) at the
    knowledge level ``level``, answering with ``response``."""
    return f"{MITCHELL[kind]}:knowledge={level}:response={response}"


class _MitchellCells:
    """The cells of tables 5.1 and 5.2 (and of their copies), each a deal id
    and the strategy every seat plays, numbered in the order they are added."""

    def __init__(self, knowledge: str, response: str):
        self.knowledge, self.response = knowledge, response
        #: (deal id, strategy) of every cell.
        self.cells: list = []

    def add(self, deal: str, column: str, strategy: str | None = None, level: str | None = None) -> int:
        """A cell of deal ``deal`` in the column ``column`` (``{n}p-{kind}``):
        ``strategy``, or else her player of that kind at ``level`` (the
        reproduction's level by default); its number."""
        n, kind = column.split("p-")
        seat = strategy or _her_seat(kind, self.knowledge if level is None else level, self.response)
        self.cells.append((f"mitchell-{deal}-{n}p", seat))
        return len(self.cells) - 1


def _mitchell_layouts(pub: dict, tables: tuple, extra: tuple, note: str, cells: _MitchellCells,
                      calibrated_tables: tuple) -> tuple[list, dict]:
    """Tables 5.1 and 5.2 (those in ``tables``) and each ``extra``
    strategy's copy of them, laid out: (table, [(row label, [(published,
    cell number)])]) each; and the calibrated cells of the tables in
    ``calibrated_tables`` (table title -> {row label: [cell number]}),
    numbered after every other, so that the others' numbers (and the seeds
    of their bootstrap ranges) are the same with the column as without it."""
    layouts = []
    cal_layouts = []  # (table title, its published data)
    for name, title, notes in (
            ("5.1", "Mitchell Table 5.1: mean rounds to a solution, every seat the same type",
             ["published rows are labelled deals 1, 2, 3, 4, 6, 7; read here as deals 1-6"]),
            ("5.2", "Mitchell Table 5.2: mean rounds to a solution, deals 7 and 8", [])):
        if name not in tables:
            continue
        data = pub["table_" + name.replace(".", "_")]
        layouts.append((Comparison(title, data["columns"], notes=[note, *notes]),
                        [(f"deal {d}", [(p, cells.add(d, col)) for p, col in zip(row, data["columns"])])
                         for d, row in data["rows"].items()]))
        if name in calibrated_tables:
            cal_layouts.append((title, data))
        advanced = [c for c in data["columns"] if c.endswith("-advanced")]
        for strategy in extra:
            layouts.append((
                Comparison(f"{title.split(':')[0]}: Mitchell's advanced player (published) / {strategy} (ours)",
                           [c.replace("-advanced", "") for c in advanced], notes=[note, *notes]),
                [(f"deal {d}", [(p, cells.add(d, col, strategy)) for p, col in zip(row, data["columns"])
                                if col in advanced])
                 for d, row in data["rows"].items()]))
    cal_cells = {title: {f"deal {d}": [cells.add(d, col, level=COMPLETE_OWN_TURN) for col in data["columns"]]
                         for d in data["rows"]}
                 for title, data in cal_layouts}
    return layouts, cal_cells


def _mitchell_tests(pub: dict, games: int, seed: int, knowledge: str, response: str) -> list:
    """Table 5.3's tests, (test, seats, strategies, specs) each: ``games``
    random deals of her basic and advanced players mixed as the test's
    seats say."""
    tests = []
    for test, seats in pub["table_5_3"].items():
        strategies = [_her_seat("advanced" if s == "A" else "basic", knowledge, response) for s, _ in seats]
        tests.append((test, seats, strategies, make_specs(players=len(seats), games=games,
                                                          seed=seed * 1000 + int(test), strategies=strategies)))
    return tests


def _one_run(specs: list, tests: list) -> tuple[list, list]:
    """Every game in one run (one pool of workers, started once): table
    5.3's games after the others, numbered on from them; and where each
    test's games start."""
    offsets, every = [], list(specs)
    for test in tests:
        offsets.append(len(every))
        every += [dataclasses.replace(spec, index=offsets[-1] + k) for k, spec in enumerate(test[3])]
    return offsets, every


def _same_strategy_counts(table: Comparison, means: list, cal_cells: dict) -> None:
    """Add to one of tables 5.1 and 5.2 (not a copy) its match criterion and
    count, and its calibrated column (its cells' ``means``) with its own
    count if it has one in ``cal_cells``."""
    criterion = ("match: within 0.5 rounds of the published mean, or the published mean inside our 10-90 % range of "
                 "the mean (bootstrap over the games); stated before the runs")
    hits = sum(_within(p, o) for _, cells_ in table.rows for p, o in cells_)
    total = sum(1 for _, cells_ in table.rows for _ in cells_)
    table.notes += [criterion, f"{hits} of {total} cells match"]
    if table.title in cal_cells:
        table.calibrated = {label: [means[i] for i in idx] for label, idx in cal_cells[table.title].items()}
        table.calibrated_heading = "cal. (calibrated, not her text)"
        cal_hits = sum(_within(p, table.calibrated[label][k]) for label, cells_ in table.rows
                       for k, (p, _) in enumerate(cells_))
        table.notes += [
            f"cal. -- calibrated, not her text: her players at the level '{COMPLETE_OWN_TURN}' (every fact "
            f"her observations entail, taken in at her own turn), the same seeds; her sections 6.3.2 and "
            f"6.4 say her players did not cross-reference earlier suggestions, so this is not what she "
            f"describes but where her figures lie",
            f"cal.: {cal_hits} of {total} cells match, counted on its own (never added to the line above)"]


def _mitchell_table_5_3(tests: list, offsets: list, played: list, games: int, note: str) -> Comparison:
    """Table 5.3 from the games ``played`` (each test's games from its
    offset on): each seat's published wins beside its type's win share in
    ours."""
    t = Comparison("Mitchell Table 5.3: wins per seat, advanced (A) and basic (B) mixed, random deals",
                   [f"seat {i}" for i in range(1, 7)],
                   notes=[f"ours: {games} random deals per test (Mitchell: 500), seat types rotated across "
                          f"games; cells are win shares in % (published: wins/500)", note])
    for (test, seats, strategies, test_specs), start in zip(tests, offsets):
        test_results = [r for r in played if start <= r.index < start + len(test_specs)]
        summary = summarize(test_results)
        cells = []
        for i, (kind, wins) in enumerate(seats):
            # our games rotate the seat types, so a seat's figure is its type's win share
            share = summary["strategies"].get(strategies[i], {}).get("win_rate")
            cells.append((f"{kind} {100 * wins / 500:.1f}", None if share is None else f"{kind} {100 * share:.1f}"))
        t.rows.append((f"test {test}", cells))
    return t


# --- Kingston's No-intelligence row in closed form, and his six-player splits ----------------------

#: The No-intelligence seat whose solution round :func:`no_intelligence_round` gives.
NO_INTELLIGENCE_SEAT = "kingston-no-intelligence:knowledge=kingston"
#: The level the calibrated column gives Deduction and Next-not-held: Kingston's without the possible-set inference.
WITHOUT_POSSIBLE_SETS = "kingston-without-possible-sets"
#: Mitchell's calibrated column: complete deduction, taken in at her own turn.
COMPLETE_OWN_TURN = "complete-own-turn"


def unheld_before_envelope(deal: Deal, player: str) -> int:
    """How many cards the player does not hold come before the envelope's in
    the edition's list of each category, summed over the categories."""
    ed = deal.edition
    need = 0
    for cat, env in zip(ed.categories, deal.envelope):
        cards = list(ed.category_cards(cat))
        need += sum(1 for c in cards[:cards.index(env)] if c not in deal.hands[player])
    return need


def no_intelligence_round(deal: Deal, exhaustive: bool = True) -> int:
    """Kingston's No-intelligence row in closed form: the round in which the
    first seat running :data:`NO_INTELLIGENCE_SEAT` names the envelope, every
    seat playing it.

    Such a seat asks, per category, for the first card in list order that it
    neither holds nor has seen, so each turn it is either shown a card before
    the envelope's in its list that it had not seen, or nobody answers and the
    three cards are the envelope's.  Its own suggestion is therefore the
    envelope on its turn ``1 + unheld_before_envelope``; and, seeing a new card
    every turn, it has seen every card outside its hand and the envelope by
    its turn ``cards - envelope - hand`` (exhaustive elimination).  The round
    is the least of the two over the seats.  ``exhaustive=False``: the first
    only (a seat that solves only when its own suggestion goes unanswered).

    Exact for the kingston level (tests/test_reproductions.py checks it
    against the simulator on random splits of his hands): the level draws no
    inference from the others' questions that lets a seat name the envelope
    before either of these turns."""
    ed = deal.edition
    best = None
    for p in deal.players:
        turn = 1 + unheld_before_envelope(deal, p)
        if exhaustive:
            turn = min(turn, len(ed.cards) - ed.envelope_size - len(deal.hands[p]))
        best = turn if best is None else min(best, turn)
    return int(best or 0)


#: The positions (0-5) of a three-player hand that player1..3 may keep in a six-player split.
KEEPS = tuple(itertools.combinations(range(6), 3))


def kingston_split(d: int, keep: tuple) -> Deal:
    """Kingston's deal ``d`` for six players under the split rule ``keep``:
    player i (1-3) keeps the positions ``keep[i - 1]`` of his appendix hand,
    player i+3 takes the other three.  (0, 1, 2) for every player is the
    shipped split (player4..6 take the latter half, Mitchell's reading)."""
    base, six = get_deal(f"kingston-{d}-3p"), get_deal(f"kingston-{d}-6p")
    hands = {}
    for i in range(1, 4):
        hand = base.hands[f"player{i}"]
        hands[f"player{i}"] = tuple(c for j, c in enumerate(hand) if j in keep[i - 1])
        hands[f"player{i + 3}"] = tuple(c for j, c in enumerate(hand) if j not in keep[i - 1])
    if all(tuple(k) == (0, 1, 2) for k in keep):
        return six
    name = "/".join("".join(str(j + 1) for j in k) for k in keep)
    return Deal(id=f"{six.id}-keep-{name.replace('/', '-')}", edition=six.edition, players=six.players,
                envelope=six.envelope, hands=hands, name=f"{six.name}, player1..3 keep positions {name}",
                source=f"{six.source}; split rule: player1..3 keep positions {name} of their appendix hands")


def fits_deal_5_trace(keep: tuple) -> bool:
    """Whether the split rule fits Kingston's six-player deal-5 trace:
    player1 shows Miss Scarlett and Colonel Mustard, and player4 holds the
    Hall."""
    deal = kingston_split(5, keep)
    return ({"miss-scarlett", "col-mustard"} <= set(deal.hands["player1"])
            and "hall" in deal.hands["player4"])


@dataclass(frozen=True)
class SplitRule:
    """A per-player split rule with the No-intelligence rounds it gives."""

    keep: tuple
    """The positions player1..3 keep (0-based)."""
    rounds: tuple
    """No intelligence's round on the six-player deals 1-5 (closed form)."""
    matches: int
    """How many of them equal Kingston's."""

    def label(self) -> str:
        return "/".join("".join(str(j + 1) for j in k) for k in self.keep)


def split_rules(his: list | None = None) -> list[SplitRule]:
    """The 8,000 per-player split rules (20 choices of kept positions for
    each of player1..3) that fit his deal-5 trace, with the rounds each gives
    (closed form) and how many of his six-player No-intelligence cells
    (``his``, deals 1-5) they equal."""
    his = list(his if his is not None else published("kingston")["players"][6]["kingston-no-intelligence"][:5])
    out = []
    for keep in itertools.product(KEEPS, repeat=3):
        if not fits_deal_5_trace(keep):
            continue
        rounds = tuple(no_intelligence_round(kingston_split(d, keep)) for d in range(1, 6))
        out.append(SplitRule(keep, rounds, sum(a == b for a, b in zip(rounds, his))))
    return out


@functools.lru_cache(maxsize=None)
def calibrated_split() -> tuple[SplitRule, int]:
    """The split rule of the calibrated column: among the rules that fit his
    deal-5 trace, the first (in the order of :func:`split_rules`) of those
    whose No-intelligence rounds equal the most of his six-player cells; and
    how many rules give that most."""
    rules = split_rules()
    best = max(r.matches for r in rules)
    tied = [r for r in rules if r.matches == best]
    return tied[0], len(tied)
