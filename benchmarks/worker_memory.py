"""A worker's peak resident size over a long run of games, and the parent's.

    python benchmarks/worker_memory.py [--games 600] [--players 4] [--workers 2]
        [--strategy clue-expert-information-gain --strategy mitchell-basic ...] [--edition cluedo]
        [--cluster local]

Runs ``clue-expert simulate`` in a child process and samples, every 0.2 s,
the resident size (VmRSS in /proc) of the simulate process and of each of
its pool workers; prints the peak of each, how many worker processes played
(the pool replaces a worker after ``simulate.GAMES_PER_WORKER`` games) and
the bound docs/performance.md states.  With ``--cluster local`` the games
run on a Dask ``LocalCluster`` of ``--workers`` processes (the nanny and
worker processes are the simulate process's descendants; each is sampled;
a cluster worker drops its cached players every
``simulate.GAMES_PER_WORKER`` games).  Linux only (/proc).

    python benchmarks/worker_memory.py --sweep FILE.yaml --seconds 240 [--workers 2]

runs ``clue-expert sweep FILE --workers N --quiet`` instead, prints every
15 s the cells finished and the resident size of the sweep process and of
each worker, and stops it with SIGINT after ``--seconds`` (the 9,000-cell
sweep of docs/performance.md: ``python benchmarks/audit.py --only
sweep-9000-cells --keep DIR`` writes it as ``DIR/sweep-9000-cells/cells.yaml``).
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import tempfile
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def rss_mb(pid: int) -> float | None:
    """VmRSS of ``pid`` in MB (None when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (a Dask cluster's nannies start the workers)."""
    out, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        out += kids
        todo += kids
    return out


def children(pid: int) -> list[int]:
    """The child processes of every thread of ``pid`` (the pool starts replacement workers from a thread)."""
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--edition", default="cluedo")
    ap.add_argument("--strategy", action="append")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--cluster", help="run on a Dask cluster (local: a LocalCluster of --workers processes)")
    ap.add_argument("--sweep", help="run this sweep file instead of simulate")
    ap.add_argument("--seconds", type=float, default=240.0, help="with --sweep: stop it after this long")
    args = ap.parse_args()
    if args.sweep:
        sweep_memory(args.sweep, args.workers, args.seconds)
        return
    strategies = args.strategy or ["clue-expert-information-gain", "mitchell-basic", "kingston-deduction"]
    cmd = [sys.executable, "-m", "clue_expert", "simulate", "--games", str(args.games), "--players",
           str(args.players), "--workers", str(args.workers), "--edition", args.edition, "--seed", str(args.seed),
           "--json"]
    for s in strategies:
        cmd += ["--strategy", s]
    if args.cluster:
        cmd += ["--cluster", args.cluster]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    parent_peak = 0.0
    worker_peak: dict[int, float] = {}
    while proc.poll() is None:
        size = rss_mb(proc.pid)
        if size:
            parent_peak = max(parent_peak, size)
        for child in descendants(proc.pid):
            size = rss_mb(child)
            if size:
                worker_peak[child] = max(worker_peak.get(child, 0.0), size)
        time.sleep(0.2)
    out, err = proc.communicate()
    wall = time.monotonic() - started
    if proc.returncode != 0:
        print(err, file=sys.stderr)
        raise SystemExit(proc.returncode)
    where = f"Dask cluster {args.cluster}" if args.cluster else "process pool"
    print(f"{args.games} games, {args.players} players, {args.workers} workers ({where}), {args.edition}, "
          f"strategies {', '.join(strategies)}: {wall:.0f} s")
    print(f"  simulate process peak: {parent_peak:.0f} MB")
    peaks = sorted(worker_peak.values())
    if peaks:
        print(f"  worker processes seen: {len(peaks)}; peak per worker: max {peaks[-1]:.0f} MB, "
              f"median {peaks[len(peaks) // 2]:.0f} MB")
    print("  bound stated in docs/performance.md: a worker's peak under 1 GB (the exact beliefs' table is "
          "at most 2,000,000 entries a pass; a worker plays 200 games, then is replaced)")


def sweep_memory(sweep: str, workers: int, seconds: float) -> None:
    """The sweep process's and its workers' resident sizes every 15 s over ``seconds``."""
    out = Path(tempfile.mkdtemp(prefix="sweep-memory-")) / "out"
    cmd = [sys.executable, "-m", "clue_expert", "sweep", sweep, "--out", str(out), "--workers", str(workers),
           "--quiet"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    started = time.monotonic()
    next_line = 15.0
    while proc.poll() is None and time.monotonic() - started < seconds:
        time.sleep(0.5)
        if time.monotonic() - started >= next_line:
            next_line += 15.0
            cells = out / "cells.jsonl"
            done = len(cells.read_text().splitlines()) if cells.exists() else 0
            kids = [f"{rss_mb(k) or 0:.0f}" for k in descendants(proc.pid)]
            print(f"{time.monotonic() - started:4.0f} s: {done} cells; sweep process {rss_mb(proc.pid) or 0:.0f} MB; "
                  f"workers {', '.join(kids) or '-'} MB", flush=True)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate()
    print(f"stopped: exit {proc.returncode}; {err.strip().splitlines()[-1] if err.strip() else ''}")


if __name__ == "__main__":
    main()
