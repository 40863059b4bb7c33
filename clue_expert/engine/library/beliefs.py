"""Exact beliefs: the probabilities of the deal, and the beliefs that take the probable clues as
facts or weigh them by their owners' trust (:mod:`clue_expert.engine.reasoning.beliefs` computes
them; :mod:`clue_expert.engine.reasoning.scoring` values suggestions); :func:`evaluator` and :func:`sheet_choice` serve the suggestion choosers
(:mod:`.suggestions`, :mod:`.board`)."""
from __future__ import annotations

from ...core.errors import ContradictionError
from ...core.facts import ENVELOPE
from ..reasoning.beliefs import (BeliefProblem, TableTooLarge, check_exact, compute, envelope_only, estimate,
                                 estimate_top_probability)
from ..reasoning.scoring import SuggestionEvaluator
from ..seat.queries import KnowledgeView
from .registry import Section

BELIEFS = Section("exact beliefs")


def exact_beliefs(k: KnowledgeView):
    """The exact beliefs, once while the knowledge stands still; when they
    refuse (:class:`~clue_expert.engine.reasoning.beliefs.TableTooLarge`: their table
    would pass ``beliefs.MAX_TABLE``) the sheet's estimate
    (:func:`~clue_expert.engine.reasoning.beliefs.estimate`, ``exact`` False) stands in."""
    def build():
        env = _sheet_envelope(k)
        if not env.exact:
            return env
        try:
            return compute(k, env.forward, same_state=True)  # (both memos of this state)
        except TableTooLarge:
            return estimate(k)
    return k.memo_state("beliefs", build)


def _sheet_envelope(k: KnowledgeView):
    """The envelope's side of :func:`exact_beliefs` (an
    :class:`~clue_expert.engine.reasoning.beliefs.EnvelopeBeliefs`, or the sheet's estimate where they
    refuse), once while the knowledge stands still: what the envelope's functions read, without the
    cells' probabilities (:func:`exact_beliefs` continues from it)."""
    def build():
        try:
            return envelope_only(k, _problem(k, "sheet", k))
        except TableTooLarge:
            return estimate(k)
    return k.memo_state("beliefs-envelope", build)


def _problem(k: KnowledgeView, name: str, view):
    """The :class:`~clue_expert.engine.reasoning.beliefs.BeliefProblem` of ``view`` (``name``: which
    view, for the memo) as the knowledge stands now, once (the envelope's pass and
    :func:`envelope_top_bound` read the same one), or None where it cannot be built: then the pass
    builds it itself and raises as it always did."""
    def build():
        try:
            return BeliefProblem(view)
        except _NO_BELIEFS:
            return None
    return k.memo_state(f"{name}-problem", build)


def sheet_choice(k: KnowledgeView, sets=None):
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


@BELIEFS("exact probability that the owner holds the card (uniform deals, uniform choice of shown card)",
         costly=True, soft=True)
def probability(k: KnowledgeView, owner, card):
    return exact_beliefs(k).probabilities[owner][card]


@BELIEFS("entropy of the envelope's distribution over its possible contents, in bits; with 'clues', by the "
         "beliefs that take the unrefuted probable clues as facts (see clue_top_probability); with "
         "'weighted', by the beliefs that weigh each clue by its owner's trust (see clue_trust)",
         costly=True, soft=True)
def envelope_entropy(k: KnowledgeView, source=None):
    return _source_beliefs(k, source).entropy_bits


@BELIEFS("the probability of the likeliest envelope contents; with 'clues', by the beliefs that take the "
         "unrefuted probable clues as facts (see clue_top_probability); with 'weighted', by the beliefs that "
         "weigh each clue by its owner's trust (see clue_trust)", costly=True, soft=True)
def envelope_top_probability(k: KnowledgeView, source=None):
    return max(_source_beliefs(k, source).envelope.values())


@BELIEFS("the likeliest envelope contents (its cards in sheet order; suspect, weapon, room in the classic "
         "game); with 'clues', by the beliefs that take the unrefuted probable clues as facts; with 'weighted', "
         "by the beliefs that weigh each clue by its owner's trust (see clue_trust)", costly=True, soft=True)
def envelope_top(k: KnowledgeView, source=None):
    env = _source_beliefs(k, source).envelope
    return max(env, key=env.get)


#: What :func:`envelope_top_bound` adds to its bound: far above the rounding of the beliefs' sums (a
#: relative error of about 1e-16 per term), far below the gaps between the bounds (1 / n) and the floors.
BOUND_MARGIN = 1e-6


@BELIEFS("an upper bound of envelope_top_probability(source), the beliefs not computed: the envelope's "
         "likeliest contents share their probability with every contents that interchangeable cards make of "
         "them (cards of one category with the same possible owners and constraints), so it is at most 1 / "
         "(the product, over the categories whose one envelope card is open, of the fewest interchangeable "
         "candidates of a card), plus 1e-6 for the sums' rounding (docs/beliefs.md#a-bound-without-the-beliefs); "
         "a rule that needs envelope_top_probability(source) >= x need not compute it when this is below x")
