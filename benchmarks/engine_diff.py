"""The differential check of issue 35 at length: random valid rule files
(clue_expert/testing/rulegen.py) run on CLIPS and on experta over random
records; every match of their left-hand sides, and (every ``--games-every``-th
file) a seat's sheets, contradictions and errors after every observation,
compared.  Prints each disagreement (the file and what differs), then one
line: ``files x records, disagreements: N``.

    python benchmarks/engine_diff.py [--rules 200] [--records 3] [--seed 1] [--games-every 5]

Exit 1 when any disagreement is found.  docs/rule-language.md quotes the
last long run's figure.
"""
from __future__ import annotations

import argparse
import random
import sys
import time

from clue_expert.testing.randomgame import random_record
from clue_expert.testing.rulegen import compare, random_rule_file


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", type=int, default=200, help="rule files to generate")
    parser.add_argument("--records", type=int, default=3, help="random records each file runs on")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games-every", type=int, default=5, help="compare seats' games for every N-th file")
    parser.add_argument("--turns", type=int, default=8, help="turns per record")
    args = parser.parse_args()
    records = [random_record(random.Random(args.seed * 1_000 + j), n_players=3 + j % 4, n_turns=args.turns)
               for j in range(args.records)]
    start, bad = time.time(), 0
    for i in range(args.rules):
        rng = random.Random(args.seed * 1_000_000 + i)
        text = random_rule_file(rng, name=f"diff{i}", rules=rng.randint(1, 3))
        problems = compare(text, records, games=args.games_every > 0 and i % args.games_every == 0)
        if problems:
            bad += 1
            print(f"--- file {i} (seed {args.seed})\n{text}" + "\n".join(problems), flush=True)
    print(f"{args.rules} files x {args.records} records ({args.turns} turns, games every {args.games_every}), "
          f"disagreements: {bad}; {time.time() - start:.0f} s", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
