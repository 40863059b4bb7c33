"""The frozendict==1.2 workaround lives in clue_expert/_experta.py only, and
gives a working engine on this Python."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "clue_expert"


def test_experta_works_in_a_fresh_interpreter():
    code = ("from clue_expert._experta import KnowledgeEngine, Rule, Fact, AS\n"
            "class F(Fact): pass\n"
            "hits = []\n"
            "class E(KnowledgeEngine):\n"
            "    @Rule(AS.f << F(x=1))\n"
            "    def r(self, f): hits.append(f['x'])\n"
            "e = E(); e.reset(); e.declare(F(x=1)); e.declare(F(x=2)); e.run()\n"
            "assert hits == [1], hits\n"
            "import experta, frozendict; print(experta.__version__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1.9.4"


def test_only_the_shim_imports_experta():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "_experta.py":
            continue
        if re.search(r"^\s*(from|import)\s+experta\b", path.read_text(), re.M):
            offenders.append(path.name)
    assert not offenders, f"import experta through clue_expert._experta, not directly: {offenders}"


def test_core_modules_do_not_import_rich_or_argparse():
    for name in ("cards", "deals", "records", "facts", "rules", "expr", "library", "knowledge", "backbone",
                 "scenarios", "randomgame", "oracle", "game", "players", "simulate", "reproduce", "contest",
                 "human", "notebook", "replay", "beliefs"):
        text = (PACKAGE / f"{name}.py").read_text()
        assert not re.search(r"^\s*(from|import)\s+(rich|argparse)\b", text, re.M), name
