"""Reuse between rule files: ``extends:`` (add to or override another file's
rules by id), ``include:`` (shared rule blocks under rules/shared/) and
parameters (``parameters:`` declared, ``with:`` given); bounded, with clear
errors; and the shipped files no longer carry copies."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from clue_expert.core.errors import RuleFileError, RuleLimitError
from clue_expert.engine.language.compiler import MAX_REUSE_DEPTH, MAX_REUSE_FILES
from clue_expert.engine.language.rules import load_ruleset, rule_files
from clue_expert.people.cli import main

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"

BASE = """\
id: base
kind: response
title: Base
parameters:
  avoid:
    values: [suspect, weapon, room]
    default: room
rules:
  - id: base-avoid
    priority: 20
    message: "avoid showing a {avoid}"
    when: disprove-request
    then:
      - show: "matching - category_cards(avoid)"
  - id: base-first
    priority: 0
    message: "the first matching card"
    when: disprove-request
    then:
      - show: matching
"""


def write(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(body)
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_extends_overrides_by_id_and_adds_after(tmp_path):
    write(tmp_path, "base.yaml", BASE)
    child = write(tmp_path, "child.yaml", """\
id: child
kind: response
title: Child
extends: base
with: {avoid: weapon}
rules:
  - id: base-first
    priority: 0
    message: "the last matching card"
    when: disprove-request
    then:
      - show: "sorted(matching)"
  - id: child-new
    priority: 30
    message: "a new rule"
    when: disprove-request
    then:
      - show: matching
""")
    rs = load_ruleset(child)
    assert [r.id for r in rs.rules] == ["base-avoid", "base-first", "child-new"]
    assert rs.rules[0].path == str(tmp_path / "base.yaml") and rs.rules[1].path == str(child)
    assert rs.rules[1].message == "the last matching card"  # overridden in place
    assert rs.rules[0].message == "avoid showing a weapon"  # the parameter, folded into the message
    assert {r.ruleset for r in rs.rules} == {"child"} and rs.parameters == {"avoid": "weapon"}
    assert rs.own(rs.rules[2]) and not rs.own(rs.rules[0])


def test_a_parameter_is_a_constant_of_the_expressions(tmp_path):
    from clue_expert.core.cards import get_edition
    from clue_expert.engine.seat.knowledge import Knowledge
    write(tmp_path, "base.yaml", BASE)
    for avoid, shown in (("room", "rope"), ("weapon", "hall")):
        child = write(tmp_path, f"{avoid}.yaml", f"id: c-{avoid}\nkind: response\ntitle: C\nextends: base\n"
                                                 f"with: {{avoid: {avoid}}}\n")
        k = Knowledge(get_edition("cluedo"), ["ann", "bob", "cat"], "ann", rulesets=[load_ruleset(child)],
                      complete=False)
        best = k.request("disprove-request", {"turn": 1, "by": "bob", "cards": ("plum", "rope", "hall"),
                                              "matching": ("rope", "hall")})[0]
        assert best.rule == "base-avoid" and best.options == ((shown,),)


@pytest.mark.parametrize("with_, problem", [
    ("{avoid: rooms}", "parameter 'avoid' is 'rooms' (given by child.yaml), not one of suspect, weapon, room; did you mean room?"),
    ("{avod: room}", "has no parameter 'avod' (given by child.yaml); its parameters: avoid; did you mean avoid?"),
])
def test_parameter_mistakes_name_the_file_and_the_nearest(tmp_path, with_, problem):
    write(tmp_path, "base.yaml", BASE)
    child = write(tmp_path, "child.yaml", f"id: child\nkind: response\ntitle: C\nextends: base\nwith: {with_}\n")
    with pytest.raises(RuleFileError) as err:
        load_ruleset(child)
    assert str(err.value) == f"{tmp_path / 'base.yaml'}: {problem}"


def test_a_parameter_without_default_needs_a_value(tmp_path):
    write(tmp_path, "base.yaml", BASE.replace("    default: room\n", ""))
    with pytest.raises(RuleFileError, match="parameter 'avoid' needs a value: extend or include the file with "
                                            r"'with: \{avoid: ...\}' \(suspect, weapon, room\)"):
        load_ruleset(tmp_path / "base.yaml")
    child = write(tmp_path, "child.yaml", "id: child\nkind: response\ntitle: C\nextends: base\nwith: {avoid: suspect}\n")
    assert load_ruleset(child).parameters == {"avoid": "suspect"}


def test_include_adds_shared_blocks_and_refuses_duplicates(tmp_path):
    write(tmp_path, "base.yaml", BASE)
    mine = write(tmp_path, "mine.yaml", """\
