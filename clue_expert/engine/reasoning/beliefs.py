"""Exact beliefs over deals (issue 5, first part).

For one seat's knowledge this computes, exactly, the probability that each
owner holds each card, the distribution of the envelope (over the tuples of
its cards in sheet order: (suspect, weapon, room) in the classic game; any
edition's categories and envelope counts) and its entropy, over every deal
consistent with what the seat knows, under a stated model:

* deals are uniformly random (every deal consistent with the observations is
  a priori equally likely);
* a player who shows the seat a card chooses uniformly among the suggested
  cards he holds -- so a deal in which he had two matching cards makes the
  observed card half as likely as one in which he had only that card.  (For
  shows the seat did not see, the choice does not matter.)

Method: the complete sheet fixes many cells; the remaining *free* cards are
assigned by a dynamic programme over cards whose state is the players'
remaining hand capacities, which of the envelope's cards are placed (for
the joint distribution: which ones), which live one-of clauses are already
satisfied, how many cards of each wrong accusation went to the envelope, and
how many of the cards of each seen show the shower holds.  A constraint's
bookkeeping is dropped once its last card is placed (states that violate it
are discarded then), which keeps the state small.  Forward and backward
passes give every marginal.

The knowledge is read through its public queries only.
"""
from __future__ import annotations

import functools
import gc
import itertools
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...core import work
from ...core.facts import ENVELOPE
from . import dp, siebel
from ..language.expr import RUN_SECONDS, LimitError
from ..seat.queries import KnowledgeView

# ``Knowledge`` (clue_expert.engine.seat.knowledge) is named in annotations only and
# not imported (the rule library, which knowledge loads, imports this module).

#: Above this many categories the quick estimate of a suggestion's value
#: groups the envelope distribution directly instead of by pattern sums
#: (which need 2**categories tables).
_PATTERN_CATEGORIES = 6

#: Entries (states) the exact beliefs' tables may hold in one pass: the
#: layers a pass keeps, together, or the one layer being built.  Past it
#: :class:`TableTooLarge` is raised before memory runs out (the library's
#: suggestion choosers then fall back to the sheet's estimate; see
#: docs/limits.md).  The largest measured on a shipped edition: 3.4 million
#: in all the layers of one pass, master-detective at 6 players.
MAX_TABLE = 2_000_000
#: Units of work (table entries times the moves tried on each) one exact
#: computation may do -- the beliefs, or one suggestion's pass -- before it
#: gives up with :class:`TableTooLarge`: about 0.4 s of this machine's
#: time, and with :data:`MAX_TABLE` what bounds a pass's memory (at 2,000,000
#: one of the 228 reference decisions of benchmarks/information.py fell back
#: to estimates, its pass needing 2.0 million units; at 8,000,000
#: master-detective at 6 players peaked at 966 MB; at 4,000,000 at 534 MB).
MAX_TABLE_WORK = 4_000_000
#: Envelope contents the sheet may leave open for the exact beliefs to be
#: tried at all (:func:`envelope_contents`, counted before any table is built).
MAX_ENVELOPES = 100_000
_spent = [0]  # work of the computation under way (reset by each)
#: Cards of one suggestion whose outcomes are valued (the outcomes of n
#: cards take 2**n patterns): past it :class:`TableTooLarge`.
MAX_SUGGESTION_CARDS = 12
#: Suggestions one ranking may value (every candidate is estimated): counted
#: before any is built; past it :class:`TableTooLarge` too.
MAX_SUGGESTIONS = 100_000
_CHUNK = 16_384  # source states between looks at the table's size (and charges of work)
#: Whether the DP runs vectorized (:mod:`clue_expert.engine.reasoning.dp`) when its states fit; False: the
#: plain loops always (the tests compare the two).
_VECTOR = [True]
#: A step on fewer (source state, move) pairs than this runs the plain loop even then: numpy's
#: overhead per call outweighs it on small layers (3 players, late positions).
_VECTOR_FROM = 512


class TableTooLarge(LimitError):
    """The exact beliefs would need more than :data:`MAX_TABLE` table entries."""


def _tally(units: int) -> None:
    """Count work of the computation under way: charged to the request's
    budget (:mod:`clue_expert.core.work`) and held to :data:`MAX_TABLE_WORK`."""
    if work.late():  # the request is spent (its deadline, or its work): the sheet's estimate stands in
        raise TableTooLarge(f"the exact beliefs stopped: the request passed its deadline ({RUN_SECONDS:g} s) or "
                            f"its library work")
    _spent[0] += units
    if _spent[0] > MAX_TABLE_WORK:
        raise TableTooLarge(f"the exact beliefs need more than {MAX_TABLE_WORK:,} units of work (table entries "
                            f"times moves; the limit on one exact computation)")
    _charge(units, "the exact beliefs' table")


def _charge(units: int, what: str) -> None:
    """Charge work with a stand-in: past the request's work limit or deadline
    the beliefs stop (:class:`TableTooLarge`, the caller's stand-in answers)."""
    try:
        work.charge(units, what)
    except LimitError as exc:
        raise TableTooLarge(f"the exact beliefs stopped: {exc}") from None


def _table_error() -> TableTooLarge:
    return TableTooLarge(f"the exact beliefs need a table of more than {MAX_TABLE:,} entries (the limit on "
                         f"the exact beliefs' table size)")


def _big(n: int) -> str:
    """A count for a message: written out up to 10**15, else as a power of ten."""
    return f"{n:,}" if n < 10 ** 15 else f"about 10^{len(str(n)) - 1}"


def _chunks(layer: dict):
    """The layer's items in chunks of :data:`_CHUNK` (one chunk for a small layer)."""
    if len(layer) <= _CHUNK:
        yield layer.items()
        return
    items = iter(layer.items())
    for _ in range(0, len(layer), _CHUNK):
        yield itertools.islice(items, _CHUNK)


def _collector_paused(fn):
    """Run ``fn`` with Python's cyclic garbage collector paused: the DP
    passes allocate hundreds of thousands of dicts and tuples, none of them
    in a reference cycle, and the collector's passes over them (and over
    everything else alive) cost a fifth of an information player's decision.
    The collector runs again afterwards as usual."""
    @functools.wraps(fn)
    def paused(*args, **kwargs):
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()
    return paused


@dataclass
class Beliefs:
    """Exact probabilities for one seat."""

    probabilities: dict
    """owner -> card -> probability that the owner holds the card."""
    envelope: dict
    """The envelope's cards (a tuple in sheet order: in the classic game
    (suspect, weapon, room)) -> probability, for every envelope with p > 0."""
    entropy_bits: float
    """Entropy of the envelope distribution, in bits."""
    deals: float
    """Weighted number of consistent deals (the normalising constant)."""
    states: int
    """Largest number of DP states at one step (a measure of the work)."""
    forward: object = field(default=None, repr=False, compare=False)
    """The labelled forward pass the envelope came from (kept for the values of suggestions)."""
    exact: bool = True
    """False for the sheet's estimate (:func:`estimate`) used when the exact
    beliefs refuse: then ``envelope`` holds only the likeliest contents."""

    def to_json(self) -> dict:
        return {"probabilities": self.probabilities, "envelope_entropy_bits": self.entropy_bits,
                "envelope_distribution": [{"cards": list(k), "p": v} for k, v in
                             sorted(self.envelope.items(), key=lambda kv: -kv[1])]}


def _seen_shows(k: KnowledgeView) -> list:
    """(shower, the other suggested cards) for every show the seat saw."""
    out = []
    for _, s in k.suggestions_seen():
        if s.shown_by is not None and s.card is not None and s.by == k.me:
            out.append((s.shown_by, [c for c in s.cards if c != s.card]))
    return out


def soft_clues(k: KnowledgeView) -> tuple:
    """The soft clues a knowledge view carries, as ``(owner, card, factor)``:
    every deal in which ``owner`` holds ``card`` has its weight multiplied by
    ``factor`` (0 < factor < 1; others are ignored).  Only the library's
    reliability-weighted overlay (``clue_expert.engine.library``) has any;
    a plain knowledge view has none."""
    return tuple(getattr(k, "soft_clues", ()) or ())


