"""Issue 25, "memory bounded in long runs": game specs are built as they are
read, the workers are handed a bounded window of games, recycled after a
number of games, and keep a bounded cache of players.  Counts of work are
asserted, never times (the memory a long run takes is measured by
benchmarks/worker_memory.py)."""
from __future__ import annotations

import os

from clue_expert.play import simulate
from clue_expert.play.simulate import LocalExecutor, make_specs, run_games


def test_five_million_specs_are_not_built_up_front(monkeypatch):
    made = []
    real = simulate.random_deal
    monkeypatch.setattr(simulate, "random_deal", lambda *a: made.append(1) or real(*a))
    specs = make_specs(players=3, games=5_000_000, seed=1, strategies=["mitchell-basic"])
    assert len(specs) == 5_000_000 and made == []
    last = specs[4_999_999]
    assert last.index == 4_999_999 and len(made) == 1
    assert specs[-1] == last  # built again, the same
    assert list(specs[:2]) == list(make_specs(players=3, games=2, seed=1, strategies=["mitchell-basic"]))


class _CountingSpecs:
    """A sequence of specs that counts how many were read."""

    def __init__(self, specs):
        self.specs = specs
        self.read = 0

    def __len__(self):
        return len(self.specs)

    def __getitem__(self, i):
        return self.specs[i]

    def __iter__(self):
        for s in self.specs:
            self.read += 1
            yield s


def _index_of(spec):
    return ("played", spec.index), None


def test_the_workers_are_handed_a_bounded_window_of_games(monkeypatch):
    monkeypatch.setattr(simulate, "play_one", _index_of)
    specs = _CountingSpecs(list(make_specs(players=3, games=50, seed=1, strategies=["mitchell-basic"])))
    seen = []
    for result, _ in LocalExecutor(3).results(specs):
        seen.append(result)
        assert specs.read <= len(seen) + 3 * simulate.WORKER_QUEUE  # not the 50 a pool's feeder reads at once
    assert specs.read == 50
    assert sorted(seen) == sorted(("played", i) for i in range(50))


def _pid_of(spec):
    return (os.getpid(), spec.index), None


def test_pool_workers_are_recycled_after_their_games(monkeypatch):
    monkeypatch.setattr(simulate, "play_one", _pid_of)
    monkeypatch.setattr(simulate, "GAMES_PER_WORKER", 2)
    specs = make_specs(players=3, games=8, seed=1, strategies=["mitchell-basic"])
    pids = [pid for (pid, _), _ in LocalExecutor(2).results(specs)]
    assert len(pids) == 8
    assert len(set(pids)) >= 4  # each process played at most 2 games


def test_the_player_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(simulate, "MAX_CACHED_PLAYERS", 4)
    simulate.WORKER_SEATS.clear()
    lineups = ["mitchell-basic", "mitchell-advanced", "kingston-deduction", "kingston-next-possible"]
    for i, strategy in enumerate(lineups):
        run_games(make_specs(players=3, games=1, seed=i, strategies=[strategy]))
        assert len(simulate.WORKER_SEATS) <= 4
    assert len(simulate.WORKER_SEATS) == 4
    simulate.WORKER_SEATS.clear()
