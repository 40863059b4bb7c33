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

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass

from ..core.facts import ENVELOPE
from .queries import KnowledgeView

# ``Knowledge`` (clue_expert.engine.knowledge) is named in annotations only and
# not imported (the rule library, which knowledge loads, imports this module).

#: Above this many categories the quick estimate of a suggestion's value
#: groups the envelope distribution directly instead of by pattern sums
#: (which need 2**categories tables).
_PATTERN_CATEGORIES = 6


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


class _Problem:
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
        self.category = category = {c: k.category_of(c) for c in self.cards}
        allowed = {}
        for c in self.cards:
            holders = [o for o in self.owners if k.status(o, c) == "held"]
            allowed[c] = holders[:1] if holders else [o for o in self.owners if k.status(o, c) != "lacked"]
        self.allowed = allowed
        self.fixed = fixed = {c: a[0] for c, a in allowed.items() if len(a) == 1}
        self.free = [c for c in self.cards if len(allowed[c]) > 1]
        self.cap0 = tuple(k.hand_sizes[p] - sum(1 for o in fixed.values() if o == p) for p in self.players)
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
        # live one-of clauses restricted to free cards the owner may hold
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
        self.clauses = clauses
        # wrong accusations: the envelope is not all of these.  A clause with
        # a card the envelope cannot hold is satisfied; in the others every
        # fixed card is the envelope's, so only the free cards need counting.
        self.notalls = [frozenset(c for c in cl if c not in fixed) for cl in k.not_all_clauses(ENVELOPE)
                        if all(ENVELOPE in allowed[c] for c in cl)]
        if any(not cs for cs in self.notalls):
            raise ValueError("a wrong accusation names the envelope's known cards: the knowledge is inconsistent")
        # seen shows: weight 1 / (number of suggested cards the shower holds)
        self.weights = []
        self.base_factor = 1.0
        for shower, others in _seen_shows(k):
            base = 1 + sum(1 for c in others if fixed.get(c) == shower)
            var = frozenset(c for c in others if c not in fixed and shower in allowed[c])
            if var:
                self.weights.append((shower, base, var))
            else:
                self.base_factor /= base
        self.slot_of = {p: i for i, p in enumerate(self.players)}

    def unlabelled(self) -> str | None:
        """The category whose envelope card :func:`compute` reads off the
        transitions instead of carrying it as a label: the largest category
        of which the envelope takes one card, not yet known (None if none)."""
        ones = [cat for cat in sorted(self.categories, key=lambda cat: self.eligible[cat]) if self.counts[cat] == 1]
        if ones and self.eligible[ones[-1]] and self.need[ones[-1]] == 1:
            return ones[-1]
        return None

    def order(self, last: str | None = None) -> list:
        """The free cards in DP order: those the envelope cannot hold first,
        then the envelope's candidates category by category, fewest first
        (labels are carried through as few cards as possible), the category
        ``last`` last.  Within each group, cards are taken greedily so that
        open constraints (clauses, wrong accusations, seen shows) close as
        early as possible."""
        cats = sorted(self.categories, key=lambda cat: (cat == last, self.eligible[cat]))
        groups: list = [[c for c in self.free if ENVELOPE not in self.allowed[c]]]
        groups += [[c for c in self.free if ENVELOPE in self.allowed[c] and self.category[c] == cat] for cat in cats]
        sets = [cs for _, cs in self.clauses] + list(self.notalls) + [cs for _, _, cs in self.weights]
        placed: set = set()
        out = []
        for group in groups:
            rest = list(group)
            while rest:
                # prefer a card in the open constraint with fewest unplaced cards
                best = None
                for c in rest:
                    touching = [len(cs - placed) for cs in sets if c in cs and cs - placed]
                    score = (min(touching) if touching else 99, -len(touching))
                    if best is None or score < best[0]:
                        best = (score, c)
                c = best[1]
                rest.remove(c)
                placed.add(c)
                out.append(c)
        return out

    def layout(self, unlabelled: str | None = None) -> "_Layout":
        """The bit layout of DP states (see :class:`_Layout`)."""
        return _Layout(self, unlabelled)


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
      index of the card among the category's candidates (for the category
      ``unlabelled``: a single "filled" bit);
    * it still needs n > 1 cards: a counter that starts at 2**w - n and
      whose top bit (2**w) says "full", and a bit set of the candidates taken.

    Either way, a card may go to the envelope when the field's "full" mask
    is clear, by adding a constant; a final state has every "full" mask set."""

    def __init__(self, pb: _Problem, unlabelled: str | None):
        self.pb = pb
        shift = 0

        def field(width):
            nonlocal shift
            at = shift
            shift += width
            return at
        self.cap_shift = [field(max(1, c.bit_length())) for c in pb.cap0]
        self.cap_mask = [((1 << max(1, c.bit_length())) - 1) << sh for c, sh in zip(pb.cap0, self.cap_shift)]
        self.all_caps = sum(self.cap_mask)
        sheet = {c: i for i, c in enumerate(pb.cards)}
        #: Whether the envelope takes one card of every category, so that its
        #: tuple has one entry per category (the classic shape).
        self.aligned = aligned = all(n == 1 for n in pb.counts.values())
        #: card -> (full mask, constant added) for a move into the envelope
        self.env_move: dict = {}
        #: the masks of a final state's envelope fields
        self.full_masks: list = []
        #: per category in sheet order: (shift, mask, code -> card or part)
        self.decode: list = []
        start = 0
        for cat in pb.categories:
            known = pb.env_known.get(cat, ())
            need = pb.need[cat]
            cands = [c for c in pb.free if pb.category[c] == cat and ENVELOPE in pb.allowed[c]]
            if need == 0:
                self.decode.append((0, 0, {0: known[0] if aligned else known}))
            elif cat == unlabelled:  # one card, read off the transitions
                at = field(1)
                self.full_masks.append(1 << at)
                self.env_move.update({c: (1 << at, 1 << at) for c in cands})
                self.decode.append((at, 1 << at, {0: None, 1: None} if aligned else {0: (None,), 1: (None,)}))
            elif need == 1:  # a label
                width = max(1, len(cands).bit_length())
                at = field(width)
                mask = ((1 << width) - 1) << at
                self.full_masks.append(mask)
                self.env_move.update({c: (mask, (j + 1) << at) for j, c in enumerate(cands)})
                if aligned:
                    table = {0: None, **{j + 1: c for j, c in enumerate(cands)}}
                else:
                    table = {0: (None,), **{j + 1: tuple(sorted(known + (c,), key=sheet.__getitem__))
                                            for j, c in enumerate(cands)}}
                self.decode.append((at, mask, table))
            else:  # a counter and a bit set
                w = need.bit_length()
                at = field(w + 1)
                top = 1 << (at + w)
                start += ((1 << w) - need) << at
                bits = field(max(1, len(cands)))
                self.full_masks.append(top)
                self.env_move.update({c: (top, (1 << at) + (1 << (bits + j))) for j, c in enumerate(cands)})
                self.decode.append((bits, ((1 << max(1, len(cands))) - 1) << bits, _Parts(known, cands, sheet)))
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

    def env(self, state: int) -> tuple:
        """The envelope's cards in a state, in sheet order (None for the
        unlabelled category's card; meaningful for complete states)."""
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

    def stepper(self, order: list, tagged=()):
        """The transition function for placing the cards in ``order``;
        ``tagged`` cards (at most one per category) have their owners recorded."""
        pb = self.pb
        tagged = list(tagged)
        if len(tagged) > len(self.tag_shift):
            raise ValueError("at most one tagged card per category")
        index = {c: i for i, c in enumerate(order)}

        def last(cs):
            return max((index[c] for c in cs), default=-1)
        moves = []
        for c in order:
            per = {}
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
                    per[o] = (0, 0, move[0], move[1], orm, add)
                else:
                    j = pb.slot_of[o]
                    per[o] = (self.cap_mask[j], 1 << self.cap_shift[j], 0, 0, orm, add)
            moves.append(per)
        closes: list = [None] * len(order)
        # (a constraint with no free card left was settled by _Problem)
        for q, (_, cs) in enumerate(pb.clauses):
            i = last(cs)
            if i < 0:
                continue
            closes[i] = closes[i] or [0, [], [], 0]
            closes[i][0] |= self.clause_bit[q]
            closes[i][3] |= self.clause_bit[q]
        for q, cs in enumerate(pb.notalls):
            i = last(cs)
            if i < 0:
                continue
            sh, m = self.notall_field[q]
            closes[i] = closes[i] or [0, [], [], 0]
            closes[i][1].append((sh, m, len(cs)))
            closes[i][3] |= m << sh
        for q, (_, base, cs) in enumerate(pb.weights):
            i = last(cs)
            if i < 0:
                continue
            sh, m = self.weight_field[q]
            closes[i] = closes[i] or [0, [], [], 0]
            closes[i][2].append((sh, m, base))
            closes[i][3] |= m << sh
        closes = [tuple(c) if c else None for c in closes]

        def step(i, s, o):
            move = moves[i].get(o)
            if move is None:
                return None
            cm, cd, em, es, orm, add = move
            if cm:
                if not s & cm:
                    return None
                s -= cd
            else:
                if s & em:
                    return None
                s += es
            s = (s | orm) + add
            close = closes[i]
            if close is None:
                return s, 1.0
            need, notall, weight, clear = close
            if s & need != need:
                return None
            for sh, m, n in notall:
                if (s >> sh) & m == n:
                    return None
            factor = 1.0
            for sh, m, base in weight:
                factor /= base + ((s >> sh) & m)
            return s & ~clear, factor
        return step


