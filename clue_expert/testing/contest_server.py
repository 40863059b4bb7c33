"""A stand-in for the Speed Clue contest server (a test double, shipped
apart from the product code): :class:`FakeContestServer` listens on a local
port, reads replies as the reference server does and, through
:class:`RemoteSeat`, plays whole games against one
:class:`~clue_expert.play.contest.ContestAgent` with the reference server's
disqualification checks (:class:`Disqualified`)."""
from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field

from ..core.observations import Accusation, Event, RevealedHand, Suggestion
from ..play.contest import CODE, card_of, codes, triple_of
from ..play.game import Player, play_game


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
    #: (verb, seconds) of every :meth:`ask`: from sending the message to reading its reply.
    reply_times: list = field(default_factory=list)

    def start(self) -> int:
        """Listen on a free local port; the port."""
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(1)
        self._listener.settimeout(self.timeout)
        self.port = self._listener.getsockname()[1]
        return self.port

    def accept(self, identifier: str) -> None:
        """Wait for the agent; :class:`Disqualified` unless its first message is ``IDENTIFIER alive``."""
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
        """Send one message; the reply, read as the reference server reads it (timed in :attr:`reply_times`)."""
        start = time.perf_counter()
        self.conn.sendall(message.encode("ascii"))
        reply = self._read()
        self.reply_times.append((message.split(" ", 1)[0], time.perf_counter() - start))
        self.transcript.append((message, reply))
        return reply

    def close(self) -> None:
        """Close the connection and the listener."""
        for s in (getattr(self, "conn", None), getattr(self, "_listener", None)):
            if s is not None:
                s.close()

    def play_game(self, deal, seat: int, opponents: dict, max_rounds: int = 60) -> dict:
        """Play one game: the agent sits at ``seat`` of ``deal`` (contest
        edition, players p0..pN-1); ``opponents`` maps the other seat names to
        :class:`~clue_expert.play.game.Player` objects.  The game is the driver's
        (:func:`~clue_expert.play.game.play_game`); the agent's seat is a
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
        cards = triple_of(reply[8:].split())
        if cards in self.made:
            raise Disqualified(f"repeated suggestion {reply!r}")
        self.made.add(cards)
        return cards

    def disprove(self, turn, by, cards, matching) -> str:
        reply = self.server.ask(f"disprove {self.names.index(by)} {codes(cards)}")
        if len(reply) != 7 or not reply.lower().startswith("show "):
            raise Disqualified(f"protocol violation answering disprove: {reply!r}")
        card = card_of(reply[5:])
        if card not in matching:
            raise Disqualified(f"invalid disprove {reply!r}")
        return card

    def observe(self, event: Event) -> None:
        obs = event.observation
        if isinstance(obs, RevealedHand):  # not a turn of Speed Clue: nothing to tell the agent
            return
        i = self.names.index(obs.by)
        if isinstance(obs, Accusation):
            message = f"accusation {i} {codes(obs.cards)} {'+' if obs.correct else '-'}"
        elif obs.shown_by is None:
            message = f"suggestion {i} {codes(obs.cards)} -"
        else:
            message = f"suggestion {i} {codes(obs.cards)} {self.names.index(obs.shown_by)}"
            if obs.card is not None:  # the agent suggested or showed it
                message += f" {CODE[obs.card]}"
                if i == self.seat:
                    self.seen.add(obs.card)
        if isinstance(obs, Suggestion):
            self.must_accuse = i == self.seat and obs.shown_by is None and not set(obs.cards) & self.seen
        expect(self.server.ask(message), "ok", message.split()[0])

    def accuse(self, turn):
        reply = self.server.ask("accuse")
        if reply == "-":
            if self.must_accuse:
                raise Disqualified("missed accusation: its own suggestion went undisproved")
            return None
        if len(reply) != 15 or not reply.lower().startswith("accuse "):
            raise Disqualified(f"protocol violation answering accuse: {reply!r}")
        accusation = triple_of(reply[7:].split())
        if set(accusation) & self.seen:
            raise Disqualified(f"suicidal accusation {reply!r}")
        return accusation


def expect(reply: str, wanted: str, what: str) -> None:
    """:class:`Disqualified` unless ``reply`` is ``wanted`` (any case)."""
    if reply.lower() != wanted:
        raise Disqualified(f"protocol violation answering {what}: {reply!r}")
