"""``rules --export clips kb.clp`` and ``deduce --export-facts RECORD facts.clp``
run in a bare clipspy environment -- no clue-expert code: ``(load kb.clp)
(load-facts facts.clp) (run)`` -- reach the sheet ``deduce --no-complete``
shows (the rules alone, without the SAT step), on the shipped examples and on
random games.

The knowledge level compared is docs/examples/pattern-rules.yaml, the
deduction rule files written as pure patterns so far (the classroom's CLIPS
exercise uses it too); the others (clauses, counting, bounds) still compute
a right-hand side in Python and are refused by the export, naming the rule."""
from __future__ import annotations

import json
from pathlib import Path

import clips
import pytest

from clue_expert.core.records import dump_record
from clue_expert.people.cli import main
from clue_expert.testing.randomgame import random_records

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
SHIPPED = ["kingston-1-player1.yaml", "three-players.yaml", "case-analysis.yaml"]

#: Reads every held and lacked fact as plain values (clipspy's Fact wrappers are never made).
READ = """(deffunction sheet-cells ()
  (bind ?out (create$))
  (do-for-all-facts ((?f held)) TRUE (bind ?out (create$ ?out held ?f:owner ?f:card)))
  (do-for-all-facts ((?f lacked)) TRUE (bind ?out (create$ ?out lacked ?f:owner ?f:card)))
  ?out)"""


#: The knowledge level of the deduction rule files that are pure patterns (every rule native), no SAT step.
LEVEL = EXAMPLES / "pattern-rules.yaml"


@pytest.fixture(scope="module")
def level() -> Path:
    return LEVEL


@pytest.fixture(scope="module")
def kb(level, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("kb") / "kb.clp"
    assert main(["rules", "--export", "clips", str(path), "--knowledge", str(level)]) == 0
    text = path.read_text(encoding="utf-8")
    assert "(defrule record-own-hand" in text and "(defrule count-lacker-count" in text and "(clue-fire" not in text
    return path


def bare_clips_sheet(kb: Path, facts: Path) -> dict[tuple[str, str], str]:
    """(owner, card) -> held / lacked, as stock CLIPS derives them."""
    env = clips.Environment()
    env.load(str(kb))
    env.load_facts(str(facts))
    env.run()
    env.build(READ)
    values = list(env.eval("(sheet-cells)"))
    return {(str(values[i + 1]), str(values[i + 2])): str(values[i]) for i in range(0, len(values), 3)}


def deduce_sheet(record: Path, level: Path, facts: Path, capsys) -> dict[tuple[str, str], str]:
    """(owner, card) -> held / lacked by ``deduce --no-complete``, writing the record's facts."""
    capsys.readouterr()
    assert main(["deduce", str(record), "--knowledge", str(level), "--no-complete", "--json",
                 "--export-facts", str(facts)]) == 0
    sheet = json.loads(capsys.readouterr().out)
    return {(o, c): s for o, cells in sheet["cells"].items() for c, s in cells.items() if s != "unknown"}


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_examples_reach_the_same_sheet_in_stock_clips(level, kb, tmp_path, capsys, name):
    facts = tmp_path / "facts.clp"
    expected = deduce_sheet(EXAMPLES / name, level, facts, capsys)
    got = bare_clips_sheet(kb, facts)
    assert got == expected
    assert len(expected) > 20  # the rules did derive something


@pytest.mark.parametrize("players", [3, 4, 6])
def test_random_games_reach_the_same_sheet_in_stock_clips(level, kb, tmp_path, capsys, players):
    for n, record in enumerate(random_records(24 + players, 2, players, n_turns=12)):
        path = tmp_path / f"game-{n}.yaml"
        dump_record(record, path)
        facts = tmp_path / f"game-{n}.clp"
        expected = deduce_sheet(path, level, facts, capsys)
        assert bare_clips_sheet(kb, facts) == expected, path


def test_export_names_its_one_format_and_refuses_a_rule_needing_python(tmp_path, capsys):
    assert main(["rules", "--export", "clisp", str(tmp_path / "kb.clp")]) == 2
    assert "rules --export: unknown format 'clisp'; the format is clips" in capsys.readouterr().err
    assert main(["rules", "--export", "clips", str(tmp_path / "kb.clp"),
                 str(Path(__file__).resolve().parent.parent / "rules" / "strategies" / "clue-expert-focused.yaml")]) != 0
    assert "cannot run in plain CLIPS" in capsys.readouterr().err
