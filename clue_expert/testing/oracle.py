"""Independent oracles of what a record entails, for tests and benchmarks.

Both work from the :class:`~clue_expert.core.records.Record` alone, for any
edition (its categories and envelope counts), and share no code with the
knowledge engine:

* :func:`brute_force_entailed` enumerates every deal (small decks only) and
  keeps those consistent with the seat's observations;
* :func:`cnf_entailed` encodes the record as plain CNF with sequential-counter
  cardinality constraints (``pysat.card``) and asks Glucose, cell by cell.

Each returns ``{(owner, card): "held" | "lacked"}`` for every entailed cell.
Both take optional extra *bounds* -- group 1's bounded clues, which no record
holds (they come from given facts and rules): each ``(owner, cards, low,
high)``, "owner holds at least low and at most high of cards" (a fact key
``("bound", owner, cards, low, high)`` is accepted too).
:func:`weighted_deals` gives the consistent deals with their weights under
the beliefs' model (the oracle of exact probabilities).  :func:`cnf_follows`
(:func:`premises_follow` on a game already encoded) asks whether some facts
and observations entail a fact, the oracle of explanations and proofs.
"""
from __future__ import annotations

import itertools
from typing import Iterable, Iterator

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Glucose3

from ..core.facts import as_key
from ..core.observations import Accusation
from ..core.records import Record

ENVELOPE = "envelope"


def envelopes(ed) -> Iterator[tuple]:
    """Every possible envelope of an edition: its count of cards from each
    category (one each in the classic game), in sheet order."""
    per_category = [itertools.combinations(ed.category_cards(cat), ed.envelope_counts[cat]) for cat in ed.categories]
    for parts in itertools.product(*per_category):
        yield tuple(c for part in parts for c in part)


def deals(record: Record) -> Iterator[dict]:
    """Every deal (card -> owner) of the record's game under its hand sizes."""
    ed = record.edition
    players = record.players
    for env in envelopes(ed):
        rest = [c for c in ed.card_ids if c not in env]
        sizes = [record.hand_sizes[p] for p in players]

        def assign(i, remaining, sizes=sizes):
            if i == len(players):
                yield {}
                return
            for hand in itertools.combinations(remaining, sizes[i]):
                left = [c for c in remaining if c not in hand]
                for tail in assign(i + 1, left, sizes):
                    tail[players[i]] = set(hand)
                    yield tail
        for hands in assign(0, rest):
            owner = {c: p for p, h in hands.items() for c in h}
            owner.update({c: ENVELOPE for c in env})
            yield owner


def _bounds(bounds: Iterable) -> list[tuple]:
    """Extra bounds as (owner, cards, low, high), from either form."""
    out = []
    for b in bounds or ():
        b = tuple(b)
        if len(b) == 5 and b[0] == "bound":
            b = b[1:]
        owner, cards, low, high = b
        out.append((owner, tuple(dict.fromkeys(cards)), int(low), int(high)))
    return out


def consistent(record: Record, owner: dict, upto: int | None = None, bounds: Iterable = ()) -> bool:
    """Whether a deal (card -> owner) agrees with the record's observations
    (and with the extra ``bounds``)."""
    if any(owner[c] != record.me for c in record.hand):
        return False
    for who, cards, low, high in _bounds(bounds):
        n = sum(1 for c in cards if owner[c] == who)
        if not low <= n <= high:
            return False
    for n, t in enumerate(record.turns, start=1):
        if upto is not None and n > upto:
            break
        if isinstance(t, Accusation):
            right = all(owner[c] == ENVELOPE for c in t.cards)
            if right != t.correct:
                return False
            if t.revealed is not None and any(owner[c] != t.by for c in t.revealed):
                return False
            continue
        if any(owner[c] == p for p in t.passed for c in t.cards):
            return False
        if t.shown_by is not None:
            if t.card is not None and owner[t.card] != t.shown_by:
                return False
            if not any(owner[c] == t.shown_by for c in t.cards):
                return False
    return True


_deals = deals  # the old name


