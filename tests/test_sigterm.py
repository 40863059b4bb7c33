"""Issue 25: SIGTERM on ``simulate`` and ``sweep`` is handled as Ctrl-C: the
finished games are kept and summarised, the workers end quietly (no
BrokenPipeError tracebacks), the exit code is 143.  The signal is sent once
some records are on disk (a count of finished games, not a time)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _records(folder: Path) -> int:
    return len(list(folder.glob("game-*.yaml")))


def _cells(folder: Path) -> int:
    path = folder / "out" / "cells.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


def _run_until(argv, count, enough: int, group: bool):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "clue_expert", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=group)
    try:
        for _ in range(3000):  # polls the count of records written, at most ~5 minutes
            if count() >= enough or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        if group:
            os.killpg(proc.pid, signal.SIGTERM)  # as a service manager does: the parent and its workers
        else:
            proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, err


# to the process group in the slow tier (with test_stop_signals.py's patterns; .ci/run runs it)
@pytest.mark.parametrize("group", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["parent", "process-group"])
def test_sigterm_on_simulate_keeps_the_finished_games(tmp_path, group):
    code, out, err = _run_until(
        ["simulate", "--games", "5000", "--workers", "2", "--players", "3", "--strategy", "mitchell-basic",
         "--records", str(tmp_path)], lambda: _records(tmp_path), 3, group)
    assert code == 143, (code, err)
    assert "Simulation (interrupted)" in out
    assert "interrupted after" in err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert not list(tmp_path.glob(".partial-*"))


def test_sigterm_on_sweep_keeps_the_finished_cells(tmp_path):
    sweep = tmp_path / "s.yaml"
    sweep.write_text("games: 3\nseed: 1\nlineups: [[mitchell-basic], [mitchell-advanced], [kingston-deduction]]\n"
                     "players: [3, 4, 5, 6]\n")
    code, out, err = _run_until(["sweep", str(sweep), "--out", str(tmp_path / "out"), "--workers", "2"],
                                lambda: _cells(tmp_path), 2, False)
    assert code == 143, (code, err)
    assert 2 <= _cells(tmp_path) < 12
    assert "interrupted after" in err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_sigterm_in_a_just_forked_worker_ends_it_at_once():
    """A process forked a moment before SIGTERM still has the parent's handler
    (the pool holds the signals back across its own forks, but a fork made
    elsewhere does not): the handler ends it there with 143 instead of
    raising KeyboardInterrupt, which an at-fork hook can swallow."""
    from clue_expert.play.stopping import stoppable

    def cmd(args):
        pid = os.fork()
        if pid == 0:  # the child: SIGTERM before anything replaces the handler
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
            except BaseException:
                os._exit(1)
            os._exit(0)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    assert stoppable(cmd)(None) == 143


def _worker_pids(parent: int) -> list[int]:
    """The children of ``parent`` (Linux: /proc)."""
    out = []
    for task in Path(f"/proc/{parent}/task").iterdir():
        children = (task / "children").read_text().split()
        out += [int(c) for c in children]
    return out


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the worker pids from /proc (Linux)")
def test_sigterm_to_a_worker_alone_stops_the_run_cleanly(tmp_path):
    """A worker ended by SIGTERM (sent to it alone) stops the command as a
    SIGTERM to the parent would: the games finished kept and summarised,
    143; the parent never waits for the game the worker took with it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "clue_expert", "simulate", "--games", "5000", "--workers", "2",
                             "--players", "3", "--strategy", "mitchell-basic", "--records", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        for _ in range(3000):
            if _records(tmp_path) >= 3 or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        workers = _worker_pids(proc.pid)
        assert workers
        os.kill(workers[0], signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, (proc.returncode, err)
    assert "Simulation (interrupted)" in out and "interrupted after" in err
    assert "Traceback" not in err, err
