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


def envelope_sample(deal, envelopes: int, seed: int = 1) -> list:
    """The envelope variants behind the 'all' column: every one of them when
    ``envelopes`` is at least their number (324 for deal 1), else a seeded
    uniform random sample of ``envelopes`` of them (without replacement), so
    every suspect, weapon and room can be drawn -- not every k-th variant in
    suspect x weapon x room order, which keeps the room fixed."""
    variants = envelope_variants(deal)
    if envelopes <= 0:
        return []
    if envelopes >= len(variants):
        return variants
    return random.Random(hash_seed(seed, envelopes)).sample(variants, envelopes)


def kingston(*, envelopes: int = 36, workers: int = 1, response: str = "minimal-information",
             progress: Callable | None = None, extra: tuple = (), knowledge: str = "kingston",
             beside: str | None = "complete", seed: int = 1) -> list[Comparison]:
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
        results = run_games(specs, workers, progress)
        cols = pub["columns"]
        n_variants = len(envelope_variants(get_deal(f"kingston-1-{n}p")))
        what = (f"all {n_variants} envelope variants" if len(sample) == n_variants else
                f"a seeded random sample (seed {seed}) of {len(sample)} of the {n_variants} envelope variants")
        table = Comparison(f"Kingston Table 1, {n} players: rounds until any player can name the envelope",
                           cols, notes=[
                               f"ours: every seat runs the strategy at the knowledge level '{knowledge}'"
                               + (f"; rows marked 'with {_level_words(beside)}' use the level '{beside}'"
                                  if len(levels) > 1 else "")
                               + f"; responses '{response}', one game per deal",
                               f"'all': ours is the mean over {what} of deal 1 (Kingston's generator swaps the new "
                               "envelope cards into the hands)" if sample else
                               "'all': not computed (use --envelopes N)"])
        for label, strategy in rows:
            ours = {c: [] for c in cols}
            for i, r in enumerate(results):
                s, col = index[i]
                if s == label:
                    ours[col].append(r.solution_round)
            published_row = pub["players"][n].get(strategy, [None] * len(cols))
            cells = [(p, _mean(ours[c])) for p, c in zip(published_row, cols)]
            table.rows.append((label, cells))
        tables.append(table)
    return tables


def _level_words(level: str) -> str:
    return "complete deduction" if level == "complete" else f"{level}'s knowledge"


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
             tables: tuple = ("5.1", "5.2", "5.3"), extra: tuple = (), knowledge: str = "mitchell") -> list[Comparison]:
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
            strategies = [hers("advanced" if s == "A" else "basic") for s, _ in seats]
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
