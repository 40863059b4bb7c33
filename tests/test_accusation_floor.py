"""The floor of the even-race accusations (rules/accusations/;
docs/strategies.md#the-last-gaps-6-players-and-the-5-player-accusation).

``clue-expert-even-race`` guesses the weighted beliefs' likeliest envelope
when its probability is at least its ``floor`` parameter (0.5) and at least
``1 - race_risk(0.5)``; ``clue-expert-race-55`` extends it with the floor
at 0.55, so that it never guesses on a coin flip.  A scenario cannot set
the race risk high enough to reach a floor between 0.5 and 0.55 (the
shadows need the deduction rules, which a scenario leaves off), so the
risk is fixed here by replacing the rule function.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from clue_expert.core.cards import build_edition, get_edition
from clue_expert.core.facts import parse_fact
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.language.rules import load_ruleset

ACCUSATIONS = Path(__file__).resolve().parent.parent / "rules" / "accusations"
EVEN = ACCUSATIONS / "clue-expert-even-race.yaml"
RACE_55 = ACCUSATIONS / "clue-expert-race-55.yaml"

#: One suspect, one weapon, three rooms; ann holds no card, bob two, lounge
#: among them: the envelope's room is hall or kitchen, each with chance 0.5.
COIN = build_edition("coin", {"suspect": ["plum"], "weapon": ["rope"], "room": ["hall", "kitchen", "lounge"]},
                     None, {})
#: The scenarios' "hall at 79 %" position (clue-expert-even-race.test.yaml).
HALL_79 = ["envelope holds plum", "envelope holds rope", "ann holds kitchen", "ann holds ballroom",
           "ann holds conservatory", "bob holds dining-room", "bob holds billiard-room", "cat holds lounge",
           "cat holds study", "bob lacks hall", "cat lacks hall"]


def _guesses(path: Path, edition, players, sizes, given, risk: float, monkeypatch) -> list:
    """The accusation rule's proposals at an accuse-offer, with race_risk fixed at ``risk``."""
    monkeypatch.setitem(FUNCTIONS, "race_risk", lambda k, near=0.0: risk)
    k = Knowledge(edition, players, "ann", sizes, rulesets=[load_ruleset(path)])
    k.assume([parse_fact(t, edition, k.owners) for t in given])
    p = FUNCTIONS["envelope_top_probability"](k, "weighted")
    return p, [c.options for c in k.request("accuse-offer", {"turn": 99})]


def _coin(path, risk, monkeypatch):
    return _guesses(path, COIN, ["ann", "bob"], {"ann": 0, "bob": 2}, ["bob holds lounge"], risk, monkeypatch)


def test_a_coin_flip_is_guessed_at_floor_0_5_only_when_waiting_loses(monkeypatch):
    p, proposed = _coin(EVEN, 0.6, monkeypatch)
    assert p == pytest.approx(0.5)
    assert len(proposed) == 1 and {c for slot in proposed[0] for c in slot} <= {"plum", "rope", "hall", "kitchen"}
    assert _coin(EVEN, 0.4, monkeypatch)[1] == []  # waiting wins 0.6 > 0.5: wait


def test_race_55_never_guesses_a_coin_flip(monkeypatch):
    for risk in (0.6, 0.9, 1.0):
        p, proposed = _coin(RACE_55, risk, monkeypatch)
        assert p == pytest.approx(0.5) and proposed == []


def test_race_55_guesses_above_its_floor_when_waiting_loses(monkeypatch):
    ed = get_edition("cluedo")
    players, sizes = ["ann", "bob", "cat"], None
    p, proposed = _guesses(RACE_55, ed, players, sizes, HALL_79, 0.6, monkeypatch)
    assert 0.55 < p < 1
    assert proposed == [(("plum",), ("rope",), ("hall",))]
    assert _guesses(RACE_55, ed, players, sizes, HALL_79, 0.1, monkeypatch)[1] == []  # waiting wins 0.9 > p
