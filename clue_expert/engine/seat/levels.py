"""Knowledge levels as data: which deduction rule files a seat runs, whether
the completion (SAT case analysis) step runs, and when the seat takes in what
it observed.

A level is a YAML file in ``clue_expert/levels/`` (or anywhere, given by path);
its deduction rule files live under ``rules/`` (the new levels' in
``rules/levels/LEVEL/``)::

    id: kingston
    title: Kingston's JESS player (AISB 2017)
    description: what it knows and what it does not
    deduction: [levels/kingston/logic, levels/kingston/sheet]   # rule files under rules/, no .yaml
    completion: false                                           # the SAT case analysis
    update: every-event                                         # or own-turn

Shipped: ``complete`` (every deduction rule file and the case analysis: every
entailed fact), ``kingston`` (his JESS player's reasoning) and ``mitchell``
(her seven deductions, taken in at her own turn).
"""
from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import ClueError, UnknownEngineError
from ...core.paths import data_dir, levels_dir
from ...core.yamlio import MAX_BYTES, FileLoadError, load_file, shorten
from ..engines import check_engine_name
from ..language.compiler import RuleSet, rule_count
from ..language.rules import load_ruleset

#: The level a seat gets unless told otherwise.
DEFAULT_LEVEL = "complete"
#: When a seat takes in observations.
UPDATES = ("every-event", "own-turn")
MAX_LEVEL_BYTES = MAX_BYTES["level"]
#: Rule files one level may name in ``deduction:`` (checked, with duplicates, before any is compiled).
MAX_LEVEL_FILES = 64


class LevelError(ClueError):
    """A knowledge level that is unknown or malformed."""


@dataclass(frozen=True)
class Level:
    """A knowledge level."""

    id: str
    """Kebab-case id."""
    title: str
    """One line."""
    deduction: tuple[str, ...]
    """Rule files (paths under ``rules/`` without ``.yaml``, or file paths)."""
    completion: bool
    """Whether the SAT case analysis runs after the rules."""
    update: str = "every-event"
    """``every-event``, or ``own-turn``: the seat takes in what it saw only
    at the start of its own turn (and the answers to its own suggestion at once)."""
    description: str = ""
    """What the level knows and what it does not."""
    path: str = ""
    """The file it came from."""
    metadata: dict = field(default_factory=dict, compare=False)
    """Sources and tags."""
    engine: str | None = None
    """The rule engine it runs on (``engine:``; None: the command's or the default)."""

    def rulesets(self) -> tuple[RuleSet, ...]:
        """The level's deduction rule files, compiled."""
        return _rulesets(self.deduction, str(Path(self.path).parent) if self.path else "", self.path or self.id)


@functools.lru_cache(maxsize=None)
def _rulesets(names: tuple, base: str, source: str = "") -> tuple[RuleSet, ...]:
    root = data_dir("rules")
    out = []
    # the level's rules counted together, file by file before each is compiled (language.MAX_RULES)
    count = rule_count(f"the rule files of the knowledge level {source}, with the files they extend "
                       f"or include")
    for name in names:
        shipped = root / f"{name}.yaml"
        local = Path(base) / name if base else None
        count.count = 0  # the files each one brings in are counted per file (MAX_REUSE_FILES)
        if shipped.exists():
            out.append(load_ruleset(shipped, count))
        elif local is not None and local.exists():
            out.append(load_ruleset(local, count))
        else:
            raise LevelError(f"knowledge level names the rule file {shorten(name)}, which is neither "
                             f"rules/{name}.yaml nor a file")
    return tuple(out)


def _parse(data: object, path: str) -> Level:
    if not isinstance(data, dict):
        raise LevelError(f"{path}: a knowledge level must be a mapping")
    extra = set(data) - {"id", "title", "description", "deduction", "completion", "update", "metadata", "engine"}
    if extra:
        raise LevelError(f"{path}: unknown key(s) {shorten(', '.join(sorted(map(str, extra))))}")
    for key in ("id", "deduction", "completion"):
        if key not in data:
            raise LevelError(f"{path}: missing key {key!r}")
    deduction = data["deduction"]
    if not isinstance(deduction, list) or not all(isinstance(d, str) for d in deduction):
        raise LevelError(f"{path}: 'deduction' must be a list of rule file names")
    if len(deduction) > MAX_LEVEL_FILES:
        raise LevelError(f"{path}: 'deduction' names {len(deduction):,} rule files, more than the limit of "
                         f"{MAX_LEVEL_FILES} per level")
    seen: set[str] = set()
    for name in deduction:
        if name in seen:
            raise LevelError(f"{path}: 'deduction' names the rule file {shorten(name)} twice")
        seen.add(name)
    if not isinstance(data["completion"], bool):
        raise LevelError(f"{path}: 'completion' must be true or false")
    if not isinstance(data.get("metadata") or {}, dict):
        raise LevelError(f"{path}: 'metadata' must be a mapping")
    update = data.get("update", "every-event")
    if update not in UPDATES:
        raise LevelError(f"{path}: 'update' must be one of {', '.join(UPDATES)}, got {shorten(update)}")
    engine = data.get("engine")
    if engine is not None:
        try:
            engine = check_engine_name(str(engine))
        except UnknownEngineError as exc:
            raise LevelError(f"{path}: 'engine': {exc}") from None
    return Level(id=str(data["id"]), title=str(data.get("title", data["id"])), deduction=tuple(deduction),
                 completion=data["completion"], update=update, description=str(data.get("description", "")),
                 path=path, metadata=dict(data.get("metadata") or {}), engine=engine)


def load_level(path: str | Path) -> Level:
    """Read a level file."""
    path = Path(path)
    try:
        data = load_file(path, "level")
    except FileLoadError as exc:
        raise LevelError(f"{exc.source}: {exc.problem}") from None
    return _parse(data, str(path))


def available_levels() -> list[str]:
    """Ids of the shipped levels."""
    return sorted(p.stem for p in levels_dir().glob("*.yaml"))


@functools.lru_cache(maxsize=None)
def get_level(name: str | Level = DEFAULT_LEVEL) -> Level:
    """A shipped level by id, or a level file by path."""
    if isinstance(name, Level):
        return name
    text = str(name)
    if text.endswith((".yaml", ".yml")):
        return load_level(text)
    path = levels_dir() / f"{text}.yaml"
    if not path.exists():
        names = available_levels()
        near = difflib.get_close_matches(text, names, n=3, cutoff=0.4)
        raise LevelError(f"unknown knowledge level {shorten(text)}" + (f"; did you mean {', '.join(near)}?" if near
                                                                 else f"; levels: {', '.join(names)}"))
    return load_level(path)
