"""Another commit's code against this tree's in one process, game for game:
on a machine shared with other jobs, two runs made one after the other
measure the load as much as the code.

    python benchmarks/interleaved.py [REF] [--games 100] [--players 6] [--rounds 1]

REF's package (``git archive``, default ``main``) and this tree's are copied
into a temporary folder under two names (the package imports itself only
relatively), beside REF's data folders (rules, editions: both run REF's
rule files).  A child process plays the seeded games of
``benchmarks/games.py`` (its three strategies, every seat on clips) with
both, alternating game by game after two untimed games each, and prints the
CPU time of each.  In one process the package loaded second ran slower --
about 20 % at three players, main against a copy of itself -- so each round
runs twice, REF's package loaded first and then second, and the figure is
the geometric mean of the two orders' ratios, which that bias cancels.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import io
import math
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STRATEGIES = ("clue-expert-focused", "kingston-next-not-held", "mitchell-advanced")


def child(folder: str, names: list[str], games: int, players: int) -> None:
    """Play the games with the packages ``names`` (loaded in that order) from ``folder``; print ms a game of each."""
    sys.path.insert(0, folder)
    mods = [importlib.import_module(f"{name}.play.simulate") for name in names]
    specs = [m.make_specs(players=players, games=games + 2, seed=1,
                          strategies=[f"{s}:engine=clips" for s in STRATEGIES]) for m in mods]
    # one game: play_one (its name since the engine's house) or _play (the baseline's)
    plays = [getattr(m, "play_one", None) or m._play for m in mods]
    for play, s in zip(plays, specs):  # warm-up: each seat's rules built
        for spec in s[:2]:
            play(spec)
    gc.collect()
    spent = [0.0] * len(mods)
    with mods[0].games_collector():
        for i in range(games):
            for j in (range(len(mods)) if i % 2 == 0 else reversed(range(len(mods)))):
                t = time.process_time()
                plays[j](specs[j][i + 2])
                spent[j] += time.process_time() - t
    print(" ".join(f"{1000 * t / games:.3f}" for t in spent))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ref", nargs="?", default="main")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1:], args.games, args.players)
        return
    archive = subprocess.run(["git", "archive", args.ref], cwd=ROOT, capture_output=True, check=True).stdout
    print(f"{args.players} players, {args.games} games a package and order, CPU ms a game (clue_ref: {args.ref}, "
          f"clue_here: this tree)")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        (Path(tmp) / "clue_expert").rename(Path(tmp) / "clue_ref")
        shutil.copytree(ROOT / "clue_expert", Path(tmp) / "clue_here",
                        ignore=shutil.ignore_patterns("__pycache__"))
        for _ in range(args.rounds):
            for names in (["clue_ref", "clue_here"], ["clue_here", "clue_ref"]):
                out = subprocess.run([sys.executable, __file__, "--child", tmp, *names, "--games", str(args.games),
                                      "--players", str(args.players)], cwd=tmp, capture_output=True, text=True,
                                     check=True).stdout.split()
                ms = dict(zip(names, map(float, out)))
                ratios.append(ms["clue_here"] / ms["clue_ref"])
                print(f"loaded first {names[0]:>9}: clue_ref {ms['clue_ref']:7.2f}  clue_here {ms['clue_here']:7.2f}"
                      f"  here/ref {ratios[-1]:.3f}")
    mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"geometric mean of here/ref: {mean:.3f} ({100 * (1 / mean - 1):+.1f} % games a second)")


if __name__ == "__main__":
    main()
