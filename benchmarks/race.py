"""The race-aware accusation (rules/accusations/race.yaml) against
when-certain and threshold-95 in Speed Clue's mixed tournaments.

    python benchmarks/race.py [--games 150] [--games-large 90] [--players 3 4 5 6] [--workers 2] [--seed 17]

Random cluedo deals, seats shuffled per game (make_specs(seating="shuffle")):
the same strategy (clue-expert-focused) with the three accusations, plus
kingston-next-not-held and mitchell-advanced (when-certain).  Prints each
seat spec's win rate with its 95 % Wilson interval, and how many accusations
were wrong, per table size.  ``--games`` at 3-4 players, ``--games-large`` at
5-6.
"""
from __future__ import annotations

import argparse
import time

from clue_expert.play.simulate import make_specs, run_games, summarize

STRATEGIES = [
    "clue-expert-focused:accusation=race",
    "clue-expert-focused:accusation=when-certain",
    "clue-expert-focused:accusation=threshold-95",
    "kingston-next-not-held",
    "mitchell-advanced",
]


def table(players: int, games: int, workers: int, seed: int) -> None:
    t = time.perf_counter()
    specs = make_specs(players=players, games=games, seed=seed, strategies=STRATEGIES, seating="shuffle")
    results = run_games(specs, workers=workers)
    per = summarize(results)["strategies"]  # seats, wins, ci95 per seat spec
    wrong = sum(r.wrong_accusations for r in results)
    rounds = [r.win_round for r in results if r.win_round is not None]
    print(f"\n{players} players, {games} games ({time.perf_counter() - t:.0f} s; wrong accusations in all: {wrong}; "
          f"mean winning round {sum(rounds) / max(1, len(rounds)):.2f})")
    print(f"| {'seat spec':45} | seats | wins | win rate | 95 % interval |")
    print(f"| {'-' * 45} | ---: | ---: | ---: | --- |")
    for s in STRATEGIES:
        n, w, (lo, hi) = per[s]["seats"], per[s]["wins"], per[s]["ci95"]
        print(f"| {'`' + s + '`':45} | {n} | {w} | {w / n if n else 0:.1%} | {lo:.1%}–{hi:.1%} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=150, help="games at 3 and 4 players")
    ap.add_argument("--games-large", type=int, default=90, help="games at 5 and 6 players")
    ap.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=17)
    a = ap.parse_args()
    for n in a.players:
        table(n, a.games if n <= 4 else a.games_large, a.workers, a.seed)


if __name__ == "__main__":
    main()
