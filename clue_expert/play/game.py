"""The Speed Clue driver and the :class:`Player` interface.

The driver is thin: it deals, asks the active player for a suggestion, asks
the players after him in seat order to disprove it, tells every player exactly
what he is entitled to see, offers the suggester an accusation and applies it
(a wrong accuser is out but still disproves; the last one left wins), and stops
at a round cap.  It never reads a player's knowledge, and does not know which
kind of player it talks to.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from ..core.cards import CATEGORIES, Edition
from ..core.deals import Deal
from ..core.errors import ClueError
from ..core.records import Accusation, Record, Suggestion


class PlayerError(ClueError):
    """A player broke the rules of the game (an impossible suggestion, a card
    it cannot show, a malformed accusation)."""


@dataclass(frozen=True)
class SuggestionEvent:
    """What one player is told about a suggestion."""

    turn: int
    """Record turn number (1-based; accusations count as turns)."""
    round: int
    """Round number (1-based)."""
    by: str
    """The suggester."""
    cards: tuple
    """Suspect, weapon, room."""
    passed: tuple
    """Players who could not disprove, in asking order."""
    shown_by: str | None
    """Who disproved it, or None."""
    card: str | None
    """The card shown -- only for the suggester and the shower, else None."""


@dataclass(frozen=True)
class AccusationEvent:
    """An accusation, told to everyone."""

    turn: int
    """Record turn number."""
    round: int
    """Round number."""
    by: str
    """The accuser."""
    cards: tuple
    """Suspect, weapon, room."""
    correct: bool
    """Whether it matched the envelope."""


def feed_event(k, event) -> None:
    """Tell a :class:`~clue_expert.knowledge.Knowledge` what a player was told."""
    if isinstance(event, AccusationEvent):
        k.observe_accusation(event.turn, event.by, event.cards, event.correct)
    else:
        k.observe_suggestion(event.turn, event.by, event.cards, event.passed, event.shown_by, event.card)


class Player(ABC):
    """A seat at the table.  The driver talks to every player through these
    methods only."""

    name: str
    """The player's name (its seat's name)."""

    @abstractmethod
    def start(self, edition: Edition, players: Sequence[str], hand_sizes: dict, hand: Sequence[str]) -> None:
        """A new game: the seating, every hand size and this player's hand."""

    @abstractmethod
    def suggest(self, turn: int, round: int) -> Sequence[str]:
        """This player's suggestion: one suspect, one weapon, one room."""

    @abstractmethod
    def disprove(self, turn: int, by: str, cards: Sequence[str], matching: Sequence[str]) -> str:
        """Which of ``matching`` (the suggested cards this player holds) to show ``by``."""

    @abstractmethod
    def observe(self, event) -> None:
        """A :class:`SuggestionEvent` or :class:`AccusationEvent`, as this player may see it."""

    @abstractmethod
    def accuse(self, turn: int) -> Sequence[str] | None:
        """An accusation after this player's suggestion, or None."""

    def report(self) -> dict:
        """Free statistics the player chooses to report after the game
        (e.g. ``solved_turn``: the turn after which it could name the envelope)."""
        return {}


