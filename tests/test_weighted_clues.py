"""Opponent models that learn whom to trust (issue 26): every opponent's
clue reliability (a Beta(9, 1) prior updated by his settled clues), his
trust (reliability above luck), and the weighted beliefs in which each
unrefuted probable clue weighs the deals that contradict it by 1 - trust
(``clue_reliability``, ``clue_trust``, beliefs ``'weighted'`` in
engine/library/beliefs.py; the soft weights in engine/reasoning/beliefs.py;
docs/beliefs.md#whom-to-trust)."""
from __future__ import annotations

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.core.observations import DealtHand, Suggestion
from clue_expert.engine.reasoning.beliefs import compute
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.library.beliefs import Supposed, _weighted_state
from clue_expert.engine.language.rules import default_rulesets
from clue_expert.play.players import load_decisions

ED = get_edition("cluedo")
PLAYERS = ("ann", "bob", "cat")
HAND = ("white", "knife", "kitchen", "lounge", "study", "pipe")


def card(name):
    return ED.resolve_all([name])[0]


def call(k, name, *args):
    return FUNCTIONS[name](k, *args)


def _knowledge(models=("first-round-asks",)):
    rules = [*default_rulesets(), *(load_decisions("model", m) for m in models)]
    k = Knowledge(ED, PLAYERS, "ann", rulesets=rules)
    k.observe(DealtHand("ann", ED.resolve_all(HAND)))
    # round 1: bob names plum, rope, hall; cat shows one (ann does not see which)
    k.observe(Suggestion("bob", ED.resolve_all(["plum", "rope", "hall"]), (), "cat", None), 1)
    return k


@pytest.mark.parametrize("factor", [0.0001, 0.3, 0.75, 0.9999])
def test_a_soft_clue_weighs_the_deals_that_contradict_it_exactly(factor):
    # one soft clue "bob probably lacks plum": every deal in which bob holds plum weighs `factor`, so by
    # Bayes P(bob holds plum) = f p / (f p + 1 - p) and P(the envelope holds plum) = P0 / (f p + 1 - p)
    k = _knowledge(models=())
    plum = card("plum")
    sheet = compute(k)
    p = sheet.probabilities["bob"][plum]
    env0 = sum(v for e, v in sheet.envelope.items() if plum in e)
    soft = compute(Supposed(k, frozenset(), frozenset(), (("bob", plum, factor),)))
    z = factor * p + 1 - p
    assert soft.probabilities["bob"][plum] == pytest.approx(factor * p / z, rel=1e-9)
    assert sum(v for e, v in soft.envelope.items() if plum in e) == pytest.approx(env0 / z, rel=1e-9)
    assert sum(soft.envelope.values()) == pytest.approx(1.0)


def test_the_weighted_beliefs_lie_between_the_sheets_and_the_clues_taken_as_facts():
    k = _knowledge()
    plum = card("plum")
    # nothing settled: reliability is the prior's mean 0.9; by luck a clue "bob lacks X" is true for
    # 9 of the 15 cards ann does not hold, so trust = (0.9 - 0.6) / 0.4
    assert call(k, "clue_reliability", "bob") == pytest.approx(0.9)
    assert call(k, "clue_trust", "bob") == pytest.approx(0.75)
    _, weighted = _weighted_state(k)
    p_sheet = call(k, "probability", "bob", plum)
    # three soft clues (plum, rope, hall), each weighing bob-holds deals by 1 - 0.75: fails if the
    # weights are ignored (the sheet's value) or taken as facts (0)
    assert 0.0 < weighted.probabilities["bob"][plum] < p_sheet / 2
    assert (call(k, "envelope_top_probability") < call(k, "envelope_top_probability", "weighted")
            < call(k, "clue_top_probability"))
    assert k.status("bob", plum) == "unknown"  # the sheet is untouched


def test_a_bluffers_clues_lose_weight():
    k = _knowledge()
    plum = card("plum")
    before = _weighted_state(k)[1].probabilities["bob"][plum]
    # bob shows rope to ann: the clue about rope was wrong
    k.observe(Suggestion("ann", ED.resolve_all(["green", "rope", "library"]), (), "bob", card("rope")), 2)
    assert call(k, "clue_reliability", "bob") == pytest.approx(9 / 11)
    assert call(k, "clue_trust", "bob") == pytest.approx((9 / 11 - 0.6) / 0.4)
    after = _weighted_state(k)[1].probabilities["bob"][plum]
    assert before < after < call(k, "probability", "bob", plum)


def test_confirmed_clues_raise_the_trust():
    k = _knowledge()
    # cat cannot disprove rope and hall... ann learns bob lacks rope when bob passes on it
    k.observe(Suggestion("ann", ED.resolve_all(["green", "rope", "library"]), ("bob",), "cat", card("green")), 2)
    assert k.status("bob", card("rope")) == "lacked"
    assert call(k, "clue_reliability", "bob") > 0.9
    assert call(k, "clue_trust", "bob") > 0.75


def test_a_fully_refuted_opponent_is_trusted_for_nothing():
    # four players: bob named six cards in his first two rounds and ann has seen him hold four of them
    # (so the other two, hall and ballroom, are the showers': two clues confirmed); his reliability
    # (9 + 2) / (10 + 2 + 4) is no better than the 11 / 16 that luck gives a clue "bob lacks X" (he
    # holds 5 of the 16 cards ann does not), so his trust is 0 and none of his clues counts
    players = ("ann", "bob", "cat", "dan")
    rules = [*default_rulesets(), load_decisions("model", "first-round-asks"),
             load_decisions("model", "second-round-asks")]
    k = Knowledge(ED, players, "ann", rulesets=rules)
    k.observe(DealtHand("ann", ED.resolve_all(["white", "revolver", "kitchen", "lounge", "study"])))
    k.observe(Suggestion("bob", ED.resolve_all(["plum", "rope", "hall"]), (), "cat", None), 2)
    k.observe(Suggestion("bob", ED.resolve_all(["green", "dagger", "ballroom"]), ("cat",), "dan", None), 6)
    for t, (cards, shown) in enumerate([(["plum", "candlestick", "library"], "plum"),
                                        (["scarlett", "rope", "library"], "rope"),
                                        (["green", "candlestick", "library"], "green"),
                                        (["scarlett", "dagger", "library"], "dagger")], start=9):
        k.observe(Suggestion("ann", ED.resolve_all(cards), (), "bob", card(shown)), t)
    assert len([c for c in k.probable_clues(refuted=True) if c[1] == "bob"]) == 4
    assert call(k, "clue_reliability", "bob") == pytest.approx(11 / 16)
    assert call(k, "clue_trust", "bob") == 0.0
    assert not [c for c in k.probable_clues() if c[1] == "bob" and k.status("bob", c[2]) == "unknown"] \
        or _weighted_state(k) is None  # no clue of his carries weight
    assert call(k, "envelope_top_probability", "weighted") == call(k, "envelope_top_probability")


def test_without_models_the_weighted_beliefs_are_the_sheets():
    k = _knowledge(models=())
    assert _weighted_state(k) is None
    sets = [frozenset(ED.resolve_all(cs)) for cs in (["plum", "green"], ["rope", "candlestick"], ["hall", "library"])]
    assert (call(k, "most_informative_of", sets, 6, "shannon", "weighted")
            == call(k, "most_informative_of", sets, 6))
