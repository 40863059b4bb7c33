"""Issue 25, "limits on work done, not on text read": library calls are
charged by the work they do and look at the clock; the exact beliefs, the
board planner and group 1's table refuse past their limits (the beliefs
falling back to the sheet's estimate); messages and folded parameters are
capped; YAML nodes are counted before composing; duplicate keys and
duplicate ids are refused before anything is compiled.  Every test asserts
the limit's error or counts of work, never a time."""
from __future__ import annotations

import json
import random

import pytest
import yaml

from clue_expert.core import work, yamlio
from clue_expert.core.cards import build_edition, get_edition
from clue_expert.core.board import get_board
from clue_expert.core.errors import ContradictionError, RuleLimitError
from clue_expert.core.observations import DealtHand
from clue_expert.engine.reasoning import beliefs, interrogation, planning, scoring
from clue_expert.engine.language import expr, compiler as language
from clue_expert.engine.seat import levels
from clue_expert.engine import library
from clue_expert.engine.seat.knowledge import Knowledge, replay_record
from clue_expert.engine.language.rules import default_rulesets, load_ruleset
from clue_expert.people.cli import main
from clue_expert.testing.randomgame import random_record

HAND = ("scarlett", "candlestick", "kitchen", "ballroom", "conservatory", "dining-room")
GOOD = {"edition": "cluedo", "players": ["ann", "bob", "cat"], "me": "ann", "hand": list(HAND),
        "hand_sizes": {"ann": 6, "bob": 6, "cat": 6}, "turns": []}


def strategy(tmp_path, let, name="costly"):
    data = {"id": name, "title": "costly", "kind": "strategy",
            "rules": [{"id": "evil", "message": "evil", "when": "your-turn", "let": let,
                       "then": [{"suggest": {"other": "category_cards(category)"}}]}]}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def play(path):
    return main(["play", "--strategy", str(path), "--players", "3", "--seed", "1", "--show", "quiet",
                 "--no-sheets"])


def one_error(capsys, path, limit):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("error: ") and str(path) in err[0] and "'evil'" in err[0], err[0]
    assert limit in err[0], err[0]
    return err[0]


# --- library calls charged by their work ------------------------------------------
def test_a_costly_library_call_is_charged_by_its_work(tmp_path, capsys, monkeypatch):
    path = strategy(tmp_path, {"x": "best_ask_size(3, 4)"})  # a costly call without a stand-in
    monkeypatch.setattr(expr, "RUN_WORK", 0)  # the call itself counts one unit
    assert play(path) == 2
    one_error(capsys, path, "the limit on library work per observation or decision")


def test_past_the_work_limit_the_beliefs_answer_from_the_sheets_estimate(tmp_path, monkeypatch):
    path = strategy(tmp_path, {"x": "most_informative(6)", "g": "information_gain(x)"})
    k = Knowledge(get_edition("cluedo"), ("ann", "bob", "cat"), "ann",
                  rulesets=[*default_rulesets(), load_ruleset(path)])
    k.observe(DealtHand("ann", HAND))
    monkeypatch.setattr(expr, "RUN_WORK", 1_000)
    assert k.request("your-turn", {"turn": 1, "round": 1})  # a suggestion, not an error
    assert library.beliefs.exact_beliefs(k).exact is False
    assert 1_000 <= k._budget.work < 2_000  # stopped at the limit (38,226 units without it)


def test_the_clock_is_looked_at_as_library_work_adds_up(tmp_path, monkeypatch):
    path = strategy(tmp_path, {"x": "best_ask_size(3, 4)"})
    k = Knowledge(get_edition("cluedo"), ("ann", "bob", "cat"), "ann",
                  rulesets=[*default_rulesets(), load_ruleset(path)])
    k.observe(DealtHand("ann", HAND))
    monkeypatch.setattr(expr, "RUN_SECONDS", -1.0)  # the deadline passes before the first call
    monkeypatch.setattr(expr, "_CLOCK_EVERY", 1)  # the clock looked at on every unit of library work
    with pytest.raises(RuleLimitError, match=r"costly\.yaml: rule 'evil': .*at best_ask_size\(\); the wall-clock"):
        k.request("your-turn", {"turn": 1, "round": 1})


