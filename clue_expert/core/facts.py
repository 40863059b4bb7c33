"""The fact vocabulary: kinds, keys and their English.

Every fact the engine knows has a *kind* (see :data:`KINDS`) and a *key*: a
small tuple that names it uniquely (``("lacked", "bob", "rope")``).  Keys are
what justifications point at, what ``why`` explains and what rules cite as
premises.  Each shape of key is a record (a :class:`typing.NamedTuple`, see
:data:`KEY_RECORDS`) whose fields are read by name (``key.owner``,
``key.card``); a record is a tuple (equal to, hashing like and printed
like the plain tuple), so a plain tuple, say one read from a file, finds the
same fact, and :func:`as_key` makes the record of one.  This module is plain
data; the engine maps each kind onto a fact class of its rule engine.
"""
from __future__ import annotations

import difflib
import functools
import re
from typing import Any, Callable, Iterable, NamedTuple

from .errors import QueryError, UnknownPlayerError
from .text import looks_alike, visible
from .yamlio import shorten

#: The owner name of the case file.
ENVELOPE = "envelope"

#: The longest player name.
MAX_NAME_LENGTH = 40
#: Words that may not be player names, in any case (``nobody`` marks "no one showed" in records).
RESERVED_NAMES = (ENVELOPE, "nobody")


def player_name_problem(players: Iterable[str]) -> str | None:
    """What is wrong with a list of player names, or None (see :func:`_name_problem`).
    Cached by the names: every knowledge checks its players, and the
    look-alike check costs about 2 ms at ten players (a shadow knowledge of
    an opponent is built at each new fact)."""
    return _name_problem(tuple(str(p) for p in players))


@functools.lru_cache(maxsize=256)
def _name_problem(players: tuple[str, ...]) -> str | None:
    """What is wrong with a list of player names, or None.  The one rule
    (docs/record-format.md): each name is plain — 1 to :data:`MAX_NAME_LENGTH`
    printable characters, no leading, trailing or double spaces —, none is ``envelope`` or
    ``nobody`` in any case, and the names are distinct after case folding
    (``Bob`` and ``bob`` are refused) and in what they look like
    (:func:`clue_expert.core.text.looks_alike`: ``Bob`` and ``Bоb`` with a
    Cyrillic ``о`` are refused, naming the name it collides with)."""
    seen: dict[str, str] = {}
    for name in players:
        name = str(name)
        if not name or len(name) > MAX_NAME_LENGTH:
            return f"a player name must have 1 to {MAX_NAME_LENGTH} characters, got {shorten(name, 60)}"
        if not name.isprintable() or name != name.strip() or "  " in name:
            return (f"a player name may not hold control characters, line breaks, tabs or leading, trailing or "
                    f"double spaces, got {shorten(name, 60)}")
        folded = name.casefold()
        if folded in RESERVED_NAMES:
            return f"{name!r} cannot be a player name (it names {'the envelope' if folded == ENVELOPE else 'no player'})"
        if folded in seen:
            if seen[folded] == name:
                return f"player names must be distinct: {name!r} is repeated"
            return f"player names must differ in more than case: {seen[folded]!r} and {name!r}"
        for other in seen.values():
            if looks_alike(name, other):
                return (f"player names must not look alike: {name!r} looks like {other!r} "
                        f"({visible(ascii(name)[1:-1])} and {visible(ascii(other)[1:-1])})")
        seen[folded] = name
    return None

