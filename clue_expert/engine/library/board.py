"""The board game: rooms in reach, legal moves, the value of a room and Siebel's planner."""
from __future__ import annotations

import itertools

from ...core.board import distances
from ..reasoning import planning
from ..reasoning.beliefs import TableTooLarge
from ..seat.queries import KnowledgeView
from .beliefs import evaluator, sheet_choice
from .registry import Section

BOARD = Section("the board game")


def _board(k: KnowledgeView):
    if k.board_options is None:
        raise ValueError("a board function needs the board game's move options (a move-request)")
    return k.board_options


@BOARD("the board game: the room the seat's pawn stands in (where it must suggest), else None")
def room_here(k: KnowledgeView, _unused=None):
    if k.room_here is not None:
        return k.room_here
    here = k.board_options.here if k.board_options is not None else None
    return here if isinstance(here, str) else None


@BOARD("the board game: the rooms this move can end in with a suggestion (entered by the roll or the "
       "secret passage, or stayed in after being moved there by a suggestion)", costly=True)
def reachable_rooms(k: KnowledgeView, _unused=None):
    return frozenset(_board(k).rooms())


@BOARD("the board game: every room of the board")
def board_rooms(k: KnowledgeView, _unused=None):
    return frozenset(_board(k).board.rooms)


@BOARD("the board game: every legal move of this turn, as a move: names them (rooms, squares [x, y], "
       "'stay' where allowed), rooms first", costly=True)
def legal_moves(k: KnowledgeView, _unused=None):
    choices = _board(k).choices()
    rooms = [c for c in choices if isinstance(c, str)]
    squares = sorted(c for c in choices if c is not None and not isinstance(c, str))
    return tuple(rooms + squares + (["stay"] if None in choices else []))


@BOARD("the board game: the move that gets the pawn nearest to one of the rooms (one it can end in now, "
       "fewest steps; else the square of the roll fewest steps from one); when none is in reach, the first of "
       "legal_moves()", costly=True)
def nearest_move(k: KnowledgeView, rooms):
    choice = planning.nearest_choice(_board(k), rooms)
    if choice is None:
        return legal_moves(k)[0]
    return choice


@BOARD("the board game: the expected information (bits) of the best suggestion that can be made in the "
       "room: by the quick estimate (shortlist 0, the default: Siebel's formulation with the exact envelope "
       "distribution), or exactly among the `shortlist` best estimates", costly=True)
def room_score(k: KnowledgeView, room, shortlist=0):
    return k.memo(("room-score", room, int(shortlist)), lambda: _room_score(k, room, int(shortlist)))


def _in_room(k: KnowledgeView, room) -> list:
    """The distinct suggestions naming the room: in the other categories the
    cards the evaluator tells apart (cards with the same known owner give
    the same outcomes, see SuggestionEvaluator.candidates)."""
    cat = k.category_of(room)
    reps = k.memo_state("suggestion-cards", lambda: [sorted({t[i] for t in evaluator(k).candidates()},
                                                           key=k.sheet_position)
                                                    for i in range(len(k.edition.categories))])
    sets = [[room] if c == cat else reps[i] for i, c in enumerate(k.edition.categories)]
    return list(itertools.product(*sets))


def _room_score(k: KnowledgeView, room, shortlist: int) -> float:
    if k.solved():
        return 0.0
    ev = evaluator(k)
    among = _in_room(k, room)
    if shortlist <= 0:
        return max(ev.estimate(t).gain_bits for t in among)
    ranked = ev.rank(shortlist, among=among)
    return ranked[0].gain_bits if ranked else 0.0


def _best_in_room(k: KnowledgeView, room, shortlist: int):
    ranked = evaluator(k).rank(shortlist, among=_in_room(k, room))
    return ranked[0].cards if ranked else None


@BOARD("the board game: the room whose best suggestion brings the most information (room_score; ties: the "
       "nearest, then board order)", costly=True)
def best_room(k: KnowledgeView, shortlist=0):
    options = _board(k)
    rooms = options.board.rooms
    dist = distances(options.board, options.here, options.occupied())
    return min(rooms, key=lambda r: (-round(room_score(k, r, shortlist), 9), dist.get(r, 10 ** 6), rooms.index(r)))


@BOARD("the board game: Siebel's planner -- every room worth its room_score, every hallway square its best "
       "neighbour's value times the discount (value iteration); the move of this turn with the highest value",
       costly=True)
def planned_move(k: KnowledgeView, discount=planning.DEFAULT_DISCOUNT, shortlist=0):
    options = _board(k)
    scores = {r: room_score(k, r, shortlist) for r in options.board.rooms}
    choice = planning.best_choice(options, scores, float(discount))
    return "stay" if choice is None else choice


@BOARD("the board game: the suggestion with the most exact expected information that names the room the "
       "pawn stands in (most_informative_of with the room fixed)", costly=True, soft=True)
def most_informative_here(k: KnowledgeView, shortlist=4):
    room = room_here(k)
    if room is None:
        return None
    try:
        return _best_in_room(k, room, int(shortlist))
    except TableTooLarge:  # too big to value exactly: the sheet's least settled cards, in this room
        cat = k.category_of(room)
        return sheet_choice(k, [[room] if c == cat else k.category_cards(c) for c in k.edition.categories])


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    BOARD.register(functions, descriptions)
