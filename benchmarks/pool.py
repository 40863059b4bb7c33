"""Jobs of a benchmark run in this process or on a fork pool (shared by the benchmarks' tournaments)."""
from __future__ import annotations

import multiprocessing
from typing import Any, Callable


def run_jobs(play: Callable[[Any], Any], jobs: list, workers: int) -> list:
    """``play(job)`` for every job, in order: here with one worker, else on a pool of ``workers`` forked processes."""
    if workers <= 1:
        return [play(j) for j in jobs]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return pool.map(play, jobs, chunksize=1)
