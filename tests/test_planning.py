"""Siebel's value iteration (engine/reasoning/planning.py) against brute force: on
small random boards every square's value must be the best room score
discounted by the shortest path to that room, the shortest path found by
enumerating every simple path (no breadth-first search involved)."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clue_expert.core.board import Board, Door, MoveOptions, get_board
from clue_expert.engine.reasoning.planning import best_choice, brute_force_values, nearest_choice, value_iteration

SETTINGS = settings(max_examples=40, deadline=None)


def small_board(seed: int, w: int = 4, h: int = 4) -> Board:
    """A random small board: a random set of hallway squares, two or three
    rooms (kept off the grid) with one or two doors onto random squares."""
    rng = random.Random(seed)
    cells = [(x, y) for y in range(h) for x in range(w)]
    hallway = frozenset(c for c in cells if rng.random() < 0.75) or frozenset(cells[:1])
    rooms = tuple(f"r{i}" for i in range(rng.randint(2, 3)))
    doors = []
    squares = {}
    for i, r in enumerate(rooms):
        squares[r] = frozenset({(100 + i, 0)})
        for _ in range(rng.randint(1, 2)):
            doors.append(Door(r, (100 + i, 0), rng.choice(sorted(hallway)), "north"))
    return Board(id=f"small-{seed}", name="small", width=w, height=h, edition="clue", dice=1, rooms=rooms,
                 room_squares=squares, doors=tuple(doors), passages={}, starts={}, hallway=hallway)


def enumerated_steps(board: Board, start, goal, occupied) -> int | None:
    """The fewest steps from ``start`` to room ``goal`` by enumerating every
    simple path through free hallway squares (depth-first, exhaustive)."""
    best = [None]

    def walk(pos, n, seen):
        if best[0] is not None and n >= best[0]:
            return
        for nxt in board.neighbours(pos):
            if nxt == goal:
                best[0] = n + 1 if best[0] is None else min(best[0], n + 1)
            elif not isinstance(nxt, str) and nxt not in occupied and nxt not in seen:
                walk(nxt, n + 1, seen | {nxt})
    walk(start, 0, {start})
    return best[0]


@SETTINGS
@given(seed=st.integers(0, 10 ** 6), gamma=st.sampled_from([0.5, 0.8, 0.9]),
       scores=st.lists(st.floats(0, 3), min_size=3, max_size=3), blocked=st.integers(0, 3))
def test_value_iteration_matches_enumerated_shortest_paths(seed, gamma, scores, blocked):
    board = small_board(seed)
    rng = random.Random(seed)
    occupied = set(rng.sample(sorted(board.hallway), min(blocked, len(board.hallway) - 1)))
    room_values = dict(zip(board.rooms, scores))
    got = value_iteration(board, room_values, gamma, occupied)
    assert got == pytest.approx(brute_force_values(board, room_values, gamma, occupied))
    for sq in board.hallway - occupied:
        want = 0.0
        for r, s in room_values.items():
            n = enumerated_steps(board, sq, r, occupied)
            if n is not None:
                want = max(want, s * gamma ** n)
        assert got[sq] == pytest.approx(want), (sq, board.doors)


def test_value_iteration_on_the_classic_board():
    board = get_board("classic")
    values = {"kitchen": 1.0, "study": 0.5}
    got = value_iteration(board, values, 0.9)
    assert got == pytest.approx(brute_force_values(board, values, 0.9))
    # in front of the study's door the study is one step away; the kitchen far
    assert got[(6, 4)] == pytest.approx(max(0.5 * 0.9, 1.0 * 0.9 ** 26))
    with pytest.raises(ValueError, match="discount"):
        value_iteration(board, values, 1.0)


def _options(board, here, roll, pawns=None, pulled=False):
    return MoveOptions.for_turn(board, "scarlet", {**board.starts, **(pawns or {}), "scarlet": here}, roll, pulled)


def test_planner_trades_a_near_fair_room_for_a_far_better_one():
    board = get_board("classic")
    options = _options(board, (8, 4), 6)  # the hall 1 step away, the study 3, the library 6
    assert best_choice(options, {"hall": 0.5, "library": 1.0}, 0.9) == "library"  # both in reach: the best
    options = _options(board, (8, 4), 1)
    # with a roll of 1 only the hall is in reach: its 0.5 now beats the library's 1.0 five steps on (0.59)
    # only when the discount is steep
    assert best_choice(options, {"hall": 0.5, "library": 1.0}, 0.5) == "hall"
    assert best_choice(options, {"hall": 0.5, "library": 1.0}, 0.95) != "hall"
    # the shortest-path player goes for the one room it is told, wherever it is
    assert nearest_choice(options, ["library"]) in {(8, 5), (7, 4)}
    assert nearest_choice(_options(board, "study", 3, pulled=True), ["study"]) == "study"  # staying counts as 0


def test_planner_may_stay_where_pulled():
    board = get_board("classic")
    options = _options(board, "hall", 2, pulled=True)
    assert best_choice(options, {"hall": 1.0}, 0.9) is None  # stay and suggest in the hall
    assert best_choice(_options(board, "hall", 2), {"hall": 1.0}, 0.9) is not None