class BeliefProblem:
    """The free cards, fixed cards and live constraints of one seat's
    knowledge: everything the DP needs, built once per position."""

    def __init__(self, k: KnowledgeView):
        self.me = k.me
        self.owners = list(k.owners)
        self.players = list(k.players)
        self.cards = list(k.cards)
        #: The categories in sheet order, and how many cards of each the envelope takes.
        self.categories = tuple(k.edition.categories)
        self.counts = {cat: k.envelope_count(cat) for cat in self.categories}
        self.category = {c: k.category_of(c) for c in self.cards}
        self.allowed = allowed = self._allowed_owners(k)
        self.fixed = fixed = {c: a[0] for c, a in allowed.items() if len(a) == 1}
        self.free = [c for c in self.cards if len(allowed[c]) > 1]
        self.cap0 = tuple(k.hand_sizes[p] - sum(1 for o in fixed.values() if o == p) for p in self.players)
        self._envelope_needs()
        self.clauses = self._live_clauses(k)
        # wrong accusations: the envelope is not all of these.  A clause with
        # a card the envelope cannot hold is satisfied; in the others every
        # fixed card is the envelope's, so only the free cards need counting.
        self.notalls = [frozenset(c for c in cl if c not in fixed) for cl in k.not_all_clauses(ENVELOPE)
                        if all(ENVELOPE in allowed[c] for c in cl)]
        if any(not cs for cs in self.notalls):
            raise ValueError("a wrong accusation names the envelope's known cards: the knowledge is inconsistent")
        self.weights, self.base_factor = self._show_weights(k)
        self.slot_of = {p: i for i, p in enumerate(self.players)}

    def _allowed_owners(self, k: KnowledgeView) -> dict:
        """card -> the owners that may hold it: its holder alone when the
        sheet knows one, else every owner not known to lack it."""
        allowed = {}
        for c in self.cards:
            holders = [o for o in self.owners if k.status(o, c) == "held"]
            allowed[c] = holders[:1] if holders else [o for o in self.owners if k.status(o, c) != "lacked"]
        return allowed

    def _envelope_needs(self) -> None:
        """The envelope's known cards per category (``env_known``), how many
        more of each category it takes (``need``; :class:`ValueError` for a
        category it holds too many of) and how many free cards of each it may
        take (``eligible``)."""
        category, fixed, allowed = self.category, self.fixed, self.allowed
        #: category -> the envelope's known cards of it (sheet order), for categories with any
        self.env_known: dict = {}
        for c in self.cards:
            if fixed.get(c) == ENVELOPE:
                self.env_known.setdefault(category[c], []).append(c)
        self.env_known = {cat: tuple(cs) for cat, cs in self.env_known.items()}
        #: category -> how many more of its cards the envelope takes
        self.need = {cat: self.counts[cat] - len(self.env_known.get(cat, ())) for cat in self.categories}
        if any(n < 0 for n in self.need.values()):
            raise ValueError("the envelope holds more cards of a category than it takes: "
                             "the knowledge is inconsistent")
        self.eligible = {cat: sum(1 for c in self.free if category[c] == cat and ENVELOPE in allowed[c])
                         for cat in self.categories}

    def _live_clauses(self, k: KnowledgeView) -> list:
        """The live one-of clauses, (owner, cards) each, restricted to the
        free cards the owner may hold: none that a fixed card satisfies, nor
        an envelope clause that every deal satisfies (it covers every
        candidate of a category the envelope still needs a card of);
        :class:`ValueError` for a clause no card can satisfy."""
        category, fixed, allowed = self.category, self.fixed, self.allowed
        clauses = []
        for o in self.owners:
            for clause in k.one_of_clauses(o):
                if any(fixed.get(c) == o for c in clause):
                    continue
                opts = frozenset(c for c in clause if c in allowed and o in allowed[c] and c not in fixed)
                if not opts:
                    raise ValueError("a one-of clause with no possible card: the knowledge is inconsistent")
                cats = {category[c] for c in opts}
                if o == ENVELOPE and len(cats) == 1:
                    cat = next(iter(cats))
                    if self.need[cat] >= 1 and \
                            opts >= {c for c in self.free if category[c] == cat and ENVELOPE in allowed[c]}:
                        continue  # implied: every deal takes a card of the category from these
                clauses.append((o, opts))
        return clauses

    def _show_weights(self, k: KnowledgeView) -> tuple[list, float]:
        """The weights of the deals, (owner, base, cards) each, and the
        constant factor of the settled ones: a seen show weighs 1 / (the
        number of suggested cards the shower holds), a soft clue (owner, card,
        factor) the deals in which the owner holds the card by the factor."""
        fixed, allowed = self.fixed, self.allowed
        weights = []
        base_factor = 1.0
        for shower, others in _seen_shows(k):
            base = 1 + sum(1 for c in others if fixed.get(c) == shower)
            var = frozenset(c for c in others if c not in fixed and shower in allowed[c])
            if var:
                weights.append((shower, base, var))
            else:
                base_factor /= base
        # soft clues: the deals in which the owner holds the card weighted by the factor, written as a
        # one-card show weight 1 / (b + count) with b = f / (1 - f), whose ratio b / (b + 1) is f
        for owner, card, factor in soft_clues(k):
            if card in fixed or owner not in allowed.get(card, ()) or not 0.0 < factor < 1.0:
                continue  # settled (a constant factor), or no weight to give
            weights.append((owner, factor / (1.0 - factor), frozenset({card})))
        return weights, base_factor

    def same(self, other: "BeliefProblem") -> bool:
        """Whether ``other`` is the same problem (the same position of the same seat)."""
        return (self.me, self.owners, self.cards, self.allowed, self.cap0, self.clauses, self.notalls,
                self.weights, self.base_factor) == (other.me, other.owners, other.cards, other.allowed, other.cap0,
                                                    other.clauses, other.notalls, other.weights, other.base_factor)

    def order(self) -> list:
        """The free cards in DP order: those the envelope cannot hold first,
        then the envelope's candidates category by category, fewest first
        (labels are carried through as few cards as possible).  Within each
        group, cards are taken greedily so that open constraints (clauses,
        wrong accusations, seen shows) close as early as possible."""
        cats = sorted(self.categories, key=lambda cat: self.eligible[cat])
        groups: list = [[c for c in self.free if ENVELOPE not in self.allowed[c]]]
        groups += [[c for c in self.free if ENVELOPE in self.allowed[c] and self.category[c] == cat] for cat in cats]
        sets = [cs for _, cs in self.clauses] + list(self.notalls) + [cs for _, _, cs in self.weights]
        placed: set = set()
        out = []
        for group in groups:
            rest = list(group)
            while rest:
                # prefer a card in the open constraint with fewest unplaced cards
                def score(c: str) -> tuple[int, int]:
                    touching = [len(cs - placed) for cs in sets if c in cs and cs - placed]
                    return (min(touching) if touching else 99, -len(touching))
                c = min(rest, key=score)  # the first of the lowest scores
                rest.remove(c)
                placed.add(c)
                out.append(c)
        return out

    def layout(self) -> "_Layout":
        """The bit layout of DP states (see :class:`_Layout`)."""
        return _Layout(self)


class _Parts(dict):
    """code -> the envelope's cards of one category (a tuple in sheet order)
    for a field that is a bit set over the category's candidates; filled
    in as codes are met."""

    def __init__(self, known: tuple, candidates: list, sheet: dict):
        super().__init__()
        self.known, self.candidates, self.sheet = known, candidates, sheet

    def __missing__(self, code: int) -> tuple:
        cards = self.known + tuple(c for j, c in enumerate(self.candidates) if code >> j & 1)
        part = self[code] = tuple(sorted(cards, key=self.sheet.__getitem__))
        return part


class _Fields:
    """Bit fields laid out one after another in a packed state."""

    def __init__(self) -> None:
        #: The bits taken so far.
        self.width = 0

    def take(self, width: int) -> int:
        """A new field of ``width`` bits: its shift."""
        at = self.width
        self.width += width
        return at


