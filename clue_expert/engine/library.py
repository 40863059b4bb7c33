"""The rule library: the only functions a rule-file expression may call.

Each function takes the knowledge being reasoned over as its first argument
(supplied by the evaluator, invisible in rule files) and returns plain values:
strings, ints, frozensets, tuples.  Nothing here changes the knowledge, and
everything here reads it through its public query interface (the "queries"
section of :mod:`clue_expert.engine.seat.store`).  Functions whose names start
with a capital letter build *fact references* for a rule's ``because:`` list.

Editions are general: ``CATEGORIES`` are the edition's categories in sheet
order, and the envelope takes ``envelope_count(cat)`` cards of each (0, 1 or
more; 1 each in the classic game).
"""
from __future__ import annotations

import itertools
from dataclasses import replace
import math
from math import comb
from itertools import combinations
from typing import Callable

from ..core import work
from ..core.errors import ContradictionError
from ..core.facts import ENVELOPE, bound_key, cards_key, held_key, lacked_key
from ..core.observations import Accusation, RevealedHand, Suggestion
from .reasoning.beliefs import MAX_SUGGESTIONS, SuggestionEvaluator, TableTooLarge, compute, estimate
from .reasoning import asking, interrogation, planning  # the generalized game's players; the board's planner
from ..core.board import distances
from .seat.queries import KnowledgeView

FUNCTIONS: dict[str, Callable] = {}
#: name -> one-line description (the table in docs/rule-language.md).
DESCRIPTIONS: dict[str, str] = {}


def function(doc: str, pure: bool = False):
    """Register a rule function; ``pure``: its value depends on its arguments
    only, never on the knowledge (the rule language may then check an ``if:``
    that calls it on the trigger's fields before the rule runs)."""
    def register(fn):
        FUNCTIONS[fn.__name__.rstrip("_")] = fn
        DESCRIPTIONS[fn.__name__.rstrip("_")] = doc
        fn.pure = pure
        return fn
    return register


# --- the sheet -------------------------------------------------------------
@function("cards the owner is known to hold")
def held(k: KnowledgeView, owner):
    return k.held_by(owner)


@function("cards the owner is known not to hold")
def lacked(k: KnowledgeView, owner):
    return k.lacked_by(owner)


@function("cards neither held nor lacked by the owner")
def unknown(k: KnowledgeView, owner):
    return k.card_set - k.held_by(owner) - k.lacked_by(owner)


@function("owners known to hold the card")
def holders(k: KnowledgeView, card):
    return k.holders(card)


@function("owners known not to hold the card")
def lackers(k: KnowledgeView, card):
    return k.lackers(card)


@function("owners not known to lack the card")
def possible_owners(k: KnowledgeView, card):
    return k.owner_set - k.lackers(card)


@function("every owner except the given one")
def others(k: KnowledgeView, owner):
    return k.owner_set - {owner}


@function("the owner's hand size (for the envelope: how many cards it holds in all)")
def hand_size(k: KnowledgeView, owner):
    return k.hand_size(owner)


@function("true when the owner is a player (not the envelope)", pure=True)
def is_player(k: KnowledgeView, owner):
    return owner != ENVELOPE


@function("the category of a card (one of CATEGORIES)")
def category(k: KnowledgeView, card):
    return k.category_of(card)


@function("the cards of a category")
def category_cards(k: KnowledgeView, cat):
    return k.category_cards(cat)


@function("the cards in the same category as the card, itself included")
def same_category(k: KnowledgeView, card):
    return k.category_cards(k.category_of(card))


# --- clauses -----------------------------------------------------------------
@function("the owner's live one-of clauses (card sets, narrowed, unsatisfied)")
def clauses(k: KnowledgeView, owner):
    return k.one_of_clauses(owner)


@function("the owner's live one-of clauses that contain the card")
def clauses_with(k: KnowledgeView, owner, card):
    return [c for c in k.one_of_clauses(owner) if card in c]


@function("the owner's not-all clauses containing the card")
def not_all_with(k: KnowledgeView, owner, card):
    return [c for c in k.not_all_clauses(owner) if card in c]


@function("a largest-found set of pairwise disjoint live one-of clauses of the owner, on unknown cards")
def disjoint_clauses(k: KnowledgeView, owner):
    open_ = unknown(k, owner)
    live = sorted((c for c in clauses(k, owner) if c <= open_), key=lambda c: (len(c), sorted(c)))
    best: list = []
    # exact search for small clause sets, greedy beyond
    if len(live) <= 10:
        for size in range(len(live), 0, -1):
            for combo in combinations(live, size):
                union = frozenset().union(*combo)
                if len(union) == sum(len(c) for c in combo):
                    return list(combo)
        return best
    used: set = set()
    for c in live:
        if not (c & used):
            best.append(c)
            used |= c
    return best


@function("groups of k owners whose one-of clauses all lie within the same k cards, one of them the given clause")
def tight_groups(k: KnowledgeView, owner, cards):
    cards = frozenset(cards)
    if len(cards) > 4:
        return []
    needs = []
    for o in k.owners:
        if o == owner:
            continue
        for c in clauses(k, o):
            if len(c) <= 4:
                needs.append((o, c))
    work.charge(sum(comb(len(needs), size) for size in range(1, 4)), "tight_groups()")
    found = []
    for size in range(1, 4):
        for combo in combinations(needs, size):
            owners = {owner} | {o for o, _ in combo}
            if len(owners) != size + 1:
                continue
            union = cards.union(*(c for _, c in combo))
            if len(union) == size + 1:
                found.append((tuple(sorted(owners)), union,
                              [cards_key("one-of", owner, cards)] + [cards_key("one-of", o, c) for o, c in combo]))
    return found


# --- the envelope ----------------------------------------------------------------
@function("how many cards of the category the envelope holds (0, 1 or more; 1 in the classic game)")
def envelope_count(k: KnowledgeView, cat):
    return k.envelope_count(cat)


@function("the envelope's cards of the category known so far")
def envelope_known(k: KnowledgeView, cat):
    return k.category_cards(cat) & k.held_by(ENVELOPE)


@function("the envelope's card of a category it holds one card of, or None while unknown; always None for "
          "a category it holds none or several of (use envelope_known)")
def envelope_card(k: KnowledgeView, cat):
    if k.envelope_count(cat) != 1:
        return None
    found = envelope_known(k, cat)
    return next(iter(found)) if found else None


@function("true when all the envelope's cards of the category are known (always for a category it holds none of)")
def solved(k: KnowledgeView, cat):
    return len(envelope_known(k, cat)) >= k.envelope_count(cat)


@function("true when all the envelope's cards are known")
def solved_all(k: KnowledgeView, _unused=None):
    return k.solved()


@function("all the envelope's cards in sheet order (one per category in the classic game) when known, else None")
def envelope_cards(k: KnowledgeView, _unused=None):
    if not k.solved():
        return None
    return k.edition.sort_cards(k.held_by(ENVELOPE))


