"""The Speed Clue contest's application protocol (sadakatsu/SpeedClueContest).

:class:`ContestAgent` turns server messages into calls on a
:class:`~clue_expert.players.RuleBasedPlayer` and its answers back into
replies; :meth:`ContestAgent.run` is the TCP transport (one message in, one
reply out, ASCII, no newline, one write per reply).  The agent guards against
every disqualification the server enforces: it never repeats a suggestion,
shows only a card it holds, never accuses with a card it holds or was shown,
always accuses when its own suggestion went undisproved with none of its known
cards, and answers every message (a malformed one is logged and answered as
safely as the protocol allows).

:class:`FakeContestServer` is a test double shipped in the package: a scripted
server on a local port that plays the reference server's part of the protocol,
with its checks, against one agent.
"""
from __future__ import annotations

import itertools
import socket
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ..core.cards import CLASSIC_CATEGORIES as CATEGORIES, dealt_hand_sizes, get_edition
from ..core.errors import ClueError
from ..core.observations import Event
from .game import Player, play_game
from .players import DEFAULT_ACCUSATION, DEFAULT_RESPONSE, DEFAULT_STRATEGY, RuleBasedPlayer
from ..core.observations import Accusation, Suggestion
from ..core.records import Record, dump_record

EDITION = get_edition("contest")
#: card id -> two-letter code, and back (lower-case).
CODE = {c.id: next(a for a in c.aliases if len(a) == 2).capitalize() for c in EDITION.cards}
FROM_CODE = {v.lower(): k for k, v in CODE.items()}


class ProtocolError(ClueError):
    """A message that breaks the contest protocol."""


def _card(code: str) -> str:
    card = FROM_CODE.get(code.lower())
    if card is None:
        raise ProtocolError(f"unknown card code {code!r}")
    return card


def _triple(codes) -> tuple:
    if len(codes) != 3:
        raise ProtocolError(f"expected three card codes, got {codes!r}")
    cards = tuple(_card(c) for c in codes)
    if [EDITION.category_of(c) for c in cards] != list(CATEGORIES):
        raise ProtocolError(f"{' '.join(codes)} is not a suspect, a weapon and a room")
    return cards


def codes(cards) -> str:
    """Cards as the protocol writes them: ``Gr Ca Ba``."""
    return " ".join(CODE[c] for c in cards)