class _Layout:
    """DP states packed into one int, with a bit field for each player's
    remaining hand capacity, the envelope's cards of each category it still
    needs cards of, each live one-of clause (satisfied yet?), each open wrong
    accusation and each seen show (counts), and the owners of up to one
    *tagged* card per category.  The layout does not depend on the order the
    cards are placed in, so layers computed for one order can be continued
    in another.

    The envelope's fields, per category (none for a category whose envelope
    cards are all known or that the envelope takes none of):

    * the envelope still needs one card: a label, 0 while empty, else the
      index of the card among the category's candidates;
    * it still needs n > 1 cards: a counter that starts at 2**w - n and
      whose top bit (2**w) says "full", and a bit set of the candidates taken.

    Either way, a card may go to the envelope when the field's "full" mask
    is clear, by adding a constant; a final state has every "full" mask set."""

    def __init__(self, pb: BeliefProblem):
        self.pb = pb
        fields = _Fields()
        field = fields.take
        self.cap_shift = [field(max(1, c.bit_length())) for c in pb.cap0]
        self.cap_mask = [((1 << max(1, c.bit_length())) - 1) << sh for c, sh in zip(pb.cap0, self.cap_shift)]
        self.all_caps = sum(self.cap_mask)
        sheet = {c: i for i, c in enumerate(pb.cards)}
        #: Whether the envelope takes one card of every category, so that its
        #: tuple has one entry per category (the classic shape).
        self.aligned = all(n == 1 for n in pb.counts.values())
        #: card -> (full mask, constant added) for a move into the envelope
        self.env_move: dict = {}
        #: the masks of a final state's envelope fields
        self.full_masks: list = []
        #: per category in sheet order: (shift, mask, code -> card or part)
        self.decode: list = []
        start = 0
        for cat in pb.categories:
            start += self._envelope_field(cat, field, sheet)
        self.clause_bit = [1 << field(1) for _ in pb.clauses]
        self.notall_field = [(field(max(1, len(cs).bit_length())), (1 << max(1, len(cs).bit_length())) - 1)
                             for cs in pb.notalls]
        self.weight_field = [(field(max(1, len(cs).bit_length())), (1 << max(1, len(cs).bit_length())) - 1)
                             for _, _, cs in pb.weights]
        self.tag_width = max(1, len(pb.owners).bit_length())
        self.tag_shift = [field(self.tag_width) for _ in pb.categories]
        self.owner_index = {o: i + 1 for i, o in enumerate(pb.owners)}
        for j, c in enumerate(pb.cap0):
            start |= c << self.cap_shift[j]
        self.start = start
        #: Whether every state fits the vectorized DP's ``uint64`` (:mod:`clue_expert.engine.reasoning.dp`).
        self.vector = fields.width <= dp.MAX_BITS and _VECTOR[0]
        #: every bit of the envelope's fields (its cards and whether it is full)
        self.env_mask = 0
        for _, mask, _ in self.decode:
            self.env_mask |= mask
        for mask in self.full_masks:
            self.env_mask |= mask
        #: envelope bits -> :meth:`env` (the passes of one position meet the same envelopes)
        self.env_of_bits: dict = {}
        #: envelope bits -> :meth:`env`, or None when a field is not full (see ``_joint_loop``)
        self.final_env: dict = {}

    def _envelope_field(self, cat: str, field: Callable[[int], int], sheet: dict) -> int:
        """Lay out the envelope's field of the category ``cat`` (its bits from
        ``field``): its moves into ``env_move``, its "full" mask into
        ``full_masks``, its decoding into ``decode``; the field's part of the
        start state (a counter's offset; 0 for a label or no field)."""
        pb, aligned = self.pb, self.aligned
        known = pb.env_known.get(cat, ())
        need = pb.need[cat]
        cands = [c for c in pb.free if pb.category[c] == cat and ENVELOPE in pb.allowed[c]]
        if need == 0:
            self.decode.append((0, 0, {0: known[0] if aligned else known}))
            return 0
        if need == 1:  # a label
            width = max(1, len(cands).bit_length())
            at = field(width)
            mask = ((1 << width) - 1) << at
            self.full_masks.append(mask)
            self.env_move.update({c: (mask, (j + 1) << at) for j, c in enumerate(cands)})
            table: dict[int, str | tuple | None]
            if aligned:
                table = {0: None, **{j + 1: c for j, c in enumerate(cands)}}
            else:
                table = {0: (None,), **{j + 1: tuple(sorted(known + (c,), key=sheet.__getitem__))
                                        for j, c in enumerate(cands)}}
            self.decode.append((at, mask, table))
            return 0
        # a counter and a bit set
        w = need.bit_length()
        at = field(w + 1)
        top = 1 << (at + w)
        bits = field(max(1, len(cands)))
        self.full_masks.append(top)
        self.env_move.update({c: (top, (1 << at) + (1 << (bits + j))) for j, c in enumerate(cands)})
        self.decode.append((bits, ((1 << max(1, len(cands))) - 1) << bits, _Parts(known, cands, sheet)))
        return ((1 << w) - need) << at

    def env(self, state: int) -> tuple:
        """The envelope's cards in a state, in sheet order (meaningful for complete states)."""
        if self.aligned:
            return tuple(table[(state & mask) >> shift] for shift, mask, table in self.decode)
        out: tuple = ()
        for shift, mask, table in self.decode:
            out += table[(state & mask) >> shift]
        return out

    def tags(self, state: int, n: int) -> tuple:
        """The owners of the first n tagged cards."""
        mask = (1 << self.tag_width) - 1
        return tuple(self.pb.owners[((state >> self.tag_shift[q]) & mask) - 1] for q in range(n))

    def final_ok(self, state: int) -> bool:
        return not state & self.all_caps and all(state & m for m in self.full_masks)

    def transitions(self, order: list, tagged=()) -> list:
        """The moves for placing the cards in ``order``, one ``(moves, close)``
        per position (see :func:`_advance`); ``tagged`` cards (at most one
        per category) have their owners recorded."""
        pb = self.pb
        tagged = list(tagged)
        if len(tagged) > len(self.tag_shift):
            raise ValueError("at most one tagged card per category")
        index = {c: i for i, c in enumerate(order)}

        def last(cs):
            return max((index[c] for c in cs), default=-1)
        out = []
        for c in order:
            moves = []
            for o in pb.allowed[c]:
                orm = add = 0
                for q, (co, cs) in enumerate(pb.clauses):
                    if co == o and c in cs:
                        orm |= self.clause_bit[q]
                for q, (sh, _, cs) in enumerate(pb.weights):
                    if sh == o and c in cs:
                        add += 1 << self.weight_field[q][0]
                if c in tagged:
                    orm |= self.owner_index[o] << self.tag_shift[tagged.index(c)]
                if o == ENVELOPE:
                    move = self.env_move.get(c)
                    if move is None:
                        continue  # the envelope cannot take it
                    for q, cs in enumerate(pb.notalls):
                        if c in cs:
                            add += 1 << self.notall_field[q][0]
                    moves.append((0, 0, move[0], move[1], orm, add))
                else:
                    j = pb.slot_of[o]
                    moves.append((self.cap_mask[j], 1 << self.cap_shift[j], 0, 0, orm, add))
            out.append([tuple(moves), None])
        closes = _closes(pb, last, len(order), self.clause_bit, self.notall_field, self.weight_field)
        for i, close in enumerate(closes):
            out[i][1] = close
        return [tuple(t) for t in out]


def _closes(pb: BeliefProblem, last: Callable, n: int, clause_bits: list, notall_fields: list,
            weight_fields: list) -> list:
    """Per position of an order of ``n`` cards: None, or what settles there
    the constraints whose last card it is (``last(cards)``, -1 for none):
    (clause bits that must be set, wrong accusations (shift, mask, size)
    that must not be complete, seen shows (shift, mask, base), the mask that
    clears their fields).  ``clause_bits`` gives each clause's bit,
    ``notall_fields`` and ``weight_fields`` each counter's (shift, mask).
    (A constraint with no free card left was settled by BeliefProblem.)"""
    closes: list = [None] * n
    for q, (_, cs) in enumerate(pb.clauses):
        i = last(cs)
        if i >= 0:
            cl = closes[i] = closes[i] or [0, [], [], 0]
            cl[0] |= clause_bits[q]
            cl[3] |= clause_bits[q]
    for q, cs in enumerate(pb.notalls):
        i = last(cs)
        if i >= 0:
            sh, m = notall_fields[q]
            cl = closes[i] = closes[i] or [0, [], [], 0]
            cl[1].append((sh, m, len(cs)))
            cl[3] |= m << sh
    for q, (_, base, cs) in enumerate(pb.weights):
        i = last(cs)
        if i >= 0:
            sh, m = weight_fields[q]
            cl = closes[i] = closes[i] or [0, [], [], 0]
            cl[2].append((sh, m, base))
            cl[3] |= m << sh
    return [None if cl is None else (cl[0], tuple(cl[1]), tuple(cl[2]), ~cl[3]) for cl in closes]


def _advance(layer, moves: tuple, close, room: int = MAX_TABLE, vector: bool = False):
    """One DP step: every state of ``layer`` with the card given to each
    owner it may go to.  A move is (capacity mask, capacity unit, envelope
    "full" mask, envelope constant, bits to set, counters to add): a player
    move needs capacity left and takes one unit of it, an envelope move
    needs the category's field not full and adds its constant.  ``close``
    (or None) settles the constraints whose last card this is: (clause bits
    that must be set, wrong accusations (shift, mask, size) that must not be
    complete, seen shows (shift, mask, base) whose weight 1 / (base + count)
    applies, the mask that clears their fields).  The work is charged
    (:mod:`clue_expert.core.work`); a new layer of more than ``room``
    entries raises :class:`TableTooLarge`."""
    if isinstance(layer, dp.Layer) or (vector and len(layer) * len(moves) >= _VECTOR_FROM):
        return dp.advance(dp.Layer.of(layer), moves, close, room, _CHUNK, _tally, _table_error)
    nxt: dict = {}
    get = nxt.get
    n_moves = len(moves)
    for chunk in _chunks(layer):
        _tally(min(len(layer), _CHUNK) * n_moves)
        _advance_chunk(chunk, moves, close, nxt, get)
        if len(nxt) > room:
            raise _table_error()
    return nxt


def _advance_chunk(items, moves: tuple, close, nxt: dict, get) -> None:
    """:func:`_advance` for some of the layer's states, into ``nxt``."""
    if close is None:
        for s0, w in items:
            for cm, cd, em, es, orm, add in moves:
                if cm:
                    if not s0 & cm:
                        continue
                    s = ((s0 - cd) | orm) + add
                else:
                    if s0 & em:
                        continue
                    s = ((s0 + es) | orm) + add
                nxt[s] = get(s, 0.0) + w
        return
    need, notall, weight, keep = close
    for s0, w in items:
        for cm, cd, em, es, orm, add in moves:
            if cm:
                if not s0 & cm:
                    continue
                s = ((s0 - cd) | orm) + add
            else:
                if s0 & em:
                    continue
                s = ((s0 + es) | orm) + add
            if s & need != need:
                continue
            if notall and any((s >> sh) & m == n for sh, m, n in notall):
                continue
            if weight:
                factor = 1.0
                for sh, m, base in weight:
                    factor /= base + ((s >> sh) & m)
                s &= keep
                nxt[s] = get(s, 0.0) + w * factor
            else:
                s &= keep
                nxt[s] = get(s, 0.0) + w


class _Forward:
    """The forward pass of the labelled DP over the free cards in the
    problem's order (:meth:`BeliefProblem.order`), every layer kept: layer ``i``
    holds the states before ``order[i]`` is placed, the last one the final
    states, whose envelope labels give the envelope's joint distribution.
    Kept with the beliefs, so that the values of suggestions continue these
    layers instead of starting again."""

    def __init__(self, pb: BeliefProblem):
        _spent[0] = 0  # a pass of its own (MAX_TABLE_WORK)
        self.pb = pb
        self.order = pb.order()
        self.layout = lay = pb.layout()
        self.layers: list = [{lay.start: 1.0}]
        _run(lay.transitions(self.order), self.layers[0], 0, self.layers, lay.vector)
        self.states = max(len(x) for x in self.layers)

    def envelope(self) -> tuple[dict, float]:
        """The envelope's distribution (cards in sheet order -> probability,
        every p > 0) and its normalising weight."""
        lay = self.layout
        final: dict[tuple, float] = {}
        last = self.layers[-1]
        vector = isinstance(last, dp.Layer) and len(last) >= _VECTOR_FROM
        if vector:
            final = _final_envelopes(lay, last)
        for state, w in () if vector else last.items():
            if w and lay.final_ok(state):
                key = lay.env(state)
                final[key] = final.get(key, 0.0) + w
        z = sum(final.values())
        if z <= 0:
            raise ValueError("no deal is consistent with the knowledge")
        return {key: w / z for key, w in final.items() if w / z > 0}, z


