"""Hostile rule files (issue 11, "Hardening"): each attack is answered quickly
with a clear error naming the file, the rule and the limit -- when the file is
loaded where possible, else when the rule runs -- never a hang, a huge
allocation, a traceback or a KeyError later on."""
from __future__ import annotations


import pytest
import yaml

from clue_expert.core.cards import get_edition
from clue_expert.core.errors import RuleFileError, RuleLimitError
from clue_expert.core.observations import DealtHand, Suggestion
from clue_expert.engine.language import expr
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.language.rules import default_rulesets, load_ruleset, parse_ruleset
from clue_expert.people.cli import main

PLAYERS = ("ann", "bob", "cat")
HAND = ("scarlett", "candlestick", "kitchen", "ballroom", "conservatory", "dining-room")


def write(tmp_path, name, kind, rule, **top):
    data = {"id": name, "title": "hostile", **({"kind": kind} if kind != "deduction" else {}), **top,
            "rules": [{"id": "evil", "message": "evil", **rule}]}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, width=10 ** 6, sort_keys=False))
    return path


def strategy(tmp_path, **rule):
    """A strategy file whose rule does the attack, then suggests something legal."""
    rule.setdefault("then", [{"suggest": {"other": "category_cards(category)"}}])
    return write(tmp_path, "hostile-strategy", "strategy", {"when": "your-turn", **rule})


def one_error(capsys, path, limit):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    line = err[0]
    assert line.startswith("error: ") and str(path) in line and "'evil'" in line, line
    assert limit in line, line
    assert len(line) < 600, line
    return line


def play(path, *extra):
    return main(["play", "--strategy", str(path), "--players", "3", "--seed", "1", "--show", "quiet",
                 "--no-sheets", *extra])


# --- refused when the file is loaded --------------------------------------------
LOAD_TIME = [
    ("six nested loops", {"for": {v: "CARDS" for v in "abcdef"}, "where": "False"}, "nested 'for' loops"),
    ("not chain", {"if": "not " * 2000 + "True"}, "limit on an expression's length"),
    ("short not chain", {"if": "not " * 400 + "True"}, "limit on nesting"),
    ("5000 terms", {"let": {"x": " + ".join(["1"] * 5000)}}, "limit on an expression's length"),
    ("600 terms", {"let": {"x": "+".join(["1"] * 600)}}, "limit on nesting"),
    ("brackets", {"let": {"x": "(" * 100 + "1" + ")" * 100}}, "limit on nesting"),
    ("big literal", {"let": {"x": "9" * 100}}, "limit on integers"),
    ("many comprehensions", {"let": {"x": " + ".join(["[c for c in CARDS]"] * 5)}}, "comprehensions"),
    ("many parts", {"let": {"x": "[" + ", ".join(["1"] * 450) + "]"}}, "limit on an expression's size"),
]


@pytest.mark.parametrize("what,rule,limit", LOAD_TIME, ids=[t[0] for t in LOAD_TIME])
def test_load_time_limits(tmp_path, capsys, what, rule, limit):
    path = strategy(tmp_path, **rule)
    with pytest.raises(RuleLimitError, match="evil"):
        load_ruleset(path)
    assert main(["rules", str(path)]) == 2
    one_error(capsys, path, limit)
    assert play(path) == 2
    one_error(capsys, path, limit)


@pytest.mark.parametrize("rule,problem", [
    ({"let": {"__order__": "1"}}, "names starting with '__'"),
    ({"for": {"__lib__": "CARDS"}}, "names starting with '__'"),
    ({"let": {"x": "[1 for __lib__ in CARDS]"}}, "names starting with '__'"),
    ({"let": {"x": "__budget__"}}, "names starting with '__'"),
    ({"let": {"CARDS": "1"}}, "is a constant"),
    ({"each": {"ME": "1"}}, "is a constant"),
    ({"for": {"this": "CARDS"}}, "is a constant"),
    ({"let": {"x": "1"}, "each": {"x": "2"}}, "already bound"),
])
def test_names_of_the_evaluator_and_constants_cannot_be_bound(tmp_path, capsys, rule, problem):
    path = strategy(tmp_path, **rule)
    assert main(["rules", str(path)]) == 2
    one_error(capsys, path, problem)
    assert play(path, "--show", "all") == 2
    one_error(capsys, path, problem)


def test_a_trigger_field_cannot_be_rebound_by_let(tmp_path):
    path = write(tmp_path, "shadow", "deduction", {"when": "held", "let": {"card": "'x'"},
                                                   "then": [{"lacked": ["owner", "card"]}]})
    with pytest.raises(RuleFileError, match="field of the trigger"):
        load_ruleset(path)