@function("cards of the category the envelope may still hold (its known ones included)")
def maybe_envelope(k: KnowledgeView, cat):
    return k.category_cards(cat) - k.lacked_by(ENVELOPE)


# --- for strategies, responses and accusations ---------------------------------
@function("the player after the given one in seat order (the first asked to disprove)")
def next_player(k: KnowledgeView, player):
    i = k.players.index(player)
    return k.players[(i + 1) % len(k.players)]


@function("the player before the given one in seat order")
def previous_player(k: KnowledgeView, player):
    i = k.players.index(player)
    return k.players[(i - 1) % len(k.players)]


@function("the players known to have passed on the given turn: those who could not disprove its suggestion "
          "(in Speed Clue every player asked before the one who showed; in the generalized game at most the one "
          "player asked), in seat order")
def passed_on(k: KnowledgeView, turn):
    return tuple(p for p in k.players if k.known(("passed", turn, p)))


@function("cards that have been shown to this seat")
def seen(k: KnowledgeView, _unused=None):
    return k.seen_cards()


@function("cards this seat has shown to the given player")
def shown_to(k: KnowledgeView, player):
    return k.shown_to(player)


@function("cards this seat has shown to anyone")
def shown_to_anyone(k: KnowledgeView, _unused=None):
    return k.shown_to_anyone()


@function("cards known to be in some player's hand")
def known_owned(k: KnowledgeView, _unused=None):
    return frozenset().union(*(k.held_by(p) for p in k.players))


@function("Kingston's 'possible' list: cards of every possible set recorded for the owner (those he is known to "
          "satisfy included) not known held or lacked by him")
def possible_cards(k: KnowledgeView, owner):
    return frozenset().union(*k.recorded_one_of_clauses(owner)) - k.lacked_by(owner) - k.held_by(owner)


@function("the cards of the set that belong to the category")
def in_category(k: KnowledgeView, cards, cat):
    return frozenset(c for c in cards if k.category_of(c) == cat)


@function("the number of players known not to hold the card")
def lacked_count(k: KnowledgeView, card):
    return len(k.lackers(card) - {ENVELOPE})


@function("the cards of the set with the highest value of lacked_count (ties kept)")
def most_lacked(k: KnowledgeView, cards):
    cards = list(cards)
    if not cards:
        return frozenset()
    best = max(lacked_count(k, c) for c in cards)
    return frozenset(c for c in cards if lacked_count(k, c) == best)


# --- exact beliefs -------------------------------------------------------------
def _beliefs(k: KnowledgeView):
    """The exact beliefs, once while the knowledge stands still; when they
    refuse (:class:`~clue_expert.engine.reasoning.beliefs.TableTooLarge`: their table
    would pass ``beliefs.MAX_TABLE``) the sheet's estimate
    (:func:`~clue_expert.engine.reasoning.beliefs.estimate`, ``exact`` False) stands in."""
    def build():
        try:
            return compute(k)
        except TableTooLarge:
            return estimate(k)
    return k.memo_state("beliefs", build)


def _sheet_choice(k: KnowledgeView, sets=None):
    """The fallback of the suggestion choosers when the exact beliefs refuse
    (their table would pass ``beliefs.MAX_TABLE``): in each category (or each
    set given), the card with the most owners not known to lack it (ties:
    sheet order) -- the sheet's least settled card.  None if a set is empty."""
    pools = sets if sets is not None else [k.category_cards(c) for c in k.edition.categories]
    out = []
    for pool in pools:
        cards = sorted(pool, key=k.sheet_position)
        if not cards:
            return None
        out.append(max(cards, key=lambda c: len(k.owner_set - k.lackers(c))))
    return tuple(out)


@function("exact probability that the owner holds the card (uniform deals, uniform choice of shown card)")
def probability(k: KnowledgeView, owner, card):
    return _beliefs(k).probabilities[owner][card]


@function("entropy of the envelope's distribution over its possible contents, in bits; with 'clues', by the "
          "beliefs that take the unrefuted probable clues as facts (see clue_top_probability); with "
          "'weighted', by the beliefs that weigh each clue by its owner's trust (see clue_trust)")
def envelope_entropy(k: KnowledgeView, source=None):
    return _source_beliefs(k, source).entropy_bits


@function("the probability of the likeliest envelope contents; with 'clues', by the beliefs that take the "
          "unrefuted probable clues as facts (see clue_top_probability); with 'weighted', by the beliefs that "
          "weigh each clue by its owner's trust (see clue_trust)")
def envelope_top_probability(k: KnowledgeView, source=None):
    return max(_source_beliefs(k, source).envelope.values())


@function("the likeliest envelope contents (its cards in sheet order; suspect, weapon, room in the classic "
          "game); with 'clues', by the beliefs that take the unrefuted probable clues as facts; with 'weighted', "
          "by the beliefs that weigh each clue by its owner's trust (see clue_trust)")
def envelope_top(k: KnowledgeView, source=None):
    env = _source_beliefs(k, source).envelope
    return max(env, key=env.get)


class _Supposed:
    """The seat's knowledge read as if the unrefuted probable clues were
    facts: ``status`` answers held / lacked for their cells; everything else
    is the knowledge's own.  Read by the exact beliefs only (their
    :class:`~clue_expert.engine.reasoning.beliefs.BeliefProblem` reads cells through
    ``status``), so no deduction runs and the sheet is untouched."""

    def __init__(self, k: KnowledgeView, held_cells: frozenset, lacked_cells: frozenset, soft: tuple = ()):
        self._k, self._held, self._lacked = k, held_cells, lacked_cells
        #: (owner, card, factor): the deals in which owner holds card weigh factor times as much
        #: (read by the beliefs' ``soft_clues``)
        self.soft_clues = soft

    def __getattr__(self, name):
        return getattr(self._k, name)

    def status(self, owner, card):
        s = self._k.status(owner, card)
        if s == "unknown":
            if (owner, card) in self._held:
                return "held"
            if (owner, card) in self._lacked:
                return "lacked"
        return s


def _supposed_beliefs(k: KnowledgeView, held_cells: set, lacked_cells: set, soft: list | tuple = ()):
    """(view, beliefs) of the knowledge with these cells supposed held / lacked (a cell both ways
    counts as held) and the ``soft`` weights, or None when nothing is supposed or no consistent deal
    is left."""
    lacked_cells = lacked_cells - held_cells
    if not held_cells and not lacked_cells and not soft:
        return None
    view = _Supposed(k, frozenset(held_cells), frozenset(lacked_cells), tuple(soft))
    try:
        b = compute(view)
    except (ValueError, ZeroDivisionError, ContradictionError, TableTooLarge):
        return None
    if not b.envelope or not b.deals > 0:
        return None
    return view, b


