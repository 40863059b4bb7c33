"""The board of the board game: a data file (an ASCII map and its legend)
read into a :class:`Board`, and the movement rules over it (pure functions,
no printing).

A pawn stands either on a hallway square ``(x, y)`` (``x`` from the left,
``y`` from the top, both from 0) or in a room (the room's card id).  The
movement rules are the classic published ones (docs/board.md):

* roll one die and move that many squares, up, down, left or right, never
  diagonally, never onto or through a square another pawn stands on, never
  onto the same square twice in one move;
* a move that ends in the hallway uses the whole roll; a room is entered
  through one of its doors and entering ends the move (the roll need not
  be used up); a pawn leaves a room through any of its doors (the first
  step is the square in front of the door) and may not come back into the
  room it left in the same move;
* a pawn in a corner room may take its secret passage instead of rolling.

:func:`reachable` gives every legal destination of a roll with one
shortest path to it; :func:`distances` the fewest steps to every square
and room (breadth-first, ignoring the roll).
"""
from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Union

import yaml

from .errors import ClueError
from .paths import boards_dir
from . import work
from .yamlio import FileLoadError, load_file, shorten

Square = tuple  # (x, y)
Position = Union[Square, str]  # a hallway square, or a room's card id

#: The direction names of doors, and the step each one points at.
DIRECTIONS = {"north": (0, -1), "south": (0, 1), "west": (-1, 0), "east": (1, 0)}
#: The largest board read (squares per side).
MAX_SIDE = 200
#: The most squares :func:`reachable` visits for one move (a move never repeats a square, so the
#: search walks every simple path of up to the roll's length: 729 at most for one die on a grid).
MAX_SEARCH = 2_000_000


class BoardError(ClueError):
    """A board file that cannot be read: names the file and, for the map, the line."""


@dataclass(frozen=True)
class Door:
    """A door of a room: the room square it is, the hallway square in front
    of it, and the direction it opens onto the hallway."""

    room: str
    square: Square
    outside: Square
    direction: str


@dataclass(frozen=True, eq=False)
class Board:
    """A board: its size, every room's squares and doors, the secret
    passages, the starting squares and the hallway."""

    id: str
    name: str
    width: int
    height: int
    edition: str
    """The edition whose room and suspect cards the board names."""
    dice: int
    """How many dice a move rolls (1 on the classic board)."""
    rooms: tuple
    """Room ids in the order of the legend."""
    room_squares: Mapping[str, frozenset]
    doors: tuple
    """Every :class:`Door`."""
    passages: Mapping[str, str]
    """room -> the room its secret passage leads to (both ways)."""
    starts: Mapping[str, Square]
    """suspect -> starting square (in the order of the legend)."""
    hallway: frozenset
    """Squares a pawn may stand on outside the rooms (starting squares included)."""
    rows: tuple = field(repr=False, default=())
    """The map as read (for drawing)."""
    source: str = ""
    path: str = ""

    def doors_of(self, room: str) -> tuple:
        """The doors of a room."""
        return tuple(d for d in self.doors if d.room == room)

    def passage_to(self, room: str) -> str | None:
        """The room a room's secret passage leads to, or None."""
        return self.passages.get(room)

    def room_at(self, square: Square) -> str | None:
        """The room a square belongs to, or None."""
        return self._room_of().get(tuple(square))

    @functools.lru_cache(maxsize=None)
    def _room_of(self) -> dict:
        return {sq: r for r, squares in self.room_squares.items() for sq in squares}

    @functools.lru_cache(maxsize=None)
    def neighbours(self, position: Position) -> tuple:
        """Where one step leads from a position (ignoring pawns): the
        adjacent hallway squares, the rooms whose door is in front of it;
        from a room, the squares in front of its doors."""
        if isinstance(position, str):
            return tuple(dict.fromkeys(d.outside for d in self.doors_of(position)))
        x, y = position
        out: list = [(x + dx, y + dy) for dx, dy in DIRECTIONS.values() if (x + dx, y + dy) in self.hallway]
        out += list(dict.fromkeys(d.room for d in self.doors if d.outside == (x, y)))
        return tuple(out)

    def to_json(self) -> dict:
        """The board's figures (``clue-expert board --json``)."""
        return {"id": self.id, "name": self.name, "width": self.width, "height": self.height,
                "edition": self.edition, "dice": self.dice,
                "rooms": {r: {"doors": len(self.doors_of(r)), "passage_to": self.passage_to(r),
                              "door_squares": [list(d.square) for d in self.doors_of(r)]} for r in self.rooms},
                "starts": {s: list(sq) for s, sq in self.starts.items()},
                "hallway_squares": len(self.hallway)}

    def parse_position(self, text: str) -> Position:
        """A position from ``"x,y"`` / ``"x y"`` or a room's id."""
        t = str(text).strip()
        parts = t.replace(",", " ").split()
        if len(parts) == 2 and all(p.lstrip("-").isdigit() for p in parts):
            return (int(parts[0]), int(parts[1]))
        key = t.lower().replace(" ", "-")
        if key in self.rooms:
            return key
        raise ClueError(f"{shorten(t, 40)} is neither a square (x,y) nor a room of the board "
                        f"({', '.join(self.rooms)})")


