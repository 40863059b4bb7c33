"""The fact vocabulary.

Every fact the engine knows is an experta :class:`Fact` subclass and has a
*key*: a small tuple that names it uniquely (``("lacked", "bob", "rope")``).
Keys are what justifications point at, what ``why`` explains and what rules
cite as premises.

Observations (what a seat saw):

* :class:`Game` -- the seating, the owners and the hand sizes (turn 0);
* :class:`Dealt` -- the cards in the seat's own hand (turn 0);
* :class:`Passed` -- a player could not disprove a suggestion;
* :class:`Showed` -- a player disproved a suggestion, with the card if seen;
* :class:`Accused` -- an accusation and whether it was right.

Knowledge (derived by rules or by case analysis):

* :class:`Held` / :class:`Lacked` -- an owner (a player or ``envelope``)
  holds / does not hold a card;
* :class:`OneOf` -- an owner holds at least one of some cards;
* :class:`NotAll` -- an owner does not hold all of some cards (a wrong
  accusation: the envelope is not all three);
* :class:`HandSize` -- how many cards an owner holds.
"""
from __future__ import annotations

from typing import Iterable

from ..engine._experta import Fact

#: The owner name of the case file.
ENVELOPE = "envelope"


class Observation(Fact):
    """Base of the observation facts (what a seat saw)."""


class SheetFact(Fact):
    """Base of the derived facts (held, lacked, one-of, not-all)."""


class Game(Observation):
    """The set-up: ``players`` (seat order), ``me`` (whose knowledge)."""


class HandSize(Observation):
    """``owner`` holds exactly ``size`` cards."""


class Dealt(Observation):
    """``owner`` (the seat itself) was dealt ``cards``."""


class Passed(Observation):
    """On ``turn``, ``player`` could not disprove ``by``'s suggestion ``cards``."""


class Showed(Observation):
    """On ``turn``, ``player`` showed ``by`` one of ``cards``; ``card`` is the
    card when the seat saw it, else ``None``."""


class Accused(Observation):
    """On ``turn``, ``by`` accused ``cards``; ``correct`` says whether it was right."""


class Request(Fact):
    """Base of the decision requests a player puts to its own rules."""


class YourTurn(Request):
    """Request: the seat must make a suggestion on ``turn`` (in ``round``)."""


class DisproveRequest(Request):
    """Request: ``by`` suggested ``cards`` on ``turn``; the seat holds
    ``matching`` of them and must show one."""


class AccuseOffer(Request):
    """Request: the seat may accuse after its suggestion on ``turn``."""


class Held(SheetFact):
    """``owner`` holds ``card``."""


class Lacked(SheetFact):
    """``owner`` does not hold ``card``."""


class OneOf(SheetFact):
    """``owner`` holds at least one of ``cards``."""


class NotAll(SheetFact):
    """``owner`` does not hold every one of ``cards``."""


#: Fact kind (as written in rule files) -> (experta class, its fields).
KINDS: dict[str, tuple[type, tuple[str, ...]]] = {
    "game": (Game, ("players", "me")),
    "hand-size": (HandSize, ("owner", "size")),
    "dealt": (Dealt, ("owner", "cards")),
    "passed": (Passed, ("turn", "player", "by", "cards")),
    "showed": (Showed, ("turn", "player", "by", "cards", "card")),
    "accused": (Accused, ("turn", "by", "cards", "correct")),
    "your-turn": (YourTurn, ("turn", "round")),
    "disprove-request": (DisproveRequest, ("turn", "by", "cards", "matching")),
    "accuse-offer": (AccuseOffer, ("turn",)),
    "held": (Held, ("owner", "card")),
    "lacked": (Lacked, ("owner", "card")),
    "one-of": (OneOf, ("owner", "cards")),
    "not-all": (NotAll, ("owner", "cards")),
}

#: Kinds that are observations (leaves of every explanation).
OBSERVATION_KINDS = frozenset({"game", "hand-size", "dealt", "passed", "showed", "accused"})

#: Kinds that ask the seat for a decision (strategies, responses, accusations).
REQUEST_KINDS = frozenset({"your-turn", "disprove-request", "accuse-offer"})

#: Kinds a rule may conclude.
CONCLUSION_KINDS = ("held", "lacked", "one-of", "not-all")

#: Probable clues a model rule may conclude: opponent modelling, kept apart
#: from the sheet (never used by deduction, the SAT backbone or the beliefs).
PROBABLE_KINDS = ("probably-held", "probably-lacked")

#: Decisions a rule may conclude: a candidate suggestion, card to show, accusation.
DECISION_KINDS = ("suggest", "show", "accuse")

Key = tuple


def key_of(kind: str, values: dict) -> Key:
    """The key of a fact of ``kind`` with field ``values``."""
    if kind in ("held", "lacked"):
        return (kind, values["owner"], values["card"])
    if kind in ("one-of", "not-all"):
        return (kind, values["owner"], tuple(sorted(values["cards"])))
    if kind in ("passed",):
        return (kind, values["turn"], values["player"])
    if kind in ("showed", "accused", "your-turn", "disprove-request", "accuse-offer"):
        return (kind, values["turn"])
    if kind in ("hand-size", "dealt"):
        return (kind, values["owner"])
    if kind == "game":
        return ("game",)
    raise KeyError(kind)


def held_key(owner: str, card: str) -> Key:
    """Key of "owner holds card"."""
    return ("held", owner, card)


def lacked_key(owner: str, card: str) -> Key:
    """Key of "owner lacks card"."""
    return ("lacked", owner, card)


def cards_key(kind: str, owner: str, cards: Iterable[str]) -> Key:
    """Key of a one-of / not-all fact."""
    return (kind, owner, tuple(sorted(cards)))