def envelope_top_bound(k: KnowledgeView, source=None):
    if source is None or source == "sheet":
        view = None
    elif source == "weighted":
        view = _weighted_view(k)
    elif source == "clues":
        view = _clue_view(k)
    else:
        raise ValueError(f"unknown beliefs {source!r}: use 'sheet', 'clues' or 'weighted'")
    # the beliefs named, or (no view, no consistent deal, a refusal) the sheet's: exact, or its estimate
    bound = max(_symmetry_bound(_problem(k, "sheet", k)), _estimate_top(k))
    if view is not None:
        bound = max(bound, _symmetry_bound(_problem(k, "weighted" if source == "weighted" else "clue", view)))
    return bound + BOUND_MARGIN


def _symmetry_bound(pb) -> float:
    """An upper bound of the probability of the likeliest envelope of the exact beliefs of ``pb`` (a
    :class:`~clue_expert.engine.reasoning.beliefs.BeliefProblem`): 1 / the product, over the categories
    of which the envelope takes one more free card, of the smallest class
    (:meth:`~clue_expert.engine.reasoning.beliefs.BeliefProblem.card_classes`) among its candidates.  The
    classes' permutations map an envelope to as many others as the product of its cards' classes'
    sizes, all of one probability.  1.0 where there is no problem (it cannot be built: the beliefs then
    refuse or raise; no bound)."""
    if pb is None:
        return 1.0
    classes = pb.card_classes()
    sizes: dict = {}
    for c in pb.free:
        if ENVELOPE in pb.allowed[c]:
            sizes[classes[c]] = sizes.get(classes[c], 0) + 1
    ways = 1
    for cat in pb.categories:
        if pb.need[cat] != 1:  # (none to take: one way; two or more: not bounded here)
            continue
        least = min((sizes[classes[c]] for c in pb.free if pb.category[c] == cat and ENVELOPE in pb.allowed[c]),
                    default=1)
        ways *= least
    return 1.0 / ways


def _estimate_top(k: KnowledgeView) -> float:
    """The probability the sheet's estimate (:func:`~clue_expert.engine.reasoning.beliefs.estimate`, where
    the exact beliefs refuse) gives its likeliest envelope; 1.0 where it gives none (no bound)."""
    return estimate_top_probability(k) or 1.0


class Supposed:
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


def _supposed_view(k: KnowledgeView, held_cells: set, lacked_cells: set, soft: list | tuple = ()):
    """The knowledge with these cells supposed held / lacked (a cell both ways counts as held) and the
    ``soft`` weights, or None when nothing is supposed."""
    lacked_cells = lacked_cells - held_cells
    if not held_cells and not lacked_cells and not soft:
        return None
    return Supposed(k, frozenset(held_cells), frozenset(lacked_cells), tuple(soft))


#: What the beliefs of a supposed view may raise where no consistent deal is left (or they refuse).
_NO_BELIEFS = (ValueError, ZeroDivisionError, ContradictionError, TableTooLarge)


def _supposed_envelope(k: KnowledgeView, name: str, view):
    """The envelope's side of the beliefs of ``view`` (``name``: which supposed view, for the memo), or
    None when there is no view or no consistent deal is left (or the beliefs refuse): None exactly
    when :func:`_supposed_state` is."""
    def build():
        if view is None:
            return None
        try:
            env = envelope_only(view, _problem(k, name, view))
        except _NO_BELIEFS:
            return None
        return env if env.envelope and env.deals > 0 else None
    return k.memo_state(f"{name}-envelope", build)


def _supposed_state(k: KnowledgeView, name: str, view):
    """(view, beliefs) of a supposed view (continuing :func:`_supposed_envelope`'s pass), or None as
    that is."""
    def build():
        env = _supposed_envelope(k, name, view)
        if env is None:
            return None
        try:
            b = compute(view, env.forward, same_state=True)  # (both memos of this state)
        except _NO_BELIEFS:
            return None
        if not b.envelope or not b.deals > 0:
            return None
        return view, b
    return k.memo_state(f"{name}-beliefs", build)


def _clue_view(k: KnowledgeView):
    """The knowledge with the unrefuted probable clues taken as facts (except those about an owner the
    sheet has caught with a wrong clue), or None when there are none."""
    def build():
        held_cells, lacked_cells = set(), set()
        # an owner the sheet has caught with a wrong clue (e.g. a player who names his own cards in
        # the first round) is not trusted for any
        caught = {owner for _, owner, _ in k.probable_clues(refuted=True)}
        for kind, owner, card in k.probable_clues():
            if owner not in caught:
                (held_cells if kind == "probably-held" else lacked_cells).add((owner, card))
        return _supposed_view(k, held_cells, lacked_cells)
    return k.memo_state("clue-view", build)


