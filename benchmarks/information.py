"""Information players: CPU time of one decision (the strategy's whole
answer to ``your-turn``: exact beliefs, quick estimates of every suggestion,
exact values of the shortlist) at 3-6 players, and whether the choices are
those recorded in benchmarks/data/information-choices.json.

    python benchmarks/information.py [--records 6] [--write]

Positions are taken after turns 3, 6, 9, 12 and 15 of seeded random records
(the seat is each record's ``me``), for the strategies
clue-expert-information-gain and clue-expert-open-information-gain.  Each
decision is timed from a knowledge that has taken in the record up to that
turn (the completion step done) to the ranked candidates, with CPU time
(``time.process_time``), after a garbage collection (the positions before
left whole knowledges behind).  ``--write`` records the current choices as the
reference (done once, with the code before issue 15's speed work).
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from pathlib import Path

from clue_expert.core.cards import get_edition
from clue_expert.core.observations import DealtHand
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.seat.levels import get_level
from clue_expert.play.players import load_decisions
from clue_expert.testing.randomgame import random_records

try:  # the compiled DP's start (about a second, once per process) is not a decision's time
    from clue_expert.engine import warm_kernels
except ImportError:  # a commit before the kernels (run on its tree)
    def warm_kernels() -> bool:
        return False

TURNS = (3, 6, 9, 12, 15)
STRATEGIES = ("clue-expert-information-gain", "clue-expert-open-information-gain")
REFERENCE = Path(__file__).parent / "data" / "information-choices.json"


def positions(n: int, records: int, seed: int):
    """(label, knowledge factory) for every position of n players."""
    for r, record in enumerate(random_records(seed * 10 + n, records, n, max(TURNS), edition=get_edition("cluedo"))):
        for t in TURNS:
            if t <= len(record.turns):
                yield f"{n}p-r{r}-t{t}", record, t


def decide(record, upto: int, strategy: str) -> tuple[float, list]:
    rulesets = [*get_level("complete").rulesets(), load_decisions("strategy", strategy),
                load_decisions("response", "minimal-information"), load_decisions("accusation", "when-certain")]
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, rulesets=rulesets)
    k.observe(DealtHand(k.me, tuple(record.hand)))
    for i, turn in enumerate(record.turns[:upto], start=1):
        k.observe(turn, i)
    # the knowledges of the positions before (each a whole engine) are garbage now: collected here, not by
    # a collection that this decision's allocations happen to trigger (a gen-2 pass over them cost a decision
    # up to 100 ms more, in no fixed place; a game keeps one knowledge and makes no such garbage)
    gc.collect()
    t = time.process_time()
    cands = k.request("your-turn", {"turn": upto + 1, "round": upto // len(record.players) + 1})
    dt = time.process_time() - t
    return dt, [[c.kind, c.rule, [list(o) for o in c.options]] for c in cands]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, action="append", help="player counts (default 3-6)")
    ap.add_argument("--write", action="store_true", help="record the current choices as the reference")
    args = ap.parse_args()
    warm_kernels()
    reference = json.loads(REFERENCE.read_text()) if REFERENCE.exists() and not args.write else {}
    choices: dict = {}
    print(f"{args.records} random records per player count, positions after turns {', '.join(map(str, TURNS))}; "
          f"CPU time per decision")
    print(f"{'players':>7} {'strategy':<34} {'decisions':>9} {'median':>9} {'p90':>9} {'max':>9} {'same':>6}")
    differ = 0
    for n in args.players or (3, 4, 5, 6):
        for strategy in STRATEGIES:
            times, same, checked = [], 0, 0
            for label, record, t in positions(n, args.records, args.seed):
                dt, cands = decide(record, t, strategy)
                times.append(dt)
                key = f"{strategy}:{label}"
                choices[key] = cands
                if key in reference:
                    checked += 1
                    if reference[key] == json.loads(json.dumps(cands)):
                        same += 1
                    else:
                        differ += 1
                        print(f"  differs at {key}: {reference[key][:1]} now {cands[:1]}")
            times.sort()
            p90 = times[min(len(times) - 1, int(0.9 * (len(times) - 1) + 0.5))]
            print(f"{n:>7} {strategy:<34} {len(times):>9} {statistics.median(times) * 1000:>7.1f}ms "
                  f"{p90 * 1000:>7.1f}ms {times[-1] * 1000:>7.1f}ms {f'{same}/{checked}' if checked else '-':>6}")
    if args.write:
        REFERENCE.parent.mkdir(exist_ok=True)
        REFERENCE.write_text(json.dumps(choices, sort_keys=True, indent=0) + "\n")
        print(f"wrote {REFERENCE} ({len(choices)} decisions)")
    elif differ:
        print(f"{differ} decisions differ from {REFERENCE}")
        raise SystemExit(1)


if __name__ == "__main__":
    main()