@dataclass
class GameResult:
    """The outcome of one game."""

    deal: Deal
    """The deal played."""
    winner: str | None
    """Who won (None: the round cap was reached)."""
    win_round: int | None
    """The round of the win."""
    rounds: int
    """Rounds played."""
    events: list = field(default_factory=list)
    """Every event, with all cards visible (the god's-eye log)."""
    wrong_accusations: list = field(default_factory=list)
    """(player, round) of each wrong accusation."""
    round_of_turn: dict = field(default_factory=dict)
    """turn -> round."""
    reports: dict = field(default_factory=dict)
    """player -> its report()."""

    @property
    def solution_round(self) -> int | None:
        """The first round after which some player could name the envelope
        (from the players' own reports), else None."""
        turns = [r["solved_turn"] for r in self.reports.values() if r.get("solved_turn") is not None]
        rounds = [0 if t == 0 else self.round_of_turn[t] for t in turns]  # turn 0: solved from the deal
        return min(rounds) if rounds else None

    def record(self, me: str) -> Record:
        """The game as ``me`` saw it, in the knowledge engine's record format
        (with the true deal attached)."""
        turns = []
        for e in self.events:
            if isinstance(e, AccusationEvent):
                turns.append(Accusation(e.by, e.cards, e.correct))
            else:
                card = e.card if me in (e.by, e.shown_by) else None
                turns.append(Suggestion(e.by, e.cards, e.passed, e.shown_by, card, e.card))
        d = self.deal
        return Record(edition=d.edition, players=d.players, me=me, hand=d.hands[me],
                      hand_sizes={p: len(h) for p, h in d.hands.items()}, turns=turns, deal=d)


def _check_triple(edition: Edition, cards, who: str, what: str) -> tuple:
    try:
        cards = tuple(cards)
        cats = [edition.category_of(c) for c in cards]
    except (KeyError, TypeError):
        raise PlayerError(f"{who} made an invalid {what}: {cards!r}") from None
    if cats != list(CATEGORIES):
        raise PlayerError(f"{who}'s {what} {list(cards)} is not one suspect, one weapon and one room")
    return cards


def play_game(deal: Deal, players: dict, *, max_rounds: int = 60,
              on_event: Callable | None = None) -> GameResult:
    """Play one game of Speed Clue on ``deal``.  ``players`` maps every seat
    name of the deal to a :class:`Player`.  ``on_event(event)`` sees each
    event with all cards visible (for traces)."""
    names = deal.players
    if set(players) != set(names):
        raise ClueError(f"players {sorted(players)} do not match the deal's seats {list(names)}")
    edition = deal.edition
    sizes = {p: len(deal.hands[p]) for p in names}
    for p in names:
        players[p].start(edition, names, sizes, deal.hands[p])
    result = GameResult(deal=deal, winner=None, win_round=None, rounds=0)
    out: set = set()
    turn = 0

    def tell(event, private=None):
        result.events.append(event)
        if on_event is not None:
            on_event(event)
        public = replace(event, card=None) if private is not None else event
        for p in names:
            players[p].observe(event if private is None or p in private else public)

    for rnd in range(1, max_rounds + 1):
        result.rounds = rnd
        for by in names:
            if by in out:
                continue
            turn += 1
            result.round_of_turn[turn] = rnd
            cards = _check_triple(edition, players[by].suggest(turn, rnd), by, "suggestion")
            i = names.index(by)
            passed: list = []
            shown_by, card = None, None
            for p in names[i + 1:] + names[:i]:
                matching = tuple(c for c in cards if c in deal.hands[p])
                if not matching:
                    passed.append(p)
                    continue
                card = matching[0] if len(matching) == 1 else players[p].disprove(turn, by, cards, matching)
                if card not in matching:
                    raise PlayerError(f"{p} tried to show {card!r}, not one of its matching cards {list(matching)}")
                shown_by = p
                break
            event = SuggestionEvent(turn, rnd, by, cards, tuple(passed), shown_by, card)
            tell(event, private={by, shown_by} if shown_by else None)
            accusation = players[by].accuse(turn)
            if accusation is None:
                continue
            accusation = _check_triple(edition, accusation, by, "accusation")
            turn += 1
            result.round_of_turn[turn] = rnd
            correct = accusation == deal.envelope
            tell(AccusationEvent(turn, rnd, by, accusation, correct))
            if correct:
                result.winner, result.win_round = by, rnd
                break
            out.add(by)
            result.wrong_accusations.append((by, rnd))
            left = [p for p in names if p not in out]
            if len(left) == 1:
                result.winner, result.win_round = left[0], rnd
                break
        if result.winner is not None:
            break
    result.reports = {p: players[p].report() for p in names}
    return result