# --------------------------------------------------------------- reading
def _fail(source: str, problem: str, line: int | None = None) -> BoardError:
    return BoardError(f"{source}{f', line {line}' if line else ''}: {problem}")


def _map_line(text: str) -> int:
    """The file line of the map's first row (1-based), from the YAML node."""
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        for key, value in (root.value if root is not None else ()):
            if key.value == "map":
                start = value.start_mark.line + 1
                return start + 1 if value.style in ("|", ">") else start
    except Exception:  # pragma: no cover - load_file has already read it
        pass
    return 1


def parse_board(data: object, source: str, first_line: int = 1) -> Board:
    """A :class:`Board` from the parsed file; every problem is one
    :class:`BoardError` naming ``source`` (and the map's line)."""
    if not isinstance(data, dict):
        raise _fail(source, "a board file is a mapping with id, map, legend and passages")
    unknown = set(data) - {"id", "name", "edition", "dice", "source", "map", "legend", "passages"}
    if unknown:
        raise _fail(source, f"unknown key(s) {', '.join(sorted(map(str, unknown)))}; a board has id, name, "
                            f"edition, dice, source, map, legend and passages")
    for key in ("id", "map", "legend"):
        if key not in data:
            raise _fail(source, f"no {key!r}")
    chars = _legend(data["legend"], source)
    rooms = tuple(dict.fromkeys(n for k, n in chars.values() if k == "room"))
    squares = _MapSquares.read(data["map"], chars, rooms, source, first_line)
    doors = squares.doors(chars, source)
    for r in rooms:
        if not any(d.room == r for d in doors):
            raise _fail(source, f"room {r} has no door")
    order = [n for k, n in chars.values() if k == "start"]
    missing = [n for n in order if n not in squares.starts]
    if missing:
        raise _fail(source, f"no starting square on the map for {', '.join(missing)}")
    starts = {n: squares.starts[n] for n in order}
    passages = _passages(data.get("passages") or (), rooms, source)
    dice = data.get("dice", 1)
    if type(dice) is not int or not 1 <= dice <= 2:
        raise _fail(source, f"dice must be 1 or 2, not {shorten(dice, 20)}")
    rows = squares.rows
    return Board(id=str(data["id"]), name=str(data.get("name", data["id"])), width=len(rows[0]), height=len(rows),
                 edition=str(data.get("edition", "clue")), dice=dice, rooms=rooms,
                 room_squares={r: frozenset(s) for r, s in squares.rooms.items()}, doors=tuple(doors),
                 passages=passages, starts=starts, hallway=frozenset(squares.hallway), rows=tuple(rows),
                 source=str(data.get("source", "")).strip(), path=source)