def _clue_state(k: KnowledgeView):
    """(view, beliefs) with the unrefuted probable clues taken as facts, or
    None when there are none or they leave no consistent deal together."""
    def build():
        held_cells, lacked_cells = set(), set()
        # an owner the sheet has caught with a wrong clue (e.g. a player who names his own cards in
        # the first round) is not trusted for any
        caught = {owner for _, owner, _ in k.probable_clues(refuted=True)}
        for kind, owner, card in k.probable_clues():
            if owner not in caught:
                (held_cells if kind == "probably-held" else lacked_cells).add((owner, card))
        return _supposed_beliefs(k, held_cells, lacked_cells)
    return k.memo_state("clue-beliefs", build)


#: The Beta prior of an opponent's clue reliability (the chance that a probable clue about him is
#: true): Beta(9, 1), mean 0.9 and the weight of ten resolved clues.  Against our own field the models'
#: clues were 92-97 % true (docs/strategies.md#beliefs-on-the-probable-clues).
RELIABILITY_PRIOR = (9.0, 1.0)


def _clue_chance(k: KnowledgeView, kind: str, owner) -> float:
    """The chance that a clue of ``kind`` about ``owner`` is true by luck alone: of the cards this seat
    does not hold, the share the owner holds (probably-held) or does not hold (probably-lacked)."""
    rest = len(k.cards) - k.hand_sizes.get(k.me, 0) if k.me is not None else len(k.cards)
    share = k.hand_sizes.get(owner, 0) / rest if rest > 0 else 0.0
    return share if kind == "probably-held" else 1.0 - share


def _clue_record(k: KnowledgeView) -> dict:
    """owner -> (confirmed, refuted, chance): his probable clues the sheet has settled, and the mean
    chance (:func:`_clue_chance`) of those clues (of a probably-lacked clue when none is settled)."""
    def build():
        out: dict = {}
        settled: dict = {}
        for kind, owner, card in k.probable_clues():
            if k.status(owner, card) == ("held" if kind == "probably-held" else "lacked"):
                settled.setdefault(owner, []).append((kind, True))
        for kind, owner, _ in k.probable_clues(refuted=True):
            settled.setdefault(owner, []).append((kind, False))
        for owner in k.players:
            xs = settled.get(owner, [])
            chance = (sum(_clue_chance(k, kind, owner) for kind, _ in xs) / len(xs) if xs
                      else _clue_chance(k, "probably-lacked", owner))
            out[owner] = (sum(1 for _, ok in xs if ok), sum(1 for _, ok in xs if not ok), chance)
        return out
    return k.memo_state("clue-record", build)


@function("the estimated chance that a probable clue about the player is true: the mean of a Beta(9, 1) "
          "prior updated by his clues the sheet has settled (each confirmed one a success, each refuted one "
          "a failure); docs/beliefs.md#whom-to-trust")
def clue_reliability(k: KnowledgeView, owner):
    a, b = RELIABILITY_PRIOR
    confirmed, refuted, _ = _clue_record(k).get(owner, (0, 0, 0.0))
    return (a + confirmed) / (a + b + confirmed + refuted)


@function("how far the player's probable clues are trusted, 0 to 1: his clue_reliability above the chance "
          "that a clue about him is true by luck (his share of the cards this seat does not hold), as a "
          "share of what is left, (r - chance) / (1 - chance), never below 0; a clue about him weighs the "
          "deals that contradict it by 1 - trust in the weighted beliefs")
def clue_trust(k: KnowledgeView, owner):
    _, _, chance = _clue_record(k).get(owner, (0, 0, 0.0))
    r = clue_reliability(k, owner)
    if chance >= 1.0:
        return 0.0
    return min(1.0, max(0.0, (r - chance) / (1.0 - chance)))


def _weighted_state(k: KnowledgeView):
    """(view, beliefs) with every unrefuted probable clue weighted by its owner's trust, or None when
    no clue carries any weight or they leave no consistent deal."""
    def build():
        held_cells, lacked_cells, soft = set(), set(), []
        for kind, owner, card in k.probable_clues():
            if k.status(owner, card) != "unknown":
                continue
            t = clue_trust(k, owner)
            if t <= 0.0:
                continue
            if t >= 1.0 or (kind == "probably-held" and t >= 0.5):
                (held_cells if kind == "probably-held" else lacked_cells).add((owner, card))
            elif kind == "probably-lacked":
                soft.append((owner, card, 1.0 - t))
            # a probably-held clue trusted less than half is dropped (a weight can only lower a cell)
        return _supposed_beliefs(k, held_cells, lacked_cells, soft)
    return k.memo_state("weighted-beliefs", build)


def _source_beliefs(k: KnowledgeView, source):
    if source is None or source == "sheet":
        return _beliefs(k)
    if source == "weighted":
        state = _weighted_state(k)
        return _beliefs(k) if state is None else state[1]
    if source != "clues":
        raise ValueError(f"unknown beliefs {source!r}: use 'sheet', 'clues' or 'weighted'")
    state = _clue_state(k)
    return _beliefs(k) if state is None else state[1]


@function("the exact beliefs' probability of the envelope's likeliest contents when the unrefuted probable "
          "clues are taken as facts, except those about an owner the sheet has refuted a clue of (the "
          "sheet's beliefs when there are none, or when they leave no consistent deal); 1.0 means certain "
          "given the clues")
def clue_top_probability(k: KnowledgeView, _unused=None):
    return envelope_top_probability(k, "clues")


def _evaluator(k: KnowledgeView, measure: str = "shannon", source=None):
    """The suggestion evaluator of the beliefs named; raises
    :class:`~clue_expert.engine.reasoning.beliefs.TableTooLarge` (cheaply) when the
    exact beliefs refused."""
    if not _beliefs(k).exact:
        raise TableTooLarge("the exact beliefs refused (the limit on their table size)")
    if source in ("clues", "weighted"):
        state = _clue_state(k) if source == "clues" else _weighted_state(k)
        if state is not None:
            view, b = state
            return k.memo_state((f"evaluator-{source}", measure), lambda: SuggestionEvaluator(view, b, measure))
    elif source not in (None, "sheet"):
        raise ValueError(f"unknown beliefs {source!r}: use 'sheet', 'clues' or 'weighted'")
    return k.memo_state(("evaluator", measure), lambda: SuggestionEvaluator(k, _beliefs(k), measure))


def _one_set_per_category(k: KnowledgeView, sets, name: str) -> list:
    """``sets`` as a list, checked to hold one card set per category (a ValueError naming function ``name``)."""
    sets = list(sets)
    if len(sets) != len(k.edition.categories):
        raise ValueError(f"{name} takes one card set per category ({len(k.edition.categories)}: "
                         f"{', '.join(k.edition.categories)}), got {len(sets)}")
    return sets


@function("the suggestion (one card per category, in category order) with the largest exact expected "
          "reduction of the envelope's uncertainty, among the `shortlist` best by the quick estimate; measure "
          "'shannon' (entropy), 'hartley' (log2 of the envelopes still possible), 'min' (-log2 of the "
          "likeliest envelope's probability), 'top' (1 - the likeliest envelope's probability: the rise in "
          "the chance of naming the envelope at once) or 'deal' (information about the whole deal)")
