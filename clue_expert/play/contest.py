"""The Speed Clue contest's application protocol (sadakatsu/SpeedClueContest).

:class:`ContestAgent` turns server messages into calls on a
:class:`~clue_expert.players.RuleBasedPlayer` and its answers back into
replies; :meth:`ContestAgent.run` is the TCP transport: :class:`MessageFramer`
cuts the byte stream into messages by the protocol's grammar (the server
sends them with no terminator), and each message gets one reply (ASCII, no
newline, one write).  The agent guards against
every disqualification the server enforces: it never repeats a suggestion,
shows only a card it holds, never accuses with a card it holds or was shown,
always accuses when its own suggestion went undisproved with none of its known
cards, and answers every message (a malformed one is logged and answered as
safely as the protocol allows).

:class:`~clue_expert.testing.contest_server.FakeContestServer` is its test
double (shipped in ``clue_expert.testing``, apart from the product code).
"""
from __future__ import annotations

import itertools
import re
import socket
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence, TextIO

from ..core.cards import CLASSIC_CATEGORIES as CATEGORIES, dealt_hand_sizes, get_edition
from ..core.errors import ClueError, RuleFileError
from ..core.observations import Accusation, Event, Suggestion
from ..core.records import MAX_TURNS, Record, dump_record, parse_record
from ..engine import warm_kernels
from .players import DEFAULT_ACCUSATION, DEFAULT_RESPONSE, RuleBasedPlayer, load_decisions, parse_seat
from .seats import DEFAULT_GAME, load_seats, seat_choice, seat_spec, seats_path, with_parts

EDITION = get_edition("contest")
#: card id -> two-letter code, and back (lower-case).
CODE = {c.id: next(a for a in c.aliases if len(a) == 2).capitalize() for c in EDITION.cards}
FROM_CODE = {v.lower(): k for k, v in CODE.items()}


class ProtocolError(ClueError):
    """A message that breaks the contest protocol."""


def card_of(code: str) -> str:
    """The card id of a protocol code (``Gr``, any case); a :class:`ProtocolError` for an unknown code."""
    card = FROM_CODE.get(code.lower())
    if card is None:
        raise ProtocolError(f"unknown card code {code!r}")
    return card


def triple_of(codes: Sequence[str]) -> tuple[str, ...]:
    """The cards of three protocol codes, a suspect, a weapon and a room in that order
    (a :class:`ProtocolError` otherwise)."""
    if len(codes) != 3:
        raise ProtocolError(f"expected three card codes, got {codes!r}")
    cards = tuple(card_of(c) for c in codes)
    if [EDITION.category_of(c) for c in cards] != list(CATEGORIES):
        raise ProtocolError(f"{' '.join(codes)} is not a suspect, a weapon and a room")
    return cards


def codes(cards) -> str:
    """Cards as the protocol writes them: ``Gr Ca Ba``."""
    return " ".join(CODE[c] for c in cards)


# ------------------------------------------------------------------ framing
#: The server's verbs (case-insensitive).  ``suggest`` is the only one that is
#: a prefix of another (``suggestion``).
VERBS = ("reset", "suggest", "suggestion", "disprove", "accuse", "accusation", "done")
#: Longest message accepted (the protocol's longest is about 60 bytes).
MAX_MESSAGE = 4096
#: Seconds of silence after which a message that is complete but could still
#: grow (``suggest`` that might be the start of ``suggestion``, a reset's
#: hand, bytes that are no message) is taken as it stands.
QUIET = 0.05
#: Seconds of silence after which an incomplete message is taken as it stands
#: and answered as a malformed one (inside the server's 10-second limit).
STALL = 2.0
#: Seconds without any message after which the agent gives up.
READ_TIMEOUT = 120.0
#: The reference server's limit on one reply, in seconds (docs/contest.md).
SERVER_REPLY_LIMIT = 10.0
#: Seconds a suggestion may take; past it, the rest of the game uses the cheap suggestion.
DECISION_BUDGET = 5.0

#: Exit codes of :meth:`ContestAgent.run` (docs/contest.md).
EXIT_OK = 0            # answered ``done``, or the server closed or reset the connection
EXIT_NO_SERVER = 5     # could not connect within the connect timeout (the cli's connection-error code)
EXIT_READ_TIMEOUT = 4  # no message from the server within the read timeout

