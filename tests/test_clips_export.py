"""``rules --export clips kb.clp`` and ``deduce --export-facts RECORD facts.clp``
run in a bare clipspy environment -- no clue-expert code: ``(load kb.clp)
(load-facts facts.clp) (run)`` -- reach the sheet ``deduce --no-complete``
shows (the rules alone, without the SAT step), on the shipped examples and on
random games.

The knowledge level compared is every shipped deduction rule file
(tests/data/levels/rules-only.yaml: observations, ownership, clauses,
counting and bounds), all of them pure patterns; the random games' unseen
shows and wrong accusations make the clause rules fire, and bounds true of
the deal, given by hand, the bound rules.  The classroom's level
docs/examples/pattern-rules.yaml (observations and ownership) exports too."""
from __future__ import annotations

import json
import random
from pathlib import Path

import clips
import pytest

from clue_expert.core.facts import KINDS, bound_key
from clue_expert.core.records import dump_record
from clue_expert.engine.engines.base import EngineFact
from clue_expert.engine.engines.clp import export_facts, input_facts
from clue_expert.engine.seat.knowledge import GIVEN, Knowledge
from clue_expert.engine.seat.levels import get_level
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


#: Every shipped deduction rule file, no SAT step.
LEVEL = Path(__file__).resolve().parent / "data" / "levels" / "rules-only.yaml"
#: Rules of the clause and bound files that the random games below must see fire.
MUST_FIRE = {"narrow-one-of", "one-of-down-to-last-card", "reduce-bound-by-held-card",
             "reduce-bound-by-lacked-card", "bound-holds-every-card", "bound-holds-no-card"}


@pytest.fixture(scope="module")
def level() -> Path:
    return LEVEL


@pytest.fixture(scope="module")
def kb(level, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("kb") / "kb.clp"
    assert main(["rules", "--export", "clips", str(path), "--knowledge", str(level)]) == 0
    text = path.read_text(encoding="utf-8")
    assert "(defrule record-own-hand" in text and "(defrule count-lacker-count" in text and "(clue-fire" not in text
    for rule in ("narrow-one-of", "owners-needing-same-cards-hold-them", "reduce-bound-by-held-card",
                 "bound-leaves-cards-outside", "supersede-one-of"):
        assert f"(defrule {rule}" in text
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


def _true_bounds(record, rng: random.Random) -> list[tuple]:
    """Bounds true of the record's deal: for each player, some cards and how many of them he holds,
    given exactly, as at least, or as at most."""
    out = []
    for p in record.players:
        pool = sorted(record.deal.hands[p]) if rng.random() < 0.25 else sorted(record.edition.card_ids)
        cards = rng.sample(pool, rng.randint(2, min(6, len(pool))))
        n = len(set(cards) & set(record.deal.hands[p]))
        low, high = rng.choice([(n, n), (n, len(cards)), (0, n)])
        out.append(bound_key(p, cards, low, high))
    return out


# experta in the slow tier (.ci/run runs it): its sheets equal CLIPS's in test_engine_diff and test_soundness_completeness
@pytest.mark.parametrize("engine", ["clips", pytest.param("experta", marks=pytest.mark.slow)])
def test_clause_and_bound_rules_reach_the_same_sheet_in_stock_clips(kb, tmp_path, engine):
    """Random games, each with bounds true of its deal given before its turns:
    the seat's sheet (rules alone) and stock CLIPS's from the exported facts agree,
    and the clause and bound rules fired on the way."""
    rng = random.Random(7)
    rulesets = get_level(str(LEVEL)).rulesets()
    fired: set[str] = set()
    for n, record in enumerate(random_records(41, 8, 4, n_turns=16)):
        k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, rulesets=rulesets,
                      complete=False, engine=engine)
        k.assume(_true_bounds(record, rng))
        for turn, obs in record.observations():
            k.observe(obs, turn)
        fired |= {f.rule for f in k.firings}
        given = [EngineFact(key[0], tuple((f, k.values[key][f]) for f in KINDS[key[0]]))
                 for key, j in k.justifications.items() if j.rule == GIVEN]
        facts = tmp_path / f"bounds-{n}.clp"
        facts.write_text(export_facts(input_facts(k.rule_engine.facts(), k.rules, given)), encoding="utf-8")
        expected = {(o, c): k.status(o, c) for o in k.owners for c in k.cards if k.status(o, c) != "unknown"}
        assert bare_clips_sheet(kb, facts) == expected, f"game {n}"
    assert MUST_FIRE <= fired, sorted(MUST_FIRE - fired)


def test_export_names_its_one_format_and_refuses_a_rule_needing_python(tmp_path, capsys):
    assert main(["rules", "--export", "clisp", str(tmp_path / "kb.clp")]) == 2
    assert "rules --export: unknown format 'clisp'; the format is clips" in capsys.readouterr().err
    assert main(["rules", "--export", "clips", str(tmp_path / "classroom.clp"), "--knowledge",
                 str(EXAMPLES / "pattern-rules.yaml")]) == 0
    assert main(["rules", "--export", "clips", str(tmp_path / "kb.clp"),
                 str(Path(__file__).resolve().parent.parent / "rules" / "strategies" / "clue-expert-focused.yaml")]) != 0
    assert "cannot run in plain CLIPS" in capsys.readouterr().err
