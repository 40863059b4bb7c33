"""Property tests: random games and corrupted observation streams.  The engine
never crashes, never concludes a falsehood, names every contradiction, and
keeps its state when an observation is refused."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clue_expert.core.cards import get_edition
from clue_expert.core.deals import random_deal
from clue_expert.core.errors import ContradictionError
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.testing.drawn import games
from clue_expert.testing.randomgame import random_turns, seat_view
from clue_expert.core.observations import Accusation, DealtHand, Suggestion

ED = get_edition("cluedo")


def examples(n: int) -> settings:
    """Hypothesis settings for ``n`` examples, no deadline (a game's time is not the property)."""
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def snapshot(k: Knowledge) -> dict:
    return {(o, c): k.status(o, c) for o in k.owners for c in ED.card_ids}


def never_a_falsehood(record):
    """Games built from drawn parts (clue_expert/testing/drawn.py: the edition, the deal, the seat, each
    turn), so a failure shrinks to a small game."""
    deal = record.deal
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes)
    for n, t in record.observations():
        k.observe(t, n)
    for o in k.owners:
        for c in record.edition.card_ids:
            s = k.status(o, c)
            if s != "unknown":
                assert (deal.owner_of(c) == o) == (s == "held")
    # every derived fact rests on observations -- or on the edition's shape alone (an envelope that takes
    # every card of a category holds them in any deal: a spectator who saw nothing knows it too)
    shape = None
    for key in k.justifications:
        if key[0] in ("held", "lacked", "one-of", "not-all") and not k.roots(key):
            shape = shape or Knowledge(record.edition, record.players, None, record.hand_sizes)
            assert shape.known(key) or shape.entailment(key)[0] is True, key


def corrupt(turn, rng, players):
    """Change one observation so that it may lie."""
    if isinstance(turn, Accusation):
        return Accusation(turn.by, turn.cards, not turn.correct)
    choice = rng.randrange(3)
    cards = turn.cards
    if choice == 0:  # a different card shown
        c = rng.choice(cards)
        if turn.card is not None:
            return Suggestion(turn.by, cards, turn.passed, turn.shown_by, c)
    if choice == 1:  # nobody could disprove
        i = players.index(turn.by)
        order = players[i + 1:] + players[:i]
        return Suggestion(turn.by, cards, tuple(order), None, None)
    # swap in random cards
    new = (rng.choice(ED.category_cards("suspect")), rng.choice(ED.category_cards("weapon")),
           rng.choice(ED.category_cards("room")))
    card = rng.choice(new) if turn.card is not None else None
    return Suggestion(turn.by, new, turn.passed, turn.shown_by, card)


def contradictions_named_and_state_kept(seed, players, rate):
    rng = random.Random(seed)
    deal = random_deal(ED, tuple(f"p{i}" for i in range(players)), rng)
    me = deal.players[0]
    turns = seat_view(random_turns(deal, rng, 30), me)
    k = Knowledge(ED, deal.players, me, {p: len(h) for p, h in deal.hands.items()})
    k.observe(DealtHand(k.me, tuple(deal.hands[me])))
    n = 0
    for t in turns:
        if rng.random() < rate:
            t = corrupt(t, rng, deal.players)
        n += 1
        before = snapshot(k)
        before_facts = dict(k.justifications)
        try:
            k.observe(t, n)
        except ContradictionError as exc:
            assert exc.turn == n
            assert exc.facts, f"contradiction without named facts: {exc}"
            assert snapshot(k) == before, "state changed by a refused observation"
            assert set(k.justifications) == set(before_facts)
            continue
        # whatever was accepted is consistent: some deal satisfies it all
        assert k.consistent()


# Each property runs twice: a bounded number of examples in the default run,
# many more in the slow tier (python -m pytest -m slow; .ci/run runs it).
GAMES = dict(record=games(max_turns=45))
STREAMS = dict(seed=st.integers(0, 10**9), players=st.integers(3, 6), rate=st.floats(0.05, 0.5))
test_random_games_never_conclude_a_falsehood = examples(20)(given(**GAMES)(never_a_falsehood))
test_random_games_never_conclude_a_falsehood_long = pytest.mark.slow(
    examples(600)(given(**GAMES)(never_a_falsehood)))
test_corrupted_streams_name_contradictions_and_keep_state = examples(10)(
    given(**STREAMS)(contradictions_named_and_state_kept))
test_corrupted_streams_name_contradictions_and_keep_state_long = pytest.mark.slow(
    examples(1000)(given(**STREAMS)(contradictions_named_and_state_kept)))