_SKIP = b" \t\r\n\x00"  # skipped between messages
_SEP = b" \t"           # between a message's words
_VERB_BYTES = tuple(v.encode() for v in VERBS)
_LONGEST_VERB = max(len(v) for v in VERBS)
_LETTER = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGIT = frozenset(b"0123456789")
#: Where bytes that are no well-formed message end: a newline, or a space before a verb.
_END = re.compile(rb"[\r\n\x00]|[ \t]?(?=" + b"|".join(_VERB_BYTES) + rb")", re.IGNORECASE)
COMPLETE, EXTENDABLE, INCOMPLETE = "complete", "extendable", "incomplete"


class _Need(Exception):
    """The bytes so far end inside the message."""


class _Mismatch(Exception):
    """The message breaks the grammar at byte ``at``."""

    def __init__(self, at: int):
        super().__init__(at)
        self.at = at


@dataclass(frozen=True)
class Frame:
    """One unit cut from the server's stream: a message (``text``), or, when
    ``oversized``, a message of at least ``size`` bytes that was thrown away
    (``text`` is its beginning; ``verb`` its verb if it had one)."""

    text: str
    oversized: bool = False
    size: int = 0
    verb: str = ""


def _verb_at(buf: bytes, i: int) -> bytes | None:
    """The (longest) verb that starts at ``buf[i]``, when all of it is there."""
    low = buf[i:i + _LONGEST_VERB].lower()
    found = [v for v in _VERB_BYTES if low.startswith(v)]
    return max(found, key=len) if found else None



class _Scanner:
    """Reads a message's arguments off a buffer: a run of separators, a
    word of allowed bytes, a two-letter card code.  Raises ``_Need`` when
    the buffer ends first and ``_Mismatch`` at a byte that does not fit."""

    def __init__(self, buf: bytes) -> None:
        self.buf, self.n = buf, len(buf)

    def sep(self, j: int) -> int:
        buf, n = self.buf, self.n
        if j >= n:
            raise _Need
        if buf[j] not in _SEP:
            raise _Mismatch(j)
        while j < n and buf[j] in _SEP:
            j += 1
        if j >= n:
            raise _Need
        return j

    def word(self, j: int, allowed, length: int = 1) -> int:
        for k in range(j, j + length):
            if k >= self.n:
                raise _Need
            if self.buf[k] not in allowed:
                raise _Mismatch(k)
        return j + length

    def card(self, j: int) -> int:
        return self.word(self.sep(j), _LETTER, 2)


