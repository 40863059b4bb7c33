"""Decisions: what strategy, response and accusation rules propose.

A ``your-turn`` / ``disprove-request`` / ``accuse-offer`` fact (see
``Knowledge.request``) makes the decision rules fire; each firing of a rule
concluding ``suggest:``, ``show:``, ``accuse:``, ``ask:`` or ``move:`` becomes
a :class:`~clue_expert.engine.seat.justify.Candidate` whose options are checked to
be the edition's cards, the game's players and (the board game) this turn's
legal moves (:class:`Deciding`, a part of the seat's knowledge that owns the
candidates of the request running and the board game's move options).
"""
from __future__ import annotations

import contextlib
from typing import Any

from ...core.board import MoveOptions
from ...core.errors import ClueError, RuleFileError
from ..language.expr import clip
from .justify import Candidate, Firing, JustificationLog, LazyMessage
from ..language.rules import CompiledRule
from .store import ReadingView, Seating

__all__ = ["Candidate", "Deciding"]


class Deciding:
    """Turns the firings of decision rules into candidates (see the module docstring)."""

    candidates: list[Candidate] | None
    """What the rules proposed in the request running (None: no request runs)."""
    board_options: MoveOptions | None
    """The board game: this turn's move options (None otherwise)."""
    room_here: str | None
    """The board game: the room the seat's pawn suggests in (None in Speed Clue)."""

    def __init__(self, seating: Seating, log: JustificationLog, view: ReadingView) -> None:
        self._seating = seating
        self._log = log
        self._view = view
        self.candidates = None
        self.board_options = None
        self.room_here = None

    def start(self) -> None:
        """A request starts: no candidates yet."""
        self.candidates = []

    def finish(self) -> list[Candidate]:
        """The request is over: what its rules proposed."""
        found, self.candidates = self.candidates or [], None
        return found

    @contextlib.contextmanager
    def on_board(self, options=None, room: str | None = None):
        """The board game: within the ``with`` block, the move options of the
        seat's turn (read by the board's library functions) and the room its
        pawn suggests in (every suggestion the rules propose then names that
        room); on leaving, both are cleared (Speed Clue)."""
        self.board_options = options
        self.room_here = room
        try:
            yield
        finally:
            self.board_options = None
            self.room_here = None

    def _move_options(self, rule: CompiledRule, value) -> tuple:
        """The destinations a ``move:`` names (a room, ``stay``, a square
        [x, y], or a list of those in order of preference) that are legal this
        turn; an unreadable one is a rule-file error."""
        options = self.board_options
        if options is None:
            return ()
        items = [value] if isinstance(value, str) or (isinstance(value, (list, tuple)) and len(value) == 2
                                                     and all(type(v) is int for v in value)) else list(value or ())
        legal = options.choices()
        out: list = []
        pos: str | tuple | None
        for item in items:
            if item == "stay" or (item == options.here and options.may_suggest_here):
                pos = None  # staying in the room the pawn was moved into (to suggest there)
            elif isinstance(item, str):
                pos = item
            elif isinstance(item, (list, tuple)) and len(item) == 2 and all(type(v) is int for v in item):
                pos = tuple(item)
            else:
                raise RuleFileError(rule.path, rule.id, f"its move names {clip(item, 80)}, which is not a room, "
                                                        f"'stay' or a square [x, y]")
            if pos in legal and ("stay" if pos is None else pos) not in out:
                out.append("stay" if pos is None else pos)
        return tuple(out)

    def decide(self, rule: CompiledRule, env: dict) -> None:
        """A decision rule fired: its candidates (none outside a request)."""
        if self.candidates is None:
            return
        seating = self._seating
        edition, category = seating.edition, seating.category
        for c in rule.then:
            values = [a(env) for a in c.args]
            # one tuple of options per slot of the decision (a move's squares, a suggestion's categories...)
            opts: tuple[tuple[Any, ...], ...]
            if c.kind == "move":
                opts = (self._move_options(rule, values[0]),)
            elif c.kind == "show":
                matching = set(env.get("matching", ()))
                opts = (self._ordered(v for v in self._known_cards(rule, c.kind, _as_set(values[0]))
                                      if v in matching),)
            elif c.kind == "suggest":
                opts = tuple(self._ordered(v for v in self._known_cards(rule, c.kind, _as_set(val))
                                           if category.get(v) == cat)
                             for val, cat in zip(self._suggestion_slots(rule, c, env), edition.categories))
                if self.room_here is not None:  # the board game: the room is where the pawn stands
                    here = category.get(self.room_here)
                    opts = tuple((self.room_here,) if cat == here else o
                                 for o, cat in zip(opts, edition.categories))
            elif c.kind == "ask":  # the generalized game: one player, any list of cards
                whom = _as_set(values[0])
                for p in whom:
                    if type(p) is not str or p not in seating.players or p == seating.me:
                        raise RuleFileError(rule.path, rule.id, f"its ask names {clip(p, 80)}, which is not "
                                                                f"another player ({', '.join(seating.players)})")
                asked = self._ordered(self._known_cards(rule, c.kind, _as_set(values[1])))
                out = self._view.out_players()
                opts = (tuple(p for p in seating.players if p in set(whom) - out), (asked,) if asked else ())
            else:  # accuse
                named = values if len(values) > 1 else list(values[0] or ())
                self._known_cards(rule, c.kind, named)
                try:
                    accused = edition.check_accusation(named)
                except (ClueError, KeyError, TypeError):
                    continue
                opts = tuple((t,) for t in accused)
            if not all(opts):
                continue
            step = self._log.new_step()
            message = LazyMessage(rule, dict(env))  # the bindings of this firing
            cand = Candidate(c.kind, opts, rule.priority, rule.id, message, step)
            self.candidates.append(cand)
            self._log.log(Firing(step, rule.id, message, ((c.kind, opts),), (env["this"],), self._log.turn))

    def _known_cards(self, rule: CompiledRule, kind: str, cards) -> list:
        """``cards`` (a list), each checked to be a card of the edition."""
        cards = list(cards)
        for v in cards:
            if type(v) is not str or v not in self._seating.all_cards:
                raise RuleFileError(rule.path, rule.id, f"its {kind} names {clip(v, 80)}, which is not a card "
                                                        f"of edition {self._seating.edition.id!r}")
        return cards

    def _suggestion_slots(self, rule: CompiledRule, conclusion, env: dict) -> list:
        """The value of a ``suggest:`` conclusion for each category of the
        edition: the category's own entry, else ``other`` with ``category``
        bound to it."""
        named = conclusion.slots
        out = []
        edition = self._seating.edition
        for cat in edition.categories:
            if cat in named:
                out.append(named[cat](env))
            elif "other" in named:
                inner = dict(env)
                inner["category"] = cat
                out.append(named["other"](inner))
            else:
                raise RuleFileError(rule.path, rule.id, f"names no card for the category {cat!r} of edition "
                                    f"{edition.id!r}; add '{cat}:' or an 'other:' entry to its suggest")
        return out

    def _ordered(self, cards) -> tuple:
        order = self._seating.order
        return tuple(sorted(set(cards), key=lambda c: order.get(c, 10**6)))


def _as_set(value) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return list(value)