#: Fact kind (as written in rule files) -> its fields.  The engine gives each
#: kind a fact class of its own (each engine adapter maps it onto its own).
#:
#: Observations (what a seat saw): ``game`` (seating, whose knowledge),
#: ``hand-size``, ``dealt`` (the seat's own cards), ``passed``, ``showed``
#: (with the card when seen), ``accused``, ``revealed`` (a hand shown to all).
#: Requests (a decision is asked for): ``your-turn``, ``disprove-request``,
#: ``accuse-offer``.  Knowledge (derived): ``held`` / ``lacked`` (an owner, a
#: player or the envelope, holds / does not hold a card), ``one-of`` (holds at
#: least one of some cards), ``not-all`` (does not hold every one of them),
#: ``bound`` (holds at least ``low`` and at most ``high`` of some cards: group
#: 1's bounded clue).
KINDS: dict[str, tuple[str, ...]] = {
    "game": ("players", "me"),
    "seat": ("player", "next", "previous"),
    "hand-size": ("owner", "size"),
    "dealt": ("owner", "cards"),
    "passed": ("turn", "player", "by", "cards"),
    "showed": ("turn", "player", "by", "cards", "card"),
    "accused": ("turn", "by", "cards", "correct"),
    "revealed": ("turn", "player", "cards"),
    "your-turn": ("turn", "round"),
    "disprove-request": ("turn", "by", "cards", "matching"),
    "accuse-offer": ("turn",),
    "move-request": ("turn", "round", "roll"),
    "held": ("owner", "card"),
    "lacked": ("owner", "card"),
    "one-of": ("owner", "cards"),
    "not-all": ("owner", "cards"),
    "bound": ("owner", "cards", "low", "high"),
    "owner": ("name", "player"),
    "card": ("id", "category"),
    "category": ("name", "cards", "envelope"),
    "deck": ("size",),
    "held-count": ("owner", "n"),
    "lacked-count": ("owner", "n"),
    "lacker-count": ("card", "n"),
    "envelope-held-count": ("category", "n"),
    "envelope-lacked-count": ("category", "n"),
    "seen": ("by", "card"),
    "seen-count": ("by", "n"),
    "show-card": ("turn", "card"),
    "show-lacked-count": ("turn", "n"),
    "pass-count": ("turn", "n"),
    "reading": ("turn",),
}

#: Set-up facts of the game that hold from its start and never change: every
#: ``owner`` (``player`` false for the envelope), every ``card`` with its
#: category, every ``category`` with its cards and how many of them the
#: envelope holds (``envelope``), the ``deck``'s size (all cards), and each
#: player's ``seat`` (the ``next`` player in seat order, the first asked to
#: disprove his suggestions, and the ``previous`` one; declared only when a
#: loaded rule matches it, so that other rule sets see the same fact numbers
#: as before it existed).  Rules match them in ``match:``; they are never a premise (they hold in every game
#: of the edition and seating).
SETUP_KINDS = frozenset({"owner", "card", "category", "deck", "seat"})

#: Counts the engine keeps up to date (see :data:`clue_expert.engine.language.ir.TALLIES`):
#: known held and lacked cards per owner, owners known to lack each card,
#: envelope cards known held and lacked per category.  A premise that is a
#: count stands for the facts it counted.
TALLY_KINDS = frozenset({"held-count", "lacked-count", "lacker-count", "envelope-held-count",
                         "envelope-lacked-count", "seen-count", "show-lacked-count",
                         "pass-count"})

#: A card shown to the seat, once per card (``seen(by ME, card C)``): the seat
#: declares it while taking in a show it saw (a card shown twice is one
#: ``seen`` fact, so ``seen-count`` counts cards, not shows).  Never a premise:
#: a count of them stands for the holders' ``held`` facts, and a rule matches
#: it only negated.
SEEN_KIND = "seen"

#: Facts the seat declares while it takes in a suggestion, for the counts of
#: :data:`clue_expert.engine.language.ir.TALLIES` that only the knowledge levels read
#: (declared only when a loaded rule matches them): ``show-card(turn T,
#: card C)`` for each card of a show the seat did not see (what
#: ``show-lacked-count`` joins with the shower's lacked facts), and
#: ``reading(turn T)``, held only while the observation of turn T is run (a
#: rule matching it is checked when that observation is read, not when later
#: facts arrive).  Never premises.
SHOW_CARD_KIND = "show-card"
READING_KIND = "reading"
TRANSIENT_KINDS = frozenset({SEEN_KIND, SHOW_CARD_KIND, READING_KIND})

#: Kinds that are observations (leaves of every explanation).
OBSERVATION_KINDS = frozenset({"game", "hand-size", "dealt", "passed", "showed", "accused", "revealed"})

#: Kinds that ask the seat for a decision (strategies, responses, accusations).
REQUEST_KINDS = frozenset({"your-turn", "disprove-request", "accuse-offer", "move-request"})

#: Kinds a rule may conclude.
CONCLUSION_KINDS = ("held", "lacked", "one-of", "not-all", "bound")