class MessageFramer:
    """Cuts the server's byte stream into messages by the protocol's grammar,
    whatever the TCP segments.

    The reference server writes each message with no terminator (Java
    ``PrintWriter.format`` on the socket) and waits for the reply, so where a
    message ends follows from its verb and arguments: card codes are two
    letters, player numbers one digit, an accusation ends with ``+`` or
    ``-``, a reset carries the cards the dealing rule gives the seat, a
    suggestion carries the shown card exactly when our seat made or disproved
    it.  A message may be followed at once by the next.  Newlines, carriage
    returns and NULs end a message too, and are skipped between messages.

    Bytes that do not start with a verb run to the next verb after a space,
    a newline or a pause, and make one frame (answered once, as an unknown
    message); so do the rest of a message that breaks the grammar.  Anything
    longer than ``max_message`` bytes is thrown away up to the same points and
    reported once as an oversized frame.

    :meth:`feed` takes bytes; :meth:`next` returns ``(frame, None)`` or
    ``(None, wait)``: how many more seconds of silence will let a pending
    message be taken as it stands (None: nothing is pending)."""

    def __init__(self, seat: Callable[[], "int | None"] = lambda: None, *, max_message: int = MAX_MESSAGE,
                 quiet: float = QUIET, stall: float = STALL):
        #: Our seat number in the current game (None: not in a game).
        self.seat = seat
        self.max_message, self.quiet, self.stall = max_message, quiet, stall
        self.buf = bytearray()
        self._dropping: dict | None = None  # an oversized message being thrown away

    def feed(self, data: bytes) -> None:
        self.buf += data

    def next(self, idle: float = 0.0):
        """The next frame, or None and the wait; ``idle`` is the number of
        seconds since bytes last arrived."""
        if self._dropping is not None:
            if not self._drop(self._dropping):
                if idle < self.quiet:
                    return None, self.quiet - idle
                self._dropping["size"] += len(self.buf)  # the pause ends it: all of it was the message
                self.buf.clear()
            frame, self._dropping = Frame(**self._dropping), None
            return frame, None
        skip = 0
        while skip < len(self.buf) and self.buf[skip] in _SKIP:
            skip += 1
        del self.buf[:skip]
        if not self.buf:
            return None, None
        window = bytes(self.buf[:self.max_message + 1])
        status, end = self._parse(window)
        big = len(self.buf) > self.max_message
        if not big and status == INCOMPLETE and idle >= self.stall:
            status, end = COMPLETE, len(window)
        elif not big and status == EXTENDABLE and idle >= self.quiet:
            status = COMPLETE
        if status == COMPLETE and end <= self.max_message:
            text = window[:end].decode("ascii", errors="replace")
            del self.buf[:end]
            return Frame(text), None
        if big:
            verb = _verb_at(window, 0)
            self._dropping = {"text": window[:60].decode("ascii", errors="replace"), "oversized": True,
                              "size": 1, "verb": verb.decode() if verb else ""}
            del self.buf[:1]  # its first byte: the verb it starts with does not end it
            return self.next(idle)
        return None, (self.quiet if status == EXTENDABLE else self.stall) - idle

    def _drop(self, dropping: dict) -> bool:
        """Throw away the oversized message's bytes (counted in ``dropping``,
        the message being dropped); True once its end (a newline, or a space
        before a verb) has gone by."""
        buf = bytes(self.buf)
        end = _END.search(buf)
        if end is not None:  # through the newline or the space; a verb stuck to the junk is kept
            del self.buf[:end.end()]
            dropping["size"] += end.end()
            return True
        cut = max(0, len(buf) - _LONGEST_VERB - 1)  # a space and a verb may be arriving
        del self.buf[:cut]
        dropping["size"] += cut
        return False

    # ------------------------------------------------------------ grammar
    def _parse(self, buf: bytes):
        """(status, end) of the message at the start of ``buf``."""
        n, low = len(buf), buf.lower()
        full = [v for v in _VERB_BYTES if low.startswith(v)]
        partial = [v for v in _VERB_BYTES if n < len(v) and v.startswith(low)]
        if partial:  # a verb still arriving; "suggest" may yet be "suggestion"
            return (EXTENDABLE, n) if full and n == len(full[0]) else (INCOMPLETE, n)
        if not full:
            return self._rest(buf, 0)
        verb = max(full, key=len)
        try:
            return self._arguments(verb.decode(), buf, len(verb))
        except _Need:
            return INCOMPLETE, n
        except _Mismatch as exc:
            return self._rest(buf, len(verb), exc.at)

    @staticmethod
    def _rest(buf: bytes, start: int, at: int | None = None):
        """Where bytes that are no (well-formed) message end: before a verb
        that starts where the grammar broke, at a newline, or before a verb
        after a space; otherwise at a pause."""
        if at is not None and _verb_at(buf, at) is not None:
            return COMPLETE, at
        end = _END.search(buf, start)
        return (COMPLETE, end.start()) if end is not None else (EXTENDABLE, len(buf))

    def _arguments(self, verb: str, buf: bytes, j: int):
        scan = _Scanner(buf)
        if verb in ("suggest", "accuse", "done"):
            return COMPLETE, j
        if verb in ("disprove", "accusation"):
            j = scan.word(scan.sep(j), _DIGIT)
            for _ in range(3):
                j = scan.card(j)
            if verb == "accusation":
                j = scan.word(scan.sep(j), frozenset(b"+-"))
            return COMPLETE, j
        if verb == "suggestion":
            return self._suggestion_arguments(scan, buf, j)
        return self._reset_arguments(scan, buf, j)

    def _suggestion_arguments(self, scan: "_Scanner", buf: bytes, j: int):
        """suggestion BY CARD CARD CARD SHOWER|- [CARD]: the card only when the seat may see it."""
        by = buf[scan.sep(j)] - ord("0")
        j = scan.word(scan.sep(j), _DIGIT)
        for _ in range(3):
            j = scan.card(j)
        j = scan.word(scan.sep(j), _DIGIT | frozenset(b"-"))
        if buf[j - 1] == ord("-"):
            return COMPLETE, j
        seat = self.seat()
        if seat is not None and seat in (by, buf[j - 1] - ord("0")):
            return COMPLETE, scan.card(j)  # shown to us or by us: the card follows
        status, end, _ = self._optional_card(buf, j, uncertain=seat is None)
        return status, end

    def _reset_arguments(self, scan: "_Scanner", buf: bytes, j: int):
        """reset N SEAT cards...: as many as the dealing rule gives the seat, and any more that follow."""
        j = scan.word(scan.sep(j), _DIGIT)
        players = buf[j - 1] - ord("0")
        j = scan.word(scan.sep(j), _DIGIT)
        seat = buf[j - 1] - ord("0")
        dealt = len(EDITION.cards) - 3
        rule = dealt // players + (seat < dealt % players) if 3 <= players <= 6 and seat < players else 0
        count = 0
        while count < rule:
            j, count = scan.card(j), count + 1
        while True:  # every card code that follows is this message's (too many: one oversized frame)
            status, end, took = self._optional_card(buf, j, uncertain=True)
            if not took:
                return status, end
            j, count = end, count + 1

    @staticmethod
    def _optional_card(buf: bytes, j: int, uncertain: bool):
        """(status, end, took): a card code that may follow at ``j``."""
        n = len(buf)
        if j == n:
            return (EXTENDABLE if uncertain else COMPLETE), j, False
        if buf[j] not in _SEP:
            return COMPLETE, j, False  # the next message follows at once
        k = j
        while k < n and buf[k] in _SEP:
            k += 1
        if k == n or (buf[k] in _LETTER and k + 1 == n):
            return EXTENDABLE, j, False
        if buf[k] not in _LETTER or buf[k + 1] not in _LETTER:
            return COMPLETE, j, False
        if k + 2 == n:
            return EXTENDABLE, k + 2, True
        if buf[k + 2] in _LETTER:  # a word, not a card code
            return COMPLETE, j, False
        return COMPLETE, k + 2, True


