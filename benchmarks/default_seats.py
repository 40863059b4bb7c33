"""The default seats' cost: games per second per core when every seat is the
default seat of its table (``simulate --players N`` with no strategy named),
at 3-6 players, where the time goes, and the same rows on a baseline
commit's code in the same run.

    python benchmarks/default_seats.py [--games 12] [--players 3 --players 6 ...] [--profile]
                                       [--baseline REF | --no-baseline] [--digest]

Times are CPU time of this process (``time.process_time``), the games played
one after another as ``simulate --workers 1`` plays them (``LocalExecutor``,
players reused from game to game), after two warm-up games, the compiled DP
loaded first (as a long run loads it after its first games: ``warm_kernels``).  ``--profile``
plays the rows again under cProfile and splits the time by where it is
spent (own time of each function, grouped by module): the exact beliefs
(the per-deal dynamic programme), the suggestion scoring, the library the
rules call (models, race risk, ...), the rule engine, the SAT step
(completion/backbone), the rest.  cProfile slows Python code by a roughly
constant factor, so the shares, not the seconds, are what it measures.

``--baseline REF`` (default :data:`BASELINE`, main before issue 36) runs this
same script on that commit's code (``git archive REF`` into a temporary
folder, this file copied in), so both are measured under the same load.
``--digest`` prints, per game, a digest of the events and every seat's
decisions instead (two commits printing the same lines play the same
games with the same decisions).
"""
from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import os
import pstats
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from clue_expert.play.game import play_game
from clue_expert.play.players import seat_player
from clue_expert.play.seats import default_seat_for
from clue_expert.play.simulate import LocalExecutor, make_specs

try:  # the compiled DP on from the start, as a long run has it after its first games
    from clue_expert.engine import warm_kernels
except ImportError:  # a commit before the kernels (run on its tree)
    def warm_kernels() -> bool:
        return False

#: main before issue 36 (the default seats as they were).
BASELINE = "ec4efb5"
ROOT = Path(__file__).resolve().parent.parent

#: (label, test on a profiled function's file and name), the first match wins.
GROUPS = (
    ("library (models, race risk, ...)", lambda f, n: "/engine/library/" in f),
    ("exact beliefs (the DP)", lambda f, n: f.endswith(("dp.py", "kernels.py")) or f.endswith("beliefs.py") and n in {
        "_advance", "_advance_chunk", "_marginals", "exact_marginals", "envelope", "_steps", "_closes", "compute",
        "__init__", "order", "layout", "transitions", "env", "tags", "final_ok", "__missing__", "same",
        "last", "field", "targets", "_chunks", "_tally", "_charge", "paused", "soft_clues", "_seen_shows",
        "envelope_contents", "_envelope_options", "_marginals_vector", "_step_targets", "_complete", "_env_ids",
        "_final_envelopes", "_run", "run_layers", "start_pass", "vector_final", "charge", "complete_states",
        "envelope_ids", "_forward_mixed", "_forward_plain", "_forward_vector", "_backward_plain", "_backward_vector",
        "_fixed_probabilities", "_allowed_owners", "_live_clauses", "_show_weights", "_envelope_needs",
        "_envelope_field", "_table_error", "_big", "score", "take", "_final_weight", "_check_envelopes",
        "check_exact", "_labelled_fits", "envelope_only", "estimate"}),
    ("suggestion scoring", lambda f, n: f.endswith(("beliefs.py", "scoring.py", "asking.py", "siebel.py"))),
    ("SAT step", lambda f, n: f.endswith(("completion.py", "backbone.py")) or "pysat" in f),
    ("rule engine", lambda f, n: "/engines/" in f or f.endswith(("language.py", "expr.py", "ir.py", "rules.py",
                                                                  "patterns.py", "decisions.py"))
     or "clips" in f or "experta" in f),
    ("knowledge & store", lambda f, n: f.endswith(("knowledge.py", "store.py", "justify.py", "interpret.py",
                                                   "premises.py", "queries.py", "ledger.py"))),
)


def specs_of(n: int, games: int, seed: int):
    return make_specs(players=n, games=games + 2, seed=seed, strategies=[default_seat_for(n)])


def play(specs) -> tuple[float, int]:
    """CPU seconds of the games after the first two (warm-up), and their rounds."""
    executor = LocalExecutor(1)
    for _ in executor.results(specs[:2]):
        pass
    t = time.process_time()
    rounds = 0
    for r, _record in executor.results(specs[2:]):
        rounds += r.win_round or 60
    return time.process_time() - t, rounds


