"""Suggestion scoring on the exact beliefs (:mod:`.beliefs`): the most informative suggestion,
one move ahead, and a suggestion's expected information and chance of no refutation."""
from __future__ import annotations

import itertools
import math

from ...core import work
from ...core.errors import ContradictionError
from ...core.facts import ENVELOPE
from ..reasoning.beliefs import TableTooLarge, compute
from ..reasoning.scoring import MAX_SUGGESTIONS, SuggestionEvaluator
from ..seat.queries import KnowledgeView
from .beliefs import Supposed, evaluator, exact_beliefs, sheet_choice
from .registry import Section

SUGGESTIONS = Section("exact beliefs")


def _one_set_per_category(k: KnowledgeView, sets, name: str) -> list:
    """``sets`` as a list, checked to hold one card set per category (a ValueError naming function ``name``)."""
    sets = list(sets)
    if len(sets) != len(k.edition.categories):
        raise ValueError(f"{name} takes one card set per category ({len(k.edition.categories)}: "
                         f"{', '.join(k.edition.categories)}), got {len(sets)}")
    return sets


@SUGGESTIONS("the suggestion (one card per category, in category order) with the largest exact expected "
             "reduction of the envelope's uncertainty, among the `shortlist` best by the quick estimate; measure "
             "'shannon' (entropy), 'hartley' (log2 of the envelopes still possible), 'min' (-log2 of the "
             "likeliest envelope's probability), 'top' (1 - the likeliest envelope's probability: the rise in "
             "the chance of naming the envelope at once) or 'deal' (information about the whole deal)",
             costly=True, soft=True)
def most_informative(k: KnowledgeView, shortlist=4, measure="shannon"):
    try:
        return evaluator(k, measure).rank(int(shortlist))[0].cards
    except TableTooLarge:  # too big to value exactly: the sheet's least settled cards
        return sheet_choice(k)


@SUGGESTIONS("like most_informative, but only among the suggestions made of one card from each of the card "
             "sets given, one set per category in category order, e.g. "
             "[in_category(pool, c) for c in CATEGORIES] (None if any set is empty); beliefs 'clues' values "
             "them with the unrefuted probable clues taken as facts (see clue_top_probability), 'weighted' with "
             "each clue weighed by its owner's trust (see clue_trust)", costly=True, soft=True)
def most_informative_of(k: KnowledgeView, sets, shortlist=4, measure="shannon", beliefs="sheet"):
    sets = _one_set_per_category(k, sets, "most_informative_of")
    choices = [sorted(xs, key=k.sheet_position) for xs in sets]
    if math.prod(map(len, choices)) > MAX_SUGGESTIONS:  # counted before any is built
        return sheet_choice(k, choices)
    suggestions = list(itertools.product(*choices))
    try:
        ranked = evaluator(k, measure, beliefs).rank(int(shortlist), among=suggestions)
    except TableTooLarge:  # too big to value exactly: the sheet's least settled cards
        return sheet_choice(k, choices)
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
    after = Supposed(view, frozenset(held_cells), frozenset(lacked_cells - held_cells),
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
    ev = evaluator(k, "shannon", beliefs)
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


@SUGGESTIONS("like most_informative_of, but looking one move ahead: each of the `shortlist` suggestions the "
             "one-step choice values best is scored by the envelope's expected entropy after its outcome (who "
             "shows which card, or nobody, by the exact beliefs) AND the best follow-up suggestion's outcome, "
             "and the lowest is chosen (ties: the one-step order); beliefs 'clues' / 'weighted' as in "
             "most_informative_of. Costs about one exact-beliefs pass and one ranking per outcome of each "
             "shortlisted suggestion, all charged to the request's budget; past the deadline, or when the "
             "exact beliefs refuse, it answers as most_informative_of", costly=True, soft=True)
def most_informative_ahead(k: KnowledgeView, sets, shortlist=4, beliefs="sheet"):
    sets = _one_set_per_category(k, sets, "most_informative_ahead")
    try:
        scored = _lookahead(k, sets, int(shortlist), beliefs)
    except TableTooLarge:
        return most_informative_of(k, sets, shortlist, "shannon", beliefs)
    if not scored:
        return most_informative_of(k, sets, shortlist, "shannon", beliefs)
    return min(scored, key=lambda tv: round(tv[0], 12))[1].cards


@SUGGESTIONS("exact expected reduction of the envelope's uncertainty, in bits, if the seat makes the "
             "suggestion (measure as in most_informative: 'shannon', 'hartley', 'min', 'top' -- not bits, a "
             "probability -- or 'deal'); beliefs 'clues' as in most_informative_of", costly=True, soft=True)
def information_gain(k: KnowledgeView, suggestion, measure="shannon", beliefs="sheet"):
    try:
        return evaluator(k, measure, beliefs).evaluate(tuple(suggestion)).gain_bits
    except TableTooLarge:  # not valued when the exact beliefs refuse
        return 0.0


@SUGGESTIONS("exact probability that nobody can refute the suggestion if the seat makes it; beliefs 'clues' "
             "as in most_informative_of", costly=True, soft=True)
def refutation_none(k: KnowledgeView, suggestion, beliefs="sheet"):
    try:
        return evaluator(k, "shannon", beliefs).evaluate(tuple(suggestion)).outcomes.get(None, 0.0)
    except TableTooLarge:  # the sheet's estimate: each card the envelope's or the seat's, independently
        probs = exact_beliefs(k).probabilities
        return math.prod(probs[ENVELOPE].get(c, 0.0) + (probs[k.me].get(c, 0.0) if k.me else 0.0)
                         for c in suggestion)


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    SUGGESTIONS.register(functions, descriptions)