def test_past_the_deadline_the_beliefs_answer_from_the_sheets_estimate(tmp_path, monkeypatch):
    path = strategy(tmp_path, {"x": "most_informative(6)", "g": "information_gain(x)", "h": "envelope_entropy()"})
    k = Knowledge(get_edition("cluedo"), ("ann", "bob", "cat"), "ann",
                  rulesets=[*default_rulesets(), load_ruleset(path)])
    k.observe(DealtHand("ann", HAND))
    monkeypatch.setattr(expr, "RUN_SECONDS", -1.0)  # a slow position on a loaded machine
    assert k.request("your-turn", {"turn": 1, "round": 1})  # a suggestion, not an error
    assert library.beliefs.exact_beliefs(k).exact is False


def test_work_charged_outside_a_rule_is_free_and_inside_is_counted():
    work.charge(10 ** 12, "nothing")  # no meter in place: nothing happens
    b = expr.Budget()
    with work.metered(b):
        work.charge(5, "a")
        work.charge(7, "b")
    assert b.work == 12
    with pytest.raises(expr.LimitError, match="units of work"), work.metered(b):
        work.charge(expr.RUN_WORK, "too much")


def test_the_exact_beliefs_charge_their_table():
    k = Knowledge(get_edition("cluedo"), ("ann", "bob", "cat"), "ann")
    k.observe(DealtHand("ann", HAND))
    b = expr.Budget()
    with work.metered(b):
        beliefs.compute(k)
    assert b.work > 1_000  # table entries times moves, not a few steps


# --- the exact beliefs' table --------------------------------------------------------
def huge_knowledge(categories=40, per=10, players=10):
    edition = build_edition("huge", {f"c{i}": [f"k{i}x{j}" for j in range(per)] for i in range(categories)})
    names = tuple(f"p{i}" for i in range(players))
    return Knowledge(edition, names, names[0], complete=False)


def test_exact_beliefs_refuse_a_huge_edition_before_building_a_table(monkeypatch):
    built = []
    monkeypatch.setattr(beliefs, "BeliefProblem", lambda k: built.append(k))
    k = huge_knowledge()
    with pytest.raises(beliefs.TableTooLarge, match=r"about 10\^40 envelope contents open, more than 100,000"):
        beliefs.compute(k)
    assert built == []


def test_many_envelope_cards_are_refused_too():
    edition = build_edition("env15", {"a": [f"a{j}" for j in range(30)], "b": [f"b{j}" for j in range(10)]},
                            envelope={"a": 15, "b": 0})
    names = tuple(f"p{i}" for i in range(10))
    k = Knowledge(edition, names, names[0], complete=False)
    with pytest.raises(beliefs.TableTooLarge, match="155,117,520 envelope contents"):
        beliefs.compute(k)


def test_a_table_past_its_size_is_refused_and_the_library_falls_back(monkeypatch):
    k = Knowledge(get_edition("cluedo"), ("ann", "bob", "cat", "dan"), "ann")
    k.observe(DealtHand("ann", HAND[:5]))
    monkeypatch.setattr(beliefs, "MAX_TABLE", 50)
    with pytest.raises(beliefs.TableTooLarge, match="more than 50 entries"):
        beliefs.compute(k)
    # the suggestion choosers and the values still answer, from the sheet's estimate
    est = library.beliefs.exact_beliefs(k)
    assert est.exact is False and len(est.envelope) == 1
    pick = library.most_informative(k)
    assert [k.category_of(c) for c in pick] == list(k.edition.categories)
    assert library.information_gain(k, pick) == 0.0
    assert 0.0 <= library.refutation_none(k, pick) <= 1.0
    assert abs(sum(est.probabilities[o]["plum"] for o in k.owners) - 1.0) < 1e-9


