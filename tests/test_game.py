"""The driver: dealing, turn order, what each player may see, elimination,
and seeded reproducible games between rule-based players."""
from __future__ import annotations

import random

import pytest

from clue_expert.core.cards import CLASSIC_CATEGORIES as CATEGORIES, get_edition
from clue_expert.core.deals import Deal, get_deal, random_deal
from clue_expert.core.observations import Accusation, Suggestion
from clue_expert.play.game import PlayerError, play_game
from clue_expert.play.players import RuleBasedPlayer, ScriptedPlayer
from clue_expert.engine.seat.knowledge import replay_record as replay

ED = get_edition("cluedo")


@pytest.mark.parametrize("n,sizes", [(3, [6, 6, 6]), (4, [5, 5, 4, 4]), (5, [4, 4, 4, 3, 3]), (6, [3] * 6)])
def test_dealing_rule(n, sizes):
    for seed in range(20):
        d = random_deal(ED, [f"p{i}" for i in range(n)], random.Random(seed))
        assert [len(d.hands[p]) for p in d.players] == sizes
        assert [ED.category_of(c) for c in d.envelope] == list(CATEGORIES)
        cards = list(d.envelope) + [c for h in d.hands.values() for c in h]
        assert sorted(cards) == sorted(ED.card_ids)


def fixed_deal():
    return Deal(id="t", edition=ED, players=("ann", "bob", "cat"), envelope=("plum", "rope", "hall"),
                hands={"ann": ("scarlett", "mustard", "candlestick", "dagger", "kitchen", "ballroom"),
                       "bob": ("white", "green", "lead-pipe", "revolver", "conservatory", "dining-room"),
                       "cat": ("peacock", "spanner", "billiard-room", "library", "lounge", "study")})


def test_turn_order_and_what_each_player_sees():
    deal = fixed_deal()
    ann = ScriptedPlayer("ann", [("white", "spanner", "study")])   # bob holds white; cat holds spanner/study
    bob = ScriptedPlayer("bob", [("scarlett", "spanner", "hall")])  # cat holds spanner -> cat answers first
    cat = ScriptedPlayer("cat", [("plum", "rope", "hall")], accusations={3: ("plum", "rope", "hall")})
    result = play_game(deal, {"ann": ann, "bob": bob, "cat": cat}, max_rounds=1)
    e1, e2, e3, e4 = (e.observation for e in result.events)
    assert (e1.by, e1.passed, e1.shown_by, e1.card) == ("ann", (), "bob", "white")
    assert (e2.by, e2.passed, e2.shown_by, e2.card) == ("bob", (), "cat", "spanner")
    assert (e3.by, e3.passed, e3.shown_by) == ("cat", ("ann", "bob"), None)
    assert isinstance(e4, Accusation) and e4.correct and result.winner == "cat" and result.win_round == 1
    # the card is told only to the suggester and the shower
    told = {name: [e.observation for e in p.seen if hasattr(e, 'observation') and e.turn == 1]
            for name, p in (("ann", ann), ("bob", bob), ("cat", cat))}
    assert told["ann"][0].card == "white" and told["bob"][0].card == "white" and told["cat"][0].card is None
    assert told["cat"][0].shown_by == "bob"  # but everyone sees who showed
    # a player holding several matching cards is asked which to show
    assert ("disprove", 2, "bob", ("scarlett", "spanner", "hall"), ("spanner",)) not in cat.seen  # single match
    assert all(not (isinstance(s, tuple) and s[0] == "disprove") for s in ann.seen)


def test_player_with_several_matches_chooses():
    deal = fixed_deal()
    ann = ScriptedPlayer("ann", [("peacock", "spanner", "study")])
    bob = ScriptedPlayer("bob", [("white", "rope", "hall")])
    cat = ScriptedPlayer("cat", [("plum", "rope", "kitchen")], shows={1: "study"})
    result = play_game(deal, {"ann": ann, "bob": bob, "cat": cat}, max_rounds=1)
    assert result.events[0].observation.shown_by == "cat" and result.events[0].observation.card == "study"
    assert ("disprove", 1, "ann", ("peacock", "spanner", "study"), ("peacock", "spanner", "study")) in cat.seen


