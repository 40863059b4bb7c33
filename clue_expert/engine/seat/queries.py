"""The typed, public query interface of a seat's knowledge.

:class:`KnowledgeView` is what the rule library, the exact beliefs, the
notebook and the contest agent may read; :class:`~clue_expert.engine.seat.knowledge.Knowledge`
implements it.  Modules that only read knowledge annotate with this protocol
and so never import the knowledge module (no cycle: knowledge → rules →
library → beliefs → queries).
"""
from __future__ import annotations

import random
from typing import Callable, Iterable, Protocol

from ...core.board import MoveOptions
from ...core.cards import Edition
from ...core.facts import CellKey, Key
from ...core.observations import Observation, Suggestion


class KnowledgeView(Protocol):
    """What one seat knows, read-only."""

    edition: Edition
    """The card list."""
    players: tuple[str, ...]
    """Players in seat order."""
    owners: tuple[str, ...]
    """The players, then the envelope."""
    me: str | None
    """Whose knowledge (None for a spectator)."""
    hand_sizes: dict[str, int]
    """owner -> how many cards it holds (the envelope: its size)."""
    complete: bool
    """Whether the completion (case analysis) step runs."""
    rng: random.Random
    """The seat's seeded random source (rules that draw)."""
    room_here: str | None
    """The board game: the room the seat's pawn suggests in (None otherwise)."""

    @property
    def board_options(self) -> MoveOptions | None:
        """The board game: this turn's :class:`~clue_expert.core.board.MoveOptions` (None otherwise)."""

    # the edition's shape
    @property
    def cards(self) -> tuple[str, ...]:
        """Card ids in sheet order."""

    @property
    def card_set(self) -> frozenset:
        """Every card id."""

    @property
    def owner_set(self) -> frozenset:
        """Every owner (the players and the envelope)."""

    def category_of(self, card: str) -> str:
        """The category of a card."""

    def category_cards(self, category: str) -> frozenset:
        """The cards of a category."""

    def envelope_count(self, category: str) -> int:
        """How many cards of the category the envelope holds."""

    def sheet_position(self, name: str) -> int:
        """A name's place in sheet order (cards, then owners)."""

    # the sheet
    def hand_size(self, owner: str) -> int | None:
        """How many cards the owner holds."""

    def status(self, owner: str, card: str) -> str:
        """``held``, ``lacked`` or ``unknown``."""

    def held_by(self, owner: str) -> frozenset:
        """Cards known held by the owner."""

    def lacked_by(self, owner: str) -> frozenset:
        """Cards known lacked by the owner."""

    def holders(self, card: str) -> frozenset:
        """Owners known to hold the card."""

    def lackers(self, card: str) -> frozenset:
        """Owners known not to hold the card."""

    def one_of_clauses(self, owner: str) -> list[frozenset]:
        """Live (narrowed, unsatisfied) one-of clauses of the owner."""

    def recorded_one_of_clauses(self, owner: str) -> list[frozenset]:
        """Every one-of clause recorded for the owner, satisfied ones included."""

    def not_all_clauses(self, owner: str) -> list[frozenset]:
        """The owner's not-all clauses."""

    def bounds(self, owner: str) -> list[tuple]:
        """The owner's bounds already reduced against the sheet (all cards unknown), not implied by it."""

    def bounds_with(self, owner: str, card: str) -> list[tuple]:
        """The owner's bounds naming the card, as stated, not yet implied by the sheet: (cards, low, high)."""

    def has_clauses(self, owner: str) -> bool:
        """Whether any one-of clause of the owner was ever recorded."""

    def envelope(self) -> dict:
        """category -> the envelope's known card(s)."""

    def solved(self) -> bool:
        """Whether every envelope card is known."""

    def known(self, key: Key) -> bool:
        """Whether a fact is known."""

    # what this seat saw and did
    def out_players(self) -> frozenset:
        """Players who made a wrong accusation."""

    def seen_cards(self) -> frozenset:
        """Cards shown to this seat."""

    def shown_to(self, player: str) -> frozenset:
        """Cards this seat has shown to the player."""

    def shown_to_anyone(self) -> frozenset:
        """Cards this seat has shown to anyone."""

    def observations(self) -> tuple:
        """Every (turn, observation) taken in so far."""

    def suggestions_seen(self) -> list[tuple[int, Suggestion]]:
        """(turn, suggestion) for every suggestion observed."""

    # opponent modelling and derived views
    def probable_clues(self, refuted: bool = False, model: str | None = None) -> list[CellKey]:
        """Probable clues (kept off the sheet); ``model``: only those of that model rule set."""

    def fresh(self, me: str | None, *, complete: bool | None = None, deduction: bool = False) -> "ScratchKnowledge":
        """A new, empty knowledge of the same game and rules for another seat
        (``deduction``: its deduction rule sets alone)."""

    def spare(self, me: str | None) -> "ScratchKnowledge":
        """Like ``fresh(me, complete=False)``, the same object reset at each call for the same seat."""

    def memo_state(self, key, build: Callable):
        """``build()`` once while the knowledge stands still (kept across requests)."""

    def memo(self, key, build: Callable):
        """``build()`` computed once for the knowledge as it stands."""

    # the completion step's answers
    def consistent(self) -> bool:
        """Whether some deal satisfies everything known."""

    def completion_check(self, key: Key) -> dict:
        """Example owners of a card in deals with and without an open fact."""

    def settling_cells(self, key: Key, skip: Iterable[str] = ()) -> list:
        """Single cells that would settle an open fact."""


class ScratchKnowledge(KnowledgeView, Protocol):
    """A knowledge a rule may feed (what :meth:`KnowledgeView.fresh` makes:
    another seat's view, modelled): it reads as a :class:`KnowledgeView` and
    also takes observations and assumed facts."""

    def observe(self, observation: Observation, turn: int = 0) -> None:
        """Take in one observation made on ``turn``."""

    def assume(self, keys: Iterable[Key]) -> None:
        """Take the facts ``keys`` as given."""