def test_a_pass_past_its_work_is_refused(monkeypatch):
    k = Knowledge(get_edition("cluedo"), ("ann", "bob", "cat", "dan"), "ann")
    k.observe(DealtHand("ann", HAND[:5]))
    monkeypatch.setattr(beliefs, "MAX_TABLE_WORK", 100)
    with pytest.raises(beliefs.TableTooLarge, match="more than 100 units of work"):
        beliefs.compute(k)


def test_too_many_suggestions_to_value_are_refused_before_they_are_built(monkeypatch):
    k = Knowledge(get_edition("cluedo"), ("ann", "bob", "cat"), "ann")
    k.observe(DealtHand("ann", HAND))
    monkeypatch.setattr(scoring, "MAX_SUGGESTIONS", 10)
    ev = scoring.SuggestionEvaluator(k)
    with pytest.raises(beliefs.TableTooLarge, match="suggestions to value, more than 10"):
        ev.candidates()


# --- the board planner and group 1's table ---------------------------------------------
def test_value_iteration_is_held_to_its_square_updates(monkeypatch):
    board = get_board("classic")
    planning.value_iteration(board, {r: 1.0 for r in board.rooms})
    monkeypatch.setattr(planning, "MAX_SWEEP_WORK", 2 * len(board.hallway))
    with pytest.raises(expr.LimitError, match="more than 372 square updates"):
        planning.value_iteration(board, {r: 1.0 for r in board.rooms})


def test_value_iteration_charges_its_sweeps():
    board = get_board("classic")
    b = expr.Budget()
    with work.metered(b):
        planning.value_iteration(board, {r: 1.0 for r in board.rooms})
    assert b.work >= 2 * len(board.hallway) - 20  # at least two sweeps of the hallway


def test_group1_table_has_a_size_limit():
    assert interrogation.cell(3, 4) is not None
    with pytest.raises(expr.LimitError, match="up to 40 uncertain cards a side, not p=41"):
        interrogation.cell(41, 3)


# --- messages and folded parameters ---------------------------------------------------
def test_a_formatted_message_is_cut_with_a_note():
    text = language.format_template("{x} " * 1000, {"x": "a" * 10_000})
    assert len(text) <= expr.MAX_MESSAGE + 100
    assert text.endswith(expr.CUT_NOTE.format(n=expr.MAX_MESSAGE))
    assert language.format_template("{x}!", {"x": "short"}) == "short!"


def test_a_contradiction_message_is_cut_too(tmp_path):
    data = {"id": "loud", "title": "loud",
            "rules": [{"id": "evil", "message": "m", "when": "held",
                       "let": {"big": "'x' * 9000"}, "then": [{"contradiction": "{big} " * 50}]}]}
    path = tmp_path / "loud.yaml"
    path.write_text(yaml.safe_dump(data))
    k = Knowledge(get_edition("cluedo"), ("ann", "bob", "cat"), "ann",
                  rulesets=[*default_rulesets(), load_ruleset(path)])
    with pytest.raises(ContradictionError) as info:
        k.observe(DealtHand("ann", HAND))
    assert len(str(info.value)) < expr.MAX_MESSAGE + 400
    assert "message cut at 4,000 characters" in str(info.value)


def test_folded_parameters_are_capped_when_loaded(tmp_path, capsys):
    data = {"id": "folded", "title": "folded", "kind": "response",
            "parameters": {"p": {"default": "v" * 5_000}},
            "rules": [{"id": "evil", "message": "{p}" * 100, "when": "disprove-request",
                       "then": [{"show": "matching"}]}]}
    path = tmp_path / "folded.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(RuleLimitError, match="rule 'evil': the message is over 20,000 characters"):
        load_ruleset(path)
    assert main(["rules", str(path)]) == 2
    one_error(capsys, path, "the limit on a message template")


