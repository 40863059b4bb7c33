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
from .game import (GameResult, PlayerError, check_triple, deal_in, judge_accusation, last_one_left,
                   seats_in_turn, suggest_around)


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
    table = _BoardTable(deal, players, get_board(board), on_event, on_move)
    rng = rng if rng is not None else random.Random(0)
    result = table.result
    for rnd, by in seats_in_turn(deal.players, table.out, max_rounds, result):
        roll = sum(rng.randint(1, 6) for _ in range(table.board.dice))
        table.move_and_suggest(rnd, by, roll)
        accusation = players[by].accuse(len(result.round_of_turn))
        if accusation is None:
            continue
        if judge_accusation(deal, by, accusation, rnd, result, table.tell, table.out):
            break
        table.clear_door(rnd, by)
        if last_one_left(deal.players, table.out, rnd, result):
            break
    result.reports = {p: players[p].report() for p in deal.players}
    return result


class _BoardTable:
    """One board game's state between turns: where each pawn stands, the
    pawns pulled into a room since their last turn, who is out; and the
    moves of a turn."""

    def __init__(self, deal: Deal, players: dict, board: Board, on_event: Callable | None,
                 on_move: Callable | None) -> None:
        self.deal, self.players, self.board, self.on_move = deal, players, board, on_move
        self.pawn_of = board_pawns(board, deal)
        self.room_cat = room_category(board, deal)
        self.result, self.tell = deal_in(deal, players, on_event, "board")
        self.result.board = board.id if board.path.startswith(str(boards_dir())) else board.path
        self.where: dict = dict(board.starts)  # suspect -> square or room
        self.pulled: set = set()  # pawns moved into their room by a suggestion since their last turn
        self.out: set = set()

    def record(self, move: Move, options: MoveOptions | None) -> None:
        self.result.moves.append(move)
        if self.on_move is not None:
            self.on_move(move, options)

    def move_and_suggest(self, rnd: int, by: str, roll: int) -> None:
        """``by``'s move, and its suggestion when it ends in a room."""
        me = self.pawn_of[by]
        here = self.where[me]
        may_stay = me in self.pulled and isinstance(here, str)
        self.pulled.discard(me)
        options = MoveOptions.for_turn(self.board, me, self.where, roll, may_stay)
        choice = self.players[by].move(len(self.result.round_of_turn) + 1, rnd, options)
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
        self.where[me] = end
        move = Move(rnd, by, me, roll if how == "roll" else None, here, end, None, how)
        if not (isinstance(end, str) and (how != "stay" or may_stay)):
            self.record(move, options)
            return
        turn = self.result.new_turn(rnd)
        self.record(Move(rnd, by, me, move.roll, here, end, turn, how), options)
        self.suggest(rnd, by, end, turn, options)

    def suggest(self, rnd: int, by: str, end: str, turn: int, options: MoveOptions) -> None:
        """``by``'s suggestion in room ``end``: the suggested suspect's pawn
        is moved into the room, then the others disprove in turn."""
        edition = self.deal.edition
        cards = check_triple(edition, self.players[by].suggest_in(turn, rnd, end, options), by, "suggestion")
        room = next(c for c in cards if edition.category_of(c) == self.room_cat)
        if room != end:
            raise PlayerError(f"{by}'s suggestion names {room}, but {by}'s pawn is in {end}")
        me = self.pawn_of[by]
        for c in cards:
            if c in self.where and c != me and self.where[c] != end:
                pull = Move(rnd, by, c, None, self.where[c], end, None, "pulled")
                self.where[c] = end
                self.pulled.add(c)
                self.record(pull, None)
        suggest_around(self.deal, self.players, by, cards, turn, rnd, self.tell)

    def clear_door(self, rnd: int, by: str) -> None:
        """The published rules: a wrong accuser's pawn does not block a door
        (it moves into the door's room)."""
        me = self.pawn_of[by]
        door = next((d for d in self.board.doors if d.outside == self.where[me]), None)
        if door is not None:
            clear = Move(rnd, by, me, None, self.where[me], door.room, None, "cleared")
            self.where[me] = door.room
            self.record(clear, None)
