"""The engine's front door (issue 34): the play and people layers reach the engine
only through its front door (``clue_expert.engine``), and no module imports
another module's private (``_``-prefixed) names."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "clue_expert"


def _imports_from(path: Path, package: Path = PACKAGE):
    """(line, absolute module, names) of each ``from … import …`` in ``path``."""
    here = list(path.relative_to(package.parent).parts[:-1])
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield node.lineno, module, [a.name for a in node.names]


def front_door_offenders(package: Path = PACKAGE) -> list[str]:
    out = []
    for layer in ("play", "people", "testing"):
        for path in (package / layer).rglob("*.py"):
            for line, module, _ in _imports_from(path, package):
                if module.startswith("clue_expert.engine."):
                    out.append(f"{path.relative_to(package)}:{line} imports {module}")
    return out


def private_name_offenders(package: Path = PACKAGE) -> list[str]:
    out = []
    for path in package.rglob("*.py"):
        for line, module, names in _imports_from(path, package):
            if not module.startswith("clue_expert"):
                continue
            for name in names:
                if name.startswith("_") and not name.startswith("__"):
                    out.append(f"{path.relative_to(package)}:{line} imports {module}.{name}")
    return out


def test_the_checks_find_what_they_look_for(tmp_path):
    pkg = tmp_path / "clue_expert"
    for layer in ("engine/seat", "play", "people", "testing"):
        (pkg / layer).mkdir(parents=True)
    (pkg / "play" / "a.py").write_text("from ..engine.seat.knowledge import Knowledge\nfrom ..engine import Knowledge\n")
    (pkg / "people" / "b.py").write_text("from ..engine.seat import _hidden\nfrom .c import _other\n")
    assert front_door_offenders(pkg) == ["play/a.py:1 imports clue_expert.engine.seat.knowledge",
                                         "people/b.py:1 imports clue_expert.engine.seat"]
    assert sorted(private_name_offenders(pkg)) == ["people/b.py:1 imports clue_expert.engine.seat._hidden",
                                                   "people/b.py:2 imports clue_expert.people.c._other"]


def test_play_and_people_use_the_front_door():
    offenders = front_door_offenders()
    assert not offenders, f"import the engine through clue_expert.engine (add the name to its __init__): {offenders}"


def test_no_private_name_crosses_a_module():
    offenders = private_name_offenders()
    assert not offenders, f"make these public or keep them in their module: {offenders}"
