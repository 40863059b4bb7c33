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


@pytest.mark.parametrize("group", [False, True], ids=["parent", "process-group"])
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
    """A worker forked a moment before SIGTERM still has the parent's handler
    (its initializer has not run): the handler ends it there with 143 instead
    of raising KeyboardInterrupt, which an at-fork hook can swallow (CI saw
    such a worker hang the parent's ``Pool.terminate``)."""
    from clue_expert.people.cli import _terminable

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

    assert _terminable(cmd)(None) == 143


def test_a_pool_worker_whose_sigterm_exit_is_dropped_still_ends():
    """A pool worker's SIGTERM handler raises SystemExit; raised inside a
    finalizer, that exception is printed and dropped, and the worker went
    back to waiting on a queue lock the terminating parent holds (simulate
    hung after a SIGTERM to its process group).  The handler's SIGALRM
    fallback ends such a worker (by SIGALRM, not by the dropped exit)."""
    from clue_expert.play import simulate

    class Finalized:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here; its SystemExit is dropped

    pid = os.fork()
    if pid == 0:  # the worker
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # the dropped exception's report
            signal.signal(signal.SIGTERM, simulate._worker_term)
            Finalized()
            signal.pause()  # back to waiting, as on the queue lock
            signal.pause()
        finally:
            os._exit(0)  # reached only if no signal ended the worker
    for _ in range(300):  # polls for at most ~30 s; the fallback takes WORKER_TERM_GRACE
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the worker whose SystemExit was dropped did not end")
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM, status
