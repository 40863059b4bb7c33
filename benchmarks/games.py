"""Game throughput: games per second per core, every seat rule-based with
complete deduction (the rules + SAT case analysis), for 3-6 players, on each
rule engine side by side (``--engine``, default experta and clips), then a
6-player tournament with the information players.

    python benchmarks/games.py [--games 60] [--strategy clue-expert-focused] [--tournament 12]
                               [--engine experta --engine clips] [--baseline REF | --no-baseline]

``--baseline REF`` (default :data:`BASELINE`, main before issue 24: one
dispatch rule per fact kind, no engine choice) plays the same rows with that
commit's code, in the same run (``git archive REF`` into a temporary folder,
its own ``benchmarks/games.py`` run there), so both are measured under the
same load.

Times are CPU time of this process (``time.process_time``): on a shared
machine wall time measures the neighbours.  One process plays the games one
after another, as ``simulate --workers 1`` does (players reused from game to
game, the same garbage-collector policy).  The tournament row plays ``--tournament`` 6-player games seated in
rotation from the information players and four rule-based ones, and
extrapolates to 1,000 games on two cores (``simulate --workers 2``: the games
are independent, so two workers play twice as many per second).
"""
from __future__ import annotations

import argparse
import time

from baseline import BASELINE, run_baseline
from clue_expert.engine.engines import ENGINE_NAMES
from clue_expert.play.simulate import LocalExecutor, make_specs

TOURNAMENT = ("clue-expert-information-gain", "clue-expert-open-information-gain", "clue-expert-focused",
              "kingston-next-not-held", "mitchell-advanced", "kingston-next-possible")


def play(specs, n: int) -> tuple[float, int]:
    """CPU seconds for the games after the first two (warm-up: the engines
    are built once, as in a long simulation), and their turns.  The games
    run as ``simulate --workers 1`` runs them (``LocalExecutor``: in this
    process, under the same garbage-collector policy)."""
    executor = LocalExecutor(1)
    for _ in executor.results(specs[:2]):
        pass
    t = time.process_time()
    turns = 0
    for r, _record in executor.results(specs[2:]):
        turns += (r.win_round or 60) * n
    return time.process_time() - t, turns


def on_engine(strategies, engine: str | None) -> list[str]:
    """The seat specs with ``engine=`` added (None: as given, for the baseline's code)."""
    return list(strategies) if engine is None else [f"{s}:engine={engine}" for s in strategies]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--strategy", action="append")
    ap.add_argument("--players", type=int, action="append", help="player counts (default 3-6)")
    ap.add_argument("--tournament", type=int, default=12,
                    help="6-player games with the information players (0: skip)")
    ap.add_argument("--engine", action="append", choices=ENGINE_NAMES,
                    help="rule engines, a row each (default: all)")
    ap.add_argument("--baseline", default=BASELINE, metavar="REF",
                    help=f"also run this commit's code in the same run (default {BASELINE}: main before issue 24)")
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    strategies = args.strategy or ["clue-expert-focused", "kingston-next-not-held", "mitchell-advanced"]
    engines = args.engine or list(ENGINE_NAMES)
    print(f"one process, CPU time, {args.games} random games per row, strategies {', '.join(strategies)}")
    print(f"{'players':>7} {'engine':>8} {'games/s':>8} {'ms/game':>8} {'turns/game':>10} {'ms/observation/seat':>20}")
    for n in args.players or (3, 4, 5, 6):
        for engine in engines:
            specs = make_specs(players=n, games=args.games + 2, seed=args.seed,
                               strategies=on_engine(strategies, engine))
            dt, turns = play(specs, n)
            per_game = dt / args.games
            print(f"{n:>7} {engine:>8} {1 / per_game:>8.1f} {1000 * per_game:>8.1f} {turns / args.games:>10.1f} "
                  f"{1000 * dt / (turns * n):>20.3f}")
    if args.tournament:
        for engine in engines:
            specs = make_specs(players=6, games=args.tournament + 2, seed=args.seed,
                               strategies=on_engine(TOURNAMENT, engine))
            dt, _ = play(specs, 6)
            rate = args.tournament / dt
            print(f"\n6-player tournament on {engine}, {args.tournament} games, strategies {', '.join(TOURNAMENT)}")
            print(f"{rate:.2f} games/s per core: 1,000 games take about {1000 / rate / 60:.0f} min on one core, "
                  f"{1000 / rate / 2 / 60:.0f} min with --workers 2")
    if not args.no_baseline:
        argv = ["--games", str(args.games), "--seed", str(args.seed), "--tournament", str(args.tournament)]
        for s in args.strategy or ():
            argv += ["--strategy", s]
        for n in args.players or ():
            argv += ["--players", str(n)]
        print(f"\nbaseline: the same rows on {args.baseline}'s code, in this run")
        engines = tuple(["--engine", e] for e in args.engine or ())
        print(run_baseline(args.baseline, "games.py", argv, engines), end="")


if __name__ == "__main__":
    main()
