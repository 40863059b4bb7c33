"""The strongest player at every table size (issue 17): the default seat of
``clue_expert/seats/speed-clue.yaml`` against every shipped player family.

    python benchmarks/strongest.py [--players 3 4 5 6] [--games 210] [--workers 2] [--seed 23]
                                   [--candidate SPEC ...] [--clue-precision]
                                   [--field our|outside|mixed|all] [--table NAME ...]

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

``--field outside|mixed`` (issue 26) plays the default seat (or each
``--candidate``) against a field that is not our own instead:

* ``outside``: for every family of :data:`OUTSIDE` (the stand-ins
  ``rules/strategies/outside-*.yaml`` -- a bluffer, a random asker, a
  repeater --, a Next-not-held seat that accuses at a fixed 60 %, and
  Kingston's, Mitchell's and group 1's and group 7's players as shipped)
  one table of ``--games`` games, the candidate with ``players - 1`` seats
  of that family; then ``--games`` games against the mix, each of the other
  seats drawn at random from the families;
* ``mixed``: ``--games`` games against a mix drawn from the outside
  families and our own :data:`FIELD` together;
* ``all``: the tables of ``outside``, then the one of ``mixed``: every
  figure the issue's "done when" asks for, in one run.

The seats are seated in a seeded random order, the deals and draws seeded
from ``--seed`` and the game number, so every candidate meets the same
deals and opponents.  Per size and candidate it prints, per table, the
candidate's win rate and the best opposing seat spec's win rate per seat
(with its seat-games: in a mix that is the best of many specs seated a few
times each, a noisy maximum) with their 95 % Wilson intervals, whether the
candidate is first ("behind, intervals overlap" is a statistical tie), then the
candidate's accusations (at certainty and guesses), how many were wrong,
and the longest single call to the seat (a suggestion, an accusation
offer, a card to show or an event to take in: its deduction and beliefs),
in CPU seconds of its process (with that call's wall time beside it: on a
shared machine the wall time grows with the load).  (The contest's own reply time,
which covers a whole exchange with the server, is measured by
``benchmarks/contest_replies.py``.)
"""
from __future__ import annotations

import argparse
import random
import time

from collections import Counter

from clue_expert.play.game import play_game
from clue_expert.play.players import parse_seat, seat_player
from clue_expert.play.seats import default_seat, seat_spec
from clue_expert.core.deals import random_deal
from clue_expert.core.cards import get_edition
from clue_expert.play.simulate import hash_seed, make_specs, run_games, summarize, wilson
from pool import run_jobs

FIELD = [
    "kingston-next-not-held",
    "mitchell-advanced",
    "clue-expert-focused",
    "clue-expert-information-gain",
    "clue-expert-open-information-gain",
    "clue-expert-open-information-gain:response=seen-model:model=first-round-asks",
]


#: The families of the field that is not our own (issue 26): name -> seat spec.  The first four are
#: stand-ins written from the issue's description of the contest's outside players.
OUTSIDE = {
    "bluffer": "outside-bluffer",
    "random asker": "outside-random-asker",
    "repeater": "outside-repeater",
    "threshold 60 %": "kingston-next-not-held:accusation=outside-threshold-60",
    "Kingston": "kingston-next-not-held",
    "Mitchell": "mitchell-advanced",
    "group 1": "mitchell-advanced:response=group1-disclosed-first:model=first-round-asks:accusation=threshold-95",
    "group 7": "kingston-next-not-held:response=group7-history:model=pattern-analysis:accusation=probable-clues",
}


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
        for player in seats.values():
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


_SEATS: dict = {}


def _timed(player, times: list) -> None:
    """Wrap the player's calls so that each one's wall time goes to ``times``."""
    for name in ("suggest", "accuse", "disprove", "observe"):
        fn = getattr(type(player), name)

        def call(*args, _fn=fn, **kw):
            t, c = time.perf_counter(), time.process_time()
            try:
                return _fn(player, *args, **kw)
            finally:
                times.append((time.process_time() - c, time.perf_counter() - t))
        setattr(player, name, call)


