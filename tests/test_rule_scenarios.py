"""Every rule file has a scenario file beside it, every rule has scenarios
where it must and must not fire, and every scenario passes."""
from __future__ import annotations

import pytest

from clue_expert.engine.language.rules import default_rulesets, load_ruleset, rule_files
from clue_expert.testing.scenarios import check_coverage, load_scenarios, run_scenario, scenario_path

DECISIONS = tuple(load_ruleset(p) for kind in ("strategies", "responses", "accusations", "models", "shared", "moves")
                  for p in rule_files(kind))
RULESETS = default_rulesets() + DECISIONS
CASES = []
for rs in RULESETS:
    path = scenario_path(rs.path)
    if path.exists():
        for sc in load_scenarios(path):
            CASES.append(pytest.param(sc, id=f"{rs.id}::{sc.rule}::{sc.name}"))


def test_rule_files_are_shipped():
    assert len(rule_files("deduction")) >= 4
    assert CASES, "no scenarios collected"


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda rs: rs.id)
def test_every_rule_has_scenarios(ruleset):
    path = scenario_path(ruleset.path)
    assert path.exists(), f"{ruleset.path} has no scenario file {path.name} beside it"
    problems = check_coverage(ruleset, load_scenarios(path))
    assert not problems, f"{path}: " + "; ".join(problems)


@pytest.mark.parametrize("scenario", CASES)
def test_scenario(scenario):
    own = tuple(rs for rs in DECISIONS if rs.path == scenario.path.replace(".test.yaml", ".yaml"))
    models = tuple(rs for rs in DECISIONS if rs.kind == "model" and rs not in own)
    run_scenario(scenario, default_rulesets() + models + own)
