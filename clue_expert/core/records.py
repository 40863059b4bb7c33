"""The game record: one game seen from one seat (YAML or JSON).

See ``docs/record-format.md``.  :func:`load_record` parses and validates a
record against the rules of the game; :meth:`Record.observations` gives
what its seat saw as observations (``clue_expert.core.observations``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from .board import Move, get_board
from .cards import Edition, get_edition
from .deals import Deal, parse_deal
from .errors import ClueError, RecordError
from .facts import english_list, player_name_problem
from .observations import Accusation, DealtHand, Suggestion
from .yamlio import FileLoadError, load_file, shorten

#: How many players a game of the family may have.
MIN_PLAYERS, MAX_PLAYERS = 2, 10
#: The most turns a record may hold (a 60-round game of 10 players has 600).
MAX_TURNS = 2000
#: The games of the family a record can hold: Speed Clue (a suggestion goes
#: round the table until someone shows; a wrong accuser stays to disprove)
#: and the generalized game of the CS4444 reports (one chosen player is asked
#: about any list of cards; a wrong guesser is out and his hand is laid open).
GAMES = ("speed-clue", "generalized", "board")


def _names(edition: Edition, cards, in_order: bool = True) -> str:
    """Cards as an error message shows them: their display names as an
    English list ("Miss Scarlett, Rope and Hall"), in sheet order."""
    cards = list(cards)
    if in_order:
        cards = edition.sort_cards(set(cards))
    return english_list(edition.display(c) for c in cards)


def _folder(source: str):
    """The folder of a record file (editions given by path are relative to it)."""
    path = Path(source)
    return path.parent if source and not source.startswith("<") else None





@dataclass
class Record:
    """A game seen from one seat."""

    edition: Edition
    """The card list."""
    players: tuple[str, ...]
    """Seat order."""
    me: str
    """Whose knowledge the record holds."""
    hand: tuple[str, ...]
    """``me``'s cards."""
    hand_sizes: dict
    """player -> hand size."""
    turns: list = field(default_factory=list)
    """Suggestions and accusations in order (turn numbers are 1-based)."""
    deal: Deal | None = None
    """The true deal, when known (records written by simulations)."""
    source: str = "<record>"
    """File name or other origin."""
    game: str = "speed-clue"
    """Which game of the family (see :data:`GAMES`)."""
    board: str | None = None
    """The board game: the board's id (or file)."""
    moves: list = field(default_factory=list)
    """The board game: every pawn's :class:`~clue_expert.core.board.Move`
    (deduction does not read them)."""
    marks: list = field(default_factory=list)
    """The seat's own marks on its sheet (``{owner, card, mark, note}``: a
    hunch ``held`` or ``lacked``, a note, or both), kept for the person
    (deduction never reads them; see :func:`parse_marks`)."""

    def as_seat(self, player: str) -> "Record":
        """The same game from another seat.  Needs the true deal; the cards
        that seat saw come from ``actual`` (or, for a single matching card,
        from the deal); a show whose card cannot be known is left unseen."""
        if player not in self.players:
            raise RecordError(f"{player!r} is not one of the players {english_list(self.players)}", source=self.source)
        if player == self.me:
            return self
        if self.deal is None:
            raise RecordError(f"replaying from {player}'s seat needs the true deal in the record", source=self.source)
        turns = []
        for t in self.turns:
            if isinstance(t, Suggestion):
                card = None
                if t.shown_by is not None and player in (t.by, t.shown_by):
                    card = t.actual
                    if card is None:
                        matching = [c for c in t.cards if c in self.deal.hands[t.shown_by]]
                        card = matching[0] if len(matching) == 1 else None
                t = replace(t, card=card)
            turns.append(t)
        return Record(edition=self.edition, players=self.players, me=player, hand=self.deal.hands[player],
                      hand_sizes=dict(self.hand_sizes), turns=turns, deal=self.deal, source=self.source,
                      game=self.game, board=self.board, moves=list(self.moves))

    def observations(self, upto: int | None = None):
        """(turn, observation) pairs as the record's seat saw them: its hand
        at turn 0, then each turn up to ``upto`` (all when None)."""
        yield 0, DealtHand(self.me, tuple(self.hand))
        for n, turn in enumerate(self.turns, start=1):
            if upto is not None and n > upto:
                break
            yield n, turn

    def to_dict(self) -> dict:
        """The YAML/JSON form."""
        d: dict[str, object] = {} if self.game == "speed-clue" else {"game": self.game}
        d.update({"edition": self.edition.ref, "players": list(self.players), "me": self.me,
             "hand": list(self.hand), "hand_sizes": dict(self.hand_sizes),
             "turns": [t.to_dict() for t in self.turns]})
        if self.board is not None:
            d["board"] = self.board
            d["moves"] = [m.to_dict() for m in self.moves]
        if self.marks:
            d["marks"] = [dict(m) for m in self.marks]
        if self.deal is not None:
            d["deal"] = {"envelope": list(self.deal.envelope), "hands": {p: list(h) for p, h in self.deal.hands.items()}}
        return d