def profile(specs) -> list[tuple[str, float]]:
    """Share of own time per group of :data:`GROUPS` (and ``other``): the
    time of a function outside the package (a builtin, numpy) goes to the
    groups of its callers, in proportion to the time it spent for each."""
    prof = cProfile.Profile(time.process_time)
    executor = LocalExecutor(1)
    for _ in executor.results(specs[:2]):
        pass
    prof.enable()
    for _ in executor.results(specs[2:]):
        pass
    prof.disable()
    stats = pstats.Stats(prof, stream=io.StringIO()).stats  # type: ignore[attr-defined]
    memo: dict = {}

    def shares(func, seen=()) -> dict:
        if func in memo:
            return memo[func]
        file, _line, name = func
        if "clue_expert" in file or func not in stats or func in seen:
            label = next((label for label, test in GROUPS if test(file, name)), "other")
            out = {label: 1.0}
        else:
            out = {}
            callers = stats[func][4]
            total = sum(edge[2] for edge in callers.values()) or 1.0
            for caller, edge in callers.items():
                for label, share in shares(caller, seen + (func,)).items():
                    out[label] = out.get(label, 0.0) + share * edge[2] / total
            out = out or {"other": 1.0}
        memo[func] = out
        return out
    totals: dict[str, float] = {label: 0.0 for label, _ in GROUPS}
    totals["other"] = 0.0
    for func, (_cc, _nc, tt, _ct, _callers) in stats.items():
        for label, share in shares(func).items():
            totals[label] += tt * share
    whole = sum(totals.values()) or 1.0
    return [(label, t / whole) for label, t in totals.items()]


def digests(n: int, games: int, seed: int):
    """``players game digest`` of each game: its events and every seat's decisions."""
    seats: dict = {}
    for spec in make_specs(players=n, games=games, seed=seed, strategies=[default_seat_for(n)]):
        players = {}
        for i, (p, strategy) in enumerate(zip(spec.deal.players, spec.strategies)):
            player = seats.get((p, strategy))
            if player is None:
                player = seats[(p, strategy)] = seat_player(p, strategy, spec.response, spec.accusation)
            player.rng.seed(spec.seed * 10 + i)
            players[p] = player
        result = play_game(spec.deal, players, max_rounds=spec.max_rounds, game=spec.game)
        lines = [repr(e) for e in result.events] + [repr((result.winner, result.win_round))]
        lines += [repr((t, c.kind, c.options, c.priority, c.rule, c.message))
                  for p in spec.deal.players for t, c in players[p].decisions]
        yield f"{n} {spec.index} {hashlib.sha1(chr(10).join(lines).encode()).hexdigest()[:16]}"


def run_baseline(ref: str, argv: list[str]) -> str:
    """This script run on commit ``ref``'s code: its output, or its error's last line."""
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        script = Path(tmp) / "benchmarks" / "default_seats_here.py"
        shutil.copy(__file__, script)
        out = subprocess.run([sys.executable, str(script), *argv], env={**os.environ, "PYTHONPATH": tmp},
                             cwd=tmp, capture_output=True, text=True)
    failed = f"(failed: {out.stderr.strip().splitlines()[-1]})\n" if out.returncode and out.stderr.strip() else ""
    return out.stdout + failed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=12, help="timed games per row (after two warm-up games)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, action="append", help="player counts (default 3-6)")
    ap.add_argument("--profile", action="store_true", help="also split the time by where it goes")
    ap.add_argument("--digest", action="store_true", help="print the games' decision digests instead")
    ap.add_argument("--baseline", default=BASELINE, metavar="REF",
                    help=f"also run this commit's code in the same run (default {BASELINE})")
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    warm_kernels()
    sizes = args.players or (3, 4, 5, 6)
    if args.digest:
        for n in sizes:
            for line in digests(n, args.games, args.seed):
                print(line, flush=True)
        return
    print(f"one process, CPU time, {args.games} games per row, every seat the table's default seat")
    print(f"{'players':>7} {'games/s':>8} {'s/game':>8} {'rounds/game':>11}")
    for n in sizes:
        dt, rounds = play(specs_of(n, args.games, args.seed))
        print(f"{n:>7} {args.games / dt:>8.2f} {dt / args.games:>8.3f} {rounds / args.games:>11.1f}", flush=True)
    if args.profile:
        for n in sizes:
            shares = profile(specs_of(n, args.games, args.seed))
            print(f"\nwhere the time goes at {n} players (cProfile, own time): "
                  + ", ".join(f"{label} {100 * s:.0f} %" for label, s in shares))
    if not args.no_baseline:
        argv = ["--games", str(args.games), "--seed", str(args.seed), "--no-baseline"]
        argv += [a for n in args.players or () for a in ("--players", str(n))]
        argv += ["--profile"] if args.profile else []
        print(f"\nbaseline: the same rows on {args.baseline}'s code, in this run")
        print(run_baseline(args.baseline, argv), end="")


if __name__ == "__main__":
    main()
