"""The game drivers and the :class:`Player` interface.

The drivers are thin.  Speed Clue (:func:`play_game`): deal, ask the active
player for a suggestion, ask the players after him in seat order to disprove
it, tell every player exactly what he is entitled to see, offer the suggester
an accusation and apply it (a wrong accuser is out but still disproves; the
last one left wins), stop at a round cap.  The generalized game of the CS4444
reports (``game="generalized"``): a turn is a guess or an interrogation of
one chosen player about any list of cards; a wrong guesser is out, his hand
is laid open to everyone and nobody can ask him any more (docs/generalized.md).
A driver never reads a player's knowledge, and does not know which kind of
player it talks to.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from ..core.board import MoveOptions, Position
from ..engine import nearest_choice, warm_kernels_if_due
from ..core.cards import Edition
from ..core.deals import Deal
from ..core.errors import ClueError
from ..core.observations import Accusation, Event, Suggestion
from ..core.records import Record


class PlayerError(ClueError):
    """A player broke the rules of the game (an impossible suggestion, a card
    it cannot show, a malformed accusation)."""


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

    def interrogate(self, turn: int, round: int, askable: Sequence[str]) -> tuple[str, Sequence[str]]:
        """The generalized game: whom to ask (one of ``askable``, the other
        players still in the game, from this seat's left) and which cards (a
        non-empty list).  By default: the first of ``askable``, about this
        player's :meth:`suggest` cards."""
        return askable[0], tuple(self.suggest(turn, round))

    @abstractmethod
    def disprove(self, turn: int, by: str, cards: Sequence[str], matching: Sequence[str]) -> str:
        """Which of ``matching`` (the suggested cards this player holds) to show ``by``."""

    @abstractmethod
    def observe(self, event: Event) -> None:
        """An :class:`~clue_expert.core.observations.Event` (a suggestion or
        an accusation with its turn and round), as this player may see it: the
        shown card only for the suggester and the shower."""

    @abstractmethod
    def accuse(self, turn: int) -> Sequence[str] | None:
        """An accusation, or None: in Speed Clue offered after this player's
        suggestion; in the generalized game at the start of his turn (a guess
        is the whole turn)."""

    def move(self, turn: int, round: int, options: MoveOptions) -> Position | None:
        """The board game: where to move this turn, one of
        ``options.choices()`` (a destination of the roll, the secret
        passage's room, or None to stay).  By default: stay to suggest where
        pulled; else the reachable room nearest by steps, else the square of
        the roll nearest to a room other than this one."""
        if options.may_suggest_here:
            return None
        return nearest_room_choice(options)

    def suggest_in(self, turn: int, round: int, room: str, options: MoveOptions) -> Sequence[str]:
        """The board game: a suggestion naming ``room``, the room the pawn
        stands in (``options``: this turn's move options).  By default:
        :meth:`suggest` with its room replaced."""
        rooms = set(options.board.rooms)
        return tuple(room if c in rooms else c for c in self.suggest(turn, round))

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
    game: str = "speed-clue"
    """Which game was played (``speed-clue``, ``generalized`` or ``board``)."""
    board: str | None = None
    """The board game: the board's id or file."""
    moves: list = field(default_factory=list)
    """The board game: every :class:`~clue_expert.core.board.Move`, in order."""

    def new_turn(self, rnd: int) -> int:
        """Number the next turn (1-based; an accusation is a turn of its own), played in round ``rnd``."""
        turn = len(self.round_of_turn) + 1
        self.round_of_turn[turn] = rnd
        return turn

    @property
    def solution_round(self) -> int | None:
        """The first round after which some player could name the envelope
        (from the players' own reports), else None."""
        turns = [r["solved_turn"] for r in self.reports.values() if r.get("solved_turn") is not None]
        rounds = [self.round_after(t) for t in turns]
        return min(rounds) if rounds else None

    def round_after(self, turn: int) -> int:
        """The round of ``turn``; 0 for turn 0 (solved from the deal, before any round)."""
        return 0 if turn == 0 else self.round_of_turn[turn]

    def record(self, me: str) -> Record:
        """The game as ``me`` saw it, in the knowledge engine's record format
        (with the true deal attached)."""
        turns = [e.observation.recorded_for(me) if isinstance(e.observation, Suggestion) else e.observation
                 for e in self.events]
        d = self.deal
        return Record(edition=d.edition, players=d.players, me=me, hand=d.hands[me],
                      hand_sizes={p: len(h) for p, h in d.hands.items()}, turns=turns, deal=d, game=self.game,
                      board=self.board, moves=list(self.moves))


