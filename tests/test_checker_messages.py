"""The checker's and the messages' leftovers of issue 13: cards in record
errors by their edition display names, a wrong category refused with the
nearest name, and scenario mistakes (a hand, a malformed turn) made clear."""
from __future__ import annotations

from pathlib import Path

import pytest

from clue_expert.core.errors import RecordError
from clue_expert.core.records import parse_record
from clue_expert.engine.language.rules import default_rulesets
from clue_expert.people.cli import main
from clue_expert.testing.scenarios import load_scenarios, run_scenario

ROOT = Path(__file__).resolve().parent.parent

RECORD = {"edition": "cluedo", "players": ["ann", "bob", "cat"], "me": "ann",
          "hand": ["scarlett", "rope", "hall", "lounge", "dagger", "plum"], "turns": []}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("turn, message", [
    ({"by": "cat", "suggest": ["plum", "rope", "lounge"], "passed": ["ann"], "shown_by": "bob"},
     "ann passed but holds Professor Plum, Rope and Lounge"),
    ({"by": "bob", "suggest": ["green", "revolver", "study"], "passed": ["cat"], "shown_by": "ann"},
     "ann showed a card but holds none of Reverend Green, Revolver and Study"),
    ({"by": "bob", "suggest": ["plum", "revolver", "study"], "passed": ["cat"], "shown_by": "ann", "card": "study"},
     "ann showed Study, which is not in ann's hand"),
    ({"by": "ann", "suggest": ["green", "revolver", "study"], "passed": [], "shown_by": "bob", "card": "lead-pipe"},
     "the shown card Lead Piping is not one of the suggested Reverend Green, Revolver and Study"),
    ({"by": "ann", "suggest": ["green", "revolver", "study"], "passed": ["bob"]},
     "nobody showed a card, but cat did not pass"),
])
def test_record_errors_name_cards_by_their_display_names(turn, message):
    with pytest.raises(RecordError) as err:
        parse_record({**RECORD, "turns": [turn]})
    assert message in str(err.value)


def test_a_wrong_category_is_refused_with_the_nearest(capsys, tmp_path):
    path = tmp_path / "my-advanced.yaml"
    path.write_text("id: my-advanced\nkind: strategy\ntitle: T\nrules:\n  - id: r\n    message: m\n"
                    "    when: your-turn\n    if: \"not solved('rooms')\"\n"
                    "    then:\n      - suggest: {other: \"category_cards(category)\"}\n")
    code, _, err = run(capsys, "rules", path)
    assert code == 2 and "'rooms' is not a category of edition 'cluedo'" in err and "did you mean room?" in err
    code, _, err = run(capsys, "play", "--strategy", path, "--show", "quiet", "--no-sheets")
    assert code == 2 and "did you mean room?" in err


SCENARIOS = """\
ruleset: no-intelligence
scenarios:
  - name: my hand is held, so not asked about
    rule: ask-first-unseen-cards-in-list-order
    fires: true
    me: ann
    hand: [scarlett, mustard, white, candlestick, kitchen, ballroom]
    request: {kind: your-turn}
    proposes:
      suspect: [green, peacock, plum]
      weapon: [dagger, lead-pipe, revolver, rope, spanner]
  - name: a hand without a seat
    rule: ask-first-unseen-cards-in-list-order
    fires: true
    hand: [scarlett]
    request: {kind: your-turn}
  - name: a turn that is not a turn
    rule: ask-first-unseen-cards-in-list-order
    fires: true
    me: ann
    turns: [{suggest: [plum, rope, hall]}]
    request: {kind: your-turn}
"""


def test_scenario_hand_gives_the_held_cards_and_mistakes_are_clear(tmp_path):
    from clue_expert.engine.language.rules import load_ruleset
    path = tmp_path / "no-intelligence.test.yaml"
    path.write_text(SCENARIOS)
    good, seatless, bad_turn = load_scenarios(path)
    rulesets = [*default_rulesets(), load_ruleset(ROOT / "rules" / "shared" / "no-intelligence.yaml")]
    run_scenario(good, rulesets)  # the rule reads held(ME): the hand is held though no deduction rule runs
    with pytest.raises(AssertionError, match="hand: is the seat's own hand; say whose with me:"):
        run_scenario(seatless, rulesets)
    with pytest.raises(AssertionError, match="turn #1 has no 'by'; a turn is a suggestion"):
        run_scenario(bad_turn, rulesets)


def test_a_scenario_yaml_mistake_names_the_file_once(capsys, tmp_path):
    (tmp_path / "mine.yaml").write_text((ROOT / "rules" / "shared" / "no-intelligence.yaml").read_text()
                                        .replace("id: no-intelligence", "id: mine", 1)
                                        .replace("ask-first-unseen-cards-in-list-order", "mine-first"))
    (tmp_path / "mine.test.yaml").write_text("ruleset: mine\nscenarios: [\n  - name: x\n")
    code, _, err = run(capsys, "rules", "--test", tmp_path / "mine.yaml")
    assert code == 2 and err.count("mine.test.yaml") == 1 and "not valid YAML (line 3)" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
