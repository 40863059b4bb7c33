from __future__ import annotations

import copy
import json
import re

import pytest

from clue_expert.core.errors import ContradictionError, RecordError
from clue_expert.core.records import dump_record, load_record, parse_record
from clue_expert.engine.seat.knowledge import replay_record as replay

BASE = {
    "edition": "cluedo", "players": ["ann", "bob", "cat"], "me": "ann",
    "hand": ["scarlett", "rope", "hall", "lounge", "dagger", "plum"],
    "turns": [
        {"by": "bob", "suggest": ["white", "rope", "study"], "passed": ["cat"], "shown_by": "ann", "card": "rope"},
        {"by": "cat", "suggest": ["green", "spanner", "hall"], "passed": [], "shown_by": "ann", "card": "hall"},
        {"by": "ann", "suggest": ["mustard", "candlestick", "kitchen"], "passed": ["bob", "cat"]},
        {"by": "bob", "accuse": ["peacock", "pipe", "kitchen"], "correct": False},
    ],
}


def test_example_record_and_round_trip(tmp_path):
    r = parse_record(copy.deepcopy(BASE))
    assert r.hand_sizes == {"ann": 6, "bob": 6, "cat": 6}
    assert r.turns[3].cards == ("peacock", "lead-pipe", "kitchen")
    for name in ("r.yaml", "r.json"):
        dump_record(r, tmp_path / name)
        again = load_record(tmp_path / name)
        assert again.turns == r.turns and again.hand == r.hand
    json.loads((tmp_path / "r.json").read_text())


def turn(n, **changes):
    d = copy.deepcopy(BASE)
    d["turns"][n - 1].update(changes)
    return d


@pytest.mark.parametrize("data,turn_no,message", [
    (turn(1, passed=[]), 1, "next player asked is cat"),
    (turn(1, shown_by="cat", passed=[]), 1, "could not see it"),
    (turn(3, passed=["cat", "bob"], shown_by=None), None, None),  # order of passes is normalised
    (turn(3, passed=["cat"]), 3, "skip"),
    (turn(3, passed=["bob"]), 3, "did not pass"),
    (turn(2, card="rope"), 2, "not one of the suggested"),
    (turn(1, card="study"), 1, "not in ann's hand"),
    (turn(1, suggest=["white", "kitchen", "study"]), 1, "one suspect, one weapon and one room"),
    (turn(1, suggest=["white", "rop", "study"]), 1, "did you mean 'rope'"),
    (turn(1, by="dan"), 1, "not one of the players"),
    (turn(4, accuse=["plum", "rope"]), 4, "one suspect"),
])
def test_rule_breaking_records_are_rejected_with_turn_and_reason(data, turn_no, message):
    if message is None:
        parse_record(data)
        return
    with pytest.raises(RecordError) as err:
        parse_record(data)
    assert err.value.turn == turn_no
    assert message in str(err.value)


def test_card_seen_by_someone_else_is_rejected():
    d = copy.deepcopy(BASE)
    d["turns"].append({"by": "cat", "suggest": ["green", "revolver", "study"], "passed": ["ann"],
                       "shown_by": "bob", "card": "study"})
    with pytest.raises(RecordError, match="could not see it"):
        parse_record(d)


def test_passing_while_holding_is_rejected():
    d = copy.deepcopy(BASE)
    d["turns"].append({"by": "cat", "suggest": ["green", "revolver", "lounge"], "passed": ["ann"],
                       "shown_by": "bob"})
    with pytest.raises(RecordError, match="ann passed but holds"):
        parse_record(d)


def test_wrong_accuser_is_out():
    d = copy.deepcopy(BASE)
    d["turns"].append({"by": "bob", "suggest": ["green", "revolver", "study"], "passed": ["cat", "ann"]})
    with pytest.raises(RecordError, match="is out"):
        parse_record(d)


def test_hand_size_and_sum_checks():
    d = copy.deepcopy(BASE)
    d["hand"] = d["hand"][:5]
    with pytest.raises(RecordError, match="has 5 cards"):
        parse_record(d)
    d = copy.deepcopy(BASE)
    d["hand_sizes"] = {"bob": 7}
    with pytest.raises(RecordError, match="add up"):
        parse_record(d)