def record_yaml(record: Record) -> str:
    """A record as YAML text (each turn on one line)."""
    return yaml.safe_dump(record.to_dict(), sort_keys=False, default_flow_style=None)


def dump_record(record: Record, path: str | Path) -> None:
    """Write a record as YAML (``.yaml``/``.yml``) or JSON (anything else)."""
    path = Path(path)
    text = record_yaml(record) if path.suffix in (".yaml", ".yml") else json.dumps(record.to_dict(), indent=1)
    path.write_text(text, encoding="utf-8")


def load_record(path: str | Path, what: str = "record") -> Record:
    """Load and validate a record file (YAML or JSON), under the limits of
    :mod:`clue_expert.core.yamlio` (``what`` is ``record`` or ``notebook``)."""
    try:
        data = load_file(path, what)
    except FileLoadError as exc:
        raise RecordError(exc.problem, source=str(path)) from None
    return parse_record(data, str(path))


def _cards(edition: Edition, names, source, turn, what) -> tuple:
    if not isinstance(names, (list, tuple)):
        raise RecordError(f"{what} must be a list of cards, got {shorten(names)}", source=source, turn=turn)
    if len(names) > len(edition.cards):
        raise RecordError(f"{what} lists {len(names)} cards, more than the {len(edition.cards)} of the edition",
                          source=source, turn=turn)
    try:
        return edition.resolve_all(str(n) for n in names)
    except ClueError as exc:
        raise RecordError(f"{what}: {exc}", source=source, turn=turn) from None


def _shaped(edition, names, source, turn, what, accusation: bool) -> tuple:
    """A suggestion's cards (one of each category) or an accusation's (the
    envelope's shape), in sheet order."""
    cards = _cards(edition, names, source, turn, what)
    try:
        return edition.check_accusation(cards) if accusation else edition.check_suggestion(cards)
    except ClueError:
        shape = edition.envelope_text() if accusation else edition.suggestion_text()
        raise RecordError(f"{what} must name {shape}, got {shorten(list(names))}", source=source, turn=turn) from None


def parse_record(data: object, source: str = "<record>") -> Record:
    """Validate a parsed record against the rules of the game."""
    return _RecordReader(data, source).record()


