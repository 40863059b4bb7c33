"""Rule files on disk: loading them with the shipped rule library, and the
shipped deduction rule files.

Reading is ``yaml.safe_load``; validation and compilation are the generic
compiler's (:mod:`clue_expert.engine.language`), handed the function table
of :mod:`clue_expert.engine.library`.  The language's names are re-exported
here for convenience.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import RuleFileError
from ..core.paths import data_dir
from .language import (CONSTANTS, FILE_KINDS, RULESET_SCHEMA, SALIENCE, CompiledRule, Conclusion,  # noqa: F401
                       DispatchTable, RuleSet, all_rules, compile_engine, compile_ruleset, format_template)
from .library import FUNCTIONS


def load_ruleset(path: str | Path) -> RuleSet:
    """Load, validate and compile one rule file.  Raises
    :class:`RuleFileError` naming the file, the rule and the problem."""
    path = str(path)
    try:
        with open(path, encoding="utf-8") as fh:
            raw = yaml.safe_load(fh)
    except UnicodeDecodeError:
        raise RuleFileError(path, None, "not a UTF-8 text file") from None
    except yaml.YAMLError as exc:
        raise RuleFileError(path, None, f"not valid YAML: {exc}") from None
    except OSError as exc:
        raise RuleFileError(path, None, f"cannot read: {exc.strerror}") from None
    return parse_ruleset(raw, path)


def parse_ruleset(raw: Any, path: str) -> RuleSet:
    """Validate and compile an already-parsed rule file against the rule library."""
    return compile_ruleset(raw, path, FUNCTIONS)


def rule_files(kind: str = "deduction", root: str | Path | None = None) -> list[Path]:
    """The rule files (not scenario files) of ``rules/<kind>/``."""
    base = Path(root) if root else data_dir("rules")
    return sorted(p for p in (base / kind).glob("*.yaml") if not p.name.endswith(".test.yaml"))


@functools.lru_cache(maxsize=None)
def default_rulesets() -> tuple[RuleSet, ...]:
    """The shipped deduction rule files, compiled."""
    return tuple(load_ruleset(p) for p in rule_files("deduction"))
