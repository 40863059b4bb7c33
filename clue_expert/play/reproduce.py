"""The published result tables beside ours.

``kingston``: Table 1 (rounds to a solution, deals 1-5 and the generator's
mean, 3 and 6 players, five strategies).  ``mitchell``: tables 5.1 and 5.2
(mean rounds to a solution, same-strategy games) and 5.3 (wins per seat in
basic/advanced mixes).  The published figures are data in
``clue_expert/published/*.yaml``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

from ..core.deals import get_deal
from ..core.paths import published_dir
from .simulate import GameSpec, envelope_variants, hash_seed, make_specs, run_games, summarize

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


@functools.lru_cache(maxsize=None)
def published(name: str) -> dict:
    """The published figures of a paper."""
    with open(published_dir() / f"{name}.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return round(sum(xs) / len(xs), 2) if xs else None


def kingston(*, envelopes: int = 18, workers: int = 1, response: str = "minimal-information",
             progress: Callable | None = None, extra: tuple = ()) -> list[Comparison]:
    """Table 1: one game per deal (the strategies are deterministic) and the
    mean over ``envelopes`` envelope variants of deal 1 (324 = all).
    ``extra`` strategies (seat specs) get rows of their own, with no
    published figures; random tie-breaks are seeded per game."""
    pub = published("kingston")
    tables = []
    for n in (3, 6):
        specs: list[GameSpec] = []
        index = {}
        for strategy in (*KINGSTON_STRATEGIES, *extra):
            for d in range(1, 6):
                deal = get_deal(f"kingston-{d}-{n}p")
                index[len(specs)] = (strategy, f"deal-{d}")
                specs.append(GameSpec(len(specs), deal, (strategy,) * n, hash_seed(d, n), response=response))
            if envelopes:
                variants = envelope_variants(get_deal(f"kingston-1-{n}p"))
                step = max(1, len(variants) // envelopes)
                for v in variants[::step][:envelopes]:
                    index[len(specs)] = (strategy, "all")
                    specs.append(GameSpec(len(specs), v, (strategy,) * n, hash_seed(len(specs), n),
                                          response=response))
        results = run_games(specs, workers, progress)
        cols = pub["columns"]
        table = Comparison(f"Kingston Table 1, {n} players: rounds until any player can name the envelope",
                           cols, notes=[
                               "ours: every seat runs the strategy with complete deduction (SAT case analysis), "
                               f"responses '{response}', one game per deal",
                               f"'all': ours is the mean over {envelopes} envelope variants of deal 1 "
                               "(Kingston's generator swaps the new envelope cards into the hands)"
                               if envelopes else "'all': not computed (use --envelopes N)"])
        for strategy in (*KINGSTON_STRATEGIES, *extra):
            ours = {c: [] for c in cols}
            for i, r in enumerate(results):
                s, col = index[i]
                if s == strategy:
                    ours[col].append(r.solution_round)
            published_row = pub["players"][n].get(strategy, [None] * len(cols))
            cells = [(p, _mean(ours[c])) for p, c in zip(published_row, cols)]
            table.rows.append((strategy, cells))
        tables.append(table)
    return tables


def _same_strategy_cells(cells: list, games: int, seed: int, workers: int, progress) -> list:
    """Mean rounds to a solution for each (deal id, strategy), every seat
    playing that strategy, ``games`` seeded games each -- all in one run."""
    specs, cell_of = [], []
    for i, (deal_id, strategy) in enumerate(cells):
        deal = get_deal(deal_id)
        for g in range(games):
            specs.append(GameSpec(len(specs), deal, (strategy,) * len(deal.players), hash_seed(seed, g)))
            cell_of.append(i)
    per_cell: list = [[] for _ in cells]
    for i, r in zip(cell_of, run_games(specs, workers, progress)):
        per_cell[i].append(r)
    return [summarize(rs)["mean_rounds_to_solution"] for rs in per_cell]


def mitchell(*, games: int = 20, seed: int = 1, workers: int = 1, progress: Callable | None = None,
             tables: tuple = ("5.1", "5.2", "5.3"), extra: tuple = ()) -> list[Comparison]:
    """Tables 5.1-5.3 with ``games`` games per cell (Mitchell used 500).
    Each ``extra`` strategy (seat spec) gets a copy of tables 5.1 and 5.2
    whose cells read *Mitchell's advanced player (published) / the strategy
    (ours)*."""
    pub = published("mitchell")
    note = (f"ours: {games} games per cell (Mitchell: 500), seeded random tie-breaks (seed {seed}), complete "
            f"deduction for every seat, responses 'minimal-information'")
    cells: list = []  # (deal id, strategy) of every cell of tables 5.1 and 5.2

    def cell(deal: str, column: str, strategy: str | None = None) -> int:
        n, kind = column.split("p-")
        cells.append((f"mitchell-{deal}-{n}p", strategy or MITCHELL[kind]))
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
    means = _same_strategy_cells(cells, games, seed, workers, progress)
    out = []
    for table, rows in layouts:
        table.rows = [(label, [(p, None if means[i] is None else round(means[i], 2)) for p, i in row])
                      for label, row in rows]
        out.append(table)
    if "5.3" in tables:
        t = Comparison("Mitchell Table 5.3: wins per seat, advanced (A) and basic (B) mixed, random deals",
                       [f"seat {i}" for i in range(1, 7)],
                       notes=[f"ours: {games} random deals per test (Mitchell: 500), seat types rotated across "
                              f"games; cells are win shares in % (published: wins/500)", note])
        for test, seats in pub["table_5_3"].items():
            strategies = [MITCHELL["advanced" if s == "A" else "basic"] for s, _ in seats]
            specs = make_specs(players=len(seats), games=games, seed=seed * 1000 + int(test), strategies=strategies)
            results = run_games(specs, workers, progress)
            summary = summarize(results)
            cells = []
            for i, (kind, wins) in enumerate(seats):
                # our games rotate the seat types, so a seat's figure is its type's win share
                share = summary["strategies"].get(strategies[i], {}).get("win_rate")
                cells.append((f"{kind} {100 * wins / 500:.1f}", None if share is None else f"{kind} {100 * share:.1f}"))
            t.rows.append((f"test {test}", cells))
        out.append(t)
    return out