# --- stopped when the rule runs ---------------------------------------------------
RUN_TIME = [
    ("four nested loops", {"for": {v: "CARDS" for v in "abcd"}, "where": "False"}, "limit per rule firing"),
    ("squarings", {"let": {"a": "2 * 2", **{chr(98 + i): f"{chr(97 + i)} * {chr(97 + i)}" for i in range(10)}}},
     "limit on integers"),
    ("long list", {"for": {"i": "[0] * 30000000"}}, "limit on lengths"),
    ("long string", {"let": {"x": "'x' * 1000000000"}}, "limit on lengths"),
    ("doubling string", {"let": {"a": "'x' * 5000", "b": "a + a", "c": "b + b"}}, "limit on lengths"),
    ("nested comprehensions", {"let": {"xs": "[0] * 10000",
                                       "x": "[[[0 for a in xs] for b in xs] for c in xs]"}},
     "limit per rule firing"),
    ("shared tuples", {"let": {"a": "(1, 1)", **{f"x{i}": f"({p}, {p}, {p}, {p})"
                                                  for i, p in enumerate(["a"] + [f"x{j}" for j in range(10)])}},
                       "if": "x10 in {x10}"}, "limit on nested values"),
    ("shared fact references", {"let": {"a": "Held(ME, ME)", **{f"x{i}": f"Held({p}, {p})"
                                         for i, p in enumerate(["a"] + [f"x{j}" for j in range(25)])}}},
     "limit on nested values"),
    ("repeated lists", {"let": {"a": "[CARDS] * 10000", "b": "[a] * 10000"}}, "limit on nested values"),
]


@pytest.mark.parametrize("what,rule,limit", RUN_TIME, ids=[t[0] for t in RUN_TIME])
def test_run_time_limits(tmp_path, capsys, what, rule, limit):
    path = strategy(tmp_path, **rule)
    assert main(["rules", str(path)]) == 0
    capsys.readouterr()
    assert play(path) == 2
    one_error(capsys, path, limit)


def knowledge(rulesets):
    edition = get_edition("cluedo")
    k = Knowledge(edition, PLAYERS, "ann", rulesets=rulesets)
    return k, edition


def test_deduction_rule_that_works_too_long_is_stopped(tmp_path):
    path = write(tmp_path, "busy", "deduction", {
        "when": "held", "for": {v: "CARDS" for v in "abcd"}, "where": "False",
        "then": [{"lacked": ["owner", "a"]}]})
    k, edition = knowledge([*default_rulesets(), load_ruleset(path)])
    with pytest.raises(RuleLimitError, match=r"busy\.yaml: rule 'evil': rule firing used more than 200,000"):
        k.observe(DealtHand("ann", HAND))


def test_the_request_budget_and_the_clock(monkeypatch):
    b = expr.Budget()
    for _ in range(9):
        b.start_rule()
        b.charge(expr.RULE_STEPS - 1)
    with pytest.raises(expr.LimitError, match="limit per observation or decision"):
        for _ in range(3):
            b.start_rule()
            b.charge(expr.RULE_STEPS - 1)
    monkeypatch.setattr(expr, "RUN_SECONDS", -1.0)
    b = expr.Budget()
    with pytest.raises(expr.LimitError, match="wall-clock limit"):
        b.charge(expr._CLOCK_EVERY + 1)


@pytest.mark.parametrize("then", [
    [{"held": ["'nobody'", "card"]}],
    [{"lacked": ["owner", "'banana'"]}],
    [{"one-of": ["owner", "card"]}],             # a string, not a set of cards
    [{"not-all": ["owner", "['rope', 'banana']"]}],
    [{"held": ["[owner]", "card"]}],             # unhashable
])
def test_deduction_conclusions_are_checked(tmp_path, then):
    path = write(tmp_path, "wrong", "deduction", {"when": "held", "then": then})
    k, edition = knowledge([*default_rulesets(), load_ruleset(path)])
    with pytest.raises(RuleFileError, match=r"wrong\.yaml: rule 'evil': concludes .* which is not"):
        k.observe(DealtHand("ann", HAND))


def test_model_conclusion_about_nobody(tmp_path, capsys):
    path = write(tmp_path, "nobody", "model", {"when": ["passed", "showed"], "for": {"c": "cards"},
                                               "then": [{"probably-lacked": ["'nobody'", "c"]}]})
    assert main(["play", "--strategy", f"kingston-next-not-held:model={path}", "--players", "3", "--seed", "1",
                 "--show", "all", "--no-sheets"]) == 2
    one_error(capsys, path, "which is not an owner")