def weighted_deals(record: Record, upto: int | None = None) -> Iterator[tuple]:
    """(deal, weight) for every deal consistent with the record up to turn
    ``upto``, weighted as the beliefs model them: uniform deals, and a
    shower choosing uniformly among his matching cards, so each show the
    seat saw weighs 1 / (the suggested cards the shower holds)."""
    for deal in deals(record):
        if not consistent(record, deal, upto):
            continue
        w = 1.0
        for n, t in enumerate(record.turns, start=1):
            if upto is not None and n > upto:
                break
            if not isinstance(t, Accusation) and t.card is not None and t.by == record.me:
                w /= sum(1 for c in t.cards if deal[c] == t.shown_by)
        yield deal, w


def brute_force_entailed(record: Record, upto: int | None = None, bounds: Iterable = ()) -> dict | None:
    """Entailed cells by enumeration (None when no deal is consistent)."""
    bounds = _bounds(bounds)
    owners = list(record.players) + [ENVELOPE]
    seen: dict = {}
    any_deal = False
    for deal in deals(record):
        if not consistent(record, deal, upto, bounds):
            continue
        any_deal = True
        for c, o in deal.items():
            for x in owners:
                seen.setdefault((x, c), set()).add(o == x)
    if not any_deal:
        return None
    return {cell: ("held" if vals == {True} else "lacked") for cell, vals in seen.items() if len(vals) == 1}


def deal_clauses(edition, players, hand_sizes: dict) -> tuple:
    """The game's constraints as CNF (each card has one owner, the hand
    sizes, the envelope's count of each category): ``(pool, x, clauses)``,
    ``x[(owner, card)]`` the variable "owner holds card"."""
    owners = list(players) + [ENVELOPE]
    pool = IDPool()
    x = {(o, c): pool.id(("x", o, c)) for o in owners for c in edition.card_ids}
    clauses: list = []

    def exactly(lits, k):
        clauses.extend(CardEnc.equals(lits=lits, bound=k, vpool=pool, encoding=EncType.seqcounter).clauses)

    for c in edition.card_ids:
        exactly([x[(o, c)] for o in owners], 1)
    for p in players:
        exactly([x[(p, c)] for c in edition.card_ids], hand_sizes[p])
    for cat in edition.categories:
        exactly([x[(ENVELOPE, c)] for c in edition.category_cards(cat)], edition.envelope_counts[cat])
    return pool, x, clauses


def _bound_clauses(pool, lits: list, low: int, high: int) -> list | None:
    """"At least ``low`` and at most ``high`` of ``lits``" as sequential-counter
    clauses (None when no assignment can meet it)."""
    if low > len(lits) or high < 0 or low > high:
        return None
    out: list = []
    if low > 0:
        out += CardEnc.atleast(lits=lits, bound=low, vpool=pool, encoding=EncType.seqcounter).clauses
    if high < len(lits):
        out += CardEnc.atmost(lits=lits, bound=high, vpool=pool, encoding=EncType.seqcounter).clauses
    return out


def cnf_entailed(record: Record, upto: int | None = None, bounds: Iterable = ()) -> dict | None:
    """Entailed cells by CNF + Glucose (None when unsatisfiable), the extra
    ``bounds`` as sequential-counter at-least / at-most constraints."""
    pool, x, clauses = deal_clauses(record.edition, record.players, record.hand_sizes)
    for c in record.hand:
        clauses.append([x[(record.me, c)]])
    for who, cards, low, high in _bounds(bounds):
        bound = _bound_clauses(pool, [x[(who, c)] for c in cards], low, high)
        if bound is None:
            f = pool.id(("unmet", who, cards, low, high))
            bound = [[f], [-f]]  # nothing can meet it
        clauses.extend(bound)
    for n, t in enumerate(record.turns, start=1):
        if upto is not None and n > upto:
            break
        if isinstance(t, Accusation):
            if t.correct:
                clauses.extend([[x[(ENVELOPE, c)]] for c in t.cards])
            else:
                clauses.append([-x[(ENVELOPE, c)] for c in t.cards])
            if t.revealed is not None:  # the generalized game: the wrong guesser's hand laid open
                clauses.extend([[x[(t.by, c)]] for c in t.revealed])
            continue
        for p in t.passed:
            clauses.extend([[-x[(p, c)]] for c in t.cards])
        if t.shown_by is not None:
            if t.card is not None:
                clauses.append([x[(t.shown_by, t.card)]])
            clauses.append([x[(t.shown_by, c)] for c in t.cards])
    out: dict = {}
    with Glucose3(bootstrap_with=clauses) as s:
        if not s.solve():
            return None
        for (o, c), v in x.items():
            if not s.solve(assumptions=[-v]):
                out[(o, c)] = "held"
            elif not s.solve(assumptions=[v]):
                out[(o, c)] = "lacked"
    return out


