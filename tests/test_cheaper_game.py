"""The parts of issue 15's cheaper game that change how work is done, not
what is concluded: the rule guard checked before a rule runs, premises put
in order when first read, and the garbage collector's policy while games are
played.  (tests/test_golden_games.py checks that the games play as before.)"""
from __future__ import annotations

import gc

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.core.observations import DealtHand, Suggestion
from clue_expert.engine.seat import interpret, justify
from clue_expert.engine.seat.levels import get_level
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.language.rules import parse_ruleset
from clue_expert.play import simulate


def _rule(cond, let=None, when="lacked"):
    rule = {"id": "r-one", "message": "{owner} lacks {card}", "when": when, "if": cond,
            "then": [{"held": ["owner", "card"]}]}
    if let:
        rule["let"] = let
    ruleset = parse_ruleset({"id": "mine", "title": "t", "rules": [rule]}, "mine.yaml")
    return ruleset.rules[0]


@pytest.mark.parametrize("cond,let,guard", [
    ("is_player(owner) and len(left) == 1", {"left": "possible_owners(card)"}, "(is_player(owner))"),
    ("owner == ENVELOPE", None, "(owner == ENVELOPE)"),
    ("owner != ENVELOPE and card in {'rope'} and len(held(owner)) > 1", None,
     "(owner != ENVELOPE) and (card in {'rope'})"),
    ("len(held(owner)) > 1 and is_player(owner)", None, None),  # held() reads the sheet: nothing after it
    ("len(left) == 1", {"left": "possible_owners(card)"}, None),  # a let
    ("possible_owners(card) == {ENVELOPE}", None, None),  # not a pure function
    ("is_player(owner) or len(held(owner)) > 1", None, None),
])
def test_guard_is_the_leading_conditions_on_the_trigger(cond, let, guard):
    rule = _rule(cond, let)
    assert (rule.guard.source if rule.guard is not None else None) == guard


HAND = ("scarlet", "mustard", "knife", "rope", "kitchen", "hall")


def test_a_rule_ruled_out_by_its_guard_does_not_run(monkeypatch):
    # every shipped deduction and level rule is patterns now: a when: rule of one's own has the guard
    mine = parse_ruleset({"id": "mine", "title": "t", "rules": [
        {"id": "note-lacked-by-a-player", "message": "{owner} lacks {card}", "when": "lacked",
         "if": "is_player(owner) and len(held(owner)) > 100", "then": [{"held": ["owner", "card"]}]}]},
        "mine.yaml")
    k = Knowledge(get_edition("classic"), ["ann", "bob", "cat"], "ann",
                  rulesets=[*get_level("complete").rulesets(), mine], complete=False)
    ran = []
    run = interpret.RuleInterpreter._run_rule
    monkeypatch.setattr(interpret.RuleInterpreter, "_run_rule",
                        lambda self, rule, env: (ran.append((rule.id, env.get("owner"))), run(self, rule, env)))
    k.observe(DealtHand("ann", HAND))
    owners = {o for r, o in ran if r == "note-lacked-by-a-player"}
    assert owners == {"ann", "bob", "cat"}  # (is_player(owner)): the envelope's lacked facts stop at the guard
    assert k.lacked_by("envelope")  # there were some



def test_premises_put_in_order_later_are_those_at_the_firing(monkeypatch):
    """Each justification's premises, worked out when first read, equal
    those worked out from the same reads when the rule fired."""
    made = []
    init = justify.ReadJustification.__init__

    def record(self, rule, message, step, turn, reads):
        init(self, rule, message, step, turn, reads)
        lib = message._lib()  # the knowledge, held weakly by the message
        made.append((self, justify.premises_read(reads, known=dict(lib.justifications))))
    monkeypatch.setattr(justify.ReadJustification, "__init__", record)
    native_init = interpret._NativeJustification.__init__

    def record_native(self, rule, step, turn, orders, keys, lib, *rest):  # a native firing's (no ReadRecord made)
        native_init(self, rule, step, turn, orders, keys, lib, *rest)
        made.append((self, justify.premises_read(justify.ReadRecord(orders, keys, ()), known=dict(lib.justifications))))
    monkeypatch.setattr(interpret._NativeJustification, "__init__", record_native)
    for spec in simulate.make_specs(players=4, games=2, seed=5,
                                    strategies=["clue-expert-focused", "kingston-next-not-held"]):
        simulate.run_game(spec)
    assert len(made) > 500
    assert all((j.premises, j.read_from) == eager for j, eager in made)