def _legend(legend: object, source: str) -> dict:
    """The legend's characters: character -> (kind, name)."""
    if not isinstance(legend, dict):
        raise _fail(source, "the legend is a mapping: hallway, wall, rooms, doors, starts")
    chars: dict = {}

    def one_char(value, what: str) -> str:
        if not isinstance(value, str) or len(value) != 1 or value.isspace():
            raise _fail(source, f"the legend's {what} must be one visible character, not {shorten(value, 20)}")
        if value in chars:
            raise _fail(source, f"the legend gives {value!r} twice ({chars[value][0]} and {what})")
        return value

    for key in ("hallway", "wall"):
        if key not in legend:
            raise _fail(source, f"the legend has no {key!r} character")
        chars[one_char(legend[key], key)] = (key, None)
    for key, kind in (("rooms", "room"), ("doors", "door"), ("starts", "start")):
        table = legend.get(key)
        if not isinstance(table, dict) or not table:
            raise _fail(source, f"the legend's {key!r} is a mapping of characters to names")
        for ch, name in table.items():
            if not isinstance(name, str):
                raise _fail(source, f"the legend's {key} give {shorten(ch, 10)} the name {shorten(name, 30)}, "
                                    f"not a name")
            if kind == "door" and name not in DIRECTIONS:
                raise _fail(source, f"door {ch!r} opens {name!r}: write north, south, east or west")
            chars[one_char(str(ch), f"{kind} {name}")] = (kind, name)
    return chars


@dataclass
class _MapSquares:
    """The map's rows read square by square: rooms' squares, the hallway,
    the starting squares and the door marks (x, y, direction, line)."""

    rows: list
    rooms: dict
    hallway: set = field(default_factory=set)
    starts: dict = field(default_factory=dict)
    door_marks: list = field(default_factory=list)

    @classmethod
    def read(cls, text: object, chars: dict, rooms: tuple, source: str, first_line: int) -> "_MapSquares":
        if not isinstance(text, str):
            raise _fail(source, "the map is a block of text (map: |)")
        rows = text.rstrip("\n").split("\n")
        width = len(rows[0])
        if not rows or not width or len(rows) > MAX_SIDE or width > MAX_SIDE:
            raise _fail(source, f"the map must have 1 to {MAX_SIDE} rows of 1 to {MAX_SIDE} squares")
        squares = cls(rows, {r: set() for r in rooms})
        for y, row in enumerate(rows):
            line = first_line + y
            if len(row) != width:
                raise _fail(source, f"row {y} has {len(row)} squares, the first row {width} (every row of the map "
                                    f"must be as long)", line)
            for x, ch in enumerate(row):
                if ch not in chars:
                    raise _fail(source, f"{ch!r} at x={x} is not in the legend "
                                        f"({' '.join(sorted(chars))})", line)
                squares.place(x, y, chars[ch], source, line)
        return squares

    def place(self, x: int, y: int, what: tuple, source: str, line: int) -> None:
        kind, name = what
        if kind == "hallway":
            self.hallway.add((x, y))
        elif kind == "room":
            self.rooms[name].add((x, y))
        elif kind == "start":
            if name in self.starts:
                raise _fail(source, f"a second starting square for {name} at x={x}", line)
            self.starts[name] = (x, y)
            self.hallway.add((x, y))
        elif kind == "door":
            self.door_marks.append((x, y, name, line))

    def doors(self, chars: dict, source: str) -> list:
        """The doors, each checked to join a room square to a hallway square
        (its square becomes one of its room's)."""
        cell = {(x, y): ch for y, row in enumerate(self.rows) for x, ch in enumerate(row)}
        doors = []
        for x, y, direction, line in self.door_marks:
            dx, dy = DIRECTIONS[direction]
            behind = chars.get(cell.get((x - dx, y - dy)), ("outside", None))
            if behind[0] != "room":
                raise _fail(source, f"the door at x={x} opens {direction} but has no room square behind it "
                                    f"(at x={x - dx}, y={y - dy}): a door must be next to its room", line)
            outside = (x + dx, y + dy)
            if outside not in self.hallway:
                raise _fail(source, f"the door of {behind[1]} at x={x} opens {direction} onto "
                                    f"{'the edge of the board' if outside not in cell else 'no hallway square'} "
                                    f"(x={outside[0]}, y={outside[1]})", line)
            self.rooms[behind[1]].add((x, y))
            doors.append(Door(behind[1], (x, y), outside, direction))
        return doors


def _passages(pairs, rooms: tuple, source: str) -> dict:
    """The secret passages, both ways: room -> room."""
    passages: dict = {}
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise _fail(source, f"a passage is a pair of rooms [ROOM, ROOM], not {shorten(pair, 40)}")
        for r in pair:
            if r not in rooms:
                raise _fail(source, f"the passage {list(pair)} names {shorten(r, 30)}, which is not a room of the "
                                    f"legend ({', '.join(rooms)})")
        a, b = pair
        if a == b or a in passages or b in passages:
            raise _fail(source, f"the passage {list(pair)} joins a room to itself or to a second passage")
        passages[a], passages[b] = b, a
    return passages