id: mine
kind: response
title: Mine
rules:
  - id: mine-first
    priority: 50
    message: "m"
    when: disprove-request
    then:
      - show: matching
include:
  - {file: base.yaml, with: {avoid: suspect}}
""")
    rs = load_ruleset(mine)
    assert [r.id for r in rs.rules] == ["mine-first", "base-avoid", "base-first"]
    assert rs.rules[1].message == "avoid showing a suspect"
    write(tmp_path, "twice.yaml", "id: twice\nkind: response\ntitle: T\ninclude: [base, base.yaml]\n")
    with pytest.raises(RuleFileError, match="rule 'base-avoid': include 'base.yaml': this rule id is already in "
                                            "the file"):
        load_ruleset(tmp_path / "twice.yaml")


def test_a_cycle_is_an_error_naming_the_files(tmp_path):
    write(tmp_path, "a.yaml", "id: a\nkind: response\ntitle: A\nextends: b\n")
    write(tmp_path, "b.yaml", "id: b\nkind: response\ntitle: B\ninclude: [a]\n")
    with pytest.raises(RuleFileError) as err:
        load_ruleset(tmp_path / "a.yaml")
    assert "include 'a' makes a cycle: a.yaml -> b.yaml -> a.yaml" in str(err.value)
    assert str(err.value).startswith(str(tmp_path / "b.yaml"))


def test_nesting_depth_is_bounded(tmp_path):
    for i in range(MAX_REUSE_DEPTH + 2):
        write(tmp_path, f"f{i}.yaml", f"id: f{i}\nkind: response\ntitle: F\nextends: f{i + 1}\n")
    write(tmp_path, f"f{MAX_REUSE_DEPTH + 2}.yaml", BASE.replace("id: base", f"id: f{MAX_REUSE_DEPTH + 2}"))
    with pytest.raises(RuleLimitError, match=f"extends/include nest more than {MAX_REUSE_DEPTH} files deep "
                                             r"\(the limit on nesting\)"):
        load_ruleset(tmp_path / "f0.yaml")
    assert load_ruleset(tmp_path / "f3.yaml").rules  # a shorter chain is fine


def test_files_brought_in_are_bounded(tmp_path):
    """A tree of includes, four at each of three levels: 84 files brought in, over the limit."""
    def leaf(name):
        write(tmp_path, f"{name}.yaml", f"id: {name}\nkind: response\ntitle: L\nrules:\n  - id: {name}-r\n"
                                        f"    message: m\n    when: disprove-request\n    then: [{{show: matching}}]\n")

    def node(name, children):
        write(tmp_path, f"{name}.yaml", f"id: {name}\nkind: response\ntitle: N\ninclude: [{', '.join(children)}]\n")

    for i in range(4):
        for j in range(4):
            for k in range(4):
                leaf(f"l{i}{j}{k}")
            node(f"n{i}{j}", [f"l{i}{j}{k}" for k in range(4)])
        node(f"m{i}", [f"n{i}{j}" for j in range(4)])
    node("top", [f"m{i}" for i in range(4)])
    assert 4 + 16 + 64 > MAX_REUSE_FILES
    with pytest.raises(RuleLimitError, match=f"bring in more than {MAX_REUSE_FILES} rule files in all "
                                             r"\(the limit per file\)"):
        load_ruleset(tmp_path / "top.yaml")
    assert len(load_ruleset(tmp_path / "m0.yaml").rules) == 16  # 4 + 16 files: within the limit


def test_reference_mistakes(tmp_path, capsys):
    mine = write(tmp_path, "mine.yaml", "id: mine\nkind: response\ntitle: M\nextends: minimal-informaton\n")
    code, _, err = run(capsys, "rules", mine)
    assert code == 2 and "names the rule file 'minimal-informaton'" in err and "did you mean minimal-information" in err
    write(tmp_path, "mine.yaml", "id: mine\nkind: response\ntitle: M\nextends: shared/no-intelligence\n")
    code, _, err = run(capsys, "rules", mine)
    assert code == 2 and "is a strategy file, not a response file" in err
    write(tmp_path, "mine.yaml", "id: mine\nkind: response\ntitle: M\nwith: {a: 1}\nextends: ../../etc/passwd\n")
    code, _, err = run(capsys, "rules", mine)
    assert code == 2 and "'with' gives parameter values to the file it extends" not in err
    assert "neither a rule file id" in err
    write(tmp_path, "mine.yaml", "id: mine\nkind: response\ntitle: M\n")
    code, _, err = run(capsys, "rules", mine)
    assert code == 2 and "'rules' is missing (a file has rules of its own, or takes them with 'extends' or " \
                         "'include')" in err


def test_a_users_file_extends_a_shipped_one_and_plays(tmp_path, capsys):
    mine = write(tmp_path, "mine.yaml", """\
