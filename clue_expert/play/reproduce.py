"""The published result tables beside ours.

``kingston``: Table 1 (rounds to a solution, deals 1-5 and the generator's
mean, 3 and 6 players, five strategies).  ``mitchell``: tables 5.1 and 5.2
(mean rounds to a solution, same-strategy games) and 5.3 (wins per seat in
basic/advanced mixes).  The published figures are data in
``clue_expert/published/*.yaml``.
"""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Callable

import yaml

from ..core.deals import Deal, get_deal
from ..core.paths import published_dir
from .simulate import GameSpec, Interrupted, envelope_variants, hash_seed, make_specs, run_games, summarize

KINGSTON_STRATEGIES = ["kingston-no-intelligence", "kingston-deduction", "kingston-next-possible",
                       "kingston-previous-possible", "kingston-next-not-held"]
MITCHELL = {"basic": "mitchell-basic", "advanced": "mitchell-advanced"}


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

    def to_json(self) -> dict:
        return {"title": self.title, "columns": self.columns, "notes": self.notes,
                "rows": [{"label": label, "cells": [{"published": p, "ours": o} for p, o in cells]}
                         for label, cells in self.rows]}


class ReproductionInterrupted(Interrupted):
    """A reproduction stopped by Ctrl-C: ``tables`` holds the tables whose
    games were (at least partly) played, each partial one with a note."""

    def __init__(self, tables: list, finished: int, total: int):
        #: The tables finished, and the one in progress from the games it finished.
        self.tables = tables
        super().__init__([], total, finished)


class _Runs:
    """The runs of games of one reproduction, with every game counted up
    front, so that an interruption can say how far it got."""

    def __init__(self, workers: int, progress, total: int, executor=None):
        self.workers, self.progress, self.total = workers, progress, total
        #: Where the games run (None: a local pool of ``workers`` processes).
        self.executor = executor
        self.finished = 0
        #: The run interrupted (later runs are skipped: ``run`` returns None).
        self.interrupted = False

    def run(self, specs) -> list | None:
        if self.interrupted:
            return None
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


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return round(sum(xs) / len(xs), 2) if xs else None


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


def kingston(*, envelopes: int = 36, workers: int = 1, response: str = "minimal-information",
             progress: Callable | None = None, extra: tuple = (), knowledge: str = "kingston",
             beside: str | None = "complete", seed: int = 1, executor=None) -> list[Comparison]:
    """Table 1: one game per deal (the strategies are deterministic) and the
    mean over ``envelopes`` envelope variants of deal 1 (see
    :func:`envelope_sample`; 324 or more = all).  Every seat plays at the
    knowledge level ``knowledge`` (Kingston's by default); with ``beside``
    each strategy gets a second row at that level (complete deduction by
    default).  ``extra`` strategies (seat specs) get rows of their own, with
    no published figures; random tie-breaks are seeded per game."""
    pub = published("kingston")
    tables = []
    levels = [knowledge] + ([beside] if beside and beside != knowledge else [])
    plans = []
    for n in (3, 6):
        specs: list[GameSpec] = []
        index = {}
        sample = envelope_sample(get_deal(f"kingston-1-{n}p"), envelopes, seed)
        rows = []
        for level in levels:
            for strategy in (*KINGSTON_STRATEGIES, *extra):
                label = strategy if level == knowledge else f"{strategy} (with {_level_words(level)})"
                seat = strategy if ":knowledge=" in strategy else f"{strategy}:knowledge={level}"
                rows.append((label, strategy))
                for d in range(1, 6):
                    deal = get_deal(f"kingston-{d}-{n}p")
                    index[len(specs)] = (label, f"deal-{d}")
                    specs.append(GameSpec(len(specs), deal, (seat,) * n, hash_seed(d, n), response=response))
                for v in sample:
                    index[len(specs)] = (label, "all")
                    specs.append(GameSpec(len(specs), v, (seat,) * n, hash_seed(len(specs), n), response=response))
        plans.append((n, specs, index, rows, sample))
    runs = _Runs(workers, progress, sum(len(plan[1]) for plan in plans), executor)
    for n, specs, index, rows, sample in plans:
        results = runs.run(specs)
        if results is None:
            break
        cols = pub["columns"]
        n_variants = len(envelope_variants(get_deal(f"kingston-1-{n}p")))
        what = (f"all {n_variants} envelope variants" if len(sample) == n_variants else
                f"a seeded random sample (seed {seed}) of {len(sample)} of the {n_variants} envelope variants")
        table = Comparison(f"Kingston Table 1, {n} players: rounds until any player can name the envelope",
                           cols, notes=[
                               f"ours: every seat runs the strategy at the knowledge level '{knowledge}'"
                               + (f"; rows marked 'with {_level_words(levels[1])}' use the level '{levels[1]}'"
                                  if len(levels) > 1 else "")
                               + f"; responses '{response}', one game per deal",
                               f"'all': ours is the mean over {what} of deal 1 (Kingston's generator swaps the new "
                               "envelope cards into the hands)" if sample else
                               "'all': not computed (use --envelopes N)"])
        runs.note(table, len(specs), len(results))
        for label, strategy in rows:
            ours: dict[str, list] = {c: [] for c in cols}
            for r in results:
                s, col = index[r.index]
                if s == label:
                    ours[col].append(r.solution_round)
            published_row = pub["players"][n].get(strategy, [None] * len(cols))
            cells = [(p, _mean(ours[c])) for p, c in zip(published_row, cols)]
            table.rows.append((label, cells))
        tables.append(table)
    return runs.done(tables)


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