@pytest.mark.parametrize("then, limit", [
    # literals: refused when the game starts, with the nearest names
    ([{"suggest": {"other": "['banana']"}}], "'banana' is not a card or category of edition"),
    ([{"suggest": {"other": "category_cards(category) | {'banana'}"}}], "'banana' is not a card or category"),
    # a computed name no static check can see: refused when the rule fires
    ([{"suggest": {"other": "['ban' + 'ana']"}}], "'banana', which is not a card"),
])
def test_decisions_naming_unknown_cards(tmp_path, capsys, then, limit):
    path = strategy(tmp_path, then=then)
    assert play(path) == 2
    one_error(capsys, path, limit)


def test_response_and_accusation_naming_unknown_cards(tmp_path):
    edition = get_edition("cluedo")
    show = write(tmp_path, "bad-show", "response", {"when": "disprove-request", "then": [{"show": "'banana'"}]})
    k = Knowledge(edition, PLAYERS, "ann", rulesets=[*default_rulesets(), load_ruleset(show)])
    with pytest.raises(RuleFileError, match="bad-show.yaml: rule 'evil': its show names 'banana'"):
        k.request("disprove-request", {"turn": 1, "by": "bob", "cards": ("plum", "rope", "hall"),
                                       "matching": ("rope",)})
    accuse = write(tmp_path, "bad-accuse", "accusation",
                   {"when": "accuse-offer", "then": [{"accuse": ["'plum'", "'rope'", "'banana'"]}]})
    k = Knowledge(edition, PLAYERS, "ann", rulesets=[*default_rulesets(), load_ruleset(accuse)])
    with pytest.raises(RuleFileError, match="its accuse names 'banana'"):
        k.request("accuse-offer", {"turn": 1})


def test_ordinary_rules_still_run(tmp_path, capsys):
    """Within the limits, the same constructs give the right answers."""
    path = strategy(tmp_path, let={"a": "2 * 3", "b": "a * a", "xs": "[0] * 100", "s": "'ab' * 3 + 'c'",
                                   "n": "len([x for x in xs]) + len(s) - b"},
                    where="n == 71 and b == 36 and -b == -36",
                    **{"for": {"x": "[1, 2]", "y": "sorted(CARDS)"}})
    assert play(path) == 0
    edition = get_edition("cluedo")
    k = Knowledge(edition, PLAYERS, "ann")
    k.observe(DealtHand("ann", HAND))
    k.observe(Suggestion("bob", ("mustard", "rope", "hall"), ("cat",), None, None), 1)
    assert k.status("cat", "rope") == "lacked"


# --- schema errors quote at most a little of the file ---------------------------
@pytest.mark.parametrize("change", [
    {"let": {"x": ["a" * 100] * 100_000}},                      # not an expression: a huge list
    {"let": {"x" * 10 ** 6: "1"}},                               # a huge name
    {"when": ["held"] * 100_000},                                # not unique
    {"message": {"k": "v" * 10 ** 6}},                           # not a string
    {"then": [{"held": ["owner", "card", *(["x"] * 100_000)]}]},  # too many items
    {"x" * 10 ** 6: 1},                                          # an unknown key
])
def test_schema_errors_are_short(change):
    raw = {"id": "big", "title": "t", "rules": [{"id": "evil", "message": "m", "when": "held",
                                                  "then": [{"lacked": ["owner", "card"]}], **change}]}
    with pytest.raises(RuleFileError) as info:
        parse_ruleset(raw, "big.yaml")
    text = str(info.value)
    assert text.startswith("big.yaml: rule 'evil': ") and len(text) < 600, text[:1000]


@pytest.mark.parametrize("bad_id", [True, 7, 2.5, None])
def test_a_rule_id_that_is_no_text_is_one_clear_error(tmp_path, capsys, bad_id):
    # found by the fuzz test: a YAML value that is not a string as a rule's id crashed the long-id guard
    path = tmp_path / "bad-id.yaml"
    path.write_text(yaml.safe_dump({"id": "bad-id", "title": "t", "rules": [
        {"id": bad_id, "message": "m", "when": "held", "then": [{"held": ["owner", "card"]}]}]}))
    assert main(["rules", str(path)]) == 2
    err = capsys.readouterr().err
    assert "is not of type string" in err and "internal error" not in err
