"""Exact beliefs: time per update over 3-6-player mid-game positions.

    python benchmarks/beliefs.py [--records 20] [--seed 1] [--edition cluedo]

Positions are taken after turns 6, 9, 12, 15 and 18 of seeded random records;
each is timed, in CPU time, from the complete sheet to the full result
(every cell's probability, the envelope's joint distribution and its entropy).
``--edition`` takes any edition: a shipped one's name or an edition file's path.
"""
from __future__ import annotations

import argparse
import statistics
import time

from clue_expert.core.cards import get_edition
from clue_expert.engine.reasoning.beliefs import compute
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.testing.randomgame import random_records
from clue_expert.core.observations import DealtHand

TURNS = (6, 9, 12, 15, 18)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--edition", default="cluedo", help="edition name or file (default: cluedo)")
    args = ap.parse_args()
    edition = get_edition(args.edition)
    print(f"{edition.id}: {args.records} records per player count, positions after turns "
          f"{', '.join(map(str, TURNS))}")
    print(f"{'players':>7} {'positions':>9} {'median':>9} {'p99':>9} {'max':>9} {'max states':>10}")
    for n in (3, 4, 5, 6):
        times, states = [], []
        for record in random_records(args.seed * 10 + n, args.records, n, max(TURNS), edition=edition):
            k = Knowledge(record.edition, record.players, record.me, record.hand_sizes)
            k.observe(DealtHand(k.me, tuple(record.hand)))
            for i, turn in enumerate(record.turns, start=1):
                k.observe(turn, i)
                if i in TURNS:
                    t = time.process_time()
                    b = compute(k)
                    times.append(time.process_time() - t)
                    states.append(b.states)
        times.sort()
        p99 = times[min(len(times) - 1, int(0.99 * (len(times) - 1) + 0.5))]
        print(f"{n:>7} {len(times):>9} {statistics.median(times) * 1000:>7.1f}ms {p99 * 1000:>7.0f}ms "
              f"{times[-1] * 1000:>7.0f}ms {max(states):>10}")


if __name__ == "__main__":
    main()
