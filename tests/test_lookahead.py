"""The player that looks one move ahead (``most_informative_ahead`` in
engine/library/suggestions.py, rules/strategies/clue-expert-lookahead.yaml;
docs/strategies.md#lookahead): on a position where the best question by
its own expected gain is not the best over two turns, it asks the other
one, and the work of the look-ahead is charged to the request's budget."""
from __future__ import annotations

from clue_expert.core import work
from clue_expert.core.cards import get_edition
from clue_expert.core.observations import DealtHand, Suggestion
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.library.suggestions import _lookahead

ED = get_edition("cluedo")


def card(name):
    return ED.resolve_all([name])[0]


def _position():
    """Three players; ann has asked three times (bob showed rope, cat hall, bob plum)."""
    k = Knowledge(ED, ("ann", "bob", "cat"), "ann")
    k.observe(DealtHand("ann", ED.resolve_all(["dining-room", "study", "lead-pipe", "white", "scarlett",
                                               "billiard-room"])))
    k.observe(Suggestion("ann", ED.resolve_all(["mustard", "rope", "ballroom"]), (), "bob", card("rope")), 1)
    k.observe(Suggestion("ann", ED.resolve_all(["white", "dagger", "hall"]), ("bob",), "cat", card("hall")), 2)
    k.observe(Suggestion("ann", ED.resolve_all(["plum", "candlestick", "kitchen"]), (), "bob", card("plum")), 3)
    sets = [frozenset(k.category_cards(c)) - k.held_by("ann") for c in ED.categories]
    return k, sets


def test_the_lookahead_asks_what_the_one_step_choice_does_not():
    k, sets = _position()
    one_step = FUNCTIONS["most_informative_of"](k, sets, 4)
    ahead = FUNCTIONS["most_informative_ahead"](k, sets, 4)
    assert one_step == ("mustard", "dagger", "ballroom")
    assert ahead == ("mustard", "dagger", "kitchen")
    scored = {v.cards: (two, v.gain_bits) for two, v in _lookahead(k, sets, 4, "sheet")}
    # the one-step choice gains more now, the look-ahead's leaves less after the best follow-up
    assert scored[one_step][1] > scored[ahead][1]
    assert scored[ahead][0] < scored[one_step][0]
    assert scored[ahead][0] == min(two for two, _ in scored.values())


class _Counter:
    def __init__(self):
        self.units = 0

    def charge_work(self, units, what):
        self.units += units

    def late(self):
        return False


def test_the_lookahead_charges_its_work_to_the_budget():
    k, sets = _position()
    plain, ahead = _Counter(), _Counter()
    with work.metered(plain):
        FUNCTIONS["most_informative_of"](k, sets, 4)
    k, sets = _position()  # fresh knowledge: nothing memoised
    with work.metered(ahead):
        FUNCTIONS["most_informative_ahead"](k, sets, 4)
    assert ahead.units > 5 * plain.units > 0


class _Late(_Counter):
    def late(self):
        return True


def test_past_the_deadline_it_answers_as_the_one_step_choice():
    k, sets = _position()
    with work.metered(_Late()):
        assert FUNCTIONS["most_informative_ahead"](k, sets, 4) == FUNCTIONS["most_informative_of"](k, sets, 4)
