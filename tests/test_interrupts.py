"""Hardening (issue 11): Ctrl-C in simulate and reproduce, notebook saves that
fail, temporary files of killed saves, contradictory notebook files opened in
repair mode, and the exit codes of cli.main (docs/exit-codes.md)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from clue_expert.core.errors import ContradictionError
from clue_expert.people import cli, notebook
from clue_expert.people.cli import catalog
from clue_expert.people.notebook import NotebookSession, clean_stale_temps
from clue_expert.people.output import Message
from clue_expert.play import reproduce, simulate
from clue_expert.play.simulate import Interrupted, make_specs, run_games
from clue_expert.play.stopping import signals_held
from clue_expert.testing.samples import InterruptAfter

SETUP = ["cluedo", "ann bob cat", "ann", "scarlett rope hall lounge dagger plum", ""]
TURN_1 = "bob: white rope study / cat passes / ann shows rope"
TURN_2 = "cat: green spanner hall / ann shows hall"

# (SIGINT reaches the child handled even when the suite started with it ignored: see conftest.py)
CHILD = "import sys; from clue_expert.people.cli import main; raise SystemExit(main(sys.argv[1:]))"


def texts(items):
    return [i.text for i in items if isinstance(i, Message)]


def new_session(path, lines=SETUP):
    s = NotebookSession(path)
    out = s.start()
    for line in lines:
        out += s.handle(line)
    return s, out


# ------------------------------------------------------------------ simulate
@pytest.mark.parametrize("workers", [1, 2])
def test_run_games_interrupted_keeps_the_finished_games(tmp_path, workers):
    specs = make_specs(players=3, games=40, seed=3, strategies=["mitchell-basic"], records=str(tmp_path))
    with pytest.raises(Interrupted) as caught:
        run_games(specs, workers, InterruptAfter(3))
    exc = caught.value
    assert isinstance(exc, KeyboardInterrupt)  # callers that ignore the partial results still stop
    assert exc.finished == len(exc.results) == 3 and exc.total == 40
    assert [r.index for r in exc.results] == sorted(r.index for r in exc.results)
    # the finished games are the same as in an uninterrupted run, and their records are whole
    full = {r.index: r for r in run_games([specs[r.index] for r in exc.results], 1)}
    assert all(full[r.index] == r for r in exc.results)
    records = sorted(p.name for p in tmp_path.iterdir())
    assert all(not name.startswith(".") for name in records)  # no half-written record left
    assert {f"game-{r.index + 1:05d}.yaml" for r in exc.results} <= set(records)


def test_a_ctrl_c_during_a_record_write_counts_that_game(tmp_path, monkeypatch):
    """A Ctrl-C that comes while a finished game's record is written waits
    until the game is counted too: every record on disk is a game the
    summary counts (it was raised as the write's hold ended, the game not
    yet counted: 4 records, 3 games)."""
    real = simulate._write_record
    written: list[int] = []

    def write(folder, index, record):
        real(folder, index, record)
        written.append(index)
        if len(written) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C as the second record lands
    monkeypatch.setattr(simulate, "_write_record", write)
    specs = make_specs(players=3, games=10, seed=3, strategies=["mitchell-basic"], records=str(tmp_path))
    with pytest.raises(Interrupted) as caught:
        run_games(specs, 1)
    counted = sorted(r.index for r in caught.value.results)
    assert counted == sorted(written) and len(counted) == 2
    assert sorted(p.name for p in tmp_path.glob("game-*.yaml")) == [f"game-{i + 1:05d}.yaml" for i in counted]


#: A process with a second thread (a library's, or the stop's own ``stop-again``) that holds a
#: stop signal around some work and a write, and says where the signal was handled.  (The other
#: thread's C handler only notes the signal; the main thread runs Python's handler at the next
#: place that looks: a write does.  Run in a process of its own, as the signals are the process's.)
HOLD_CHILD = """
import os, signal, sys, threading, time
from clue_expert.play.stopping import signals_held
signum = getattr(signal, sys.argv[1])
came = []
def handler(s, frame):
    came.append(s)
    raise KeyboardInterrupt
