"""Kingston's six-player deals: which split of his three-player hands, and
which round count, his No-intelligence row allows (docs/reproductions.md).

His appendix lists the three-player hands and says only that the six-player
version "split each player's holding in half, assigning half of player1's
holding to player4 and so on"; Mitchell (appendix B) reads it as player4
taking the latter three cards.  No intelligence asks, in list order, for the
first cards it neither holds nor has seen, so it is deterministic and its
solution round depends only on the split.  This script prints

1. the earliest round at which some seat's list-order suggestion can be the
   envelope (each seat must first be shown the cards before the envelope's
   in each list that it does not hold, one per turn) and the latest at which
   exhaustive elimination must have finished (a seat is shown a new card
   every turn it does not solve), for the shipped split, beside his row;
2. our No-intelligence rounds on deals 1-5 for each of the 20 splits that
   give player1..3 the same three positions of their appendix hands;
3. for deal 5, the rounds over all 1,200 splits his 6-player deal-5 trace
   allows (player1 holds Miss Scarlett and Colonel Mustard, player4 the Hall).

Usage: ``python benchmarks/kingston_splits.py [--workers N]`` (about a
minute on one core).
"""
from __future__ import annotations

import argparse
import collections
import itertools

from clue_expert.core.deals import Deal, get_deal
from clue_expert.play.simulate import GameSpec, run_games

HIS_SIX = [7, 16, 7, 9, 5]
SEAT = "kingston-no-intelligence:knowledge=kingston"


def bounds(deal: Deal) -> tuple[int, int]:
    """(earliest round an unanswered list-order suggestion can name the
    envelope, round by which exhaustive elimination has finished) over the
    deal's seats."""
    ed = deal.edition
    earliest = None
    for p in deal.players:
        need = 0
        for cat, env in zip(ed.categories, deal.envelope):
            cards = list(ed.category_cards(cat))
            need += sum(1 for c in cards[:cards.index(env)] if c not in deal.hands[p])
        earliest = need + 1 if earliest is None else min(earliest, need + 1)
    latest = min(len(ed.cards) - ed.envelope_size - len(h) for h in deal.hands.values())
    return int(earliest or 0), latest


def split(d: int, keep: dict) -> Deal:
    """Kingston's deal ``d`` for six players: player i (1-3) keeps the cards
    ``keep[i]`` of his three-player hand, player i+3 takes the rest."""
    base, six = get_deal(f"kingston-{d}-3p"), get_deal(f"kingston-{d}-6p")
    hands = {}
    for i in range(1, 4):
        hand = base.hands[f"player{i}"]
        hands[f"player{i}"] = tuple(c for c in hand if c in keep[i])
        hands[f"player{i + 3}"] = tuple(c for c in hand if c not in keep[i])
    return Deal(id=f"{six.id}-split", edition=six.edition, players=six.players, envelope=six.envelope,
                hands=hands, name=six.name, source="split experiment")


def rounds(deals: list, workers: int) -> list:
    """Our No-intelligence solution round on each deal (list order: one game each)."""
    specs = [GameSpec(i, deal, (SEAT,) * len(deal.players), 1) for i, deal in enumerate(deals)]
    return [r.solution_round for r in sorted(run_games(specs, workers, None), key=lambda r: r.index)]


def main() -> None:
    """Print the three tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=1)
    workers = ap.parse_args().workers
    print("1. shipped split (player4..6 take the latter half): earliest possible / exhaustive by / ours / his")
    shipped = [get_deal(f"kingston-{d}-6p") for d in range(1, 6)]
    ours = rounds(shipped, workers)
    for d, (deal, o) in enumerate(zip(shipped, ours), start=1):
        lo, hi = bounds(deal)
        print(f"   deal {d}: {lo} / {hi} / {o} / {HIS_SIX[d - 1]}")
    print("2. player1..3 keep the same positions (1-6) of their appendix hands: ours on deals 1-5, his", HIS_SIX)
    keeps = list(itertools.combinations(range(6), 3))
    deals = []
    for pos in keeps:
        for d in range(1, 6):
            base = get_deal(f"kingston-{d}-3p")
            deals.append(split(d, {i: {base.hands[f"player{i}"][j] for j in pos} for i in range(1, 4)}))
    got = rounds(deals, workers)
    for k, pos in enumerate(keeps):
        row = got[5 * k:5 * k + 5]
        print(f"   keep {tuple(j + 1 for j in pos)}: {row}  ({sum(a == b for a, b in zip(row, HIS_SIX))} of 5 his)")
    print("3. deal 5, every split his trace allows (player1: Scarlett, Mustard; player4: Hall)")
    base = get_deal("kingston-5-3p")
    h = base.hands
    options = []
    for third in (c for c in h["player1"] if c not in ("miss-scarlett", "col-mustard", "hall")):
        for two in itertools.combinations(h["player2"], 3):
            for three in itertools.combinations(h["player3"], 3):
                options.append((third, split(5, {1: {"miss-scarlett", "col-mustard", third}, 2: set(two),
                                                 3: set(three)})))
    got = rounds([deal for _, deal in options], workers)
    by_third: dict = collections.defaultdict(collections.Counter)
    for (third, _), r in zip(options, got):
        by_third[third][r] += 1
    print(f"   {len(options)} splits; rounds (count) by player1's third card, his 5:")
    for third, counts in by_third.items():
        print(f"   player1 keeps {third}: {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
