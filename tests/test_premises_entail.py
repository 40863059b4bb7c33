"""Every explanation is a proof: for every rule firing on random games, the
premises the firing cites, with the rules of the game (one owner per card,
hand sizes, the envelope's cards per category), entail each of its
conclusions -- checked by an independent CNF encoding, not by the engine."""
from __future__ import annotations

import pytest
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Glucose3

from clue_expert.core.facts import ENVELOPE
from clue_expert.engine.knowledge import CASE_ANALYSIS, replay_record
from clue_expert.testing.randomgame import random_records


def _game_clauses(k, pool, x) -> list:
    ed = k.edition
    clauses: list = []

    def exactly(lits, n):
        clauses.extend(CardEnc.equals(lits=lits, bound=n, vpool=pool, encoding=EncType.seqcounter).clauses)

    for c in ed.card_ids:
        exactly([x[(o, c)] for o in k.owners], 1)
    for p in k.players:
        exactly([x[(p, c)] for c in ed.card_ids], k.hand_sizes[p])
    for cat in ed.categories:
        exactly([x[(ENVELOPE, c)] for c in ed.category_cards(cat)], ed.envelope_counts[cat])
    return clauses


def _fact_clauses(key, values: dict, x) -> list:
    """The CNF of one cited fact (its own meaning, nothing derived)."""
    kind = key[0]
    v = values.get(key, {})
    if kind == "held":
        return [[x[(key[1], key[2])]]]
    if kind == "lacked":
        return [[-x[(key[1], key[2])]]]
    if kind == "one-of":
        return [[x[(key[1], c)] for c in key[2]]]
    if kind == "not-all":
        return [[-x[(key[1], c)] for c in key[2]]]
    if kind == "dealt":
        return [[x[(v["owner"], c)]] for c in v["cards"]]
    if kind == "passed":
        return [[-x[(v["player"], c)]] for c in v["cards"]]
    if kind == "showed":
        out = [[x[(v["player"], c)] for c in v["cards"]]]
        if v.get("card") is not None:
            out.append([x[(v["player"], v["card"])]])
        return out
    if kind == "accused":
        if v["correct"]:
            return [[x[(ENVELOPE, c)]] for c in v["cards"]]
        return [[-x[(ENVELOPE, c)] for c in v["cards"]]]
    if kind == "revealed":
        return [[x[(v["player"], c)]] for c in v["cards"]]
    assert kind in ("hand-size", "game"), key  # part of the game's rules, always encoded
    return []


def _negation(key, x) -> list:
    """Clauses saying the conclusion is false."""
    kind, owner, what = key
    if kind == "held":
        return [[-x[(owner, what)]]]
    if kind == "lacked":
        return [[x[(owner, what)]]]
    if kind == "one-of":
        return [[-x[(owner, c)]] for c in what]
    return [[x[(owner, c)]] for c in what]  # not-all


@pytest.mark.parametrize("n_players", [3, 4, 6])
def test_every_firing_is_entailed_by_its_premises(n_players):
    checked = 0
    for record in random_records(300 + n_players, 6, n_players, 30):
        k = replay_record(record)
        pool = IDPool()
        x = {(o, c): pool.id(("x", o, c)) for o in k.owners for c in k.edition.card_ids}
        base = _game_clauses(k, pool, x)
        for firing in k.firings:
            if firing.rule == CASE_ANALYSIS:
                continue  # checked through its minimised core below
            premises = [c for p in firing.premises for c in _fact_clauses(p, k.values, x)]
            for conclusion in firing.conclusions:
                with Glucose3(bootstrap_with=base + premises + _negation(conclusion, x)) as s:
                    assert not s.solve(), (firing.rule, conclusion, firing.premises)
                checked += 1
        for key, j in list(k.justifications.items()):
            if j.rule == CASE_ANALYSIS:
                j = k.justification(key)  # the minimised core
                premises = [c for p in j.premises for c in _fact_clauses(p, k.values, x)]
                with Glucose3(bootstrap_with=base + premises + _negation(key, x)) as s:
                    assert not s.solve(), (key, j.premises)
                checked += 1
    assert checked > 100