signal.signal(signum, handler)
done = threading.Event()
threading.Thread(target=done.wait, daemon=True).start()
time.sleep(0.05)
where = "not at all"
try:
    with signals_held():
        os.kill(os.getpid(), signum)
        for _ in range(1_000_000):
            pass
        print("a write, as a record's", file=sys.stderr, flush=True)  # I/O looks at the signals
        where = "inside the hold"
    where = "never"
except KeyboardInterrupt:
    where = "as the hold ended" if where == "inside the hold" else "inside the hold"
print(where, len(came), signal.getsignal(signum) is handler)
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_held_signal_waits_for_the_hold_even_with_another_thread(name):
    """Blocking the signal in the main thread alone did not hold it: the other thread took it and
    Python ran the handler in the main thread inside the hold (in the suite, a Ctrl-C during a
    record's write left a record of a game that was not counted)."""
    out = subprocess.run([sys.executable, "-c", HOLD_CHILD, name], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["as", "the", "hold", "ended", "1", "True"], out.stdout + out.stderr


def test_an_ignored_signal_stays_ignored_through_a_hold():
    old = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        with signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, old)


def test_simulate_command_interrupted_prints_the_summary_and_exits_130(monkeypatch, capsys):
    real = simulate.play_one
    count = [0]

    def play(spec):
        count[0] += 1
        if count[0] == 4:
            raise KeyboardInterrupt
        return real(spec)
    monkeypatch.setattr(simulate, "play_one", play)
    code = cli.main(["simulate", "--games", "10", "--workers", "1", "--json", "--strategy", "mitchell-basic",
                     "--quiet"])
    out, err = capsys.readouterr()
    assert code == 130
    summary = json.loads(out)
    assert summary["games"] == 3 and summary["interrupted"] == {"finished": 3, "planned": 10}
    assert err.strip() == "interrupted after 3 of 10 games"


def test_simulate_sigint_in_a_subprocess(tmp_path):
    records = tmp_path / "records"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, "simulate", "--games", "2000", "--workers", "2",
                             "--records", str(records), "--no-color"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(list(records.glob("game-*.yaml"))) < 3:
            time.sleep(0.05)
        # Ctrl-C at a terminal reaches the whole process group: the parent and its workers
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Traceback" not in out
    # piped: the progress lines (the first at the start, none after Ctrl-C), then the one line saying so
    progress = [l for l in err.splitlines() if l.startswith("simulate: ")]
    assert progress and progress[0] == "simulate: 0 of 2000 games, 0 s"
    lines = [l for l in err.splitlines() if l.strip() and l not in progress]
    assert len(lines) == 1 and err.splitlines()[-1] == lines[0] and lines[0].startswith("interrupted after ") and lines[0].endswith(" of 2000 games")
    finished = int(lines[0].split()[2])
    assert 3 <= finished < 2000
    assert f"Simulation (interrupted): {finished} games" in out and "per strategy" in out
    assert len(list(records.glob("game-*.yaml"))) == finished
    assert not [p for p in records.iterdir() if p.name.startswith(".")]


