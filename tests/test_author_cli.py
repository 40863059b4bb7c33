"""The author's command line: `rules --new KIND NAME` writes a starting file
and its scenarios that pass `rules --test` as written, and `--rules FILE`
adds a user's deduction or model rules to replay, play, simulate and the
notebook (deduce and why: tests/test_authoring.py), traced like the shipped."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from clue_expert.people.cli import main
from clue_expert.people.cli.rules import NEW_KINDS
from clue_expert.people.notebook import NotebookSession
from clue_expert.engine.language.rules import load_ruleset
from clue_expert.play.players import parse_seat
from clue_expert.testing.samples import MINE, MINE_TESTS

ROOT = Path(__file__).resolve().parent.parent
K1 = ROOT / "docs" / "examples" / "kingston-1-player1.yaml"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def mine(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(MINE)
    return path


# --- rules --new ------------------------------------------------------------------
@pytest.mark.parametrize("kind", NEW_KINDS)
def test_new_files_pass_their_scenarios_as_written(capsys, tmp_path, kind):
    name = tmp_path / f"my-{kind}"
    code, out, err = run(capsys, "rules", "--new", kind, name)
    assert code == 0, err
    rules, tests = tmp_path / f"my-{kind}.yaml", tmp_path / f"my-{kind}.test.yaml"
    assert f"wrote {rules} and {tests}" in out
    assert rules.read_text().startswith(f"# my-{kind}: ") and "#" in tests.read_text()
    rs = load_ruleset(rules)
    assert rs.id == f"my-{kind}" and rs.kind == kind
    code, out, err = run(capsys, "rules", "--test", rules)
    assert code == 0, out + err
    assert out.splitlines()[-1].endswith("0 failed — all pass")
    assert run(capsys, "rules", rules)[0] == 0  # the edition check too


def test_new_files_play(capsys, tmp_path):
    for kind in ("strategy", "response", "accusation", "model"):
        assert run(capsys, "rules", "--new", kind, tmp_path / f"my-{kind}")[0] == 0
    code, out, err = run(capsys, "play", "--strategy", f"{tmp_path / 'my-strategy.yaml'}:model={tmp_path / 'my-model.yaml'}",
                         "--response", tmp_path / "my-response.yaml", "--accusation", tmp_path / "my-accusation.yaml",
                         "--show", "all", "--no-sheets", "--no-color")
    assert code == 0, err
    text = " ".join(out.split())
    assert "my-strategy-ask-open-envelope-cards" in text and "wins in round" in text


def test_a_broken_scenario_of_a_new_file_fails(capsys, tmp_path):
    assert run(capsys, "rules", "--new", "strategy", tmp_path / "greedy")[0] == 0
    tests = tmp_path / "greedy.test.yaml"
    tests.write_text(tests.read_text().replace("proposes: {suspect: [plum], weapon: [rope], room: [hall]}",
                                               "proposes: {suspect: [plum], weapon: [rope], room: [study]}"))
    code, out, _ = run(capsys, "rules", "--test", tmp_path / "greedy.yaml")
    assert code == 1 and "FAIL greedy-ask-known-envelope::asks the known envelope — expected the proposal" in out


@pytest.mark.parametrize("argv, problem", [
    (["--new", "stratgy", "x"], "no starting file of the kind 'stratgy'; the kinds: strategy, response, "
                                "accusation, model, deduction; did you mean strategy?"),
    (["--new", "strategy", "My_Strategy"], "'My_Strategy' cannot be a rule-file id"),
    (["--new", "strategy", "x", "--test"], "rules --new writes new files"),
])
def test_new_mistakes(capsys, tmp_path, argv, problem):
    code, _, err = run(capsys, "rules", *[a if a != "x" else tmp_path / "x" for a in argv])
    assert code == 2 and problem in err and len(err.strip().splitlines()) == 1


def test_new_never_overwrites(capsys, tmp_path):
    (tmp_path / "mine.test.yaml").write_text("keep me")
    code, _, err = run(capsys, "rules", "--new", "deduction", tmp_path / "mine")
    assert code == 2 and "mine.test.yaml exists; not overwritten" in err
    assert not (tmp_path / "mine.yaml").exists() and (tmp_path / "mine.test.yaml").read_text() == "keep me"


# --- --rules on replay, play, simulate, the notebook ----------------------------
def test_replay_rules(capsys, mine):
    code, out, err = run(capsys, "replay", "--all", "--rules", mine, K1, "--no-color")
    assert code == 0, err
    assert "shown-card-is-not-in-envelope: player3 showed player1 candlestick" in " ".join(out.split())


def test_play_rules_traced(capsys, mine):
    code, out, err = run(capsys, "play", "--rules", mine, "--show", "all", "--no-sheets", "--no-color")
    assert code == 0, err
    assert "[shown-card-is-not-in-envelope] envelope lacks" in out


def test_simulate_rules_labelled_by_id(capsys, mine):
    code, out, err = run(capsys, "simulate", "--games", "2", "--workers", "1", "--rules", mine, "--json")
    assert code == 0, err
    summary = json.loads(out)
    [seat] = summary["config"]["strategies"]
    assert seat.startswith("clue-expert-") and seat.endswith(f":rules={mine}")
    code, out, err = run(capsys, "simulate", "--games", "2", "--workers", "1", "--rules", mine, "--no-color",
                         "--strategy", "clue-expert-focused")
    assert code == 0 and "clue-expert-focused:rules=mine" in out


def test_notebook_rules_cited_by_why(tmp_path, mine):
    from clue_expert.engine.seat.knowledge import Explanation
    book = tmp_path / "game.yaml"
    book.write_text(K1.read_text())
    session = NotebookSession(book, rules=(load_ruleset(mine),))
    session.start()
    [tree] = [i for i in session.handle("why envelope lacks candlestick") if isinstance(i, Explanation)]
    assert tree.justification.rule == "shown-card-is-not-in-envelope"
    session.close()  # one notebook on a file at a time
    plain = NotebookSession(book)
    plain.start()
    [tree] = [i for i in plain.handle("why envelope lacks candlestick") if isinstance(i, Explanation)]
    assert tree.justification.rule != "shown-card-is-not-in-envelope"


def test_seat_rules_and_their_mistakes(capsys, tmp_path, mine):
    assert parse_seat(f"clue-expert-focused:rules={mine}")["rules"] == [str(mine)]
    clash = tmp_path / "clash.yaml"
    clash.write_text(MINE.replace("id: shown-card-is-not-in-envelope", "id: record-own-hand"))
    code, _, err = run(capsys, "play", "--rules", clash, "--show", "quiet")
    assert code == 2 and "record-own-hand" in err and "already used" in err
    code, _, err = run(capsys, "simulate", "--games", "1", "--strategy",
                       f"clue-expert-focused:rules={ROOT / 'rules' / 'strategies' / 'mitchell-basic.yaml'}")
    assert code == 2 and "rules= takes deduction or model rule files" in err


# --- premises: read off the firing, or stated and checked -------------------------
def test_why_cites_what_the_users_rule_read(capsys, mine):
    code, out, err = run(capsys, "why", "--rules", mine, "--json", K1, "envelope lacks candlestick")
    assert code == 0, err
    tree = json.loads(out)["explanation"]
    assert tree["rule"] == "shown-card-is-not-in-envelope"
    assert [c["fact"] for c in tree["because"]] == ["turn 1: player3 showed player1 candlestick for col-mustard, "
                                                    "candlestick, kitchen"]


WRONG_BECAUSE = MINE.replace("      - lacked: [ENVELOPE, card]\n",
                             "      - lacked: [ENVELOPE, card]\n    because: [\"[HandSize(player)]\"]\n")


def test_stated_premises_are_checked_by_the_authors_tools(capsys, tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(WRONG_BECAUSE)
    (tmp_path / "mine.test.yaml").write_text(MINE_TESTS.split("  - name: a show")[0])  # the must-fire scenario
    code, out, _ = run(capsys, "rules", "--test", path)
    assert code == 1
    assert ("FAIL shown-card-is-not-in-envelope::a card ann sees shown is not in the envelope — "
            in out) and "its because: premises do not entail 'envelope lacks rope'" in out
    code, _, err = run(capsys, "deduce", "--rules", path, K1)
    assert code == 2 and "its because: premises do not entail" in err and len(err.strip().splitlines()) == 1
