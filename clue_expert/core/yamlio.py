"""One bounded YAML/JSON loader for every file clue-expert reads.

Records, notebooks, rule files, editions, deals and knowledge levels all go
through :func:`load_file` (or :func:`load_text` for text in hand), which
refuses hostile input with one short :class:`FileLoadError` naming the file
and the limit, before any of it is expanded:

* a size cap per kind of file (:data:`MAX_BYTES`);
* JSON (text starting with ``{`` or ``[``) is parsed by :mod:`json`, YAML by
  libyaml (``yaml.CSafeLoader``) when it is available, else ``SafeLoader``;
* nesting deeper than :data:`MAX_DEPTH` collections is refused — measured on
  the parser's event stream, so nothing recurses before the check;
* YAML aliases (``*name``): at most :data:`MAX_ALIASES` of them, adding at
  most :data:`MAX_ALIAS_NODES` values when expanded, never an alias inside
  the value it names (a recursive structure).

:func:`shorten` is for putting a user's value into an error message: one
line, at most ``n`` characters, whatever the value holds.

See ``docs/limits.md``.
"""
from __future__ import annotations

import json
import reprlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import yaml

from .errors import ClueError

#: Size caps, in bytes, per kind of file.
MAX_BYTES: dict[str, int] = {
    "record": 20_000_000,
    "notebook": 20_000_000,
    "rule": 1_000_000,
    "edition": 256_000,
    "deal": 256_000,
    "level": 64_000,
    "board": 256_000,
}
#: The cap for a kind not in :data:`MAX_BYTES`.
DEFAULT_MAX_BYTES = 1_000_000
#: How deeply collections (mappings and lists) may nest; the top level is 1.
MAX_DEPTH = 50
#: How many YAML aliases (``*name``) a file may use.
MAX_ALIASES = 50
#: How many values the aliases of a file may add when expanded.
MAX_ALIAS_NODES = 10_000
#: How many values (scalars, mappings and lists, mapping keys included, aliases
#: expanded) a file of each kind may hold; counted on the parser's events
#: before anything is composed.
MAX_NODES: dict[str, int] = {
    "record": 200_000,
    "notebook": 200_000,
    "rule": 100_000,
    "edition": 20_000,
    "deal": 20_000,
    "level": 5_000,
    "board": 20_000,
}
#: The node cap for a kind not in :data:`MAX_NODES`.
DEFAULT_MAX_NODES = 100_000

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_OPEN = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSE = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


class FileLoadError(ClueError):
    """A file that cannot be read as YAML/JSON, or that breaks a limit.
    ``str()`` is ``"SOURCE: PROBLEM"``; each loader re-raises the problem
    as its own error type (``RecordError``, ``RuleFileError``, …)."""

    def __init__(self, source: str, problem: str):
        #: The file (or other origin).
        self.source = str(source)
        #: What is wrong, one line, without the file name.
        self.problem = problem
        super().__init__(f"{self.source}: {problem}")

    def __reduce__(self):
        return (FileLoadError, (self.source, self.problem))