class _RecordReader:
    """Reads one record, part by part (header, hand sizes, hand, deal, turns),
    each part checked against the rules of the game and the parts before it."""

    def __init__(self, data: object, source: str) -> None:
        self.source = source
        if not isinstance(data, dict):
            raise RecordError("a record must be a mapping", source=source)
        self.data = data
        self.out: set = set()
        self.finished: int | None = None
        self.turns: list = []

    def fail(self, message: str, turn: int | None = None) -> RecordError:
        return RecordError(message, source=self.source, turn=turn)

    def record(self) -> Record:
        self.read_header()
        self.read_players()
        self.read_sizes()
        self.read_hand()
        self.read_deal()
        self.read_turns()
        board, moves = _board_moves(self.data, self.game, self.players, self.edition, self.turns, self.source)
        marks = parse_marks(self.data.get("marks"), self.edition, self.players, self.source)
        return Record(edition=self.edition, players=self.players, me=self.me, hand=self.hand,
                      hand_sizes=self.sizes, turns=self.turns, deal=self.deal, source=self.source,
                      game=self.game, board=board, moves=moves, marks=marks)

    def read_header(self) -> None:
        data = self.data
        unknown = set(data) - {"game", "edition", "players", "me", "hand", "hand_sizes", "turns", "deal", "board",
                               "moves", "marks"}
        if unknown:
            raise self.fail(f"unknown key(s) {shorten(sorted(map(str, unknown)))}")
        self.game = data.get("game", "speed-clue")
        if self.game not in GAMES:
            raise self.fail(f"game must be one of {english_list(GAMES, 'or')}, got {shorten(self.game)}")
        self.general = self.game == "generalized"
        for key in ("edition", "players", "me", "hand"):
            if key not in data:
                raise self.fail(f"missing key {key!r}")
        if not isinstance(data["edition"], (str, int)) or isinstance(data["edition"], bool):
            raise self.fail(f"edition must be an edition id or file name, got {shorten(data['edition'])}")
        try:
            self.edition = get_edition(str(data["edition"]), base=_folder(self.source))
        except ClueError as exc:
            raise self.fail(str(exc)) from None

    def read_players(self) -> None:
        players = self.data["players"]
        if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise self.fail(f"players must be a list of {MIN_PLAYERS} to {MAX_PLAYERS} names, got "
                            f"{shorten(players)}")
        if not all(isinstance(p, (str, int)) and not isinstance(p, bool) for p in players):
            raise self.fail(f"player names must be plain names, got {shorten(players)}")
        self.players = tuple(str(p) for p in players)
        problem = player_name_problem(self.players)
        if problem:
            raise self.fail(problem)
        me = self.data["me"]
        if not isinstance(me, (str, int)) or isinstance(me, bool) or str(me) not in self.players:
            raise self.fail(f"me ({shorten(me)}) is not one of the players {english_list(self.players)}")
        self.me = str(me)

    def player(self, name, turn, what) -> str:
        """``name`` as one of the players, or the error saying it is not."""
        if not isinstance(name, (str, int)) or isinstance(name, bool) or str(name) not in self.players:
            raise self.fail(f"{what} {shorten(name)} is not one of the players {english_list(self.players)}", turn)
        return str(name)

    def read_sizes(self) -> None:
        sizes = dict(zip(self.players, self.edition.hand_sizes(len(self.players))))
        given = self.data.get("hand_sizes") or {}
        if not isinstance(given, dict) or len(given) > len(self.players):
            raise self.fail(f"hand_sizes must map players to numbers, got {shorten(given)}")
        for p, n in given.items():
            self.player(p, None, "hand_sizes names")
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise self.fail(f"hand size of {p} must be a whole number, got {shorten(n)}")
            sizes[str(p)] = n
        dealt = len(self.edition.cards) - self.edition.envelope_size
        if sum(sizes.values()) != dealt:
            raise self.fail(f"hand sizes {shorten(sizes, 200)} add up to {shorten(sum(sizes.values()))}, but "
                            f"{dealt} cards are dealt")
        self.sizes = sizes

    def read_hand(self) -> None:
        me, hand = self.me, _cards(self.edition, self.data["hand"], self.source, None, "hand")
        if len(set(hand)) != len(hand):
            raise self.fail(f"hand repeats a card: {shorten(list(hand))}")
        if len(hand) != self.sizes[me]:
            raise self.fail(f"{me}'s hand has {len(hand)} cards but {me} holds {self.sizes[me]}")
        self.hand = hand

    def read_deal(self) -> None:
        self.deal: Deal | None = None
        if self.data.get("deal") is None:
            return
        if not isinstance(self.data["deal"], dict):
            raise self.fail("deal must be a mapping with envelope and hands")
        d = dict(self.data["deal"])
        d["edition"] = self.edition
        d["players"] = list(self.players)
        try:
            deal = parse_deal(d, "deal", check_sizes=False)
        except ClueError as exc:
            raise self.fail(str(exc)) from None
        wrong = {p: len(h) for p, h in deal.hands.items() if len(h) != self.sizes[p]}
        if wrong:
            raise self.fail(f"the deal's hands have {wrong} cards but the hand sizes are "
                            f"{ {p: self.sizes[p] for p in wrong} }")
        if set(deal.hands[self.me]) != set(self.hand):
            raise self.fail(f"the deal gives {self.me} {_names(self.edition, deal.hands[self.me])} but the hand is "
                            f"{_names(self.edition, self.hand)}")
        self.deal = deal

    def read_turns(self) -> None:
        raw_turns = self.data.get("turns") or []
        if not isinstance(raw_turns, list):
            raise self.fail("turns must be a list")
        if len(raw_turns) > MAX_TURNS:
            raise self.fail(f"{len(raw_turns)} turns, more than the limit of {MAX_TURNS}")
        for n, raw in enumerate(raw_turns, start=1):
            if not isinstance(raw, dict):
                raise self.fail(f"a turn must be a mapping, got {shorten(raw)}", n)
            if self.finished is not None:
                raise self.fail(f"the game ended on turn {self.finished} with a correct accusation", n)
            by = self.player(raw.get("by"), n, "by:")
            if by in self.out:
                raise self.fail(f"{by} made a wrong accusation earlier and is out of the game", n)
            if "accuse" in raw:
                self.turns.append(self.accusation(raw, by, n))
            elif "suggest" not in raw:
                raise self.fail("a turn needs 'suggest' or 'accuse'", n)
            else:
                self.turns.append(self.suggestion(raw, by, n))

    def accusation(self, raw: dict, by: str, n: int) -> Accusation:
        extra = set(raw) - {"by", "accuse", "correct", *(("revealed",) if self.general else ())}
        if extra:
            raise self.fail(f"unknown key(s) {shorten(sorted(map(str, extra)))} in an accusation", n)
        cards = _shaped(self.edition, raw["accuse"], self.source, n, "accuse", accusation=True)
        correct = raw.get("correct")
        if not isinstance(correct, bool):
            raise self.fail("an accusation needs correct: true or false", n)
        if self.deal is not None and correct != (tuple(cards) == self.deal.envelope):
            raise self.fail(f"correct: {str(correct).lower()} contradicts the deal's envelope", n)
        revealed = None
        if self.general and not correct:
            revealed = _revealed(raw.get("revealed"), by, self.edition, self.sizes, self.me, self.hand, self.deal,
                                 self.source, n)
        elif raw.get("revealed") is not None:
            raise self.fail("only a wrong guess lays a hand open (revealed:)", n)
        if correct:
            self.finished = n
        else:
            self.out.add(by)
        return Accusation(by, cards, correct, revealed)

    def suggestion(self, raw: dict, by: str, n: int) -> Suggestion:
        if self.general:
            cards, passed, shown_by, asks = _interrogation(raw, by, self.players, self.out, self.edition,
                                                           self.source, n, self.player)
        else:
            cards, passed, shown_by = _speed_clue_suggestion(raw, by, self.players, self.edition, self.source, n,
                                                             self.player)
            asks = None
        card = self.shown_card(raw.get("card"), by, cards, shown_by, n)
        actual = self.actual_card(raw.get("actual"), cards, shown_by, n)
        if actual is None and card is not None:
            actual = card
        self.check_hand(cards, passed, shown_by, card, n)
        if self.deal is not None:
            self.check_deal(self.deal, cards, passed, shown_by, card, n)
        return Suggestion(by, cards, passed, shown_by, card, actual, asks)

    def shown_card(self, card, by: str, cards, shown_by, n: int):
        """The card the seat saw shown (``card:``), checked, or None."""
        if card is None:
            return None
        if self.me not in (by, shown_by):
            raise self.fail(f"card {shorten(card)} is given, but {self.me} neither made nor disproved this "
                            f"suggestion and could not see it", n)
        if shown_by is None:
            raise self.fail("card is given but nobody showed one", n)
        try:
            card = self.edition.resolve(str(card))
        except ClueError as exc:
            raise self.fail(f"card: {exc}", n) from None
        if card not in cards:
            raise self.fail(f"the shown card {self.edition.display(card)} is not one of the suggested "
                            f"{_names(self.edition, cards)}", n)
        return card

    def actual_card(self, actual, cards, shown_by, n: int):
        """The card actually shown (``actual:``, god's-eye logs), checked, or None."""
        if actual is None:
            return None
        if self.deal is None:
            raise self.fail("'actual' (the card shown to someone else) needs the true deal in the record", n)
        try:
            actual = self.edition.resolve(str(actual))
        except ClueError as exc:
            raise self.fail(f"actual: {exc}", n) from None
        if shown_by is None or actual not in cards or actual not in self.deal.hands[shown_by]:
            raise self.fail(f"actual card {self.edition.display(actual)} was not shown by {shown_by} from "
                            f"{_names(self.edition, cards)}", n)
        return actual

    def check_hand(self, cards, passed, shown_by, card, n: int) -> None:
        """The seat's own passes and shows agree with its hand."""
        me, hand, edition = self.me, self.hand, self.edition
        if me in passed and set(cards) & set(hand):
            raise self.fail(f"{me} passed but holds {_names(edition, set(cards) & set(hand))}", n)
        if shown_by == me:
            mine = set(cards) & set(hand)
            if not mine:
                raise self.fail(f"{me} showed a card but holds none of {_names(edition, cards)}", n)
            if card is not None and card not in mine:
                raise self.fail(f"{me} showed {edition.display(card)}, which is not in {me}'s hand", n)

    def check_deal(self, deal: Deal, cards, passed, shown_by, card, n: int) -> None:
        """Every pass and show agrees with the true deal."""
        edition = self.edition
        for p in passed:
            if set(cards) & set(deal.hands[p]):
                raise self.fail(f"{p} passed but the deal gives {p} "
                                f"{_names(edition, set(cards) & set(deal.hands[p]))}", n)
        if shown_by is not None and not set(cards) & set(deal.hands[shown_by]):
            raise self.fail(f"{shown_by} showed a card but the deal gives {shown_by} none of them", n)
        if card is not None and card not in deal.hands[shown_by]:
            raise self.fail(f"{shown_by} showed {edition.display(card)} but the deal does not give it to {shown_by}",
                            n)


