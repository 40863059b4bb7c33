"""The cluster engine (issue 15): games on a real Dask LocalCluster give the
same results as the local pool, records land where --records says, Ctrl-C
keeps the finished games, and a missing package or an unreachable scheduler
is one clear error."""
from __future__ import annotations

import json
import socket
import sys

import pytest

from clue_expert.people.cli import main
from clue_expert.play import cluster
from clue_expert.play.cluster import DaskExecutor
from clue_expert.play.reproduce import mitchell
from clue_expert.play.simulate import Interrupted, make_specs, run_games
from clue_expert.play.sweep import load_sweep, rows, run_sweep
from clue_expert.testing.samples import InterruptAfter

pytest.importorskip("distributed", reason="the cluster tests need pip install '.[cluster]' (in the test extra)")


@pytest.fixture(scope="module")
def local_cluster():
    """One real LocalCluster of two one-thread worker processes for the module."""
    with DaskExecutor("local", 2) as executor:
        yield executor


# The tests on a real LocalCluster run in the slow tier (.ci/run runs it): starting the cluster's worker
# processes costs more than the games; the default run keeps the --cluster errors below.
@pytest.mark.slow
def test_cluster_games_equal_local_games_and_records_land_here(local_cluster, tmp_path):
    specs = make_specs(players=3, games=10, seed=5, strategies=["mitchell-basic", "clue-expert-focused"],
                       records=str(tmp_path / "recs"))
    on_cluster = run_games(specs, executor=local_cluster)
    local = run_games([s.__class__(**{**s.__dict__, "records": None}) for s in specs], 1)
    assert on_cluster == local  # every game's summary, in game order
    assert sorted(p.name for p in (tmp_path / "recs").iterdir()) == [f"game-{i:05d}.yaml" for i in range(1, 11)]
    assert local_cluster.describe() == {"cluster": "local", "workers": 2}


@pytest.mark.slow  # a long run (.ci/run's slow tier); the default run: the cluster's games equal the pool's (above)
def test_reproduce_on_the_cluster_gives_the_local_tables(local_cluster):
    ours = mitchell(games=1, tables=("5.2",), executor=local_cluster)
    assert [t.to_json() for t in ours] == [t.to_json() for t in mitchell(games=1, tables=("5.2",), workers=1)]


@pytest.mark.slow  # .ci/run's slow tier; the default run: the cluster's games equal the pool's (above)
def test_sweep_on_the_cluster_gives_the_local_rows(local_cluster, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("games: 3\nlineups: [[mitchell-basic, clue-expert-focused], mitchell-advanced]\nplayers: 3\n")
    sweep = load_sweep(path)
    on_cluster = run_sweep(sweep, tmp_path / "cluster", executor=local_cluster)
    local = run_sweep(sweep, tmp_path / "local", workers=1)
    assert rows(sweep, on_cluster.finished) == rows(sweep, local.finished) and on_cluster.played_cells == 2


@pytest.mark.slow  # .ci/run's slow tier; test_interrupts.py interrupts the local pool in the default run
def test_interrupted_cluster_run_keeps_the_finished_games(local_cluster):
    specs = make_specs(players=3, games=30, seed=3, strategies=["mitchell-basic"])
    with pytest.raises(Interrupted) as caught:
        run_games(specs, progress=InterruptAfter(3), executor=local_cluster)
    exc = caught.value
    assert exc.finished == 3 and exc.total == 30
    full = {r.index: r for r in run_games([specs[r.index] for r in exc.results], 1)}
    assert all(full[r.index] == r for r in exc.results)
    # the cancelled games left the cluster usable
    assert run_games(specs[:2], executor=local_cluster) == run_games(specs[:2], 1)


@pytest.mark.slow  # a cluster of its own (.ci/run's slow tier); the default run: the games above, --cluster below
def test_simulate_cluster_local_json_equals_workers_1_apart_from_config(capsys):
    """The issue's 'Done when' command (16 games, not 40, to keep the suite fast; docs/cluster.md
    shows the 40-game run) against --workers 1."""
    common = ["simulate", "--players", "4", "--games", "16", "--seed", "11", "--strategy", "kingston-next-not-held",
              "--strategy", "clue-expert-focused", "--json"]
    assert main([*common, "--cluster", "local", "--workers", "2"]) == 0
    on_cluster = json.loads(capsys.readouterr().out)
    assert main([*common, "--workers", "1"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert on_cluster.pop("config")["cluster"] == "local"
    assert "cluster" not in local.pop("config")
    assert on_cluster == local and local["games"] == 16


def test_unreachable_scheduler_is_one_line_and_exit_5(monkeypatch, capsys):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = main(["simulate", "--games", "1", "--cluster", f"tcp://127.0.0.1:{port}", "--json"])
    err = capsys.readouterr().err
    assert code == 5
    assert err.count("\n") == 1 and err.startswith("error: connection failed: could not reach the Dask scheduler")


def test_missing_dask_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed: import fails
    code = main(["simulate", "--games", "1", "--cluster", "local"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and 'pip install "clue-expert[cluster]"' in err
