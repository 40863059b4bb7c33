"""Run a benchmark on another commit's code in the same run, for a
side-by-side figure measured under the same load (used by games.py and
deduction.py: ``--baseline REF``)."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

#: The code the rule engines are compared with: main before issue 24 (one
#: dispatch rule per fact kind, no engine choice).
BASELINE = "86926af"
ROOT = Path(__file__).resolve().parent.parent


def run_baseline(ref: str, script: str, argv: list[str], if_known: tuple[list[str], ...] = ()) -> str:
    """``benchmarks/SCRIPT`` of commit ``ref`` run on that commit's code (``git
    archive`` into a temporary folder): its output, or the last line of its error.
    Each option of ``if_known`` (``[flag, value...]``), and ``--no-baseline`` (the
    baseline's script runs no baseline of its own: outside a git checkout it
    cannot), is passed only if that commit's script knows its flag (an older
    script has no ``--engine`` or ``--no-baseline``: it runs its defaults there)."""
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        path = Path(tmp) / "benchmarks" / script
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        options = (["--no-baseline"], *if_known)
        argv = argv + [a for option in options if f'"{option[0]}"' in text for a in option]
        out = subprocess.run([sys.executable, str(path), *argv],
                             env={**os.environ, "PYTHONPATH": tmp}, cwd=tmp, capture_output=True, text=True)
    failed = f"(failed: {out.stderr.strip().splitlines()[-1]})\n" if out.returncode and out.stderr.strip() else ""
    return out.stdout + failed
