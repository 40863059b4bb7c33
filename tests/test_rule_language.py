"""The rule language: whitelisted expressions, schema errors naming file,
rule and problem, and no code executed from a rule file."""
from __future__ import annotations

import pytest
import yaml

from clue_expert.core.errors import ExpressionError, RuleFileError
from clue_expert.engine.language.expr import compile_expression
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.language.rules import load_ruleset, parse_ruleset


def ev(src, **env):
    return compile_expression(src, env, FUNCTIONS)(env)


def test_expressions_evaluate():
    assert ev("a + 1", a=2) == 3
    assert ev("x - {1}", x=frozenset({1, 2})) == frozenset({2})
    assert ev("[y * 2 for y in xs if y > 1]", xs=[1, 2, 3]) == [4, 6]
    assert ev("'a' if b else 'c'", b=False) == "c"
    assert ev("1 < a <= 3 and not b", a=3, b=False) is True


@pytest.mark.parametrize("src", [
    "__import__('os')", "a.__class__", "a[0]", "(lambda: 1)()", "open('x')", "len(a, key=1)",
    "[x for x in a for y in a]", "(b := 1)", "f'{a}'",
])
def test_dangerous_or_unsupported_syntax_is_rejected(src):
    with pytest.raises(ExpressionError):
        compile_expression(src, {"a"}, FUNCTIONS)


def test_misspelled_name_is_an_error_not_none():
    with pytest.raises(ExpressionError, match="unknown name 'ownr'"):
        compile_expression("held(ownr)", {"owner"}, FUNCTIONS)


GOOD = {"id": "mine", "title": "t", "rules": [{"id": "r-one", "message": "{owner} lacks {card}", "when": "held",
                                               "then": [{"lacked": ["owner", "card"]}]}]}


def bad(**rule_changes):
    import copy
    d = copy.deepcopy(GOOD)
    d["rules"][0].update(rule_changes)
    return d


@pytest.mark.parametrize("data,problem", [
    (bad(when="helt"), "'when' must be one of"),
    (bad(id="Bad_Id"), "does not match"),
    (bad(message="{owner} lacks {cardd}"), "placeholder {cardd}"),
    (bad(then=[{"lacked": ["owner.x", "card"]}]), "not allowed"),
    (bad(then=[{"owns": ["owner", "card"]}]), "unknown key"),
    (bad(**{"if": "hand_szie(owner) > 2"}), "unknown function 'hand_szie'"),
    (bad(extra=1), "unknown key"),
])
def test_bad_rule_files_name_file_rule_and_problem(data, problem):
    with pytest.raises(RuleFileError) as err:
        parse_ruleset(data, "rules/deduction/mine.yaml")
    msg = str(err.value)
    assert "rules/deduction/mine.yaml" in msg and problem in msg
    if "Bad_Id" not in str(data):
        assert "r-one" in msg


def test_yaml_tags_never_execute(tmp_path):
    path = tmp_path / "evil.yaml"
    path.write_text("id: evil\ntitle: !!python/object/apply:os.system ['echo hacked']\nrules: []\n")
    with pytest.raises(RuleFileError, match="not valid YAML"):
        load_ruleset(path)


def test_duplicate_rule_id():
    d = {"id": "x", "title": "t", "rules": [GOOD["rules"][0], GOOD["rules"][0]]}
    with pytest.raises(RuleFileError, match="duplicate"):
        parse_ruleset(d, "x.yaml")


def test_user_rule_file_loads_and_runs(tmp_path):
    from clue_expert.core.cards import get_edition
    from clue_expert.engine.seat.knowledge import Knowledge
    rule = {"id": "mine", "title": "t", "rules": [{
        "id": "others-lack-held-card", "message": "{owner} holds {card}, so {other} lacks it", "when": "held",
        "for": {"other": "others(owner)"}, "then": [{"lacked": ["other", "card"]}]}]}
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(rule))
    k = Knowledge(get_edition("cluedo"), ["a", "b", "c"], rulesets=[load_ruleset(path)], complete=False)
    k.assume([("held", "a", "rope")])
    assert k.status("b", "rope") == "lacked"
    assert k.justifications[("lacked", "b", "rope")].rule == "others-lack-held-card"
    assert k.justifications[("lacked", "b", "rope")].message == "a holds rope, so b lacks it"


def test_unsound_user_rule_is_caught_as_a_named_contradiction(tmp_path):
    from clue_expert.core.cards import get_edition
    from clue_expert.core.errors import ContradictionError
    from clue_expert.engine.seat.knowledge import Knowledge
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(GOOD))
    k = Knowledge(get_edition("cluedo"), ["a", "b", "c"], rulesets=[load_ruleset(path)], complete=False)
    with pytest.raises(ContradictionError, match="r-one"):
        k.assume([("held", "a", "rope")])
    assert k.status("a", "rope") == "unknown"  # the refused input left nothing behind


def test_every_library_function_is_documented():
    from pathlib import Path

    from clue_expert.engine.library import DESCRIPTIONS
    doc = (Path(__file__).resolve().parent.parent / "docs" / "rule-language.md").read_text(encoding="utf-8")
    missing = [name for name, text in DESCRIPTIONS.items() if f"| `{name}(" not in doc or text not in doc]
    assert not missing, f"docs/rule-language.md lacks (or has an old description of): {missing}"
