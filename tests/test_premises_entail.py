"""Every explanation is a proof: for every rule firing on random games, the
premises the firing cites, with the rules of the game (one owner per card,
hand sizes, the envelope's cards per category), entail each of its
conclusions -- checked by an independent CNF encoding (the oracle's,
clue_expert/testing/oracle.py), not by the engine.

No shipped deduction rule states its premises: they are what the rule matched
and read (``Firing.premises``), and what ``why`` shows is that set minimised
(``Knowledge.justification``); both are checked here, and the minimised set
is checked to be minimal.  The Kingston and Mitchell levels' rules, some of
which state fewer premises with ``because:``, are checked the same way."""
from __future__ import annotations

import pytest

from pathlib import Path

from clue_expert.core.errors import RuleFileError
from clue_expert.engine.seat.knowledge import CASE_ANALYSIS, GIVEN, OBSERVATION, Knowledge, replay_record
from clue_expert.engine.seat.levels import get_level
from clue_expert.engine.language.rules import load_ruleset
from clue_expert.testing.oracle import deal_clauses, premises_follow
from clue_expert.testing.randomgame import random_records

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("n_players", [3, pytest.param(4, marks=pytest.mark.slow), pytest.param(6, marks=pytest.mark.slow)])
def test_every_firing_is_entailed_by_its_premises(n_players):
    checked = 0
    for record in random_records(300 + n_players, 6, n_players, 30):
        k = replay_record(record)
        deal = deal_clauses(k.edition, k.players, k.hand_sizes)
        for firing in k.firings:
            if firing.rule == CASE_ANALYSIS:
                continue  # checked through its minimised core below
            for conclusion in firing.conclusions:
                assert premises_follow(deal, firing.premises, [conclusion], k.values), \
                    (firing.rule, conclusion, firing.premises)
                checked += 1
        for key, j in list(k.justifications.items()):
            if j.rule == CASE_ANALYSIS:
                j = k.justification(key)  # the minimised core
                assert premises_follow(deal, j.premises, [key], k.values), (key, j.premises)
                checked += 1
    assert checked > 100


def test_no_shipped_deduction_rule_states_its_premises():
    for path in sorted((ROOT / "rules" / "deduction").glob("*.yaml")):
        if path.name.endswith(".test.yaml"):
            continue
        assert "because:" not in path.read_text(), path
        assert all(r.auto_premises for r in load_ruleset(path).rules), path


@pytest.mark.parametrize("n_players", [3, pytest.param(6, marks=pytest.mark.slow)])
def test_what_why_shows_is_minimal_and_entails(n_players):
    """The premises a rule read, minimised on first explanation: each fact
    still follows from them, and from none of them left out (bar the fact the
    rule matched and the observations, which always stay)."""
    checked = 0
    for record in random_records(900 + n_players, 3, n_players, 30):
        k = replay_record(record)
        deal = deal_clauses(k.edition, k.players, k.hand_sizes)
        for key in list(k.justifications):
            raw = k.justifications[key]
            if raw.rule in (OBSERVATION, GIVEN, CASE_ANALYSIS) or raw.read_from is None:
                continue
            kept = raw.premises[:raw.read_from]
            j = k.justification(key)
            assert j.read_from is None and set(j.premises) <= set(raw.premises)
            assert j.premises[:len(kept)] == kept
            assert premises_follow(deal, j.premises, [key], k.values), (j.rule, key, j.premises)
            for i in range(len(kept), len(j.premises)):
                fewer = j.premises[:i] + j.premises[i + 1:]
                assert not premises_follow(deal, fewer, [key], k.values), (j.rule, key, j.premises[i], "not needed")
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("level", ["kingston", "mitchell"])
def test_level_rules_premises_entail(level):
    """The levels' rules -- automatic premises, and stated ones checked as they fire."""
    rulesets = get_level(level).rulesets()
    checked = 0
    for record in random_records(40, 4, 4, 30):
        k = replay_record(record, rulesets=rulesets, complete=False, check_premises=True)
        deal = deal_clauses(k.edition, k.players, k.hand_sizes)
        for firing in k.firings:
            for conclusion in firing.conclusions:
                assert premises_follow(deal, firing.premises, [conclusion], k.values), (firing.rule, conclusion)
                checked += 1
    assert checked > 100


WRONG = """id: wrong
title: A rule whose stated premises do not entail its conclusion
rules:
  - id: shown-card-is-not-in-envelope-wrongly-cited
    message: "{player} showed {card}, so it is not in the envelope"
    when: showed
    if: "card is not None"
    then:
      - lacked: [ENVELOPE, card]
    because: ["[HandSize(player)]"]
"""


def test_stated_premises_that_do_not_entail_are_refused(tmp_path):
    from clue_expert.core.cards import get_edition
    from clue_expert.core.observations import Suggestion
    path = tmp_path / "wrong.yaml"
    path.write_text(WRONG)
    rs = load_ruleset(path)
    turn = Suggestion("ann", ("white", "rope", "study"), (), "bob", "rope")
    k = Knowledge(get_edition("cluedo"), ["ann", "bob", "cat"], "ann", rulesets=[rs], complete=False)
    k.observe(turn, 1)  # unchecked, as in a game: the firing stands, citing what it says
    assert k.justifications[("lacked", "envelope", "rope")].premises == (("hand-size", "bob"),)
    k = Knowledge(get_edition("cluedo"), ["ann", "bob", "cat"], "ann", rulesets=[rs], complete=False,
                  check_premises=True)
    with pytest.raises(RuleFileError, match="its because: premises do not entail 'envelope lacks rope'"):
        k.observe(turn, 1)
    path.write_text(WRONG.replace('    because: ["[HandSize(player)]"]\n', '    because: ["[this]"]\n'))
    k = Knowledge(get_edition("cluedo"), ["ann", "bob", "cat"], "ann", rulesets=[load_ruleset(path)],
                  complete=False, check_premises=True)
    k.observe(turn, 1)
    assert k.justification(("lacked", "envelope", "rope")).premises == (("showed", 1),)
