"""Planning on the board: where a pawn should go (pure functions over a
:class:`~clue_expert.core.board.Board`; the rule library wraps them).

:func:`value_iteration` is Siebel's planner: each room is worth the score
of the best suggestion that can be made in it, and every hallway square is
worth its best neighbour's value times a discount ``gamma`` per step (a
room is a goal: entering it ends a move, so no path runs through one).
Swept until nothing changes, a square's value is
``max over rooms of score(room) * gamma ** steps(square, room)`` — which
:func:`brute_force_values` computes from breadth-first distances, and the
tests compare.  :func:`best_choice` then picks the move of this turn with
the highest value; :func:`nearest_choice` the move that gets nearest to a
set of rooms (the shortest-path players).
"""
from __future__ import annotations

from typing import Iterable, Mapping

from ...core import work
from ...core.board import Board, MoveOptions, Position, distances
from ..language.expr import LimitError

#: The discount per step of the shipped planner (Siebel states none; see docs/board.md).
DEFAULT_DISCOUNT = 0.9
#: Sweeps of :func:`value_iteration` at most (a sweep settles every square one step further out).
MAX_SWEEPS = 10_000
#: Square updates (sweeps times squares) one :func:`value_iteration` may do:
#: past it a :class:`~clue_expert.engine.language.expr.LimitError` (a rule's limit error
#: naming its file and rule).  The classic board settles in about 30 sweeps of 180 squares
#: (5,400 updates); an update costs about a microsecond, so 5,000,000 took 5 s of CPU a call and a
#: 200 x 200 board (7,875,027 updates to settle) ran into the 10 s clock instead (benchmarks/audit.py).
MAX_SWEEP_WORK = 2_000_000


def value_iteration(board: Board, room_values: Mapping[str, float], gamma: float = DEFAULT_DISCOUNT,
                    occupied: Iterable = ()) -> dict:
    """Every hallway square's and room's value: rooms keep ``room_values``
    (missing: 0); a square not ``occupied`` is worth ``gamma`` times its best
    neighbour, swept until no value changes.  ``gamma`` in [0, 1)."""
    if not 0 <= gamma < 1:
        raise ValueError(f"the discount must be at least 0 and below 1, not {gamma!r}")
    blocked = frozenset(map(tuple, occupied))
    squares = [sq for sq in sorted(board.hallway, key=lambda s: (s[1], s[0])) if sq not in blocked]
    value: dict = {r: float(room_values.get(r, 0.0)) for r in board.rooms}
    value.update({sq: 0.0 for sq in squares})
    done = 0
    for _ in range(MAX_SWEEPS):
        done += len(squares)
        if done > MAX_SWEEP_WORK:
            raise LimitError(f"value iteration on board {board.path or board.id} needs more than {MAX_SWEEP_WORK:,} square "
                             f"updates (sweeps times squares; the limit of the board planner)")
        work.charge(len(squares), "value iteration")
        changed = False
        for sq in squares:
            best = max((value[n] for n in board.neighbours(sq) if n in value), default=0.0) * gamma
            if best > value[sq]:
                value[sq] = best
                changed = True
        if not changed:
            break
    return value


def brute_force_values(board: Board, room_values: Mapping[str, float], gamma: float = DEFAULT_DISCOUNT,
                       occupied: Iterable = ()) -> dict:
    """What :func:`value_iteration` must give, computed another way: a
    square's value is the best room score discounted by its breadth-first
    distance (from each room outward, through free hallway squares)."""
    blocked = frozenset(map(tuple, occupied))
    out: dict = {r: float(room_values.get(r, 0.0)) for r in board.rooms}
    out.update({sq: 0.0 for sq in board.hallway if sq not in blocked})
    for r in board.rooms:
        score = float(room_values.get(r, 0.0))
        if score <= 0:
            continue
        for pos, d in distances(board, r, blocked).items():
            if not isinstance(pos, str):
                out[pos] = max(out[pos], score * gamma ** d)
    return out


def _value_of(choice: Position | None, options: MoveOptions, value: Mapping) -> float:
    if choice is None:  # stay: worth the room's score only when the pawn may suggest there
        return value.get(options.here, 0.0) if options.may_suggest_here else 0.0
    return value.get(choice, 0.0)


def best_choice(options: MoveOptions, room_values: Mapping[str, float], gamma: float = DEFAULT_DISCOUNT):
    """The move of this turn with the highest planned value (ties: a room
    before a square, then the fewest steps, then board order); None to stay."""
    value = value_iteration(options.board, room_values, gamma, options.occupied())
    choices = options.choices()

    def key(c):
        steps = 0 if c is None or c == options.passage else len(options.destinations.get(c, ()))
        return (-_value_of(c, options, value), not isinstance(c, str) and c is not None, steps, _order(c))
    return min(choices, key=key)


def _order(c) -> tuple:
    return (0, c, 0) if isinstance(c, str) else (1, "", c or (0, 0))


def nearest_choice(options: MoveOptions, rooms: Iterable[str]):
    """The move of this turn that gets the pawn nearest to one of ``rooms``:
    one of them it can end in now (fewest steps; staying where it may
    suggest counts as none), else the square of the roll with the fewest
    steps left to one (other pawns block).  None when ``rooms`` is empty or
    out of reach (then: stay, or the first legal move)."""
    goals = set(rooms)
    choices = options.choices()
    now = [c for c in options.rooms() if c in goals]
    if now:
        def steps(r):
            if r == options.here and options.may_suggest_here:
                return 0
            return 0 if r == options.passage else len(options.destinations[r])
        return min(now, key=lambda r: (steps(r), options.board.rooms.index(r)))
    squares = [c for c in choices if c is not None and not isinstance(c, str)]
    if not goals or not squares:
        return None
    occupied = options.occupied()
    board = options.board
    # distances from the goal rooms outward (the board's steps are symmetric through free squares)
    best: dict = {}
    for r in goals:
        for pos, d in distances(board, r, occupied).items():
            if not isinstance(pos, str) and d < best.get(pos, 10 ** 9):
                best[pos] = d
    reach = [sq for sq in squares if sq in best]
    if not reach:
        return None
    return min(reach, key=lambda sq: (best[sq], sq[1], sq[0]))
