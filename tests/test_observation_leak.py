"""No seat but the suggester and the shower can read a shown card: not in
``card``, not in ``actual``, not in any other field of the observation a
:class:`Player` receives from the driver (Speed Clue and the generalized
game), and not from :meth:`Suggestion.seen_by` either."""
from __future__ import annotations

import dataclasses
import random

import pytest

from clue_expert.core.cards import get_edition, pool_edition
from clue_expert.core.deals import random_deal
from clue_expert.core.observations import Suggestion
from clue_expert.play.game import Player, play_game
from clue_expert.play.players import RuleBasedPlayer

NAMES = ("ann", "bob", "cat", "dan")


class Spy(Player):
    """A rule-based seat that keeps every event the driver tells it, as
    received (a third party's Player would see exactly these objects)."""

    def __init__(self, name: str, strategy: str, seed: int):
        self.name = name
        self.inner = RuleBasedPlayer(name, strategy, seed=seed)
        self.told: list = []

    def start(self, edition, players, hand_sizes, hand):
        self.inner.start(edition, players, hand_sizes, hand)

    def suggest(self, turn, round):
        return self.inner.suggest(turn, round)

    def interrogate(self, turn, round, askable):
        return self.inner.interrogate(turn, round, askable)

    def disprove(self, turn, by, cards, matching):
        return self.inner.disprove(turn, by, cards, matching)

    def observe(self, event):
        self.told.append(event)
        self.inner.observe(event)

    def accuse(self, turn):
        return self.inner.accuse(turn)


def _values(obs) -> list:
    """Every field value of an observation but the suggested cards."""
    return [getattr(obs, f.name) for f in dataclasses.fields(obs) if f.name != "cards"]


def _check(result, spies) -> int:
    """Assert what each seat received of every show; the number of shows seen by a third seat."""
    third_party = 0
    for i, event in enumerate(result.events):
        truth = event.observation
        if not isinstance(truth, Suggestion) or truth.shown_by is None:
            continue
        shown = truth.actual
        assert shown is not None and shown in truth.cards
        for name, spy in spies.items():
            received = spy.told[i].observation
            assert received.by == truth.by and received.cards == truth.cards
            if name in (truth.by, truth.shown_by):
                assert received.card == shown
            else:
                third_party += 1
                assert shown not in _values(received), (name, received)
                assert received == Suggestion(truth.by, truth.cards, truth.passed, truth.shown_by, None, None,
                                              truth.asks)
    return third_party


@pytest.mark.parametrize("seed", [0, 1])
def test_speed_clue_players_never_receive_a_card_shown_to_another(seed):
    deal = random_deal(get_edition("cluedo"), NAMES, random.Random(seed))
    spies = {n: Spy(n, "clue-expert-focused", seed * 10 + i) for i, n in enumerate(NAMES)}
    result = play_game(deal, spies, max_rounds=4)
    assert all(len(s.told) == len(result.events) for s in spies.values())
    assert _check(result, spies) > 0  # the game had shows a third seat was told about


def test_generalized_players_never_receive_a_card_shown_to_another():
    deal = random_deal(pool_edition(14, 2), NAMES, random.Random(3))
    spies = {n: Spy(n, "generalized-ask-all-uncertain", i) for i, n in enumerate(NAMES)}
    result = play_game(deal, spies, game="generalized", max_rounds=3)
    assert _check(result, spies) > 0


def test_seen_by_hides_the_card_from_third_seats_and_spectators():
    s = Suggestion("ann", ("plum", "rope", "hall"), ("bob",), "cat", None, "rope")
    for seat in ("bob", "dan", None):
        assert s.seen_by(seat).card is None and s.seen_by(seat).actual is None
    for seat in ("ann", "cat"):
        assert s.seen_by(seat).card == "rope"
    # the record of a game with its true deal keeps the card for replay --as
    assert s.recorded_for("bob").card is None and s.recorded_for("bob").actual == "rope"
