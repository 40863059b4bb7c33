"""The fact store of a seat's knowledge, and the view that records what a rule reads.

:class:`Seating` is the frame of the game (the edition, the players and
owners, the cards, sheet order, the seat).  :class:`FactStore` owns what is
known on the sheet: held / lacked cells (by owner and by card), one-of and
not-all clauses, bounds, what this seat saw and showed; it takes a snapshot of
them and restores one (:class:`StoreSnapshot`), and answers the queries over
them (``status``, ``held_by``, ``lacked_by``, ``holders``, clauses,
counts...), reading nothing else.  A new fact goes in through
:meth:`FactStore.declare_known`, which refuses a fact clashing with a known
one and hands the fact on to the justification log, the completion step's SAT
model and the rule engine.

:class:`ReadingView` is what a rule's expressions see as the knowledge: the
same queries, each recorded while a rule without ``because:`` fires as a read
token, from which that firing's premises are later worked out (see
:mod:`.justify`); anything else it asks goes to the knowledge.
"""
from __future__ import annotations

import weakref
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Sequence

from ...core.cards import Edition
from ...core.errors import ContradictionError
from ...core.facts import (ENVELOPE, KEY_TYPES, KINDS, AnyKey, BoundKey, CellKey, ClauseKey, Key, as_key, bound_key,
                           cards_key, cell_key, describe, held_key, lacked_key, owner_key, turn_key, turn_player_key)
from ...core.observations import Observation
from ..engines import EngineFact, RuleEngine
from .justify import HELD, LACKED, UNKNOWN, Explanations, Justification, JustificationLog, ReadToken
from .ledger import SatLedger


@dataclass
class Sheet:
    """A detective sheet: every card against every owner."""

    owners: list[str]
    """Players in seat order, then ``envelope``."""
    cards: list[str]
    """Card ids in sheet order."""
    cells: dict[str, dict[str, str]]
    """owner -> card -> ``held`` / ``lacked`` / ``unknown``."""
    categories: dict[str, str]
    """card -> category."""
    me: str | None = None
    """Whose sheet."""
    turn: int | None = None
    """The last turn included."""
    envelope: dict[str, str | None] = field(default_factory=dict)
    """category -> the envelope's card, where known."""

    def to_json(self) -> dict:
        """The JSON object of ``deduce --json``."""
        return {"owners": list(self.owners), "cards": list(self.cards),
                "cells": {o: dict(c) for o, c in self.cells.items()},
                "envelope": dict(self.envelope), "me": self.me, "turn": self.turn}

    def changes_from(self, before: "Sheet") -> list:
        """The cells that differ from ``before``: (owner, card, before, after)."""
        return [(o, c, before.cells[o][c], self.cells[o][c]) for o in self.owners for c in self.cards
                if before.cells[o][c] != self.cells[o][c]]


def engine_fact(kind: str, values: dict) -> EngineFact:
    """The engine fact of a fact of ``kind`` with these field values (in the kind's field order)."""
    return EngineFact(kind, tuple((f, values[f]) for f in KINDS[kind]))


class Observed(NamedTuple):
    """One observation the seat took in (see ``Knowledge.observe``)."""

    turn: int
    """The turn it was made on (0: the deal)."""
    observation: Observation
    """What was seen."""


class Memo:
    """Values built once while the knowledge stands still (see ``Knowledge.memo``)."""

    __slots__ = ("stamp", "values")

    def __init__(self) -> None:
        #: What the knowledge was when the values were built (a count of its facts...).
        self.stamp: tuple = ()
        #: key -> the value built.
        self.values: dict = {}

    def get(self, stamp: tuple, key: Any, build: Callable[[], Any]) -> Any:
        """The value built for ``key`` since the knowledge was last ``stamp``, else ``build()`` (kept)."""
        if self.stamp != stamp:
            self.stamp, self.values = stamp, {}
        values = self.values
        if key not in values:
            values[key] = build()
        return values[key]