class ContestAgent:
    """The protocol logic, independent of the transport: :meth:`handle` takes
    one server message and returns the reply (``None`` after ``done``)."""

    def __init__(self, identifier: str, strategy: str = DEFAULT_STRATEGY, response: str = DEFAULT_RESPONSE,
                 accusation: str = DEFAULT_ACCUSATION, *, log: TextIO | None = None,
                 records: str | Path | None = None, seed: int = 0):
        #: The identifier the server gave on the command line.
        self.identifier = identifier
        self.strategy, self.response, self.accusation = strategy, response, accusation
        self.log_file = log
        #: Folder where each game's record is written (None: not written).
        self.records = Path(records) if records else None
        self.seed = seed
        # built now so that a bad rule file is reported at start, not mid-game
        self.player: RuleBasedPlayer = RuleBasedPlayer("p0", strategy, response, accusation, seed=seed)
        self.games = 0
        self._reset_game_state()

    def _reset_game_state(self) -> None:
        self.players: tuple = ()
        self.me: str | None = None
        self.hand: tuple = ()
        self.hand_sizes: dict = {}
        self.turn = 0
        self.round = 1
        self._last_suggester = -1
        self.made: set = set()
        self.turns: list = []
        self.must_accuse: tuple | None = None
        self.in_game = False

    # ------------------------------------------------------------- logging
    def log(self, text: str) -> None:
        if self.log_file is not None:
            self.log_file.write(f"{time.strftime('%H:%M:%S')} {text}\n")
            self.log_file.flush()

    # ------------------------------------------------------------ messages
    def handle(self, message: str) -> str | None:
        """The reply to one server message."""
        words = message.strip("\x00").strip().split()
        verb = words[0].lower() if words else ""
        self.log(f"<- {message!r}")
        try:
            reply = self._dispatch(verb, words[1:])
        except Exception as exc:  # never crash: log it and answer safely
            self.log(f"!! error handling {message!r}: {type(exc).__name__}: {exc}")
            if not isinstance(exc, (ProtocolError, ClueError)):
                self.log("!! " + traceback.format_exc().replace("\n", "\n!! "))
            reply = self._safe_reply(verb, words[1:])
        self.log(f"-> {reply!r}")
        return reply

    def _dispatch(self, verb: str, args: list) -> str | None:
        if verb == "reset":
            return self._reset(args)
        if verb == "done":
            self._finish_game()
            return "dead"
        if not self.in_game and verb in ("suggest", "disprove", "suggestion", "accuse", "accusation"):
            raise ProtocolError(f"{verb!r} before any reset")
        if verb == "suggest":
            return self._suggest()
        if verb == "disprove":
            return self._disprove(args)
        if verb == "suggestion":
            return self._suggestion(args)
        if verb == "accuse":
            return self._accuse()
        if verb == "accusation":
            return self._accusation(args)
        raise ProtocolError(f"unknown message {verb!r}")

    def _safe_reply(self, verb: str, args: list) -> str | None:
        if verb == "done":
            return "dead"
        if verb == "suggest" and self.in_game:
            return "suggest " + codes(self._unused_triple())
        if verb == "disprove" and self.in_game:
            try:
                asked = {_card(c) for c in args[1:4]}
            except Exception:
                asked = set()
            mine = [c for c in self.hand if c in asked] or list(self.hand)
            return "show " + CODE[mine[0]]
        if verb == "accuse":
            if self.must_accuse is not None:
                return "accuse " + codes(self.must_accuse)
            return "-"
        return "ok"

    def _player_name(self, index: str) -> str:
        i = int(index)
        if not 0 <= i < len(self.players):
            raise ProtocolError(f"no player {index!r} in a {len(self.players)}-player game")
        return self.players[i]

    def _reset(self, args: list) -> str:
        self._finish_game()
        if len(args) < 2:
            raise ProtocolError("reset needs the number of players and our seat")
        n, seat = int(args[0]), int(args[1])
        if not 3 <= n <= 6 or not 0 <= seat < n:
            raise ProtocolError(f"reset with {n} players and seat {seat}")
        hand = tuple(_card(c) for c in args[2:])
        if len(set(hand)) != len(hand):
            raise ProtocolError(f"hand repeats a card: {args[2:]}")
        self._reset_game_state()
        self.players = tuple(f"p{i}" for i in range(n))
        self.me = self.players[seat]
        self.hand = hand
        sizes = dict(zip(self.players, dealt_hand_sizes(n, len(EDITION.cards))))
        if sizes[self.me] != len(hand):
            # not the reference server's deal: keep ours, share the rest as evenly as the rule would
            self.log(f"!! our hand has {len(hand)} cards; the dealing rule gives {sizes[self.me]}")
            others = [p for p in self.players if p != self.me]
            left = len(EDITION.cards) - 3 - len(hand)
            if not 0 <= left <= 18:
                raise ProtocolError(f"a hand of {len(hand)} cards is impossible")
            sizes = dict(zip(others, dealt_hand_sizes(len(others), left + 3)))
            sizes[self.me] = len(hand)
        self.hand_sizes = sizes
        self.player.name = self.me
        self.player.rng.seed(self.seed * 1000 + self.games)
        self.player.start(EDITION, self.players, sizes, hand)
        self.in_game = True
        self.games += 1
        return "ok"

    def _known(self) -> set:
        k = self.player.knowledge
        return set(self.hand) | set(k._seen)

    def _unused_triple(self) -> tuple:
        for triple in itertools.product(*(EDITION.category_cards(c) for c in CATEGORIES)):
            if triple not in self.made:
                return triple
        raise ProtocolError("every suggestion has been made")  # 324 suggestions: cannot happen in a game

    def _suggest(self) -> str:
        choice = None
        for triple in self.player.ranked_suggestions(self.turn + 1, self.round):
            if triple not in self.made:
                choice = triple
                break
            self.log(f"   strategy proposed {codes(triple)} again; trying its next option")
        if choice is None:
            choice = self._unused_triple()
            self.log("   every option of the strategy was used; first unused suggestion instead")
        self.made.add(choice)
        return "suggest " + codes(choice)

    def _disprove(self, args: list) -> str:
        if len(args) != 4:
            raise ProtocolError("disprove needs a player and three cards")
        by = self._player_name(args[0])
        cards = _triple(args[1:])
        matching = tuple(c for c in cards if c in self.hand)
        if not matching:
            raise ProtocolError(f"asked to disprove {codes(cards)} holding none of them")
        card = self.player.disprove(self.turn + 1, by, cards, matching)
        if card not in matching:  # never show what we do not hold
            card = matching[0]
        return "show " + CODE[card]

    def _next_turn(self, suggester_index: int) -> int:
        if suggester_index <= self._last_suggester:
            self.round += 1
        self._last_suggester = suggester_index
        self.turn += 1
        return self.turn

    def _suggestion(self, args: list) -> str:
        if len(args) not in (5, 6):
            raise ProtocolError("suggestion needs a player, three cards, the disprover and maybe a card")
        by = self._player_name(args[0])
        cards = _triple(args[1:4])
        i = self.players.index(by)
        order = self.players[i + 1:] + self.players[:i]
        if args[4] == "-":
            shower, passed, card = None, tuple(order), None
        else:
            shower = self._player_name(args[4])
            if shower == by:
                raise ProtocolError("a player cannot disprove his own suggestion")
            passed = tuple(order[:order.index(shower)])
            card = _card(args[5]) if len(args) == 6 else None
            if card is not None and card not in cards:
                raise ProtocolError(f"shown card {args[5]} is not in the suggestion")
        turn = self._next_turn(i)
        if by == self.me and shower is None and not (set(cards) & self._known()):
            self.must_accuse = cards
        self.turns.append(Suggestion(by, cards, passed, shower, card if self.me in (by, shower) else None))
        try:
            self.player.observe(Event(turn, self.round, Suggestion(by, cards, passed, shower, card)))
        except ClueError as exc:
            self.log(f"!! observation refused, knowledge unchanged: {exc}")
        return "ok"

    def _accuse(self) -> str:
        if self.must_accuse is not None:
            self.log("   our suggestion went undisproved with none of our cards: it is the solution")
            return "accuse " + codes(self.must_accuse)
        accusation = self.player.accuse(self.turn)
        if accusation is None:
            return "-"
        accusation = tuple(accusation)
        if set(accusation) & self._known():
            self.log(f"!! the accusation rules proposed {codes(accusation)}, which names a card we hold or saw; "
                     f"not accusing")
            return "-"
        return "accuse " + codes(accusation)

    def _accusation(self, args: list) -> str:
        if len(args) != 5 or args[4] not in ("+", "-"):
            raise ProtocolError("accusation needs a player, three cards and + or -")
        by = self._player_name(args[0])
        cards = _triple(args[1:4])
        correct = args[4] == "+"
        self.turn += 1
        self.turns.append(Accusation(by, cards, correct))
        try:
            self.player.observe(Event(self.turn, self.round, Accusation(by, cards, correct)))
        except ClueError as exc:
            self.log(f"!! observation refused, knowledge unchanged: {exc}")
        if by == self.me and not correct:
            self.must_accuse = None
        return "ok"

    def record(self) -> Record:
        """The current game as a record from our seat."""
        return Record(edition=EDITION, players=self.players, me=self.me, hand=self.hand,
                      hand_sizes=dict(self.hand_sizes), turns=list(self.turns), source="<contest>")

    def _finish_game(self) -> None:
        if not self.in_game:
            return
        if self.records is not None:
            try:
                self.records.mkdir(parents=True, exist_ok=True)
                path = self.records / f"{self.identifier}-game-{self.games:04d}.yaml"
                dump_record(self.record(), path)
                self.log(f"   game record written to {path}")
            except OSError as exc:
                self.log(f"!! cannot write the game record: {exc}")
        self.in_game = False

    # ----------------------------------------------------------- transport
    def run(self, port: int, host: str = "127.0.0.1", connect_timeout: float = 10.0) -> int:
        """Connect, announce ourselves, then answer messages until ``done``
        or until the server closes the socket."""
        deadline = time.monotonic() + connect_timeout
        sock = None
        while sock is None:
            try:
                sock = socket.create_connection((host, port), timeout=max(0.1, deadline - time.monotonic()))
            except OSError as exc:
                if time.monotonic() >= deadline:
                    self.log(f"!! cannot connect to {host}:{port}: {exc}")
                    return 1
                time.sleep(0.05)
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.sendall(f"{self.identifier} alive".encode("ascii"))
            while True:
                try:
                    data = sock.recv(4096)
                except OSError as exc:
                    self.log(f"   connection error ({exc}); exiting")
                    break
                if not data:
                    self.log("   server closed the connection; exiting")
                    self._finish_game()
                    break
                reply = self.handle(data.decode("ascii", errors="replace"))
                if reply is not None:
                    sock.sendall(reply.encode("ascii"))
                if reply == "dead":
                    break
        finally:
            sock.close()
        return 0


