"""Cluster throughput: the same seeded games in one process, on the local
process pool and on a Dask cluster, in games per second and games per second
per worker (needs pip install ".[cluster]").

    python benchmarks/cluster.py [--games 200] [--players 3] [--workers 2] [--cluster local|tcp://HOST:8786]

Each row's wall time includes starting the workers (the pool's forks; the
cluster's tasks being sent) but not starting a local cluster.  The cluster's
workers are counted as the scheduler reports them (threads).  The summaries of
all rows are checked to be equal: same seed, same games.
"""
from __future__ import annotations

import argparse
import os
import time

from clue_expert.play.cluster import DaskExecutor
from clue_expert.play.simulate import LocalExecutor, make_specs, run_games, summarize


def _noop(x):
    return x


def run_games_noop(cluster, n):
    """n empty tasks through the same client, in the order they finish."""
    from distributed import as_completed
    futures = cluster._client.map(_noop, range(n), pure=False)
    for future in as_completed(futures):
        yield future.result()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="processes of the pool and of a local cluster (default: one per core)")
    ap.add_argument("--cluster", default="local", help="'local' or a scheduler's address")
    ap.add_argument("--strategy", action="append")
    args = ap.parse_args()
    strategies = args.strategy or ["kingston-next-not-held", "clue-expert-focused"]
    specs = make_specs(players=args.players, games=args.games, seed=args.seed, strategies=strategies)
    print(f"{args.games} games of {args.players} players, strategies {', '.join(strategies)}; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    print(f"{'executor':<34} {'workers':>7} {'wall s':>7} {'games/s':>8} {'games/s/worker':>15}")
    summaries = []

    def row(label, executor, workers):
        t = time.perf_counter()
        results = run_games(specs, executor=executor)
        dt = time.perf_counter() - t
        summaries.append(summarize(results))
        print(f"{label:<34} {workers:>7} {dt:>7.1f} {args.games / dt:>8.1f} {args.games / dt / workers:>15.2f}",
              flush=True)
    row("one process", LocalExecutor(1), 1)
    row("process pool", LocalExecutor(args.workers), args.workers)
    with DaskExecutor(args.cluster, args.workers) as cluster:
        row(f"dask {args.cluster}"[:34], cluster, cluster.worker_count())
        n = 1000
        t = time.perf_counter()
        for _ in run_games_noop(cluster, n):
            pass
        dt = time.perf_counter() - t
        print(f"dask's own cost: {n} empty tasks in {dt:.2f} s, {1000 * dt / n:.2f} ms a task "
              f"(a game is one task)")
    print("same summaries:", all(s == summaries[0] for s in summaries))
    print(f"load average {os.getloadavg()[0]:.1f} at the end (other processes on the machine slow every row)")


if __name__ == "__main__":
    main()