class Seating:
    """The frame of one seat's game: the edition, the players and owners,
    the cards and categories, sheet order, the hand sizes and the seat
    (``me``, changed by a new game: :meth:`seat`).  Read by every part."""

    def __init__(self, edition: Edition, players: tuple[str, ...], me: str | None, hand_sizes: dict[str, int]):
        #: The card list.
        self.edition = edition
        #: Players in seat order.
        self.players = players
        #: Players then the envelope.
        self.owners: tuple[str, ...] = players + (ENVELOPE,)
        #: The seat whose knowledge this is (None for a spectator).
        self.me = me
        #: owner -> number of cards held (changed in place by a new game).
        self.hand_sizes = hand_sizes
        #: Card ids in sheet order.
        self.cards: tuple[str, ...] = edition.card_ids
        #: Every card id.
        self.all_cards = frozenset(self.cards)
        #: Every owner.
        self.owner_set = frozenset(self.owners)
        #: card -> category.
        self.category: dict[str, str] = {c.id: c.category for c in edition.cards}
        #: card -> the place of its category in the edition's list (its slot in a suggestion).
        self.slot: dict[str, int] = {c.id: edition.categories.index(c.category) for c in edition.cards}
        #: category -> its cards.
        self.category_cards: dict[str, frozenset] = {cat: frozenset(edition.category_cards(cat))
                                                     for cat in edition.categories}
        #: Sheet order: cards, then owners (sort key of names in explanations and rule output).
        self.order: dict[str, int] = {c: i for i, c in enumerate((*self.cards, *self.owners))}

    def seat(self, me: str | None) -> None:
        """The knowledge is now seat ``me``'s (a new game)."""
        self.me = me


@dataclass(frozen=True)
class StoreSnapshot:
    """What a :class:`FactStore` held at one moment (copies), to put back with :meth:`FactStore.restore`."""

    held: dict[str, set[str]]
    lacked: dict[str, set[str]]
    holders: dict[str, set[str]]
    lackers: dict[str, set[str]]
    clauses: dict[str, dict[frozenset, Key]]
    not_all: dict[str, dict[frozenset, Key]]
    bounds: dict[str, dict[BoundKey, None]]
    seen: set
    shown_by_me: dict[str, set]


def _copied(saved: StoreSnapshot) -> StoreSnapshot:
    """A copy of every container of ``saved``, two levels deep."""
    def rows(store: dict) -> dict:
        return {k: v.copy() for k, v in store.items()}
    return StoreSnapshot(rows(saved.held), rows(saved.lacked), rows(saved.holders), rows(saved.lackers),
                         rows(saved.clauses), rows(saved.not_all), rows(saved.bounds), saved.seen.copy(),
                         rows(saved.shown_by_me))