def play_one(job: tuple) -> dict:
    """One game: ``(index, seed, players, seats)`` with ``seats`` the seat specs in seat order, the
    candidate's seat first in the list's ``"cand"`` position.  Returns the winner's spec index, and
    the candidate's accusations, guesses, wrong accusations and longest call."""
    index, seed, players, seats, cand = job
    names = tuple(f"player{i + 1}" for i in range(players))
    deal = random_deal(get_edition("cluedo"), names, random.Random(f"{seed}:deal:{index}"))
    gseed = hash_seed(seed, index)
    times: list = []
    made = {"accusations": 0, "guesses": 0}
    seated = {}
    for i, (p, spec) in enumerate(zip(names, seats)):
        key = (p, spec)
        player = _SEATS.get(key)
        if player is None:
            player = _SEATS[key] = seat_player(p, spec)
        player.rng.seed(gseed * 10 + i)
        seated[p] = player
    me = names[cand]
    player = seated[me]
    _timed(player, times)
    accuse = player.accuse

    def counting(turn, _accuse=accuse):
        sure = player.knowledge.solved()
        out = _accuse(turn)
        if out is not None:
            made["accusations"] += 1
            made["guesses"] += not sure
        return out
    player.accuse = counting
    try:
        result = play_game(deal, seated)
    finally:
        for name in ("suggest", "accuse", "disprove", "observe"):
            player.__dict__.pop(name, None)
    return {"winner": None if result.winner is None else names.index(result.winner), "seats": seats,
            "wrong": sum(1 for by, _ in result.wrong_accusations if by == me), "cand": cand,
            "longest": max(times, default=(0.0, 0.0)), **made}


def _jobs(players: int, games: int, seed: int, cand: str, draw) -> list:
    """Games of one table: ``draw(rng)`` gives the other seats; the seat order is shuffled (seeded)."""
    jobs = []
    for g in range(games):
        rng = random.Random(f"{seed}:field:{g}")
        seats = [cand] + list(draw(rng))
        order = list(range(players))
        rng.shuffle(order)
        jobs.append((g, seed, players, tuple(seats[j] for j in order), order.index(0)))
    return jobs


def _run(jobs: list, workers: int) -> list:
    return run_jobs(play_one, jobs, workers)


