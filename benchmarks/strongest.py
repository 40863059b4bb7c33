"""The strongest player at every table size (issue 17): the default seat of
``clue_expert/seats/speed-clue.yaml`` against every shipped player family.

    python benchmarks/strongest.py [--players 3 4 5 6] [--games 210] [--workers 2] [--seed 23]
                                   [--candidate SPEC ...] [--clue-precision]

At each table size: random cluedo deals, the default seat for that size (or
each ``--candidate``) seated with one seat of every family -- Kingston's
Next-not-held, Mitchell's advanced player, our focused player, the
information players with and without opponent models -- the players of a
game taken in turn from that list and seated in a seeded random order
(``make_specs(seating="shuffle")``).  Prints, per seat spec, seat-games,
wins, the win rate with its 95 % Wilson interval, and for the first seat spec
its ratio to the best other one and whether the intervals overlap (the
issue's target: first, at least 1.3x the next, intervals apart).

``--clue-precision`` plays the same games in this process instead and
prints, per opponent model of the seats that have models, how many probable
clues it made about the other players and how many were true of the deal
(refuted ones included): what the clue beliefs (``clue_top_probability``)
take as facts.
"""
from __future__ import annotations

import argparse
import time

from collections import Counter

from clue_expert.play.game import play_game
from clue_expert.play.players import parse_seat, seat_player
from clue_expert.play.seats import default_seat, seat_spec
from clue_expert.play.simulate import make_specs, run_games, summarize

FIELD = [
    "kingston-next-not-held",
    "mitchell-advanced",
    "clue-expert-focused",
    "clue-expert-information-gain",
    "clue-expert-open-information-gain",
    "clue-expert-open-information-gain:response=seen-model:model=first-round-asks",
]


def line_up(players: int, candidates: list[str]) -> list[str]:
    """The candidates, then the field minus any seat the same as a candidate
    (compared with every part named: ``clue-expert-focused`` is the 3-player default)."""
    first = candidates or [default_seat(players)]
    same = {seat_spec(parse_seat(s)) for s in first}
    return first + [s for s in FIELD if seat_spec(parse_seat(s)) not in same]


def table(players: int, games: int, workers: int, seed: int, candidates: list[str]) -> None:
    specs_list = line_up(players, candidates)
    t = time.perf_counter()
    specs = make_specs(players=players, games=games, seed=seed, strategies=specs_list, seating="shuffle")
    results = run_games(specs, workers=workers)
    per = summarize(results)["strategies"]  # seats, wins, win_rate, ci95 per seat spec
    print(f"\n{players} players, {games} games, seed {seed} ({time.perf_counter() - t:.0f} s on {workers} "
          f"worker(s); wrong accusations in all: {sum(r.wrong_accusations for r in results)})")
    print(f"| {'seat spec':80} | seats | wins | win rate | 95 % interval |")
    print(f"| {'-' * 80} | ---: | ---: | ---: | --- |")
    rate = {s: (per[s]["win_rate"], *per[s]["ci95"]) for s in specs_list}
    for s in sorted(specs_list, key=lambda s: -rate[s][0]):
        print(f"| {'`' + s + '`':80} | {per[s]['seats']} | {per[s]['wins']} | {rate[s][0]:.1%} | "
              f"{rate[s][1]:.1%}–{rate[s][2]:.1%} |")
    lead = specs_list[0]
    best_other = max((s for s in specs_list if s != lead), key=lambda s: rate[s][0])
    r0, lo0, _ = rate[lead]
    r1, _, hi1 = rate[best_other]
    ratio = r0 / r1 if r1 else float("inf")
    print(f"{lead}: {r0:.1%}; best other {best_other}: {r1:.1%}; ratio {ratio:.2f}; "
          f"intervals {'apart' if lo0 > hi1 else 'overlap'}; "
          f"{'target met' if ratio >= 1.3 and lo0 > hi1 else 'target (1.3x, intervals apart) not met'}")


def clue_precision(players: int, games: int, seed: int, candidates: list[str]) -> None:
    specs = make_specs(players=players, games=games, seed=seed, strategies=line_up(players, candidates),
                       seating="shuffle")
    made, true = Counter(), Counter()
    t = time.perf_counter()
    for spec in specs:
        names = spec.deal.players
        seats = {p: seat_player(p, s, seed=spec.seed * 10 + i) for i, (p, s) in enumerate(zip(names, spec.strategies))}
        play_game(spec.deal, seats)
        for p, player in seats.items():
            k = player.knowledge
            for model in player.models:
                for kind, owner, card in (k.probable_clues(model=model.id)
                                          + k.probable_clues(refuted=True, model=model.id)):
                    made[model.id] += 1
                    true[model.id] += (card in spec.deal.hands[owner]) == (kind == "probably-held")
    print(f"\n{players} players, {games} games, seed {seed} ({time.perf_counter() - t:.0f} s): probable clues "
          f"of every seat with models, checked against the deal")
    print("| model | clues | true |")
    print("| --- | ---: | ---: |")
    for m in sorted(made):
        print(f"| `{m}` | {made[m]} | {true[m] / made[m]:.1%} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    ap.add_argument("--games", type=int, default=210)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--candidate", action="append", default=[], metavar="SPEC",
                    help="seat spec(s) to put first instead of the shipped default (repeatable)")
    ap.add_argument("--clue-precision", action="store_true",
                    help="count the opponent models' probable clues and how many were true, instead of the table")
    a = ap.parse_args()
    for n in a.players:
        if a.clue_precision:
            clue_precision(n, a.games, a.seed, a.candidate)
        else:
            table(n, a.games, a.workers, a.seed, a.candidate)


if __name__ == "__main__":
    main()
