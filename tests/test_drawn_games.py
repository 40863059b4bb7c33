"""The hypothesis strategies of clue_expert/testing/drawn.py build games from
drawn parts: the records they make are valid, the deduction on them is sound
and complete against the independent CNF oracle, and a failure shrinks to a
small game."""
from __future__ import annotations

import pytest

from hypothesis import HealthCheck, find, given, settings

from clue_expert.core.cards import get_edition
from clue_expert.core.observations import Accusation
from clue_expert.core.records import parse_record
from clue_expert.engine.seat.knowledge import replay_record
from clue_expert.testing.drawn import games
from clue_expert.testing.oracle import cnf_entailed

CLUEDO = get_edition("cluedo")
SMALL = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SMALL
@given(record=games(edition=CLUEDO, max_turns=20))
def test_drawn_records_obey_the_rules_of_the_game(record):
    """The record format's game-rule checks (passes in seat order, a pass or a show true to the deal) accept them."""
    again = parse_record(record.to_dict(), "<drawn>")
    assert [t.to_dict() for t in again.turns] == [t.to_dict() for t in record.turns]
    assert again.deal.hands == record.deal.hands


@SMALL
@given(record=games(max_turns=25))
def test_deduction_on_drawn_games_is_what_the_oracle_entails(record):
    k = replay_record(record)
    entailed = cnf_entailed(record)
    cells = k.sheet().cells
    for o in k.owners:
        for c in record.edition.card_ids:
            assert cells[o][c] == entailed.get((o, c), "unknown"), (o, c)
            if cells[o][c] != "unknown":
                assert (record.deal.owner_of(c) == o) == (cells[o][c] == "held")


@pytest.mark.slow  # a long run (the slow tier runs it in .ci/run)
def test_a_failure_shrinks_to_a_small_game():
    """Asked for a game with a wrong accusation in it, hypothesis finds one and shrinks it: one turn, three players,
    the accusation itself."""
    record = find(games(edition=CLUEDO), lambda r: any(isinstance(t, Accusation) for t in r.turns),
                  settings=settings(max_examples=2000, deadline=None, database=None))
    assert len(record.players) == 3 and len(record.turns) == 1 and isinstance(record.turns[0], Accusation)
