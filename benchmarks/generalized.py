"""The generalized game's tournament: every shipped player of it, seated together.

    python benchmarks/generalized.py [--games 120] [--players 3 5 7] [--hand 3] [--hidden 2] [--workers 2]

For each table size, ``--games`` games on random deals of the pool of
``players x hand + hidden`` cards, the players of :data:`FIELD` seated in a
seeded random order each game (a fixed cycle would keep each player just
after the same other one, which in this game decides much); each player's win rate per seat with its 95 % Wilson
interval, as a markdown table (the figures in docs/generalized.md come from
this script).
"""
from __future__ import annotations

import argparse
import os
import time

from clue_expert.play.group1_grid import FIELD as GRID_FIELD
from clue_expert.play.simulate import make_specs, run_games, summarize

#: Every player of the generalized game: label -> seat spec.
FIELD = {**GRID_FIELD, "ask-all-uncertain": "generalized-ask-all-uncertain"}


def tournament(players: int, games: int, hand: int, hidden: int, workers: int, field: dict) -> dict:
    """One table size: the simulation summary of the mixed games."""
    specs = make_specs(players=players, games=games, seed=1, strategies=list(field.values()),
                       edition=f"pool-{players * hand + hidden}-{hidden}", game="generalized", seating="shuffle")
    return summarize(run_games(specs, workers))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=120)
    ap.add_argument("--players", type=int, nargs="+", default=[3, 5, 7])
    ap.add_argument("--hand", type=int, default=3)
    ap.add_argument("--hidden", type=int, default=2)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    label_of = {spec: label for label, spec in FIELD.items()}
    for n in args.players:
        t = time.perf_counter()
        summary = tournament(n, args.games, args.hand, args.hidden, args.workers, FIELD)
        elapsed = time.perf_counter() - t
        print(f"\n{n} players, {args.hand} cards each, {args.hidden} hidden: {summary['games']} games "
              f"({summary['unfinished_games']} unfinished, {summary['wrong_accusations']} wrong guesses; "
              f"{elapsed:.0f} s)\n")
        print("| player | seats | wins | win rate | 95 % interval |")
        print("| --- | --- | --- | --- | --- |")
        rows = sorted(summary["strategies"].items(), key=lambda kv: -kv[1]["win_rate"])
        for spec, d in rows:
            lo, hi = d["ci95"]
            print(f"| {label_of.get(spec, spec)} | {d['seats']} | {d['wins']} | {d['win_rate']:.1%} | "
                  f"{lo:.1%}–{hi:.1%} |")
        print(f"\n(a seat wins 1/{n} = {1 / n:.1%} of games by chance)")


if __name__ == "__main__":
    main()