#: Probable clues a model rule may conclude: opponent modelling, kept apart
#: from the sheet (never used by deduction, the SAT backbone or the beliefs).
PROBABLE_KINDS = ("probably-held", "probably-lacked")

#: Decisions a rule may conclude: a candidate suggestion, card to show, accusation.
DECISION_KINDS = ("suggest", "ask", "show", "accuse", "move")

#: A fact's key: one of the records below (:data:`KEY_RECORDS`), or a plain
#: tuple of the same values (equal to it and hashing alike), say one read
#: from a file (:func:`as_key` makes the record of it).
Key = tuple

#: A key record whose shape only its kind tells (a :class:`CellKey` for
#: ``held``, a :class:`ClauseKey` for ``one-of``...): typed ``Any``, since a
#: type checker cannot narrow a record by its kind; its fields are read by name.
AnyKey = Any


class CellKey(NamedTuple):
    """A cell of the sheet: ``held`` / ``lacked`` (the owner, a player or the
    envelope, holds / lacks the card) and the probable clues
    ``probably-held`` / ``probably-lacked``."""

    kind: str
    owner: str
    card: str


class ClauseKey(NamedTuple):
    """``one-of`` (the owner holds at least one of the cards) and
    ``not-all`` (he does not hold all of them): the cards sorted."""

    kind: str
    owner: str
    cards: tuple[str, ...]


class BoundKey(NamedTuple):
    """``bound``: the owner holds at least ``low`` and at most ``high`` of
    the cards (sorted, the counts clipped, see :func:`bound_key`)."""

    kind: str
    owner: str
    cards: tuple[str, ...]
    low: int
    high: int


class TurnPlayerKey(NamedTuple):
    """An observation of one player on one turn: ``passed`` (the player
    could not disprove the turn's suggestion), ``revealed`` (he showed
    everyone his whole hand)."""

    kind: str
    turn: int
    player: str


class TurnKey(NamedTuple):
    """What happened once on a turn: ``showed``, ``accused``, the requests
    (``your-turn``, ``disprove-request``, ``accuse-offer``, ``move-request``)
    and ``reading``."""

    kind: str
    turn: int


class OwnerKey(NamedTuple):
    """A set-up observation about one owner: ``hand-size``, ``dealt``."""

    kind: str
    owner: str


class GameKey(NamedTuple):
    """``game``: the seating and whose knowledge it is (one per game)."""

    kind: str


class CardKey(NamedTuple):
    """``seen``: a card shown to the seat (one per card)."""

    kind: str
    card: str


class TurnCardKey(NamedTuple):
    """``show-card``: a card among those of a show the seat did not see."""

    kind: str
    turn: int
    card: str


class NameKey(NamedTuple):
    """A set-up fact (:data:`SETUP_KINDS`) or a count (:data:`TALLY_KINDS`),
    named by its first field (:data:`KINDS`): an owner, a card, a category,
    the deck's size, a player, a turn."""

    kind: str
    name: Any


class DecisionKey(NamedTuple):
    """A decision a rule concludes (:data:`DECISION_KINDS`): its options, one
    tuple of choices per slot (``ask``: the player's options, then the
    cards')."""

    kind: str
    options: tuple


#: Every key record.
KEY_RECORDS: tuple[type, ...] = (CellKey, ClauseKey, BoundKey, TurnPlayerKey, TurnKey, OwnerKey, GameKey, CardKey,
                                 TurnCardKey, NameKey, DecisionKey)

# Each record prints as the plain tuple (``tuple.__repr__``, not
# ``CellKey(kind=...)``): digests, messages and sorts by repr stay what they
# were before keys were records.  (Set here: a NamedTuple's body may only
# declare fields and methods, and a method would add a Python call.)
for _record in KEY_RECORDS:
    _record.__repr__ = tuple.__repr__  # type: ignore[assignment,method-assign]
del _record

