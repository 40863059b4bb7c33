"""Generated puzzles: time to make one and its length, per level.

    python benchmarks/puzzles.py [--seeds 8] [--players 3 4]

For seeds 1..N and each level (easy, medium, hard), ``make_puzzle`` on the
cluedo edition; prints the median and largest time and the median and
largest number of turns of the records made.
"""
from __future__ import annotations

import argparse
import statistics
import time

from clue_expert.play.puzzles import DIFFICULTIES, make_puzzle


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--players", type=int, nargs="+", default=[3, 4])
    args = ap.parse_args()
    print(f"seeds 1-{args.seeds}, cluedo")
    print(f"{'players':>7} {'level':>7} {'median s':>9} {'max s':>6} {'median turns':>12} {'max turns':>9}")
    for n in args.players:
        for level in DIFFICULTIES:
            times, turns = [], []
            for seed in range(1, args.seeds + 1):
                start = time.perf_counter()
                puzzle = make_puzzle(n, level, seed)
                times.append(time.perf_counter() - start)
                turns.append(len(puzzle.record.turns))
            print(f"{n:>7} {level:>7} {statistics.median(times):>9.2f} {max(times):>6.2f} "
                  f"{statistics.median(turns):>12} {max(turns):>9}")


if __name__ == "__main__":
    main()