def compute(k: KnowledgeView) -> Beliefs:
    """Exact beliefs for the seat's current knowledge (complete deduction)."""
    pb = _Problem(k)
    category, allowed, fixed = pb.category, pb.allowed, pb.fixed
    # Cards the envelope cannot hold first, then the envelope's candidates
    # category by category (largest last): the envelope labels, which give
    # the joint distribution, are then carried through as few cards as possible.
    # One category's envelope card (the last category's, when the envelope
    # takes one card of it) is not labelled at all: the joint distribution
    # is read off the transitions that put a card of it into the envelope,
    # whose states carry the other categories' labels.
    unlabelled = pb.unlabelled()
    free = pb.order(unlabelled)
    lay = pb.layout(unlabelled)
    step = lay.stepper(free)
    n = len(free)
    forward = [dict() for _ in range(n + 1)]
    forward[0][lay.start] = 1.0
    edges: list = []  # per card: (state, owner, next state, factor), reused by the backward pass
    biggest = 1
    for i in range(n):
        nxt = defaultdict(float)
        out = []
        for state, w in forward[i].items():
            for o in allowed[free[i]]:
                r = step(i, state, o)
                if r is not None:
                    nxt[r[0]] += w * r[1]
                    out.append((state, o, r[0], r[1]))
        forward[i + 1] = dict(nxt)
        edges.append(out)
        biggest = max(biggest, len(nxt))
    backward = [dict() for _ in range(n + 1)]
    backward[n] = {s_: (1.0 if lay.final_ok(s_) else 0.0) for s_ in forward[n]}
    for i in range(n - 1, -1, -1):
        b = defaultdict(float)
        nb = backward[i + 1]
        for state, o, nxt_state, factor in edges[i]:
            b[state] += factor * nb.get(nxt_state, 0.0)
        backward[i] = b
    z = sum(w * backward[n][s_] for s_, w in forward[n].items())
    if z <= 0:
        raise ValueError("no deal is consistent with the knowledge")
    probs = {o: {c: 0.0 for c in pb.cards} for o in pb.owners}
    for c, o in fixed.items():
        probs[o][c] = 1.0
    for i, c in enumerate(free):
        fw = forward[i]
        nb = backward[i + 1]
        acc = defaultdict(float)
        for state, o, nxt_state, factor in edges[i]:
            acc[o] += fw[state] * factor * nb.get(nxt_state, 0.0)
        for o, v in acc.items():
            probs[o][c] = v / z
    envelope: dict = defaultdict(float)
    if unlabelled is None:
        for state, w in forward[n].items():
            if lay.final_ok(state):
                envelope[lay.env(state)] += w / z
    else:
        ui = sum(pb.counts[cat] for cat in pb.categories[:pb.categories.index(unlabelled)])
        for i, c in enumerate(free):
            if category[c] != unlabelled:
                continue
            fw, nb = forward[i], backward[i + 1]
            for state, o, nxt_state, factor in edges[i]:
                if o == ENVELOPE:
                    v = fw[state] * factor * nb.get(nxt_state, 0.0)
                    if v:
                        labels = lay.env(state)
                        envelope[labels[:ui] + (c,) + labels[ui + 1:]] += v / z
    envelope = {k_: v for k_, v in envelope.items() if v > 0}
    return Beliefs(probabilities=probs, envelope=dict(envelope), entropy_bits=entropy(envelope.values()),
                   deals=z * pb.base_factor, states=biggest)


