"""The information players against the built-in strategies (issue 5's targets).

    python benchmarks/strategies.py [--games 300] [--games-6p 120] [--envelopes 36] [--workers 2]
                                    [--players 3 4 5 6] [--skip-kingston] [--skip-tournaments]

1. Kingston's deals: rounds until some player can name the envelope, every
   seat the same strategy (deals 1-5 and ``--envelopes`` envelope variants of
   deal 1, 3 and 6 players), for Kingston's Next-not-held and our strategies,
   with the reduction against Next-not-held (target: at least 25 %).
2. Mixed tournaments on random deals: every built-in strategy family seated
   together, seats rotated across games; win rate per strategy with 95 %
   Wilson intervals (target: the information player highest).
3. ``--models``: how often the opponent models' probable clues are true (in
   records of mixed games, checked against the true deal), and what the
   models, the probable-clues accusation and the seen-model response are
   worth to a player (the same strategy with and without them, seated
   together).
"""
from __future__ import annotations

import argparse
import os
import time

from clue_expert.play.reproduce import kingston
from clue_expert.play.simulate import make_specs, run_games, summarize

OURS = ["clue-expert-open-information-gain", "clue-expert-information-gain", "clue-expert-focused"]
FIELD = ["kingston-next-not-held", "mitchell-fixed", "mitchell-advanced"]


def kingston_part(envelopes: int, workers: int) -> None:
    t = time.perf_counter()
    # every seat deduces completely (the level of our players); 'all' is the
    # reproduction's unbiased sample (stratified when a multiple of 36)
    # one seed: these strategies are deterministic on a deal (each cell is then one game, 'all' one sample)
    tables = kingston(envelopes=envelopes, workers=workers, extra=tuple(OURS), knowledge="complete", beside=None,
                      seeds=1, calibrated=False)
    print(f"Kingston's deals (a sample of {envelopes} envelope variants of deal 1 in 'all', complete deduction; "
          f"{time.perf_counter() - t:.0f} s)")
    for table in tables:
        rows = dict(table.rows)
        base = rows["kingston-next-not-held"]
        print(f"  {table.title.split(':')[0]}")
        print(f"    {'strategy':<36}" + "".join(f"{c:>8}" for c in table.columns) + f"{'vs NNH':>9}")
        for name in ["kingston-next-not-held", *OURS]:
            cells = [o.mean for _, o in rows[name]]
            ours_all, nnh_all = cells[-1], base[-1][1].mean
            red = "" if name == "kingston-next-not-held" else f"{100 * (1 - ours_all / nnh_all):8.1f}%"
            print(f"    {name:<36}" + "".join(f"{c:>8}" for c in cells) + f"{red:>9}")
        pub = base[-1][0]
        print(f"    (Kingston's published Next-not-held 'all': {pub})")


def tournament_part(players: list, games: int, games_6p: int, workers: int) -> None:
    strategies = OURS + FIELD
    for n in players:
        g = games_6p if n >= 5 else games
        t = time.perf_counter()
        results = run_games(make_specs(players=n, games=g, seed=40 + n, strategies=strategies), workers)
        s = summarize(results)
        print(f"Mixed tournament, {n} players, {g} random deals, seats rotated "
              f"({time.perf_counter() - t:.0f} s; wrong accusations {s['wrong_accusations']})")
        ranked = sorted(s["strategies"].items(), key=lambda kv: -kv[1]["win_rate"])
        for name, v in ranked:
            lo, hi = v["ci95"]
            print(f"    {name:<36} {v['seats']:>5} seat-games  {100 * v['win_rate']:5.1f} %  "
                  f"({100 * lo:4.1f}-{100 * hi:4.1f})")


def models_part(players: list, games: int, workers: int) -> None:
    import tempfile
    from pathlib import Path

    from clue_expert.play.players import load_decisions
    from clue_expert.core.records import load_record
    from clue_expert.engine.seat.knowledge import replay_record as replay
    from clue_expert.engine.language.rules import default_rulesets

    models = [load_decisions("model", m) for m in ("first-round-asks", "pattern-analysis")]
    for n in players:
        with tempfile.TemporaryDirectory() as tmp:
            mix = FIELD + ["clue-expert-focused", "kingston-no-intelligence", "mitchell-basic"]
            run_games(make_specs(players=n, games=games, seed=70 + n, strategies=mix, records=tmp),
                      workers)
            tally = {}
            for path in sorted(Path(tmp).glob("*.yaml")):
                record = load_record(path)
                k = replay(record, rulesets=[*default_rulesets(), *models])
                for (kind, owner, card), j in k.probable.items():
                    truth = record.deal.owner_of(card) == owner
                    ok = truth if kind == "probably-held" else not truth
                    t = tally.setdefault(j.rule, [0, 0])
                    t[0] += ok
                    t[1] += 1
        print(f"Probable clues, {n} players, {games} mixed games (one seat's record each):")
        for rule, (ok, total) in sorted(tally.items()):
            print(f"    {rule:<48} {total:>6} clues  {100 * ok / total:5.1f} % true")
        spec = "clue-expert-focused:model=first-round-asks:model=pattern-analysis:accusation=probable-clues"
        variants = [spec, spec.replace(":accusation=probable-clues", "") + ":response=seen-model",
                    "clue-expert-focused"]
        s = summarize(run_games(make_specs(players=n, games=games, seed=80 + n, strategies=variants), workers))
        print(f"  with and without the models, {n} players, {games} games "
              f"(wrong accusations {s['wrong_accusations']}):")
        for name, v in sorted(s["strategies"].items(), key=lambda kv: -kv[1]["win_rate"]):
            lo, hi = v["ci95"]
            print(f"    {name:<90} {100 * v['win_rate']:5.1f} % ({100 * lo:4.1f}-{100 * hi:4.1f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=300, help="games per tournament with 3-4 players")
    ap.add_argument("--games-6p", type=int, default=120, help="games per tournament with 5-6 players")
    ap.add_argument("--envelopes", type=int, default=36)
    ap.add_argument("--players", type=int, nargs="+", default=[3, 4, 6])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--skip-kingston", action="store_true")
    ap.add_argument("--skip-tournaments", action="store_true")
    ap.add_argument("--models", action="store_true", help="also measure the opponent models")
    args = ap.parse_args()
    if not args.skip_kingston:
        kingston_part(args.envelopes, args.workers)
    if not args.skip_tournaments:
        tournament_part(args.players, args.games, args.games_6p, args.workers)
    if args.models:
        models_part([p for p in args.players if p <= 4], args.games, args.workers)


if __name__ == "__main__":
    main()