def most_informative(k: KnowledgeView, shortlist=4, measure="shannon"):
    try:
        return _evaluator(k, measure).rank(int(shortlist))[0].cards
    except TableTooLarge:  # too big to value exactly: the sheet's least settled cards
        return _sheet_choice(k)


@function("like most_informative, but only among the suggestions made of one card from each of the card "
          "sets given, one set per category in category order, e.g. "
          "[in_category(pool, c) for c in CATEGORIES] (None if any set is empty); beliefs 'clues' values "
          "them with the unrefuted probable clues taken as facts (see clue_top_probability), 'weighted' with "
          "each clue weighed by its owner's trust (see clue_trust)")
def most_informative_of(k: KnowledgeView, sets, shortlist=4, measure="shannon", beliefs="sheet"):
    sets = _one_set_per_category(k, sets, "most_informative_of")
    choices = [sorted(xs, key=k.sheet_position) for xs in sets]
    if math.prod(map(len, choices)) > MAX_SUGGESTIONS:  # counted before any is built
        return _sheet_choice(k, choices)
    suggestions = list(itertools.product(*choices))
    try:
        ranked = _evaluator(k, measure, beliefs).rank(int(shortlist), among=suggestions)
    except TableTooLarge:  # too big to value exactly: the sheet's least settled cards
        return _sheet_choice(k, choices)
    return ranked[0].cards if ranked else None


#: The follow-up suggestions valued exactly after each outcome in :func:`most_informative_ahead`.
AHEAD_FOLLOW = 2


def _after_outcome(view, suggestion: tuple, outcome, order: list):
    """The exact beliefs of ``view`` after the seat's own ``suggestion`` met ``outcome`` ((refuter, card)
    or None): the refuter holds the card and every player before him in ``order`` lacks every suggested
    card (with None, every player does); (view, beliefs), or None when no deal is left."""
    refuter = outcome[0] if outcome is not None else None
    held_cells: set = set()
    lacked_cells: set = set()
    for p in order:
        if p == refuter:
            held_cells.add((p, outcome[1]))
            break
        lacked_cells.update((p, c) for c in suggestion if view.status(p, c) == "unknown")
    held_cells = {cell for cell in held_cells if view.status(*cell) == "unknown"}
    after = _Supposed(view, frozenset(held_cells), frozenset(lacked_cells - held_cells),
                      tuple(getattr(view, "soft_clues", ()) or ()))
    try:
        b = compute(after)
    except (ValueError, ZeroDivisionError, ContradictionError):
        return None
    if not b.envelope or not b.deals > 0:
        return None
    return after, b


def _lookahead(k: KnowledgeView, sets, shortlist: int, beliefs: str) -> list:
    """[(expected entropy after the best follow-up, one-step value)] for the ``shortlist`` suggestions of
    ``sets`` that the one-step player values best, in its order; raises TableTooLarge when the exact
    beliefs refuse (the callers' stand-in answers)."""
    ev = _evaluator(k, "shannon", beliefs)
    view = ev.view  # the knowledge the evaluator reads: the seat's, or its overlay of the clues
    choices = [sorted(xs, key=k.sheet_position) for xs in sets]
    if any(not xs for xs in choices):
        return []
    if math.prod(map(len, choices)) > MAX_SUGGESTIONS:
        raise TableTooLarge("too many suggestions to look ahead over")
    ranked = ev.rank(int(shortlist), among=list(itertools.product(*choices)))
    out = []
    for v in ranked:
        if work.late():  # past the deadline: those not looked at yet are dropped (the first is the one-step choice)
            break
        total = 0.0
        for outcome, p in v.outcomes.items():
            if p <= 0.0:
                continue
            state = _after_outcome(view, v.cards, outcome, ev.order)
            if state is None:
                continue
            after, b = state
            h = b.entropy_bits
            if h > 1e-9 and b.exact:
                best = SuggestionEvaluator(after, b, "shannon").rank(AHEAD_FOLLOW)
                h -= best[0].gain_bits if best else 0.0
            total += p * max(0.0, h)
        out.append((total, v))
    return out


@function("like most_informative_of, but looking one move ahead: each of the `shortlist` suggestions the "
          "one-step choice values best is scored by the envelope's expected entropy after its outcome (who "
          "shows which card, or nobody, by the exact beliefs) AND the best follow-up suggestion's outcome, "
          "and the lowest is chosen (ties: the one-step order); beliefs 'clues' / 'weighted' as in "
          "most_informative_of. Costs about one exact-beliefs pass and one ranking per outcome of each "
          "shortlisted suggestion, all charged to the request's budget; past the deadline, or when the "
          "exact beliefs refuse, it answers as most_informative_of")
def most_informative_ahead(k: KnowledgeView, sets, shortlist=4, beliefs="sheet"):
    sets = _one_set_per_category(k, sets, "most_informative_ahead")
    try:
        scored = _lookahead(k, sets, int(shortlist), beliefs)
    except TableTooLarge:
        return most_informative_of(k, sets, shortlist, "shannon", beliefs)
    if not scored:
        return most_informative_of(k, sets, shortlist, "shannon", beliefs)
    return min(scored, key=lambda tv: round(tv[0], 12))[1].cards


@function("exact expected reduction of the envelope's uncertainty, in bits, if the seat makes the "
          "suggestion (measure as in most_informative: 'shannon', 'hartley', 'min', 'top' -- not bits, a "
          "probability -- or 'deal'); beliefs 'clues' as in most_informative_of")
def information_gain(k: KnowledgeView, suggestion, measure="shannon", beliefs="sheet"):
    try:
        return _evaluator(k, measure, beliefs).evaluate(tuple(suggestion)).gain_bits
    except TableTooLarge:  # not valued when the exact beliefs refuse
        return 0.0


@function("exact probability that nobody can refute the suggestion if the seat makes it; beliefs 'clues' "
          "as in most_informative_of")
def refutation_none(k: KnowledgeView, suggestion, beliefs="sheet"):
    try:
        return _evaluator(k, "shannon", beliefs).evaluate(tuple(suggestion)).outcomes.get(None, 0.0)
    except TableTooLarge:  # the sheet's estimate: each card the envelope's or the seat's, independently
        probs = _beliefs(k).probabilities
        return math.prod(probs[ENVELOPE].get(c, 0.0) + (probs[k.me].get(c, 0.0) if k.me else 0.0)
                         for c in suggestion)


# --- the board game -------------------------------------------------------------
def _board(k: KnowledgeView):
    if k.board_options is None:
        raise ValueError("a board function needs the board game's move options (a move-request)")
    return k.board_options


@function("the board game: the room the seat's pawn stands in (where it must suggest), else None")
def room_here(k: KnowledgeView, _unused=None):
    if k.room_here is not None:
        return k.room_here
    here = k.board_options.here if k.board_options is not None else None
    return here if isinstance(here, str) else None


@function("the board game: the rooms this move can end in with a suggestion (entered by the roll or the "
          "secret passage, or stayed in after being moved there by a suggestion)")
def reachable_rooms(k: KnowledgeView, _unused=None):
    return frozenset(_board(k).rooms())


