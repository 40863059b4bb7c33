"""The public Python API: what ``import clue_expert`` exports, its
docstrings, its import cost in modules, py.typed, and docs/api.md's examples
run as doctests (so they cannot rot)."""
from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import clue_expert

ROOT = Path(__file__).resolve().parent.parent

#: Exported names that are data, not documented objects (the module docstring says what they are).
DATA = {"__version__", "ENVELOPE", "Observation", "Turn"}


def test_every_exported_name_exists_and_has_a_docstring():
    missing = [n for n in clue_expert.__all__ if not hasattr(clue_expert, n)]
    assert not missing, missing
    undocumented = [n for n in clue_expert.__all__ if n not in DATA
                    and not (getattr(clue_expert, n).__doc__ or "").strip()]
    assert not undocumented, undocumented
    assert len(set(clue_expert.__all__)) == len(clue_expert.__all__)


def test_the_api_names_what_a_researcher_needs():
    wanted = {"get_edition", "Edition", "Deal", "random_deal", "get_deal", "Record", "load_record", "Suggestion",
              "Accusation", "DealtHand", "Event", "Player", "RuleBasedPlayer", "seat_player", "play_game",
              "simulate", "Knowledge", "KnowledgeView", "Sheet", "replay", "Explanation", "prove", "parse_fact"}
    assert wanted <= set(clue_expert.__all__), wanted - set(clue_expert.__all__)


def test_importing_the_package_loads_no_terminal_interface():
    code = ("import sys, clue_expert\n"
            "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('rich', 'argparse', 'matplotlib', 'dask', 'distributed', 'pyarrow') "
            "or m.startswith('clue_expert.people'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_the_package_is_typed_and_the_wheel_ships_the_marker():
    assert (ROOT / "clue_expert" / "py.typed").is_file()
    # hatchling ships every file of a listed package, py.typed too (pip wheel --no-deps . lists it)
    wheel = (ROOT / "pyproject.toml").read_text().split("[tool.hatch.build.targets.wheel]", 1)[1].split("\n[", 1)[0]
    assert 'packages = ["clue_expert"]' in wheel and "exclude" not in wheel


def test_docs_api_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples read docs/examples/ as a reader in the repository does
    failed, attempted = doctest.testfile(str(ROOT / "docs" / "api.md"), module_relative=False,
                                         optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert attempted >= 30
    assert failed == 0