def field_tables(players: int, games: int, workers: int, seed: int, candidates: list[str], field: str,
                 only: list[str] | None = None, every_seat: bool = False) -> None:
    """The candidates against the field that is not our own (``outside``), family by family and mixed,
    or against the outside families and our own together (``mixed``); with ``every_seat``, each table's
    every seat spec's win rate per seat after it."""
    cands = candidates or [default_seat(players)]
    ours = [s for s in FIELD if seat_spec(parse_seat(s)) not in {seat_spec(parse_seat(c)) for c in cands}]
    tables = []
    if field in ("outside", "all"):
        tables += [(name, lambda rng, s=spec: [s] * (players - 1)) for name, spec in OUTSIDE.items()]
        pool = list(OUTSIDE.values())
        tables.append(("outside mix", lambda rng: [rng.choice(pool) for _ in range(players - 1)]))
    if field in ("mixed", "all"):
        mixed = list(OUTSIDE.values()) + ours
        tables.append(("mixed field (outside + ours)", lambda rng: [rng.choice(mixed) for _ in range(players - 1)]))
    if only:
        unknown = [t for t in only if t not in [label for label, _ in tables]]
        if unknown:
            raise SystemExit(f"unknown table(s) {unknown}: choose from {[label for label, _ in tables]}")
        tables = [(label, draw) for label, draw in tables if label in only]
    name_of = {spec: name for name, spec in OUTSIDE.items()}
    for cand in cands:
        t = time.perf_counter()
        print(f"\n{players} players, seed {seed}, {games} games per table: `{cand}`")
        print("| table | candidate's win rate | 95 % interval | best other seat | its seat-games | its win rate per seat | "
              "95 % interval | first? |")
        print("| --- | ---: | --- | --- | ---: | ---: | --- | --- |")
        acc = guess = wrong = 0
        longest = (0.0, 0.0)
        every: list = []
        for label, draw in tables:
            results = _run(_jobs(players, games, seed, cand, draw), workers)
            wins = sum(1 for r in results if r["winner"] == r["cand"])
            seats: dict = {}
            won: dict = {}
            for r in results:
                for i, s in enumerate(r["seats"]):
                    if i == r["cand"]:
                        continue
                    seats[s] = seats.get(s, 0) + 1
                    won[s] = won.get(s, 0) + (r["winner"] == i)
                acc += r["accusations"]
                guess += r["guesses"]
                wrong += r["wrong"]
                longest = max(longest, tuple(r["longest"]))
            lo, hi = wilson(wins, games)
            best = max(seats, key=lambda s: won[s] / seats[s])
            b = won[best] / seats[best]
            blo, bhi = wilson(won[best], seats[best])
            verdict = ("first, intervals apart" if lo > bhi else "first" if wins / games > b
                       else "tied" if wins / games == b else "behind, intervals apart" if hi < blo
                       else "behind, intervals overlap")
            print(f"| {label} | {wins / games:.1%} | {lo:.1%}–{hi:.1%} | {name_of.get(best, best)} | {seats[best]} | {b:.1%} | "
                  f"{blo:.1%}–{bhi:.1%} | {verdict} |")
            if every_seat:
                every.append((label, wins, games, seats, won))
        for label, wins, n, seats, won in every:
            print(f"\nevery seat spec at the table '{label}' (the candidate first, then by win rate per seat):")
            print("| seat spec | seat-games | wins | win rate | 95 % interval |")
            print("| --- | ---: | ---: | ---: | --- |")
            lo, hi = wilson(wins, n)
            print(f"| the candidate | {n} | {wins} | {wins / n:.1%} | {lo:.1%}–{hi:.1%} |")
            for s in sorted(seats, key=lambda s: -won[s] / seats[s]):
                lo, hi = wilson(won[s], seats[s])
                print(f"| {name_of.get(s, s)} | {seats[s]} | {won[s]} | {won[s] / seats[s]:.1%} | {lo:.1%}–{hi:.1%} |")
        rate = f"{wrong / acc:.1%}" if acc else "n/a"
        print(f"accusations {acc} ({guess} before certainty), wrong {wrong} ({rate}); longest call {longest[0]:.2f} s "
              f"CPU ({longest[1]:.2f} s wall); "
              f"{time.perf_counter() - t:.0f} s on {workers} worker(s)")


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
    ap.add_argument("--field", choices=["our", "outside", "mixed", "all"], default="our",
                    help="our: the shipped field (the table above); outside: each outside family and their mix; "
                         "mixed: the outside families and ours together; all: the outside tables, then the mixed one")
    ap.add_argument("--table", action="append", default=[], metavar="NAME",
                    help="with --field outside|all: play only this table (a family's name, 'outside mix' or "
                         "'mixed field (outside + ours)'; repeatable)")
    ap.add_argument("--every-seat", action="store_true",
                    help="with --field: after the tables, every seat spec's seat-games and win rate per seat, with "
                         "its 95 %% interval (not only the best other one)")
    a = ap.parse_args()
    for n in a.players:
        if a.field != "our" and not a.clue_precision:
            field_tables(n, a.games, a.workers, a.seed, a.candidate, a.field, a.table, a.every_seat)
        elif a.clue_precision:
            clue_precision(n, a.games, a.seed, a.candidate)
        else:
            table(n, a.games, a.workers, a.seed, a.candidate)


if __name__ == "__main__":
    main()