@function("the board game: every room of the board")
def board_rooms(k: KnowledgeView, _unused=None):
    return frozenset(_board(k).board.rooms)


@function("the board game: every legal move of this turn, as a move: names them (rooms, squares [x, y], "
          "'stay' where allowed), rooms first")
def legal_moves(k: KnowledgeView, _unused=None):
    choices = _board(k).choices()
    rooms = [c for c in choices if isinstance(c, str)]
    squares = sorted(c for c in choices if c is not None and not isinstance(c, str))
    return tuple(rooms + squares + (["stay"] if None in choices else []))


@function("the board game: the move that gets the pawn nearest to one of the rooms (one it can end in now, "
          "fewest steps; else the square of the roll fewest steps from one); when none is in reach, the first of "
          "legal_moves()")
def nearest_move(k: KnowledgeView, rooms):
    choice = planning.nearest_choice(_board(k), rooms)
    if choice is None:
        return legal_moves(k)[0]
    return choice


@function("the board game: the expected information (bits) of the best suggestion that can be made in the "
          "room: by the quick estimate (shortlist 0, the default: Siebel's formulation with the exact envelope "
          "distribution), or exactly among the `shortlist` best estimates")
def room_score(k: KnowledgeView, room, shortlist=0):
    return k.memo(("room-score", room, int(shortlist)), lambda: _room_score(k, room, int(shortlist)))


def _in_room(k: KnowledgeView, room) -> list:
    """The distinct suggestions naming the room: in the other categories the
    cards the evaluator tells apart (cards with the same known owner give
    the same outcomes, see SuggestionEvaluator.candidates)."""
    cat = k.category_of(room)
    reps = k.memo_state("suggestion-cards", lambda: [sorted({t[i] for t in _evaluator(k).candidates()},
                                                           key=k.sheet_position)
                                                    for i in range(len(k.edition.categories))])
    sets = [[room] if c == cat else reps[i] for i, c in enumerate(k.edition.categories)]
    return list(itertools.product(*sets))


def _room_score(k: KnowledgeView, room, shortlist: int) -> float:
    if k.solved():
        return 0.0
    ev = _evaluator(k)
    among = _in_room(k, room)
    if shortlist <= 0:
        return max(ev.estimate(t).gain_bits for t in among)
    ranked = ev.rank(shortlist, among=among)
    return ranked[0].gain_bits if ranked else 0.0


def _best_in_room(k: KnowledgeView, room, shortlist: int):
    ranked = _evaluator(k).rank(shortlist, among=_in_room(k, room))
    return ranked[0].cards if ranked else None


@function("the board game: the room whose best suggestion brings the most information (room_score; ties: the "
          "nearest, then board order)")
def best_room(k: KnowledgeView, shortlist=0):
    options = _board(k)
    rooms = options.board.rooms
    dist = distances(options.board, options.here, options.occupied())
    return min(rooms, key=lambda r: (-round(room_score(k, r, shortlist), 9), dist.get(r, 10 ** 6), rooms.index(r)))


@function("the board game: Siebel's planner -- every room worth its room_score, every hallway square its best "
          "neighbour's value times the discount (value iteration); the move of this turn with the highest value")
def planned_move(k: KnowledgeView, discount=planning.DEFAULT_DISCOUNT, shortlist=0):
    options = _board(k)
    scores = {r: room_score(k, r, shortlist) for r in options.board.rooms}
    choice = planning.best_choice(options, scores, float(discount))
    return "stay" if choice is None else choice


@function("the board game: the suggestion with the most exact expected information that names the room the "
          "pawn stands in (most_informative_of with the room fixed)")
def most_informative_here(k: KnowledgeView, shortlist=4):
    room = room_here(k)
    if room is None:
        return None
    try:
        return _best_in_room(k, room, int(shortlist))
    except TableTooLarge:  # too big to value exactly: the sheet's least settled cards, in this room
        cat = k.category_of(room)
        return _sheet_choice(k, [[room] if c == cat else k.category_cards(c) for c in k.edition.categories])


# --- opponent models (probable clues; never part of the sheet) ------------------
@function("the other players: every player but the seat")
def opponents(k: KnowledgeView, _unused=None):
    return frozenset(p for p in k.players if p != k.me)


def _asks(k: KnowledgeView) -> list:
    """(suggester, cards) for every suggestion the seat has seen."""
    return [(obs.by, frozenset(obs.cards)) for _, obs in k.suggestions_seen()]


@function("how many suggestions the player has made so far")
def ask_total(k: KnowledgeView, player):
    return sum(1 for by, _ in _asks(k) if by == player)


@function("how many times the player has named the card in a suggestion")
def ask_count(k: KnowledgeView, player, card):
    return sum(1 for by, cards in _asks(k) if by == player and card in cards)


@function("group 7's interrogation pattern: when more than half of the player's hand is known and all "
          "of it lies among the n cards he has named most (or least) often, n his hand size, and the rest "
          "of those n cards have no known owner, those n cards; otherwise the empty set")
def pattern_hand(k: KnowledgeView, player, min_asks=3):
    n = k.hand_sizes[player]
    known = k.held_by(player)
    if len(known) * 2 <= n or len(known) >= n or ask_total(k, player) < int(min_asks):
        return frozenset()
    counts = {c: ask_count(k, player, c) for c in k.cards}
    for most in (True, False):
        ranked = sorted(k.cards, key=lambda c: -counts[c] if most else counts[c])
        if counts[ranked[n - 1]] == counts[ranked[n]]:
            continue  # a tie at the boundary: no well-defined set
        chosen = frozenset(ranked[:n])
        rest = chosen - known
        if known <= chosen and all(not k.holders(c) and k.status(player, c) != "lacked" for c in rest):
            return chosen
    return frozenset()


@function("probable clues not refuted by the sheet: cards the owner probably holds")
def probably_held(k: KnowledgeView, owner):
    return frozenset(c for kind, o, c in k.probable_clues() if kind == "probably-held" and o == owner)


@function("probable clues not refuted by the sheet: cards the owner probably lacks")
def probably_lacked(k: KnowledgeView, owner):
    return frozenset(c for kind, o, c in k.probable_clues() if kind == "probably-lacked" and o == owner)


@function("the envelope's cards in sheet order if the sheet plus the unrefuted probable clues name all "
          "of them (in every category as many cards as the envelope holds of it), else None; with a model "
          "rule set's id, only that model's clues")
def probable_envelope(k: KnowledgeView, model=None):
    clues = k.probable_clues(model=None if model is None else str(model))
    probably_owned = {c for kind, o, c in clues if kind == "probably-held" and o in k.players}
    lacks = {p: k.lacked_by(p) | {c for kind, o, c in clues if kind == "probably-lacked" and o == p}
             for p in k.players}
    out: list = []
    for cat in k.edition.categories:
        count = k.envelope_count(cat)
        known = envelope_known(k, cat)
        if len(known) >= count:
            out.extend(known)
            continue
        need = count - len(known)
        pool = [c for c in maybe_envelope(k, cat) if not k.holders(c) and c not in probably_owned]
        lacked_by_all = [c for c in pool if all(c in lacks[p] for p in k.players)]
        if len(pool) == need:
            out.extend(known | set(pool))
        elif len(lacked_by_all) == need:
            out.extend(known | set(lacked_by_all))
        else:
            return None
    return k.edition.sort_cards(out)