def nearest_room_choice(options: MoveOptions) -> Position | None:
    """The choice of ``options`` that gets the pawn nearest to a room other
    than its own (:func:`~clue_expert.engine.reasoning.planning.nearest_choice`), else
    the first legal one (None: stay)."""
    rooms = [r for r in options.board.rooms if r != options.here]
    choice = nearest_choice(options, rooms)
    return choice if choice is not None else options.choices()[0]


def check_triple(edition: Edition, cards, who: str, what: str) -> tuple:
    try:
        cards = tuple(cards)
        check = edition.check_accusation if what == "accusation" else edition.check_suggestion
        ordered = check(cards)
        if ordered != cards:
            raise ClueError(f"the cards must come in sheet order ({', '.join(edition.categories)})")
        return cards
    except (KeyError, TypeError):
        raise PlayerError(f"{who} made an invalid {what}: {cards!r}") from None
    except ClueError as exc:
        raise PlayerError(f"{who}'s {what} {list(cards)}: {exc}") from None


def deal_in(deal: Deal, players: dict, on_event: Callable | None, game: str) -> tuple:
    """Start every player on ``deal``; the game's result, and the function
    that logs an event and tells each player what he may see of it."""
    names = deal.players
    if set(players) != set(names):
        raise ClueError(f"players {sorted(players)} do not match the deal's seats {list(names)}")
    sizes = {p: len(deal.hands[p]) for p in names}
    for p in names:
        players[p].start(deal.edition, names, sizes, deal.hands[p])
    result = GameResult(deal=deal, winner=None, win_round=None, rounds=0, game=game)

    def tell(event: Event) -> None:
        result.events.append(event)
        if on_event is not None:
            on_event(event)
        obs = event.observation
        for p in names:
            players[p].observe(replace(event, observation=obs.seen_by(p)) if isinstance(obs, Suggestion) else event)
    return result, tell


#: The games a driver can play (see :data:`clue_expert.core.records.GAMES`).
GAMES = ("speed-clue", "generalized")


def play_game(deal: Deal, players: dict, *, max_rounds: int = 60,
              on_event: Callable | None = None, game: str = "speed-clue") -> GameResult:
    """Play one game on ``deal``: Speed Clue, or the generalized game
    (``game="generalized"``).  ``players`` maps every seat name of the deal
    to a :class:`Player`.  ``on_event(event)`` sees each event with all cards
    visible (for traces)."""
    if game == "generalized":
        return _play_generalized(deal, players, max_rounds=max_rounds, on_event=on_event)
    if game != "speed-clue":
        raise ClueError(f"no such game {game!r}: {', '.join(GAMES)}")
    names, edition = deal.players, deal.edition
    result, tell = deal_in(deal, players, on_event, "speed-clue")
    out: set = set()
    for rnd, by in seats_in_turn(names, out, max_rounds, result):
        turn = result.new_turn(rnd)
        cards = check_triple(edition, players[by].suggest(turn, rnd), by, "suggestion")
        suggest_around(deal, players, by, cards, turn, rnd, tell)
        accusation = players[by].accuse(turn)
        if accusation is None:
            continue
        if judge_accusation(deal, by, accusation, rnd, result, tell, out):
            break
        if last_one_left(names, out, rnd, result):
            break
    result.reports = {p: players[p].report() for p in names}
    warm_kernels_if_due()  # a long run: the exact beliefs compiled from its next game on (the same results)
    return result


def suggest_around(deal: Deal, players: dict, by: str, cards: tuple, turn: int, rnd: int,
                    tell: Callable) -> None:
    """Ask the seats after ``by``, in turn, to disprove ``cards``: the first
    who holds one shows one (its choice when it holds several); tell
    everyone the suggestion.  Shared by the Speed Clue and board drivers."""
    names = deal.players
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
    tell(Event(turn, rnd, Suggestion(by, cards, tuple(passed), shown_by, card, card)))