def turn_of(key: Key) -> int | None:
    """The turn an observation key belongs to (0 for the set-up), else None."""
    kind = key[0]
    if kind in ("passed", "showed", "accused"):
        return key[1]
    if kind in ("game", "hand-size", "dealt"):
        return 0
    return None


def _join(cards) -> str:
    return ", ".join(cards)


def describe(key: Key, facts: dict | None = None) -> str:
    """A one-line English rendering of a fact key.  ``facts`` (key -> field
    values) supplies the details of observation facts."""
    kind = key[0]
    if kind == "held":
        return f"{key[1]} holds {key[2]}"
    if kind == "lacked":
        return f"{key[1]} lacks {key[2]}"
    if kind == "one-of":
        return f"{key[1]} holds one of {_join(key[2])}"
    if kind == "not-all":
        return f"{key[1]} does not hold all of {_join(key[2])}"
    if kind == "probably-held":
        return f"{key[1]} probably holds {key[2]}"
    if kind == "probably-lacked":
        return f"{key[1]} probably lacks {key[2]}"
    if kind in ("suggest", "accuse"):
        return f"{kind} " + ", ".join("|".join(opts) for opts in key[1])
    if kind == "show":
        return "show " + "|".join(key[1][0])
    v = (facts or {}).get(key, {})
    if kind == "your-turn":
        return f"turn {key[1]}: my turn to suggest"
    if kind == "disprove-request":
        return f"turn {key[1]}: {v.get('by', '?')} asks me to disprove {_join(v.get('cards', ()))}"
    if kind == "accuse-offer":
        return f"turn {key[1]}: I may accuse"
    if kind == "hand-size":
        return f"{key[1]} holds {v.get('size', '?')} cards"
    if kind == "dealt":
        return f"{key[1]} was dealt {_join(v.get('cards', ()))}"
    if kind == "game":
        return f"players in seat order: {_join(v.get('players', ()))}"
    if kind == "passed":
        return f"turn {key[1]}: {key[2]} could not disprove {v.get('by', '?')}'s {_join(v.get('cards', ()))}"
    if kind == "showed":
        card = v.get("card")
        what = card if card else "a card"
        return (f"turn {key[1]}: {v.get('player', '?')} showed {v.get('by', '?')} {what}"
                f" for {_join(v.get('cards', ()))}")
    if kind == "accused":
        verdict = "right" if v.get("correct") else "wrong"
        return f"turn {key[1]}: {v.get('by', '?')} accused {_join(v.get('cards', ()))} ({verdict})"
    return repr(key)


_HOLD_WORDS = {"holds": "held", "has": "held", "hold": "held", "have": "held", "owns": "held",
               "lacks": "lacked", "lack": "lacked", "doesnt-have": "lacked", "does-not-have": "lacked",
               "doesnt-hold": "lacked", "does-not-hold": "lacked", "not": "lacked"}


def parse_fact(text: str, edition, owners) -> Key:
    """Parse ``"bob lacks rope"``, ``"bob holds rope"``, ``"envelope holds
    kitchen"``, ``"bob holds one of rope, hall, plum"``, ``"rope is in the
    envelope"`` or a probable clue (``"bob probably holds rope"``) into a
    fact key.  Card names go through the edition (aliases,
    near-match errors)."""
    import re

    from .errors import QueryError, UnknownPlayerError

    s = " ".join(str(text).replace("'", "").split()).lower()
    m = re.fullmatch(r"(\S+) probably (holds|has|lacks) (.+)", s)
    if m:
        inner = parse_fact(f"{m.group(1)} {m.group(2)} {m.group(3)}", edition, owners)
        if inner[0] not in ("held", "lacked"):
            raise QueryError(f"cannot read {text!r}: a probable clue names one card")
        return ("probably-" + inner[0],) + inner[1:]
    m = re.fullmatch(r"(.+?) is (not )?in the envelope", s)
    if m:
        card = edition.resolve(m.group(1))
        return (lacked_key if m.group(2) else held_key)(ENVELOPE, card)
    m = re.fullmatch(r"(\S+) (holds|has|owns|lacks|does not have|doesnt have|does not hold|doesnt hold)"
                     r"( (one of|all of|at least one of))? (.+)", s)
    if not m:
        raise QueryError(f"cannot read {text!r}; write e.g. 'bob lacks rope', 'bob holds rope', "
                         f"'envelope holds kitchen' or 'bob holds one of rope, hall, plum'")
    owner, verb, _, quant, rest = m.groups()
    owners_l = {o.lower(): o for o in owners}
    if owner not in owners_l:
        import difflib
        near = difflib.get_close_matches(owner, list(owners_l), n=2)
        raise UnknownPlayerError(f"unknown owner {owner!r}; owners are {', '.join(owners)}"
                                 + (f" (did you mean {near[0]}?)" if near else ""))
    owner = owners_l[owner]
    kind = _HOLD_WORDS[verb.replace(" ", "-")]
    if quant in ("one of", "at least one of"):
        cards = [edition.resolve(c) for c in re.split(r"\s*(?:,|\band\b|\bor\b)\s*", rest) if c.strip()]
        return cards_key("one-of" if kind == "held" else "not-all", owner, cards)
    if quant == "all of":
        if kind == "held":
            raise QueryError(f"{text!r} is several facts; ask about each card ('{owner} holds CARD')")
        cards = [edition.resolve(c) for c in re.split(r"\s*(?:,|\band\b)\s*", rest) if c.strip()]
        return cards_key("not-all", owner, cards)
    card = edition.resolve(re.sub(r"^the ", "", rest))
    return (held_key if kind == "held" else lacked_key)(owner, card)
