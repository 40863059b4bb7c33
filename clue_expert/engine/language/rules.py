"""Rule files on disk: loading them with the shipped rule library, and the
shipped deduction rule files.

Reading is :func:`clue_expert.core.yamlio.load_file` (bounded YAML/JSON); validation and compilation are the generic
compiler's (:mod:`clue_expert.engine.language.compiler`), handed the function table
of :mod:`clue_expert.engine.library`.  The language's names are re-exported
here for convenience.
"""
from __future__ import annotations

import difflib
import functools
import re
from pathlib import Path
from typing import Any

from ...core.errors import RuleFileError
from ...core.paths import data_dir
from ...core.text import visible
from ...core.yamlio import FileLoadError, load_file
from .compiler import (CONSTANTS, FILE_KINDS, RULESET_SCHEMA, SALIENCE, CompiledRule, Conclusion,  # noqa: F401
                       RuleCount, RuleSet, all_rules, compile_ruleset, format_template,
                       written_clash)
from ..library import FUNCTIONS

__all__ = ["CONSTANTS", "FILE_KINDS", "RULESET_SCHEMA", "SALIENCE", "CompiledRule", "Conclusion",
           "RuleSet", "all_rules", "compile_ruleset", "format_template", "load_ruleset",
           "parse_ruleset", "rule_files", "default_rulesets", "KIND_FOLDERS", "SHARED", "find_rule_file",
           "written_clash", "load_user_rules"]

#: Rule-file kind -> its folder under ``rules/``.
KIND_FOLDERS = {"deduction": "deduction", "strategy": "strategies", "response": "responses",
                "accusation": "accusations", "model": "models"}
#: The folder under ``rules/`` of shared rule files: blocks that files include, and
#: parameterised files that others extend (any kind; never offered as a seat's choice).
SHARED = "shared"
_REF_ID = re.compile(r"[a-z0-9][a-z0-9-]*(/[a-z0-9][a-z0-9-]*){0,3}")


def find_rule_file(ref: str, from_path: str | Path, kind: str) -> Path:
    """The file an ``extends:`` or ``include:`` names: a path ending in
    ``.yaml`` (relative to the naming file), or an id, looked up beside the
    naming file, then under the shipped ``rules/`` (``shared/no-intelligence``),
    then in the shipped folder of the kind (``minimal-information``)."""
    base = Path(from_path).parent
    if ref.endswith((".yaml", ".yml")):
        path = Path(ref) if Path(ref).is_absolute() else base / ref
        if not path.is_file():
            raise RuleFileError(str(from_path), None, f"names the rule file {ref!r}, which does not exist")
        return path
    if not _REF_ID.fullmatch(ref):
        raise RuleFileError(str(from_path), None, f"names {ref[:80]!r}, which is neither a rule file id "
                                                  f"(like shared/no-intelligence) nor a .yaml path")
    root = data_dir("rules")
    folder = KIND_FOLDERS.get(kind, kind)
    for candidate in (base / f"{ref}.yaml", root / f"{ref}.yaml", root / folder / f"{ref}.yaml"):
        if candidate.is_file() and not candidate.name.endswith(".test.yaml"):
            return candidate
    names = sorted({p.stem for p in rule_files(folder)} | {f"{SHARED}/{p.stem}" for p in rule_files(SHARED)})
    near = difflib.get_close_matches(ref, names, n=3, cutoff=0.5)
    raise RuleFileError(str(from_path), None, f"names the rule file {ref!r}, which is neither beside it nor a "
                                              f"shipped {kind} or shared file"
                        + (f"; did you mean {', '.join(near)}?" if near else ""))


def visible_texts(raw: Any) -> Any:
    """A parsed rule file with the control, format and separator characters
    of its texts -- title, description, rule messages and contradictions --
    escaped (:func:`clue_expert.core.text.visible`): what a terminal shows
    of them is plain text.  Anything else is left for the schema to judge."""
    if not isinstance(raw, dict):
        return raw
    for key in ("title", "description"):
        if isinstance(raw.get(key), str):
            raw[key] = visible(raw[key], keep_newlines=key == "description")
    for rule in raw.get("rules") or () if isinstance(raw.get("rules"), list) else ():
        if not isinstance(rule, dict):
            continue
        for key in ("message", "title", "description"):
            if isinstance(rule.get(key), str):
                rule[key] = visible(rule[key])
        for item in rule.get("then") or () if isinstance(rule.get("then"), list) else ():
            if isinstance(item, dict) and isinstance(item.get("contradiction"), str):
                item["contradiction"] = visible(item["contradiction"])
    return raw


def _load_reference(ref: str, from_path: str, kind: str) -> tuple[Any, str]:
    path = find_rule_file(ref, from_path, kind)
    try:
        return visible_texts(load_file(path, "rule")), str(path)
    except FileLoadError as exc:
        raise RuleFileError(str(path), None, exc.problem) from None


def load_ruleset(path: str | Path, count: RuleCount | None = None) -> RuleSet:
    """Load, validate and compile one rule file.  Raises
    :class:`RuleFileError` naming the file, the rule and the problem.
    ``count`` (:func:`clue_expert.engine.language.compiler.rule_count`) adds its rules
    to a count shared with other files compiled together."""
    path = str(path)
    try:
        raw = visible_texts(load_file(path, "rule"))
    except FileLoadError as exc:
        raise RuleFileError(path, None, exc.problem) from None
    try:
        return parse_ruleset(raw, path, count)
    except RuleFileError as exc:  # a hostile file's values stay out of the message
        rule = None if exc.rule is None else str(exc.rule)  # a hostile id may be any YAML value
        if (rule is None or len(rule) <= 80) and len(exc.problem) <= 500 and rule == exc.rule:
            raise
        rule = rule if rule is None or len(rule) <= 80 else rule[:79] + "…"
        problem = exc.problem if len(exc.problem) <= 500 else exc.problem[:499] + "…"
        raise RuleFileError(exc.path, rule, problem) from None


def parse_ruleset(raw: Any, path: str, count: RuleCount | None = None) -> RuleSet:
    """Validate and compile an already-parsed rule file against the rule
    library; the files it extends or includes are read from disk (``count``:
    see :func:`load_ruleset`)."""
    return compile_ruleset(raw, path, FUNCTIONS, load=_load_reference, _trail=count)


def rule_files(kind: str = "deduction", root: str | Path | None = None) -> list[Path]:
    """The rule files (not scenario files) of ``rules/<kind>/``."""
    base = Path(root) if root else data_dir("rules")
    return sorted(p for p in (base / kind).glob("*.yaml") if not p.name.endswith(".test.yaml"))


def load_user_rules(paths, option: str = "--rules") -> tuple[RuleSet, ...]:
    """A user's deduction or model rule files (``deduce --rules FILE``, a seat's
    ``rules=FILE``), each loaded once; another kind is an error naming ``option``."""
    out = []
    for path in dict.fromkeys(str(p) for p in paths):
        rs = load_ruleset(path)
        if rs.kind not in ("deduction", "model"):
            raise RuleFileError(path, None, f"is a {rs.kind} rule file; {option} takes deduction or model "
                                            f"rule files")
        out.append(rs)
    return tuple(out)


@functools.lru_cache(maxsize=None)
def default_rulesets() -> tuple[RuleSet, ...]:
    """The shipped deduction rule files, compiled."""
    return tuple(load_ruleset(p) for p in rule_files("deduction"))