class FactStore:
    """The facts a seat knows on its sheet and the queries over them (see the module docstring)."""

    held: dict[str, set[str]]
    """owner -> the cards known held."""
    lacked: dict[str, set[str]]
    """owner -> the cards known lacked."""
    holders: dict[str, set[str]]
    """card -> the owners known to hold it."""
    lackers: dict[str, set[str]]
    """card -> the owners known to lack it."""
    clauses: dict[str, dict[frozenset, Key]]
    """owner -> one-of clause -> its key (a clause replaced by a narrower one is gone)."""
    not_all: dict[str, dict[frozenset, Key]]
    """owner -> not-all clause -> its key."""
    bounds_of: dict[str, dict[BoundKey, None]]
    """owner -> his bounds (keys) not superseded by a reduction of them."""
    seen: set
    """Cards shown to this seat."""
    shown_by_me: dict[str, set]
    """player -> cards this seat has shown him."""

    def __init__(self, seating: Seating, log: JustificationLog, explanations: Explanations,
                 ledger: SatLedger | None, engine: RuleEngine) -> None:
        self._seating = seating
        self._log = log
        self._explanations = explanations
        self._ledger = ledger
        self._engine = engine
        #: (count kind, name) -> (the set of cells it read, its size then, the facts counted) (see counted).
        self._counted_memo: dict[tuple[str, str], tuple[set, int, list[Key]]] = {}
        self.clear()

    # ------------------------------------------------------------ state
    def clear(self) -> None:
        """Nothing known (a new game)."""
        seating = self._seating
        owners, cards = seating.owners, seating.cards
        self._counted_memo = {}
        self.restore(StoreSnapshot({o: set() for o in owners}, {o: set() for o in owners},
                                   {c: set() for c in cards}, {c: set() for c in cards}, {o: {} for o in owners},
                                   {o: {} for o in owners}, {o: {} for o in owners}, set(),
                                   {p: set() for p in seating.players}))

    def snapshot(self) -> StoreSnapshot:
        """What the store holds now (copies)."""
        return _copied(StoreSnapshot(self.held, self.lacked, self.holders, self.lackers, self.clauses, self.not_all,
                                     self.bounds_of, self.seen, self.shown_by_me))

    def restore(self, saved: StoreSnapshot) -> None:
        """Put back a :meth:`snapshot` (copies of it: the snapshot may be restored again)."""
        made = _copied(saved)
        self.held, self.lacked, self.holders, self.lackers = made.held, made.lacked, made.holders, made.lackers
        self.clauses, self.not_all, self.bounds_of = made.clauses, made.not_all, made.bounds
        self.seen, self.shown_by_me = made.seen, made.shown_by_me

    def saw(self, card: str) -> bool:
        """A card was shown to this seat; False when it had been already."""
        if card in self.seen:
            return False
        self.seen.add(card)
        return True

    def showed(self, player: str, card: str) -> None:
        """This seat showed ``card`` to ``player``."""
        self.shown_by_me[player].add(card)

    # ------------------------------------------------------------ declaring
    def declare_known(self, key: AnyKey, just: Justification, in_engine: bool = False) -> bool:
        """Record a held / lacked / one-of / not-all / bound fact; False if not new.
        ``in_engine``: the engine holds it already (a native firing asserted it).
        A key given as a plain tuple is made its record (:func:`~clue_expert.core.facts.as_key`)."""
        if type(key) not in KEY_TYPES:
            key = as_key(key)
        kind = key.kind
        log = self._log
        if key in log.justifications:
            return False
        values: dict | None
        if kind == LACKED or kind == HELD:
            values = self._add_cell(key, just)
        elif kind in ("one-of", "not-all"):
            values = self._add_clause(key, just)
        elif kind == "bound":
            key = bound_key(key.owner, key.cards, key.low, key.high)  # sorted cards, clipped counts (a key
            # given by hand may be neither)
            if key in log.justifications or self.bound_useless(key):
                return False
            values = self._add_bound(key)
        else:
            raise ValueError(f"cannot assert a {kind} fact")
        if values is None:
            return False
        log.justifications[key] = just
        log.values[key] = values
        if not in_engine:
            self._engine.declare(engine_fact(kind, values))
        return True

    def _add_cell(self, key: CellKey, just: Justification) -> dict:
        owner, card = key.owner, key.card
        held = key.kind == HELD
        opposite = cell_key(LACKED if held else HELD, owner, card)
        if opposite in self._log.justifications:
            self._clash(key, opposite, just)
        (self.held if held else self.lacked)[owner].add(card)
        (self.holders if held else self.lackers)[card].add(owner)
        if self._ledger is not None:
            self._ledger.add_cell(key, held)
        return {"owner": owner, "card": card}

    def _add_clause(self, key: ClauseKey, just: Justification) -> dict | None:
        kind, owner = key.kind, key.owner
        cards = frozenset(key.cards)
        if not self.is_new_clause(kind, owner, cards):
            return None
        if not cards:
            raise ContradictionError(f"{owner} would have to hold one of no cards", turn=self._log.turn,
                                     facts=self._explanations.premise_texts(just.premises),
                                     cause=(just.rule, tuple(just.premises),
                                            f"{owner} would have to hold one of no cards"))
        store = self.clauses if kind == "one-of" else self.not_all
        if kind == "one-of":
            values = self._log.values
            for other in [c for c in store[owner] if cards < c]:
                # superseded by the narrower clause: gone from the store and the engine
                self._engine.retract(engine_fact(kind, values[store[owner].pop(other)]))
        store[owner][cards] = key
        if self._ledger is not None:
            self._ledger.add_clause(key, owner, cards, 1 if kind == "one-of" else -1)
        return {"owner": owner, "cards": tuple(sorted(cards))}

    def _add_bound(self, key: BoundKey) -> dict:
        owner, bound_cards, low, high = key.owner, key.cards, key.low, key.high
        bounds = self.bounds_of[owner]
        reduced = bound_key(owner, *self.reduced(key))
        for wider in [b for b in bounds
                      if set(b.cards) > set(bound_cards) and bound_key(owner, *self.reduced(b)) == reduced]:
            del bounds[wider]  # superseded by its reduction: gone from the store and the engine
            self._engine.retract(engine_fact("bound", self._log.values[wider]))
        bounds[key] = None
        if self._ledger is not None:
            self._ledger.add_bound(key, owner, bound_cards, low, high)
        return {"owner": owner, "cards": bound_cards, "low": low, "high": high}

    def is_new_clause(self, kind: str, owner: str, cards: frozenset) -> bool:
        """Whether a one-of / not-all clause says more than what is known."""
        key = cards_key(kind, owner, cards)
        if key in self._log.justifications:
            return False
        if kind == "one-of":
            if cards & self.held[owner]:
                return False
            return not any(c <= cards for c in self.clauses[owner])
        if cards & self.lacked[owner]:
            return False
        return not any(c <= cards for c in self.not_all[owner])

    def is_new(self, key: AnyKey) -> bool:
        """Whether a held / lacked / clause / bound fact says more than what is known
        (a key given as a plain tuple is read as its record)."""
        if type(key) not in KEY_TYPES:
            key = as_key(key)
        kind = key.kind
        if kind in ("held", "lacked"):
            return key not in self._log.justifications
        if kind == "bound":
            return key not in self._log.justifications and not self.bound_useless(key)
        return self.is_new_clause(kind, key.owner, frozenset(key.cards))

    # group 1's bounded clues (docs/generalized.md#bounded-clues)
    def reduced(self, key: BoundKey) -> tuple:
        """A bound reduced against the sheet: (the cards of it still unknown,
        low, high), each count less the cards of it known held."""
        owner, cards = key.owner, key.cards
        held, lacked = self.held[owner], self.lacked[owner]
        rest = frozenset(c for c in cards if c not in held and c not in lacked)
        n_held = sum(1 for c in cards if c in held)
        return rest, key.low - n_held, key.high - n_held

    def bound_useless(self, key: BoundKey) -> bool:
        """Whether the sheet already implies the bound (it says nothing more):
        reduced, its lower count is at most 0 and its upper count at least its cards."""
        rest, low, high = self.reduced(key)
        return low <= 0 and high >= len(rest)

    def _clash(self, key: CellKey, opposite: CellKey, just: Justification) -> None:
        explanations = self._explanations
        facts = [f"{describe(opposite)} (known from {explanations.roots_text(opposite)})",
                 f"{describe(key)} (by {just.rule} from {explanations.premise_texts(just.premises, roots=True)})"]
        raise ContradictionError(f"{key.owner} cannot both hold and lack {key.card}", facts=facts, turn=self._log.turn,
                                 cause=(just.rule, (*just.premises, opposite),
                                        f"{describe(key)}, but {describe(opposite)}"))

    def counted(self, kind: str, name: Any) -> list[Key]:
        """The facts a count (see :data:`clue_expert.engine.language.ir.TALLIES`) counts now, in sheet order.
        A count of cells is worked out again only when the set of cells it
        reads has grown (the sets only grow; a new game or a restore makes new ones)."""
        source = self._count_source(kind, name)
        if source is None:
            return self._count_now(kind, name)
        memo = self._counted_memo
        made = memo.get((kind, name))
        if made is not None and made[0] is source and made[1] == len(source):
            return made[2]
        out = self._count_now(kind, name)
        memo[(kind, name)] = (source, len(source), out)
        return out

    def _count_source(self, kind: str, name: Any) -> set | None:
        """The set of cells whose size changes whenever a count of cells' facts do (None: another count)."""
        if kind == "held-count":
            return self.held[name]
        if kind == "lacked-count":
            return self.lacked[name]
        if kind == "lacker-count":
            return self.lackers[name]
        if kind == "envelope-held-count":
            return self.held[ENVELOPE]
        if kind == "envelope-lacked-count":
            return self.lacked[ENVELOPE]
        return None

    def _count_now(self, kind: str, name: Any) -> list[Key]:
        """The facts a count counts now, in sheet order (see :meth:`counted`)."""
        seating = self._seating
        cards = seating.cards
        if kind == "held-count":
            return [held_key(name, c) for c in cards if c in self.held[name]]
        if kind == "lacked-count":
            return [lacked_key(name, c) for c in cards if c in self.lacked[name]]
        if kind == "lacker-count":
            return [lacked_key(o, name) for o in seating.owners if o in self.lackers[name]]
        if kind == "pass-count":  # the passes of turn `name`
            known = self._log.justifications
            passes = [turn_player_key("passed", name, p) for p in seating.players]
            return [k for k in passes if k in known]
        if kind == "show-lacked-count":  # the lacked facts of turn `name`'s shower among the cards shown
            show = self._log.values[turn_key("showed", name)]
            return [lacked_key(show["player"], c) for c in cards if c in show["cards"]
                    and c in self.lacked[show["player"]]]
        if kind == "seen-count":  # the cards shown to the seat, as their holders' held facts
            return [held_key(o, c) for c in cards if c in self.seen for o in seating.owners
                    if o != ENVELOPE and c in self.held[o]]
        in_category = [c for c in cards if c in seating.category_cards[name]]
        store = self.held if kind == "envelope-held-count" else self.lacked
        return [cell_key(HELD if kind == "envelope-held-count" else LACKED, ENVELOPE, c) for c in in_category
                if c in store[ENVELOPE]]

    # -------------------------------------------------------------- queries
    # What the knowledge's public query view (clue_expert.engine.seat.queries) answers from the sheet.
    def status(self, owner: str, card: str) -> str:
        """``held``, ``lacked`` or ``unknown``."""
        if card in self.held[owner]:
            return HELD
        if card in self.lacked[owner]:
            return LACKED
        return UNKNOWN

    def live_clauses(self, owner: str) -> list[frozenset]:
        """Live (narrowed, unsatisfied) one-of clauses of ``owner``."""
        store = self.clauses[owner]
        if not store:
            return []
        held = self.held[owner]
        return [c for c in store if held.isdisjoint(c)]

    def live_bounds(self, owner: str) -> list[tuple]:
        """The owner's bounds already reduced against the sheet that the sheet does not imply."""
        out = []
        for key in self.bounds_of[owner]:
            rest, low, high = self.reduced(key)
            if len(rest) == len(key.cards) and not (low <= 0 and high >= len(rest)):
                out.append((frozenset(key.cards), low, high))
        return out

    def bound_keys_with(self, owner: str, card: str) -> list[BoundKey]:
        """The owner's bounds naming the card that the sheet does not already imply."""
        return [key for key in self.bounds_of[owner] if card in key.cards and not self.bound_useless(key)]

    def envelope_known(self, category: str) -> list[str]:
        """The cards of a category known in the envelope, in the edition's order."""
        held = self.held[ENVELOPE]
        return [c for c in self._seating.edition.category_cards(category) if c in held]

    def envelope(self) -> dict:
        """category -> the envelope's card where known (see ``Knowledge.envelope``)."""
        out: dict = {}
        for cat, n in self._seating.edition.envelope_counts.items():
            if n == 0:
                continue
            known = self.envelope_known(cat)
            if n == 1:
                out[cat] = known[0] if known else None
            else:
                out[cat] = known if len(known) == n else None
        return out

    def solved(self) -> bool:
        """Whether every envelope card is known."""
        return len(self.held[ENVELOPE]) == self._seating.edition.envelope_size

    def sheet(self, turn: int | None) -> Sheet:
        """The detective sheet (``turn``: the last one included)."""
        seating = self._seating
        cells = {o: {c: self.status(o, c) for c in seating.cards} for o in seating.owners}
        return Sheet(owners=list(seating.owners), cards=list(seating.cards), cells=cells,
                     categories=dict(seating.category), me=seating.me, turn=turn, envelope=self.envelope())


