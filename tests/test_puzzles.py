"""Generated puzzles (``clue-expert puzzle``): the record entails exactly
its envelope under the independent CNF oracle, agrees with the deal it was
made from, and is solved at its level and at no easier one -- easy by the
observation and ownership rules, medium by every rule without the case
analysis, hard only with it (the rules alone run as in test_rules_floor)."""
from __future__ import annotations

import functools
import json
import re

import pytest

from clue_expert.core.errors import ClueError
from clue_expert.core.records import parse_record
from clue_expert.engine.seat.knowledge import CASE_ANALYSIS, Knowledge
from clue_expert.engine.seat.levels import get_level
from clue_expert.people.cli import main
from clue_expert.play.puzzles import EASY_RULES, make_puzzle
from clue_expert.testing.oracle import cnf_entailed, consistent

CASES = [("easy", 3, 1), ("easy", 3, 2), ("medium", 3, 1), ("medium", 3, 2), ("hard", 3, 2),
         # the slowest in the slow tier (.ci/run runs it); every difficulty stays in the default run
         *(pytest.param(*case, marks=pytest.mark.slow)
           for case in (("medium", 4, 3), ("hard", 3, 1), ("hard", 3, 3), ("hard", 4, 1)))]


@functools.lru_cache(maxsize=None)
def puzzle(difficulty, players, seed):
    return make_puzzle(players, difficulty, seed)


def solves(record, level: str) -> bool:
    """Whether the seat names the whole envelope at a level, rules run as the floor test runs them."""
    rulesets = get_level("complete").rulesets()
    only = EASY_RULES if level == "easy" else None
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, rulesets=rulesets, only=only,
                  complete=level == "hard")
    for turn, obs in record.observations():
        k.observe(obs, turn)
    return k.solved()


@pytest.mark.parametrize("difficulty,players,seed", CASES)
def test_puzzle_entails_exactly_its_envelope_at_its_level(difficulty, players, seed):
    p = puzzle(difficulty, players, seed)
    record = parse_record(p.record.to_dict())  # what a student gets: the record format, no deal
    assert record.deal is None and p.difficulty == difficulty and len(record.players) == players
    owner = {c: o for o, h in p.deal.hands.items() for c in h}
    owner.update({c: "envelope" for c in p.deal.envelope})
    assert consistent(record, owner)
    entailed = cnf_entailed(record)
    in_envelope = {c for (o, c), v in entailed.items() if o == "envelope" and v == "held"}
    assert in_envelope == set(p.envelope) == set(p.deal.envelope)
    # solved at its level, not at any easier one
    order = ["easy", "medium", "hard"]
    assert solves(record, difficulty)
    for easier in order[:order.index(difficulty)]:
        assert not solves(record, easier), (difficulty, easier)
    if difficulty == "easy":
        assert set(p.rules_needed) <= EASY_RULES
    elif difficulty == "medium":
        assert CASE_ANALYSIS not in p.rules_needed and set(p.rules_needed) - EASY_RULES
    else:
        assert CASE_ANALYSIS in p.rules_needed


def test_same_seed_same_puzzle():
    a, b = make_puzzle(3, "medium", 2), puzzle("medium", 3, 2)
    assert a.record.to_dict() == b.record.to_dict() and a.envelope == b.envelope


@pytest.mark.slow  # a hard puzzle's search, 5 s; the default run makes easy ones through the same command
def test_puzzle_cli_json_and_yaml(capsys, tmp_path):
    assert main(["puzzle", "--difficulty", "hard", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"record", "question", "answer", "difficulty", "rules_needed"}
    assert data["difficulty"] == "hard" and len(data["answer"]["envelope"]) == 3
    assert "case-analysis" in data["rules_needed"] and "deal" not in data["record"]
    assert data["answer"]["envelope"] == list(puzzle("hard", 3, 1).envelope)
    # the plain output is a record file (the answer only with --answer)
    assert main(["puzzle", "--difficulty", "hard", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "Answer" not in text
    path = tmp_path / "puzzle.yaml"
    path.write_text(text)
    card = data["answer"]["envelope"][2]
    assert main(["why", "--steps", str(path), f"envelope holds {card}"]) == 0
    assert f"envelope holds {card}" in capsys.readouterr().out
    assert main(["puzzle", "--difficulty", "hard", "--seed", "1", "--answer"]) == 0
    assert "# Answer: " + ", ".join(data["answer"]["envelope"]) in capsys.readouterr().out


def test_puzzle_header_command_makes_the_same_puzzle(capsys):
    """The command in the header gives the same puzzle again, another edition's included."""
    assert main(["puzzle", "--players", "4", "--difficulty", "easy", "--seed", "5", "--edition", "mitchell"]) == 0
    text = capsys.readouterr().out
    command = re.search(r"\(clue-expert (puzzle [^)]*)\)", text.splitlines()[0]).group(1)
    assert "--edition mitchell" in command
    assert main(command.split()) == 0
    assert capsys.readouterr().out == text


def test_puzzle_bad_options(capsys):
    assert main(["puzzle", "--players", "9"]) == 2
    assert "3 to 6 players" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["puzzle", "--difficulty", "fiendish"])
    with pytest.raises(ClueError):
        make_puzzle(3, "fiendish", 1)
