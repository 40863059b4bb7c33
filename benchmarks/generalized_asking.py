"""Our generalized-game player: decision time per position.

    python benchmarks/generalized_asking.py [--players 7] [--hand 3] [--hidden 2] [--games 4] [--seed 1]

Plays whole generalized games (pool of players x hand + hidden cards) with
``clue-expert-generalized-information`` in one seat (rotating) and the reference player
``generalized-ask-all-uncertain`` in the others, and times every turn of our
seat: the accusation offer and the interrogation together, from the rule
engine's request to the answer (knowledge updates between turns not
counted).  Prints one line per position (round, decision time, the
marginals' largest DP layer) and the median, 90th percentile and maximum.
The budget is a median of 200 ms at 7 players with 3 cards each.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from clue_expert.core.cards import pool_edition
from clue_expert.core.deals import random_deal
from clue_expert.engine.reasoning.asking import marginals
from clue_expert.play.game import play_game
from clue_expert.play.players import RuleBasedPlayer

OURS = "clue-expert-generalized-information"
OTHERS = "generalized-ask-all-uncertain"


class Timed(RuleBasedPlayer):
    """Our player, timing each turn's decisions."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.times: list = []
        self._offer = 0.0

    def accuse(self, turn):
        t = time.perf_counter()
        out = super().accuse(turn)
        self._offer = time.perf_counter() - t
        if out is not None:
            self.times.append((turn, self._offer, None))
        return out

    def interrogate(self, turn, round, askable):
        t = time.perf_counter()
        out = super().interrogate(turn, round, askable)
        spent = self._offer + time.perf_counter() - t
        self.times.append((round, spent, marginals(self.knowledge).states))
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=7)
    ap.add_argument("--hand", type=int, default=3)
    ap.add_argument("--hidden", type=int, default=2)
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quiet", action="store_true", help="the summary only")
    args = ap.parse_args()
    n = args.players
    edition = pool_edition(n * args.hand + args.hidden, args.hidden)
    names = tuple(f"player{i + 1}" for i in range(n))
    times = []
    print(f"{edition.id}: {n} players, {args.games} games, {OURS} against {OTHERS}")
    for g in range(args.games):
        deal = random_deal(edition, names, random.Random(f"{args.seed}:{g}"))
        seat = names[g % n]
        players = {p: (Timed if p == seat else RuleBasedPlayer)(p, OURS if p == seat else OTHERS, seed=g * 10 + i)
                   for i, p in enumerate(names)}
        result = play_game(deal, players, game="generalized")
        ours = players[seat]
        if not args.quiet:
            for rnd, t, states in ours.times:
                what = "guess" if states is None else f"round {rnd:2d}"
                print(f"game {g + 1} {seat} {what}: {1000 * t:7.1f} ms" +
                      ("" if states is None else f"  (marginals' largest layer {states} states)"))
        print(f"game {g + 1}: winner {result.winner} ({'ours' if result.winner == seat else 'reference'}) "
              f"in round {result.win_round}")
        times += [t for _, t, _ in ours.times]
    times.sort()
    print(f"{len(times)} positions: median {1000 * statistics.median(times):.1f} ms, "
          f"p90 {1000 * times[int(0.9 * (len(times) - 1))]:.1f} ms, max {1000 * times[-1]:.1f} ms")


if __name__ == "__main__":
    main()