def test_reproduce_interrupted_shows_the_tables_so_far(monkeypatch, capsys):
    real = reproduce.run_games

    def run_games(specs, workers=1, progress=None, executor=None):
        if len(specs) > 2:
            return real(specs[:2], workers, InterruptAfter(2), executor)
        return real(specs, workers, progress, executor)
    monkeypatch.setattr(reproduce, "run_games", run_games)
    code = cli.main(["reproduce", "kingston", "--envelopes", "0", "--seeds", "1", "--no-beside", "--workers", "1",
                     "--json", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 130
    tables = json.loads(out)
    assert len(tables) == 1 and any("interrupted" in n for n in tables[0]["notes"])
    assert err.strip().startswith("interrupted after 2 of ")


# ------------------------------------------------------------------ notebook
def test_notebook_keeps_the_session_when_saving_fails(tmp_path, monkeypatch):
    path = tmp_path / "game.yaml"
    s, _ = new_session(path)
    s.handle(TURN_1)
    saved = path.read_text()

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(notebook.files.tempfile, "mkstemp", full_disk)
    out = s.handle(TURN_2)
    assert "turn 2 recorded" in texts(out) and len(s.notebook.turns) == 2 and not s.done
    notes = [t for t in texts(out) if t.startswith("not saved")]
    assert len(notes) == 1 and "No space left on device" in notes[0] and "save OTHERFILE" in notes[0]
    assert path.read_text() == saved
    # quitting warns once; the game can be saved elsewhere
    assert not s.done and any("not saved" in t for t in texts(s.handle("quit"))) and not s.done
    monkeypatch.undo()
    other = tmp_path / "other.yaml"
    assert f"saved to {other}" in texts(s.handle(f"save {other}"))
    assert len(yaml.safe_load(other.read_text())["turns"]) == 2
    assert s.notebook.unsaved is None
    assert "the game is saved in" in texts(s.handle("quit"))[0] and s.done


def test_notebook_in_a_read_only_folder(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):  # root writes anyway: fail as the system would for anyone else
            real = notebook.files.tempfile.mkstemp

            def mkstemp(prefix="", suffix="", dir=None):
                if Path(dir) == folder:
                    raise PermissionError(13, "Permission denied", os.path.join(dir, prefix + "x1y2" + suffix))
                return real(prefix=prefix, suffix=suffix, dir=dir)
            monkeypatch.setattr(notebook.files.tempfile, "mkstemp", mkstemp)
        s, out = new_session(folder / "game.yaml")
        assert any(t.startswith("not saved: cannot save") and f"cannot write in the folder {folder}" in t
                   for t in texts(out))
        assert not any(".saving-" in t for t in texts(out))  # names the folder, not a temporary file
        out = s.handle(TURN_1)
        assert "turn 1 recorded" in texts(out) and not s.done
        out = s.handle(f"save {tmp_path / 'elsewhere.yaml'}")
        assert any(t.startswith("saved to") for t in texts(out))
    finally:
        folder.chmod(0o755)


def test_a_failed_save_as_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "game.yaml"
    s, _ = new_session(path)
    out = s.handle(f"save {tmp_path}")  # a folder
    assert any(t.startswith("not saved") for t in texts(out))
    assert s.notebook.path == path and s.path == path


def test_stale_temporary_files_are_cleaned_when_a_file_opens(tmp_path):
    path = tmp_path / "game.yaml"
    s, _ = new_session(path, SETUP + [TURN_1, "quit"])
    # what killed saves leave: empty temporary files of processes that are gone
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    stale = [tmp_path / f".game.yaml.saving-{dead}-k{i}.tmp" for i in range(5)]
    for p in stale:
        p.write_text("")
    old = tmp_path / ".game.yaml.saving-1-old.tmp"  # a live pid, but hours old
    old.write_text("")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    mine = tmp_path / f".game.yaml.saving-{os.getppid()}-live.tmp"  # a live process, just now: kept
    mine.write_text("")
    other = tmp_path / ".other.yaml.saving-1-x.tmp"  # another file's: kept
    other.write_text("")
    s = NotebookSession(path)
    out = texts(s.start())
    assert any("removed 6 temporary file(s)" in t for t in out)
    assert not any(p.exists() for p in stale) and not old.exists()
    assert mine.exists() and other.exists()
    assert clean_stale_temps(path) == 0


def test_saves_use_recognisable_temporary_names(tmp_path, monkeypatch):
    seen = []
    real = os.replace

    def replace(src, dst):
        seen.append(Path(src).name)
        return real(src, dst)
    monkeypatch.setattr(notebook.files.os, "replace", replace)
    new_session(tmp_path / "game.yaml")
    assert seen and all(n.startswith(f".game.yaml.saving-{os.getpid()}-") and n.endswith(".tmp") for n in seen)
    assert [p.name for p in tmp_path.iterdir()] == ["game.yaml"]


def contradictory_file(tmp_path):
    path = tmp_path / "game.yaml"
    new_session(path, SETUP + [TURN_1, TURN_2, "quit"])
    data = yaml.safe_load(path.read_text())
    # edited by hand: cat shows study, though cat passed on study in turn 1
    data["turns"].append({"by": "ann", "suggest": ["green", "revolver", "study"], "passed": ["bob"],
                          "shown_by": "cat", "card": "study"})
    data["turns"].append({"by": "bob", "suggest": ["plum", "rope", "kitchen"], "passed": [],
                          "shown_by": "cat"})
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_a_contradictory_file_opens_in_repair_mode_and_undo_repairs_it(tmp_path):
    path = contradictory_file(tmp_path)
    with pytest.raises(ContradictionError):  # what deduce says of it
        from clue_expert.core.records import load_record
        from clue_expert.engine.seat.knowledge import replay_record
        replay_record(load_record(path))
    s = NotebookSession(path)
    out = texts(s.start())
    assert any("repair mode: turn 3 contradicts" in t for t in out)
    assert any("conflicting facts" in t and "cat lacks study" in t and "cat holds study" in t for t in out)
    assert "repair" in s.prompt and len(s.notebook.turns) == 4
    assert s.notebook.knowledge.last_turn == 2  # the sheet is the one before the contradiction
    # new turns wait; history marks the culprit
    assert any("refused" in t and "repair" in t for t in texts(s.handle("ann: plum rope hall / nobody")))
    assert any("contradicts" in t for t in texts(s.handle("history"))[2:3])
    out = texts(s.handle("undo"))
    assert "removed turn 4" in out and any("repair mode: turn 3" in t for t in out)
    out = texts(s.handle("undo"))
    assert "removed turn 3" in out and any(t.startswith("repaired") for t in out)
    assert s.notebook.conflict is None and s.prompt == "turn 3> "
    assert len(yaml.safe_load(path.read_text())["turns"]) == 2  # the repaired game is saved
    assert "turn 3 recorded" in texts(s.handle("ann: plum rope hall / nobody"))


def test_edit_repairs_a_contradictory_file_and_keeps_the_later_turns(tmp_path):
    path = contradictory_file(tmp_path)
    s = NotebookSession(path)
    s.start()
    # an edit that makes an earlier turn contradict is refused, nothing changed
    s.handle("edit 2")
    out = texts(s.handle("cat: white spanner hall / ann passes / bob shows"))
    assert any("ann passed but holds Hall" in t for t in out) and s.notebook.conflict.turn == 3
    assert yaml.safe_load(path.read_text())["turns"][1]["suggest"] == ["green", "spanner", "hall"]
    s.handle("edit 3")
    out = texts(s.handle("ann: green revolver kitchen / bob passes / cat shows kitchen"))
    assert "turn 3 changed" in out and any(t.startswith("repaired") for t in out)
    assert s.notebook.conflict is None and len(s.notebook.turns) == 4
    assert s.notebook.knowledge.status("cat", "kitchen") == "held"
    assert yaml.safe_load(path.read_text())["turns"][2]["card"] == "kitchen"


def test_notebook_ctrl_c_keeps_the_game_and_exits_130(tmp_path, monkeypatch, capsys):
    path = tmp_path / "game.yaml"
    lines = iter(SETUP + [TURN_1])

    def fake_input(prompt):
        try:
            return next(lines)
        except StopIteration:
            raise KeyboardInterrupt from None
    monkeypatch.setattr("builtins.input", fake_input)
    assert cli.main(["notebook", str(path), "--no-color"]) == 130
    assert "the game is saved in" in capsys.readouterr().out
    assert len(yaml.safe_load(path.read_text())["turns"]) == 1


# ------------------------------------------------------------------ cli.main
def test_an_unexpected_exception_is_one_line_and_code_70(monkeypatch, capsys):
    def boom(args):
        raise ZeroDivisionError("division by zero\nsecond line")
    monkeypatch.setattr(catalog, "cmd_deals", boom)
    assert cli.main(["deals"]) == 70
    out, err = capsys.readouterr()
    assert err == "error: internal error: ZeroDivisionError: division by zero (please report)\n"
    assert "Traceback" not in out + err


@pytest.mark.parametrize("exc, code", [
    (KeyboardInterrupt(), 130),
    (ConnectionRefusedError(111, "Connection refused"), 5),
    (ConnectionResetError(104, "Connection reset by peer"), 5),
    (TimeoutError("timed out"), 5),
    (FileNotFoundError(2, "No such file or directory", "x.yaml"), 2),
    (ContradictionError("cat cannot both hold and lack study"), 1),
])
def test_exit_codes(monkeypatch, capsys, exc, code):
    def fail(args):
        raise exc
    monkeypatch.setattr(catalog, "cmd_deals", fail)
    assert cli.main(["deals"]) == code
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