# ------------------------------------------------------------------ test double
class Disqualified(Exception):
    """The fake server caught the agent breaking a contest rule."""


@dataclass
class FakeContestServer:
    """A scripted stand-in for the contest server (a test double).

    ``start()`` listens on a free local port; ``accept(identifier)`` waits for
    the agent and checks its ``alive`` message; ``ask(message)`` sends one
    message and returns the reply read as the reference server does (one
    chunk of at most 512 bytes, trailing NULs stripped).  :meth:`play_game`
    runs a whole game with in-process opponents and the reference server's
    disqualification checks."""

    timeout: float = 10.0
    port: int = 0
    transcript: list = field(default_factory=list)

    def start(self) -> int:
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(1)
        self._listener.settimeout(self.timeout)
        self.port = self._listener.getsockname()[1]
        return self.port

    def accept(self, identifier: str) -> None:
        self.conn, _ = self._listener.accept()
        self.conn.settimeout(self.timeout)
        hello = self._read()
        if hello.lower() != f"{identifier} alive".lower():
            raise Disqualified(f"expected '{identifier} alive', got {hello!r}")

    def _read(self) -> str:
        try:
            data = self.conn.recv(512)
        except socket.timeout:
            raise Disqualified("no answer within the time limit") from None
        return data.decode("ascii").rstrip("\x00")

    def ask(self, message: str) -> str:
        self.conn.sendall(message.encode("ascii"))
        reply = self._read()
        self.transcript.append((message, reply))
        return reply

    def close(self) -> None:
        for s in (getattr(self, "conn", None), getattr(self, "_listener", None)):
            if s is not None:
                s.close()

    def play_game(self, deal, seat: int, opponents: dict, max_rounds: int = 60) -> dict:
        """Play one game: the agent sits at ``seat`` of ``deal`` (contest
        edition, players p0..pN-1); ``opponents`` maps the other seat names to
        :class:`~clue_expert.game.Player` objects.  The game is the driver's
        (:func:`~clue_expert.game.play_game`); the agent's seat is a
        :class:`RemoteSeat`, which raises :class:`Disqualified` for any rule
        the reference server enforces."""
        agent = deal.players[seat]
        result = play_game(deal, {**opponents, agent: RemoteSeat(self, seat)}, max_rounds=max_rounds)
        return {"winner": result.winner, "round": result.win_round or max_rounds, "agent": agent}


