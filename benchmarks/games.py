"""Game throughput: games per second per core, every seat rule-based with
complete deduction (experta rules + SAT case analysis), for 3-6 players, then
a 6-player tournament with the information players.

    python benchmarks/games.py [--games 60] [--strategy clue-expert-focused] [--tournament 12]

Times are CPU time of this process (``time.process_time``): on a shared
machine wall time measures the neighbours.  One process plays the games one
after another, as ``simulate --workers 1`` does (players reused from game to
game, the same garbage-collector policy).  The tournament row plays ``--tournament`` 6-player games seated in
rotation from the information players and four rule-based ones, and
extrapolates to 1,000 games on two cores (``simulate --workers 2``: the games
are independent, so two workers play twice as many per second).
"""
from __future__ import annotations

import argparse
import time

from clue_expert.play.simulate import LocalExecutor, make_specs

TOURNAMENT = ("clue-expert-information-gain", "clue-expert-open-information-gain", "clue-expert-focused",
              "kingston-next-not-held", "mitchell-advanced", "kingston-next-possible")


def play(specs, n: int) -> tuple[float, int]:
    """CPU seconds for the games after the first two (warm-up: the engines
    are built once, as in a long simulation), and their turns.  The games
    run as ``simulate --workers 1`` runs them (``LocalExecutor``: in this
    process, under the same garbage-collector policy)."""
    executor = LocalExecutor(1)
    for _ in executor.results(specs[:2]):
        pass
    t = time.process_time()
    turns = 0
    for r, _record in executor.results(specs[2:]):
        turns += (r.win_round or 60) * n
    return time.process_time() - t, turns


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--strategy", action="append")
    ap.add_argument("--players", type=int, action="append", help="player counts (default 3-6)")
    ap.add_argument("--tournament", type=int, default=12,
                    help="6-player games with the information players (0: skip)")
    args = ap.parse_args()
    strategies = args.strategy or ["clue-expert-focused", "kingston-next-not-held", "mitchell-advanced"]
    print(f"one process, CPU time, {args.games} random games per row, strategies {', '.join(strategies)}")
    print(f"{'players':>7} {'games/s':>8} {'ms/game':>8} {'turns/game':>10} {'ms/observation/seat':>20}")
    for n in args.players or (3, 4, 5, 6):
        specs = make_specs(players=n, games=args.games + 2, seed=args.seed, strategies=strategies)
        dt, turns = play(specs, n)
        per_game = dt / args.games
        print(f"{n:>7} {1 / per_game:>8.1f} {1000 * per_game:>8.1f} {turns / args.games:>10.1f} "
              f"{1000 * dt / (turns * n):>20.3f}")
    if args.tournament:
        specs = make_specs(players=6, games=args.tournament + 2, seed=args.seed, strategies=TOURNAMENT)
        dt, _ = play(specs, 6)
        rate = args.tournament / dt
        print(f"\n6-player tournament, {args.tournament} games, strategies {', '.join(TOURNAMENT)}")
        print(f"{rate:.2f} games/s per core: 1,000 games take about {1000 / rate / 60:.0f} min on one core, "
              f"{1000 / rate / 2 / 60:.0f} min with --workers 2")


if __name__ == "__main__":
    main()