class FrameQueries(ABC):
    """The queries of the game's frame -- its cards, categories and owners,
    which never change in a game -- read straight off the seating: one
    definition for the knowledge and for its reading view (which records
    none of them: they are no premise)."""

    @property
    @abstractmethod
    def seating(self) -> Seating:
        """The seating the frame is read from."""

    @property
    def cards(self) -> tuple[str, ...]:
        """Card ids in sheet order."""
        return self.seating.cards

    @property
    def card_set(self) -> frozenset:
        """Every card id."""
        return self.seating.all_cards

    @property
    def owner_set(self) -> frozenset:
        """Every owner (the players and the envelope)."""
        return self.seating.owner_set

    def category_of(self, card: str) -> str:
        """The category of a card."""
        return self.seating.category[card]

    def category_cards(self, category: str) -> frozenset:
        """The cards of a category."""
        return self.seating.category_cards[category]

    def envelope_count(self, category: str) -> int:
        """How many cards of the category the envelope holds."""
        return self.seating.edition.envelope_counts[category]

    def sheet_position(self, name: str) -> int:
        """A name's place in sheet order (cards first, then owners); unknown names last."""
        return self.seating.order.get(name, 10 ** 6)


class ReadingView(FrameQueries):
    """The knowledge as a rule's expressions see it (``__lib__``): the
    queries of :class:`~clue_expert.engine.seat.queries.KnowledgeView`, each
    recorded while :attr:`reads` is a list (a rule without ``because:``
    fires: see ``RuleInterpreter._run_rule``) as a read token, from which
    the firing's premises are worked out (:func:`~.justify.premises_read`).
    Any other attribute is the knowledge's (held weakly: no cycle)."""

    reads: list[ReadToken] | None
    """The read tokens of the firing now (None: nothing is recorded)."""

    def __init__(self, store: FactStore, seating: Seating, log: JustificationLog, knowledge: Any) -> None:
        self._store = store
        self._seating = seating
        self._log = log
        self._knowledge = weakref.proxy(knowledge)
        self.reads = None

    def record(self) -> list:
        """Start recording reads (a new list, returned)."""
        self.reads = []
        return self.reads

    def stop(self) -> None:
        """Stop recording reads."""
        self.reads = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._knowledge, name)

    @property
    def seating(self) -> Seating:
        """The seating (see :class:`FrameQueries`)."""
        return self._seating

    # the frame of the game, read straight
    @property
    def edition(self) -> Edition:
        """The card list."""
        return self._seating.edition

    @property
    def players(self) -> tuple[str, ...]:
        """Players in seat order."""
        return self._seating.players

    @property
    def owners(self) -> tuple[str, ...]:
        """Players then the envelope."""
        return self._seating.owners

    @property
    def me(self) -> str | None:
        """The seat (None for a spectator)."""
        return self._seating.me

    @property
    def hand_sizes(self) -> dict[str, int]:
        """owner -> number of cards held."""
        return self._seating.hand_sizes

    # the sheet, recorded
    def hand_size(self, owner: str) -> int | None:
        """How many cards the owner holds (the envelope: its size)."""
        if self.reads is not None:
            key = owner_key("hand-size", owner)
            if key in self._log.justifications:
                self.reads.append(ReadToken("K", None, (key,)))
        return self._seating.hand_sizes.get(owner)

    def holders(self, card: str) -> frozenset:
        """Owners known to hold the card."""
        out = frozenset(self._store.holders[card])
        if self.reads is not None:
            self.reads.append(ReadToken("h", card, out))
        return out

    def lackers(self, card: str) -> frozenset:
        """Owners known not to hold the card."""
        out = frozenset(self._store.lackers[card])
        if self.reads is not None:
            self.reads.append(ReadToken("l", card, out))
        return out

    def held_by(self, owner: str) -> frozenset:
        """Cards known held by ``owner``."""
        out = frozenset(self._store.held[owner])
        if self.reads is not None:
            self.reads.append(ReadToken("H", owner, out))
        return out

    def lacked_by(self, owner: str) -> frozenset:
        """Cards known lacked by ``owner``."""
        out = frozenset(self._store.lacked[owner])
        if self.reads is not None:
            self.reads.append(ReadToken("L", owner, out))
        return out

    def status(self, owner: str, card: str) -> str:
        """``held``, ``lacked`` or ``unknown``."""
        store = self._store
        if card in store.held[owner]:
            if self.reads is not None:
                self.reads.append(ReadToken("K", None, (held_key(owner, card),)))
            return HELD
        if card in store.lacked[owner]:
            if self.reads is not None:
                self.reads.append(ReadToken("K", None, (lacked_key(owner, card),)))
            return LACKED
        return UNKNOWN

    def _keys(self, keys: Sequence[Key]) -> None:
        if self.reads is not None:
            self.reads.append(ReadToken("K", None, tuple(keys)))

    def not_all_clauses(self, owner: str) -> list[frozenset]:
        """The owner's not-all clauses (card sets he does not hold all of)."""
        store = self._store.not_all[owner]
        self._keys(list(store.values()))
        return list(store)

    def one_of_clauses(self, owner: str) -> list[frozenset]:
        """Live (narrowed, unsatisfied) one-of clauses of ``owner``."""
        out = self._store.live_clauses(owner)
        if self.reads is not None:
            store = self._store.clauses[owner]
            self._keys([store[c] for c in out])
        return out

    def recorded_one_of_clauses(self, owner: str) -> list[frozenset]:
        """Every one-of clause recorded for ``owner``, satisfied ones
        included (a clause replaced by a narrower one is not)."""
        store = self._store.clauses[owner]
        self._keys(list(store.values()))
        return list(store)

    def has_clauses(self, owner: str) -> bool:
        """Whether any one-of clause of the owner was ever recorded (live or satisfied)."""
        store = self._store.clauses[owner]
        self._keys(list(store.values()))
        return bool(store)

    def bounds(self, owner: str) -> list[tuple]:
        """The owner's bounds reduced against the sheet (see ``Knowledge.bounds``)."""
        store = self._store
        out = store.live_bounds(owner)
        if self.reads is not None:  # the bounds, and the sheet they were reduced against
            self.reads.append(ReadToken("K", None, tuple(store.bounds_of[owner])))
            self.reads.append(ReadToken("H", owner, frozenset(store.held[owner])))
            self.reads.append(ReadToken("L", owner, frozenset(store.lacked[owner])))
        return out

    def bounds_with(self, owner: str, card: str) -> list[tuple]:
        """The owner's bounds naming the card, as stated (see ``Knowledge.bounds_with``)."""
        found = self._store.bound_keys_with(owner, card)
        self._keys(found)
        return [(frozenset(key.cards), key.low, key.high) for key in found]

    def seen_cards(self) -> frozenset:
        """Cards that have been shown to this seat."""
        if self.reads is not None:
            self.reads.append(ReadToken("seen", None, None))
        return frozenset(self._store.seen)

    def shown_to(self, player: str) -> frozenset:
        """Cards this seat has shown to ``player``."""
        return frozenset(self._store.shown_by_me.get(player, ()))

    def shown_to_anyone(self) -> frozenset:
        """Cards this seat has shown to anyone."""
        shown = self._store.shown_by_me
        return frozenset().union(*shown.values()) if shown else frozenset()

    def known(self, key: Key) -> bool:
        """Whether the fact is known (a plain tuple is read as its record)."""
        known = self._log.justifications
        if self.reads is not None and key in known:
            self.reads.append(ReadToken("K", None, (key if type(key) in KEY_TYPES else as_key(key),)))
        return key in known

    def _envelope_read(self) -> None:
        if self.reads is not None:
            store, edition = self._store, self._seating.edition
            for cat, n in edition.envelope_counts.items():
                if n != 0:
                    self.reads.append(ReadToken("H", ENVELOPE, frozenset(store.envelope_known(cat))))

    def envelope(self) -> dict:
        """category -> the envelope's card where known (see ``Knowledge.envelope``)."""
        self._envelope_read()
        return self._store.envelope()

    def solved(self) -> bool:
        """Whether every envelope card is known (a waiting completion step may run first: ``Knowledge.solved``)."""
        return self._knowledge.solved()

    def read_solved(self) -> None:
        """Record what :meth:`solved` reads (the envelope's row)."""
        if self.reads is not None:
            self.reads.append(ReadToken("H", ENVELOPE, frozenset(self._store.held[ENVELOPE])))

    def sheet(self) -> Sheet:
        """The detective sheet (see ``Knowledge.sheet``)."""
        return self._knowledge.sheet()

    def read_sheet(self) -> None:
        """Record what :meth:`sheet` reads (every row, the envelope)."""
        if self.reads is not None:
            store = self._store
            for o in self._seating.owners:
                self.reads.append(ReadToken("H", o, frozenset(store.held[o])))
                self.reads.append(ReadToken("L", o, frozenset(store.lacked[o])))
            self._envelope_read()
