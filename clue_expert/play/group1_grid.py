"""Group 1's parameter grid (CS4444, 2003, Tables 1 and 2) beside ours.

Group 1 report the average tournament ranking of their two players, Super
Crazy Broomhead (Table 1) and Psychotic Broomhead (Table 2), for each number
of players and each pair (cards per player, hidden cards) of the class
tournament.  Their ranks are among the whole class field of that setting,
which we do not have.  So we play each cell with a field of our own -- the
players of the generalized game that we ship (:data:`FIELD`), in a seeded
random seat order each game -- rank the field by win rate (1 = best, ties share the mean
rank) and print both Broomheads' ranks beside the published ones.  What can
be compared is the *shape*: in which cells Super Crazy ranks above
Psychotic, and where that turns round.
"""
from __future__ import annotations

import functools
from typing import Callable

import yaml

from ..core.paths import published_dir
from .reproduce import Comparison, ReproductionInterrupted, GameRuns
from .simulate import make_specs

#: The field of every cell: label -> seat spec.  Both Broomheads first.
_BROOMHEAD = "group1-crazy-broomhead:response=group1-disclosed-first"
FIELD: dict[str, str] = {
    "super-crazy": f"{_BROOMHEAD}:model=group1-first-interrogation:accusation=group1-probable-clues",
    "psychotic": f"{_BROOMHEAD}:model=group1-aging:accusation=probable-clues",
    "crazy": f"{_BROOMHEAD}:accusation=when-certain",
    "group7": "group7-scoreboard:response=group7-history:model=pattern-analysis:accusation=probable-clues",
    "ours": "clue-expert-generalized:model=group1-first-interrogation:model=group1-aging:accusation=clue-expert-race",
    "ours-information": "clue-expert-generalized-information",
}

#: Above this many cards in the pool a cell plays :data:`LARGE_GAMES` games
#: at most (a 9-player game of 16-card hands deals 176 cards to 10 owners).
LARGE_CARDS = 60
LARGE_GAMES = 4


@functools.lru_cache(maxsize=1)
def published() -> dict:
    """The published Tables 1 and 2 (``clue_expert/published/group1-tables.yaml``)."""
    with open(published_dir() / "group1-tables.yaml", encoding="utf-8") as f:
        return yaml.safe_load(f)


def cells(players: tuple | None = None, hands: tuple | None = None) -> list[tuple[int, int, int]]:
    """(players, cards per player, hidden) of every published cell, optionally
    only some player counts or hand sizes."""
    pub = published()
    out = []
    for n, row in pub["super-crazy"].items():
        for (hand, hidden), value in zip(pub["columns"], row):
            if value is None or (players and int(n) not in players) or (hands and hand not in hands):
                continue
            out.append((int(n), int(hand), int(hidden)))
    return out


def _ranks(rates: dict) -> dict:
    """label -> rank by win rate (1 = best; ties share the mean of their ranks)."""
    order = sorted(rates, key=lambda s: -rates[s])
    out = {}
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and rates[order[j + 1]] == rates[order[i]]:
            j += 1
        for s in order[i:j + 1]:
            out[s] = (i + j) / 2 + 1
        i = j + 1
    return out


def _fmt(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:g}"


