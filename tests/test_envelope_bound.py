"""The bound of the likeliest envelope's probability without the beliefs
(``envelope_top_bound`` in engine/library/beliefs.py; issue 36,
docs/beliefs.md#a-bound-without-the-beliefs), and the race accusations'
guard on it (rules/accusations/clue-expert-even-race.yaml,
clue-expert-race-60.yaml): where the bound is below the floor the rule
cannot fire, so the weighted beliefs are not computed."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from clue_expert.core.cards import build_edition, get_edition
from clue_expert.core.facts import parse_fact
from clue_expert.engine.language.rules import default_rulesets, load_ruleset
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.library.beliefs import BOUND_MARGIN
from clue_expert.engine.seat.knowledge import Knowledge, replay_record
from clue_expert.play.players import load_decisions
from clue_expert.testing.randomgame import random_record

ACCUSATIONS = Path(__file__).resolve().parent.parent / "rules" / "accusations"
#: One suspect, one weapon, three rooms; bob holds lounge and one more: the room is hall or kitchen,
#: each with chance 0.5 (tests/test_accusation_floor.py).
COIN = build_edition("coin", {"suspect": ["plum"], "weapon": ["rope"], "room": ["hall", "kitchen", "lounge"]},
                     None, {})


def call(k, name, *args):
    return FUNCTIONS[name](k, *args)


def _coin(rulesets=None) -> Knowledge:
    k = Knowledge(COIN, ["ann", "bob"], "ann", {"ann": 0, "bob": 2}, rulesets=rulesets)
    k.assume([parse_fact("bob holds lounge", COIN, k.owners)])
    return k


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_bound_is_never_below_the_probability(players):
    """On positions of random games, with the models' probable clues (so the clues' and the weighted
    beliefs differ from the sheet's): the bound is at least the probability read, for every source."""
    rules = [*default_rulesets(), load_decisions("model", "first-round-asks"),
             load_decisions("model", "second-round-asks")]
    below = 0
    for seed in range(3):
        record = random_record(random.Random(100 * players + seed), n_players=players, n_turns=18)
        for upto in (0, 3, 6, 9, 12, 18):
            k = replay_record(record, upto, rulesets=rules)
            for source in (None, "clues", "weighted"):
                bound = call(k, "envelope_top_bound", source)
                p = call(k, "envelope_top_probability", source)
                assert p <= bound <= 1.0 + BOUND_MARGIN
                below += bound < 0.5
    assert below > 0  # (it does rule the floors out somewhere)


def test_a_fresh_sheet_is_bounded_by_its_interchangeable_candidates():
    # ann holds a suspect, two weapons and three rooms: five suspects, four weapons and six rooms, each
    # category one class, are the envelope's candidates: exactly uniform
    ed = get_edition("cluedo")
    k = Knowledge(ed, ["ann", "bob", "cat"], "ann")
    k.assume([parse_fact(f"ann holds {c}", ed, k.owners)
              for c in ("white", "knife", "pipe", "kitchen", "lounge", "study")])
    assert call(k, "envelope_top_bound") == pytest.approx(1 / 120 + BOUND_MARGIN, abs=1e-15)
    assert call(k, "envelope_top_probability") == pytest.approx(1 / 120)
    # a one-of clause about two rooms sets them apart from the other four: at most 1 / (5 * 4 * 2)
    k.assume([parse_fact("bob holds one of hall, library", ed, k.owners)])
    assert call(k, "envelope_top_bound") == pytest.approx(1 / 40 + BOUND_MARGIN, abs=1e-15)
    assert call(k, "envelope_top_probability") <= 1 / 40


def test_the_bound_of_a_coin_flip_is_its_probability():
    k = _coin()
    assert call(k, "envelope_top_bound") == 0.5 + BOUND_MARGIN
    assert call(k, "envelope_top_probability") == pytest.approx(0.5)
    with pytest.raises(ValueError):
        call(k, "envelope_top_bound", "hunches")


def _offers(path: Path, risk: float, monkeypatch) -> tuple[list, int]:
    """The accusation rule's proposals on the coin flip with race_risk fixed at ``risk``, and how many
    times the rule read the weighted envelope's probability."""
    reads = []
    top = FUNCTIONS["envelope_top_probability"]

    def counted(k, source=None):
        reads.append(source)
        return top(k, source)
    monkeypatch.setitem(FUNCTIONS, "race_risk", lambda k, near=0.0: risk)
    monkeypatch.setitem(FUNCTIONS, "envelope_top_probability", counted)
    k = _coin(rulesets=[load_ruleset(path)])
    return [c.options for c in k.request("accuse-offer", {"turn": 99})], len(reads)


def test_race_60_does_not_read_the_beliefs_where_the_bound_rules_its_floor_out(monkeypatch):
    proposed, reads = _offers(ACCUSATIONS / "clue-expert-race-60.yaml", 1.0, monkeypatch)
    assert proposed == [] and reads == 0  # at most 0.5 + 1e-6 < 0.6: not fired, nothing computed


def test_even_race_reads_the_beliefs_where_the_bound_meets_its_floor(monkeypatch):
    # the bound 0.5 (+ the margin) does not rule out the floor 0.5: the beliefs decide, as before
    proposed, reads = _offers(ACCUSATIONS / "clue-expert-even-race.yaml", 0.6, monkeypatch)
    assert len(proposed) == 1 and reads > 0
    proposed, reads = _offers(ACCUSATIONS / "clue-expert-race-55.yaml", 0.6, monkeypatch)
    assert proposed == [] and reads == 0  # race-55: 0.5 + 1e-6 < 0.55