def test_card_shown_after_passing_on_it_is_a_named_contradiction():
    d = copy.deepcopy(BASE)
    d["turns"] = [
        {"by": "ann", "suggest": ["green", "revolver", "study"], "passed": ["bob"], "shown_by": "cat",
         "card": "study"},
        {"by": "ann", "suggest": ["green", "candlestick", "kitchen"], "passed": ["bob", "cat"]},
        {"by": "cat", "suggest": ["white", "revolver", "kitchen"], "passed": ["ann"], "shown_by": "bob",
         "card": None},
        {"by": "ann", "suggest": ["white", "revolver", "ballroom"], "passed": [], "shown_by": "bob",
         "card": "revolver"},
    ]
    record = parse_record(d)
    k, err = replay(record, strict=False)
    assert isinstance(err, ContradictionError) and err.turn == 4
    assert any("bob lacks revolver" in f for f in err.facts)
    assert any("bob holds revolver" in f for f in err.facts)
    assert k.last_turn == 3  # the sheet before turn 4 is kept
    assert k.status("bob", "revolver") == "lacked"


def test_shower_after_everyone_passed_and_bad_deal_are_errors_not_crashes():
    d = turn(3, shown_by="bob", passed=["bob", "cat"])
    with pytest.raises(RecordError):
        parse_record(d)
    d = copy.deepcopy(BASE)
    d["turns"][2].update(passed=["bob", "cat"], shown_by="cat")
    with pytest.raises(RecordError, match="every other player passed"):
        parse_record(d)
    for bad in (5, ["x"], {"envelope": ["plum", "rope", "kitchen"], "hands": {"ann": BASE["hand"]}}):
        d = copy.deepcopy(BASE)
        d["deal"] = bad
        with pytest.raises(RecordError):
            parse_record(d)


def test_marks_are_read_checked_kept_and_never_deduced_from(tmp_path):
    """The seat's own marks (made in clue-expert serve): names resolved, shape checked, round-tripped."""
    data = dict(copy.deepcopy(BASE), marks=[{"owner": "bob", "card": "Mrs Peacock", "mark": "held", "note": " saw it "},
                                            {"owner": "envelope", "card": "pipe", "note": "a hunch"}])
    r = parse_record(data)
    assert r.marks == [{"owner": "bob", "card": "peacock", "mark": "held", "note": "saw it"},
                       {"owner": "envelope", "card": "lead-pipe", "note": "a hunch"}]
    plain = parse_record(copy.deepcopy(BASE))
    assert replay(r).sheet().cells == replay(plain).sheet().cells
    dump_record(r, tmp_path / "r.yaml")
    assert load_record(tmp_path / "r.yaml").marks == r.marks
    assert "marks" not in plain.to_dict()  # a record without marks is written as before
    for marks, message in [
        ("bob", "marks must be a list"),
        ([{"owner": "dan", "card": "rope", "mark": "held"}], "mark 1: owner 'dan' is not one of"),
        ([{"owner": "bob", "card": "ropes", "mark": "held"}], "mark 1: card:"),
        ([{"owner": "bob", "card": "rope", "mark": "maybe"}], "mark 1: mark must be held or lacked"),
        ([{"owner": "bob", "card": "rope"}], "mark 1: give a mark (held or lacked), a note, or both"),
        ([{"owner": "bob", "card": "rope", "note": 5}], "mark 1: note must be text of at most 500 characters"),
        ([{"owner": "bob", "card": "rope", "note": "x" * 501}], "at most 500 characters"),
        ([{"owner": "bob", "card": "rope", "mark": "held"}, {"owner": "bob", "card": "rope", "mark": "lacked"}],
         "mark 2: bob / Rope is marked twice"),
        ([{"owner": "bob", "card": "rope", "colour": "red"}], "mark 1 must be a mapping of owner, card, mark and note"),
    ]:
        with pytest.raises(RecordError, match=re.escape(message)):
            parse_record(dict(copy.deepcopy(BASE), marks=marks))