class RemoteSeat(Player):
    """The agent under test as a seat of the game driver: each call is one
    protocol message to it, and each answer is checked as the reference
    server checks it (format, repeated suggestions, shown card, missed and
    suicidal accusations)."""

    def __init__(self, server: FakeContestServer, seat: int):
        self.server = server
        self.seat = seat

    def start(self, edition, players, hand_sizes, hand) -> None:
        self.names = list(players)
        #: Cards the agent holds or has been shown.
        self.seen = set(hand)
        self.made: set = set()
        self.must_accuse = False
        expect(self.server.ask(f"reset {len(players)} {self.seat} {codes(hand)}"), "ok", "reset")

    def suggest(self, turn, round) -> tuple:
        reply = self.server.ask("suggest")
        if len(reply) != 16 or not reply.lower().startswith("suggest "):
            raise Disqualified(f"protocol violation answering suggest: {reply!r}")
        cards = _triple(reply[8:].split())
        if cards in self.made:
            raise Disqualified(f"repeated suggestion {reply!r}")
        self.made.add(cards)
        return cards

    def disprove(self, turn, by, cards, matching) -> str:
        reply = self.server.ask(f"disprove {self.names.index(by)} {codes(cards)}")
        if len(reply) != 7 or not reply.lower().startswith("show "):
            raise Disqualified(f"protocol violation answering disprove: {reply!r}")
        card = _card(reply[5:])
        if card not in matching:
            raise Disqualified(f"invalid disprove {reply!r}")
        return card

    def observe(self, event: Event) -> None:
        event = event.observation
        i = self.names.index(event.by)
        if isinstance(event, Accusation):
            message = f"accusation {i} {codes(event.cards)} {'+' if event.correct else '-'}"
        elif event.shown_by is None:
            message = f"suggestion {i} {codes(event.cards)} -"
        else:
            message = f"suggestion {i} {codes(event.cards)} {self.names.index(event.shown_by)}"
            if event.card is not None:  # the agent suggested or showed it
                message += f" {CODE[event.card]}"
                if i == self.seat:
                    self.seen.add(event.card)
        if isinstance(event, Suggestion):
            self.must_accuse = i == self.seat and event.shown_by is None and not set(event.cards) & self.seen
        expect(self.server.ask(message), "ok", message.split()[0])

    def accuse(self, turn):
        reply = self.server.ask("accuse")
        if reply == "-":
            if self.must_accuse:
                raise Disqualified("missed accusation: its own suggestion went undisproved")
            return None
        if len(reply) != 15 or not reply.lower().startswith("accuse "):
            raise Disqualified(f"protocol violation answering accuse: {reply!r}")
        accusation = _triple(reply[7:].split())
        if set(accusation) & self.seen:
            raise Disqualified(f"suicidal accusation {reply!r}")
        return accusation


def expect(reply: str, wanted: str, what: str) -> None:
    if reply.lower() != wanted:
        raise Disqualified(f"protocol violation answering {what}: {reply!r}")
