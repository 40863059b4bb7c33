"""Where a game's CPU time goes, by part: ``SIGPROF`` samples (every
millisecond of CPU time; the kernel's timer may make them coarser), each
given to the innermost frame on the stack that belongs to a part below.

    python benchmarks/game_parts.py [--games 150] [--players 6]

The games are ``benchmarks/games.py``'s (its three strategies, every seat on
clips, two untimed games first).  A part is named by its functions (the
names of this tree and of main before the direct path for native firings
alike), so the script runs unchanged on either.
"""
from __future__ import annotations

import argparse
import collections
import signal
import time

from games import on_engine
from clue_expert.play.simulate import LocalExecutor, make_specs

#: (part, the functions whose frames are its own; the first part found going out from the innermost frame wins).
PARTS = (
    ("recording native firings (the seat: limits, justification, store)", {"_on_native", "_on_native_firing"}),
    ("the seat's Python right-hand sides and decisions", {"_on_firing", "_match_fire", "_run_rule", "_decide"}),
    ("the adapter reading the log (firings, counts, facts made)",
     {"_read_log", "_read_stepwise", "_logged_count", "_take_log", "_count", "_firing", "_asserted",
      "_clause_asserted", "_clause_firing", "__missing__", "raise_count", "_to_assert"}),
    ("CLIPS's Run and the adapter's loop around it", {"run"}),
    ("declaring facts (AssertString, retractions)", {"declare", "retract", "settle", "reset_to"}),
    ("the SAT completion step's backbone", {"backbone", "absorb", "_witnesses", "_keep"}),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--players", type=int, default=6)
    args = ap.parse_args()
    specs = make_specs(players=args.players, games=args.games + 2, seed=1,
                       strategies=on_engine(["clue-expert-focused", "kingston-next-not-held", "mitchell-advanced"],
                                            "clips"))
    executor = LocalExecutor(1)
    for _ in executor.results(specs[:2]):
        pass
    samples: collections.Counter = collections.Counter()

    def sample(signum, frame) -> None:
        while frame is not None:
            code = frame.f_code
            if "clue_expert" in code.co_filename:
                for part, names in PARTS:
                    if code.co_name in names and (names is not PARTS[3][1] or code.co_filename.endswith("clips.py")):
                        samples[part] += 1
                        return
            frame = frame.f_back
        samples["everything else"] += 1

    signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
    t = time.process_time()
    for _ in executor.results(specs[2:]):
        pass
    spent = time.process_time() - t
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    total = sum(samples.values())
    per_game = 1000 * spent / args.games
    print(f"{args.players} players, {args.games} games: {per_game:.1f} ms a game (CPU), {total} samples")
    for part in [p for p, _ in PARTS] + ["everything else"]:
        print(f"{per_game * samples[part] / total:7.1f} ms {100 * samples[part] / total:5.1f} %  {part}")


if __name__ == "__main__":
    main()