#: Kind -> the record of its keys.
KEY_RECORD: dict[str, type] = {
    **{kind: CellKey for kind in ("held", "lacked", *PROBABLE_KINDS)},
    **{kind: ClauseKey for kind in ("one-of", "not-all")},
    "bound": BoundKey,
    **{kind: TurnPlayerKey for kind in ("passed", "revealed")},
    **{kind: TurnKey for kind in ("showed", "accused", *sorted(REQUEST_KINDS), READING_KIND)},
    **{kind: OwnerKey for kind in ("hand-size", "dealt")},
    "game": GameKey,
    SEEN_KIND: CardKey,
    SHOW_CARD_KIND: TurnCardKey,
    **{kind: NameKey for kind in sorted(SETUP_KINDS | TALLY_KINDS)},
    **{kind: DecisionKey for kind in DECISION_KINDS},
}

_new = tuple.__new__  # a record made without its __new__'s Python frame (keys are made a few thousand times a game)
#: The record classes, to tell a record from a plain tuple (``type(key) in KEY_TYPES``).
KEY_TYPES = frozenset(KEY_RECORDS)


def _deep_tuple(v: Any) -> Any:
    return tuple(_deep_tuple(x) for x in v) if isinstance(v, list) else v


def as_key(key: Iterable) -> AnyKey:
    """The record of a key given as a plain tuple or list (say read from
    JSON or YAML, lists inside it become tuples); a record is returned as
    is.  A key of a kind without a record, or of the wrong length for its
    kind's record, stays a plain tuple (it names no fact)."""
    if type(key) in KEY_TYPES:
        return key
    t = tuple(_deep_tuple(x) for x in key)
    record = KEY_RECORD.get(t[0]) if t and isinstance(t[0], str) else None
    if record is None:
        return t
    if len(t) != len(record._fields):  # type: ignore[attr-defined]
        return t
    return _new(record, t)


def english_list(items: Iterable, conjunction: str = "and") -> str:
    """Items as an English list: ``rope``, ``rope and hall``, ``rope, hall
    and plum`` (``or`` with ``conjunction="or"``); empty: ``nothing``."""
    words = [str(i) for i in items]
    if not words:
        return "nothing"
    if len(words) == 1:
        return words[0]
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


def key_of(kind: str, values: dict) -> AnyKey:
    """The key of a fact of ``kind`` with field ``values`` (its record, see :data:`KEY_RECORD`)."""
    if kind in ("held", "lacked"):
        return _new(CellKey, (kind, values["owner"], values["card"]))
    if kind in ("one-of", "not-all"):
        return _new(ClauseKey, (kind, values["owner"], tuple(sorted(values["cards"]))))
    if kind == "bound":
        return bound_key(values["owner"], values["cards"], values["low"], values["high"])
    if kind in ("passed",):
        return _new(TurnPlayerKey, (kind, values["turn"], values["player"]))
    if kind in ("showed", "accused", "your-turn", "disprove-request", "accuse-offer", "move-request"):
        return _new(TurnKey, (kind, values["turn"]))
    if kind in ("hand-size", "dealt"):
        return _new(OwnerKey, (kind, values["owner"]))
    if kind == "revealed":
        return _new(TurnPlayerKey, (kind, values["turn"], values["player"]))
    if kind == "game":
        return GAME_KEY
    if kind == SEEN_KIND:
        return _new(CardKey, (kind, values["card"]))
    if kind == SHOW_CARD_KIND:
        return _new(TurnCardKey, (kind, values["turn"], values["card"]))
    if kind == READING_KIND:
        return _new(TurnKey, (kind, values["turn"]))
    if kind in SETUP_KINDS or kind in TALLY_KINDS:
        return _new(NameKey, (kind, values[KINDS[kind][0]]))
    raise KeyError(kind)


#: The key of the ``game`` fact.
GAME_KEY = GameKey("game")


def held_key(owner: str, card: str) -> CellKey:
    """Key of "owner holds card"."""
    return _new(CellKey, ("held", owner, card))


def lacked_key(owner: str, card: str) -> CellKey:
    """Key of "owner lacks card"."""
    return _new(CellKey, ("lacked", owner, card))


def cell_key(kind: str, owner: str, card: str) -> CellKey:
    """Key of a cell fact of ``kind`` (``held``, ``lacked``, ``probably-held``, ``probably-lacked``)."""
    return _new(CellKey, (kind, owner, card))


def cards_key(kind: str, owner: str, cards: Iterable[str]) -> ClauseKey:
    """Key of a one-of / not-all fact."""
    return _new(ClauseKey, (kind, owner, tuple(sorted(cards))))


