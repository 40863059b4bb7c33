"""The race-aware accusation (rules/accusations/race.yaml, the race block of
engine/library/race.py; docs/strategies.md#a-race-aware-accusation).

The race risk is 0 when no opponent could be solved (and near=0), 1 once an
opponent's shadow names the envelope; the rule never accuses a card the seat
holds; whole Speed Clue games at 3 and 6 players run with it.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.core.deals import random_deal
from clue_expert.core.facts import lacked_key
from clue_expert.core.observations import Accusation, DealtHand, Suggestion
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.language.rules import default_rulesets, load_ruleset
from clue_expert.play.game import play_game
from clue_expert.play.players import seat_player

ED = get_edition("cluedo")
PLAYERS = ("ann", "bob", "cat")
RACE = "clue-expert-focused:accusation=race"


def call(k, name, *args):
    return FUNCTIONS[name](k, *args)


def _knowledge(hand=("white", "knife", "kitchen", "lounge", "study", "pipe")):
    k = Knowledge(ED, PLAYERS, "ann")
    k.observe(DealtHand("ann", ED.resolve_all(hand)))
    return k


def test_no_opponent_near_means_no_risk():
    k = _knowledge()
    # a refuted suggestion by bob (shown by cat, unseen by ann): public, but solves nobody
    k.observe(Suggestion("bob", ED.resolve_all(["plum", "rope", "hall"]), (), "cat", None), 1)
    assert call(k, "race_risk") == 0.0
    assert call(k, "opponents_solved") == ()
    assert all(call(k, "shadow_envelopes", p) > 1 for p in ("bob", "cat"))
    assert 0.0 < call(k, "race_risk", 0.5) < 1.0  # the optional part of the model: some chance, not certainty


def test_an_opponent_whose_shadow_is_solved_makes_the_risk_one():
    k = _knowledge()
    # the seat knows bob lacks the three cards; nobody could refute his suggestion of them
    k.assume([lacked_key("bob", c) for c in ED.resolve_all(["plum", "rope", "hall"])])
    k.observe(Suggestion("bob", ED.resolve_all(["plum", "rope", "hall"]), ("cat", "ann"), None, None), 1)
    assert call(k, "shadow_envelopes", "bob") == 1
    assert call(k, "opponents_solved") == ("bob",)
    assert call(k, "race_risk") == 1.0
    assert call(k, "accuse_chance", "bob") == 1.0


def test_a_solved_opponent_settles_the_risk_without_the_later_shadows(monkeypatch):
    # ann's opponents in turn order are bob, then cat: bob's shadow names the envelope, so the risk is
    # 1.0 whatever cat's says, and cat's shadow is not built (issue 36)
    from clue_expert.engine.library import models
    k = _knowledge()
    k.assume([lacked_key("bob", c) for c in ED.resolve_all(["plum", "rope", "hall"])])
    k.observe(Suggestion("bob", ED.resolve_all(["plum", "rope", "hall"]), ("cat", "ann"), None, None), 1)
    built = []
    shadow = models._shadow
    monkeypatch.setattr(models, "_shadow", lambda k, player: built.append(player) or shadow(k, player))
    assert call(k, "opponents_in") == ("bob", "cat")
    assert call(k, "race_risk", 0.5) == 1.0
    assert built == ["bob"]


def test_a_solved_opponent_who_is_out_is_no_risk():
    k = _knowledge()
    k.assume([lacked_key("bob", c) for c in ED.resolve_all(["plum", "rope", "hall"])])
    k.observe(Suggestion("bob", ED.resolve_all(["plum", "rope", "hall"]), ("cat", "ann"), None, None), 1)
    k.observe(Accusation("bob", ED.resolve_all(["green", "rope", "hall"]), False), 2)
    assert "bob" not in call(k, "opponents_in")


def test_cards_shown_to_an_opponent_narrow_his_shadow():
    k = _knowledge()
    before = call(k, "shadow_envelopes", "bob")
    k.observe(Suggestion("bob", ED.resolve_all(["white", "rope", "hall"]), (), "ann", ED.resolve_all(["white"])[0]), 1)
    assert call(k, "shadow_envelopes", "bob") < before


def test_the_rule_never_accuses_a_card_the_seat_holds():
    rules = [*default_rulesets(), load_ruleset(Path(__file__).resolve().parent.parent / "rules" / "accusations" / "race.yaml")]
    # risk 1 (bob's shadow is solved) while the seat's own sheet, with only the race rule, knows little:
    # the guess is its likeliest envelope, which never holds its own cards
    k = Knowledge(ED, PLAYERS, "ann", rulesets=rules, only=["race-accuse-before-the-opponents"], complete=False)
    hand = ED.resolve_all(["white", "knife", "kitchen", "lounge", "study", "pipe"])
    k.observe(DealtHand("ann", hand))
    k.assume([lacked_key("bob", c) for c in ED.resolve_all(["plum", "rope", "hall"])])
    k.observe(Suggestion("bob", ED.resolve_all(["plum", "rope", "hall"]), ("cat", "ann"), None, None), 1)
    found = k.request("accuse-offer", {"turn": 2})
    assert found, "the race rule must guess when an opponent is solved"
    for c in found:
        for option in c.options:
            assert not set(option) & set(hand)


def _game(n: int, seed: int):
    names = tuple(f"p{i + 1}" for i in range(n))
    deal = random_deal(ED, names, random.Random(seed))
    players = {p: seat_player(p, RACE if i % 2 == 0 else "clue-expert-focused", seed=seed * 10 + i)
               for i, p in enumerate(names)}
    return deal, play_game(deal, players)


# one game at each size in the default run, two in the slow tier (.ci/run runs it)
@pytest.mark.parametrize("games", [((3, 1), (6, 3)),
                                   pytest.param(((3, 1), (3, 2), (6, 3), (6, 4)), marks=pytest.mark.slow)],
                         ids=lambda t: f"{len(t)}-games")
def test_whole_games_at_three_and_six_players(games):
    for n, seed in games:
        deal, result = _game(n, seed)
        assert result.winner is not None
        for event in result.events:
            obs = event.observation
            if isinstance(obs, Accusation):
                assert not set(obs.cards) & set(deal.hands[obs.by]), (n, seed, obs)


@pytest.mark.parametrize("players", [3, 6])
def test_a_shadow_on_the_deduction_rules_alone_is_the_shadow_on_every_rule(players):
    # a shadow runs the seat's deduction rule sets only (issue 36): the model, strategy, response and
    # accusation rules conclude nothing it reads, so its held / lacked facts are those of a shadow
    # with every rule of the seat (replayed the same way, on a knowledge of every rule set)
    from clue_expert.engine.library import models
    from clue_expert.engine.seat.knowledge import replay_record
    from clue_expert.play.players import load_decisions
    from clue_expert.testing.randomgame import random_record
    rules = [*default_rulesets(), load_decisions("model", "first-round-asks"),
             load_decisions("model", "second-round-asks"),
             load_ruleset(Path(__file__).resolve().parent.parent / "rules" / "accusations" / "clue-expert-race-60.yaml")]
    record = random_record(random.Random(players), n_players=players, n_turns=3 * players)
    for upto in (players, 2 * players, 3 * players):
        k = replay_record(record, upto, rulesets=rules)
        assert len(k._spares) == 0 or all(len(s._rulesets) < len(k._rulesets) for s in k._spares.values())
        for p in k.players:
            if p == k.me:
                continue
            alone = models._shadow(k, p)
            facts = {(o, c, alone.status(o, c)) for o in alone.owners for c in alone.cards}
            k.kept_shadows = {}  # (built by fresh, below with every rule set)
            fresh = k.fresh
            k.fresh = lambda me, complete=None, deduction=False: fresh(me, complete=complete)
            try:
                every = models._shadow(k, p)
            finally:
                k.fresh, k.kept_shadows = fresh, None
            assert len(every._rulesets) > len(alone._rulesets)
            assert {(o, c, every.status(o, c)) for o in every.owners for c in every.cards} == facts
