"""Kingston's six-player deals: which split of his three-player hands, and
which round count, his No-intelligence row allows (docs/reproductions.md).

His appendix lists the three-player hands and says only that the six-player
version splits each holding in half, half of player1's going to player4 and
so on; Mitchell (appendix B) reads it as player4 taking the latter three
cards.  No intelligence asks, in list order, for the first cards it neither
holds nor has seen, so it is deterministic and its solution round depends
only on the split; :func:`clue_expert.play.reproduce.no_intelligence_round`
gives it in closed form.  This script

1. checks the closed form against the simulator on ``--check`` random split
   rules (each on a random deal 1-5) and the shipped split's five deals;
2. searches the 8,000 per-player split rules (each of player1..3 keeps 3 of
   the 6 positions of its appendix hand, 20 choices each, the same rule for
   deals 1-5) and keeps the 1,200 that fit his six-player deal-5 trace
   (player1 shows Miss Scarlett and Colonel Mustard, player4 holds the Hall);
3. prints how many of those give each row of rounds, his row first, and the
   rules that give the most of his five cells;
4. prints deal 2 without exhaustive elimination (a seat solves only when its
   own suggestion goes unanswered), at three and six players.

Usage: ``python benchmarks/kingston_splits.py [--check N] [--workers N]``.
"""
from __future__ import annotations

import argparse
import collections
import random
import time

from clue_expert.core.deals import get_deal
from clue_expert.play.reproduce import (KEEPS, NO_INTELLIGENCE_SEAT, calibrated_split, kingston_split,
                                        no_intelligence_round, published, split_rules)
from clue_expert.play.simulate import GameSpec, run_games


def simulated(deals: list, workers: int) -> list:
    """Our No-intelligence solution round on each deal, played (one game each)."""
    specs = [GameSpec(i, deal, (NO_INTELLIGENCE_SEAT,) * len(deal.players), 1) for i, deal in enumerate(deals)]
    return [r.solution_round for r in sorted(run_games(specs, workers, None), key=lambda r: r.index)]


def main() -> None:
    """Print the check, the search and deal 2."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", type=int, default=100, help="random split rules played to check the closed form")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=37)
    args = ap.parse_args()
    his = published("kingston")["players"][6]["kingston-no-intelligence"][:5]
    rng = random.Random(args.seed)
    deals = [kingston_split(d, ((0, 1, 2),) * 3) for d in range(1, 6)]
    deals += [kingston_split(rng.randint(1, 5), tuple(rng.choice(KEEPS) for _ in range(3))) for _ in range(args.check)]
    cpu, wall = time.process_time(), time.monotonic()
    played = simulated(deals, args.workers)
    agree = sum(p == no_intelligence_round(d) for p, d in zip(played, deals))
    print(f"1. closed form against the simulator: {agree} of {len(deals)} games agree (the shipped split's five "
          f"deals and {args.check} random split rules; played in {time.process_time() - cpu:.1f} s CPU in this "
          f"process, {time.monotonic() - wall:.1f} s wall)")
    for d, deal in enumerate(deals[:5], start=1):
        print(f"   shipped split, deal {d}: closed form {no_intelligence_round(deal)}, played {played[d - 1]}, "
              f"his {his[d - 1]}")
    cpu = time.process_time()
    rules = split_rules(his)
    rule, tied = calibrated_split()
    print(f"2. {20 ** 3:,} per-player split rules, {len(rules):,} fit his deal-5 trace "
          f"(closed form, {time.process_time() - cpu:.1f} s CPU)")
    counts = collections.Counter((r.rounds, r.matches) for r in rules)
    print(f"3. rounds on deals 1-5 (his {' / '.join(map(str, his))}): rules giving them, cells equal to his")
    for (rounds, matches), k in sorted(counts.items(), key=lambda kv: (-kv[0][1], -kv[1], kv[0][0])):
        print(f"   {' / '.join(map(str, rounds))}: {k} rules, {matches} of 5")
    best = [r for r in rules if r.matches == rule.matches]
    print(f"   the {len(best)} rules giving {rule.matches} of 5 (player1/player2/player3 keep positions):")
    for k in range(0, len(best), 8):
        print("   " + "  ".join(r.label() for r in best[k:k + 8]))
    print(f"   the calibrated column's: {rule.label()} (the first of {tied}); deal 5 then gives player1 "
          f"{', '.join(kingston_split(5, rule.keep).hands['player1'])}")
    alike = [r for r in rules if r.keep[0] == r.keep[1] == r.keep[2]]
    print(f"   of the 20 rules that treat every hand alike, {len(alike)} fit the trace: "
          + "; ".join(f"{r.label()}: {' / '.join(map(str, r.rounds))}" for r in alike))
    six = collections.Counter(no_intelligence_round(kingston_split(2, r.keep), exhaustive=False) for r in rules)
    print(f"4. deal 2 without exhaustive elimination: three players {no_intelligence_round(get_deal('kingston-2-3p'), exhaustive=False)} "
          f"(his 12); six players {dict(sorted(six.items()))} over the {len(rules):,} rules (his 16); with it, "
          f"three players {no_intelligence_round(get_deal('kingston-2-3p'))}, six players at most "
          f"{max(no_intelligence_round(kingston_split(2, r.keep)) for r in rules)}")


if __name__ == "__main__":
    main()