def bound_key(owner: str, cards: Iterable[str], low: int, high: int) -> BoundKey:
    """Key of "owner holds at least ``low`` and at most ``high`` of cards",
    the counts clipped to what the list allows (``low`` at least 0, ``high``
    at most the number of cards), so that one statement has one key.  After
    clipping, ``low > high`` means the bound cannot be met."""
    cards = tuple(sorted(set(cards)))
    return _new(BoundKey, ("bound", owner, cards, max(int(low), 0), min(int(high), len(cards))))


def turn_player_key(kind: str, turn: int, player: str) -> TurnPlayerKey:
    """Key of a ``passed`` / ``revealed`` observation."""
    return _new(TurnPlayerKey, (kind, turn, player))


def turn_key(kind: str, turn: int) -> TurnKey:
    """Key of a ``showed`` / ``accused`` observation, a request or ``reading``."""
    return _new(TurnKey, (kind, turn))


def owner_key(kind: str, owner: str) -> OwnerKey:
    """Key of a ``hand-size`` / ``dealt`` observation."""
    return _new(OwnerKey, (kind, owner))


def name_key(kind: str, name: Any) -> NameKey:
    """Key of a set-up fact or a count, named by its first field."""
    return _new(NameKey, (kind, name))


def decision_key(kind: str, options: tuple) -> DecisionKey:
    """Key of a decision (``suggest``, ``ask``, ``show``, ``accuse``, ``move``) with its options."""
    return _new(DecisionKey, (kind, options))


def bound_text(owner: str, cards: Iterable[str], low: int, high: int) -> str:
    """The English of a bound: ``bob holds exactly 2 of c3, c7, c9``, ``bob
    holds at least 1 and at most 2 of ...``, ``at least 2 of`` (up to all of
    them), ``at most 1 of`` (possibly none)."""
    cards = list(cards)
    if low == high:
        count = f"exactly {low}"
    elif low == 0:
        count = f"at most {high}"
    elif high == len(cards):
        count = f"at least {low}"
    else:
        count = f"at least {low} and at most {high}"
    return f"{owner} holds {count} of {_join(cards)}"


def turn_of(key: Key) -> int | None:
    """The turn an observation key belongs to (0 for the set-up), else None."""
    kind = key[0]  # read by place: any key, a record or a plain tuple
    if kind in ("passed", "showed", "accused", "revealed"):
        return key[1]  # the turn of a TurnPlayerKey or TurnKey
    if kind in ("game", "hand-size", "dealt"):
        return 0
    return None


def _join(cards) -> str:
    return ", ".join(cards)


def describe(key: AnyKey, facts: dict | None = None) -> str:
    """A one-line English rendering of a fact key.  ``facts`` (key -> field
    values) supplies the details of observation facts; a plain tuple is
    read as its record (:func:`as_key`)."""
    if type(key) not in KEY_TYPES:
        key = as_key(key)
        if type(key) not in KEY_TYPES:
            return repr(key)
    kind = key.kind
    english = _KEY_ENGLISH.get(kind)
    if english is not None:
        return english(key)
    v = (facts or {}).get(key, {})
    english_with = _FACT_ENGLISH.get(kind)
    if english_with is not None:
        return english_with(key, v)
    if kind in SETUP_KINDS or kind in TALLY_KINDS:
        return _setup_text(kind, key.name, v)
    return repr(key)


def _showed_text(key: TurnKey, v: dict) -> str:
    card = v.get("card")
    what = card if card else "a card"
    return f"turn {key.turn}: {v.get('player', '?')} showed {v.get('by', '?')} {what} for {_join(v.get('cards', ()))}"


def _accused_text(key: TurnKey, v: dict) -> str:
    verdict = "right" if v.get("correct") else "wrong"
    return f"turn {key.turn}: {v.get('by', '?')} accused {_join(v.get('cards', ()))} ({verdict})"