def group1(*, games: int = 10, seed: int = 1, workers: int = 1, progress: Callable | None = None,
           players: tuple | None = None, hands: tuple | None = None, field: dict | None = None,
           max_rounds: int = 60, executor=None, engine: str | None = None) -> list[Comparison]:
    """Play the grid (or the cells of some player counts / hand sizes) and
    return one table per hand size: rows are player counts, columns hidden
    counts, each cell ``SC/PB`` ranks as published and as measured
    (``engine``: the command's ``--engine``, or None)."""
    field = dict(field or FIELD)
    specs_by_cell = {}
    total = 0
    for n, hand, hidden in cells(players, hands):
        pool = n * hand + hidden
        g = min(games, LARGE_GAMES) if pool > LARGE_CARDS else games
        g = max(g, len(field))  # every player gets every seat at least once
        specs = make_specs(players=n, games=g, seed=seed, strategies=list(field.values()),
                           edition=f"pool-{pool}-{hidden}", game="generalized", max_rounds=max_rounds,
                           seating="shuffle")
        specs_by_cell[(n, hand, hidden)] = specs
        total += len(specs)
    runs = GameRuns(workers, progress, total, executor, engine)
    measured: dict = {}
    for cell, specs in specs_by_cell.items():
        results = runs.run(specs)
        if results is None:
            break
        seats = {label: 0 for label in field}
        wins = {label: 0 for label in field}
        label_of = {spec: label for label, spec in field.items()}
        for r in results:
            for s in r.strategies:
                seats[label_of[s]] += 1
            if r.winner is not None:
                wins[label_of[r.strategies[r.players.index(r.winner)]]] += 1
        rates = {s: wins[s] / seats[s] for s in field if seats[s]}
        measured[cell] = (_ranks(rates), rates, len(results), len(specs))
    tables = _tables(measured, field, games, runs)
    if runs.interrupted:
        raise ReproductionInterrupted(tables, runs.finished, runs.total)
    return tables


def _tables(measured: dict, field: dict, games: int, runs: GameRuns) -> list[Comparison]:
    pub = published()
    columns = [tuple(c) for c in pub["columns"]]
    tables = []
    same = total = 0
    for hand in sorted({h for h, _ in columns}):
        cols = [(h, k) for h, k in columns if h == hand]
        table = Comparison(f"Group 1, Tables 1-2: Super Crazy / Psychotic Broomhead ranks, {hand} card"
                           f"{'s' if hand > 1 else ''} per player", [f"hidden {k}" for _, k in cols])
        for n, row in pub["super-crazy"].items():
            cells_row = []
            for (h, k), sc in zip(columns, row):
                if h != hand:
                    continue
                pb = pub["psychotic"][n][columns.index((h, k))]
                published_text = "" if sc is None else f"{sc}/{pb}"
                got = measured.get((int(n), h, k))
                if got is None:
                    cells_row.append((published_text, "" if sc is None else "—"))
                    continue
                ranks, _, played, planned = got
                ours = f"{_fmt(ranks.get('super-crazy'))}/{_fmt(ranks.get('psychotic'))}"
                if played < planned:
                    ours += f" ({played} of {planned})"
                if sc is not None and sc != pb and "super-crazy" in ranks and "psychotic" in ranks \
                        and ranks["super-crazy"] != ranks["psychotic"]:
                    total += 1
                    same += (sc < pb) == (ranks["super-crazy"] < ranks["psychotic"])
                cells_row.append((published_text, ours))
            if any((int(n), hand, k) in measured for _, k in cols):
                table.rows.append((f"{n} players", cells_row))
        if table.rows:
            tables.append(table)
    notes = [
        "Each cell: Super Crazy / Psychotic Broomhead's rank, published (among the class field) and ours "
        "(among our field, ranked by win rate; 1 = best, ties share the mean rank).",
        "Our field: " + ", ".join(field) + " (their seat specs: docs/generalized.md).",
        f"Games per cell: {games} (at least one per player of the field, seats shuffled); cells of more than "
        f"{LARGE_CARDS} cards play {LARGE_GAMES} (or one per player of the field, if more).",
        "The class's other players are not available, so the ranks' size is not comparable: compare which "
        "Broomhead ranks better, and where.",
        (f"Where both the report and we separate the two, the same one ranks better in {same} of {total} cells."
         if total else "No cell separates the two Broomheads in both the report and our games."),
    ]
    if runs.interrupted:
        notes.append(f"interrupted: {runs.finished} of {runs.total} games played; rows with no cell played are left out.")
    if tables:
        tables[-1].notes = notes
    return tables
