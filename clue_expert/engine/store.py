"""The fact store of a seat's knowledge and its public query view.

What is known: the sheet (held / lacked cells, by owner and by card), one-of
and not-all clauses, bounds, hand sizes, what this seat saw and showed.
:class:`FactStore` implements the read-only protocol
:class:`~clue_expert.engine.queries.KnowledgeView` over them (``status``,
``held_by``, ``lacked_by``, ``holders``, clauses, counts, the ``sheet``...);
a query made while a rule fires is recorded as a read token, from which that
firing's premises are later worked out (see :mod:`.justify`).  A new fact goes
in through :meth:`FactStore._declare_known`, which refuses a fact clashing
with a known one and hands the fact on to the completion step's SAT model
and to the rule engine.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

from ..core.errors import ContradictionError
from ..core.facts import ENVELOPE, KINDS, Key, bound_key, cards_key, describe, held_key, lacked_key
from ..core.observations import Accusation, Observation, Suggestion
from .engines import EngineFact, RuleEngine
from .justify import HELD, LACKED, UNKNOWN, Candidate, Justification, Justifying


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


def _engine_fact(kind: str, values: dict) -> EngineFact:
    """The engine fact of a fact of ``kind`` with these field values (in the kind's field order)."""
    return EngineFact(kind, tuple((f, values[f]) for f in KINDS[kind]))


class Observed(NamedTuple):
    """One observation the seat took in (see ``Knowledge.observe``)."""

    turn: int
    """The turn it was made on (0: the deal)."""
    observation: Observation
    """What was seen."""


class Memo:
    """Values built once while the knowledge stands still (see :meth:`FactStore.memo`)."""

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


class FactStore(Justifying):
    """The facts a seat knows and the queries over them (see the module docstring)."""

    players: tuple[str, ...]
    hand_sizes: dict[str, int]
    last_turn: int
    _engine: RuleEngine
    _all_cards: frozenset
    _owner_set: frozenset
    _category: dict[str, str]
    _order: dict[str, int]
    _observations: list[Observed]
    _held: dict[str, set[str]]
    _counted_memo: dict[tuple[str, str], tuple[set, int, list[Key]]]
    _lacked: dict[str, set[str]]
    _holders: dict[str, set[str]]
    _lackers: dict[str, set[str]]
    _clauses: dict[str, dict[frozenset, Key]]
    _not_all: dict[str, dict[frozenset, Key]]
    _bounds: dict[str, dict[Key, None]]
    _seen: set
    _shown_by_me: dict[str, set]
    _candidates: list[Candidate] | None
    _memo: Memo
    _state_memo: Memo

    # ------------------------------------------------------------ declaring
    def _declare_known(self, key: Key, just: Justification, in_engine: bool = False) -> bool:
        """Record a held / lacked / one-of / not-all fact; False if not new.
        ``in_engine``: the engine holds it already (a native firing asserted it)."""
        kind = key[0]
        if key in self.justifications:
            return False
        owner = key[1]
        if kind == LACKED or kind == HELD:
            card = key[2]
            held = kind == HELD
            opposite = (LACKED if held else HELD, owner, card)
            if opposite in self.justifications:
                self._clash(key, opposite, just)
            (self._held if held else self._lacked)[owner].add(card)
            (self._holders if held else self._lackers)[card].add(owner)
            if self._ledger is not None:
                self._ledger.add_cell(key, held)
            values = {"owner": owner, "card": card}
        elif kind in ("one-of", "not-all"):
            cards = frozenset(key[2])
            if not self._is_new_clause(kind, owner, cards):
                return False
            if not cards:
                raise ContradictionError(f"{owner} would have to hold one of no cards", turn=self._turn,
                                         facts=self._premise_texts(just.premises),
                                         cause=(just.rule, tuple(just.premises),
                                                f"{owner} would have to hold one of no cards"))
            store = self._clauses if kind == "one-of" else self._not_all
            if kind == "one-of":
                for other in [c for c in store[owner] if cards < c]:
                    # superseded by the narrower clause: gone from the store and the engine
                    self._engine.retract(_engine_fact(kind, self.values[store[owner].pop(other)]))
            store[owner][cards] = key
            if self._ledger is not None:
                self._ledger.add_clause(key, owner, cards, 1 if kind == "one-of" else -1)
            values = {"owner": owner, "cards": tuple(sorted(cards))}
        elif kind == "bound":
            key = bound_key(*key[1:])  # sorted cards, clipped counts (a key given by hand may be neither)
            if key in self.justifications or self._bound_useless(key):
                return False
            bound_cards, low, high = key[2], key[3], key[4]
            bounds = self._bounds[owner]
            reduced = bound_key(owner, *self._reduced(key))
            for wider in [b for b in bounds
                          if set(b[2]) > set(bound_cards) and bound_key(owner, *self._reduced(b)) == reduced]:
                del bounds[wider]  # superseded by its reduction: gone from the store and the engine
                self._engine.retract(_engine_fact("bound", self.values[wider]))
            bounds[key] = None
            if self._ledger is not None:
                self._ledger.add_bound(key, owner, bound_cards, low, high)
            values = {"owner": owner, "cards": bound_cards, "low": low, "high": high}
        else:
            raise ValueError(f"cannot assert a {kind} fact")
        self.justifications[key] = just
        self.values[key] = values
        if not in_engine:
            self._engine.declare(_engine_fact(kind, values))
        return True

    def _is_new_clause(self, kind: str, owner: str, cards: frozenset) -> bool:
        key = cards_key(kind, owner, cards)
        if key in self.justifications:
            return False
        if kind == "one-of":
            if cards & self._held[owner]:
                return False
            return not any(c <= cards for c in self._clauses[owner])
        if cards & self._lacked[owner]:
            return False
        return not any(c <= cards for c in self._not_all[owner])

    def _is_new(self, key: Key) -> bool:
        kind = key[0]
        if kind in ("held", "lacked"):
            return key not in self.justifications
        if kind == "bound":
            return key not in self.justifications and not self._bound_useless(key)
        return self._is_new_clause(kind, key[1], frozenset(key[2]))

    # group 1's bounded clues (docs/generalized.md#bounded-clues)
    def _reduced(self, key: Key) -> tuple:
        """A bound reduced against the sheet: (the cards of it still unknown,
        low, high), each count less the cards of it known held."""
        owner, cards = key[1], key[2]
        held, lacked = self._held[owner], self._lacked[owner]
        rest = frozenset(c for c in cards if c not in held and c not in lacked)
        n_held = sum(1 for c in cards if c in held)
        return rest, key[3] - n_held, key[4] - n_held

    def _bound_useless(self, key: Key) -> bool:
        """Whether the sheet already implies the bound (it says nothing more):
        reduced, its lower count is at most 0 and its upper count at least its cards."""
        rest, low, high = self._reduced(key)
        return low <= 0 and high >= len(rest)

    def _clash(self, key: Key, opposite: Key, just: Justification) -> None:
        facts = [f"{describe(opposite)} (known from {self._roots_text(opposite)})",
                 f"{describe(key)} (by {just.rule} from {self._premise_texts(just.premises, roots=True)})"]
        raise ContradictionError(f"{key[1]} cannot both hold and lack {key[2]}", facts=facts, turn=self._turn,
                                 cause=(just.rule, (*just.premises, opposite),
                                        f"{describe(key)}, but {describe(opposite)}"))

    def _counted(self, kind: str, name: str) -> list[Key]:
        """The facts a count (see :data:`clue_expert.engine.ir.TALLIES`) counts now, in sheet order.
        A count of cells is worked out again only when the set of cells it
        reads has grown (the sets only grow; a new game makes new ones)."""
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

    def _count_source(self, kind: str, name: str) -> set | None:
        """The set of cells whose size changes whenever a count of cells' facts do (None: another count)."""
        if kind == "held-count":
            return self._held[name]
        if kind == "lacked-count":
            return self._lacked[name]
        if kind == "lacker-count":
            return self._lackers[name]
        if kind == "envelope-held-count":
            return self._held[ENVELOPE]
        if kind == "envelope-lacked-count":
            return self._lacked[ENVELOPE]
        return None

    def _count_now(self, kind: str, name: str) -> list[Key]:
        """The facts a count counts now, in sheet order (see :meth:`_counted`)."""
        if kind == "held-count":
            return [(HELD, name, c) for c in self._cards if c in self._held[name]]
        if kind == "lacked-count":
            return [(LACKED, name, c) for c in self._cards if c in self._lacked[name]]
        if kind == "lacker-count":
            return [(LACKED, o, name) for o in self.owners if o in self._lackers[name]]
        if kind == "pass-count":  # the passes of turn `name`
            return [("passed", name, p) for p in self.players if ("passed", name, p) in self.justifications]
        if kind == "show-lacked-count":  # the lacked facts of turn `name`'s shower among the cards shown
            show = self.values[("showed", name)]
            return [(LACKED, show["player"], c) for c in self._cards if c in show["cards"]
                    and c in self._lacked[show["player"]]]
        if kind == "seen-count":  # the cards shown to the seat, as their holders' held facts
            return [(HELD, o, c) for c in self._cards if c in self._seen for o in self.owners
                    if o != ENVELOPE and c in self._held[o]]
        cards = [c for c in self._cards if c in self._category_cards[name]]
        store = self._held if kind == "envelope-held-count" else self._lacked
        return [(HELD if kind == "envelope-held-count" else LACKED, ENVELOPE, c) for c in cards
                if c in store[ENVELOPE]]

    # -------------------------------------------------------------- queries
    # The typed, public query interface (see clue_expert.engine.queries):
    # what rules (through the library), strategies, beliefs and the notebook read.
    @property
    def cards(self) -> tuple[str, ...]:
        """Card ids in sheet order."""
        return self._cards

    @property
    def card_set(self) -> frozenset:
        """Every card id."""
        return self._all_cards

    @property
    def owner_set(self) -> frozenset:
        """Every owner (the players and the envelope)."""
        return self._owner_set

    def category_of(self, card: str) -> str:
        """The category of a card."""
        return self._category[card]

    def category_cards(self, category: str) -> frozenset:
        """The cards of a category."""
        return self._category_cards[category]

    def envelope_count(self, category: str) -> int:
        """How many cards of the category the envelope holds."""
        return self.edition.envelope_counts[category]

    def hand_size(self, owner: str) -> int | None:
        """How many cards the owner holds (the envelope: its size)."""
        if self._reads is not None and ("hand-size", owner) in self.justifications:
            self._reads.append(("K", (("hand-size", owner),)))
        return self._hand_size.get(owner)

    def _row_read(self, tag: str, name: str, row: set[str]) -> frozenset:
        """A copy of one row of the sheet (``row``: the owners known to hold
        or lack card ``name``, or the cards owner ``name`` is known to hold or
        lack), recorded as read by the firing rule (``tag``: h, l, H or L;
        see :func:`~clue_expert.engine.justify._premises_read`)."""
        out = frozenset(row)
        if self._reads is not None:
            self._reads.append((tag, name, out))
        return out

    def holders(self, card: str) -> frozenset:
        """Owners known to hold the card."""
        return self._row_read("h", card, self._holders[card])

    def lackers(self, card: str) -> frozenset:
        """Owners known not to hold the card."""
        return self._row_read("l", card, self._lackers[card])

    def held_by(self, owner: str) -> frozenset:
        """Cards known held by ``owner``."""
        return self._row_read("H", owner, self._held[owner])

    def lacked_by(self, owner: str) -> frozenset:
        """Cards known lacked by ``owner``."""
        return self._row_read("L", owner, self._lacked[owner])

    def not_all_clauses(self, owner: str) -> list[frozenset]:
        """The owner's not-all clauses (card sets he does not hold all of)."""
        if self._reads is not None:
            self._reads.append(("K", tuple(self._not_all[owner].values())))
        return list(self._not_all[owner])

    def bounds(self, owner: str) -> list[tuple]:
        """The owner's bounds already reduced against the sheet (every card
        of them still unknown) that the sheet does not imply: (cards, low,
        high) each."""
        out = []
        for key in self._bounds[owner]:
            rest, low, high = self._reduced(key)
            if len(rest) == len(key[2]) and not (low <= 0 and high >= len(rest)):
                out.append((frozenset(key[2]), low, high))
        if self._reads is not None:  # the bounds, and the sheet they were reduced against
            self._reads.append(("K", tuple(self._bounds[owner])))
            self._reads.append(("H", owner, frozenset(self._held[owner])))
            self._reads.append(("L", owner, frozenset(self._lacked[owner])))
        return out

    def bounds_with(self, owner: str, card: str) -> list[tuple]:
        """The owner's bounds naming the card, as stated (not reduced), that
        the sheet does not already imply: (cards, low, high) each."""
        found = [key for key in self._bounds[owner] if card in key[2] and not self._bound_useless(key)]
        if self._reads is not None:
            self._reads.append(("K", tuple(found)))
        return [(frozenset(key[2]), key[3], key[4]) for key in found]

    def recorded_one_of_clauses(self, owner: str) -> list[frozenset]:
        """Every one-of clause recorded for ``owner``, satisfied ones
        included (a clause replaced by a narrower one is not)."""
        store = self._clauses[owner]
        if self._reads is not None:
            self._reads.append(("K", tuple(store.values())))
        return list(store)

    def has_clauses(self, owner: str) -> bool:
        """Whether any one-of clause of the owner was ever recorded (live or satisfied)."""
        if self._reads is not None:
            self._reads.append(("K", tuple(self._clauses[owner].values())))
        return bool(self._clauses[owner])

    def out_players(self) -> frozenset:
        """Players who made a wrong accusation (out of the game: in the
        generalized game nobody can ask them any more)."""
        return frozenset(o.by for _, o in self._observations if isinstance(o, Accusation) and not o.correct)

    def seen_cards(self) -> frozenset:
        """Cards that have been shown to this seat."""
        if self._reads is not None:
            self._reads.append(("seen",))
        return frozenset(self._seen)

    def shown_to(self, player: str) -> frozenset:
        """Cards this seat has shown to ``player``."""
        return frozenset(self._shown_by_me.get(player, ()))

    def shown_to_anyone(self) -> frozenset:
        """Cards this seat has shown to anyone."""
        return frozenset().union(*self._shown_by_me.values()) if self._shown_by_me else frozenset()

    def sheet_position(self, name: str) -> int:
        """A name's place in sheet order (cards first, then owners); unknown names last."""
        return self._order.get(name, 10 ** 6)

    def suggestions_seen(self) -> list[tuple[int, Suggestion]]:
        """(turn, suggestion) for every suggestion observed, in order."""
        return [(turn, obs) for turn, obs in self._observations if isinstance(obs, Suggestion)]

    def status(self, owner: str, card: str) -> str:
        """``held``, ``lacked`` or ``unknown``."""
        if card in self._held[owner]:
            if self._reads is not None:
                self._reads.append(("K", (held_key(owner, card),)))
            return HELD
        if card in self._lacked[owner]:
            if self._reads is not None:
                self._reads.append(("K", (lacked_key(owner, card),)))
            return LACKED
        return UNKNOWN

    def one_of_clauses(self, owner: str) -> list[frozenset]:
        """Live (narrowed, unsatisfied) one-of clauses of ``owner``."""
        store = self._clauses[owner]
        if not store:
            out = []
        else:
            held = self._held[owner]
            out = [c for c in store if held.isdisjoint(c)]
        if self._reads is not None:
            self._reads.append(("K", tuple([store[c] for c in out])))
        return out

    def envelope(self) -> dict:
        """category -> the envelope's card where known (None if not); for a
        category of which the envelope takes several cards, the list of them
        once all are known.  Categories the envelope takes none of are left out."""
        out: dict = {}
        for cat, n in self.edition.envelope_counts.items():
            if n == 0:
                continue
            known = [c for c in self.edition.category_cards(cat) if c in self._held[ENVELOPE]]
            if self._reads is not None:
                self._reads.append(("H", ENVELOPE, frozenset(known)))
            if n == 1:
                out[cat] = known[0] if known else None
            else:
                out[cat] = known if len(known) == n else None
        return out

    def solved(self) -> bool:
        """Whether every envelope card is known."""
        if self._reads is not None:
            self._reads.append(("H", ENVELOPE, frozenset(self._held[ENVELOPE])))
        return len(self._held[ENVELOPE]) == self.edition.envelope_size

    def sheet(self) -> Sheet:
        """The detective sheet."""
        cells = {o: {c: self.status(o, c) for c in self._cards} for o in self.owners}
        return Sheet(owners=list(self.owners), cards=list(self._cards), cells=cells,
                     categories=dict(self._category), me=self.me, turn=self.last_turn, envelope=self.envelope())

    def known(self, key: Key) -> bool:
        """Whether the fact is known."""
        if self._reads is not None and key in self.justifications:
            self._reads.append(("K", (key,)))
        return key in self.justifications

    def memo(self, key, build: Callable):
        """``build()``, computed once for the knowledge as it stands: a new
        fact, observation or request, or a new game, starts afresh.  For
        costly derived views (exact beliefs, suggestion values, opponent
        models) that rules read several times per decision."""
        return self._memo.get((len(self.justifications), self._step, len(self._observations)), key, build)

    def memo_state(self, key, build: Callable):
        """Like :meth:`memo`, but kept across requests while the knowledge
        stands still: only a new fact or observation (or a new game) starts
        afresh.  For views that depend on the sheet alone (the exact beliefs
        and suggestion values), so that a board turn's move and its
        suggestion share them."""
        in_request = 1 if self._candidates is not None else 0
        return self._state_memo.get((len(self.justifications) - in_request, len(self._observations)), key, build)