#: English of the kinds whose key says it all: kind -> key -> text.
_KEY_ENGLISH: dict[str, Callable[[Any], str]] = {
    "held": lambda key: f"{key.owner} holds {key.card}",
    "lacked": lambda key: f"{key.owner} lacks {key.card}",
    "one-of": lambda key: f"{key.owner} holds one of {_join(key.cards)}",
    "not-all": lambda key: f"{key.owner} does not hold all of {_join(key.cards)}",
    "bound": lambda key: bound_text(key.owner, key.cards, key.low, key.high),
    "probably-held": lambda key: f"{key.owner} probably holds {key.card}",
    "probably-lacked": lambda key: f"{key.owner} probably lacks {key.card}",
    "suggest": lambda key: "suggest " + ", ".join("|".join(opts) for opts in key.options),
    "accuse": lambda key: "accuse " + ", ".join("|".join(opts) for opts in key.options),
    "show": lambda key: "show " + "|".join(key.options[0]),
    "move": lambda key: "move to " + "|".join(p if isinstance(p, str) else f"{p[0]},{p[1]}"
                                              for p in key.options[0]),
    "ask": lambda key: f"ask {'|'.join(key.options[0])} about {_join(key.options[1][0])}",
}

#: English of the observation kinds, which read the fact's fields: kind -> (key, fields) -> text.
_FACT_ENGLISH: dict[str, Callable[[Any, dict], str]] = {
    "your-turn": lambda key, v: f"turn {key.turn}: my turn to suggest",
    "disprove-request": lambda key, v: f"turn {key.turn}: {v.get('by', '?')} asks me to disprove "
                                       f"{_join(v.get('cards', ()))}",
    "accuse-offer": lambda key, v: f"turn {key.turn}: I may accuse",
    "move-request": lambda key, v: f"turn {key.turn}: my move (roll {v.get('roll', '?')})",
    "hand-size": lambda key, v: f"{key.owner} holds {v.get('size', '?')} cards",
    "dealt": lambda key, v: f"{key.owner} was dealt {_join(v.get('cards', ()))}",
    "game": lambda key, v: f"players in seat order: {_join(v.get('players', ()))}",
    "passed": lambda key, v: f"turn {key.turn}: {key.player} could not disprove {v.get('by', '?')}'s "
                             f"{_join(v.get('cards', ()))}",
    "showed": _showed_text,
    "revealed": lambda key, v: f"turn {key.turn}: {key.player} showed everyone the whole hand "
                               f"{_join(v.get('cards', ()))}",
    "accused": _accused_text,
    SEEN_KIND: lambda key, v: f"{v.get('by', 'I')} saw {key.card}",
    SHOW_CARD_KIND: lambda key, v: f"turn {key.turn}: {key.card} was among the cards shown",
    READING_KIND: lambda key, v: f"turn {key.turn} is being read",
}


def _setup_text(kind: str, name: str, v: dict) -> str:
    """The English of a set-up fact or a count (``v``: its field values, when known)."""
    n = v.get("n", "?")
    return {"owner": f"{name} is {'a player' if v.get('player', True) else 'the envelope'}",
            "card": f"{name} is a {v.get('category', 'card')}",
            "category": f"the {name} cards are {_join(v.get('cards', ()))}",
            "deck": f"the deck has {name} cards",
            "seat": f"{v.get('next', '?')} sits after {name}",
            "held-count": f"{name} holds {n} known cards",
            "lacked-count": f"{name} lacks {n} known cards",
            "lacker-count": f"{n} owners are known to lack {name}",
            "envelope-held-count": f"the envelope holds {n} known {name} cards",
            "envelope-lacked-count": f"the envelope lacks {n} known {name} cards",
            "seen-count": f"{name} has seen {n} cards",
            "show-lacked-count": f"turn {name}'s shower lacks {n} of the cards shown",
            "pass-count": f"{n} players passed on turn {name}"}[kind]


_HOLD_WORDS = {"holds": "held", "has": "held", "hold": "held", "have": "held", "owns": "held",
               "lacks": "lacked", "lack": "lacked", "doesnt-have": "lacked", "does-not-have": "lacked",
               "doesnt-hold": "lacked", "does-not-hold": "lacked", "not": "lacked"}