# --- files: nodes counted, keys and ids once -----------------------------------------------
def test_a_record_of_many_tiny_nodes_is_refused_while_parsed(tmp_path, capsys, monkeypatch):
    composed = []
    real_load = yaml.load
    monkeypatch.setattr(yaml, "load", lambda *a, **k: composed.append(1) or real_load(*a, **k))
    path = tmp_path / "tiny.yaml"
    path.write_text("edition: cluedo\nextra:\n" + "- 0\n" * 300_000)
    assert main(["deduce", str(path)]) == 2
    err = capsys.readouterr().err
    assert "more than 200,000 values" in err and str(path) in err
    assert composed == []  # refused on the event stream, nothing composed


@pytest.mark.parametrize("text", [
    "edition: cluedo\nplayers: [ann, bob, cat]\nme: ann\nme: bob\nhand: []\nturns: []\n",
    json.dumps(GOOD)[:-1] + ', "me": "bob"}',
])
def test_a_duplicate_key_is_refused(tmp_path, capsys, text):
    path = tmp_path / "dup.yaml"
    path.write_text(text)
    assert main(["deduce", str(path)]) == 2
    err = capsys.readouterr().err
    assert "the key 'me' appears twice" in err and str(path) in err


def test_node_caps_per_kind():
    with pytest.raises(yamlio.FileLoadError, match="more than 5,000 values"):
        yamlio.load_text("- x\n" * 6_000, "lvl.yaml", "level")
    assert len(yamlio.load_text("- x\n" * 6_000, "r.yaml", "record")) == 6_000


def test_a_level_naming_a_file_twice_is_refused_before_compiling(tmp_path, monkeypatch):
    compiled = []
    monkeypatch.setattr(levels, "load_ruleset", lambda p: compiled.append(p))
    path = tmp_path / "lvl.yaml"
    path.write_text(yaml.safe_dump({"id": "lvl", "deduction": ["deduction/ownership"] * 3, "completion": False}))
    with pytest.raises(levels.LevelError, match="names the rule file 'deduction/ownership' twice"):
        levels.load_level(path).rulesets()
    path.write_text(yaml.safe_dump({"id": "lvl", "deduction": [f"f{i}" for i in range(100)], "completion": False}))
    with pytest.raises(levels.LevelError, match="more than the limit of 64"):
        levels.load_level(path)
    assert compiled == []


def test_a_duplicate_rule_id_is_refused_before_any_rule_compiles(tmp_path, monkeypatch):
    compiled = []
    real = language._compile_rule
    monkeypatch.setattr(language, "_compile_rule", lambda *a, **k: compiled.append(1) or real(*a, **k))
    rules = [{"id": f"r{i}", "message": "m", "when": "held", "then": [{"lacked": ["owner", "card"]}]}
             for i in range(300)] + [{"id": "r0", "message": "m", "when": "held", "then": [{"lacked": ["owner", "card"]}]}]
    path = tmp_path / "dups.yaml"
    path.write_text(yaml.safe_dump({"id": "dups", "title": "d", "rules": rules}))
    with pytest.raises(Exception, match="duplicate rule id"):
        load_ruleset(path)
    assert compiled == []


# --- rules compiled together (issue 25's audit, re-run: 64 included files of 1,000 rules compiled for 17 s) ---
def _rule_file(path, n, include=()):
    data = {"id": path.stem, "title": path.stem,
            "rules": [{"id": f"{path.stem}-r{j}", "message": "m", "when": "held",
                       "then": [{"lacked": ["owner", "card"]}]} for j in range(n)]}
    if include:
        data["include"] = list(include)
    path.write_text(yaml.safe_dump(data))
    return path


def _counting_compiles(monkeypatch):
    compiled = []
    real = language._compile_rule
    monkeypatch.setattr(language, "_compile_rule", lambda *a, **k: compiled.append(1) or real(*a, **k))
    return compiled