def load_board_file(path: str | Path) -> Board:
    """A board from a file (bounded like every file clue-expert reads)."""
    try:
        data = load_file(path, "board")
    except FileLoadError as exc:
        raise BoardError(f"{exc.source}: {exc.problem}") from None
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):  # pragma: no cover - load_file read it
        text = ""
    return parse_board(data, str(path), _map_line(text))


def available_boards() -> list[str]:
    """Ids of the shipped boards."""
    return sorted(p.stem for p in boards_dir().glob("*.yaml"))


@functools.lru_cache(maxsize=None)
def _shipped(name: str) -> Board:
    return load_board_file(boards_dir() / f"{name}.yaml")


def get_board(name: str | Board) -> Board:
    """A shipped board by id (``classic``) or a board file by path."""
    if isinstance(name, Board):
        return name
    text = str(name)
    if text in available_boards():
        return _shipped(text)
    if text.endswith((".yaml", ".yml")) or "/" in text:
        return load_board_file(Path(text).expanduser())
    raise BoardError(f"unknown board {shorten(text, 40)}: a shipped board ({', '.join(available_boards())}) "
                     f"or a board file")


# --------------------------------------------------------------- movement
def reachable(board: Board, start: Position, roll: int, occupied: Iterable[Square] = ()) -> dict:
    """Every legal destination of a move of ``roll`` from ``start``, with one
    shortest legal path to it (the squares and rooms after ``start``):
    hallway squares at exactly ``roll`` steps of a path that never repeats a
    square, rooms entered through a door in at most ``roll`` steps (not the
    room the move started in).  ``occupied``: hallway squares other pawns
    stand on (never entered nor passed)."""
    blocked = frozenset(map(tuple, occupied))
    start = start if isinstance(start, str) else tuple(start)
    out: dict = {}
    budget = [MAX_SEARCH]

    def walk(pos, path: list, seen: set) -> None:
        budget[0] -= 1
        if not budget[0] & 0x3FFF:  # every 16,384 squares: charged, and the clock looked at
            work.charge(0x4000, "the board's move search")
        if budget[0] < 0:
            raise BoardError(f"board {board.path or board.id}: a move of {roll} from {pos} visits more than {MAX_SEARCH} squares "
                             f"(the limit of the move search); use fewer dice or narrower hallways")
        for nxt in board.neighbours(pos):
            if isinstance(nxt, str):
                if nxt != start and (nxt not in out or len(out[nxt]) > len(path) + 1):
                    out[nxt] = tuple(path + [nxt])
                continue
            if nxt in blocked or nxt in seen:
                continue
            if len(path) + 1 == roll:
                if nxt not in out:
                    out[nxt] = tuple(path + [nxt])
                continue
            seen.add(nxt)
            path.append(nxt)
            walk(nxt, path, seen)
            path.pop()
            seen.discard(nxt)

    if roll >= 1:
        walk(start, [], {start} if not isinstance(start, str) else set())
    return out


def distances(board: Board, start: Position, occupied: Iterable[Square] = ()) -> dict:
    """The fewest steps from ``start`` to every square and room reachable
    (breadth-first; rooms end a path, occupied squares are not entered)."""
    blocked = frozenset(map(tuple, occupied))
    start = start if isinstance(start, str) else tuple(start)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        pos = queue.popleft()
        if isinstance(pos, str) and pos != start:
            continue  # entering a room ends a path
        for nxt in board.neighbours(pos):
            if nxt in dist or (not isinstance(nxt, str) and nxt in blocked):
                continue
            dist[nxt] = dist[pos] + 1
            queue.append(nxt)
    work.charge(len(dist), "the board's distances")
    return dist


