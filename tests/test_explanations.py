"""Every derived fact records its rule and premises, traces back to
observations, and case-analysis facts carry a minimal premise set."""
from __future__ import annotations

import random
from pathlib import Path

from clue_expert.core.cards import get_edition
from clue_expert.engine.seat.knowledge import CASE_ANALYSIS, Knowledge
from clue_expert.testing.randomgame import random_record
from clue_expert.core.observations import DealtHand
from clue_expert.core.records import load_record
from clue_expert.engine.seat.knowledge import replay_record as replay

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


def test_every_fact_has_a_rule_and_known_premises():
    rng = random.Random(11)
    for players in (3, 6):
        for _ in range(4):
            k = replay(random_record(rng, players, 30))
            for key, j in k.justifications.items():
                assert j.rule
                for p in j.premises:
                    assert p in k.justifications
                    assert k.justifications[p].step < j.step, "a premise must be known before its conclusion"
                if key[0] in ("held", "lacked"):
                    assert k.roots(key), key


def test_case_analysis_premises_are_minimal_and_sufficient():
    rng = random.Random(5)
    seen = 0
    for _ in range(40):
        k = replay(random_record(rng, 6, 35))
        for key in list(k.justifications):
            j = k.justification(key)
            if j.rule != CASE_ANALYSIS:
                continue
            seen += 1
            sat = k._ledger.model
            lit = sat.var(key[1], key[2]) * (1 if key[0] == "held" else -1)
            rev = {kk: x for x, kk in k._ledger.facts.items()}
            core = [rev[p] for p in j.premises]
            assert sat.entails(core, lit)
            for i in range(len(core)):
                assert not sat.entails(core[:i] + core[i + 1:], lit), "premise set is not minimal"
        if seen >= 15:
            break
    assert seen, "no case-analysis fact met; widen the sample"


def test_why_tree_reaches_observations():
    k = replay(load_record(EXAMPLES / "three-players.yaml"))
    tree = k.explain(("held", "envelope", "kitchen"))
    leaves = []

    def walk(n):
        if not n.children:
            leaves.append(n)
        for c in n.children:
            walk(c)
    walk(tree)
    assert all(leaf.justification.rule == "observation" or leaf.repeated for leaf in leaves)
    assert tree.justification.rule == "card-nobody-holds-is-in-envelope"


def test_watch_reports_firings_in_order():
    fired = []
    k = Knowledge(get_edition("cluedo"), ["a", "b", "c"], "a", on_fire=fired.append)
    k.observe(DealtHand(k.me, tuple(["scarlett", "rope", "hall", "lounge", "dagger", "plum"])))
    # the callback sees exactly the recorded firings, and each firing's
    # conclusions are justified by that firing (same rule, same step)
    assert fired and fired == k.firings
    for f in fired:
        for c in f.conclusions:
            assert (k.justifications[c].rule, k.justifications[c].step) == (f.rule, f.step), c
    assert {f.rule for f in fired} >= {"envelope-needs-one-card-per-category", "record-own-hand",
                                       "holder-excludes-other-owners"}
