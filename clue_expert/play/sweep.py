"""Sweeps: a grid of tournaments from one YAML file, resumable.

A sweep file names lineups (who plays, like ``simulate --strategy``), player
counts, and either editions (Speed Clue) or the generalized game's hand sizes
and hidden cards; every combination is a *cell*, a tournament of ``games``
games seeded exactly as ``simulate`` seeds them (so a cell's summary equals
``simulate``'s with the same options).  See docs/strategies.md#sweeps and
docs/examples/sweeps/two-lineups.yaml.

Finished cells are appended, one JSON object a line, to ``cells.jsonl`` in
the output folder as each one finishes; a rerun reads it and plays only the
cells not in it (a cell is identified by everything that decides its games:
lineup, game, edition, players, games, seed, seating, response, accusation,
round cap).  The results are written as ``results.csv`` (one row per cell and
strategy), and also ``results.parquet`` when pyarrow is installed.
"""
from __future__ import annotations

import bisect
import csv
import difflib
import io
import itertools
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import jsonschema
import yaml

from ..core.cards import get_edition
from ..core.errors import ClueError
from ..core.yamlio import FileLoadError, load_file, shorten
from .players import DEFAULT_ACCUSATION, DEFAULT_RESPONSE, load_decisions, parse_seat
from .stopping import signals_held
from .simulate import GameSpec, GameSpecs, GameSummary, Interrupted, check_players, make_specs, run_games, summarize

#: Most cells a sweep may have, and most games in all.
MAX_CELLS = 10_000
MAX_GAMES = 10_000_000
#: Version of the lines of cells.jsonl (a change of meaning changes every cell's key).
FORMAT = 1

_SEAT = {"type": "string", "minLength": 1, "maxLength": 500}
_SEATS = {"type": "array", "items": _SEAT, "minItems": 1, "maxItems": 10}


def _one_or_many(item: dict, most: int) -> dict:
    return {"anyOf": [item, {"type": "array", "items": item, "minItems": 1, "maxItems": most, "uniqueItems": True}]}


