"""Beliefs that take the opponent models' probable clues as facts
(``clue_top_probability``, ``envelope_top('clues')``,
``most_informative_of(..., 'clues')`` in engine/library/suggestions.py;
docs/strategies.md#the-strongest-player-at-every-table-size): they use the
unrefuted clues, drop every clue of an owner caught with a refuted one, fall
back to the sheet's beliefs without clues, and never touch the sheet."""
from __future__ import annotations

from clue_expert.core.cards import get_edition
from clue_expert.core.observations import DealtHand, Suggestion
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.library.beliefs import _clue_state
from clue_expert.engine.language.rules import default_rulesets
from clue_expert.play.players import load_decisions

ED = get_edition("cluedo")
PLAYERS = ("ann", "bob", "cat")
HAND = ("white", "knife", "kitchen", "lounge", "study", "pipe")


def call(k, name, *args):
    return FUNCTIONS[name](k, *args)


def _knowledge(models=True):
    rules = [*default_rulesets(), load_decisions("model", "first-round-asks")] if models else None
    k = Knowledge(ED, PLAYERS, "ann", rulesets=rules) if models else Knowledge(ED, PLAYERS, "ann")
    k.observe(DealtHand("ann", ED.resolve_all(HAND)))
    # round 1: bob names plum, rope, hall; cat shows one (ann does not see which)
    k.observe(Suggestion("bob", ED.resolve_all(["plum", "rope", "hall"]), (), "cat", None), 1)
    return k


def test_the_clues_sharpen_the_beliefs_and_leave_the_sheet_alone():
    k = _knowledge()
    plum = ED.resolve_all(["plum"])[0]
    assert ("probably-lacked", "bob", plum) in k.probable_clues()
    assert k.status("bob", plum) == "unknown"  # the sheet is untouched
    view, beliefs = _clue_state(k)
    assert beliefs.probabilities["bob"][plum] == 0.0
    assert call(k, "probability", "bob", plum) > 0.0
    assert call(k, "clue_top_probability") > call(k, "envelope_top_probability")
    assert call(k, "envelope_top_probability", "sheet") == call(k, "envelope_top_probability")
    # the likeliest envelope given the clues names none of the seat's cards
    assert not set(call(k, "envelope_top", "clues")) & k.held_by("ann")


def test_without_clues_the_sheets_beliefs_are_used():
    k = _knowledge(models=False)
    assert _clue_state(k) is None
    assert call(k, "clue_top_probability") == call(k, "envelope_top_probability")
    sets = [frozenset(ED.resolve_all(cs)) for cs in (["plum", "green"], ["rope", "candlestick"], ["hall", "library"])]
    assert call(k, "most_informative_of", sets, 6, "shannon", "clues") == call(k, "most_informative_of", sets, 6)


def test_an_owner_caught_with_a_wrong_clue_is_not_trusted_for_any():
    k = _knowledge()
    rope = ED.resolve_all(["rope"])[0]
    plum = ED.resolve_all(["plum"])[0]
    # bob shows rope to ann: his first-round clue about rope was wrong
    k.observe(Suggestion("ann", ED.resolve_all(["green", "rope", "library"]), (), "bob", rope), 2)
    assert any(key[1] == "bob" for key in k.probable_clues(refuted=True))
    assert _clue_state(k) is None  # bob's other clues (plum, hall) are dropped too; nobody else has any
    assert call(k, "probability", "bob", plum) > 0.0


def test_an_unknown_beliefs_name_is_an_error_naming_the_choices():
    import pytest
    k = _knowledge()
    with pytest.raises(ValueError, match="use 'sheet', 'clues' or 'weighted'"):
        call(k, "envelope_top_probability", "clue")