def find_owner(name: str, owners) -> str:
    """The owner called ``name``: an exact match, else the one owner whose
    name matches it ignoring case (an :class:`UnknownPlayerError` when none
    or several do)."""
    owners = [str(o) for o in owners]
    if name in owners:
        return name
    folded = [o for o in owners if o.casefold() == name.casefold()]
    if len(folded) == 1:
        return folded[0]
    if folded:
        raise UnknownPlayerError(f"owner {shorten(name, 60)} matches {', '.join(folded)} ignoring case; "
                                 f"write the name exactly")
    near = difflib.get_close_matches(name.casefold(), [o.casefold() for o in owners], n=1)
    hint = next((o for o in owners if near and o.casefold() == near[0]), None)
    raise UnknownPlayerError(f"unknown owner {shorten(name, 60)}; owners are {', '.join(owners)}"
                             + (f" (did you mean {hint}?)" if hint else ""))


def parse_fact(text: str, edition, owners) -> AnyKey:
    """Parse ``"bob lacks rope"``, ``"bob holds rope"``, ``"envelope holds
    kitchen"``, ``"bob holds one of rope, hall, plum"``, a bound with digits
    (``"bob holds at least 1 and at most 2 of c3, c7, c9"``, ``"bob holds
    exactly 2 of ..."``, ``"at least 2 of"``, ``"at most 1 of"``), ``"rope is
    in the envelope"`` or a probable clue (``"bob probably holds rope"``) into
    a fact key.  Owners match exactly, or ignoring case when only one owner
    matches so (see :func:`find_owner`); card names go through the edition
    (aliases, near-match errors)."""
    s = " ".join(str(text).replace("'", "").split())
    m = re.fullmatch(r"(.+?) probably (holds|has|lacks) (.+)", s, re.I)
    if m:
        inner: AnyKey = parse_fact(f"{m.group(1)} {m.group(2)} {m.group(3)}", edition, owners)
        if inner.kind not in ("held", "lacked"):
            raise QueryError(f"cannot read {shorten(text)}: a probable clue names one card")
        return cell_key("probably-" + inner.kind, inner.owner, inner.card)
    m = re.fullmatch(r"(.+?) (?:holds|has|owns) (?:(exactly) (\d+)|at least (\d+) and at most (\d+)|at least (\d+)"
                     r"|at most (\d+)) of (.+)", s, re.I)
    if m:
        exactly, n, low, high, least, most, rest = m.groups()[1:]
        cards = [edition.resolve(c) for c in re.split(r"\s*(?:,|\band\b|\bor\b)\s*", rest, flags=re.I) if c.strip()]
        if not cards:
            raise QueryError(f"cannot read {shorten(text)}: a bound names at least one card")
        if exactly:
            low = high = n
        elif least is not None:
            low, high = least, len(cards)
        elif most is not None:
            low, high = 0, most
        return bound_key(find_owner(m.group(1), owners), cards, int(low), int(high))
    m = re.fullmatch(r"(.+?) is (not )?in the envelope", s, re.I)
    if m:
        card = edition.resolve(m.group(1))
        return (lacked_key if m.group(2) else held_key)(ENVELOPE, card)
    m = re.fullmatch(r"(.+?) (holds|has|owns|lacks|does not have|doesnt have|does not hold|doesnt hold)"
                     r"( (one of|all of|at least one of))? (.+)", s, re.I)
    if not m:
        raise QueryError(f"cannot read {shorten(text)}; write e.g. 'bob lacks rope', 'bob holds rope', "
                         f"'envelope holds kitchen' or 'bob holds one of rope, hall, plum'")
    owner, verb, _, quant, rest = m.groups()
    owner = find_owner(owner, owners)
    verb = verb.lower()
    quant = quant.lower() if quant else None
    kind = _HOLD_WORDS[verb.replace(" ", "-")]
    if quant in ("one of", "at least one of"):
        cards = [edition.resolve(c) for c in re.split(r"\s*(?:,|\band\b|\bor\b)\s*", rest, flags=re.I) if c.strip()]
        return cards_key("one-of" if kind == "held" else "not-all", owner, cards)
    if quant == "all of":
        if kind == "held":
            raise QueryError(f"{shorten(text)} is several facts; ask about each card ('{owner} holds CARD')")
        cards = [edition.resolve(c) for c in re.split(r"\s*(?:,|\band\b)\s*", rest, flags=re.I) if c.strip()]
        return cards_key("not-all", owner, cards)
    card = edition.resolve(re.sub(r"^the ", "", rest, flags=re.I))
    return (held_key if kind == "held" else lacked_key)(owner, card)
