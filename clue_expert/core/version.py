"""The package's version, in the core so that every layer may read it (``clue_expert.__version__`` re-exports it)."""
from __future__ import annotations

#: clue-expert's version (pyproject.toml's ``version``).
__version__ = "0.1.0"