#: A mark's hunch: the seat thinks the owner holds the card, or lacks it.
MARK_VALUES = ("held", "lacked")
#: The longest note a mark keeps (a glimpse, a hunch: a line, not a file).
MAX_NOTE = 500


def parse_marks(raw: object, edition: Edition, players, source: str = "<record>") -> list:
    """A record's ``marks:``, checked for shape: each ``{owner, card}`` (a
    player or ``envelope``, and a card of the edition) with a ``mark``
    (``held`` or ``lacked``), a ``note``, or both; one mark a cell.  Returned
    as plain dicts, the card as its id, in the order given."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise RecordError(f"marks must be a list, got {shorten(raw)}", source=source)
    if len(raw) > len(edition.cards) * (len(players) + 1):
        raise RecordError(f"{len(raw)} marks, more than the sheet's cells", source=source)
    owners = (*players, "envelope")
    out: list = []
    seen: set = set()
    for n, m in enumerate(raw, start=1):
        if not isinstance(m, dict) or set(m) - {"owner", "card", "mark", "note"}:
            raise RecordError(f"mark {n} must be a mapping of owner, card, mark and note, got {shorten(m)}",
                              source=source)
        owner = m.get("owner")
        if not isinstance(owner, (str, int)) or isinstance(owner, bool) or str(owner) not in owners:
            raise RecordError(f"mark {n}: owner {shorten(owner)} is not one of {english_list(owners, 'or')}",
                              source=source)
        try:
            card = edition.resolve(str(m.get("card")))
        except ClueError as exc:
            raise RecordError(f"mark {n}: card: {exc}", source=source) from None
        if (str(owner), card) in seen:
            raise RecordError(f"mark {n}: {owner} / {edition.display(card)} is marked twice", source=source)
        seen.add((str(owner), card))
        mark, note = m.get("mark"), m.get("note")
        if mark is not None and mark not in MARK_VALUES:
            raise RecordError(f"mark {n}: mark must be held or lacked, got {shorten(mark)}", source=source)
        if note is not None and (not isinstance(note, str) or len(note) > MAX_NOTE):
            raise RecordError(f"mark {n}: note must be text of at most {MAX_NOTE} characters", source=source)
        if mark is None and not (note or "").strip():
            raise RecordError(f"mark {n}: give a mark (held or lacked), a note, or both", source=source)
        d: dict = {"owner": str(owner), "card": card}
        if mark is not None:
            d["mark"] = mark
        if note is not None and note.strip():
            d["note"] = note.strip()
        out.append(d)
    return out


MOVE_KEYS = {"round", "by", "pawn", "how", "roll", "from", "to", "turn"}
#: How a pawn moved: by the die, through a secret passage, stayed (to suggest where pulled, or trapped), moved
#: into a room by another's suggestion, or moved off a door into its room after its player's wrong accusation.
MOVE_HOWS = ("roll", "passage", "stay", "pulled", "cleared")


def _board_moves(data: dict, game: str, players: tuple, edition: Edition, turns: list, source: str) -> tuple:
    """The board game's board and moves, checked for shape: players, pawns
    (suspects of the edition), squares and rooms of the board, the turn of
    each move's suggestion (made by the mover, in the room it ended in).
    Moves are not replayed for legality (docs/record-format.md)."""
    if game != "board":
        if data.get("board") is not None or data.get("moves"):
            raise RecordError("board: and moves: belong to a board game (game: board)", source=source)
        return None, []
    if not isinstance(data.get("board"), str):
        raise RecordError("a board game names its board (board: classic or a board file)", source=source)
    try:
        board = get_board(data["board"] if "/" not in data["board"] or _folder(source) is None
                          else str(_folder(source) / data["board"]))
    except ClueError as exc:
        raise RecordError(str(exc), source=source) from None
    raw = data.get("moves") or []
    if not isinstance(raw, list) or len(raw) > MAX_TURNS * 3:
        raise RecordError(f"moves must be a list of at most {MAX_TURNS * 3} moves", source=source)
    moves: list = []
    for n, m in enumerate(raw, start=1):
        last_round = moves[-1].round if moves else 0
        moves.append(_board_move(m, n, last_round, board, players, edition, turns, source))
    return data["board"], moves


def _board_position(board, value, what: str, n: int, source: str):
    """A move's square ([x, y] on the hallway) or room, or the error saying it is neither."""
    if isinstance(value, str) and value in board.rooms:
        return value
    if (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)
            and tuple(value) in board.hallway):
        return tuple(value)
    raise RecordError(f"move {n}: {what} {shorten(value)} is neither a hallway square [x, y] nor a room of "
                      f"board {board.id}", source=source)


