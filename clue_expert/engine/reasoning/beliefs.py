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

The forward pass's layers are kept with the beliefs: the values of the seat's
suggestions (:mod:`clue_expert.engine.reasoning.scoring`) continue them.

The knowledge is read through its public queries only.
"""
from __future__ import annotations

import functools
import gc
import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Callable

from ...core import work
from ...core.facts import ENVELOPE
from . import dp, kernels
from .lazy_numpy import np
from ..language.expr import RUN_SECONDS, LimitError
from ..seat.queries import KnowledgeView

# ``Knowledge`` (clue_expert.engine.seat.knowledge) is named in annotations only and
# not imported (the rule library, which knowledge loads, imports this module).


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
_CHUNK = 16_384  # source states between looks at the table's size (and charges of work)
#: Whether the DP runs vectorized (:mod:`clue_expert.engine.reasoning.dp`) when its states fit; False: the
#: plain loops always (the tests compare the two).
_VECTOR = [True]
#: A step on fewer (source state, move) pairs than this runs the plain loop even then: numpy's
#: overhead per call outweighs it on small layers (3 players, late positions).
_VECTOR_FROM = 512


#: With the compiled kernels (:mod:`clue_expert.engine.reasoning.kernels`) a step runs
#: compiled from this many (source state, move) pairs.
_KERNEL_FROM = 64


def _step_from() -> int:
    """How many (source state, move) pairs a step needs to run vectorized or compiled."""
    return _KERNEL_FROM if kernels.available() else _VECTOR_FROM


class TableTooLarge(LimitError):
    """The exact beliefs would need more than :data:`MAX_TABLE` table entries."""


def start_pass() -> None:
    """Start counting the work of a new exact computation (a pass of its own,
    held to :data:`MAX_TABLE_WORK`)."""
    _spent[0] = 0


def vector_final(lay: "StateLayout", states: int) -> bool:
    """Whether the sums over a final layer of ``states`` entries run
    vectorized: cheaper than the loop from about 256 states."""
    return lay.vector and states >= _VECTOR_FROM // 2


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
    charge(units, "the exact beliefs' table")


def charge(units: int, what: str) -> None:
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


def collector_paused(fn):
    """Run ``fn`` with Python's cyclic garbage collector paused: the DP
    passes allocate hundreds of thousands of dicts and tuples, none of them
    in a reference cycle, and the collector's passes over them (and over
    everything else alive) cost a fifth of an information player's decision.
    The collector runs again afterwards as usual.  The CPU time is counted
    for :func:`kernels.warm_if_due`."""
    @functools.wraps(fn)
    def paused(*args, **kwargs):
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            kernels.spent(time.process_time() - start)  # (when a long run loads the kernels)
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
        if min(self.cap0, default=0) < 0:  # a supposed view (probable clues taken as facts) can say so
            over = [p for p, c in zip(self.players, self.cap0) if c < 0]
            raise ValueError(f"{', '.join(over)} would hold more cards than the hand: the knowledge is inconsistent")
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

    def card_classes(self) -> dict:
        """free card -> its class under the problem's symmetries (a number,
        made once): its category, the owners it may have and the constraints
        (one-of clauses, wrong accusations, seen shows and soft clues) it is
        in.  Two free cards of one class can be swapped in every deal without
        changing its weight (each constraint holds both or neither), so
        whatever the beliefs say of one they say of the other, renamed."""
        made = getattr(self, "_classes", None)
        if made is None:
            ids: dict = {}
            made = self._classes = {c: ids.setdefault((
                self.category[c], tuple(self.allowed[c]), tuple(q for q, (_, cs) in enumerate(self.clauses) if c in cs),
                tuple(q for q, cs in enumerate(self.notalls) if c in cs),
                tuple(q for q, (_, _, cs) in enumerate(self.weights) if c in cs)), len(ids))
                for c in self.free}
        return made

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

    def layout(self) -> "StateLayout":
        """The bit layout of DP states (see :class:`StateLayout`)."""
        return StateLayout(self)


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


class StateLayout:
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
        #: (card, its tag's slot or -1) -> its moves (:meth:`transitions`)
        self._moves_of: dict = {}

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

    def transitions(self, order: list, tagged=(), start: int = 0) -> list:
        """The moves for placing the cards in ``order``, one ``(moves, close)``
        per position (see :func:`_advance`); ``tagged`` cards (at most one
        per category) have their owners recorded.  Positions before ``start``
        (a pass continued from there) get no moves."""
        pb = self.pb
        tagged = list(tagged)
        if len(tagged) > len(self.tag_shift):
            raise ValueError("at most one tagged card per category")
        index = {c: i for i, c in enumerate(order)}

        def last(cs):
            return max((index[c] for c in cs), default=-1)
        out: list = [[(), None] for _ in order[:start]]
        memo = self._moves_of
        for c in order[start:]:
            slot = tagged.index(c) if c in tagged else -1
            moves = memo.get((c, slot))
            if moves is not None:  # (a card's moves depend on the card and its tag's slot alone)
                out.append([moves, None])
                continue
            moves = []
            for o in pb.allowed[c]:
                orm = add = 0
                for q, (co, cs) in enumerate(pb.clauses):
                    if co == o and c in cs:
                        orm |= self.clause_bit[q]
                for q, (sh, _, cs) in enumerate(pb.weights):
                    if sh == o and c in cs:
                        add += 1 << self.weight_field[q][0]
                if slot >= 0:
                    orm |= self.owner_index[o] << self.tag_shift[slot]
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
            memo[(c, slot)] = moves = tuple(moves)
            out.append([moves, None])
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
    if isinstance(layer, dp.Layer) or (vector and len(layer) * len(moves) >= _step_from()):
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


class ForwardPass:
    """The forward pass of the labelled DP over the free cards in the
    problem's order (:meth:`BeliefProblem.order`), every layer kept: layer ``i``
    holds the states before ``order[i]`` is placed, the last one the final
    states, whose envelope labels give the envelope's joint distribution.
    Kept with the beliefs, so that the values of suggestions continue these
    layers instead of starting again."""

    def __init__(self, pb: BeliefProblem):
        start_pass()
        self.pb = pb
        self.order = pb.order()
        self.layout = lay = pb.layout()
        self.layers: list = [{lay.start: 1.0}]
        run_layers(lay.transitions(self.order), self.layers[0], 0, self.layers, lay.vector)
        self.states = max(len(x) for x in self.layers)

    def envelope(self) -> tuple[dict, float]:
        """The envelope's distribution (cards in sheet order -> probability,
        every p > 0) and its normalising weight (worked out once: a new dict each call)."""
        made = getattr(self, "_envelope", None)
        if made is None:
            made = self._envelope = self._sum_envelope()
        return dict(made[0]), made[1]

    def _sum_envelope(self) -> tuple[dict, float]:
        """:meth:`envelope`, summed from the final layer."""
        lay = self.layout
        final: dict[tuple, float] = {}
        last = self.layers[-1]
        vector = isinstance(last, dp.Layer) and len(last) >= _VECTOR_FROM
        if vector:
            final = _final_envelopes(lay, last)
        known, env_mask = lay.env_of_bits, lay.env_mask
        all_caps, full_masks = lay.all_caps, lay.full_masks
        for state, w in () if vector else last.items():
            if not w or state & all_caps:  # (lay.final_ok, inlined)
                continue
            for mask in full_masks:
                if not state & mask:
                    break
            else:
                bits = state & env_mask  # (the envelope decoded once per position, as envelope_ids does)
                key = known.get(bits)
                if key is None:
                    key = known[bits] = lay.env(bits)
                final[key] = final.get(key, 0.0) + w
        z = sum(final.values())
        if z <= 0:
            raise ValueError("no deal is consistent with the knowledge")
        return {key: w / z for key, w in final.items() if w / z > 0}, z


def complete_states(lay: "StateLayout", layer: "dp.Layer") -> tuple:
    """The states of a final layer with weight that are complete (every
    capacity spent, every envelope field full), and their weights."""
    states, weights = layer.states, layer.weights
    sel = (weights != 0) & ((states & np.uint64(lay.all_caps)) == 0)
    for m in lay.full_masks:
        sel &= (states & np.uint64(m)) != 0
    return states[sel], weights[sel]


def envelope_ids(lay: "StateLayout", states: np.ndarray) -> tuple[np.ndarray, list]:
    """Each state's envelope (an index) and the envelopes (tuples of cards)
    in the order the states first reach them."""
    bits, _, groups, _ = dp.first_order(states & np.uint64(lay.env_mask))
    known = lay.env_of_bits
    envs: list = []
    for b in bits.tolist():
        env = known.get(b)
        if env is None:
            env = known[b] = lay.env(b)
        envs.append(env)
    if len(set(envs)) == len(envs):  # (complete states: each envelope has its own bits)
        return groups, envs
    ids: dict = {}
    of_bits = np.array([ids.setdefault(env, len(ids)) for env in envs], dtype=np.int64)
    return of_bits[groups], list(ids)


def _final_envelopes(lay: "StateLayout", layer: "dp.Layer") -> dict:
    """:meth:`ForwardPass.envelope`'s sums on a vectorized layer: envelope ->
    weight, in the order the loop would make them."""
    states, weights = complete_states(lay, layer)
    env_of, envs = envelope_ids(lay, states)
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
    start_pass()
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
    if close is None:  # the common step, inlined (a factor of 1.0 changes nothing)
        for s0, w in layer.items():
            for o, mask, dec, orm, add in moves:
                if s0 & mask:
                    v = get(((s0 - dec) | orm) + add, 0.0)
                    if v:
                        b[s0] = b.get(s0, 0.0) + v
                        acc[o] = acc.get(o, 0.0) + w * v
    else:
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
    z = _final_weight(forward[n])
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


def _final_weight(last: "dict | dp.Layer") -> float:
    """The weight of the unlabelled pass's final state 0 (every capacity
    spent): the weighted number of deals."""
    if isinstance(last, dict):
        return last.get(0, 0.0)
    return float(last.weights[last.states == 0].sum()) if len(last) else 0.0


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
        if isinstance(src_layer, dict) and len(src_layer) * len(moves[i]) < _step_from():
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
    return dp.step(layer, step, close)[0]


def _backward_vector(layer: "dp.Layer", step: tuple, close, move_owner: np.ndarray, back: tuple, probs: dict,
                     owners: list, card: str, z: float) -> tuple:
    """One vectorized step of the backward pass over the forward layer
    before ``card`` is placed (``move_owner``: each move's owner index):
    each owner's probability of the card into ``probs``, and the backward
    weights of the layer's states (states, weights) from the next layer's
    (``back``, likewise)."""
    if kernels.available():
        b, acc, touched = kernels.backward(layer.states, layer.weights, kernels.move_array(step),
                                           kernels.close_arrays(close), move_owner, len(owners), back[0], back[1])
        for o in np.flatnonzero(touched).tolist():
            probs[owners[o]][card] = float(acc[o]) / z
        return (layer.states, b)
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


def estimate_top_probability(k: KnowledgeView) -> float:
    """The probability :func:`estimate` gives its likeliest envelope (every
    category's open cards uniform), without the rest of the estimate; 0.0
    where it gives none."""
    p = 1.0
    for _, open_, left in _envelope_options(k):
        ways = math.comb(len(open_), left) if left <= len(open_) else 0
        p *= 1.0 / ways if ways > 0 else 0.0
    return p


def _check_envelopes(k: KnowledgeView) -> None:
    """:class:`TableTooLarge` when the sheet leaves more than :data:`MAX_ENVELOPES` envelope contents open."""
    n = envelope_contents(k)
    if n > MAX_ENVELOPES:
        raise TableTooLarge(f"the sheet leaves {_big(n)} envelope contents open, more than {MAX_ENVELOPES:,} (the "
                            f"limit on the envelopes the exact beliefs list)")


@collector_paused
def check_exact(k: KnowledgeView) -> None:
    """Raise what :func:`compute` would raise on ``k`` at the limits of the
    exact beliefs (:class:`TableTooLarge`: :data:`MAX_ENVELOPES`,
    :data:`MAX_TABLE`, :data:`MAX_TABLE_WORK`; ``ValueError`` for no
    consistent deal), mostly without computing them: the unlabelled forward
    pass runs as :func:`compute` runs it first (so it stops where that
    stops), and the labelled pass (:class:`ForwardPass`) only when the bound
    that pass gives (:func:`_labelled_fits`) does not already show it fits.
    (The work the skipped passes would have charged to the request is not
    charged.)"""
    _check_envelopes(k)
    pb = BeliefProblem(k)
    start_pass()
    order = pb.order()
    start, moves, closes, bits = _steps(pb, order)
    if bits <= dp.MAX_BITS and _VECTOR[0]:
        steps = [tuple((mask, dec, 0, 0, orm, add) for _, mask, dec, orm, add in per) for per in moves]
        forward, _ = _forward_mixed(start, moves, closes, steps)
    else:
        forward, _ = _forward_plain(start, moves, closes)
    if _final_weight(forward[-1]) <= 0:
        raise ValueError("no deal is consistent with the knowledge")
    if not _labelled_fits(pb, order, [len(layer) for layer in forward], [len(m) for m in moves]):
        ForwardPass(pb)


def _labelled_fits(pb: BeliefProblem, order: list, sizes: list, n_moves: list) -> bool:
    """Whether the labelled forward pass over ``order`` certainly keeps to
    :data:`MAX_TABLE` and :data:`MAX_TABLE_WORK`, given the sizes of the
    unlabelled pass's layers over the same order (``n_moves``: each step's
    moves, the same in both).  Each labelled state maps to the unlabelled
    state of the same deals (its envelope fields read as counts), and the
    two passes step alike, so layer ``i`` of the labelled pass holds at
    most ``sizes[i]`` times the ways the envelope can have taken its cards
    among the candidates placed by then; its work is charged as
    :func:`_advance` charges it (chunk by chunk), which only grows with the
    layer."""
    placed = {cat: 0 for cat in pb.categories}
    total = work = 0
    for i, size in enumerate(sizes):
        entries = size
        for cat, k in placed.items():
            if pb.need[cat] > 0:
                entries *= sum(math.comb(k, j) for j in range(pb.need[cat] + 1))
        total += entries
        if i < len(order):
            work += -(-entries // _CHUNK) * min(entries, _CHUNK) * n_moves[i]
            c = order[i]
            if ENVELOPE in pb.allowed[c]:
                placed[pb.category[c]] += 1
    return total <= MAX_TABLE and work <= MAX_TABLE_WORK


@dataclass
class EnvelopeBeliefs:
    """What the exact beliefs say of the envelope alone (:func:`envelope_only`):
    no cell probabilities."""

    envelope: dict
    """As :attr:`Beliefs.envelope`."""
    entropy_bits: float
    """As :attr:`Beliefs.entropy_bits`."""
    deals: float
    """The weighted number of consistent deals, as the labelled pass sums it
    (positive exactly when :attr:`Beliefs.deals` is)."""
    forward: ForwardPass = field(repr=False, compare=False)
    """The labelled forward pass (for :func:`compute` to continue from)."""
    exact: bool = True


@collector_paused
def envelope_only(k: KnowledgeView, pb: BeliefProblem | None = None) -> EnvelopeBeliefs:
    """The envelope's side of :func:`compute` (its distribution and
    entropy) from the labelled forward pass alone.  It raises where
    :func:`compute` raises at the limits of the exact beliefs: the unlabelled
    pass :func:`compute` also runs never outgrows the labelled one (see
    :func:`_labelled_fits`), so it stops only where this one stops too (the
    work the unlabelled pass would have charged to the request is not).
    ``pb``: ``k``'s problem as it stands now, when already built."""
    _check_envelopes(k)
    if pb is None:
        pb = BeliefProblem(k)
    fw = ForwardPass(pb)
    envelope, z = fw.envelope()
    return EnvelopeBeliefs(envelope, entropy(envelope.values()), z * pb.base_factor, fw)