#: The sweep file's schema (JSON Schema 2020-12).
SWEEP_SCHEMA = {
    "type": "object",
    "required": ["lineups", "players", "games"],
    "additionalProperties": False,
    "properties": {
        "title": {"type": "string", "maxLength": 200},
        "seed": {"type": "integer", "minimum": 0, "maximum": 2 ** 63 - 1},
        "games": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
        "lineups": {"type": "array", "minItems": 1, "maxItems": 200, "items": {"anyOf": [
            _SEAT, _SEATS,
            {"type": "object", "required": ["seats"], "additionalProperties": False,
             "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 100}, "seats": _SEATS}}]}},
        "players": _one_or_many({"type": "integer", "minimum": 2, "maximum": 10}, 9),
        "game": _one_or_many({"enum": ["speed-clue", "generalized"]}, 2),
        "editions": _one_or_many({"type": "string", "minLength": 1, "maxLength": 500}, 50),
        "hands": _one_or_many({"type": "integer", "minimum": 1, "maximum": 100}, 50),
        "hidden": _one_or_many({"type": "integer", "minimum": 1, "maximum": 100}, 50),
        "seating": {"enum": ["rotate", "shuffle"]},
        "response": {"type": "string", "minLength": 1, "maxLength": 500},
        "accusation": {"type": "string", "minLength": 1, "maxLength": 500},
        "max_rounds": {"type": "integer", "minimum": 1, "maximum": 10_000},
    },
}


class SweepError(ClueError):
    """A sweep file that cannot be run: ``FILE: line N: at PATH: PROBLEM``."""


@dataclass(frozen=True)
class Cell:
    """One tournament of the grid."""

    lineup: str
    """The lineup's name (given, or its seats joined by `` + ``)."""
    seats: tuple
    """Seat specs, rotated across games as ``simulate --strategy`` does."""
    game: str
    """``speed-clue`` or ``generalized``."""
    edition: str
    """The edition of its random deals (for the generalized game its pool, ``pool-N-K``)."""
    players: int
    hand: int | None
    """Generalized game: cards per player (None for Speed Clue)."""
    hidden: int | None
    """Generalized game: hidden cards (None for Speed Clue)."""

    def label(self) -> str:
        where = self.edition if self.game == "speed-clue" else f"generalized, hand {self.hand}, hidden {self.hidden}"
        return f"{self.lineup} — {self.players} players, {where}"

    def to_json(self) -> dict:
        return {"lineup": self.lineup, "seats": list(self.seats), "game": self.game, "edition": self.edition,
                "players": self.players, "hand": self.hand, "hidden": self.hidden}


@dataclass(frozen=True)
class Sweep:
    """A validated sweep file."""

    path: str
    title: str
    cells: tuple
    games: int
    """Games per cell."""
    seed: int
    seating: str
    response: str
    accusation: str
    max_rounds: int

    def key(self, cell: Cell) -> str:
        """What identifies a cell's games (its line in cells.jsonl)."""
        return json.dumps({"format": FORMAT, **cell.to_json(), "games": self.games, "seed": self.seed,
                           "seating": self.seating, "response": self.response, "accusation": self.accusation,
                           "max_rounds": self.max_rounds}, sort_keys=True)

    def specs(self, cell: Cell, engine: str | None = None) -> GameSpecs:
        """The games of a cell: :func:`make_specs` with the cell's options (``engine``: the command's
        ``--engine``, or None)."""
        return make_specs(players=cell.players, games=self.games, seed=self.seed, strategies=list(cell.seats),
                          edition=cell.edition, response=self.response, accusation=self.accusation,
                          max_rounds=self.max_rounds, game=cell.game, seating=self.seating, engine=engine)


# -- reading a sweep file ------------------------------------------------------------
def _line_of(text: str, path: Sequence) -> int | None:
    """The line of the value at ``path`` (keys and indexes) in YAML ``text``."""
    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:  # pragma: no cover - the loader already accepted it
        return None
    for step in path:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == step), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
        else:
            node = None
        if node is None:
            return None
    return node.start_mark.line + 1 if node is not None else None


def _cut(text: str, n: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _specific(err: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """Inside an ``anyOf`` (one value or a list of them, a seat or a list of
    seats), the error of the alternative the value was meant for: the one
    whose type fits, deepest first."""
    while err.validator == "anyOf" and err.context:
        fitting = [e for e in err.context if not (e.validator == "type" and not e.relative_path)]
        if not fitting:
            break
        err = max(fitting, key=lambda e: len(e.absolute_path))
    return err


def _problem(err: jsonschema.ValidationError) -> str:
    """A schema error in a few words, never quoting much of the file's own values."""
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = list(err.schema.get("properties") or {})
        extra = [k for k in err.instance if k not in allowed]
        key = str(extra[0]) if extra else "?"
        near = difflib.get_close_matches(key, allowed, n=3, cutoff=0.5)
        return (f"unknown key {shorten(key, 60)}" +
                (f"; did you mean {', '.join(near)}?" if near else f"; known keys: {', '.join(allowed)}"))
    if err.validator == "required":
        missing = [k for k in err.validator_value if not isinstance(err.instance, dict) or k not in err.instance]
        return ", ".join(missing) + (" is" if len(missing) == 1 else " are") + " missing"
    if err.validator == "anyOf":
        kinds = []
        for e in err.context:
            if e.validator == "type" and not e.relative_path:
                kind = str(e.validator_value)
                kinds.append("a list" if kind == "array" else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}")
            elif e.validator == "enum":
                kinds.append(" or ".join(repr(v) for v in e.validator_value))
        return f"{shorten(err.instance, 60)} is not {' or '.join(dict.fromkeys(kinds)) or 'valid here'}"
    return _cut(err.message)


def _fail(source: str, text: str, where: Sequence, problem: str):
    line = _line_of(text, where) if text else None
    loc = "/".join(str(p) for p in where)
    raise SweepError(f"{source}: " + (f"line {line}: " if line else "") + (f"at {loc}: " if loc else "") + problem)


def _many(value) -> list:
    return list(value) if isinstance(value, list) else [value]


def load_sweep(path: str | Path) -> Sweep:
    """Read and validate a sweep file: schema, every seat, edition and player
    count checked before any game is played; one :class:`SweepError` naming
    the file, the line and the key otherwise."""
    source = str(path)
    try:
        raw = load_file(path, "sweep")
    except FileLoadError as exc:
        raise SweepError(str(exc)) from None
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):  # pragma: no cover - load_file read it
        text = ""
    if not isinstance(raw, dict):
        raise SweepError(f"{source}: a sweep file is a mapping (seed, games, lineups, players, ...); "
                         f"see docs/examples/sweeps/two-lineups.yaml")
    errors = list(itertools.islice(jsonschema.Draft202012Validator(SWEEP_SCHEMA).iter_errors(raw), 100))
    if errors:
        err = _specific(min(errors, key=lambda e: (list(map(str, e.absolute_path)),
                                                   e.validator != "additionalProperties")))
        _fail(source, text, list(err.absolute_path), _problem(err))
    response = raw.get("response", DEFAULT_RESPONSE)
    accusation = raw.get("accusation", DEFAULT_ACCUSATION)
    for key, value in (("response", response), ("accusation", accusation)):
        try:
            load_decisions(key, value)
        except ClueError as exc:
            _fail(source, text, [key], str(exc))
    lineups = _sweep_lineups(raw, response, accusation, source, text)
    cells = _sweep_cells(raw, lineups, source, text)
    if len(cells) > MAX_CELLS or len(cells) * raw["games"] > MAX_GAMES:
        raise SweepError(f"{source}: {len(cells):,} cells of {raw['games']:,} games; the limits are "
                         f"{MAX_CELLS:,} cells and {MAX_GAMES:,} games in all")
    return Sweep(path=source, title=raw.get("title") or Path(source).stem, cells=tuple(cells), games=raw["games"],
                 seed=raw.get("seed", 1), seating=raw.get("seating", "rotate"), response=response,
                 accusation=accusation, max_rounds=raw.get("max_rounds", 60))


def _sweep_lineups(raw: dict, response, accusation, source: str, text: str) -> list:
    """A sweep file's lineups, (name, seats), every seat checked and every name once."""
    lineups = []
    for i, item in enumerate(raw["lineups"]):
        name, seats = None, item
        if isinstance(item, dict):
            name, seats = item.get("name"), item["seats"]
        seats = _many(seats)
        for j, seat in enumerate(seats):
            try:
                parse_seat(seat, response, accusation)
            except ClueError as exc:
                where = ["lineups", i] + (["seats"] if isinstance(item, dict) else []) + \
                        ([j] if isinstance(item, (list, dict)) else [])
                _fail(source, text, where, str(exc))
        lineups.append((name or " + ".join(seats), tuple(seats)))
    names = [n for n, _ in lineups]
    for i, n in enumerate(names):
        if names.index(n) != i:
            _fail(source, text, ["lineups", i], f"the lineup {shorten(n, 80)} appears twice (give one a name:)")
    return lineups


def _sweep_cells(raw: dict, lineups: list, source: str, text: str) -> list:
    """The grid's cells: every lineup x player count x edition (Speed Clue) or
    hand and hidden sizes (the generalized game), each checked to be playable."""
    games_kinds = _many(raw.get("game", "speed-clue"))
    if "speed-clue" not in games_kinds and "editions" in raw:
        _fail(source, text, ["editions"], "editions are for Speed Clue; the generalized game's pool is built "
                                          "from hands and hidden")
    if "generalized" not in games_kinds:
        for key in ("hands", "hidden"):
            if key in raw:
                _fail(source, text, [key], f"{key} are for the generalized game: add game: generalized")
    editions = _many(raw.get("editions", "cluedo"))
    for i, e in enumerate(editions):
        try:
            get_edition(e)
        except ClueError as exc:
            _fail(source, text, ["editions"] + ([i] if isinstance(raw.get("editions"), list) else []), str(exc))
    cells = []
    for game in games_kinds:
        if game == "speed-clue":
            grid = [(e, None, None) for e in editions]
        else:
            grid = [(None, h, k) for h in _many(raw.get("hands", 3)) for k in _many(raw.get("hidden", 2))]
        for (name, seats), n, (edition, hand, hidden) in itertools.product(lineups, _many(raw["players"]), grid):
            ed = edition or f"pool-{n * hand + hidden}-{hidden}"
            try:
                check_players(n, get_edition(ed))
            except ClueError as exc:
                _fail(source, text, ["players"], str(exc))
            cells.append(Cell(name, seats, game, ed, n, hand, hidden))
    return cells


# -- the output folder ----------------------------------------------------------------
CELLS_FILE = "cells.jsonl"
CSV_FILE = "results.csv"
PARQUET_FILE = "results.parquet"


def read_finished(folder: str | Path, sweep: Sweep) -> dict:
    """key -> line of every cell of ``sweep`` finished in ``folder``'s
    cells.jsonl.  A last line cut short by an interruption is dropped (and
    the file rewritten without it); lines of other sweeps' cells are kept in
    the file but not returned."""
    path = Path(folder) / CELLS_FILE
    if not path.exists():
        return {}
    if path.is_dir():
        raise SweepError(f"{path} is a folder, not the sweep's cells file")
    raw = path.read_bytes()
    lines, good = raw.split(b"\n"), []
    done = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            key = item["key"]
            item["summary"]["games"]
        except (ValueError, KeyError, TypeError):
            if n >= len(lines) - 1:  # the last line, written when the run was killed
                continue
            raise SweepError(f"{path}: line {n} is not a finished cell; move the file away to start afresh") from None
        good.append(line)
        done[key] = item
    kept = b"".join(g + b"\n" for g in good)
    if kept != raw:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(kept)
        os.replace(tmp, path)
    keys = {sweep.key(c) for c in sweep.cells}
    return {k: v for k, v in done.items() if k in keys}


def _append(folder: Path, line: dict) -> None:
    """One finished cell, appended whole: a stop signal waits for the line (and its fsync)."""
    text = json.dumps(line, sort_keys=True) + "\n"
    with signals_held(), open(folder / CELLS_FILE, "a", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


#: The columns of results.csv, in order.
COLUMNS = ["lineup", "game", "edition", "players", "hand", "hidden", "games", "seed", "strategy", "seat_games",
           "wins", "win_rate", "win_rate_ci95_low", "win_rate_ci95_high", "mean_rounds_to_solution",
           "ci95_rounds_to_solution", "mean_rounds_to_win", "ci95_rounds_to_win", "solved_games", "won_games",
           "unfinished_games", "wrong_accusations"]


def rows(sweep: Sweep, finished: dict) -> list[dict]:
    """One row per finished cell and strategy of its lineup, in the sweep
    file's order (whatever order the cells finished in)."""
    out = []
    for cell in sweep.cells:
        item = finished.get(sweep.key(cell))
        if item is None:
            continue
        s = item["summary"]
        for strategy in dict.fromkeys(cell.seats):
            d = s["strategies"].get(strategy, {"seats": 0, "wins": 0, "win_rate": 0.0, "ci95": [0.0, 0.0]})
            out.append({"lineup": cell.lineup, "game": cell.game, "edition": cell.edition, "players": cell.players,
                        "hand": cell.hand, "hidden": cell.hidden, "games": s["games"], "seed": sweep.seed,
                        "strategy": strategy, "seat_games": d["seats"], "wins": d["wins"],
                        "win_rate": d["win_rate"], "win_rate_ci95_low": d["ci95"][0],
                        "win_rate_ci95_high": d["ci95"][1],
                        **{k: s[k] for k in COLUMNS[14:]}})
    return out


def write_tables(folder: str | Path, table: list[dict]) -> list[Path]:
    """results.csv, and results.parquet when pyarrow is installed (it is not
    a dependency); the files written."""
    folder = Path(folder)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    written = [folder / CSV_FILE]
    tmp = folder / (CSV_FILE + ".tmp")
    tmp.write_text(buf.getvalue(), encoding="utf-8")
    os.replace(tmp, written[0])
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        return written
    tmp = folder / (PARQUET_FILE + ".tmp")
    pyarrow.parquet.write_table(pyarrow.Table.from_pylist(table, schema=None) if table else
                                pyarrow.table({c: [] for c in COLUMNS}), tmp)
    os.replace(tmp, folder / PARQUET_FILE)  # never a half-written file under the results' name
    return written + [folder / PARQUET_FILE]


def stopped_summary(sweep: Sweep, run: "SweepRun", files: Sequence[Path]) -> list[str]:
    """What ``sweep`` says when it was stopped (Ctrl-C, SIGTERM) instead of
    every finished cell's table, which for a long sweep is thousands of
    lines: how many cells are done, where their results are, and how to go
    on.  (The tables stay available: the same command prints them all once
    the sweep is finished, and results.csv holds their figures.)"""
    total = len(sweep.cells)
    done = sum(1 for c in sweep.cells if sweep.key(c) in run.finished)
    lines = [f"{sweep.title}: stopped with {done} of {total} cells finished ({run.played_cells} played now, "
             f"{run.skipped_cells} from before); {total - done} left to play",
             "results in " + ", ".join(str(f) for f in files) + " (every finished cell)"]
    if total > done:
        lines.append(f"run the same command again to play the other {total - done} cells "
                     f"(it reads {files[0].parent / CELLS_FILE} and prints every cell's table when all are done)")
    return lines


# -- running ---------------------------------------------------------------------------
@dataclass
class SweepRun:
    """What :func:`run_sweep` did."""

    finished: dict
    """key -> line of every finished cell (from before and from this run)."""
    played_cells: int
    """Cells finished by this run."""
    skipped_cells: int
    """Cells found finished in cells.jsonl."""
    interrupted: Interrupted | None = None
    """Set when Ctrl-C stopped the run (the finished cells are kept)."""


def run_sweep(sweep: Sweep, folder: str | Path, *, workers: int = 1, executor=None,
              on_start: Callable[[list], None] | None = None,
              on_game: Callable[[int, GameSummary], None] | None = None,
              on_cell: Callable[[int, dict], None] | None = None, engine: str | None = None) -> SweepRun:
    """Play the cells of ``sweep`` not finished in ``folder`` -- all their
    games in one run, so the workers never wait for a cell's last game --
    appending each cell to cells.jsonl as its last game finishes.

    ``on_start(todo)`` gets the (cell index, number of games) to play;
    ``on_game(cell index, summary)`` each game; ``on_cell(cell index, line)``
    each cell finished; ``engine``: the command's ``--engine`` (None: each
    seat's own choice).  Ctrl-C: the finished cells are kept and
    :attr:`SweepRun.interrupted` says how far it got."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    finished = read_finished(folder, sweep)
    todo = [(i, sweep.specs(c, engine)) for i, c in enumerate(sweep.cells) if sweep.key(c) not in finished]
    skipped = len(sweep.cells) - len(todo)
    if on_start:
        on_start([(i, len(specs)) for i, specs in todo])
    # every game of the run, renumbered, built as it is read (9 million games are not built up front)
    starts = list(itertools.accumulate((len(cell_specs) for _, cell_specs in todo), initial=0))

    def owner_of(g: int) -> tuple[int, int]:
        """(cell index, index in the cell) of game ``g`` of the run."""
        t = bisect.bisect_right(starts, g) - 1
        return todo[t][0], g - starts[t]

    def spec_of(g: int) -> GameSpec:
        t = bisect.bisect_right(starts, g) - 1
        return replace(todo[t][1][g - starts[t]], index=g)
    specs = GameSpecs(starts[-1], spec_of)
    pending: dict[int, list] = {i: [] for i, _ in todo}
    wanted = {i: len(cell_specs) for i, cell_specs in todo}
    played = 0

    def game_done(summary: GameSummary) -> None:
        nonlocal played
        i, index = owner_of(summary.index)
        pending[i].append(replace(summary, index=index))
        if on_game:
            on_game(i, summary)
        if len(pending[i]) == wanted[i]:
            results = sorted(pending.pop(i), key=lambda r: r.index)
            cell = sweep.cells[i]
            line = {"key": sweep.key(cell), "cell": cell.to_json(), "summary": summarize(results)}
            _append(folder, line)
            finished[line["key"]] = line
            played += 1
            if on_cell:
                on_cell(i, line)
    try:
        run_games(specs, workers, game_done, executor=executor)
    except Interrupted:
        return SweepRun(finished, played, skipped, Interrupted([], len(sweep.cells), skipped + played))
    return SweepRun(finished, played, skipped)