def _board_move(m: object, n: int, last_round: int, board, players: tuple, edition: Edition, turns: list,
                source: str) -> Move:
    """Move ``n`` of a board game's record, checked for shape."""
    if not isinstance(m, dict) or set(m) - MOVE_KEYS or not {"round", "by", "pawn", "to"} <= set(m):
        raise RecordError(f"move {n} must be a mapping with round, by, pawn, how, roll, from, to, turn; got "
                          f"{shorten(m)}", source=source)
    rnd, by, pawn, how, roll, turn = (m.get(k) for k in ("round", "by", "pawn", "how", "roll", "turn"))
    if type(rnd) is not int or rnd < last_round:
        raise RecordError(f"move {n}: round {shorten(rnd)} is not a whole number after round {last_round}",
                          source=source)
    if by not in players:
        raise RecordError(f"move {n}: by {shorten(by)} is not one of the players {english_list(players)}",
                          source=source)
    if pawn not in board.starts or pawn not in edition.card_ids:
        raise RecordError(f"move {n}: pawn {shorten(pawn)} is not a suspect of the board "
                          f"({', '.join(board.starts)})", source=source)
    how = how or "roll"
    if how not in MOVE_HOWS:
        raise RecordError(f"move {n}: how must be {english_list(MOVE_HOWS, 'or')}, not {shorten(how)}",
                          source=source)
    if roll is not None and (type(roll) is not int or not 1 <= roll <= 6 * board.dice):
        raise RecordError(f"move {n}: roll {shorten(roll)} is not a roll of {board.dice} di"
                          f"{'e' if board.dice == 1 else 'ce'}", source=source)
    start = _board_position(board, m.get("from"), "from", n, source) if m.get("from") is not None else None
    end = _board_position(board, m["to"], "to", n, source)
    if turn is not None:
        if type(turn) is not int or not 1 <= turn <= len(turns):
            raise RecordError(f"move {n}: turn {shorten(turn)} is not a turn of the record (1 to {len(turns)})",
                              source=source)
        t = turns[turn - 1]
        if not isinstance(t, Suggestion) or t.by != by or end not in t.cards:
            raise RecordError(f"move {n}: turn {turn} is not a suggestion by {by} in "
                              f"{end if isinstance(end, str) else list(end)}", source=source)
    return Move(rnd, str(by), str(pawn), roll, start, end, turn, how)