def test_firings_share_their_justifications_premises():
    k = Knowledge(get_edition("classic"), ["ann", "bob", "cat"], "ann")
    k.observe(DealtHand("ann", HAND))
    k.observe(Suggestion("bob", ("plum", "rope", "hall"), passed=("cat",), shown_by="ann", card="rope"), 1)
    k.observe(Suggestion("cat", ("white", "knife", "study"), passed=(), shown_by="bob", card=None), 2)
    lazy = [f for f in k.firings if isinstance(f, justify.ReadFiring)]
    assert lazy
    for f in lazy:
        for key in f.conclusions:
            assert k.justifications[key].premises == f.premises
            assert f.premises[0] in k.justifications  # the fact it matched first


def test_collector_policy_is_undone_and_nests():
    if not gc.isenabled() or gc.get_freeze_count():
        pytest.skip("the collector is off or objects are frozen here")
    before = gc.get_threshold()
    with simulate.games_collector():
        assert gc.get_threshold()[0] == simulate.GAME_GC_THRESHOLD
        assert gc.get_freeze_count() > 0
        with simulate.games_collector():  # an inner policy does nothing
            assert gc.get_threshold()[0] == simulate.GAME_GC_THRESHOLD
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_games_run_under_the_collector_policy(monkeypatch):
    if not gc.isenabled() or gc.get_freeze_count():
        pytest.skip("the collector is off or objects are frozen here")
    seen = []
    play = simulate._play_game
    monkeypatch.setattr(simulate, "_play_game", lambda spec: (seen.append(gc.get_threshold()[0]), play(spec))[1])
    specs = simulate.make_specs(players=3, games=2, seed=1, strategies=["clue-expert-focused"])
    before = gc.get_threshold()
    simulate.run_games(specs, workers=1)  # simulate --workers 1: all games under one policy
    simulate.run_game(specs[0])  # one game alone (a cluster worker's task): under its own
    assert seen == [simulate.GAME_GC_THRESHOLD] * 3
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_a_rule_that_rebinds_a_trigger_field_leaves_it_to_the_next_rules():
    """The rules one fact triggers share its bindings; a rule whose for:
    rebinds a field (here card, as first-round-asks does on showed) must not
    change what the rules after it read."""
    rules = [
        {"id": "loops-over-card", "message": "{card}", "when": "showed", "for": {"card": "cards"},
         "where": "False", "then": [{"held": ["by", "card"]}]},
        {"id": "envelope-lacks-shown-card", "message": "{card}", "when": "showed",
         "then": [{"lacked": ["ENVELOPE", "card"]}]},
    ]
    ruleset = parse_ruleset({"id": "mine", "title": "t", "rules": rules}, "mine.yaml")
    assert [r.rebinds for r in ruleset.rules] == [True, False]
    k = Knowledge(get_edition("classic"), ["ann", "bob", "cat"], "ann", rulesets=[ruleset], complete=False)
    # the loop runs over the cards sorted (hall, plum, rope) and so ends on rope, not on the card shown
    k.observe(Suggestion("ann", ("plum", "rope", "hall"), passed=(), shown_by="bob", card="hall"), 1)
    assert k.status("envelope", "hall") == "lacked"
    assert k.status("envelope", "plum") == "unknown" and k.status("envelope", "rope") == "unknown"