def _shadow(k: KnowledgeView, player: str):
    """The player's view as far as the seat can model it: every public
    event (suggestions, accusations, revealed hands), the cards the seat showed him, and what the seat knows of his own
    hand (which he knows too).  Deduction by rules only.

    Built afresh -- the seat's facts about his hand assumed, then every
    observation of the game replayed -- unless the knowledge keeps its
    shadows (``kept_shadows`` a dict: the contest agent's, whose games can
    run to thousands of messages, where replaying the history at every
    disprove grew each reply with the game).  A kept shadow takes only the
    observations that arrived since it was last read, as long as the facts
    assumed are the same list and the observations it took are still the
    first ones of the game: the very steps a fresh build would take, in the
    same order, so its answers are the same; else it is built afresh."""
    keys = [held_key(player, c) for c in k.held_by(player)] + [lacked_key(player, c) for c in k.lacked_by(player)]
    kept = getattr(k, "kept_shadows", None)
    observations = k.observations()
    entry = kept.get(player) if kept is not None else None
    if entry is not None and (entry.keys != keys or len(observations) < len(entry.taken)
                              or any(a is not b for a, b in zip(observations, entry.taken))):
        entry = None
    if entry is None:
        # not kept: the seat's spare knowledge of the player, reset (read before the next build)
        entry = _KeptShadow(k.fresh(player, complete=False) if kept is not None else k.spare(player), keys)
        try:
            entry.shadow.assume(keys)
        except ContradictionError:  # pragma: no cover - the seat's own facts are consistent
            entry.stopped = True
        if kept is not None:
            kept[player] = entry
    if not entry.stopped:
        try:
            for item in observations[len(entry.taken):]:
                entry.taken.append(item)
                turn, obs = item
                if isinstance(obs, Suggestion):
                    seen = obs.card if (obs.by == player and obs.shown_by == k.me) else None
                    entry.shadow.observe(replace(obs, card=seen), turn)
                elif isinstance(obs, (Accusation, RevealedHand)):  # public
                    entry.shadow.observe(obs, turn)
        except ContradictionError:  # pragma: no cover - the seat's own facts are consistent
            entry.stopped = True  # as a fresh build, which stops there
    return entry.shadow


class _KeptShadow:
    """A shadow (:func:`_shadow`), the facts assumed in it and the observations it took."""

    __slots__ = ("shadow", "keys", "taken", "stopped")

    def __init__(self, shadow, keys: list):
        self.shadow = shadow
        self.keys = keys
        self.taken: list = []
        #: A contradiction stopped it (a fresh build stops at the same observation).
        self.stopped = False


@function("the seat's cards that the player is modelled to know the seat holds (Siebel's proposed model "
          "of what each opponent has seen: public events, the cards shown to him, his own hand as far as "
          "the seat knows it)")
def known_to(k: KnowledgeView, player):
    if k.me is None or player == k.me:
        return frozenset()
    return _shadow_summary(k, player)[0]


# --- the race (Speed Clue) ------------------------------------------------------
# docs/strategies.md#a-race-aware-accusation: an opponent accuses at his turn
# once his shadow (_shadow: what the seat can model of his knowledge) names the
# envelope; with `near` > 0 also, with chance near / (n - 1), when his shadow
# still leaves n > 1 envelopes (what he knows beyond the shadow: his own hand,
# the cards others showed him, his next suggestion).


def _shadow_summary(k: KnowledgeView, player: str) -> tuple[frozenset, int]:
    """What the rules read of a player's shadow: the seat's cards it holds
    as known, and how many envelopes it leaves.  Memoised as these two
    values, not as the shadow: a shadow is a whole knowledge with its own
    engine (one per opponent and seat, rebuilt at each new fact), and kept
    alive they made a 10-player game on a 90-card edition pass 1 GB."""
    def build() -> tuple[frozenset, int]:
        shadow = _shadow(k, player)
        seen = frozenset(c for c in k.held_by(k.me) if shadow.status(k.me, c) == "held") if k.me else frozenset()
        return seen, _count_envelopes(shadow)
    return k.memo(("shadow", player), build)


@function("how many envelope contents the player's shadow (the seat's model of what he knows, as in "
          "known_to) still leaves possible; 1 when he can name the envelope")
def shadow_envelopes(k: KnowledgeView, player):
    if player == k.me:
        return _count_envelopes(k)
    return _shadow_summary(k, player)[1]


def _count_envelopes(view: KnowledgeView) -> int:
    total = 1
    for cat in view.edition.categories:
        count = view.envelope_count(cat)
        known = view.category_cards(cat) & view.held_by(ENVELOPE)
        open_ = view.category_cards(cat) - view.lacked_by(ENVELOPE) - known
        total *= comb(len(open_), max(0, count - len(known)))
    return total


@function("the opponents still in the game, in turn order from the seat's left (they all play before its "
          "next turn)")
def opponents_in(k: KnowledgeView, _unused=None):
    return askable(k)  # the same players: those the generalized game lets the seat ask


@function("the model's chance that the player accuses right at his next turn: 1 when his shadow names the "
          "envelope, near / (n - 1) when it leaves n > 1 envelopes (0 with near=0)")
def accuse_chance(k: KnowledgeView, player, near=0.0):
    return shadow_accuse_chance(shadow_envelopes(k, player), near)


def shadow_accuse_chance(n: int, near: float) -> float:
    """:func:`accuse_chance` of a shadow that leaves ``n`` envelopes (not a rule function)."""
    if n <= 1:  # 0 only if the shadow went wrong: then it says nothing
        return 1.0 if n == 1 else 0.0
    return min(1.0, float(near) / (n - 1))


def hazard_risk(shadow_risk: float, asked: int, opponents: int, base: float, step: float) -> float:
    """:func:`measured_race_risk` from its parts (not a rule function): the
    shadow term ``shadow_risk``, the seat's suggestions so far ``asked`` and
    the opponents still in; ``1 - (1 - shadow_risk) * max(0, 1 - hazard *
    opponents)`` with ``hazard = base + step * max(0, asked - 1)``."""
    hazard = base + step * max(0, asked - 1)
    return 1.0 - (1.0 - shadow_risk) * max(0.0, 1.0 - hazard * opponents)


@function("the opponents still in whose shadow names the envelope: under the model each accuses, rightly, "
          "at his turn before the seat's next one")
def opponents_solved(k: KnowledgeView, _unused=None):
    return tuple(p for p in opponents_in(k) if shadow_envelopes(k, p) == 1)


@function("the race risk: the model's probability that some opponent still in accuses rightly before the "
          "seat's next turn, 1 - the product of (1 - accuse_chance(p, near)) over them (0 when no opponent "
          "could be solved and near=0; 1 once one is)")