def test_invalid_show_and_suggestion_are_refused():
    deal = fixed_deal()
    ann = ScriptedPlayer("ann", [("peacock", "spanner", "study")])
    cat = ScriptedPlayer("cat", [("plum", "rope", "kitchen")], shows={1: "rope"})
    with pytest.raises(PlayerError, match="cat tried to show 'rope'"):
        play_game(deal, {"ann": ann, "bob": ScriptedPlayer("bob", [("white", "rope", "hall")]), "cat": cat})
    with pytest.raises(PlayerError, match="sheet order"):
        play_game(deal, {"ann": ScriptedPlayer("ann", [("rope", "plum", "hall")]),
                         "bob": ScriptedPlayer("bob", [("white", "rope", "hall")]), "cat": cat})


def test_wrong_accuser_is_out_but_still_disproves_and_last_one_wins():
    deal = fixed_deal()
    ann = ScriptedPlayer("ann", [("white", "spanner", "study")], accusations={1: ("plum", "rope", "kitchen")})
    bob = ScriptedPlayer("bob", [("scarlett", "rope", "hall")], accusations={3: ("plum", "rope", "study")})
    cat = ScriptedPlayer("cat", [("green", "rope", "hall")])
    result = play_game(deal, {"ann": ann, "bob": bob, "cat": cat}, max_rounds=3)
    assert [w[0] for w in result.wrong_accusations] == ["ann", "bob"]
    assert result.winner == "cat"
    suggesters = [e.observation.by for e in result.events if isinstance(e.observation, Suggestion)]
    assert suggesters == ["ann", "bob"]


def test_eliminated_player_still_disproves():
    deal = fixed_deal()
    ann = ScriptedPlayer("ann", [("white", "spanner", "study")], accusations={1: ("plum", "rope", "kitchen")})
    bob = ScriptedPlayer("bob", [("scarlett", "rope", "hall")])
    cat = ScriptedPlayer("cat", [("peacock", "rope", "hall")])
    result = play_game(deal, {"ann": ann, "bob": bob, "cat": cat}, max_rounds=2)
    bob_turns = [e.observation for e in result.events
                 if isinstance(e.observation, Suggestion) and e.observation.by == "bob"]
    assert len(bob_turns) == 2 and all(e.shown_by == "ann" and e.card == "scarlett" for e in bob_turns)
    assert all(e.observation.by != "ann" for e in result.events[2:] if isinstance(e.observation, Suggestion))


def play_seeded(seed, strategies=("clue-expert-focused", "mitchell-advanced", "kingston-next-not-held")):
    deal = random_deal(ED, ("p1", "p2", "p3"), random.Random(seed))
    players = {p: RuleBasedPlayer(p, s, seed=seed * 10 + i) for i, (p, s) in enumerate(zip(deal.players, strategies))}
    return play_game(deal, players)


def test_seeded_full_game_is_reproducible_and_records_replay():
    a, b = play_seeded(5), play_seeded(5)
    assert a.events == b.events and a.winner == b.winner
    assert a.winner is not None and not a.wrong_accusations
    for seat in a.deal.players:
        k = replay(a.record(seat))  # the record replays without contradiction
        if seat == a.winner:
            assert k.solved() and tuple(k.envelope().values()) == a.deal.envelope


def test_rule_based_players_never_accuse_wrongly():
    for seed in range(6):
        r = play_seeded(seed, ("mitchell-basic", "kingston-no-intelligence", "mitchell-fixed"))
        assert not r.wrong_accusations and r.winner is not None
        assert r.solution_round is not None and r.solution_round <= r.win_round


def test_kingston_strategies_are_deterministic():
    deal = get_deal("kingston-1-3p")
    runs = []
    for _ in range(2):
        players = {p: RuleBasedPlayer(p, "kingston-next-not-held", seed=i) for i, p in enumerate(deal.players)}
        runs.append([e for e in play_game(deal, players).events])
    assert runs[0] == runs[1]
