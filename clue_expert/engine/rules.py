"""Rule files on disk: loading them with the shipped rule library, and the
shipped deduction rule files.

Reading is :func:`clue_expert.core.yamlio.load_file` (bounded YAML/JSON); validation and compilation are the generic
compiler's (:mod:`clue_expert.engine.language`), handed the function table
of :mod:`clue_expert.engine.library`.  The language's names are re-exported
here for convenience.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from ..core.errors import RuleFileError
from ..core.paths import data_dir
from ..core.yamlio import FileLoadError, load_file
from .language import (CONSTANTS, FILE_KINDS, RULESET_SCHEMA, SALIENCE, CompiledRule, Conclusion,  # noqa: F401
                       DispatchTable, RuleSet, all_rules, compile_engine, compile_ruleset, format_template)
from .library import FUNCTIONS

__all__ = ["CONSTANTS", "FILE_KINDS", "RULESET_SCHEMA", "SALIENCE", "CompiledRule", "Conclusion", "DispatchTable",
           "RuleSet", "all_rules", "compile_engine", "compile_ruleset", "format_template", "load_ruleset",
           "parse_ruleset", "rule_files", "default_rulesets"]


def load_ruleset(path: str | Path) -> RuleSet:
    """Load, validate and compile one rule file.  Raises
    :class:`RuleFileError` naming the file, the rule and the problem."""
    path = str(path)
    try:
        raw = load_file(path, "rule")
    except FileLoadError as exc:
        raise RuleFileError(path, None, exc.problem) from None
    try:
        return parse_ruleset(raw, path)
    except RuleFileError as exc:  # a hostile file's values stay out of the message
        rule = None if exc.rule is None else str(exc.rule)  # a hostile id may be any YAML value
        if (rule is None or len(rule) <= 80) and len(exc.problem) <= 500 and rule == exc.rule:
            raise
        rule = rule if rule is None or len(rule) <= 80 else rule[:79] + "…"
        problem = exc.problem if len(exc.problem) <= 500 else exc.problem[:499] + "…"
        raise RuleFileError(exc.path, rule, problem) from None


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
