"""Issue 25, "nothing lost between two notebooks": a second notebook on the
same file is refused with a clear message while the first has it open (two
real processes), and a save never replaces a file that changed since the
notebook read it."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clue_expert.people.notebook import Notebook, NotebookBusy, NotebookSession, SaveError

ROOT = Path(__file__).resolve().parent.parent
SETUP = ["cluedo", "ann bob cat", "ann", "scarlett rope hall lounge dagger plum", ""]
TURN1 = "bob: white rope study / cat passes / ann shows rope"
TURN2 = "cat: green dagger kitchen / ann shows dagger"


def _notebook(path: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "clue_expert", "notebook", str(path), "--no-color"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def _wait_for(path: Path, text: str) -> None:
    for _ in range(1200):  # polls the file's content, at most ~2 minutes
        if path.exists() and text in path.read_text():
            return
        time.sleep(0.1)
    raise AssertionError(f"{path} never held {text!r}")


def test_a_second_notebook_process_on_the_same_file_is_refused(tmp_path):
    path = tmp_path / "game.yaml"
    first = _notebook(path)
    try:
        first.stdin.write("\n".join(SETUP + [TURN1]) + "\n")
        first.stdin.flush()
        _wait_for(path, "white")
        second = _notebook(path)
        out, err = second.communicate("cat: green dagger kitchen / ann shows dagger\nquit\n", timeout=120)
        assert second.returncode == 2, (out, err)
        assert "is open in another notebook" in err and str(path) in err and str(first.pid) in err
        first.stdin.write(TURN2 + "\nquit\n")
        first.stdin.flush()
        first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0
    text = path.read_text()
    assert "white" in text and "green" in text  # both of the first notebook's turns kept
    assert not (tmp_path / ".game.yaml.lock").exists()
    # once the first has quit, a notebook opens the file again
    s = NotebookSession(path)
    assert "2 turns" in str(s.start()[0].text)
    s.close()


def test_a_second_notebook_in_this_process_is_refused_too(tmp_path):
    path = tmp_path / "game.yaml"
    first = NotebookSession(path)
    first.start()
    for line in SETUP:
        first.handle(line)
    with pytest.raises(NotebookBusy, match=f"{path.name} is open in another notebook \\(process {os.getpid()}\\)"):
        NotebookSession(path)
    first.close()
    NotebookSession(path).close()


def test_a_save_never_replaces_a_file_that_changed_since_it_was_read(tmp_path):
    path = tmp_path / "game.yaml"
    s = NotebookSession(path)
    s.start()
    for line in SETUP + [TURN1]:
        s.handle(line)
    nb: Notebook = s.notebook
    nb.release()  # as if the lock were unavailable (a filesystem without flock): only the check guards
    edited = path.read_text() + "# an editor's note\n"
    time.sleep(0.01)
    path.write_text(edited)
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 1_000_000))
    nb.add(nb.parse_turn(TURN2))  # the entry is taken; its autosave is refused
    assert nb.unsaved is not None and "changed since this notebook read it" in nb.unsaved
    with pytest.raises(SaveError, match="changed since this notebook read it"):
        nb.save()
    assert path.read_text() == edited  # not overwritten
    nb.save(tmp_path / "other.yaml")  # saving elsewhere still works
    assert "green" in (tmp_path / "other.yaml").read_text()