def _speed_clue_suggestion(raw: dict, by: str, players: tuple, edition: Edition, source: str, n: int, player):
    """A Speed Clue suggestion: one card of each category, asked round the
    table in seat order until someone shows."""
    extra = set(raw) - {"by", "suggest", "passed", "shown_by", "card", "actual"}
    if extra:
        raise RecordError(f"unknown key(s) {shorten(sorted(map(str, extra)))} in a suggestion",
                          source=source, turn=n)
    cards = _shaped(edition, raw["suggest"], source, n, "suggest", accusation=False)
    passed_raw = raw.get("passed") or []
    if not isinstance(passed_raw, list) or len(passed_raw) >= len(players):
        raise RecordError(f"passed must be a list of at most {len(players) - 1} players, got "
                          f"{shorten(passed_raw)}", source=source, turn=n)
    passed = tuple(player(p, n, "passed:") for p in passed_raw)
    shown_by = raw.get("shown_by")
    shown_by = None if shown_by in (None, "", "-", "nobody") else player(shown_by, n, "shown_by:")
    i = players.index(by)
    order = players[i + 1:] + players[:i]
    if by in passed or by == shown_by:
        raise RecordError(f"{by} cannot answer his own suggestion", source=source, turn=n)
    if len(set(passed)) != len(passed):
        raise RecordError(f"passed repeats a player: {shorten(list(passed))}", source=source, turn=n)
    if set(passed) != set(order[:len(passed)]):
        raise RecordError(f"players are asked in seat order {english_list(order)}: passes by {english_list(passed)} skip "
                          f"{english_list(p for p in order[:len(passed)] if p not in passed)}", source=source, turn=n)
    passed = tuple(order[:len(passed)])
    if shown_by is None:
        if len(passed) != len(order):
            raise RecordError(f"nobody showed a card, but {english_list([p for p in order if p not in passed])} did not pass",
                              source=source, turn=n)
    elif len(passed) == len(order):
        raise RecordError(f"{shown_by} showed a card, but every other player passed", source=source, turn=n)
    elif shown_by != order[len(passed)]:
        raise RecordError(f"{shown_by} showed a card, but after the passes by {english_list(passed)} the next player "
                          f"asked is {order[len(passed)]}", source=source, turn=n)
    return cards, passed, shown_by


