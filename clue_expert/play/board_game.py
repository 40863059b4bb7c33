"""The board game's driver: Speed Clue's suggestions and accusations, with
pawns on a board (docs/board.md).

Each turn the driver rolls the die, offers the player every legal move
(:class:`~clue_expert.core.board.MoveOptions`), moves the pawn where the
player chooses, and asks for a suggestion when the pawn entered a room (by
a door or the secret passage) or, having been moved into its room by
another's suggestion since its last turn, stays there.  A suggestion names
the pawn's room; the suggested suspect's pawn is moved into that room.  The
suggestion is then answered round the table exactly as in Speed Clue, and
the player may accuse (from anywhere) at the end of every turn; a wrong
accuser is out of the moves but stays to disprove.  Seat ``i`` plays the
``i``-th suspect of the edition (the classic order, Miss Scarlet first);
the pawns of suspects nobody plays stay on the board, and can be moved by
a suggestion, as in the published rules.  The driver never reads a
player's knowledge.
"""
from __future__ import annotations

import random
from typing import Callable

from ..core.board import Board, Move, MoveOptions, get_board
from ..core.deals import Deal
from ..core.errors import ClueError
from ..core.paths import boards_dir
from .game import (GameResult, PlayerError, _check_triple, _deal_in, _judge_accusation, _last_one_left,
                   _seats_in_turn, _suggest_around)


def board_pawns(board: Board, deal: Deal) -> dict:
    """Seat -> suspect: seat ``i`` plays the ``i``-th suspect of the edition
    that has a starting square on the board.  A clear error when the
    edition does not name the board's rooms and suspects."""
    edition = deal.edition
    rooms = [c for c in board.rooms if c not in edition.card_ids]
    suspects = [s for s in board.starts if s not in edition.card_ids]
    if rooms or suspects:
        raise ClueError(f"board {board.id} names {', '.join(rooms + suspects)}, which edition {edition.id} has no "
                        f"card for; play it with the edition {board.edition}")
    cats = {edition.category_of(c) for c in board.rooms}
    if len(cats) != 1 or len(edition.category_cards(next(iter(cats)))) != len(board.rooms):
        raise ClueError(f"board {board.id}'s rooms must be exactly the cards of one category of edition {edition.id}")
    order = [c for c in edition.card_ids if c in board.starts]
    if len(deal.players) > len(order):
        raise ClueError(f"board {board.id} has {len(order)} pawns, too few for {len(deal.players)} players")
    return dict(zip(deal.players, order))


def room_category(board: Board, deal: Deal) -> str:
    """The edition's category of the board's rooms."""
    return deal.edition.category_of(board.rooms[0])


def play_board_game(deal: Deal, players: dict, board: Board | str = "classic", *, max_rounds: int = 200,
                    on_event: Callable | None = None, rng: random.Random | None = None,
                    on_move: Callable | None = None) -> GameResult:
    """Play one board game on ``deal`` (``players``: seat -> Player).
    ``rng`` rolls the die; ``on_event`` sees each suggestion and accusation
    with all cards; ``on_move(move, options)`` each move."""
    board = get_board(board)
    rng = rng if rng is not None else random.Random(0)
    names, edition = deal.players, deal.edition
    pawn_of = board_pawns(board, deal)
    room_cat = room_category(board, deal)
    result, tell = _deal_in(deal, players, on_event, "board")
    result.board = board.id if board.path.startswith(str(boards_dir())) else board.path
    where: dict = dict(board.starts)  # suspect -> square or room
    pulled: set = set()  # pawns moved into their room by a suggestion since their last turn
    out: set = set()
    for rnd, by in _seats_in_turn(names, out, max_rounds, result):
        me = pawn_of[by]
        here = where[me]
        may_stay = me in pulled and isinstance(here, str)
        pulled.discard(me)
        roll = sum(rng.randint(1, 6) for _ in range(board.dice))
        options = MoveOptions.for_turn(board, me, where, roll, may_stay)
        turn_no = len(result.round_of_turn) + 1
        choice = players[by].move(turn_no, rnd, options)
        if isinstance(choice, list):
            choice = tuple(choice)
        if choice not in options.choices():
            raise PlayerError(f"{by} chose to move to {choice!r}, which is not one of its legal moves this turn")
        if choice is None:
            how, end = "stay", here
        elif choice in options.destinations:
            how, end = "roll", choice
        else:
            how, end = "passage", choice
        where[me] = end
        suggests = isinstance(end, str) and (how != "stay" or may_stay)
        move = Move(rnd, by, me, roll if how == "roll" else None, here, end, None, how)
        if suggests:
            turn = result.new_turn(rnd)
            move = Move(rnd, by, me, move.roll, here, end, turn, how)
            result.moves.append(move)
            if on_move is not None:
                on_move(move, options)
            cards = _check_triple(edition, players[by].suggest_in(turn, rnd, end, options), by, "suggestion")
            room = next(c for c in cards if edition.category_of(c) == room_cat)
            if room != end:
                raise PlayerError(f"{by}'s suggestion names {room}, but {by}'s pawn is in {end}")
            for c in cards:  # the suggested suspect's pawn is moved into the room
                if c in where and c != me and where[c] != end:
                    pull = Move(rnd, by, c, None, where[c], end, None, "pulled")
                    where[c] = end
                    pulled.add(c)
                    result.moves.append(pull)
                    if on_move is not None:
                        on_move(pull, None)
            _suggest_around(deal, players, by, cards, turn, rnd, tell)
        else:
            result.moves.append(move)
            if on_move is not None:
                on_move(move, options)
        accusation = players[by].accuse(len(result.round_of_turn))
        if accusation is None:
            continue
        if _judge_accusation(deal, by, accusation, rnd, result, tell, out):
            break
        door = next((d for d in board.doors if d.outside == where[me]), None)
        if door is not None:  # the published rules: a wrong accuser's pawn does not block a door
            clear = Move(rnd, by, me, None, where[me], door.room, None, "cleared")
            where[me] = door.room
            result.moves.append(clear)
            if on_move is not None:
                on_move(clear, None)
        if _last_one_left(names, out, rnd, result):
            break
    result.reports = {p: players[p].report() for p in names}
    return result
