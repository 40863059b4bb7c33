"""One family of observation types: what a seat can see of a game.

Records, the game driver, the notebook, the human seat and the contest agent
all speak these frozen dataclasses, and a seat's knowledge takes every one of
them through one entry point, ``Knowledge.observe(observation, turn)``.  A game
event is an observation plus its turn (and round): :class:`Event`.

* :class:`DealtHand` -- the seat's own cards (turn 0);
* :class:`Suggestion` -- a suggestion with its passes and the show (the card
  only when the seat may see it);
* :class:`Accusation` -- an accusation and whether it was right;
* :class:`RevealedHand` -- a whole hand shown to everyone (in the generalized
  game a wrong guesser's hand is laid open);
* :class:`Given` -- facts asserted directly (rule scenarios, classroom "what if").
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Union


@dataclass(frozen=True)
class DealtHand:
    """The cards dealt to ``player`` (the seat itself)."""

    player: str
    """Whose hand."""
    cards: tuple[str, ...]
    """Card ids."""


@dataclass(frozen=True)
class Suggestion:
    """A suggestion and its answer."""

    by: str
    """The suggester."""
    cards: tuple[str, ...]
    """One card of each category, in sheet order (suspect, weapon, room);
    in the generalized game, the list asked about."""
    passed: tuple[str, ...] = ()
    """Players who could not disprove, in asking order."""
    shown_by: str | None = None
    """Who disproved it (None: nobody could)."""
    card: str | None = None
    """The card shown, when the observing seat saw it."""
    actual: str | None = None
    """The card actually shown, whoever saw it (only in records that carry the
    true deal, e.g. written by ``play``/``simulate``; lets ``replay --as``
    take any seat)."""
    asks: str | None = None
    """The generalized game's interrogation: the one player asked (None in
    Speed Clue, where the players after the suggester are asked in turn).
    ``cards`` is then any non-empty list, and the asked player either
    passed or showed."""

    def to_dict(self) -> dict:
        """The record (YAML/JSON) form."""
        d: dict[str, object] = {"by": self.by}
        if self.asks is not None:
            d["asks"] = self.asks
        d.update({"suggest": list(self.cards), "passed": list(self.passed), "shown_by": self.shown_by})
        if self.card is not None:
            d["card"] = self.card
        if self.actual is not None and self.actual != self.card:
            d["actual"] = self.actual
        return d

    def seen_by(self, seat: str | None) -> "Suggestion":
        """This suggestion as ``seat`` sees it during a game: the shown card
        (from ``actual`` when ``card`` is not set) only for the suggester and
        the shower; every other seat, and a spectator (None), gets neither
        ``card`` nor ``actual``."""
        card = self.card if self.card is not None else self.actual
        visible = seat is not None and seat in (self.by, self.shown_by) and self.shown_by is not None
        card = card if visible else None
        return Suggestion(self.by, self.cards, self.passed, self.shown_by, card, card, self.asks)

    def recorded_for(self, seat: str | None) -> "Suggestion":
        """This suggestion in ``seat``'s record of a game whose true deal the
        record carries: ``card`` as :meth:`seen_by` gives it, and ``actual``
        kept, so that ``replay --as`` can take any seat.  Never hand this to
        a player: use :meth:`seen_by`."""
        return replace(self.seen_by(seat), actual=self.card if self.card is not None else self.actual)


@dataclass(frozen=True)
class Accusation:
    """An accusation and its verdict."""

    by: str
    """The accuser."""
    cards: tuple[str, ...]
    """The envelope's shape: its cards of each category, in sheet order."""
    correct: bool
    """Whether it matched the envelope."""
    revealed: tuple[str, ...] | None = None
    """The generalized game: a wrong guesser's whole hand, laid open to
    everyone (None when no hand was shown)."""

    def to_dict(self) -> dict:
        """The record (YAML/JSON) form."""
        d = {"by": self.by, "accuse": list(self.cards), "correct": self.correct}
        if self.revealed is not None:
            d["revealed"] = list(self.revealed)
        return d


@dataclass(frozen=True)
class RevealedHand:
    """``player``'s whole hand, shown to everyone."""

    player: str
    """Whose hand."""
    cards: tuple[str, ...]
    """Card ids."""

    def to_dict(self) -> dict:
        """The record (YAML/JSON) form."""
        return {"reveal": self.player, "cards": list(self.cards)}


@dataclass(frozen=True)
class Given:
    """Facts asserted directly, by their keys (see :mod:`clue_expert.core.facts`)."""

    keys: tuple


#: What a record's turn can be.
Turn = Union[Suggestion, Accusation, RevealedHand]
#: Anything a seat can observe.
Observation = Union[DealtHand, Suggestion, Accusation, RevealedHand, Given]


@dataclass(frozen=True)
class Event:
    """A game event: an observation, the turn it happened on (1-based,
    accusations count as turns) and the round."""

    turn: int
    """Record turn number."""
    round: int
    """Round number (1-based)."""
    observation: Turn
    """What happened, as the receiving player may see it."""
