"""Game throughput: games per second per core, every seat rule-based with
complete deduction (experta rules + SAT case analysis), for 3 and 6 players.

    python benchmarks/games.py [--games 60] [--strategy clue-expert-focused]
"""
from __future__ import annotations

import argparse
import time

from clue_expert.play.simulate import make_specs, run_game


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--strategy", action="append")
    args = ap.parse_args()
    strategies = args.strategy or ["clue-expert-focused", "kingston-next-not-held", "mitchell-advanced"]
    print(f"one process, {args.games} random games per row, strategies {', '.join(strategies)}")
    print(f"{'players':>7} {'games/s':>8} {'ms/game':>8} {'turns/game':>10} {'ms/observation/seat':>20}")
    for n in (3, 4, 5, 6):
        specs = make_specs(players=n, games=args.games + 2, seed=args.seed, strategies=strategies)
        for s in specs[:2]:  # warm up: build the engines once, as a long simulation does
            run_game(s)
        t = time.perf_counter()
        turns = 0
        for s in specs[2:]:
            r = run_game(s)
            turns += (r.win_round or 60) * n
        dt = time.perf_counter() - t
        per_game = dt / args.games
        print(f"{n:>7} {1 / per_game:>8.1f} {1000 * per_game:>8.1f} {turns / args.games:>10.1f} "
              f"{1000 * dt / (turns * n):>20.3f}")


if __name__ == "__main__":
    main()