def _complete(lay: "_Layout", layer: "dp.Layer") -> tuple:
    """The states of a final layer with weight that are complete (every
    capacity spent, every envelope field full), and their weights."""
    states, weights = layer.states, layer.weights
    sel = (weights != 0) & ((states & np.uint64(lay.all_caps)) == 0)
    for m in lay.full_masks:
        sel &= (states & np.uint64(m)) != 0
    return states[sel], weights[sel]


def _env_ids(lay: "_Layout", states: np.ndarray) -> tuple[np.ndarray, list]:
    """Each state's envelope (an index) and the envelopes (tuples of cards)
    in the order the states first reach them."""
    bits, _, groups, _ = dp.first_order(states & np.uint64(lay.env_mask))
    envs: list = []
    ids: dict = {}
    of_bits = np.empty(len(bits), dtype=np.int64)
    known = lay.env_of_bits
    for i, b in enumerate(bits.tolist()):
        env = known.get(b)
        if env is None:
            env = known[b] = lay.env(b)
        of_bits[i] = ids.setdefault(env, len(envs))
        if of_bits[i] == len(envs):
            envs.append(env)
    return of_bits[groups], envs


def _final_envelopes(lay: "_Layout", layer: "dp.Layer") -> dict:
    """:meth:`_Forward.envelope`'s sums on a vectorized layer: envelope ->
    weight, in the order the loop would make them."""
    states, weights = _complete(lay, layer)
    env_of, envs = _env_ids(lay, states)
    sums = np.bincount(env_of, weights=weights, minlength=len(envs))
    return dict(zip(envs, sums.tolist()))


def _steps(pb: BeliefProblem, order: list) -> tuple[int, list, list, int]:
    """The forward-backward pass's packed start state, each step's moves
    (owner, capacity mask, decrement, clause bits set, counters added),
    each step's closing checks (:func:`_closes`), for the cards in ``order``,
    and the states' width in bits."""
    cats = list(pb.categories)
    # state: (player capacities..., envelope needs per category..., clause
    # bits, notall counters..., weight counters...), packed as one int
    shift = 0

    def field(width):
        nonlocal shift
        at = shift
        shift += width
        return at
    cap_at = [field(max(1, c.bit_length())) for c in pb.cap0]
    env_at = {cat: field(max(1, pb.need[cat].bit_length())) for cat in cats}
    clause_at = [field(1) for _ in pb.clauses]
    notall_at = [field(max(1, len(cs).bit_length())) for cs in pb.notalls]
    weight_at = [field(max(1, len(cs).bit_length())) for _, _, cs in pb.weights]
    cap_mask = [((1 << max(1, c.bit_length())) - 1) << at for c, at in zip(pb.cap0, cap_at)]
    env_mask = {cat: ((1 << max(1, pb.need[cat].bit_length())) - 1) << env_at[cat] for cat in cats}
    start = sum(c << at for c, at in zip(pb.cap0, cap_at)) + sum(pb.need[cat] << env_at[cat] for cat in cats)
    index = {c: i for i, c in enumerate(order)}

    def last(cs):
        return max((index[c] for c in cs if c in index), default=-1)
    moves = []
    for c in order:
        per = []
        for o in pb.allowed[c]:
            orm = add = 0
            for q, (co, cs) in enumerate(pb.clauses):
                if co == o and c in cs:
                    orm |= 1 << clause_at[q]
            for q, (sh, _, cs) in enumerate(pb.weights):
                if sh == o and c in cs:
                    add += 1 << weight_at[q]
            if o == ENVELOPE:
                cat = pb.category[c]
                if pb.need[cat] == 0:
                    continue
                for q, cs in enumerate(pb.notalls):
                    if c in cs:
                        add += 1 << notall_at[q]
                per.append((o, env_mask[cat], 1 << env_at[cat], orm, add))
            else:
                j = pb.slot_of[o]
                per.append((o, cap_mask[j], 1 << cap_at[j], orm, add))
        moves.append(per)
    closes = _closes(pb, last, len(order), [1 << at for at in clause_at],
                     [(at, (1 << max(1, len(cs).bit_length())) - 1) for at, cs in zip(notall_at, pb.notalls)],
                     [(at, (1 << max(1, len(cs).bit_length())) - 1) for at, (_, _, cs) in zip(weight_at, pb.weights)])
    return start, moves, closes, shift


def exact_marginals(pb: BeliefProblem) -> tuple[dict, float, int]:
    """Exact P(owner holds card) for every owner and card: a forward-backward
    pass whose state is the owners' remaining capacities -- the envelope an
    owner with a capacity per category, *without* labels for which cards it
    took -- plus the live one-of clauses, wrong accusations and seen shows.
    Returns (owner -> card -> probability, the weighted number of deals
    without ``pb.base_factor``, the largest number of states at one step)."""
    _spent[0] = 0  # a pass of its own (MAX_TABLE_WORK)
    order = pb.order()
    n = len(order)
    start, moves, closes, bits = _steps(pb, order)
    if bits <= dp.MAX_BITS and _VECTOR[0]:
        return _marginals_vector(pb, order, start, moves, closes)
    forward, biggest = _forward_plain(start, moves, closes)
    # every capacity is spent exactly when all cards are placed
    z = forward[n].get(0, 0.0)
    if z <= 0:
        raise ValueError("no deal is consistent with the knowledge")
    probs = _fixed_probabilities(pb)
    back = {0: 1.0}
    for i in range(n - 1, -1, -1):  # the backward pass retraces the forward's moves
        back = _backward_plain(forward[i], moves[i], closes[i], back, probs, order[i], z)
    return probs, z, biggest


def _forward_plain(start: int, moves: list, closes: list) -> tuple[list, int]:
    """The forward pass of :func:`exact_marginals` in plain loops: every
    layer (they hold at most :data:`MAX_TABLE` entries together, else
    :class:`TableTooLarge`) and the largest one's size."""
    forward = [{start: 1.0}]
    biggest = 1
    used = 1  # entries kept in the forward layers (the limit MAX_TABLE)
    for i in range(len(moves)):
        nxt: dict = {}
        get = nxt.get
        _tally(len(forward[i]) * len(moves[i]))
        if closes[i] is None:  # the common step, inlined
            for chunk in _chunks(forward[i]):
                for s0, w in chunk:
                    for _o, mask, dec, orm, add in moves[i]:
                        if s0 & mask:
                            s = ((s0 - dec) | orm) + add
                            nxt[s] = get(s, 0.0) + w * 1.0
                if used + len(nxt) > MAX_TABLE:
                    raise _table_error()
        else:
            for _s0, w, _o, s, f in _step_targets(forward[i], moves[i], closes[i]):
                nxt[s] = get(s, 0.0) + w * f
            if used + len(nxt) > MAX_TABLE:
                raise _table_error()
        forward.append(nxt)
        used += len(nxt)
        biggest = max(biggest, len(nxt))
    return forward, biggest


def _fixed_probabilities(pb: BeliefProblem) -> dict:
    """owner -> card -> probability with only the fixed cards' filled in
    (1.0 for their owners); every other 0.0, for the backward pass to fill."""
    probs = {o: {c: 0.0 for c in pb.cards} for o in pb.owners}
    for c, o in pb.fixed.items():
        probs[o][c] = 1.0
    return probs


def _backward_plain(layer: dict, moves: list, close, back: dict, probs: dict, card: str, z: float) -> dict:
    """One step of the backward pass in a plain loop, over the forward layer
    before ``card`` is placed: each owner's probability of the card into
    ``probs`` (its weight over ``z``), and the backward weights of the
    layer's states from those of the next layer (``back``)."""
    b: dict = {}
    acc: dict = {}
    get = back.get
    for s0, w, o, s, f in _step_targets(layer, moves, close):
        v = f * get(s, 0.0)
        if v:
            b[s0] = b.get(s0, 0.0) + v
            acc[o] = acc.get(o, 0.0) + w * v
    for o, v in acc.items():
        probs[o][card] = v / z
    return b


def _step_targets(layer, moves: list, close):
    """(source state, its weight, owner, target state, factor) of one step of
    :func:`exact_marginals`, in order (the plain loop)."""
    for s0, w in layer.items():
        for o, mask, dec, orm, add in moves:
            if not s0 & mask:
                continue
            s = ((s0 - dec) | orm) + add
            f = 1.0
            if close is not None:
                need, notall, weight, keep = close
                if s & need != need:
                    continue
                if any((s >> sh) & m == cnt for sh, m, cnt in notall):
                    continue
                for sh, m, base in weight:
                    f /= base + ((s >> sh) & m)
                s &= keep
            yield s0, w, o, s, f


