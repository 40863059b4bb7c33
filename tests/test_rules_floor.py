"""The deduction rules on their own (completion step off) are held to a
completeness floor against the independent CNF oracle, so a broken or missing
rule fails here and not only in its own scenarios."""
from __future__ import annotations

import functools

import pytest

from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.language.rules import all_rules, default_rulesets
from clue_expert.testing.oracle import cnf_entailed
from clue_expert.testing.randomgame import random_records

#: Measured on 40 seeded random 30-turn records per size: 99.79 % (3 players)
#: and 99.65 % (6 players) of the entailed cells are settled by the rules alone
#: (99.74 % at 6 players while a search rule filled a hand with any number of
#: disjoint clauses; the pattern rule takes one clause).
FLOOR = 99.5


@functools.lru_cache(maxsize=None)
def _games(n: int) -> tuple:
    return tuple((r, cnf_entailed(r)) for r in random_records(7 + n, 40, n, 30))


def _settled(n: int, without: str | None = None) -> float:
    ids = [r.id for r in all_rules(default_rulesets()) if r.id != without]
    total = right = 0
    for record, entailed in _games(n):
        k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, complete=False, only=ids)
        for turn, obs in record.observations():
            k.observe(obs, turn)
        cells = k.sheet().cells
        for (owner, card), value in entailed.items():
            total += 1
            assert cells[owner][card] in (value, "unknown"), (record.me, owner, card)  # nothing false
            right += cells[owner][card] == value
    return 100 * right / total


@pytest.mark.parametrize("n", [3, pytest.param(6, marks=pytest.mark.slow)])
def test_rules_alone_settle_nearly_everything(n):
    assert _settled(n) >= FLOOR


@pytest.mark.parametrize("rule", [pytest.param("last-possible-owner-holds-card", marks=pytest.mark.slow),
                                  "one-of-down-to-last-card"])
def test_the_floor_catches_a_missing_rule(rule):
    assert min(_settled(3, rule), _settled(6, rule)) < FLOOR