def race_risk(k: KnowledgeView, near=0.0):
    def build():
        stay = 1.0
        for p in opponents_in(k):
            stay *= 1.0 - accuse_chance(k, p, near)
        return 1.0 - stay
    return k.memo(("race-risk", float(near)), build)


@function("the race risk with a measured hazard: race_risk(near), and besides every opponent still in "
          "accusing rightly before the seat's next turn with chance base + step for each of the seat's "
          "suggestions after its first (to first order over the opponents; at most 1)")
def measured_race_risk(k: KnowledgeView, near=1.0, base=0.015, step=0.02):
    return hazard_risk(race_risk(k, near), ask_total(k, k.me), len(opponents_in(k)), float(base), float(step))


# --- the generalized game ------------------------------------------------------
@function("players who made a wrong accusation (out of the game)")
def out_players(k: KnowledgeView):
    return k.out_players()


@function("the players this seat may ask in the generalized game: every other player still in the game, "
          "in seat order from the seat's left")
def askable(k: KnowledgeView):
    players = list(k.players)
    i = players.index(k.me) if k.me in players else -1
    out = k.out_players()
    return tuple(p for p in players[i + 1:] + players[:i + 1] if p != k.me and p not in out)


@function("the players among those given with the most uncertain cards (neither known held nor lacked), "
          "in the given order (ties kept)")
def most_uncertain(k: KnowledgeView, players):
    players = tuple(players)
    counts = {p: len(k.card_set - k.held_by(p) - k.lacked_by(p)) for p in players}
    top = max(counts.values(), default=0)
    return tuple(p for p in players if counts[p] == top)


@function("the players among those given of whose hands the fewest cards are known held, in the given "
          "order (ties kept; group 7's 'the player we know least about')")
def least_known(k: KnowledgeView, players):
    players = tuple(players)
    counts = {p: len(k.held_by(p)) for p in players}
    low = min(counts.values(), default=0)
    return tuple(p for p in players if counts[p] == low)


@function("n elements of a collection drawn at random (all of them if it has fewer), sorted; the seat's "
          "seeded random source, so a game replays from its seed")
def sample(k: KnowledgeView, xs, n):
    xs = sorted(xs)
    n = max(0, min(int(n), len(xs)))
    return frozenset(k.rng.sample(xs, n))


@function("each element of a collection kept with chance p (0 to 1), drawn independently from the seat's "
          "seeded random source")
def each_with_chance(k: KnowledgeView, xs, p):
    p = float(p)
    return frozenset(x for x in sorted(xs) if k.rng.random() < p)


# --- group 7's player and the two-player table (generalized game) ---
@function("this seat's own interrogations so far, oldest first, each as (the player asked, the cards asked, "
          "the card shown or None); in Speed Clue the player asked is the one who showed (None if nobody)")
def my_interrogations(k: KnowledgeView):
    out = []
    for _, obs in k.suggestions_seen():
        if obs.by == k.me:
            whom = obs.asks if obs.asks is not None else obs.shown_by
            out.append((whom, frozenset(obs.cards), obs.card))
    return tuple(out)


@function("the cards of this seat's last suggestion (the empty set before its first)")
def last_suggestion(k: KnowledgeView, _unused=None):
    mine = [obs for _, obs in k.suggestions_seen() if obs.by == k.me]
    return frozenset(mine[-1].cards) if mine else frozenset()


@function("n halved, rounded down (the expression language has no division)")
def half(k: KnowledgeView, n):
    return int(n) // 2


@function("group 1's two-player table: the smallest ask size k with the least expected number of "
          "interrogations, when p of the opponent's cards and q hidden cards are uncertain (0 if p or q is 0)")
def best_ask_size(k: KnowledgeView, p, q):
    c = interrogation.cell(p, q)
    return 0 if c is None else c.ask


@function("group 1's two-player table: Q(p, q), the least expected number of interrogations until the "
          "opponent's p and the envelope's q uncertain cards are all known (0 if p or q is 0)")
def expected_interrogations(k: KnowledgeView, p, q):
    c = interrogation.cell(p, q)
    return 0.0 if c is None else float(c.expected)


# --- group 1's players (generalized game) ---
def _interrogations(k: KnowledgeView) -> list:
    """(turn, asker, asked player, cards) of every interrogation of the
    generalized game the seat has seen, in order."""
    return [(turn, obs.by, obs.asks, frozenset(obs.cards)) for turn, obs in k.observations()
            if isinstance(obs, Suggestion) and obs.asks is not None]


@function("group 1's Super Crazy Broomhead clue: the cards the player left out of his first interrogation, "
          "when he made it in the first round with at least n - c cards (n the pool, c his hand size); "
          "otherwise the empty set")
def first_interrogation_left_out(k: KnowledgeView, player):
    if player == k.me or player not in k.players:
        return frozenset()
    for turn, by, _, cards in _interrogations(k):
        if by == player:
            if turn > len(k.players) or len(cards) < len(k.cards) - k.hand_sizes[player]:
                return frozenset()
            return k.card_set - cards
    return frozenset()


@function("true once the sheet contradicts group 1's first-interrogation clues: a left-out card known "
          "lacked by its player, or a player known to hold cards besides his left-out ones beyond his hand size")
def first_interrogation_refuted(k: KnowledgeView, _unused=None):
    for p in k.players:
        left = first_interrogation_left_out(k, p)
        if left and (left & k.lacked_by(p) or len(left | k.held_by(p)) > k.hand_sizes[p]):
            return True
    return False


def _aging_tables(k: KnowledgeView) -> dict:
    """Group 1's aging tables, as (asks, last): for each asker i (not the
    seat), how many interrogations i has made, and for each (asked player j,
    card) the number of i's interrogation that last named the card to j
    (absent: never).  The age of cell (j, c) of T_i is asks[i] - last[i][j, c]
    (asks[i] when never named): every interrogation of i ages all of T_i and
    resets the cells of the cards it named to the player it asked."""
    asks = {p: 0 for p in k.players}
    last: dict = {p: {} for p in k.players}
    for _, by, whom, cards in _interrogations(k):
        if by == k.me:
            continue
        asks[by] += 1
        for c in cards:
            last[by][whom, c] = asks[by]
    return {"asks": asks, "last": last}


@function("group 1's Psychotic Broomhead guess at the player's hand: the c oldest cards of his row in each "
          "aging table T_i of another asker i who has asked him (cards he is known to lack left out; ties by "
          "sheet order), and of those the c - pi most frequent that are not known held (pi: his known cards)")
