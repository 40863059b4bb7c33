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
    if not isinstance(data, dict):
        raise RecordError("a record must be a mapping", source=source)
    unknown = set(data) - {"game", "edition", "players", "me", "hand", "hand_sizes", "turns", "deal", "board",
                           "moves", "marks"}
    if unknown:
        raise RecordError(f"unknown key(s) {shorten(sorted(map(str, unknown)))}", source=source)
    game = data.get("game", "speed-clue")
    if game not in GAMES:
        raise RecordError(f"game must be one of {english_list(GAMES, 'or')}, got {shorten(game)}", source=source)
    general = game == "generalized"
    for key in ("edition", "players", "me", "hand"):
        if key not in data:
            raise RecordError(f"missing key {key!r}", source=source)
    if not isinstance(data["edition"], (str, int)) or isinstance(data["edition"], bool):
        raise RecordError(f"edition must be an edition id or file name, got {shorten(data['edition'])}",
                          source=source)
    try:
        edition = get_edition(str(data["edition"]), base=_folder(source))
    except ClueError as exc:
        raise RecordError(str(exc), source=source) from None
    players = data["players"]
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"players must be a list of {MIN_PLAYERS} to {MAX_PLAYERS} names, got "
                          f"{shorten(players)}", source=source)
    if not all(isinstance(p, (str, int)) and not isinstance(p, bool) for p in players):
        raise RecordError(f"player names must be plain names, got {shorten(players)}", source=source)
    players = tuple(str(p) for p in players)
    problem = player_name_problem(players)
    if problem:
        raise RecordError(problem, source=source)
    me = data["me"]
    if not isinstance(me, (str, int)) or isinstance(me, bool) or str(me) not in players:
        raise RecordError(f"me ({shorten(me)}) is not one of the players {english_list(players)}", source=source)
    me = str(me)

    def player(name, turn, what):
        if not isinstance(name, (str, int)) or isinstance(name, bool) or str(name) not in players:
            raise RecordError(f"{what} {shorten(name)} is not one of the players {english_list(players)}", source=source,
                              turn=turn)
        return str(name)

    sizes = dict(zip(players, edition.hand_sizes(len(players))))
    given = data.get("hand_sizes") or {}
    if not isinstance(given, dict) or len(given) > len(players):
        raise RecordError(f"hand_sizes must map players to numbers, got {shorten(given)}", source=source)
    for p, n in given.items():
        player(p, None, "hand_sizes names")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise RecordError(f"hand size of {p} must be a whole number, got {shorten(n)}", source=source)
        sizes[str(p)] = n
    dealt = len(edition.cards) - edition.envelope_size
    if sum(sizes.values()) != dealt:
        raise RecordError(f"hand sizes {shorten(sizes, 200)} add up to {shorten(sum(sizes.values()))}, but {dealt} "
                          f"cards are dealt", source=source)
    hand = _cards(edition, data["hand"], source, None, "hand")
    if len(set(hand)) != len(hand):
        raise RecordError(f"hand repeats a card: {shorten(list(hand))}", source=source)
    if len(hand) != sizes[me]:
        raise RecordError(f"{me}'s hand has {len(hand)} cards but {me} holds {sizes[me]}", source=source)
    deal = None
    if data.get("deal") is not None:
        if not isinstance(data["deal"], dict):
            raise RecordError("deal must be a mapping with envelope and hands", source=source)
        d = dict(data["deal"])
        d["edition"] = edition
        d["players"] = list(players)
        try:
            deal = parse_deal(d, "deal", check_sizes=False)
        except ClueError as exc:
            raise RecordError(str(exc), source=source) from None
        wrong = {p: len(h) for p, h in deal.hands.items() if len(h) != sizes[p]}
        if wrong:
            raise RecordError(f"the deal's hands have {wrong} cards but the hand sizes are "
                              f"{ {p: sizes[p] for p in wrong} }", source=source)
        if set(deal.hands[me]) != set(hand):
            raise RecordError(f"the deal gives {me} {_names(edition, deal.hands[me])} but the hand is "
                              f"{_names(edition, hand)}", source=source)

    turns: list = []
    out: set = set()
    finished = None
    raw_turns = data.get("turns") or []
    if not isinstance(raw_turns, list):
        raise RecordError("turns must be a list", source=source)
    if len(raw_turns) > MAX_TURNS:
        raise RecordError(f"{len(raw_turns)} turns, more than the limit of {MAX_TURNS}", source=source)
    for n, raw in enumerate(raw_turns, start=1):
        if not isinstance(raw, dict):
            raise RecordError(f"a turn must be a mapping, got {shorten(raw)}", source=source, turn=n)
        if finished is not None:
            raise RecordError(f"the game ended on turn {finished} with a correct accusation", source=source, turn=n)
        by = player(raw.get("by"), n, "by:")
        if by in out:
            raise RecordError(f"{by} made a wrong accusation earlier and is out of the game", source=source, turn=n)
        if "accuse" in raw:
            extra = set(raw) - {"by", "accuse", "correct", *(("revealed",) if general else ())}
            if extra:
                raise RecordError(f"unknown key(s) {shorten(sorted(map(str, extra)))} in an accusation",
                                  source=source, turn=n)
            cards = _shaped(edition, raw["accuse"], source, n, "accuse", accusation=True)
            correct = raw.get("correct")
            if not isinstance(correct, bool):
                raise RecordError("an accusation needs correct: true or false", source=source, turn=n)
            if deal is not None and correct != (tuple(cards) == deal.envelope):
                raise RecordError(f"correct: {str(correct).lower()} contradicts the deal's envelope", source=source,
                                  turn=n)
            revealed = None
            if general and not correct:
                revealed = _revealed(raw.get("revealed"), by, edition, sizes, me, hand, deal, source, n)
            elif raw.get("revealed") is not None:
                raise RecordError("only a wrong guess lays a hand open (revealed:)", source=source, turn=n)
            turns.append(Accusation(by, cards, correct, revealed))
            if correct:
                finished = n
            else:
                out.add(by)
            continue
        if "suggest" not in raw:
            raise RecordError("a turn needs 'suggest' or 'accuse'", source=source, turn=n)
        if general:
            cards, passed, shown_by, asks = _interrogation(raw, by, players, out, edition, source, n, player)
        else:
            cards, passed, shown_by = _speed_clue_suggestion(raw, by, players, edition, source, n, player)
            asks = None
        card = raw.get("card")
        if card is not None:
            if me not in (by, shown_by):
                raise RecordError(f"card {shorten(card)} is given, but {me} neither made nor disproved this suggestion "
                                  f"and could not see it", source=source, turn=n)
            if shown_by is None:
                raise RecordError("card is given but nobody showed one", source=source, turn=n)
            try:
                card = edition.resolve(str(card))
            except ClueError as exc:
                raise RecordError(f"card: {exc}", source=source, turn=n) from None
            if card not in cards:
                raise RecordError(f"the shown card {edition.display(card)} is not one of the suggested "
                                  f"{_names(edition, cards)}",
                                  source=source, turn=n)
        actual = raw.get("actual")
        if actual is not None:
            if deal is None:
                raise RecordError("'actual' (the card shown to someone else) needs the true deal in the record",
                                  source=source, turn=n)
            try:
                actual = edition.resolve(str(actual))
            except ClueError as exc:
                raise RecordError(f"actual: {exc}", source=source, turn=n) from None
            if shown_by is None or actual not in cards or actual not in deal.hands[shown_by]:
                raise RecordError(f"actual card {edition.display(actual)} was not shown by {shown_by} from "
                                  f"{_names(edition, cards)}",
                                  source=source, turn=n)
        elif card is not None:
            actual = card
        if me in passed and set(cards) & set(hand):
            raise RecordError(f"{me} passed but holds {_names(edition, set(cards) & set(hand))}", source=source, turn=n)
        if shown_by == me:
            mine = set(cards) & set(hand)
            if not mine:
                raise RecordError(f"{me} showed a card but holds none of {_names(edition, cards)}", source=source,
                                  turn=n)
            if card is not None and card not in mine:
                raise RecordError(f"{me} showed {edition.display(card)}, which is not in {me}'s hand", source=source,
                                  turn=n)
        if deal is not None:
            for p in passed:
                if set(cards) & set(deal.hands[p]):
                    raise RecordError(f"{p} passed but the deal gives {p} "
                                      f"{_names(edition, set(cards) & set(deal.hands[p]))}", source=source, turn=n)
            if shown_by is not None and not set(cards) & set(deal.hands[shown_by]):
                raise RecordError(f"{shown_by} showed a card but the deal gives {shown_by} none of them",
                                  source=source, turn=n)
            if card is not None and card not in deal.hands[shown_by]:
                raise RecordError(f"{shown_by} showed {edition.display(card)} but the deal does not give it to {shown_by}",
                                  source=source, turn=n)
        turns.append(Suggestion(by, cards, passed, shown_by, card, actual, asks))
    board, moves = _board_moves(data, game, players, edition, turns, source)
    marks = parse_marks(data.get("marks"), edition, players, source)
    return Record(edition=edition, players=players, me=me, hand=hand, hand_sizes=sizes, turns=turns,
                  deal=deal, source=source, game=game, board=board, moves=moves, marks=marks)


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

    def position(value, what: str, n: int):
        if isinstance(value, str) and value in board.rooms:
            return value
        if (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)
                and tuple(value) in board.hallway):
            return tuple(value)
        raise RecordError(f"move {n}: {what} {shorten(value)} is neither a hallway square [x, y] nor a room of "
                          f"board {board.id}", source=source)
    moves = []
    last_round = 0
    for n, m in enumerate(raw, start=1):
        if not isinstance(m, dict) or set(m) - MOVE_KEYS or not {"round", "by", "pawn", "to"} <= set(m):
            raise RecordError(f"move {n} must be a mapping with round, by, pawn, how, roll, from, to, turn; got "
                              f"{shorten(m)}", source=source)
        rnd, by, pawn, how, roll, turn = (m.get(k) for k in ("round", "by", "pawn", "how", "roll", "turn"))
        if type(rnd) is not int or rnd < last_round:
            raise RecordError(f"move {n}: round {shorten(rnd)} is not a whole number after round {last_round}",
                              source=source)
        last_round = rnd
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
        start = position(m.get("from"), "from", n) if m.get("from") is not None else None
        end = position(m["to"], "to", n)
        if turn is not None:
            if type(turn) is not int or not 1 <= turn <= len(turns):
                raise RecordError(f"move {n}: turn {shorten(turn)} is not a turn of the record (1 to {len(turns)})",
                                  source=source)
            t = turns[turn - 1]
            if not isinstance(t, Suggestion) or t.by != by or end not in t.cards:
                raise RecordError(f"move {n}: turn {turn} is not a suggestion by {by} in {end if isinstance(end, str) else list(end)}",
                                  source=source)
        moves.append(Move(rnd, str(by), str(pawn), roll, start, end, turn, how))
    return data["board"], moves


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