@collector_paused
def compute(k: KnowledgeView, forward: "ForwardPass | None" = None, *, same_state: bool = False) -> Beliefs:
    """Exact beliefs for the seat's current knowledge (complete deduction):
    every cell's probability from the unlabelled forward-backward pass
    (:func:`exact_marginals`), the envelope's joint distribution from the final
    states of the labelled forward pass (:class:`ForwardPass`; ``forward``,
    when given and of the same problem, is that pass already made), whose
    layers are kept for the values of suggestions.  Raises
    :class:`TableTooLarge` at once when the sheet leaves more than
    :data:`MAX_TABLE` envelope contents open (:func:`envelope_contents`),
    and as soon as a table outgrows :data:`MAX_TABLE` (:func:`check_exact`
    tells whether it would, cheaply).  ``same_state``: ``forward`` was made
    from ``k`` as it stands now (its problem is ``k``'s, the envelope
    contents already checked), as the library's memos of one state know."""
    if same_state and forward is not None:
        pb = forward.pb
    else:
        _check_envelopes(k)
        pb = BeliefProblem(k)
    probs, z, biggest = exact_marginals(pb)
    fw = forward if forward is not None and (forward.pb is pb or forward.pb.same(pb)) else ForwardPass(pb)
    envelope, _ = fw.envelope()
    return Beliefs(probabilities=probs, envelope=envelope, entropy_bits=entropy(envelope.values()),
                   deals=z * pb.base_factor, states=max(biggest, fw.states), forward=fw)


def entropy(ps) -> float:
    """Entropy in bits of a distribution given by its probabilities."""
    log2 = math.log2
    return max(0.0, -sum([p * log2(p) for p in ps if p > 0]))


def run_layers(trans: list, layer, start: int = 0, keep: list | None = None, vector: bool = False):
    """Forward DP with the transitions ``trans`` (:meth:`StateLayout.transitions`)
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
