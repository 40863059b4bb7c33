"""Step-by-step proofs of case-analysis facts: how many are shown as cases,
how long the case analyses are and how long finding them takes.

    python benchmarks/proofs.py [--records 30] [--seed 100] [--turns 30]

Every fact the completion step found (rule ``case-analysis``) in seeded random
30-turn Cluedo records of 3, 4 and 6 players is proved with
``clue_expert.engine.reasoning.proofs.prove``; a fact is *shown as cases* when the
search (the rules alone plus counting arguments, up to two nested splits,
at most 60 suppositions) closed every case, else it keeps the SAT sentence.
"""
from __future__ import annotations

import argparse
import statistics
import time

from clue_expert.engine.seat.knowledge import CASE_ANALYSIS, replay_record
from clue_expert.engine.reasoning.proofs import prove
from clue_expert.testing.randomgame import random_records


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=30)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--turns", type=int, default=30)
    args = ap.parse_args()
    print(f"{args.records} records of {args.turns} turns per player count (seed {args.seed} + players)")
    print(f"{'players':>7} {'facts':>6} {'as cases':>9} {'median steps':>12} {'max steps':>9} "
          f"{'median s':>9} {'max s':>7}")
    for n in (3, 4, 6):
        times, sizes, facts, shown = [], [], 0, 0
        for record in random_records(args.seed + n, args.records, n, args.turns):
            k = replay_record(record)
            for key in [key for key, j in k.justifications.items() if j.rule == CASE_ANALYSIS]:
                start = time.perf_counter()
                proof = prove(k, key)
                times.append(time.perf_counter() - start)
                facts += 1
                if not proof.unsplit:
                    shown += 1
                    sizes.append(sum(1 for i in proof.items if i.depth > 0))
        if not facts:
            print(f"{n:>7} {0:>6}")
            continue
        print(f"{n:>7} {facts:>6} {shown:>9} {statistics.median(sizes) if sizes else 0:>12} "
              f"{max(sizes, default=0):>9} {statistics.median(times):>9.3f} {max(times):>7.2f}")


if __name__ == "__main__":
    main()
