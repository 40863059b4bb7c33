"""The value of a suggestion the seat could make (issue 5, second part):
the exact value (the envelope's expected loss of uncertainty over every
consistent deal, by continuing the exact beliefs' forward pass with the
suggested cards placed last and their owners recorded), the quick estimate
(Siebel's formulation: independent card owners given the envelope, with the
exact envelope distribution; vectorized in :mod:`clue_expert.engine.reasoning.siebel`)
and the ranking that estimates every candidate and values a shortlist exactly
(:class:`SuggestionEvaluator`).  The exact beliefs themselves are
:mod:`clue_expert.engine.reasoning.beliefs`.
"""
from __future__ import annotations

import functools
import itertools
import math
from collections import defaultdict
from dataclasses import dataclass

from ...core import work
from ...core.facts import ENVELOPE
from . import dp, siebel
from .beliefs import (Beliefs, BeliefProblem, ForwardPass, TableTooLarge, charge, collector_paused, complete_states,
                      compute, entropy, envelope_ids, run_layers, start_pass, vector_final)
from ..language.expr import RUN_SECONDS
from ..seat.queries import KnowledgeView
from .lazy_numpy import np

#: Above this many categories the quick estimate of a suggestion's value
#: groups the envelope distribution directly instead of by pattern sums
#: (which need 2**categories tables).
_PATTERN_CATEGORIES = 6
#: Cards of one suggestion whose outcomes are valued (the outcomes of n
#: cards take 2**n patterns): past it :class:`TableTooLarge`.
MAX_SUGGESTION_CARDS = 12
#: Suggestions one ranking may value (every candidate is estimated): counted
#: before any is built; past it :class:`TableTooLarge` too.
MAX_SUGGESTIONS = 100_000


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


def _renamed(value: SuggestionValue, cards: tuple) -> SuggestionValue:
    """``value`` (of a suggestion of the same class, :meth:`SuggestionEvaluator._twin_class`)
    as the value of ``cards``: its outcomes' cards renamed, card for card."""
    rename = dict(zip(value.cards, cards))

    def key(k):
        return None if k is None else (k[0], rename.get(k[1], k[1]))
    return SuggestionValue(tuple(cards), value.gain_bits, value.exact, {key(k): p for k, p in value.outcomes.items()},
                           {key(k): h for k, h in value.entropy_after.items()}, value.deal_bits)


def _near(x: float, digits: int, within: float) -> bool:
    """Whether ``x`` lies within ``within`` of a boundary of rounding to ``digits`` decimals."""
    scaled = x * 10.0 ** digits
    return abs(scaled - math.floor(scaled) - 0.5) * 10.0 ** -digits < within


