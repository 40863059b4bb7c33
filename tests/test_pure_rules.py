"""Every shipped deduction rule (rules/deduction/ and the knowledge levels'
rules/levels/) is pure patterns: its left-hand side is ``match:`` patterns
and tests over the variables they bind, it reads no library function, and
its conclusions are built from its variables with the IR's operators only --
so it compiles natively onto both engines and exports to plain CLIPS.  The
check walks the compiled rules (``language.pure_problems``), and fails on a
``when:`` trigger or a ``let:`` that calls the library."""
from __future__ import annotations

from pathlib import Path

import pytest

from clue_expert.engine.engines.clp import exportable
from clue_expert.engine.language.compiler import pure_problems
from clue_expert.engine.language.rules import load_ruleset

ROOT = Path(__file__).resolve().parent.parent / "rules"
DEDUCTION = sorted(p for folder in ("deduction", "levels") for p in (ROOT / folder).rglob("*.yaml")
                   if not p.name.endswith(".test.yaml"))
MODELS = sorted(p for p in (ROOT / "models").glob("*.yaml") if not p.name.endswith(".test.yaml"))


#: The knowledge levels' rules that stay when: rules reading the library: none left (the levels'
#: procedures -- Kingston's unanswered own suggestion, exhaustive elimination and never-narrowed
#: possible sets, Mitchell's deduction 4 checked once -- are counts and a reading fact the seat
#: keeps: docs/rule-language.md, "Which shipped rules are patterns").
PROCEDURAL: set[str] = set()


@pytest.mark.parametrize("path", DEDUCTION, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_deduction_rule_is_pure_patterns(path):
    rs = load_ruleset(str(path))
    assert rs.kind == "deduction"
    problems = {r.id: pure_problems(r) for r in rs.rules}
    impure = {rid for rid, p in problems.items() if p}
    assert {rid: problems[rid] for rid in impure - PROCEDURAL} == {}
    assert impure == PROCEDURAL & set(problems)  # a converted rule leaves the list
    for r in rs.rules:
        if r.id not in PROCEDURAL:
            assert exportable(r), r.id  # and so it runs in plain CLIPS
    if path.parent.name == "deduction":
        assert not impure  # every rule of rules/deduction/, no exception


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_every_model_rule_matches_patterns(path):
    """Model rules may call the library (they compute), from a match: left-hand side."""
    for r in load_ruleset(str(path)).rules:
        assert r.patterns, r.id


def _rule(tmp_path, body: str):
    path = tmp_path / "r.yaml"
    path.write_text("id: r\ntitle: t\nrules:\n" + body, encoding="utf-8")
    return load_ruleset(str(path)).rules[0]


def test_a_when_trigger_and_a_library_call_are_reported(tmp_path):
    rule = _rule(tmp_path, """  - id: x
    message: "{owner} lacks {c}"
    when: held
    let: {left: "unknown(owner)"}
    for: {c: left}
    then:
      - lacked: [owner, c]
""")
    problems = pure_problems(rule)
    assert problems[0] == "it is triggered by when: held, not by match: patterns"
    assert "let left: 'unknown(owner)' calls unknown" in problems
    assert not exportable(rule)


def test_a_library_call_in_a_conclusion_is_reported(tmp_path):
    rule = _rule(tmp_path, """  - id: x
    message: "{o} lacks it"
    match:
      - held: {owner: o, card: c}
    then:
      - lacked: ["first(others(o))", c]
""")
    assert pure_problems(rule) == ["then lacked: 'first(others(o))' calls first, others"]


def test_a_pure_rule_with_an_operator_in_its_conclusion_passes(tmp_path):
    rule = _rule(tmp_path, """  - id: x
    message: "{o} narrows {cs}"
    match:
      - one-of: {owner: o, cards: cs}
      - lacked: {owner: o, card: c}
      - test: "c in cs and len(cs) >= 3"
    then:
      - one-of: [o, "cs - {c}"]
""")
    assert pure_problems(rule) == []
    (assertion,) = exportable(rule)
    assert assertion.kind == "one-of"