def _clue_state(k: KnowledgeView):
    """(view, beliefs) with the unrefuted probable clues taken as facts, or
    None when there are none or they leave no consistent deal together."""
    return _supposed_state(k, "clue", _clue_view(k))


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


@BELIEFS("the estimated chance that a probable clue about the player is true: the mean of a Beta(9, 1) "
         "prior updated by his clues the sheet has settled (each confirmed one a success, each refuted one "
         "a failure); docs/beliefs.md#whom-to-trust")
def clue_reliability(k: KnowledgeView, owner):
    a, b = RELIABILITY_PRIOR
    confirmed, refuted, _ = _clue_record(k).get(owner, (0, 0, 0.0))
    return (a + confirmed) / (a + b + confirmed + refuted)


@BELIEFS("how far the player's probable clues are trusted, 0 to 1: his clue_reliability above the chance "
         "that a clue about him is true by luck (his share of the cards this seat does not hold), as a "
         "share of what is left, (r - chance) / (1 - chance), never below 0; a clue about him weighs the "
         "deals that contradict it by 1 - trust in the weighted beliefs")
def clue_trust(k: KnowledgeView, owner):
    _, _, chance = _clue_record(k).get(owner, (0, 0, 0.0))
    r = clue_reliability(k, owner)
    if chance >= 1.0:
        return 0.0
    return min(1.0, max(0.0, (r - chance) / (1.0 - chance)))


def _weighted_view(k: KnowledgeView):
    """The knowledge with every unrefuted probable clue weighted by its owner's trust, or None when no
    clue carries any weight."""
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
        return _supposed_view(k, held_cells, lacked_cells, soft)
    return k.memo_state("weighted-view", build)


def _weighted_state(k: KnowledgeView):
    """(view, beliefs) with every unrefuted probable clue weighted by its owner's trust, or None when
    no clue carries any weight or they leave no consistent deal."""
    return _supposed_state(k, "weighted", _weighted_view(k))


def _source_beliefs(k: KnowledgeView, source):
    """The envelope's side of the beliefs named (the sheet's where the clues' or the weighted ones are
    None): its ``envelope`` and ``entropy_bits``."""
    if source is None or source == "sheet":
        return _sheet_envelope(k)
    if source == "weighted":
        env = _supposed_envelope(k, "weighted", _weighted_view(k))
    elif source == "clues":
        env = _supposed_envelope(k, "clue", _clue_view(k))
    else:
        raise ValueError(f"unknown beliefs {source!r}: use 'sheet', 'clues' or 'weighted'")
    return _sheet_envelope(k) if env is None else env


@BELIEFS("the exact beliefs' probability of the envelope's likeliest contents when the unrefuted probable "
         "clues are taken as facts, except those about an owner the sheet has refuted a clue of (the "
         "sheet's beliefs when there are none, or when they leave no consistent deal); 1.0 means certain "
         "given the clues", costly=True, soft=True)
def clue_top_probability(k: KnowledgeView, _unused=None):
    return envelope_top_probability(k, "clues")


def evaluator(k: KnowledgeView, measure: str = "shannon", source=None):
    """The suggestion evaluator of the beliefs named; raises
    :class:`~clue_expert.engine.reasoning.beliefs.TableTooLarge` (cheaply) when the
    sheet's exact beliefs refuse (or would: for the clues' or the weighted
    beliefs they are only checked, :func:`_sheet_exact`)."""
    if source in ("clues", "weighted"):
        view = _clue_view(k) if source == "clues" else _weighted_view(k)
        if view is not None and not _sheet_exact(k):  # (no view: the sheet's beliefs below, checked there)
            raise TableTooLarge("the exact beliefs refused (the limit on their table size)")
        state = _supposed_state(k, "clue" if source == "clues" else "weighted", view)
        if state is not None:
            view, b = state
            return k.memo_state((f"evaluator-{source}", measure),
                                lambda: SuggestionEvaluator(view, b, measure, same_state=True))
    elif source not in (None, "sheet"):
        raise ValueError(f"unknown beliefs {source!r}: use 'sheet', 'clues' or 'weighted'")
    if not exact_beliefs(k).exact:
        raise TableTooLarge("the exact beliefs refused (the limit on their table size)")
    return k.memo_state(("evaluator", measure), lambda: SuggestionEvaluator(k, exact_beliefs(k), measure,
                                                                            same_state=True))


def _sheet_exact(k: KnowledgeView) -> bool:
    """Whether the sheet's exact beliefs would be exact (:func:`exact_beliefs`'s
    ``exact``), once while the knowledge stands still, told by
    :func:`~clue_expert.engine.reasoning.beliefs.check_exact` without
    computing them."""
    def build():
        try:
            check_exact(k)
        except TableTooLarge:
            return False
        return True
    return k.memo_state("beliefs-exact", build)


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    BELIEFS.register(functions, descriptions)