def _interrogation(raw: dict, by: str, players: tuple, out: set, edition: Edition, source: str, n: int, player):
    """A generalized game's interrogation: ``by`` asks one other player still
    in the game about a non-empty list of distinct cards; that player either
    passed or showed one of them."""
    extra = set(raw) - {"by", "asks", "suggest", "passed", "shown_by", "card", "actual"}
    if extra:
        raise RecordError(f"unknown key(s) {shorten(sorted(map(str, extra)))} in an interrogation",
                          source=source, turn=n)
    if raw.get("asks") is None:
        raise RecordError("an interrogation needs asks: (the player asked)", source=source, turn=n)
    asks = player(raw["asks"], n, "asks:")
    if asks == by:
        raise RecordError(f"{by} cannot ask himself", source=source, turn=n)
    if asks in out:
        raise RecordError(f"{asks} made a wrong guess earlier and is out of the game; nobody can ask him",
                          source=source, turn=n)
    cards = _cards(edition, raw["suggest"], source, n, "suggest")
    if not cards:
        raise RecordError("an interrogation asks about at least one card", source=source, turn=n)
    if len(set(cards)) != len(cards):
        raise RecordError(f"suggest repeats a card: {shorten(list(cards))}", source=source, turn=n)
    cards = edition.sort_cards(cards)
    passed_raw = raw.get("passed") or []
    if not isinstance(passed_raw, list) or len(passed_raw) > 1:
        raise RecordError(f"passed must be empty or the player asked, got {shorten(passed_raw)}",
                          source=source, turn=n)
    passed = tuple(player(p, n, "passed:") for p in passed_raw)
    shown_by = raw.get("shown_by")
    shown_by = None if shown_by in (None, "", "-", "nobody") else player(shown_by, n, "shown_by:")
    if passed and passed != (asks,):
        raise RecordError(f"{by} asked {asks}, so only {asks} can pass, not {passed[0]}", source=source, turn=n)
    if shown_by is not None and shown_by != asks:
        raise RecordError(f"{by} asked {asks}, so only {asks} can show a card, not {shown_by}", source=source, turn=n)
    if bool(passed) == (shown_by is not None):
        raise RecordError(f"{asks} must either pass (passed: [{asks}]) or show (shown_by: {asks})",
                          source=source, turn=n)
    return cards, passed, shown_by, asks


def _revealed(names, by: str, edition: Edition, sizes: dict, me: str, hand: tuple, deal, source: str, n: int) -> tuple:
    """A wrong guesser's whole hand, laid open to everyone."""
    if names is None:
        raise RecordError(f"a wrong guess lays the guesser's hand open: give revealed: ({by}'s {sizes[by]} cards)",
                          source=source, turn=n)
    cards = _cards(edition, names, source, n, "revealed")
    if len(set(cards)) != len(cards) or len(cards) != sizes[by]:
        raise RecordError(f"revealed must be {by}'s {sizes[by]} distinct cards, got {_names(edition, cards, False)}",
                          source=source, turn=n)
    if by == me and set(cards) != set(hand):
        raise RecordError(f"revealed {_names(edition, cards)} is not {me}'s hand {_names(edition, hand)}", source=source,
                          turn=n)
    if by != me and set(cards) & set(hand):
        raise RecordError(f"revealed gives {by} {_names(edition, set(cards) & set(hand))}, which {me} holds",
                          source=source, turn=n)
    if deal is not None and set(cards) != set(deal.hands[by]):
        raise RecordError(f"revealed {_names(edition, cards)} is not {by}'s hand in the deal", source=source, turn=n)
    return edition.sort_cards(cards)