id: my-response
kind: response
title: Minimal information, but never a weapon first
extends: minimal-information
rules:
  - id: show-non-weapon-card
    priority: 25
    message: "avoid showing a weapon"
    when: disprove-request
    then:
      - show: "matching - category_cards('weapon')"
""")
    code, out, err = run(capsys, "rules", mine)
    assert code == 0, err
    assert "show-card-already-shown-to-asker" in out and "show-non-weapon-card" in out
    code, out, err = run(capsys, "rules", "--json", mine)
    rows = {r["id"]: r for r in json.loads(out)}
    assert rows["show-card-already-shown-to-asker"]["from"] == "minimal-information.yaml"
    assert rows["show-non-weapon-card"]["from"] == "mine.yaml" and rows["show-non-weapon-card"]["ruleset"] == "my-response"
    code, out, err = run(capsys, "play", "--response", mine, "--show", "quiet", "--no-sheets", "--no-color")
    assert code == 0, err


def test_the_shipped_copies_are_gone():
    """The No-intelligence fall-back is written once (rules/shared/no-intelligence.yaml), the two
    Kingston possible-card strategies are one parameterised file, and seen-model extends
    minimal-information instead of repeating its rules."""
    fallback = 'not: [{held: {owner: me, card: c}}, {test: "e > 0"}]'
    holders = [p for p in RULES.rglob("*.yaml") if not p.name.endswith(".test.yaml") and fallback in p.read_text()]
    assert holders == [RULES / "shared" / "no-intelligence.yaml"]
    for name in ("kingston-no-intelligence", "kingston-next-not-held", "clue-expert-information-gain",
                 "clue-expert-open-information-gain"):
        rs = load_ruleset(RULES / "strategies" / f"{name}.yaml")
        assert rs.rules[-1].id == "ask-first-unseen-cards-in-list-order", name
    for name in ("kingston-next-possible", "kingston-previous-possible"):  # one card a slot (keep: first)
        rs = load_ruleset(RULES / "strategies" / f"{name}.yaml")
        assert rs.rules[-1].id == "kingston-asks-first-unseen-cards-in-list-order", name
        assert rs.rules[-1].keep_first and rs.rules[-1].empty_any, name
    nxt, prev = (load_ruleset(RULES / "strategies" / f"kingston-{d}-possible.yaml") for d in ("next", "previous"))
    assert nxt.parameters == {"direction": "next"} and prev.parameters == {"direction": "previous"}
    for rs in (nxt, prev):
        assert not [r for r in rs.rules if rs.own(r)]
        assert "rules" not in yaml.safe_load(Path(rs.path).read_text())
    seen = load_ruleset(RULES / "responses" / "seen-model.yaml")
    assert [r.id for r in seen.rules if seen.own(r)] == ["show-card-asker-already-knows"]
    assert seen.extends == str(RULES / "responses" / "minimal-information.yaml")


def test_every_shipped_file_loads_and_shared_files_have_scenarios():
    for folder in ("deduction", "strategies", "responses", "accusations", "models", "shared"):
        for path in rule_files(folder):
            load_ruleset(path)
            assert path.with_name(path.stem + ".test.yaml").exists(), path