def _marginals_vector(pb: BeliefProblem, order: list, start: int, moves: list, closes: list) -> tuple[dict, float, int]:
    """:func:`exact_marginals` with the vectorized DP (:mod:`clue_expert.engine.reasoning.dp`)
    on the steps with at least :data:`_VECTOR_FROM` (state, move) pairs and
    the plain loop on the others: the same sums in the same order."""
    owners = pb.owners
    owner_index = {o: i for i, o in enumerate(owners)}
    n = len(order)
    steps = [tuple((mask, dec, 0, 0, orm, add) for _, mask, dec, orm, add in per) for per in moves]
    move_owner = [np.array([owner_index[o] for o, *_ in per], dtype=np.int64) for per in moves]
    forward, biggest = _forward_mixed(start, moves, closes, steps)
    last = forward[n]
    if isinstance(last, dict):
        z = last.get(0, 0.0)
    else:
        z = float(last.weights[last.states == 0].sum()) if len(last) else 0.0
    if z <= 0:
        raise ValueError("no deal is consistent with the knowledge")
    probs = _fixed_probabilities(pb)
    back: dict | tuple = {0: 1.0}
    for i in range(n - 1, -1, -1):  # the backward pass retraces the forward's moves
        layer = forward[i]
        if isinstance(layer, dict):
            if not isinstance(back, dict):
                back = dict(zip(back[0].tolist(), back[1].tolist()))
            back = _backward_plain(layer, moves[i], closes[i], back, probs, order[i], z)
            continue
        if isinstance(back, dict):
            back = (np.fromiter(back.keys(), dtype=np.uint64, count=len(back)),
                    np.fromiter(back.values(), dtype=np.float64, count=len(back)))
        back = _backward_vector(layer, steps[i], closes[i], move_owner[i], back, probs, owners, order[i], z)
    return probs, z, biggest


def _forward_mixed(start: int, moves: list, closes: list, steps: list) -> tuple[list, int]:
    """The forward pass of :func:`_marginals_vector`: a step on fewer than
    :data:`_VECTOR_FROM` (state, move) pairs from a plain layer in a plain
    loop, the others vectorized (``steps``: each step's moves as the
    vectorized DP takes them), its source layer kept as a :class:`dp.Layer`;
    every layer (at most :data:`MAX_TABLE` entries together, else
    :class:`TableTooLarge`) and the largest one's size."""
    forward: list = [{start: 1.0}]
    biggest = 1
    used = 1
    for i in range(len(moves)):
        src_layer = forward[i]
        _tally(len(src_layer) * len(moves[i]))
        if isinstance(src_layer, dict) and len(src_layer) * len(moves[i]) < _VECTOR_FROM:
            nxt: dict = {}
            get = nxt.get
            if closes[i] is None:
                for s0, w in src_layer.items():
                    for _o, mask, dec, orm, add in moves[i]:
                        if s0 & mask:
                            s = ((s0 - dec) | orm) + add
                            nxt[s] = get(s, 0.0) + w * 1.0
            else:
                for _s0, w, _o, s, f in _step_targets(src_layer, moves[i], closes[i]):
                    nxt[s] = get(s, 0.0) + w * f
            new: dict | dp.Layer = nxt
        else:
            layer = dp.Layer.of(src_layer)
            forward[i] = layer
            new = _forward_vector(layer, steps[i], closes[i])
        if used + len(new) > MAX_TABLE:
            raise _table_error()
        forward.append(new)
        used += len(new)
        biggest = max(biggest, len(new))
    return forward, biggest


def _forward_vector(layer: "dp.Layer", step: tuple, close) -> "dp.Layer":
    """One vectorized step of the forward pass: the layer after the moves
    ``step`` (and the closing checks ``close``) from ``layer``."""
    t, src, _, factor = dp.expand(layer.states, step, close)
    w = layer.weights[src]
    if factor is not None:
        w = w * factor
    states, sums, _, _ = dp.first_order(t, w)
    assert sums is not None
    return dp.Layer(states, sums)


def _backward_vector(layer: "dp.Layer", step: tuple, close, move_owner: np.ndarray, back: tuple, probs: dict,
                     owners: list, card: str, z: float) -> tuple:
    """One vectorized step of the backward pass over the forward layer
    before ``card`` is placed (``move_owner``: each move's owner index):
    each owner's probability of the card into ``probs``, and the backward
    weights of the layer's states (states, weights) from the next layer's
    (``back``, likewise)."""
    t, src, move, factor = dp.expand(layer.states, step, close)
    v = dp.lookup(t, back[0], back[1])
    if factor is not None:
        v = factor * v
    nz = np.flatnonzero(v)
    src, v = src[nz], v[nz]
    who = move_owner[move[nz]]
    sums = np.bincount(who, weights=layer.weights[src] * v, minlength=len(owners))
    for o in np.unique(who).tolist():
        probs[owners[o]][card] = float(sums[o]) / z
    return (layer.states, np.bincount(src, weights=v, minlength=len(layer)))


def _envelope_options(k: KnowledgeView) -> list:
    """Per category: (its known envelope cards, the open cards that may be
    the envelope's, how many of those it still holds), in sheet order."""
    out = []
    lacked = k.lacked_by(ENVELOPE)
    held = k.held_by(ENVELOPE)
    taken = frozenset().union(*(k.held_by(p) for p in k.players))
    for cat in k.edition.categories:
        cards = sorted(k.category_cards(cat), key=k.sheet_position)
        known = [c for c in cards if c in held]
        open_ = [c for c in cards if c not in held and c not in lacked and c not in taken]
        out.append((known, open_, max(0, k.envelope_count(cat) - len(known))))
    return out


def envelope_contents(k: KnowledgeView) -> int:
    """How many contents of the envelope the sheet leaves open: per category
    C(its open cards, the cards it still holds), multiplied (an upper bound of
    the envelopes the exact beliefs list)."""
    n = 1
    for _, open_, left in _envelope_options(k):
        n *= math.comb(len(open_), left) if left <= len(open_) else 0
    return n


def estimate(k: KnowledgeView) -> Beliefs:
    """The sheet's estimate, when the exact beliefs refuse: each category's
    envelope cards uniform over the open cards (independently per
    category); a card not the envelope's split evenly among the players not
    known to lack it; ``envelope`` holds only the likeliest contents (the
    known cards and the first open ones in sheet order).  Cheap: one look at
    every cell."""
    options = _envelope_options(k)
    p_env: dict = {}
    bits = 0.0
    top_p = 1.0
    top: list = []
    for known, open_, left in options:
        ways = math.comb(len(open_), left) if left <= len(open_) else 0
        bits += math.log2(ways) if ways > 0 else 0.0
        top_p *= 1.0 / ways if ways > 0 else 0.0
        top.extend(known + open_[:left])
        for c in open_:
            p_env[c] = left / len(open_)
        for c in known:
            p_env[c] = 1.0
    probs: dict = {o: {} for o in k.owners}
    for c in k.cards:
        held = k.holders(c)
        if held:
            for o in k.owners:
                probs[o][c] = 1.0 if o in held else 0.0
            continue
        pe = p_env.get(c, 0.0)
        probs[ENVELOPE][c] = pe
        lack = k.lackers(c)
        open_players = [p for p in k.players if p not in lack]
        for p in k.players:
            probs[p][c] = (1.0 - pe) / len(open_players) if p in open_players else 0.0
    top_t = tuple(sorted(top, key=k.sheet_position))
    return Beliefs(probabilities=probs, envelope={top_t: top_p} if top_p > 0 else {}, entropy_bits=bits,
                   deals=0.0, states=0, exact=False)


@_collector_paused
def compute(k: KnowledgeView) -> Beliefs:
    """Exact beliefs for the seat's current knowledge (complete deduction):
    every cell's probability from the unlabelled forward-backward pass
    (:func:`exact_marginals`), the envelope's joint distribution from the final
    states of the labelled forward pass (:class:`_Forward`), whose layers
    are kept for the values of suggestions.  Raises :class:`TableTooLarge`
    at once when the sheet leaves more than :data:`MAX_TABLE` envelope
    contents open (:func:`envelope_contents`), and as soon as a table
    outgrows :data:`MAX_TABLE`."""
    n = envelope_contents(k)
    if n > MAX_ENVELOPES:
        raise TableTooLarge(f"the sheet leaves {_big(n)} envelope contents open, more than {MAX_ENVELOPES:,} (the "
                            f"limit on the envelopes the exact beliefs list)")
    pb = BeliefProblem(k)
    probs, z, biggest = exact_marginals(pb)
    fw = _Forward(pb)
    envelope, _ = fw.envelope()
    return Beliefs(probabilities=probs, envelope=envelope, entropy_bits=entropy(envelope.values()),
                   deals=z * pb.base_factor, states=max(biggest, fw.states), forward=fw)


def entropy(ps) -> float:
    """Entropy in bits of a distribution given by its probabilities."""
    log2 = math.log2
    return max(0.0, -sum([p * log2(p) for p in ps if p > 0]))


# --- the value of a suggestion ---------------------------------------------------
def hartley(ps) -> float:
    """log2 of the number of outcomes with non-zero probability."""
    n = sum(1 for p in ps if p > 0)
    return math.log2(n) if n else 0.0


def min_entropy(ps) -> float:
    """-log2 of the largest probability (Renyi entropy of order infinity)."""
    top = max(ps, default=1.0)
    return max(0.0, -math.log2(top)) if top > 0 else 0.0


def guess_risk(ps) -> float:
    """1 - the largest probability: the chance that a guess of the likeliest outcome is wrong (not in
    bits; a suggestion's gain in it is how much it raises, in expectation, the chance of naming the
    envelope rightly at once)."""
    return max(0.0, 1.0 - max(ps, default=1.0))


