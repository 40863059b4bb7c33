"""The measured race risk of clue-expert-hazard-race (rules/accusations/;
docs/strategies.md#calibration-and-the-accusation-floor) and the
calibration script that checks it (benchmarks/calibration.py).

The accusation's ``risk`` binding is what the script evaluates with
``--risk-of``: on a knowledge it must give the stated formula -- every
opponent still in 1.5 % a turn plus 2 % for each of the seat's
suggestions after its first, over race_risk(1) -- and grow as the seat
asks, where race_risk(0.5) alone does not move.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.core.observations import DealtHand, Suggestion
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.library import FUNCTIONS

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import calibration  # noqa: E402
import fit_race_risk  # noqa: E402

ED = get_edition("cluedo")
HAZARD = ROOT / "rules" / "accusations" / "clue-expert-hazard-race.yaml"


def _knowledge(players=("ann", "bob", "cat", "dan")):
    k = Knowledge(ED, players, "ann")
    k.observe(DealtHand("ann", ED.resolve_all(["white", "knife", "kitchen", "lounge"])))
    return k


def _risk(k):
    return calibration.evaluate(calibration.risk_expression(calibration.risk_of(str(HAZARD))), k, 1)


def test_the_risk_is_the_stated_formula_and_grows_with_the_rounds():
    k = _knowledge()
    assert FUNCTIONS["ask_total"](k, "ann") == 0
    before = FUNCTIONS["race_risk"](k, 1)
    # no question of ann's yet: 1.5 % for each of three opponents
    assert _risk(k) == pytest.approx(1 - (1 - before) * (1 - 0.015 * 3))
    for turn in range(1, 5):  # four questions of ann's, each shown by bob (ann sees the card)
        k.observe(Suggestion("ann", ED.resolve_all(["plum", "rope", "hall"]), (), "bob", None), turn)
    assert FUNCTIONS["ask_total"](k, "ann") == 4
    risk = FUNCTIONS["race_risk"](k, 1)
    assert _risk(k) == pytest.approx(1 - (1 - risk) * (1 - (0.015 + 0.02 * 3) * 3))
    assert _risk(k) > 0.2 > FUNCTIONS["race_risk"](k, 0.5)


def test_risk_of_names_a_file_without_a_risk_binding(tmp_path):
    bad = tmp_path / "x.yaml"
    bad.write_text("id: x\nkind: accusation\nrules:\n  - id: a\n    let: {p: '1'}\n")
    with pytest.raises(SystemExit, match="no rule binds `risk`"):
        calibration.risk_of(str(bad))


def test_the_fit_computes_what_the_rule_file_states():
    """benchmarks/fit_race_risk.py recomputes the risk from an offer's dump; with the file's numbers
    it must give what the file's `risk` gives on the same knowledge."""
    k = _knowledge()
    for turn in range(1, 4):
        k.observe(Suggestion("ann", ED.resolve_all(["plum", "rope", "hall"]), (), "bob", None), turn)
    k.observe(Suggestion("bob", ED.resolve_all(["green", "rope", "study"]), (), "cat", None), 4)
    row = {"asked": FUNCTIONS["ask_total"](k, "ann"),
           "shadows": [FUNCTIONS["shadow_envelopes"](k, p) for p in FUNCTIONS["opponents_in"](k)]}
    for near in (0.5, 1, 3):
        assert fit_race_risk.race_risk(row["shadows"], near) == pytest.approx(FUNCTIONS["race_risk"](k, near))
    assert fit_race_risk.risk(row, 1, 0.015, 0.02) == pytest.approx(_risk(k))
    assert fit_race_risk.risk(row, 0.5, 0.0, 0.0) == pytest.approx(FUNCTIONS["race_risk"](k, 0.5))