# ------------------------------------------------------------------ the agent
class ContestAgent:
    """The protocol logic, independent of the transport: :meth:`handle` takes
    one server message and returns its one reply (``dead`` to ``done``);
    :meth:`run` and :meth:`serve` are the TCP transport."""

    def __init__(self, identifier: str, strategy: str | None = None, response: str | None = None,
                 accusation: str | None = None, *, models: Sequence[str] = (),
                 decision_budget: float = DECISION_BUDGET, seats: str | Path | None = None,
                 log: TextIO | None = None,
                 records: str | Path | None = None, seed: int = 0, read_timeout: float = READ_TIMEOUT,
                 quiet: float = QUIET, stall: float = STALL, max_message: int = MAX_MESSAGE,
                 engine: str | None = None):
        #: The identifier the server gave on the command line.
        self.identifier = identifier
        #: The rule engine the command chose (``--engine``) when the seat spec names none, or None.
        self.engine = engine
        #: The seat spec given (``--strategy``; None: the per-size default of :mod:`.seats`).
        self.strategy = strategy
        #: ``--response`` / ``--accusation`` as given (None: not given).
        self.response, self.accusation = response, accusation
        #: Opponent models added to whatever seat is played (``--model``).
        self.models = tuple(models)
        #: Seconds a suggestion may take before the rest of the game uses the cheap suggestion.
        self.decision_budget = float(decision_budget)
        if not self.decision_budget > 0:
            raise ClueError("the decision budget must be a positive number of seconds")
        #: The seats file of the per-size defaults (None: the shipped speed-clue.yaml).
        self.seats = seats
        self.log_file = log
        #: Folder where each game's record is written (None: not written).
        self.records = Path(records) if records else None
        self.seed = seed
        #: Seconds without a message after which :meth:`run` gives up.
        self.read_timeout = read_timeout
        self.quiet, self.stall, self.max_message = quiet, stall, max_message
        #: The seat spec being played, why, and the table size it was chosen for.
        self.seat_spec: str | None = None
        self.seat_reason = ""
        self._seat_size: int | None = None
        self._default_spec = ""
        #: Seat spec -> suggestion times (seconds) measured this run (what the budget is checked against).
        self.suggest_times: dict = {}
        # built now so that a bad rule file or seats file is reported at start, not mid-game
        if strategy is not None:
            self.player: RuleBasedPlayer = self._build_player(strategy, "given with --strategy", explicit=True)
        else:
            table = load_seats(self.seats if self.seats is not None else seats_path(DEFAULT_GAME))
            for choice in table.values():
                self._seat_parts(choice.seat, explicit=False)
            self._default_spec = seat_choice(3, path=self.seats).seat
            self.player = self._build_player(self._default_spec, "until the table size is known",
                                             explicit=False, announce=False)
        self.games = 0
        self._reset_game_state()
        # the exact beliefs' compiled steps loaded now, not in the first timed reply (about a second)
        warm_kernels()

    def _reset_game_state(self) -> None:
        self.players: tuple = ()
        self.me: str | None = None
        self.seat: int | None = None
        self.hand: tuple = ()
        self.hand_sizes: dict = {}
        #: Turns in the record (and in the knowledge) so far.
        self.turn = 0
        self.round = 1
        self._last_suggester = -1
        self.made: set = set()
        #: Cards we hold or were shown, as the server counts them.
        self.seen: set = set()
        self.turns: list = []
        self.must_accuse: tuple | None = None
        self.in_game = False
        #: False once the rule-based player failed to start this game: fallbacks only.
        self.player_ok = True
        #: True once a suggestion ran past the decision budget: the cheap suggestion for the rest of the game.
        self.over_budget = False

    # ---------------------------------------------------------------- seat
    def _seat_parts(self, spec: str, explicit: bool) -> dict:
        """The seat's rule files: ``--response``/``--accusation`` fill what an
        explicit spec leaves out, and replace the default seat's; ``--model``
        adds to either."""
        if explicit:
            d = parse_seat(spec, self.response or DEFAULT_RESPONSE, self.accusation or DEFAULT_ACCUSATION)
            for m in self.models:
                load_decisions("model", m)
                if m not in d["models"]:
                    d["models"].append(m)
            return d
        return with_parts(spec, self.response, self.accusation, tuple(self.models))

    def _build_player(self, spec: str, reason: str, explicit: bool, announce: bool = True) -> RuleBasedPlayer:
        d = self._seat_parts(spec, explicit)
        player = RuleBasedPlayer(getattr(self, "me", None) or "p0", d["strategy"], d["response"], d["accusation"],
                                 models=d["models"], knowledge=d["knowledge"], seed=self.seed,
                                 rules=d.get("rules", ()), engine=d.get("engine"), command_engine=self.engine)
        player.keep_shadows = True  # a contest game can run to thousands of messages (issue 39)
        full = seat_spec(d)
        self.seat_spec, self.seat_reason = full, reason
        if announce:
            self.log(f"   seat {full} ({reason})")
        return player

    def _choose_seat(self, n: int) -> None:
        """At a reset: the per-size default seat when no ``--strategy`` was
        given, the player rebuilt when the size's seat differs."""
        if self.strategy is not None:
            if self.games == 0:
                self.log(f"   seat {self.seat_spec} ({self.seat_reason})")
            return
        if n == self._seat_size:
            return
        choice = seat_choice(n, path=self.seats)
        reason = (f"default for {n} players from {Path(choice.path).name}"
                  + (f" (nearest listed size {choice.players})" if choice.players != n else "")
                  + f": {choice.reason}; source: {choice.source}")
        if self._seat_parts(choice.seat, False) != self._seat_parts(self._default_spec, False):
            self.player = self._build_player(choice.seat, reason, explicit=False)
        else:  # the same rule files: the player (and its knowledge) is kept
            self.seat_reason = reason
            self.log(f"   seat {self.seat_spec} ({reason})")
        self._default_spec, self._seat_size = choice.seat, n

    # ------------------------------------------------------------- logging
    def log(self, text: str) -> None:
        if self.log_file is not None:
            try:
                self.log_file.write(f"{time.strftime('%H:%M:%S')} {text}\n")
                self.log_file.flush()
            except (OSError, ValueError):  # a full disk or a closed log never stops the game
                pass

    # ------------------------------------------------------------ messages
    def handle(self, message: str) -> str:
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

    def refuse(self, frame: Frame) -> str:
        """The reply to an oversized message: logged, answered once, safely."""
        self.log(f"!! refused a message of {frame.size} bytes or more (the limit is {self.max_message}): "
                 f"{frame.text!r}...")
        reply = self._safe_reply(frame.verb, [])
        self.log(f"-> {reply!r}")
        return reply

    def _dispatch(self, verb: str, args: list) -> str:
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

    def _safe_reply(self, verb: str, args: list) -> str:
        """A legal answer that needs neither the rules nor a valid message;
        should even that fail, the fixed reply of :meth:`_fixed_reply`."""
        try:
            return self._safe_reply_of(verb, args)
        except Exception as exc:
            self.log(f"!! the safe reply failed ({type(exc).__name__}: {exc}); the fixed reply instead")
            return self._fixed_reply(verb)

    def _fixed_reply(self, verb: str) -> str:
        """A reply of the right kind for every message, built from nothing
        that can fail: the first card of each category, the first card of our hand."""
        if verb == "done":
            return "dead"
        if verb == "suggest":
            return "suggest " + codes(tuple(EDITION.category_cards(c)[0] for c in CATEGORIES))
        if verb == "disprove" and self.hand:
            return "show " + CODE[self.hand[0]]
        if verb == "accuse":
            return "-"
        return "ok"

    def _safe_reply_of(self, verb: str, args: list) -> str:
        if verb == "done":
            self._finish_game()
            return "dead"
        if verb == "suggest" and self.in_game:
            triple = self._unused_triple()
            self.made.add(triple)
            return "suggest " + codes(triple)
        if verb == "disprove" and self.in_game and self.hand:
            try:
                asked = {card_of(c) for c in args[1:4]}
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
        hand = tuple(card_of(c) for c in args[2:])
        if len(set(hand)) != len(hand):
            raise ProtocolError(f"hand repeats a card: {args[2:]}")
        players = tuple(f"p{i}" for i in range(n))
        me = players[seat]
        sizes = dict(zip(players, dealt_hand_sizes(n, len(EDITION.cards))))
        if sizes[me] != len(hand):
            # not the reference server's deal: keep ours, share the rest as evenly as the rule would
            self.log(f"!! our hand has {len(hand)} cards; the dealing rule gives {sizes[me]}")
            others = [p for p in players if p != me]
            left = len(EDITION.cards) - 3 - len(hand)
            if not 0 <= left <= 18:
                raise ProtocolError(f"a hand of {len(hand)} cards is impossible")
            sizes = dict(zip(others, dealt_hand_sizes(len(others), left + 3)))
            sizes[me] = len(hand)
        parse_record(Record(edition=EDITION, players=players, me=me, hand=hand, hand_sizes=sizes).to_dict(),
                     source="<contest>")  # the game's record must be one deduce reads
        self._reset_game_state()
        self.players, self.me, self.seat, self.hand, self.hand_sizes = players, me, seat, hand, sizes
        self.seen = set(hand)
        self.in_game = True
        try:
            self._choose_seat(n)
        except Exception as exc:  # keep the seat played so far
            self.log(f"!! cannot build the seat for {n} players ({type(exc).__name__}: {exc}); "
                     f"keeping {self.seat_spec}")
        self.games += 1
        self.player.name = self.me
        self.player.rng.seed(self.seed * 1000 + self.games - 1)
        try:
            self.player.start(EDITION, self.players, sizes, hand)
        except Exception as exc:  # e.g. a rule's run-time limit: play on with the safe answers
            self.player_ok = False
            self.log(f"!! the rule-based player failed to start ({type(exc).__name__}: {exc}); "
                     f"this game is played with the safe answers only")
        return "ok"

    def _unused_triple(self) -> tuple:
        for triple in itertools.product(*(EDITION.category_cards(c) for c in CATEGORIES)):
            if triple not in self.made and not set(triple) & self.seen:
                return triple
        for triple in itertools.product(*(EDITION.category_cards(c) for c in CATEGORIES)):
            if triple not in self.made:
                return triple
        # every one of the 324 suggestions has been made: a repeat is still a legal suggestion
        self.log("   every suggestion has been made; repeating the first")
        return tuple(EDITION.category_cards(c)[0] for c in CATEGORIES)

    def _cheap_suggestion(self) -> tuple:
        """A legal suggestion that takes no rule run: the first unused triple
        of cards nobody is known to hold (then of any cards), in edition order."""
        k = self.player.knowledge
        owners = set(self.players)

        def open_first(cat):
            cards = EDITION.category_cards(cat)
            if k is None:
                return list(cards)
            return sorted(cards, key=lambda c: (bool(k.holders(c) & owners), c in self.seen))

        for triple in itertools.product(*(open_first(c) for c in CATEGORIES)):
            if triple not in self.made:
                return triple
        return self._unused_triple()  # pragma: no cover - 324 suggestions

    def _suggest(self) -> str:
        if not self.player_ok:
            return self._safe_reply("suggest", [])
        if self.over_budget:
            cheap = self._cheap_suggestion()
            self.made.add(cheap)
            return "suggest " + codes(cheap)
        choice: tuple | None = None
        started = time.perf_counter()
        for triple in self.player.ranked_suggestions(self.turn + 1, self.round):
            if triple not in self.made:
                choice = triple
                break
            self.log(f"   strategy proposed {codes(triple)} again; trying its next option")
        elapsed = time.perf_counter() - started
        self.suggest_times.setdefault(self.seat_spec, []).append(elapsed)
        if elapsed > self.decision_budget:
            self.over_budget = True
            self.log(f"   the strategy took {elapsed:.2f} s, over the decision budget of "
                     f"{self.decision_budget:g} s; the cheap suggestion for the rest of this game")
        if choice is None:
            choice = self._unused_triple()
            self.log("   every option of the strategy was used; first unused suggestion instead")
        self.made.add(choice)
        return "suggest " + codes(choice)

    def _disprove(self, args: list) -> str:
        if len(args) != 4:
            raise ProtocolError("disprove needs a player and three cards")
        by = self._player_name(args[0])
        cards = triple_of(args[1:])
        matching = tuple(c for c in cards if c in self.hand)
        if not matching:
            raise ProtocolError(f"asked to disprove {codes(cards)} holding none of them")
        if not self.player_ok:
            return "show " + CODE[matching[0]]
        card = self.player.disprove(self.turn + 1, by, cards, matching)
        if card not in matching:  # never show what we do not hold
            card = matching[0]
        return "show " + CODE[card]

    def _count_round(self, suggester_index: int) -> None:
        if suggester_index <= self._last_suggester:
            self.round += 1
        self._last_suggester = suggester_index

    def _suggestion(self, args: list) -> str:
        if len(args) not in (5, 6):
            raise ProtocolError("suggestion needs a player, three cards, the disprover and maybe a card")
        by = self._player_name(args[0])
        cards = triple_of(args[1:4])
        i = self.players.index(by)
        order = self.players[i + 1:] + self.players[:i]
        if args[4] == "-":
            if len(args) == 6:
                raise ProtocolError("a card is given but nobody disproved the suggestion")
            shower, passed, card = None, tuple(order), None
        else:
            shower = self._player_name(args[4])
            if shower == by:
                raise ProtocolError("a player cannot disprove his own suggestion")
            passed = tuple(order[:order.index(shower)])
            card = card_of(args[5]) if len(args) == 6 else None
            if card is not None and card not in cards:
                raise ProtocolError(f"shown card {args[5]} is not in the suggestion")
        # what the server counts, whatever our knowledge makes of it
        self._count_round(i)
        if by == self.me and card is not None:
            self.seen.add(card)
        if by == self.me and shower is None and not set(cards) & self.seen:
            self.must_accuse = cards
        self._take(Suggestion(by, cards, passed, shower, card if self.me in (by, shower) else None))
        return "ok"

    def _accuse(self) -> str:
        if self.must_accuse is not None:
            self.log("   our suggestion went undisproved with none of our cards: it is the solution")
            return "accuse " + codes(self.must_accuse)
        if not self.player_ok:
            return "-"
        accusation = self.player.accuse(self.turn)
        if accusation is None:
            return "-"
        accusation = tuple(accusation)
        if set(accusation) & self.seen:
            self.log(f"!! the accusation rules proposed {codes(accusation)}, which names a card we hold or saw; "
                     f"not accusing")
            return "-"
        return "accuse " + codes(accusation)

    def _accusation(self, args: list) -> str:
        if len(args) != 5 or args[4] not in ("+", "-"):
            raise ProtocolError("accusation needs a player, three cards and + or -")
        by = self._player_name(args[0])
        cards = triple_of(args[1:4])
        correct = args[4] == "+"
        if by == self.me and not correct:
            self.must_accuse = None
        self._take(Accusation(by, cards, correct))
        return "ok"

    def _take(self, turn) -> None:
        """Put a turn into the record and the knowledge, or refuse it (logged,
        nothing changed) when a record could not hold it or the knowledge
        finds it contradicts what it knows."""
        earlier = [t for t in self.turns if isinstance(t, Accusation)]  # the only state a record check reads
        check = Record(edition=EDITION, players=self.players, me=self._seat_name(), hand=self.hand,
                       hand_sizes=dict(self.hand_sizes), turns=earlier + [turn])
        try:
            parse_record(check.to_dict(), source="<contest>")
        except ClueError as exc:
            self.log(f"!! turn refused, not recorded: {getattr(exc, 'reason', exc)}")
            return
        if self.player_ok:
            try:
                self.player.observe(Event(self.turn + 1, self.round, turn))
            except RuleFileError as exc:  # a rule's run-time limit: the turn did happen
                self.log(f"!! the rules failed on this turn ({type(exc).__name__}: {exc}); recorded")
            except ClueError as exc:  # a contradiction: the knowledge is left as it was
                self.log(f"!! turn refused, not recorded, knowledge unchanged: {exc}")
                return
            except Exception as exc:  # a bug, mid-way: the turn did happen
                self.log(f"!! the knowledge failed on this turn ({type(exc).__name__}: {exc}); recorded")
                self.log("!! " + traceback.format_exc().replace("\n", "\n!! "))
        self.turns.append(turn)
        self.turn += 1

    def record(self) -> Record:
        """The current game as a record from our seat."""
        return Record(edition=EDITION, players=self.players, me=self._seat_name(), hand=self.hand,
                      hand_sizes=dict(self.hand_sizes), turns=list(self.turns), source="<contest>")

    def _seat_name(self) -> str:
        """Our seat's name in the game under way (a :class:`ProtocolError` before ``reset``)."""
        if self.me is None:
            raise ProtocolError("no game under way: the server has not sent reset")
        return self.me

    def _finish_game(self) -> None:
        if not self.in_game:
            return
        self.in_game = False
        if self.records is not None:
            try:
                self.records.mkdir(parents=True, exist_ok=True)
                parts = self.record_parts()
                for i, part in enumerate(parts, 1):
                    suffix = f"-part{i}" if len(parts) > 1 else ""
                    path = self.records / f"{self.identifier}-game-{self.games:04d}{suffix}.yaml"
                    dump_record(part, path)
                    self.log(f"   game record written to {path}")
            except Exception as exc:
                self.log(f"!! cannot write the game record: {type(exc).__name__}: {exc}")

    def record_parts(self) -> list[Record]:
        """The current game as records ``deduce`` reads: one, or -- past
        ``records.MAX_TURNS`` turns -- consecutive parts of at most that many
        turns, each starting with the wrong accusations made before it (so a
        player out stays out)."""
        whole = self.record()
        if len(whole.turns) <= MAX_TURNS:
            return [whole]
        parts: list[Record] = []
        out: list = []  # the wrong accusations so far
        start = 0
        while start < len(whole.turns):
            room = MAX_TURNS - len(out)
            chunk = list(whole.turns[start:start + room])
            parts.append(Record(edition=EDITION, players=self.players, me=self._seat_name(), hand=self.hand,
                                hand_sizes=dict(self.hand_sizes), turns=out + chunk, source="<contest>"))
            out = out + [t for t in chunk if isinstance(t, Accusation) and not t.correct]
            start += room
        return parts

    # ----------------------------------------------------------- transport
    def run(self, port: int, host: str = "127.0.0.1", connect_timeout: float = 10.0) -> int:
        """Connect, announce ourselves, then answer messages until ``done``,
        until the server closes or resets the connection, or until no message
        came for :attr:`read_timeout` seconds.  Returns an exit code
        (:data:`EXIT_OK`, :data:`EXIT_NO_SERVER`, :data:`EXIT_READ_TIMEOUT`).
        Whatever happens, the game under way is written as a record."""
        deadline = time.monotonic() + connect_timeout
        sock = None
        while sock is None:
            try:
                sock = socket.create_connection((host, port), timeout=max(0.1, deadline - time.monotonic()))
            except OSError as exc:
                if time.monotonic() >= deadline:
                    self.log(f"!! cannot connect to {host}:{port}: {exc}")
                    return EXIT_NO_SERVER
                time.sleep(0.05)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(max(1.0, self.read_timeout))
            sock.sendall(f"{self.identifier} alive".encode("ascii"))
            return self.serve(sock)
        except OSError as exc:
            self.log(f"   connection error ({exc}); exiting")
            return EXIT_OK
        finally:
            self._finish_game()
            sock.close()

    def serve(self, sock: socket.socket) -> int:
        """Answer the messages arriving on a connected socket: one reply per
        message, as :class:`MessageFramer` cuts them.  The game under way is
        written as a record however this ends."""
        framer = MessageFramer(lambda: self.seat if self.in_game else None, max_message=self.max_message,
                               quiet=self.quiet, stall=self.stall)
        last = time.monotonic()
        try:
            while True:
                frame, wait = framer.next(time.monotonic() - last)
                if frame is not None:
                    reply = self.refuse(frame) if frame.oversized else self.handle(frame.text)
                    sock.sendall(reply.encode("ascii"))
                    if reply == "dead":
                        return EXIT_OK
                    continue
                if wait is None:
                    wait = self.read_timeout - (time.monotonic() - last)
                    if wait <= 0:
                        self.log(f"!! no message from the server for {self.read_timeout:g} s; exiting")
                        return EXIT_READ_TIMEOUT
                sock.settimeout(max(wait, 0.001))
                try:
                    data = sock.recv(65536)
                except socket.timeout:
                    continue
                except OSError as exc:
                    self.log(f"   connection error ({exc}); exiting")
                    return EXIT_OK
                if not data:
                    self.log("   server closed the connection; exiting")
                    return EXIT_OK
                framer.feed(data)
                last = time.monotonic()
        except OSError as exc:  # sending
            self.log(f"   connection error ({exc}); exiting")
            return EXIT_OK
        finally:
            self._finish_game()