def _near_rounding(value: SuggestionValue) -> bool:
    """Whether the gain lies within 5e-14 of a boundary of rounding to 12
    decimals (the ranking's key), or the gain or the chance that nobody
    refutes within 1e-12 of one of rounding to 1-4 decimals (the rules'
    messages): where a value of a suggestion's own pass, its terms added in
    another order, might round otherwise (the gains of 6,716 short-listed
    suggestions of the default seats at 3-6 players were at most 4.4e-15
    from their own passes', 96 % of them to the bit)."""
    return _near(value.gain_bits, 12, 5e-14) or any(
        _near(x, d, 1e-12) for x in (value.gain_bits, value.outcomes.get(None, 0.0)) for d in (1, 2, 3, 4))


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

    @collector_paused
    def __init__(self, k: KnowledgeView, beliefs: Beliefs | None = None, measure: str = "shannon", *,
                 same_state: bool = False):
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
        if same_state and isinstance(fw, ForwardPass):  # (``beliefs`` made from ``k`` as it stands now)
            pb = fw.pb
        else:
            pb = BeliefProblem(k)
        if not isinstance(fw, ForwardPass) or not (fw.pb is pb or fw.pb.same(pb)):
            fw = ForwardPass(pb)  # beliefs made elsewhere (or of another position)
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
        #: card -> its class (:meth:`_twin_class`), made when first needed
        self._card_classes: dict | None = None

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

    @collector_paused
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
        if vector_final(lay, len(layer)):
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
        start_pass()
        tagged = sorted(free, key=position.__getitem__)
        order = base[:start] + [c for c in base[start:] if c not in tagged] + tagged
        lay = self._layout
        return run_layers(lay.transitions(order, tagged, start), layers[start], start, vector=lay.vector), tagged

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
        states, weights = complete_states(lay, layer)
        env_of, envs = envelope_ids(lay, states)
        tag_bits, _, tag_of, _ = dp.first_order(states & np.uint64(tag_mask))
        table, ks, logs, keys = self._outcome_table(suggestion, tag_bits, tagged, fixed_owner)
        width = table.shape[1]
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

    def _outcome_table(self, suggestion, tag_bits: np.ndarray, tagged: list, fixed_owner: dict) -> tuple:
        """:meth:`_outcome` for each distinct value of the tags (``tag_bits``), at
        once: the outcome keys' ids (a row per value, a column per suggested
        card, -1 where it is not shown; a refutation by nobody in the first
        column), the refuter's choices (at least 1) and their log2, and the
        keys ((refuter, card) or None) in the order the rows first meet them."""
        lay, pb = self._layout, self.problem
        n, nobody = len(suggestion), len(self.order)
        turn = {p: r for r, p in enumerate(self.order)}  # an owner's place in the disproving order
        owner_turn = np.array([turn.get(o, nobody) for o in pb.owners], dtype=np.int64)
        tag = np.uint64((1 << lay.tag_width) - 1)
        place = np.empty((len(tag_bits), max(1, n)), dtype=np.int64)
        for j, c in enumerate(suggestion):
            if c in fixed_owner:
                place[:, j] = turn.get(fixed_owner[c], nobody)
            else:  # a tag holds the owner's index in pb.owners, plus 1
                owner = ((tag_bits >> np.uint64(lay.tag_shift[tagged.index(c)])) & tag).astype(np.int64) - 1
                place[:, j] = owner_turn[owner]
        first = place.min(axis=1)
        shown = (place == first[:, None]) & (first < nobody)[:, None]
        k = shown.sum(axis=1)
        codes = np.where(shown, first[:, None] * n + np.arange(max(1, n)), -1)
        codes[k == 0, 0] = nobody * n  # nobody refutes
        at = np.flatnonzero(codes.reshape(-1) >= 0)
        found, _, ids, _ = dp.first_order(codes.reshape(-1)[at].astype(np.uint64))
        table = np.full(codes.shape, -1, dtype=np.int64)
        table.reshape(-1)[at] = ids
        keys = [None if code == nobody * n else (self.order[code // n], suggestion[code % n])
                for code in found.tolist()]
        log2 = np.array([0.0] + [math.log2(i) for i in range(1, n + 1)])
        return table, np.maximum(k, 1).astype(np.float64), log2[k], keys

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
        fw = self.beliefs.forward
        # an aligned labelled pass decodes its envelopes one card per category, in category order
        # (StateLayout.env); envelopes from elsewhere are looked at
        decoded = isinstance(fw, ForwardPass) and fw.layout.aligned
        if not decoded and any(len(t) != len(sizes) or any(index[c][0] != i for i, c in enumerate(t))
                               for t in envelopes):
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

    @collector_paused
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
        charge(len(suggestions) * len(self.order) * (1 << min(len(self.problem.categories), 12)),
                    "the suggestions' estimates")
        short = self._shortlist(suggestions, max(1, shortlist))
        try:
            self._prepare(short)
            exact = self._evaluate_all(short)
        except TableTooLarge:  # a pass too big to run: the shortlist keeps its estimates
            return [self.estimate(t) for t in short]
        return sorted(exact, key=lambda v: -round(v.gain_bits, 12))

    def _evaluate_all(self, short: list) -> list:
        """:meth:`evaluate` of each suggestion of ``short`` (in category
        order), in order, but of the suggestions of one class -- images of one
        another under symmetries of the problem (:meth:`_twin_class`) -- only
        the one whose pass starts latest is valued, the others taking its
        value with their cards renamed (:func:`_renamed`) instead of a pass of
        their own: the same value, exactly, where a pass of their own adds
        the same terms in another order; unless that value lies so near a
        rounding boundary that the last bits could round it otherwise
        (:func:`_near_rounding`)."""
        members: dict = {}
        for t in short:
            if t not in self._cache:
                members.setdefault(self._twin_class(t), []).append(t)
        fixed = self.problem.fixed
        passes = self._passes

        def reach(t) -> int:  # where the pass of t starts (see _final_layer): the later, the cheaper
            free = [c for c in t if c not in fixed]
            return max(min((position[c] for c in free), default=len(order)) for order, position, _ in passes)
        for ts in members.values():
            first = max(ts, key=reach)  # the class's cheapest pass (the first of those)
            value = self.evaluate(first)
            for t in ts:
                if t not in self._cache:
                    self._cache[t] = self.evaluate(t) if _near_rounding(value) else _renamed(value, t)
        return [self._cache[t] for t in short]

    def _twin_class(self, suggestion: tuple) -> tuple:
        """The suggestion's class under the problem's symmetries: each open
        card by its category, the owners it may have and the constraints
        (one-of clauses, wrong accusations, seen shows and soft clues) it
        is in; a fixed card by itself.  Two open cards of the same class can
        be swapped in every deal without changing its weight, so two
        suggestions of the same class (one card per category) have the same
        value, their cards renamed."""
        classes = self._card_classes
        if classes is None:
            pb = self.problem
            classes = self._card_classes = dict(pb.card_classes())
            classes.update((c, c) for c in pb.cards if c not in classes)  # a fixed card: itself
        return tuple(map(classes.__getitem__, suggestion))

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
        start_pass()
        run_layers(self._layout.transitions(order, (), start), layers[start], start, layers, self._layout.vector)
        self._passes.append((order, {c: i for i, c in enumerate(order)}, layers))