def judge_accusation(deal: Deal, by: str, accusation, rnd: int, result: GameResult, tell: Callable,
                      out: set) -> bool:
    """Check and tell ``by``'s accusation (a turn of its own); True when it is
    right (``by`` wins), otherwise ``by`` is put ``out``.  Shared by the Speed
    Clue and board drivers."""
    accusation = check_triple(deal.edition, accusation, by, "accusation")
    turn = result.new_turn(rnd)
    correct = accusation == deal.envelope
    tell(Event(turn, rnd, Accusation(by, accusation, correct)))
    if correct:
        result.winner, result.win_round = by, rnd
        return True
    out.add(by)
    result.wrong_accusations.append((by, rnd))
    return False


def last_one_left(names, out: set, rnd: int, result: GameResult) -> bool:
    """True (and the one left wins) when all but one seat are ``out``."""
    left = [p for p in names if p not in out]
    if len(left) == 1:
        result.winner, result.win_round = left[0], rnd
        return True
    return False


def seats_in_turn(names, out: set, max_rounds: int, result: GameResult):
    """(round, player) for each turn of a player not ``out``, round by round
    up to the cap (``result.rounds`` follows); the caller stops it at the end."""
    for rnd in range(1, max_rounds + 1):
        result.rounds = rnd
        for by in names:
            if by not in out:
                yield rnd, by


def _check_interrogation(edition: Edition, ask, askable: Sequence[str], who: str) -> tuple[str, tuple]:
    try:
        whom, cards = ask
        cards = tuple(cards)
    except (TypeError, ValueError):
        raise PlayerError(f"{who} made an invalid interrogation: {ask!r}") from None
    if whom not in askable:
        raise PlayerError(f"{who} asked {whom!r}, who is not one of the players still in the game "
                          f"({', '.join(askable)})")
    if not cards or len(set(cards)) != len(cards) or any(c not in edition.card_ids for c in cards):
        raise PlayerError(f"{who} asked about {list(cards)!r}: the list must name distinct cards of the edition, "
                          f"at least one")
    return whom, edition.sort_cards(cards)


def _play_generalized(deal: Deal, players: dict, *, max_rounds: int,
                      on_event: Callable | None) -> GameResult:
    """The generalized game of the CS4444 reports (see :func:`play_game`)."""
    names, edition = deal.players, deal.edition
    result, tell = deal_in(deal, players, on_event, "generalized")
    out: set = set()
    for rnd, by in seats_in_turn(names, out, max_rounds, result):
        turn = result.new_turn(rnd)
        i = names.index(by)
        askable = tuple(p for p in names[i + 1:] + names[:i] if p not in out)
        guess = players[by].accuse(turn)
        if guess is not None:
            guess = check_triple(edition, guess, by, "accusation")
            correct = guess == deal.envelope
            tell(Event(turn, rnd, Accusation(by, guess, correct, None if correct else deal.hands[by])))
            if correct:
                result.winner, result.win_round = by, rnd
                break
            out.add(by)
            result.wrong_accusations.append((by, rnd))
            if len(out) == len(names):  # nobody is left
                break
            continue
        if not askable:  # the last one in will not guess, and nobody is left to ask
            break
        whom, cards = _check_interrogation(edition, players[by].interrogate(turn, rnd, askable), askable, by)
        matching = tuple(c for c in cards if c in deal.hands[whom])
        if not matching:
            tell(Event(turn, rnd, Suggestion(by, cards, (whom,), None, asks=whom)))
            continue
        card = matching[0] if len(matching) == 1 else players[whom].disprove(turn, by, cards, matching)
        if card not in matching:
            raise PlayerError(f"{whom} tried to show {card!r}, not one of its matching cards {list(matching)}")
        tell(Event(turn, rnd, Suggestion(by, cards, (), whom, card, card, asks=whom)))
    result.reports = {p: players[p].report() for p in names}
    return result