def premise_clauses(key, values: dict, pool, x: dict) -> list | None:
    """The clauses of one premise, its own meaning and nothing derived
    (``values``: the observations' fields by key, as
    :attr:`Knowledge.values`), or None when no deal meets it (a bound
    nothing satisfies); ``pool`` and ``x`` as :func:`deal_clauses` gives them.
    A plain tuple is read as its record (:func:`~clue_expert.core.facts.as_key`)."""
    key = as_key(key)
    kind = key.kind
    v = values.get(key, {})
    if kind == "held":
        return [[x[(key.owner, key.card)]]]
    if kind == "lacked":
        return [[-x[(key.owner, key.card)]]]
    if kind == "one-of":
        return [[x[(key.owner, c)] for c in key.cards]]
    if kind == "not-all":
        return [[-x[(key.owner, c)] for c in key.cards]]
    if kind == "bound":
        return _bound_clauses(pool, [x[(key.owner, c)] for c in key.cards], key.low, key.high)
    if kind in ("dealt", "revealed"):
        who = v["owner"] if kind == "dealt" else v["player"]
        return [[x[(who, c)]] for c in v["cards"]]
    if kind == "passed":
        return [[-x[(v["player"], c)]] for c in v["cards"]]
    if kind == "showed":
        shown = [[x[(v["player"], v["card"])]]] if v.get("card") is not None else []
        return shown + [[x[(v["player"], c)] for c in v["cards"]]]
    if kind == "accused":
        if v["correct"]:
            return [[x[(ENVELOPE, c)]] for c in v["cards"]]
        return [[-x[(ENVELOPE, c)] for c in v["cards"]]]
    if kind in ("game", "hand-size"):
        return []
    raise ValueError(f"cannot encode {key!r}")


def negated_goal(key, x: dict) -> list:
    """The clauses saying that the goal fact ``key`` (held, lacked, one-of or
    not-all) does not hold (a plain tuple is read as its record)."""
    key = as_key(key)
    kind = key.kind
    if kind == "held":
        return [[-x[(key.owner, key.card)]]]
    if kind == "lacked":
        return [[x[(key.owner, key.card)]]]
    if kind == "one-of":
        return [[-x[(key.owner, c)]] for c in key.cards]
    if kind == "not-all":
        return [[x[(key.owner, c)]] for c in key.cards]
    raise ValueError(f"cannot negate {key!r}")


def cnf_follows(edition, players, hand_sizes: dict, premises, goal, values: dict | None = None) -> bool:
    """Whether the game's constraints (each card has one owner, the hand
    sizes, the envelope's count of each category) and ``premises`` entail
    ``goal``, by CNF + Glucose, with no code of the engine's.

    ``premises`` are fact keys: ``("held", owner, card)``, ``("lacked", …)``,
    ``("one-of", owner, cards)``, ``("not-all", owner, cards)``,
    ``("bound", owner, cards, low, high)``, and observation keys whose fields
    ``values`` gives (``dealt``, ``passed``, ``showed``, ``accused``,
    ``revealed``; ``game`` and ``hand-size`` add nothing).  ``goal`` is a
    list of held / lacked / one-of / not-all keys read as a disjunction (one
    of them holds); an empty ``goal`` asks whether the premises cannot all
    hold together."""
    return premises_follow(deal_clauses(edition, players, hand_sizes), premises, goal, values)


def premises_follow(deal: tuple, premises, goal, values: dict | None = None) -> bool:
    """:func:`cnf_follows` on the game's constraints encoded once: ``deal``
    is :func:`deal_clauses`' ``(pool, x, clauses)`` (its clauses left as
    they are), for many questions about one game."""
    pool, x, base = deal
    clauses = list(base)
    values = values or {}
    for key in premises:
        encoded = premise_clauses(key, values, pool, x)
        if encoded is None:
            return True  # nothing meets it: the premises are contradictory, so entail anything
        clauses.extend(encoded)
    for key in goal:
        clauses.extend(negated_goal(key, x))
    with Glucose3(bootstrap_with=clauses) as s:
        return not s.solve()
