"""The SAT backbone (clue_expert/engine/reasoning/backbone.py) on small
decks: every literal it finds is entailed, every entailed literal is found,
whatever the order of the candidates (an owner's cells in one run or in
several), and kept witnesses answer only when they satisfy every assumption."""
from __future__ import annotations

import random

import pytest

from clue_expert.engine.reasoning.backbone import SatModel, Unsatisfiable

OWNERS = ["a", "b", "c", "envelope"]
CARDS = [f"k{i}" for i in range(9)]
CATEGORIES = {"x": CARDS[:3], "y": CARDS[3:6], "z": CARDS[6:]}
HANDS = {"a": 2, "b": 2, "c": 2}


def _model_and_facts(seed: int) -> tuple[SatModel, list[int]]:
    rng = random.Random(seed)
    sat = SatModel(OWNERS, CARDS, CATEGORIES, HANDS, "envelope")
    facts: list[int] = []
    for _ in range(rng.randrange(2, 6)):
        o = rng.choice(OWNERS[:3])
        cards = rng.sample(CARDS, 3)
        if rng.random() < 0.5:
            facts.append(sat.add_clause_fact(("one-of", o, *cards), [sat.var(o, c) for c in cards]))
        else:
            facts.append(sat.var(o, rng.choice(CARDS)) * rng.choice((1, -1)))
    return sat, facts


@pytest.mark.parametrize("seed", range(30))
def test_backbone_finds_exactly_the_entailed_literals_in_any_order(seed):
    sat, facts = _model_and_facts(seed)
    cells = [v for _, row in sat.owner_cells() for _, v in row]
    if not sat.consistent(facts):
        with pytest.raises(Unsatisfiable):
            sat.backbone(facts, cells)
        return
    entailed = [v if sat.entails(facts, v) else -v for v in cells if sat.entails(facts, v) or sat.entails(facts, -v)]
    shuffled = cells[:]
    random.Random(seed).shuffle(shuffled)  # an owner's cells in many runs
    for order in (cells, shuffled):
        found = sat.backbone(facts, order)
        assert [lit for lit, _ in found] == [x for v in order for x in entailed if abs(x) == v]
        for lit, core in found:
            assert set(core) <= set(facts) and sat.entails(core, lit)


def test_witnesses_answer_only_when_they_satisfy_every_assumption():
    sat, _ = _model_and_facts(0)
    a1, b1 = sat.var("a", "k0"), sat.var("b", "k1")
    sel = sat.add_clause_fact(("not-all", "a"), [-sat.var("a", "k3"), -sat.var("a", "k4")])
    sat.check([a1])  # keeps a model with a holding k0
    kept = sat.kept
    sat.check([a1])  # the kept one answers: no solve, nothing kept
    assert sat.kept == kept
    for extra in ([-a1], [a1, b1, sel]):
        sat.check(extra)
        model = sat.example(extra)
        assert model is not None
    kept = sat.kept
    sat.check([a1, b1, sel])  # answered by the witness kept for it
    assert sat.kept == kept