def entropy(ps) -> float:
    """Entropy in bits of a distribution given by its probabilities."""
    return max(0.0, -sum(p * math.log2(p) for p in ps if p > 0))


# --- the value of a suggestion ---------------------------------------------------
def hartley(ps) -> float:
    """log2 of the number of outcomes with non-zero probability."""
    n = sum(1 for p in ps if p > 0)
    return math.log2(n) if n else 0.0


def min_entropy(ps) -> float:
    """-log2 of the largest probability (Renyi entropy of order infinity)."""
    top = max(ps, default=1.0)
    return max(0.0, -math.log2(top)) if top > 0 else 0.0


#: Uncertainty measures of the envelope's distribution, in bits: the Renyi
#: entropies of order 1 (Shannon), 0 (Hartley) and infinity (min-entropy).
#: ``deal`` ranks suggestions by what they tell about the whole deal instead.
MEASURES = {"shannon": entropy, "hartley": hartley, "min": min_entropy, "deal": entropy}


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


def _run(order, allowed, step, layer: dict, start: int = 0, keep: list | None = None) -> dict:
    """Forward DP over ``order`` from position ``start``."""
    for i in range(start, len(order)):
        if keep is not None:
            keep.append(layer)
        nxt: dict = defaultdict(float)
        for state, w in layer.items():
            for o in allowed[order[i]]:
                r = step(i, state, o)
                if r is not None:
                    nxt[r[0]] += w * r[1]
        layer = nxt
    return layer


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

    def __init__(self, k: KnowledgeView, beliefs: Beliefs | None = None, measure: str = "shannon"):
        if k.me is None:
            raise ValueError("suggestion values need a seat ('me')")
        if measure not in MEASURES:
            raise ValueError(f"unknown uncertainty measure {measure!r}: use one of {sorted(MEASURES)}")
        #: The uncertainty measure: ``shannon`` (entropy of the envelope's
        #: distribution), ``hartley`` (log2 of the number of envelopes
        #: still possible -- zero exactly when the seat is certain) or ``min``
        #: (-log2 of the likeliest envelope's probability).
        self.measure = measure
        self.problem = pb = _Problem(k)
        self.beliefs = beliefs or compute(k)
        self.entropy_bits = MEASURES[measure](list(self.beliefs.envelope.values()))
        i = pb.players.index(pb.me)
        #: Players after the seat, in disproving order.
        self.order = pb.players[i + 1:] + pb.players[:i]
        self.base = pb.order()
        self._position = {c: i for i, c in enumerate(self.base)}
        self._layout = pb.layout(None)
        self._layers_kept: list | None = None  # the shared DP layers, built at the first exact evaluation
        self._cache: dict = {}
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
            cs, reps = [], {}
            for c in mine_first:
                if pb.category[c] != cat:
                    continue
                if c in pb.fixed:
                    o = pb.fixed[c]
                    reps.setdefault("nobody" if o in (pb.me, ENVELOPE) else o, c)
                else:
                    cs.append(c)
            per_cat.append(cs + list(reps.values()))
        return list(itertools.product(*per_cat))

    def _in_order(self, suggestion) -> tuple:
        """The suggestion's cards in category order, whatever order they came in."""
        cat = self.problem.category
        index = self._cat_index
        suggestion = tuple(sorted(suggestion, key=lambda c: index[cat[c]]))
        if [cat[c] for c in suggestion] != list(self.problem.categories):
            raise ValueError(f"a suggestion names one card of each category, got {list(suggestion)}")
        return suggestion

    @property
    def _layers(self) -> list:
        """The DP's layers over the base card order, shared by every exact
        evaluation (built once, when the first one needs them: the quick
        estimate does not)."""
        if self._layers_kept is None:
            pb, lay = self.problem, self._layout
            layers: list = []
            final = _run(self.base, pb.allowed, lay.stepper(self.base), {lay.start: 1.0}, keep=layers)
            layers.append(final)
            self._layers_kept = layers
        return self._layers_kept

    def evaluate(self, suggestion) -> SuggestionValue:
        """The exact value of suggesting ``suggestion`` (one card per category)."""
        suggestion = self._in_order(suggestion)
        if suggestion in self._cache:
            return self._cache[suggestion]
        pb = self.problem
        tagged = [c for c in self.base if c in suggestion]
        start = min((self._position[c] for c in tagged), default=len(self.base))
        order = self.base[:start] + [c for c in self.base[start:] if c not in tagged] + tagged
        lay = self._layout
        layer = _run(order, pb.allowed, lay.stepper(order, tagged), self._layers[start], start)
        joint: dict = defaultdict(lambda: defaultdict(float))
        choice = 0.0  # sum of weight * log2(number of cards the refuter could show)
        for state, w in layer.items():
            if not w or not lay.final_ok(state):
                continue
            env = lay.env(state)
            owner = {c: pb.fixed[c] for c in suggestion if c in pb.fixed}
            owner.update(zip(tagged, lay.tags(state, len(tagged))))
            for p in self.order:
                shown = [c for c in suggestion if owner[c] == p]
                if shown:
                    for c in shown:
                        joint[(p, c)][env] += w / len(shown)
                    choice += w * math.log2(len(shown))
                    break
            else:
                joint[None][env] += w
        value = self._value(suggestion, {key: list(d.values()) for key, d in joint.items()}, exact=True,
                            choice=choice)
        self._cache[suggestion] = value
        return value

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
            tables = [defaultdict(lambda: [0.0, 0.0]) for _ in range(1 << n)]
            aligned = all(v == 1 for v in pb.counts.values())
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

    def _by_pattern(self, suggestion) -> dict:
        """pattern (which suggested cards are the envelope's) -> (sum p, sum p log2 p)."""
        tables = self._pattern_sums()
        zero = (0.0, 0.0)
        n = len(suggestion)

        def f(mask):
            key = tuple(suggestion[i] if mask >> i & 1 else None for i in range(n))
            return tables[mask].get(key, zero)
        out = {}
        for pattern in range(1 << n):
            # inclusion-exclusion over the cards the pattern says are not the envelope's
            s0 = s1 = 0.0
            free = [i for i in range(n) if not pattern >> i & 1]
            for sub in range(1 << len(free)):
                mask = pattern
                for b, i in enumerate(free):
                    if sub >> b & 1:
                        mask |= 1 << i
                sign = -1.0 if bin(sub).count("1") % 2 else 1.0
                v = f(mask)
                s0 += sign * v[0]
                s1 += sign * v[1]
            if s0 > 1e-15:
                out[tuple(bool(pattern >> i & 1) for i in range(n))] = (s0, s1)
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
        for pattern, group in groups.items():
            q = {}
            for c, in_env in zip(suggestion, pattern):
                if in_env:
                    q[c] = {}
                else:
                    rest = 1.0 - probs[ENVELOPE][c]
                    q[c] = {p: (probs[p][c] / rest if rest > 0 else 0.0) for p in self.order}
            likelihood, elog = self._likelihood(suggestion, q)
            mass = group[0] if fast else sum(group)
            for key, lk in likelihood.items():
                if fast:
                    joint[key].append((lk, group))
                else:
                    joint[key].extend(p * lk for p in group)
            choice += mass * elog
        if not fast:
            return self._value(suggestion, dict(joint), exact=False, choice=choice)
        # Shannon entropy of each outcome's posterior from the pattern sums:
        # H = -(1/Z) sum_pattern lk * (S1 + S0 * log2(lk / Z))
        outcomes, after = {}, {}
        expected = 0.0
        for key, parts in joint.items():
            z = sum(lk * s0 for lk, (s0, _) in parts)
            if z <= 0:
                continue
            h = -sum(lk * (s1 + s0 * math.log2(lk / z)) for lk, (s0, s1) in parts if lk > 0) / z
            outcomes[key] = z
            after[key] = max(0.0, h)
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
        out: dict = defaultdict(float)
        elog = 0.0
        reach = 1.0  # probability that every player so far passed
        n = len(suggestion)
        for p in self.order:
            pcs = [q[c].get(p, 0.0) for c in suggestion]
            for mask in range(1, 1 << n):  # which of the suggested cards p holds
                w = reach
                for b, pc in enumerate(pcs):
                    w *= pc if mask >> b & 1 else 1.0 - pc
                if w <= 0:
                    continue
                held = [c for b, c in enumerate(suggestion) if mask >> b & 1]
                for c in held:
                    out[(p, c)] += w / len(held)
                elog += w * math.log2(len(held))
            reach *= math.prod(1.0 - pc for pc in pcs)
            # given that p passed, each card's other owners are rescaled
            for c, pc in zip(suggestion, pcs):
                if pc < 1.0 and q[c]:
                    q[c] = {o: (v / (1.0 - pc) if o != p else 0.0) for o, v in q[c].items()}
        if reach > 0:
            out[None] += reach
        return dict(out), elog

    def rank(self, shortlist: int = 6, among=None) -> list:
        """The best suggestions, exactly valued: every candidate (or every
        suggestion of ``among``, an iterable of card tuples) is estimated,
        the ``shortlist`` best estimates are evaluated exactly, and those are
        returned best first (equal values keep the candidates' order, which
        is the sheet's card order)."""
        suggestions = self.candidates() if among is None else list(dict.fromkeys(tuple(t) for t in among))
        if not suggestions:
            return []
        estimates = sorted((self.estimate(t) for t in suggestions),
                           key=lambda v: -round(v.gain_bits, 12))
        exact = [self.evaluate(v.cards) for v in estimates[:max(1, shortlist)]]
        return sorted(exact, key=lambda v: -round(v.gain_bits, 12))