def aging_hand(k: KnowledgeView, player):
    if player == k.me or player not in k.players or player in k.out_players():
        return frozenset()
    tables = k.memo(("group1-aging-tables",), lambda: _aging_tables(k))
    c = k.hand_sizes[player]
    need = c - len(k.held_by(player))
    if need <= 0:
        return frozenset()
    rows = [c_ for c_ in k.cards if c_ not in k.lacked_by(player)]
    votes: dict = {}
    age_sum: dict = {}
    for i in k.players:
        if i in (k.me, player) or not any(j == player for j, _ in tables["last"][i]):
            continue  # T_i says nothing of the player until i has asked him
        n_i, last = tables["asks"][i], tables["last"][i]
        ages = {card: n_i - last.get((player, card), 0) for card in rows}
        oldest = sorted(rows, key=lambda card: (-ages[card], k.sheet_position(card)))[:c]
        for card in oldest:
            votes[card] = votes.get(card, 0) + 1
            age_sum[card] = age_sum.get(card, 0) + ages[card]
    ranked = sorted((card for card in votes if card not in k.held_by(player)),
                    key=lambda card: (-votes[card], -age_sum[card], k.sheet_position(card)))
    return frozenset(ranked[:need])


# --- our generalized-game player ---
def _scorer(k: KnowledgeView, listen, measure="envelope") -> asking.InterrogationScorer:
    return k.memo(("interrogation-scorer", float(listen), measure),
                  lambda: asking.InterrogationScorer(k, float(listen), measure))


@function("our generalized-game interrogation: among every askable player and ranked prefix of his "
          "uncertain cards, the (player, cards, my expected bits) with the "
          "largest expected fall of the envelope's entropy for me less `listen` times what a listener, "
          "hearing only no or yes, gains (exact marginals, fitted envelope; engine/reasoning/asking.py; measure "
          "'envelope', or 'deal' for the information about every hand); None if no "
          "askable player has an uncertain card")
def best_interrogation(k: KnowledgeView, listen=0.5, measure="envelope"):
    ranked = _scorer(k, listen, measure).rank(askable(k))
    if not ranked:
        return None
    v = ranked[0]
    return (v.player, frozenset(v.cards), v.mine)


@function("cards the player cannot hold whose owner this seat knows (its own, other players'): asking "
          "him about them changes no answer")
def free_padding(k: KnowledgeView, player):
    return frozenset(c for c in k.cards if k.status(player, c) == "lacked"
                     and any(k.status(o, c) == "held" for o in k.players if o != player))


@function("the likeliest envelope and its probability, as (cards in sheet order, p), from the exact "
          "marginals and the envelope distribution fitted to them (engine/reasoning/asking.py)")
def likeliest_envelope(k: KnowledgeView, _unused=None):
    s = _scorer(k, 0.0)
    if s.envelope is None:
        return None, 0.0
    cards, p = max(s.envelope.items(), key=lambda kv: (kv[1], [-k.sheet_position(c) for c in kv[0]]))
    return cards, p


#: Library functions that may set off costly work (the exact beliefs, the
#: interrogation search, the board's searches, search over clauses): the
#: evaluator charges their work to the request's budget and looks at the
#: clock on every call (see clue_expert.core.work and docs/limits.md).
COSTLY = ("disjoint_clauses", "tight_groups", "probability", "envelope_entropy", "envelope_top_probability",
          "envelope_top", "clue_top_probability", "most_informative", "most_informative_of", "information_gain",
          "refutation_none", "most_informative_ahead", "reachable_rooms", "legal_moves", "nearest_move", "room_score", "best_room",
          "planned_move", "most_informative_here", "probable_envelope", "known_to", "shadow_envelopes",
          "accuse_chance", "opponents_solved", "race_risk", "best_ask_size", "expected_interrogations",
          "aging_hand", "best_interrogation", "likeliest_envelope", "pattern_hand")


# --- helpers -----------------------------------------------------------------
@function("a number rounded to n decimals (for messages)")
def round_(k, x, n=2):
    return round(float(x), int(n))


@function("number of elements")
def len_(k, xs):
    return len(xs)


@function("the only element of a one-element collection")
def only(k, xs):
    (x,) = tuple(xs)
    return x


@function("the union of a collection of card sets")
def union(k, sets):
    return frozenset().union(*sets) if sets else frozenset()


@function("a sorted list")
def sorted_(k, xs):
    return sorted(xs)


@function("a frozen set")
def set_(k, xs):
    return frozenset(xs)


@function("the first card of a set in list (sheet) order, as a one-card set; empty for an empty set. A "
          "slot given it takes that card whatever the file's choice (Kingston's list-order No intelligence)")
def first_listed(k: KnowledgeView, cards):
    cards = sorted(cards, key=k.sheet_position)
    return frozenset(cards[:1])


@function("the first element of a pair/tuple")
def first(k, xs):
    return tuple(xs)[0]


@function("the second element of a pair/tuple")
def second(k, xs):
    return tuple(xs)[1]


@function("the third element of a tuple")
def third(k, xs):
    return tuple(xs)[2]


@function("the elements of a sequence in reverse order, as a list (reversed(CATEGORIES): the last category first)")
def reversed_(k, xs):
    return list(xs)[::-1]


# --- fact references (for because:) ---------------------------------------------
@function("reference to the fact 'owner holds card'")
def Held(k, owner, card):
    return held_key(owner, card)


@function("reference to the fact 'owner lacks card'")
def Lacked(k, owner, card):
    return lacked_key(owner, card)


@function("reference to the fact 'owner holds one of cards'")
def OneOf(k, owner, cards):
    return cards_key("one-of", owner, cards)


@function("reference to the fact 'owner does not hold all of cards'")
def NotAll(k, owner, cards):
    return cards_key("not-all", owner, cards)


@function("reference to the fact 'owner holds N cards'")
def HandSize(k, owner):
    return ("hand-size", owner)


@function("reference to the game set-up fact")
def GameFact(k, _ignored=None):
    return ("game",)


# --- bounded clues -----------------------------------------------------------
# Group 1's bounded clue (docs/generalized.md#bounded-clues): an owner holds at
# least `low` and at most `high` of some cards.
@function("the owner's bounds already reduced against the sheet (every card of them still unknown) that the "
          "sheet does not imply: (cards, low, high) each")
def bounds(k: KnowledgeView, owner):
    return tuple(k.bounds(owner))


@function("the owner's bounds that name the card and that the sheet does not yet imply, as stated: "
          "(cards, low, high) each")
def bounds_with(k: KnowledgeView, owner, card):
    return tuple(k.bounds_with(owner, card))


@function("reference to the fact 'owner holds at least low and at most high of cards'")
def Bound(k, owner, cards, low, high):
    return bound_key(owner, cards, low, high)


#: Costly functions with a cheap stand-in (the sheet's estimate, see
#: _beliefs): past the request's deadline they answer from it instead of
#: failing the request, so a slow position on a loaded machine still plays.
SOFT = ("probability", "envelope_entropy", "envelope_top_probability", "envelope_top", "clue_top_probability",
        "most_informative", "most_informative_of", "information_gain", "refutation_none", "most_informative_here",
        "most_informative_ahead")

for _name in COSTLY:
    setattr(FUNCTIONS[_name], "costly", True)  # noqa: B010 (a mark on a function object; mypy knows no such field)
for _name in SOFT:
    setattr(FUNCTIONS[_name], "soft", True)  # noqa: B010