def _same_strategy_means(cells: list, cell_of: list, results: list) -> list:
    """Mean rounds to a solution of each cell (None for a cell without games)."""
    per_cell: list = [[] for _ in cells]
    for r in results:
        per_cell[cell_of[r.index]].append(r)
    return [summarize(rs)["mean_rounds_to_solution"] for rs in per_cell]


def mitchell(*, games: int = 20, seed: int = 1, workers: int = 1, progress: Callable | None = None,
             tables: tuple = ("5.1", "5.2", "5.3"), extra: tuple = (), knowledge: str = "mitchell",
             executor=None) -> list[Comparison]:
    """Tables 5.1-5.3 with ``games`` games per cell (Mitchell used 500).
    Each ``extra`` strategy (seat spec) gets a copy of tables 5.1 and 5.2
    whose cells read *Mitchell's advanced player (published) / the strategy
    (ours)*.  Mitchell's players run at the knowledge level ``knowledge``
    (hers by default: her seven deductions, taken in at her own turn);
    ``extra`` strategies at the level their seat spec names (complete by default)."""
    pub = published("mitchell")
    note = (f"ours: {games} games per cell (Mitchell: 500), seeded random tie-breaks (seed {seed}), Mitchell's "
            f"players at the knowledge level '{knowledge}', responses 'minimal-information'")

    def hers(kind: str) -> str:
        return f"{MITCHELL[kind]}:knowledge={knowledge}"
    cells: list = []  # (deal id, strategy) of every cell of tables 5.1 and 5.2

    def cell(deal: str, column: str, strategy: str | None = None) -> int:
        n, kind = column.split("p-")
        cells.append((f"mitchell-{deal}-{n}p", strategy or hers(kind)))
        return len(cells) - 1
    layouts = []  # (table, [(row label, [(published, cell index)])])
    for name, title, notes in (
            ("5.1", "Mitchell Table 5.1: mean rounds to a solution, every seat the same type",
             ["published rows are labelled deals 1, 2, 3, 4, 6, 7; read here as deals 1-6"]),
            ("5.2", "Mitchell Table 5.2: mean rounds to a solution, deals 7 and 8", [])):
        if name not in tables:
            continue
        data = pub["table_" + name.replace(".", "_")]
        layouts.append((Comparison(title, data["columns"], notes=[note, *notes]),
                        [(f"deal {d}", [(p, cell(d, col)) for p, col in zip(row, data["columns"])])
                         for d, row in data["rows"].items()]))
        advanced = [c for c in data["columns"] if c.endswith("-advanced")]
        for strategy in extra:
            layouts.append((
                Comparison(f"{title.split(':')[0]}: Mitchell's advanced player (published) / {strategy} (ours)",
                           [c.replace("-advanced", "") for c in advanced], notes=[note, *notes]),
                [(f"deal {d}", [(p, cell(d, col, strategy)) for p, col in zip(row, data["columns"])
                                if col in advanced])
                 for d, row in data["rows"].items()]))
    specs, cell_of = _same_strategy_specs(cells, games, seed)
    tests = []  # table 5.3: (test, seats, strategies, specs)
    if "5.3" in tables:
        for test, seats in pub["table_5_3"].items():
            strategies = [hers("advanced" if s == "A" else "basic") for s, _ in seats]
            tests.append((test, seats, strategies, make_specs(players=len(seats), games=games,
                                                              seed=seed * 1000 + int(test), strategies=strategies)))
    runs = _Runs(workers, progress, len(specs) + sum(len(t[3]) for t in tests), executor)
    results = (runs.run(specs) or []) if specs else []  # the first run: never None (not interrupted yet)
    means = _same_strategy_means(cells, cell_of, results)
    out = []
    for table, rows in layouts:
        table.rows = [(label, [(p, None if means[i] is None else round(means[i], 2)) for p, i in row])
                      for label, row in rows]
        runs.note(table, len(specs), len(results))
        out.append(table)
    if tests and not runs.interrupted:
        t = Comparison("Mitchell Table 5.3: wins per seat, advanced (A) and basic (B) mixed, random deals",
                       [f"seat {i}" for i in range(1, 7)],
                       notes=[f"ours: {games} random deals per test (Mitchell: 500), seat types rotated across "
                              f"games; cells are win shares in % (published: wins/500)", note])
        for test, seats, strategies, test_specs in tests:
            test_results = runs.run(test_specs)
            if test_results is None:
                break
            runs.note(t, len(test_specs), len(test_results))
            summary = summarize(test_results)
            cells = []
            for i, (kind, wins) in enumerate(seats):
                # our games rotate the seat types, so a seat's figure is its type's win share
                share = summary["strategies"].get(strategies[i], {}).get("win_rate")
                cells.append((f"{kind} {100 * wins / 500:.1f}", None if share is None else f"{kind} {100 * share:.1f}"))
            t.rows.append((f"test {test}", cells))
        out.append(t)
    return runs.done(out)