def shortest_path(board: Board, start: Position, goal: Position, occupied: Iterable[Square] = ()) -> tuple | None:
    """One shortest path from ``start`` to ``goal`` (the positions after
    ``start``), or None when there is none."""
    blocked = frozenset(map(tuple, occupied))
    start = start if isinstance(start, str) else tuple(start)
    goal = goal if isinstance(goal, str) else tuple(goal)
    prev: dict[Position, Position | None] = {start: None}
    queue = deque([start])
    while queue:
        pos = queue.popleft()
        if pos == goal:
            out = []
            step: Position | None = pos
            while step is not None and step != start:
                out.append(step)
                step = prev[step]
            return tuple(reversed(out))
        if isinstance(pos, str) and pos != start:
            continue
        for nxt in board.neighbours(pos):
            if nxt in prev or (not isinstance(nxt, str) and nxt in blocked):
                continue
            prev[nxt] = pos
            queue.append(nxt)
    return None


# --------------------------------------------------------------- a turn's choices
def occupied_squares(pawns: Mapping, pawn: str) -> list:
    """The hallway squares the pawns other than ``pawn`` stand on (``pawns``: suspect -> position)."""
    return [p for s, p in pawns.items() if s != pawn and not isinstance(p, str)]


@dataclass(frozen=True)
class MoveOptions:
    """What a pawn may do this turn, as the driver offers it to a player."""

    board: Board
    pawn: str
    """The player's suspect (his pawn)."""
    here: Position
    """Where the pawn stands."""
    roll: int
    """The die roll."""
    destinations: Mapping
    """Every legal destination of the roll -> one shortest path to it (see :func:`reachable`)."""
    passage: str | None
    """The room the secret passage of the pawn's room leads to (instead of rolling), or None."""
    may_suggest_here: bool
    """The pawn was moved into its room by a suggestion since its last turn:
    it may suggest there without moving (stay: choose None)."""
    pawns: Mapping
    """Every pawn (suspect) -> where it stands."""

    @classmethod
    def for_turn(cls, board: Board, pawn: str, pawns: Mapping, roll: int, pulled: bool = False) -> "MoveOptions":
        """The options of ``pawn`` (standing where ``pawns`` says) for a roll;
        ``pulled``: it was moved into its room by a suggestion since its last turn."""
        here = pawns[pawn]
        return cls(board=board, pawn=pawn, here=here, roll=roll,
                   destinations=reachable(board, here, roll, occupied_squares(pawns, pawn)),
                   passage=board.passage_to(here) if isinstance(here, str) else None,
                   may_suggest_here=bool(pulled) and isinstance(here, str), pawns=dict(pawns))

    def occupied(self) -> list:
        """The hallway squares the other pawns stand on."""
        return occupied_squares(self.pawns, self.pawn)

    def choices(self) -> tuple:
        """Every legal choice: the destinations, the passage's room, and
        None (stay) when staying is allowed (to suggest where pulled, or when
        nothing else is legal)."""
        out = list(self.destinations)
        if self.passage is not None and self.passage not in out:
            out.append(self.passage)
        if self.may_suggest_here or not out:
            out.append(None)
        return tuple(out)

    def rooms(self) -> tuple:
        """The rooms this turn can end in with a suggestion (entered, or stayed in when pulled)."""
        out = [p for p in self.choices() if isinstance(p, str)]
        if self.may_suggest_here and isinstance(self.here, str):
            out.append(self.here)
        return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class Move:
    """One pawn's move on one turn, as a record keeps it."""

    round: int
    by: str
    """The player who moved the pawn (for ``pulled``: the suggester)."""
    pawn: str
    """The suspect whose pawn moved."""
    roll: int | None
    """The die roll (None: the player took the secret passage or stayed)."""
    start: Position | None
    """Where the pawn stood (None: a record that leaves ``from`` out)."""
    end: Position
    """Where it ended (a square or a room)."""
    turn: int | None = None
    """The turn number of the suggestion made after the move (None: none)."""
    how: str = "roll"
    """``roll``, ``passage``, ``stay``, ``pulled`` (moved by another's suggestion) or ``cleared`` (a
    wrong accuser's pawn moved off a door into the room)."""

    def to_dict(self) -> dict:
        """The record (YAML/JSON) form."""
        def pos(p):
            return p if p is None or isinstance(p, str) else list(p)
        return {"round": self.round, "by": self.by, "pawn": self.pawn, "how": self.how, "roll": self.roll,
                "from": pos(self.start), "to": pos(self.end), "turn": self.turn}
