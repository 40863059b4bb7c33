"""Where the shipped data lives: ``rules/`` and ``deals/`` at the top of the
source tree, copied into ``clue_expert/_data/`` when the wheel is built."""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def data_dir(name: str) -> Path:
    """The directory of shipped data ``name`` (``"rules"`` or ``"deals"``)."""
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    source = _PACKAGE.parent / ("docs/examples" if name == "examples" else name)
    if source.is_dir():
        return source
    raise FileNotFoundError(f"clue-expert data directory {name!r} not found (looked in {installed} and {source})")


def editions_dir() -> Path:
    """The directory of edition files (package data)."""
    return _PACKAGE / "editions"


def levels_dir() -> Path:
    """The directory of the shipped knowledge levels (package data)."""
    return _PACKAGE / "levels"


def published_dir() -> Path:
    """The directory of the published result tables (package data)."""
    return _PACKAGE / "published"


def templates_dir() -> Path:
    """The directory of the starting files ``clue-expert rules --new`` writes (package data)."""
    return _PACKAGE / "templates"


def boards_dir() -> Path:
    """The directory of the shipped boards (package data)."""
    return _PACKAGE / "boards"
