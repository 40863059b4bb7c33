"""Tools for rule authors: `rules --test`, the edition check of `rules`,
"did you mean" for functions, argument counts, and `--rules` on deduce/why."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.core.errors import ExpressionError
from clue_expert.engine.language.expr import compile_expression
from clue_expert.engine.language.compiler import check_edition, edition_problems
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.language.rules import default_rulesets, load_ruleset
from clue_expert.testing.scenarios import load_scenarios, run_scenario, scenario_edition
from clue_expert.testing.samples import MINE, MINE_TESTS
from clue_expert.people.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
K1 = str(EXAMPLES / "kingston-1-player1.yaml")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def rule_file(tmp_path, body: str, name: str = "x.yaml") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


def one_rule(then: str, **extra) -> str:
    lines = ["id: x", "title: X", "rules:", "  - id: r", "    message: m", "    when: held"]
    lines += [f"    {k}: {v!r}" for k, v in extra.items()]
    lines += ["    then:", f"      - {then}"]
    return "\n".join(lines) + "\n"


# --- rules --test ---------------------------------------------------------------
@pytest.fixture
def ownership_copy(tmp_path):
    src = ROOT / "rules" / "deduction"
    shutil.copy(src / "ownership.yaml", tmp_path)
    shutil.copy(src / "ownership.test.yaml", tmp_path)
    return tmp_path / "ownership.yaml"


def test_rules_test_passes_for_a_copy_of_a_shipped_file(capsys, ownership_copy):
    code, out, err = run(capsys, "rules", "--test", ownership_copy)
    assert code == 0, err
    assert "PASS holder-excludes-other-owners::a held card is lacked by every other owner" in out
    assert "FAIL" not in out
    assert "0 failed" in out.splitlines()[-1]


def test_rules_test_fails_naming_the_broken_scenario(capsys, ownership_copy):
    tests = ownership_copy.with_name("ownership.test.yaml")
    text = tests.read_text()
    assert 'expect: ["ann lacks rope", "cat lacks rope", "envelope lacks rope"]' in text
    tests.write_text(text.replace('expect: ["ann lacks rope", "cat lacks rope", "envelope lacks rope"]',
                                  'expect: ["ann lacks rope", "cat lacks rope", "envelope lacks white"]', 1))
    code, out, _ = run(capsys, "rules", "--test", ownership_copy)
    assert code == 1
    fail = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert len(fail) == 1
    assert fail[0].startswith("FAIL holder-excludes-other-owners::a held card is lacked by every other owner — ")
    assert "envelope lacks white" in fail[0]
    assert "1 failed" in out.splitlines()[-1]


def test_rules_test_decision_file_and_own_file(capsys, tmp_path):
    mine = rule_file(tmp_path, MINE, "mine.yaml")
    rule_file(tmp_path, MINE_TESTS, "mine.test.yaml")
    shutil.copy(ROOT / "rules" / "responses" / "random-card.yaml", tmp_path)
    shutil.copy(ROOT / "rules" / "responses" / "random-card.test.yaml", tmp_path)
    code, out, err = run(capsys, "rules", "--test", mine, tmp_path / "random-card.yaml")
    assert code == 0, out + err
    assert "PASS shown-card-is-not-in-envelope::a show ann does not see names no card" in out


def test_rules_test_reports_missing_coverage(capsys, tmp_path):
    mine = rule_file(tmp_path, MINE, "mine.yaml")
    rule_file(tmp_path, MINE_TESTS.split("  - name: a show")[0], "mine.test.yaml")
    code, out, _ = run(capsys, "rules", "--test", mine)
    assert code == 1
    assert "FAIL coverage — rule 'shown-card-is-not-in-envelope' has no scenario where it must not fire" in out


def test_rules_test_yaml_mistake_is_a_clear_error(capsys, tmp_path):
    mine = rule_file(tmp_path, MINE, "mine.yaml")
    rule_file(tmp_path, "ruleset: mine\nscenarios: [\n  - name: x\n", "mine.test.yaml")
    code, _, err = run(capsys, "rules", "--test", mine)
    assert code == 2
    assert err.startswith("error: ") and "mine.test.yaml" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_rules_test_malformed_scenario_fails_without_traceback(capsys, tmp_path):
    mine = rule_file(tmp_path, MINE, "mine.yaml")
    rule_file(tmp_path, MINE_TESTS.replace("{by: ann, suggest", "{suggest", 1), "mine.test.yaml")
    code, out, _ = run(capsys, "rules", "--test", mine)
    assert code == 1
    assert "FAIL shown-card-is-not-in-envelope::a card ann sees shown is not in the envelope — turn #1 has no 'by'; " \
           "a turn is a suggestion {by, suggest, passed, shown_by, card}" in out


def test_rules_test_without_scenario_file(capsys, tmp_path):
    mine = rule_file(tmp_path, MINE, "mine.yaml")
    code, _, err = run(capsys, "rules", "--test", mine)
    assert code == 2 and "mine.test.yaml" in err


# --- the edition check ----------------------------------------------------------
def test_misspelled_card_in_a_set_is_refused(capsys, tmp_path):
    path = rule_file(tmp_path, one_rule("lacked: [owner, card]", **{"if": "card in {'kitchn', 'rope'}"}))
    code, _, err = run(capsys, "rules", path)
    assert code == 2
    assert "'kitchn'" in err and "did you mean kitchen?" in err
    assert len(err.strip().splitlines()) == 1


def test_misspelled_card_in_a_strategy_slot(capsys, tmp_path):
    body = ("id: s\ntitle: S\nkind: strategy\nrules:\n  - id: r\n    message: m\n    when: your-turn\n"
            "    then:\n      - suggest: {suspect: \"'plum'\", weapon: \"'rope'\", room: \"'kitchn'\"}\n")
    path = rule_file(tmp_path, body)
    code, _, err = run(capsys, "rules", path)
    assert code == 2 and "kitchn" in err and "kitchen" in err


def test_edition_check_uses_the_edition_given(capsys, tmp_path):
    path = rule_file(tmp_path, one_rule("lacked: [owner, card]", **{"if": "solved('weapn') or card == 'rope'"}))
    code, _, err = run(capsys, "rules", path)
    assert code == 2 and "'weapn' is not a category" in err and "did you mean weapon?" in err
    path = rule_file(tmp_path, one_rule("lacked: [owner, card]", **{"if": "card in category_cards('who')"}))
    assert run(capsys, "rules", path)[0] == 2
    four = ROOT / "tests" / "data" / "editions" / "four-kinds.yaml"
    code, _, err = run(capsys, "rules", path, "--edition", four)
    assert code == 0, err


def test_a_scenario_names_its_edition_by_path(tmp_path):
    (tmp_path / "editions").mkdir()
    shutil.copy(ROOT / "tests" / "data" / "editions" / "four-kinds.yaml", tmp_path / "editions")
    scenario = ("ruleset: observations\nscenarios:\n"
                "  - name: an edition by path, relative to the scenario file\n"
                "    rule: envelope-needs-one-card-per-category\n    fires: true\n"
                "    edition: editions/four-kinds.yaml\n"
                "    expect: [\"envelope holds one of b1, b2, b3, b4\"]\n")
    path = tmp_path / "observations.test.yaml"
    path.write_text(scenario)
    [sc] = load_scenarios(path)
    assert scenario_edition(sc).categories == ("who", "what", "where", "when")
    run_scenario(sc, default_rulesets())
    path.write_text(scenario.replace("b1, b2, b3, b4", "b1, b2, b3"))
    [sc] = load_scenarios(path)
    with pytest.raises(AssertionError):
        run_scenario(sc, default_rulesets())


def test_check_edition_api():
    ed = get_edition("cluedo")
    rs = load_ruleset(ROOT / "rules" / "strategies" / "mitchell-basic.yaml")
    assert edition_problems(rs, ed) == []
    check_edition(rs, ed)


def test_shipped_rules_pass_the_edition_check(capsys):
    files = sorted(p for kind in ("deduction", "strategies", "responses", "accusations", "models", "moves")
                   for p in (ROOT / "rules" / kind).glob("*.yaml") if not p.name.endswith(".test.yaml"))
    code, _, err = run(capsys, "rules", "--json", *files)
    assert code == 0, err


# --- functions ------------------------------------------------------------------
def test_misspelled_function_gets_did_you_mean(capsys, tmp_path):
    path = rule_file(tmp_path, one_rule("lacked: [owner, card]", **{"if": "envelope_crad('room') is None"}))
    code, _, err = run(capsys, "rules", path)
    assert code == 2
    assert "unknown function 'envelope_crad'" in err and "did you mean envelope_card" in err
    assert "information_gain" not in err  # not the whole table


def test_no_internal_names_suggested():
    with pytest.raises(ExpressionError) as err:
        compile_expression("beliefs(x)", {"x"}, {**FUNCTIONS, "_beliefs": FUNCTIONS["held"]})
    assert "_beliefs" not in str(err.value)


@pytest.mark.parametrize("src, message", [
    ("held(owner, card)", "held(owner) takes 1 argument, got 2"),
    ("Held(owner)", "Held(owner, card) takes 2 arguments, got 1"),
    ("solved_all(1)", None),
    ("solved_all(1, 2)", "takes 0 arguments, got 2"),
])
def test_argument_counts_are_checked_at_load(src, message):
    if message is None:
        compile_expression(src, {"owner", "card"}, FUNCTIONS)
        return
    with pytest.raises(ExpressionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compile_expression(src, {"owner", "card"}, FUNCTIONS)


# --- deduce / why --rules ---------------------------------------------------------
def test_deduce_rules_watch_shows_the_users_rule(capsys, tmp_path):
    mine = rule_file(tmp_path, MINE, "mine.yaml")
    code, out, err = run(capsys, "deduce", "--rules", mine, K1, "--watch", "--no-color")
    assert code == 0, err
    text = " ".join(out.split())
    assert "shown-card-is-not-in-envelope: player3 showed player1 candlestick on turn 1" in text


def test_why_rules_cites_the_users_rule(capsys, tmp_path):
    mine = rule_file(tmp_path, MINE, "mine.yaml")
    code, out, err = run(capsys, "why", "--rules", mine, "--json", K1, "envelope lacks candlestick")
    assert code == 0, err
    assert "shown-card-is-not-in-envelope" in out


def test_rules_clash_with_shipped_ids(capsys, tmp_path):
    clash = rule_file(tmp_path, MINE.replace("id: shown-card-is-not-in-envelope", "id: record-own-hand"))
    code, _, err = run(capsys, "deduce", "--rules", clash, K1)
    assert code == 2 and "record-own-hand" in err and "already used" in err


def test_rules_option_refuses_a_strategy(capsys):
    code, _, err = run(capsys, "deduce", "--rules", ROOT / "rules" / "strategies" / "mitchell-basic.yaml", K1)
    assert code == 2 and "--rules takes deduction or model rule files" in err