#: Uncertainty measures of the envelope's distribution, in bits: the Renyi
#: entropies of order 1 (Shannon), 0 (Hartley) and infinity (min-entropy).
#: ``deal`` ranks suggestions by what they tell about the whole deal instead;
#: ``top`` (a probability, not bits) by the expected chance that the likeliest
#: envelope after the outcome is the true one (the race's measure).
MEASURES = {"shannon": entropy, "hartley": hartley, "min": min_entropy, "deal": entropy, "top": guess_risk}


@dataclass
class SuggestionValue:
    """The value of one suggestion the seat could make."""

    cards: tuple
    """The suggested cards, one per category in sheet order (classic: suspect, weapon, room)."""
    gain_bits: float
    """Expected reduction of the envelope's entropy, in bits."""
    exact: bool
    """True when computed over every consistent deal; False for the quick
    estimate used to shortlist (independent card owners given the envelope)."""
    outcomes: dict
    """(refuter, card shown) or None (nobody refutes) -> probability."""
    entropy_after: dict
    """The same keys -> the envelope's uncertainty after that outcome, in bits."""
    deal_bits: float = 0.0
    """Expected information about the whole deal (every hand, not only the
    envelope): the outcome's entropy less the refuter's choice, in bits."""


def _grouped_sums(pair: np.ndarray, values: np.ndarray, size: int, n_envs: int, keys: list) -> dict:
    """outcome key -> the sums of ``values`` per envelope, in the order the
    (outcome, envelope) pairs ``pair`` (``key * n_envs + envelope``, below
    ``size``) first occur; the keys in the order of their first pair.  Each
    sum adds its values in the entries' order (``np.bincount``), as
    :func:`dp.first_order` does."""
    sums = np.bincount(pair, weights=values, minlength=size)
    first = np.full(size, len(pair), dtype=np.int64)
    np.minimum.at(first, pair, np.arange(len(pair)))
    seen = np.flatnonzero(first < len(pair))
    seen = seen[np.argsort(first[seen], kind="stable")]
    key_of = seen // n_envs
    by_key = np.argsort(key_of, kind="stable")  # each key's pairs together, in first-seen order
    grouped = key_of[by_key]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]]) if len(grouped) else np.zeros(0, np.int64)
    bounds = np.r_[starts, len(grouped)]
    values_by_key = sums[seen[by_key]].tolist()
    bounds_list = bounds.tolist()
    out = {}
    for i in np.argsort(by_key[starts]).tolist():  # keys in the order of their first pair
        a, b = bounds_list[i], bounds_list[i + 1]
        out[keys[int(grouped[a])]] = values_by_key[a:b]
    return out


def _run(trans: list, layer, start: int = 0, keep: list | None = None, vector: bool = False):
    """Forward DP with the transitions ``trans`` (:meth:`_Layout.transitions`)
    from position ``start``; ``keep`` gets every later layer.  The layers
    kept (those already in ``keep`` included) hold at most :data:`MAX_TABLE`
    entries together, else :class:`TableTooLarge`."""
    used = sum(map(len, keep)) if keep is not None else 0
    for i in range(start, len(trans)):
        moves, close = trans[i]
        layer = _advance(layer, moves, close, MAX_TABLE - used, vector)
        if keep is not None:
            keep.append(layer)
            used += len(layer)
    return layer


@functools.lru_cache(maxsize=None)
def _masks(n: int) -> tuple:
    """For each non-empty subset of n suggested cards (as a bit mask, in
    increasing order): (bit per card, indices of its cards, their number,
    log2 of it)."""
    out = []
    for mask in range(1, 1 << n):
        held = tuple(b for b in range(n) if mask >> b & 1)
        out.append((tuple(bool(mask >> b & 1) for b in range(n)), held, len(held), math.log2(len(held))))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _inclusion_exclusion(n: int) -> tuple:
    """For each pattern of n suggested cards (which are the envelope's): its
    key (a bool per card) and the terms (mask, sign) whose signed sums over
    the envelopes containing the mask's cards give the sums over the
    envelopes that contain exactly the pattern's cards."""
    out = []
    for pattern in range(1 << n):
        free = [i for i in range(n) if not pattern >> i & 1]
        terms = []
        for sub in range(1 << len(free)):
            mask = pattern
            for b, i in enumerate(free):
                if sub >> b & 1:
                    mask |= 1 << i
            terms.append((mask, -1.0 if bin(sub).count("1") % 2 else 1.0))
        out.append((tuple(bool(pattern >> i & 1) for i in range(n)), tuple(terms)))
    return tuple(out)


