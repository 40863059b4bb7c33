"""Deductions against the true deal (soundness) and against two independent
oracles (completeness): after every observation the sheet holds exactly the
entailed facts."""
from __future__ import annotations

import random

import pytest

from clue_expert.core.cards import build_edition, get_edition
from clue_expert.core.deals import random_deal
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.seat.levels import get_level
from clue_expert.testing.oracle import brute_force_entailed, cnf_entailed
from clue_expert.testing.randomgame import random_record, random_turns, seat_view
from clue_expert.core.observations import DealtHand
from clue_expert.core.records import Record

SMALL = build_edition("small", {"suspect": ["s1", "s2", "s3"], "weapon": ["w1", "w2"], "room": ["r1", "r2", "r3"]})


def sheet_facts(k: Knowledge) -> dict:
    return {(o, c): s for o in k.owners for c in k.edition.card_ids
            if (s := k.status(o, c)) != "unknown"}


def check_every_step(record: Record, oracle, engine: str | None = None) -> int:
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, engine=engine)
    k.observe(DealtHand(k.me, tuple(record.hand)))
    checked = 0
    for n in range(0, len(record.turns) + 1):
        if n:
            k.observe(record.turns[n - 1], n)
        facts = sheet_facts(k)
        truth = record.deal
        for (o, c), s in facts.items():
            assert (truth.owner_of(c) == o) == (s == "held"), f"turn {n}: false conclusion {o} {s} {c}"
        expected = oracle(record, n)
        assert facts == expected, (f"turn {n}: missing {set(expected.items()) - set(facts.items())}, "
                                   f"extra {set(facts.items()) - set(expected.items())}")
        checked += 1
    return checked


# 3 players on CLIPS in the default run (experta's sheets equal CLIPS's in the test below); the rest in the slow
# tier (.ci/run runs it)
@pytest.mark.parametrize("engine,records,players", [
    (engine, records, players) if (engine, players) == ("clips", 3)
    else pytest.param(engine, records, players, marks=pytest.mark.slow)
    for engine, records in (("clips", 5), ("experta", 2)) for players in (3, 4, 5, 6)])
def test_complete_against_cnf_oracle_every_turn(players, engine, records):
    """On both rule engines (experta is the slower: fewer records)."""
    rng = random.Random(1000 + players)
    for _ in range(records):
        record = random_record(rng, players, n_turns=24)
        check_every_step(record, cnf_entailed, engine)


@pytest.mark.parametrize("level", ["complete", "kingston", "mitchell"])
def test_both_engines_give_the_same_sheet_after_every_observation(level):
    """The rules alone (no SAT step at kingston and mitchell; with it at complete) reach the same
    sheet on CLIPS and on experta after every observation, and the same facts are derived."""
    rng = random.Random(77)
    for players in (3, 5):
        record = random_record(rng, players, n_turns=14)
        seats = [Knowledge(record.edition, record.players, record.me, record.hand_sizes, engine=e,
                           **({} if level == "complete" else {"rulesets": get_level(level).rulesets(),
                                                              "complete": False}))
                 for e in ("clips", "experta")]
        for k in seats:
            k.observe(DealtHand(k.me, tuple(record.hand)))
        assert sheet_facts(seats[0]) == sheet_facts(seats[1])
        for n, t in enumerate(record.turns, start=1):
            for k in seats:
                k.observe(t, n)
            assert sheet_facts(seats[0]) == sheet_facts(seats[1]), f"{level}, {players} players, turn {n}"
            assert set(seats[0].justifications) == set(seats[1].justifications), f"{level}, turn {n}"


@pytest.mark.parametrize("players", [2, 3, pytest.param(4, marks=pytest.mark.slow)])
def test_complete_against_brute_force_on_small_decks(players):
    rng = random.Random(7 + players)
    for _ in range(12):
        record = random_record(rng, players, n_turns=10, edition=SMALL, accuse_rate=0.1)
        check_every_step(record, brute_force_entailed)


def test_oracles_agree_with_each_other():
    rng = random.Random(3)
    for _ in range(10):
        record = random_record(rng, 3, n_turns=8, edition=SMALL, accuse_rate=0.2)
        for n in range(len(record.turns) + 1):
            assert brute_force_entailed(record, n) == cnf_entailed(record, n)


@pytest.mark.parametrize("players", [3, *(pytest.param(n, marks=pytest.mark.slow) for n in (4, 5, 6))])
def test_sound_on_every_seat_of_many_games(players):
    rng = random.Random(50 + players)
    for _ in range(10):
        deal = random_deal(get_edition("cluedo"), tuple(f"p{i}" for i in range(players)), rng)
        turns = random_turns(deal, rng, 40)
        for me in deal.players:
            record = Record(edition=deal.edition, players=deal.players, me=me, hand=deal.hands[me],
                            hand_sizes={p: len(h) for p, h in deal.hands.items()}, turns=seat_view(turns, me),
                            deal=deal)
            k = Knowledge(record.edition, record.players, me, record.hand_sizes)
            k.observe(DealtHand(k.me, tuple(record.hand)))
            for n, t in enumerate(record.turns, start=1):
                k.observe(t, n)
            for (o, c), s in sheet_facts(k).items():
                assert (deal.owner_of(c) == o) == (s == "held")
            # the envelope is named only when it is the real one
            env = k.envelope()
            for _cat, card in env.items():
                assert card is None or card in deal.envelope