def _one_line(text: object, n: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = 6


def shorten(value: object, n: int = 80) -> str:
    """``repr(value)`` for an error message: one line, at most ``n``
    characters, cheap for any size or shape of value (huge strings, deep or
    self-referencing lists)."""
    _REPR.maxstring = _REPR.maxother = max(n, 10)
    try:
        text = _REPR.repr(value)
    except Exception:  # pragma: no cover - a repr that fails
        text = f"<{type(value).__name__}>"
    return _one_line(text, n)


def limit_for(what: str) -> int:
    """The size cap of a kind of file."""
    return MAX_BYTES.get(what, DEFAULT_MAX_BYTES)


def _mark(exc: BaseException) -> str:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return f" (line {mark.line + 1})" if mark is not None else ""


def nodes_for(what: str) -> int:
    """The node cap of a kind of file."""
    return MAX_NODES.get(what, DEFAULT_MAX_NODES)


def _too_many(source: str, what: str, cap: int, where: str = "") -> FileLoadError:
    return FileLoadError(source, f"the {what} file holds more than {cap:,} values{where} (the limit on values "
                                 f"per {what} file, mapping keys and expanded aliases included)")


@dataclass
class _Open:
    """A collection being read: its anchor, the values read before it, its
    depth and the deepest level inside it so far; for a mapping, the keys
    seen and whether the last value read in it was a key."""

    anchor: str | None
    start: int
    depth: int
    deepest: int
    keys: set | None
    after_key: bool = False

    def key_seen(self, ev, source: str) -> None:
        """A value just read inside a mapping: when it is a key, refuse one the
        mapping already has (YAML would keep the last silently)."""
        if self.keys is None:
            return
        self.after_key = not self.after_key
        if not self.after_key:  # this value was a key's value: the next one is a key
            return
        if isinstance(ev, yaml.ScalarEvent):
            key = ev.value
            if key == "<<" and ev.implicit[0]:
                return  # a merge key
            if key in self.keys:
                raise FileLoadError(source, f"the key {shorten(key, 60)} appears twice in one mapping{_mark_of(ev)} "
                                            f"(a key may be given once)")
            self.keys.add(key)


class _EventCounter:
    """Depth, alias, node-count and duplicate-key limits, counted event by
    event (aliases expanded by the size of the value they name)."""

    def __init__(self, source: str, what: str) -> None:
        self.source, self.what, self.cap = source, what, nodes_for(what)
        self.depth = 0
        self.nodes = 0  # values so far, aliases expanded
        self.aliases = 0
        self.added = 0  # values the aliases added
        self.stack: list[_Open] = []
        self.done: dict[str, tuple[int, int]] = {}  # anchor -> (values, height)

    def count(self, ev, size: int = 1) -> None:
        self.nodes += size
        if self.nodes > self.cap:
            raise _too_many(self.source, self.what, self.cap, _mark_of(ev))

    def scalar(self, ev) -> None:
        self.count(ev)
        if ev.anchor is not None:
            self.done[ev.anchor] = (1, 0)
        if self.stack:
            self.stack[-1].key_seen(ev, self.source)

    def open(self, ev) -> None:
        self.count(ev)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FileLoadError(self.source, f"nested more than {MAX_DEPTH} levels deep"
                                             f"{_mark_of(ev)}; the limit is {MAX_DEPTH}")
        if self.stack:
            self.stack[-1].key_seen(ev, self.source)
        mapping = isinstance(ev, yaml.MappingStartEvent)
        self.stack.append(_Open(ev.anchor, self.nodes, self.depth, self.depth, set() if mapping else None))

    def close(self, ev) -> None:
        entry = self.stack.pop()
        if entry.anchor is not None:
            self.done[entry.anchor] = (self.nodes - entry.start + 1, entry.deepest - entry.depth + 1)
        if self.stack:
            self.stack[-1].deepest = max(self.stack[-1].deepest, entry.deepest)
        self.depth -= 1

    def alias(self, ev) -> None:
        source = self.source
        self.aliases += 1
        if self.aliases > MAX_ALIASES:
            raise FileLoadError(source, f"more than {MAX_ALIASES} YAML aliases (*name){_mark_of(ev)}; "
                                        f"write the values out")
        if any(entry.anchor == ev.anchor for entry in self.stack):
            raise FileLoadError(source, f"the YAML alias *{_one_line(ev.anchor, 40)} is inside the value "
                                        f"it names{_mark_of(ev)}")
        if ev.anchor not in self.done:
            return  # an undefined alias: the loader reports it
        if self.stack:
            self.stack[-1].key_seen(ev, source)
        size, height = self.done[ev.anchor]
        self.count(ev, size)
        self.added += size
        if self.added > MAX_ALIAS_NODES:
            raise FileLoadError(source, f"YAML aliases expand to more than {MAX_ALIAS_NODES:,} "
                                        f"values{_mark_of(ev)}")
        if self.depth + height > MAX_DEPTH:
            raise FileLoadError(source, f"nested more than {MAX_DEPTH} levels deep (through the alias "
                                        f"*{_one_line(ev.anchor, 40)}){_mark_of(ev)}; the limit is "
                                        f"{MAX_DEPTH}")
        if self.stack:
            self.stack[-1].deepest = max(self.stack[-1].deepest, self.depth + height)

    def event(self, ev) -> None:
        if isinstance(ev, yaml.ScalarEvent):
            self.scalar(ev)
        elif isinstance(ev, _OPEN):
            self.open(ev)
        elif isinstance(ev, _CLOSE):
            self.close(ev)
        elif isinstance(ev, yaml.AliasEvent):
            self.alias(ev)


def _check_events(text: str, source: str, what: str = "record") -> None:
    """Depth, alias, node-count and duplicate-key limits, read off the
    parser's event stream (no recursion, nothing composed)."""
    loader = _LOADER(text)
    counter = _EventCounter(source, what)
    try:
        while loader.check_event():
            counter.event(loader.get_event())
    finally:
        loader.dispose()


def _mark_of(ev) -> str:
    mark = getattr(ev, "start_mark", None)
    return f" at line {mark.line + 1}" if mark is not None else ""


def _json_depth_ok(data: object) -> bool:
    """Whether parsed JSON nests at most :data:`MAX_DEPTH` levels (iterative)."""
    stack = [(data, 1)]
    while stack:
        value, level = stack.pop()
        children: Iterable[object]
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if level > MAX_DEPTH:
            return False
        stack.extend((c, level + 1) for c in children if isinstance(c, (dict, list)))
    return True


def _json_pairs(source: str):
    """An ``object_pairs_hook`` refusing a key given twice in one object."""
    def pairs(items: list) -> dict:
        out = dict(items)
        if len(out) != len(items):
            seen: set = set()
            for key, _ in items:
                if key in seen:
                    raise FileLoadError(source, f"the key {shorten(key, 60)} appears twice in one mapping "
                                                f"(a key may be given once)")
                seen.add(key)
        return out
    return pairs


def _json_nodes_over(data: object, cap: int) -> bool:
    """Whether parsed JSON holds more than ``cap`` values (keys included; iterative, stops at the cap)."""
    count = 0
    stack = [data]
    while stack:
        value = stack.pop()
        count += 1
        if isinstance(value, dict):
            count += len(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        if count > cap:
            return True
    return False


def load_text(text: str, source: str = "<text>", what: str = "record") -> object:
    """Parse YAML or JSON text under the limits; any problem is one
    :class:`FileLoadError` naming ``source``."""
    source = str(source)
    limit = limit_for(what)
    if len(text) > limit:
        raise FileLoadError(source, f"the {what} is {len(text):,} characters, more than the limit of "
                                    f"{limit:,} bytes")
    body = text.lstrip(" \t\r\n\ufeff")
    if body[:1] in ("{", "["):
        cap = nodes_for(what)
        # every value but the first of a collection follows a comma, and a key
        # its colon: an upper bound on the values, read without parsing
        if body.count(",") + body.count(":") + body.count("[") + body.count("{") + 1 > cap:
            try:
                over = _json_nodes_over(json.loads(body), cap)
            except (RecursionError, ValueError):
                over = False  # reported below
            if over:
                raise _too_many(source, what, cap)
        try:
            data = json.loads(body, object_pairs_hook=_json_pairs(source))
        except FileLoadError:
            raise
        except RecursionError:
            raise FileLoadError(source, f"nested more than {MAX_DEPTH} levels deep; the limit is "
                                        f"{MAX_DEPTH}") from None
        except ValueError:
            pass  # not JSON (a YAML flow collection, or broken): YAML says what is wrong
        else:
            if not _json_depth_ok(data):
                raise FileLoadError(source, f"nested more than {MAX_DEPTH} levels deep; the limit is {MAX_DEPTH}")
            return data
    try:
        _check_events(text, source, what)
        return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader
    except FileLoadError:
        raise
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc)
        if "nesting depth" in problem:
            # libyaml (bundled with PyYAML >= 6.0.3) refuses nesting past its own
            # limit of 1,000 while scanning ahead, before the event check above
            # reaches level MAX_DEPTH + 1: the same fault, said the project's way.
            raise FileLoadError(source, f"nested more than {MAX_DEPTH} levels deep{_mark(exc)}; the limit is "
                                        f"{MAX_DEPTH}") from None
        raise FileLoadError(source, f"not valid YAML{_mark(exc)}: {_one_line(problem)}") from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise FileLoadError(source, f"nested more than {MAX_DEPTH} levels deep; the limit is {MAX_DEPTH}") from None
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. an integer of more than 4300 digits
        raise FileLoadError(source, f"not valid YAML: {_one_line(exc)}") from None


def load_file(path: str | Path, what: str = "record") -> object:
    """Read and parse a YAML or JSON file of kind ``what`` (a key of
    :data:`MAX_BYTES`) under the limits; any problem — unreadable, too big,
    not UTF-8, not YAML, a limit — is one :class:`FileLoadError` naming the file."""
    source = str(path)
    limit = limit_for(what)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise FileLoadError(source, f"cannot read ({_one_line(exc.strerror or exc)})") from None
    if len(raw) > limit:
        try:
            size = Path(path).stat().st_size
        except OSError:  # pragma: no cover
            size = 0
        known = f" ({size:,} bytes)" if size > limit else ""
        raise FileLoadError(source, f"the {what} file is larger than the limit of {limit:,} bytes{known}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FileLoadError(source, "not a UTF-8 text file (YAML or JSON expected)") from None
    return load_text(text, source, what)
