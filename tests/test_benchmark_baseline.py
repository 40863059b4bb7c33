"""benchmarks/baseline.py runs a benchmark on another commit's code in the same run: the options
that commit's script knows are passed, ``--no-baseline`` always among them, the others left out (an
older script has no ``--engine`` or ``--no-baseline``, and would refuse them)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from baseline import run_baseline  # noqa: E402


def _in_git() -> bool:
    return shutil.which("git") is not None and subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode == 0


@pytest.mark.skipif(not _in_git(), reason="needs the project's git history")
def test_the_baseline_gets_the_options_its_script_knows_and_no_others():
    out = run_baseline("HEAD", "games.py", ["--games", "3", "--players", "3", "--tournament", "0"],
                       (["--engine", "clips"], ["--no-such-option", "1"]))
    assert "failed" not in out, out
    rows = [line.split() for line in out.splitlines() if line.split()[:1] == ["3"]]
    assert [r[1] for r in rows] == ["clips"], out  # one engine's row: --engine reached the script
    assert "baseline:" not in out  # --no-baseline, always offered, did too: no nested baseline run