class SuggestionEvaluator:
    """Values the seat's own suggestions.

    The exact value (:meth:`evaluate`): for each outcome -- the first player
    in disproving order who holds a suggested card shows one, uniformly among
    those he holds, or nobody can -- its probability and the envelope's
    entropy after it, over every consistent deal.  The DP places the
    suggested cards (one per category) last and records their owners, so
    one pass gives the joint distribution of the envelope and the outcome;
    the layers before the first suggested card are shared by all suggestions.

    The estimate (:meth:`estimate`), Siebel's formulation with the exact
    envelope distribution: given the envelope, each other card's owner is
    taken as independent with its exact marginal.  It is cheap enough for
    every suggestion, and picks the shortlist that :meth:`rank` values
    exactly."""

    @_collector_paused
    def __init__(self, k: KnowledgeView, beliefs: Beliefs | None = None, measure: str = "shannon"):
        if k.me is None:
            raise ValueError("suggestion values need a seat ('me')")
        if measure not in MEASURES:
            raise ValueError(f"unknown uncertainty measure {measure!r}: use one of {sorted(MEASURES)}")
        #: The uncertainty measure: ``shannon`` (entropy of the envelope's
        #: distribution), ``hartley`` (log2 of the number of envelopes
        #: still possible -- zero exactly when the seat is certain) or ``min``
        #: (-log2 of the likeliest envelope's probability); ``top`` (1 - the
        #: likeliest envelope's probability: its gain is the rise in the chance
        #: of naming the envelope at once).
        self.measure = measure
        #: The knowledge valued over (the seat's, or an overlay of its clues).
        self.view = k
        self.beliefs = beliefs or compute(k)
        fw = self.beliefs.forward
        pb = BeliefProblem(k)
        if not isinstance(fw, _Forward) or not fw.pb.same(pb):
            fw = _Forward(pb)  # beliefs made elsewhere (or of another position)
        self.problem = pb = fw.pb
        self.entropy_bits = MEASURES[measure](list(self.beliefs.envelope.values()))
        i = pb.players.index(k.me)  # pb.me: the problems are the same(), seat included
        #: Players after the seat, in disproving order.
        self.order = pb.players[i + 1:] + pb.players[:i]
        self.base = fw.order
        self._layout = fw.layout
        #: Forward passes to continue: (order, card -> position, layers), the
        #: first one the beliefs' own; :meth:`rank` adds one whose order ends
        #: with the shortlist's cards.
        self._passes = [(fw.order, {c: i for i, c in enumerate(fw.order)}, fw.layers)]
        self._cache: dict = {}
        #: the cards outside the envelope -> their outcome likelihood (see :meth:`estimate`)
        self._likelihoods: dict = {}
        self._cat_index = {cat: i for i, cat in enumerate(pb.categories)}
        #: Estimate Shannon values from pattern sums (one pass over the
        #: envelope distribution in all) instead of a pass per suggestion.
        self.fast_estimate = True

    def candidates(self) -> list:
        """Every distinct suggestion (one card per category, in sheet order):
        in each category the free cards and one card per known owner (cards
        with the same known owner, or held by the seat or the envelope, give
        the same outcomes; the seat's own card is preferred to the
        envelope's, which would tell the table more)."""
        pb = self.problem
        per_cat = []
        mine_first = sorted(pb.cards, key=lambda c: pb.fixed.get(c) != pb.me)
        for cat in pb.categories:
            cs: list[str] = []
            reps: dict[str, str] = {}
            for c in mine_first:
                if pb.category[c] != cat:
                    continue
                if c in pb.fixed:
                    o = pb.fixed[c]
                    reps.setdefault("nobody" if o in (pb.me, ENVELOPE) else o, c)
                else:
                    cs.append(c)
            per_cat.append(cs + list(reps.values()))
        n = math.prod(map(len, per_cat))
        if n > MAX_SUGGESTIONS:
            raise TableTooLarge(f"{n:,} suggestions to value, more than {MAX_SUGGESTIONS:,} (the limit on the "
                                f"suggestions one ranking values)")
        return list(itertools.product(*per_cat))

    def _in_order(self, suggestion) -> tuple:
        """The suggestion's cards in category order, whatever order they came in."""
        if len(suggestion) > MAX_SUGGESTION_CARDS:
            raise TableTooLarge(f"a suggestion of {len(suggestion)} cards, more than {MAX_SUGGESTION_CARDS} (the "
                                f"limit on the cards of a suggestion valued exactly)")
        cat = self.problem.category
        if tuple([cat[c] for c in suggestion]) == self.problem.categories:  # already in order (candidates are)
            return tuple(suggestion)
        index = self._cat_index
        suggestion = tuple(sorted(suggestion, key=lambda c: index[cat[c]]))
        if [cat[c] for c in suggestion] != list(self.problem.categories):
            raise ValueError(f"a suggestion names one card of each category, got {list(suggestion)}")
        return suggestion

    @_collector_paused
    def evaluate(self, suggestion) -> SuggestionValue:
        """The exact value of suggesting ``suggestion`` (one card per category)."""
        suggestion = self._in_order(suggestion)
        if suggestion in self._cache:
            return self._cache[suggestion]
        pb = self.problem
        # the suggested cards of open owner are placed last, their owners recorded
        free = [c for c in suggestion if c not in pb.fixed]
        layer, tagged = self._final_layer(free)
        lay = self._layout
        tag_mask = 0
        for q in range(len(tagged)):
            tag_mask |= ((1 << lay.tag_width) - 1) << lay.tag_shift[q]
        fixed_owner = {c: pb.fixed[c] for c in suggestion if c in pb.fixed}
        if lay.vector and len(layer) >= _VECTOR_FROM // 2:  # (cheaper than the loop from about 256 states)
            lists, choice = self._joint_vector(suggestion, dp.Layer.of(layer), tagged, tag_mask, fixed_owner)
        else:
            lists, choice = self._joint_loop(suggestion, layer, tagged, tag_mask, fixed_owner)
        value = self._value(suggestion, lists, exact=True, choice=choice)
        self._cache[suggestion] = value
        return value

    def _final_layer(self, free: list) -> tuple:
        """The final layer of a pass that places the cards ``free`` last,
        their owners tagged, continued from the kept pass whose layers reach
        furthest (the first of those); and the tagged cards in the order
        they are placed."""
        def reach(p: tuple) -> int:
            order, position, _ = p
            return min((position[c] for c in free), default=len(order))
        base, position, layers = max(self._passes, key=reach)  # the first of the furthest
        start = reach((base, position, layers))
        _spent[0] = 0
        tagged = sorted(free, key=position.__getitem__)
        order = base[:start] + [c for c in base[start:] if c not in tagged] + tagged
        lay = self._layout
        return _run(lay.transitions(order, tagged), layers[start], start, vector=lay.vector), tagged

    def _joint_loop(self, suggestion, layer: "dict | dp.Layer", tagged: list, tag_mask: int,
                    fixed_owner: dict) -> tuple[dict, float]:
        """:meth:`evaluate`'s sums in a plain loop over a final layer: outcome -> the
        weights of its envelopes, and the weighted sum of log2 of the
        refuter's choices."""
        lay = self._layout
        joint: dict = defaultdict(lambda: defaultdict(float))
        choice = 0.0  # sum of weight * log2(number of cards the refuter could show)
        # a final state's envelope depends on its envelope fields only, the
        # outcome on its tags only: each is worked out once
        env_mask = lay.env_mask
        envs = lay.final_env  # (shared by the passes of the position)
        outcomes: dict = {}
        all_caps, full_masks = lay.all_caps, lay.full_masks
        for state, w in layer.items():
            if not w or state & all_caps:
                continue
            bits = state & env_mask
            env = envs.get(bits, envs)
            if env is envs:
                env = envs[bits] = lay.env(state) if all(state & m for m in full_masks) else None
            if env is None:
                continue
            bits = state & tag_mask
            outcome = outcomes.get(bits)
            if outcome is None:
                owner = dict(fixed_owner)
                owner.update(zip(tagged, lay.tags(state, len(tagged))))
                outcome = outcomes[bits] = self._outcome(suggestion, owner)
            shown, k, log_k = outcome
            if k:
                for key in shown:
                    joint[key][env] += w / k
                choice += w * log_k
            else:
                joint[None][env] += w
        return {key: list(d.values()) for key, d in joint.items()}, choice

    def _joint_vector(self, suggestion, layer: "dp.Layer", tagged: list, tag_mask: int,
                      fixed_owner: dict) -> tuple[dict, float]:
        """:meth:`evaluate`'s sums on a vectorized final layer: outcome -> the
        weights of its envelopes, and the weighted sum of log2 of the
        refuter's choices, added in the order the loop adds them."""
        lay = self._layout
        states, weights = _complete(lay, layer)
        env_of, envs = _env_ids(lay, states)
        tag_bits, _, tag_of, _ = dp.first_order(states & np.uint64(tag_mask))
        keys: list = []  # the outcomes' keys, (refuter, card) or None
        key_id: dict = {}
        width = max(1, len(suggestion))
        table = np.full((len(tag_bits), width), -1, dtype=np.int64)  # outcome -> its keys' ids
        ks = np.zeros(len(tag_bits))
        logs = np.zeros(len(tag_bits))
        for i, bits in enumerate(tag_bits.tolist()):
            owner = dict(fixed_owner)
            owner.update(zip(tagged, lay.tags(bits, len(tagged))))
            shown, k, log_k = self._outcome(suggestion, owner)
            for j, key in enumerate(shown if k else (None,)):
                table[i, j] = key_id.setdefault(key, len(keys))
                if table[i, j] == len(keys):
                    keys.append(key)
            ks[i], logs[i] = max(k, 1), log_k
        per_state = table[tag_of]  # state -> its keys (-1: none), in the loop's order
        share = weights / ks[tag_of]
        flat = np.flatnonzero(per_state.reshape(-1) >= 0)
        key_of = per_state.reshape(-1)[flat]
        state_of = flat // width
        n_envs = max(1, len(envs))
        pair = key_of * n_envs + env_of[state_of]
        lists = _grouped_sums(pair, share[state_of], len(keys) * n_envs, n_envs, keys)
        terms = weights * logs[tag_of]
        choice = float(np.cumsum(terms)[-1]) if len(terms) else 0.0
        return lists, choice

    def _outcome(self, suggestion, owner: dict) -> tuple:
        """Who refutes, given the owner of each suggested card: ((refuter,
        card) for each card he may show, their number, its log2); ((), 0, 0)
        when nobody can."""
        for p in self.order:
            shown = [c for c in suggestion if owner[c] == p]
            if shown:
                return tuple((p, c) for c in shown), len(shown), math.log2(len(shown))
        return (), 0, 0.0

    def _value(self, suggestion, joint: dict, exact: bool, choice: float) -> SuggestionValue:
        z = sum(sum(ws) for ws in joint.values())
        if z <= 0:
            raise ValueError("no deal is consistent with the knowledge")
        measure = MEASURES["shannon" if self.measure == "deal" else self.measure]
        outcomes, after = {}, {}
        expected = 0.0
        for key, ws in joint.items():
            pz = sum(ws)
            if pz <= 0:
                continue
            outcomes[key] = pz / z
            after[key] = measure([w / pz for w in ws])
            expected += outcomes[key] * after[key]
        # what the outcome tells about the whole deal: I(deal; outcome) =
        # H(outcome) - E[log2 of the refuter's number of choices]
        deal_bits = max(0.0, entropy(outcomes.values()) - choice / z)
        gain = deal_bits if self.measure == "deal" else max(0.0, self.entropy_bits - expected)
        return SuggestionValue(suggestion, gain, exact, outcomes, after, deal_bits)

    def _pattern_sums(self):
        """Sums of p and of p*log2(p) over the envelope distribution, for
        every set of categories and every choice of one envelope card in
        each (in the classic game: by suspect, weapon, room, each pair and
        each triple): with them the sums over the envelopes that do or do
        not contain each suggested card follow by inclusion-exclusion,
        without a pass over the distribution."""
        if getattr(self, "_sums", None) is None:
            pb = self.problem
            n = len(pb.categories)
            aligned = all(v == 1 for v in pb.counts.values())
            dense = self._dense_sums() if aligned else None
            if dense is not None:
                self._sums = dense
                return dense
            tables = [defaultdict(lambda: [0.0, 0.0]) for _ in range(1 << n)]
            for t, p in self.beliefs.envelope.items():
                pl = p * math.log2(p) if p > 0 else 0.0
                if aligned:
                    for mask in range(1 << n):
                        key = tuple(t[i] if mask >> i & 1 else None for i in range(n))
                        cell = tables[mask][key]
                        cell[0] += p
                        cell[1] += pl
                    continue
                parts = [tuple(c for c in t if pb.category[c] == cat) for cat in pb.categories]
                for mask in range(1 << n):
                    for key in itertools.product(*(parts[i] if mask >> i & 1 else (None,) for i in range(n))):
                        cell = tables[mask][key]
                        cell[0] += p
                        cell[1] += pl
            self._sums = tables
        return self._sums

    def _dense_sums(self) -> "siebel.PatternTables | None":
        """The pattern sums in dense tables (:class:`siebel.PatternTables`, the same
        sums as the dicts), or None when an envelope's cards are not one per
        category in category order or the tables would be too large."""
        pb = self.problem
        per_cat = [[c for c in pb.cards if pb.category[c] == cat] for cat in pb.categories]
        sizes = [len(cs) for cs in per_cat]
        if not siebel.PatternTables.fits(sizes):
            return None
        index = {c: (i, j) for i, cs in enumerate(per_cat) for j, c in enumerate(cs)}
        envelopes = list(self.beliefs.envelope)
        if any(len(t) != len(sizes) or any(index[c][0] != i for i, c in enumerate(t)) for t in envelopes):
            return None
        return siebel.PatternTables(sizes, index, envelopes, list(self.beliefs.envelope.values()))

    def _by_pattern(self, suggestion) -> dict:
        """pattern (which suggested cards are the envelope's) -> (sum p, sum p log2 p)."""
        tables = self._pattern_sums()
        zero = (0.0, 0.0)
        n = len(suggestion)
        if isinstance(tables, siebel.PatternTables):
            values = [tables.value(suggestion, mask) for mask in range(1 << n)]
        else:
            values = [tables[mask].get(tuple(suggestion[i] if mask >> i & 1 else None for i in range(n)), zero)
                      for mask in range(1 << n)]
        out = {}
        for key, terms in _inclusion_exclusion(n):
            # over the cards the pattern says are not the envelope's
            s0 = s1 = 0.0
            for mask, sign in terms:
                v = values[mask]
                s0 += sign * v[0]
                s1 += sign * v[1]
            if s0 > 1e-15:
                out[key] = (s0, s1)
        return out

    def estimate(self, suggestion) -> SuggestionValue:
        """The quick estimate of the value of suggesting ``suggestion``."""
        suggestion = self._in_order(suggestion)
        probs = self.beliefs.probabilities
        fast = (self.fast_estimate and self.measure in ("shannon", "deal")
                and len(suggestion) <= _PATTERN_CATEGORIES)
        # the likelihood of each outcome depends on the envelope only through
        # which of the suggested cards it holds
        if fast:
            groups = self._by_pattern(suggestion)
        else:
            groups = defaultdict(list)
            for t, p in self.beliefs.envelope.items():
                groups[tuple(c in t for c in suggestion)].append(p)
        choice = 0.0
        joint: dict = defaultdict(list)
        likelihoods = self._likelihoods
        for pattern, group in groups.items():
            # the outcome depends on the cards outside the envelope only
            # (those in it nobody shows), so their likelihood is shared by
            # every suggestion with the same such cards
            out_cards = tuple([c for c, in_env in zip(suggestion, pattern) if not in_env])
            cached = likelihoods.get(out_cards)
            if cached is None:
                q = {}
                for c in out_cards:
                    rest = 1.0 - probs[ENVELOPE][c]
                    q[c] = {p: (probs[p][c] / rest if rest > 0 else 0.0) for p in self.order}
                cached = self._likelihoods[out_cards] = self._likelihood(out_cards, q)
            likelihood, elog = cached
            mass = group[0] if fast else sum(group)
            if fast:
                for key, lk in likelihood.items():
                    joint[key].append((lk, group))
            else:
                for key, lk in likelihood.items():
                    joint[key].extend(p * lk for p in group)
            choice += mass * elog
        if not fast:
            return self._value(suggestion, dict(joint), exact=False, choice=choice)
        # Shannon entropy of each outcome's posterior from the pattern sums:
        # H = -(1/Z) sum_pattern lk * (S1 + S0 * log2(lk / Z))
        outcomes, after = {}, {}
        expected = 0.0
        log2 = math.log2
        for key, parts in joint.items():
            z = sum([lk * s0 for lk, (s0, _) in parts])
            if z <= 0:
                continue
            h = -sum([lk * (s1 + s0 * log2(lk / z)) for lk, (s0, s1) in parts if lk > 0]) / z
            outcomes[key] = z
            after[key] = h if h > 0.0 else 0.0
            expected += z * after[key]
        total = sum(outcomes.values())
        outcomes = {key: v / total for key, v in outcomes.items()}
        expected /= total
        deal_bits = max(0.0, entropy(outcomes.values()) - choice / total)
        gain = deal_bits if self.measure == "deal" else max(0.0, self.entropy_bits - expected)
        return SuggestionValue(suggestion, gain, False, outcomes, after, deal_bits)

    def _likelihood(self, suggestion, q: dict) -> tuple:
        """Outcome probabilities when card c's owner is p with probability
        q[c][p], independently (Siebel's sequential formula), and the
        expected log2 of the refuter's number of choices."""
        order = self.order
        m = len(order)
        n = len(suggestion)
        qs = [[q[c].get(p, 0.0) for p in order] for c in suggestion]
        out: dict = {}
        elog = 0.0
        reach = 1.0  # probability that every player so far passed
        for j, p in enumerate(order):
            pcs = [qc[j] for qc in qs]
            comp = [1.0 - pc for pc in pcs]
            for bits, held, k, log_k in _masks(n):  # which of the suggested cards p holds
                w = reach
                for b in range(n):
                    w *= pcs[b] if bits[b] else comp[b]
                if w <= 0:
                    continue
                for b in held:
                    key = (p, suggestion[b])
                    out[key] = out.get(key, 0.0) + w / k
                elog += w * log_k
            reach *= math.prod(comp)
            # given that p passed, each card's other owners are rescaled
            for b, pc in enumerate(pcs):
                if pc < 1.0:
                    qc, d = qs[b], comp[b]
                    for i in range(j + 1, m):
                        qc[i] = qc[i] / d
        if reach > 0:
            out[None] = out.get(None, 0.0) + reach
        return out, elog

    @_collector_paused
    def rank(self, shortlist: int = 6, among=None) -> list:
        """The best suggestions, exactly valued: every candidate (or every
        suggestion of ``among``, an iterable of card tuples) is estimated,
        the ``shortlist`` best estimates are evaluated exactly, and those are
        returned best first (equal values keep the candidates' order, which
        is the sheet's card order)."""
        suggestions = self.candidates() if among is None else list(dict.fromkeys(tuple(t) for t in among))
        if not suggestions:
            return []
        if len(suggestions) > MAX_SUGGESTIONS:
            raise TableTooLarge(f"{len(suggestions):,} suggestions to value, more than {MAX_SUGGESTIONS:,} (the "
                                f"limit on the suggestions one ranking values)")
        if work.late():  # the request is spent: the caller's stand-in answers
            raise TableTooLarge(f"the suggestions were not valued: the request passed its deadline "
                                f"({RUN_SECONDS:g} s) or its library work")
        _charge(len(suggestions) * len(self.order) * (1 << min(len(self.problem.categories), 12)),
                    "the suggestions' estimates")
        short = self._shortlist(suggestions, max(1, shortlist))
        try:
            self._prepare(short)
            exact = [self.evaluate(t) for t in short]
        except TableTooLarge:  # a pass too big to run: the shortlist keeps its estimates
            return [self.estimate(t) for t in short]
        return sorted(exact, key=lambda v: -round(v.gain_bits, 12))

    def _shortlist(self, suggestions: list, size: int) -> list:
        """The suggestions (their cards in category order) of the ``size`` best
        quick estimates, best first (equal values in the suggestions' order).
        With many Shannon estimates to make, their gains come from one
        vectorized pass (:func:`siebel.shannon_gains`, the same floats)."""
        gains = self._estimate_gains(suggestions) if len(suggestions) > size else None
        if gains is None or None in gains:  # (an estimate that fails: the loop, which raises as it does)
            ranked = sorted((self.estimate(t) for t in suggestions), key=lambda v: -round(v.gain_bits, 12))
            return [v.cards for v in ranked[:size]]
        order = sorted(range(len(suggestions)), key=lambda i: -round(gains[i], 12))
        return [self._in_order(suggestions[i]) for i in order[:size]]

    def _estimate_gains(self, suggestions: list) -> list | None:
        """The quick estimates' gains of ``suggestions`` (:meth:`estimate`'s
        ``gain_bits``, bit for bit), vectorized; None where that path does not
        apply (another measure, or too many categories for the pattern sums)."""
        n = len(self.problem.categories)
        if not (self.fast_estimate and self.measure == "shannon" and n <= _PATTERN_CATEGORIES):
            return None
        suggestions = [self._in_order(t) for t in suggestions]
        probs = self.beliefs.probabilities
        rows: dict = {}
        for c in {c for t in suggestions for c in t}:
            rest = 1.0 - probs[ENVELOPE][c]
            rows[c] = [(probs[p][c] / rest if rest > 0 else 0.0) for p in self.order]
        q = np.array([[rows[c] for c in t] for t in suggestions], dtype=float).reshape(
            len(suggestions), n, len(self.order))
        tables = self._pattern_sums()
        if isinstance(tables, siebel.PatternTables):
            values = tables.values(suggestions)
        else:
            zero = (0.0, 0.0)
            values = np.array([[tables[mask].get(tuple(t[i] if mask >> i & 1 else None for i in range(n)), zero)
                                for mask in range(1 << n)] for t in suggestions], dtype=float)
        s0, s1 = siebel.pattern_sums(values, tuple(terms for _, terms in _inclusion_exclusion(n)))
        return siebel.shannon_gains(q, s0, s1, self.entropy_bits)

    def _prepare(self, suggestions: list) -> None:
        """Add a forward pass for valuing ``suggestions`` together: the
        beliefs' pass continued from the first of their open cards with the
        other cards first and theirs last, so that each suggestion's own
        pass starts near the end."""
        fixed = self.problem.fixed
        todo = [s for s in suggestions if self._in_order(s) not in self._cache]
        if len(todo) < 2:
            return
        count: dict = {}
        for s in todo:
            for c in s:
                if c not in fixed:
                    count[c] = count.get(c, 0) + 1
        order0, position0, layers0 = self._passes[0]
        if not count:
            return
        start = min(position0[c] for c in count)
        # greedily: next the card that starts the fewest suggestions not yet
        # started (a suggestion's own pass starts at its first card here)
        sets = [{c for c in s if c not in fixed} for s in todo]
        started = [False] * len(sets)
        rest = sorted(count, key=position0.__getitem__)
        tail = []
        while rest:
            c = min(rest, key=lambda c: sum(1 for i, cs in enumerate(sets) if not started[i] and c in cs))
            rest.remove(c)
            tail.append(c)
            for i, cs in enumerate(sets):
                if c in cs:
                    started[i] = True
        order = order0[:start] + [c for c in order0[start:] if c not in count] + tail
        layers = layers0[:start + 1]
        _spent[0] = 0
        _run(self._layout.transitions(order), layers[start], start, layers, self._layout.vector)
        self._passes.append((order, {c: i for i, c in enumerate(order)}, layers))
