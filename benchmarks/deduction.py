"""Deduction benchmark: completeness vs an independent oracle, time per
observation and per record, for the full deduction (the rules + SAT case
analysis) on each rule engine side by side (``--engine``, default experta and
clips) and for the SAT backbone alone, in one run; then the same rows on the
baseline commit's code (``--baseline REF``, default main before issue 24),
in the same run.

    python benchmarks/deduction.py [--records 200] [--turns 30] [--seed 1] [--no-oracle]
                                   [--engine experta --engine clips] [--baseline REF | --no-baseline]
"""
from __future__ import annotations

import argparse
import statistics
import time

from baseline import BASELINE, run_baseline
from clue_expert.engine.reasoning.backbone import SatModel
from clue_expert.engine.engines import ENGINE_NAMES
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.testing.oracle import cnf_entailed
from clue_expert.testing.randomgame import random_records
from clue_expert.core.observations import Accusation, DealtHand


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


ENGINES: dict = {}


def engine_run(record, oracle: bool, engine: str):
    """One record through the full deduction on ``engine``; seats are reused per
    seating and engine (Knowledge.new_game resets the rule engine instead of rebuilding it)."""
    times, missing, extra, total = [], 0, 0, 0
    t0 = time.perf_counter()
    k = ENGINES.get((record.players, engine))
    if k is None:
        k = ENGINES[record.players, engine] = Knowledge(record.edition, record.players, record.me,
                                                        record.hand_sizes, engine=engine)
    else:
        k.new_game(record.me, record.hand_sizes)
    t = time.perf_counter()
    k.observe(DealtHand(k.me, tuple(record.hand)))
    times.append(time.perf_counter() - t)
    checks = []
    for n, turn in enumerate(record.turns, start=1):
        t = time.perf_counter()
        k.observe(turn, n)
        times.append(time.perf_counter() - t)
        if oracle:
            checks.append((n, {(o, c): s for o in k.owners for c in record.edition.card_ids
                               if (s := k.status(o, c)) != "unknown"}))
    whole = time.perf_counter() - t0
    for n, facts in checks:
        expected = cnf_entailed(record, n)
        missing += len(set(expected.items()) - set(facts.items()))
        extra += len(set(facts.items()) - set(expected.items()))
        total += len(expected)
    return times, whole, missing, extra, total


def sat_only_run(record):
    """The same observations through the SAT backbone alone (no rules)."""
    times = []
    t0 = time.perf_counter()
    ed = record.edition
    owners = list(record.players) + ["envelope"]
    sat = SatModel(owners, ed.card_ids, {c: ed.category_cards(c) for c in ed.categories},
                   record.hand_sizes, "envelope", ed.envelope_counts)
    known: set = set()
    assumptions: list = []

    def backbone():
        cands = [sat.var(o, c) for o in owners for c in ed.card_ids if sat.var(o, c) not in known
                 and -sat.var(o, c) not in known]
        for lit, _core in sat.backbone(assumptions + sorted(known), cands):
            known.add(lit)

    t = time.perf_counter()
    known.update(sat.var(record.me, c) for c in record.hand)
    backbone()
    times.append(time.perf_counter() - t)
    for turn in record.turns:
        t = time.perf_counter()
        if isinstance(turn, Accusation):
            if turn.correct:
                known.update(sat.var("envelope", c) for c in turn.cards)
            else:
                assumptions.append(sat.add_clause_fact(("na",), [-sat.var("envelope", c) for c in turn.cards]))
        else:
            known.update(-sat.var(p, c) for p in turn.passed for c in turn.cards)
            if turn.shown_by is not None:
                if turn.card is not None:
                    known.add(sat.var(turn.shown_by, turn.card))
                else:
                    assumptions.append(sat.add_clause_fact(("oo",), [sat.var(turn.shown_by, c) for c in turn.cards]))
        backbone()
        times.append(time.perf_counter() - t)
    return times, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=200)
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-oracle", action="store_true", help="skip the completeness check")
    ap.add_argument("--engine", action="append", choices=ENGINE_NAMES, help="rule engines, a row each (default: all)")
    ap.add_argument("--baseline", default=BASELINE, metavar="REF",
                    help=f"also run this commit's code in the same run (default {BASELINE}: main before issue 24)")
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    engines = args.engine or list(ENGINE_NAMES)
    print(f"{args.records} seeded random records per player count, {args.turns} turns each, seed {args.seed}")
    print(f"{'players':>7} {'engine':>8} {'complete':>9} {'false':>5} | {'engine obs median':>17} {'p95':>7} "
          f"{'record mean':>11} | {'SAT obs median':>14} {'p95':>7} {'record mean':>11} | {'ratio':>5}")
    for players in (3, 4, 5, 6):
        records = list(random_records(args.seed * 100 + players, args.records, players, args.turns))
        s_obs, s_rec = [], []
        for record in records:
            st, sw = sat_only_run(record)
            s_obs += st
            s_rec.append(sw)
        for engine in engines:
            e_obs, e_rec = [], []
            missing = extra = total = 0
            for record in records:
                times, whole, m, x, tot = engine_run(record, not args.no_oracle, engine)
                e_obs += times
                e_rec.append(whole)
                missing, extra, total = missing + m, extra + x, total + tot
            complete = "n/a" if args.no_oracle else f"{100 * (total - missing) / max(total, 1):.3f}%"
            ms = 1000
            print(f"{players:>7} {engine:>8} {complete:>9} {extra:>5} | {statistics.median(e_obs) * ms:>14.2f} ms "
                  f"{pct(e_obs, 95) * ms:>7.2f} {statistics.mean(e_rec) * ms:>8.1f} ms | "
                  f"{statistics.median(s_obs) * ms:>11.2f} ms {pct(s_obs, 95) * ms:>7.2f} "
                  f"{statistics.mean(s_rec) * ms:>8.1f} ms | {statistics.mean(e_rec) / statistics.mean(s_rec):>5.2f}")
    if not args.no_baseline:
        argv = ["--records", str(args.records), "--turns", str(args.turns), "--seed", str(args.seed)]
        if args.no_oracle:
            argv.append("--no-oracle")
        print(f"\nbaseline: the same rows on {args.baseline}'s code, in this run")
        engines = tuple(["--engine", e] for e in args.engine or ())
        print(run_baseline(args.baseline, "deduction.py", argv, engines), end="")


if __name__ == "__main__":
    main()
