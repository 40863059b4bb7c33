"""Default seats per table size, as data (``clue_expert/seats/GAME.yaml``).

A seats file maps a table size to a seat spec
(``STRATEGY[:response=R][:accusation=A][:model=M][:knowledge=L]``, see
:func:`~clue_expert.play.players.parse_seat`) with a one-line reason and its
source::

    game: speed-clue
    seats:
      3:
        seat: clue-expert-focused:response=minimal-information:accusation=when-certain
        reason: ...
        source: ...

:func:`default_seat` picks the entry of a size, or of the nearest listed size
(the smaller one on a tie).  The file is read through the bounded loader
(:func:`clue_expert.core.yamlio.load_file`); anything malformed is one
:class:`~clue_expert.core.errors.ClueError` naming the file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import ClueError
from ..core.yamlio import FileLoadError, load_file
from ..engine import DEFAULT_LEVEL
from .players import parse_seat

#: The folder of the shipped seats files (package data).
SEATS_DIR = Path(__file__).resolve().parent.parent / "seats"
#: The game whose seats the contest agent reads.
DEFAULT_GAME = "speed-clue"
_KEYS = ("seat", "reason", "source")


class SeatsFileError(ClueError):
    """A seats file that cannot be read or is malformed (names the file)."""


@dataclass(frozen=True)
class SeatChoice:
    """One entry of a seats file."""

    #: The table size of the entry.
    players: int
    #: The seat spec.
    seat: str
    #: Why this seat, one line.
    reason: str
    #: Where the measurement behind it comes from.
    source: str
    #: The file it was read from.
    path: str


def seats_path(game: str = DEFAULT_GAME) -> Path:
    """The shipped seats file of ``game``."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", str(game)):
        raise ClueError(f"no seats for the game {game!r}")
    path = SEATS_DIR / f"{game}.yaml"
    if not path.is_file():
        names = sorted(p.stem for p in SEATS_DIR.glob("*.yaml"))
        raise ClueError(f"no seats for the game {game!r}; available: {', '.join(names)}")
    return path


def load_seats(path: str | Path) -> dict[int, SeatChoice]:
    """Table size -> :class:`SeatChoice` from a seats file."""
    source = str(path)

    def bad(problem: str) -> SeatsFileError:
        return SeatsFileError(f"{source}: {problem}")

    try:
        data = load_file(path, "seats")
    except FileLoadError as exc:
        raise SeatsFileError(str(exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("seats"), dict) or not data["seats"]:
        raise bad("expected a mapping with 'seats': a mapping of table sizes (3, 4, ...) to seats")
    unknown = sorted(str(k) for k in data if k not in ("game", "seats"))
    if unknown:
        raise bad(f"unknown key(s) {', '.join(unknown)}; expected 'game' and 'seats'")
    out: dict[int, SeatChoice] = {}
    for size, entry in data["seats"].items():
        if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= 12:
            raise bad(f"table size {size!r} is not a number of players (2-12)")
        if not isinstance(entry, dict):
            raise bad(f"the entry for {size} players must be a mapping with seat, reason and source")
        missing = [k for k in _KEYS if not isinstance(entry.get(k), str) or not entry[k].strip()]
        extra = sorted(str(k) for k in entry if k not in _KEYS)
        if missing:
            raise bad(f"the entry for {size} players needs {', '.join(missing)} (text)")
        if extra:
            raise bad(f"the entry for {size} players has unknown key(s) {', '.join(extra)}")
        out[size] = SeatChoice(size, entry["seat"].strip(), " ".join(entry["reason"].split()),
                               " ".join(entry["source"].split()), source)
    return out


def seat_choice(players: int, game: str = DEFAULT_GAME, path: str | Path | None = None) -> SeatChoice:
    """The entry for a table of ``players`` (the nearest listed size when it
    is not listed; the smaller on a tie)."""
    table = load_seats(path if path is not None else seats_path(game))
    size = min(table, key=lambda s: (abs(s - players), s))
    return table[size]


def default_seat(players: int, game: str = DEFAULT_GAME, path: str | Path | None = None) -> str:
    """The default seat spec for a table of ``players``."""
    return seat_choice(players, game, path).seat


def seat_spec(parts: dict) -> str:
    """The full seat spec of :func:`~clue_expert.play.players.parse_seat`'s
    parts (every part named, the knowledge level only when not the default)."""
    return (f"{parts['strategy']}:response={parts['response']}:accusation={parts['accusation']}"
            + "".join(f":model={m}" for m in parts["models"])
            + "".join(f":rules={r}" for r in parts.get("rules", ()))
            + ("" if parts["knowledge"] == DEFAULT_LEVEL else f":knowledge={parts['knowledge']}")
            + (f":move={parts['move']}" if parts.get("move") else "")
            + (f":engine={parts['engine']}" if parts.get("engine") else "")
            + (f":choice={parts['choice']}" if parts.get("choice") else ""))


def with_parts(spec: str, response: str | None = None, accusation: str | None = None,
               models: tuple = ()) -> dict:
    """A default seat's parts with a response or accusation the user named in
    place of the seat's own, and ``models`` added to its own (all checked to
    exist)."""
    d = parse_seat(spec)
    d["response"] = response or d["response"]
    d["accusation"] = accusation or d["accusation"]
    for m in models:
        if m not in d["models"]:
            d["models"].append(m)
    parse_seat(seat_spec(d))  # the replacements exist
    return d


def default_seat_for(players: int, response: str | None = None, accusation: str | None = None) -> str:
    """The default seat of a table of ``players`` as one spec, with the
    user's replacements (:func:`with_parts`): what ``play`` and ``simulate``
    seat when no strategy is named."""
    return seat_spec(with_parts(default_seat(players), response, accusation))