def test_the_rules_an_include_tree_brings_in_are_counted_before_they_compile(tmp_path, monkeypatch):
    monkeypatch.setattr(language, "MAX_RULES", 10)
    for name in ("a", "b", "c"):
        _rule_file(tmp_path / f"{name}.yaml", 4)
    top = _rule_file(tmp_path / "top.yaml", 1, include=["a", "b", "c"])
    compiled = _counting_compiles(monkeypatch)
    with pytest.raises(RuleLimitError, match=r"c\.yaml: more than 10 rules in .*top\.yaml and the files it extends "
                                             r"or includes \(13 counted so far; the limit on rules compiled"):
        load_ruleset(top)
    assert len(compiled) == 9  # top's rule, a's and b's: c's four never compiled
    assert len(load_ruleset(_rule_file(tmp_path / "small.yaml", 1, include=["a", "b"])).rules) == 9


def test_a_knowledge_level_counts_the_rules_of_all_its_files_together(tmp_path, monkeypatch):
    monkeypatch.setattr(language, "MAX_RULES", 10)
    names = [str(_rule_file(tmp_path / f"part{i}.yaml", 4)) for i in range(3)]
    path = tmp_path / "lvl.yaml"
    path.write_text(yaml.safe_dump({"id": "lvl", "deduction": names, "completion": False}))
    compiled = _counting_compiles(monkeypatch)
    with pytest.raises(RuleLimitError, match=r"part2\.yaml: more than 10 rules in the rule files of the knowledge "
                                             r"level .*lvl\.yaml"):
        levels.load_level(path).rulesets()
    assert len(compiled) == 8
    path.write_text(yaml.safe_dump({"id": "lvl", "deduction": names[:2], "completion": False}))
    assert sum(len(rs.rules) for rs in levels.load_level(path).rulesets()) == 8


def test_the_shipped_levels_are_far_inside_the_rule_limit():
    for name in levels.available_levels():
        assert sum(len(rs.rules) for rs in levels.get_level(name).rulesets()) <= language.MAX_RULES // 10


def _outcome(fn, k):
    """None, or the type and message of what ``fn(k)`` raised."""
    try:
        fn(k)
    except (beliefs.TableTooLarge, ValueError) as exc:
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("seed", range(1, 5))
def test_the_cheap_check_refuses_exactly_where_the_beliefs_do(monkeypatch, seed):
    """``check_exact`` (issue 36: the sheet's beliefs checked, not computed) raises what ``compute`` raises,
    at every table size and work limit tried, on positions of random games (3-6 players, two editions);
    ``envelope_only`` refuses exactly there too, and otherwise gives the beliefs' envelope, from which
    ``compute`` continues to the same beliefs."""
    edition = get_edition("master-detective" if seed == 4 else "cluedo")
    record = random_record(random.Random(seed), n_players=3 + seed % 4, n_turns=10, edition=edition)
    seen = set()
    for upto in (3, 9):
        k = replay_record(record, upto)
        for limit in (30, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, beliefs.MAX_TABLE):
            for name, value in (("MAX_TABLE", limit), ("MAX_TABLE_WORK", 4 * limit)):
                monkeypatch.setattr(beliefs, name, value)
                expected = _outcome(beliefs.compute, k)
                assert _outcome(beliefs.check_exact, k) == expected, (seed, upto, name, value)
                # the envelope alone refuses where the beliefs do too (the message may name the other limit)
                alone = _outcome(beliefs.envelope_only, k)
                assert (alone and alone[0]) == (expected and expected[0]), (seed, upto, name, value)
                if expected is None:
                    b, env = beliefs.compute(k), beliefs.envelope_only(k)
                    assert (env.envelope, env.entropy_bits) == (b.envelope, b.entropy_bits)
                    assert beliefs.compute(k, env.forward) == b
                seen.add(expected is None)
                monkeypatch.undo()
    assert seen == {True, False}
