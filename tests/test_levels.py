"""Knowledge levels as data, the reproduction at each paper's own level, the
unbiased envelope sample, and games of 2-10 players."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.core.deals import get_deal, random_deal
from clue_expert.core.errors import ClueError
from clue_expert.core.records import load_record
from clue_expert.engine.seat.knowledge import replay_record
from clue_expert.engine.seat.levels import LevelError, available_levels, get_level
from clue_expert.people.cli import main
from clue_expert.play.game import play_game
from clue_expert.play.players import parse_seat, seat_player
from clue_expert.play.reproduce import envelope_sample, kingston
from clue_expert.play.simulate import check_players, envelope_variants
from clue_expert.testing.oracle import cnf_entailed
from clue_expert.testing.randomgame import random_records
from clue_expert.testing.scenarios import check_coverage, load_scenarios, run_scenario, scenario_path

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "kingston-1-player1.yaml"


def test_shipped_levels_are_data():
    assert {"complete", "kingston", "mitchell"} <= set(available_levels())
    complete, kingston_level, mitchell_level = (get_level(x) for x in ("complete", "kingston", "mitchell"))
    assert complete.completion and not kingston_level.completion and not mitchell_level.completion
    assert mitchell_level.update == "own-turn" and kingston_level.update == "every-event"
    assert all(rs.kind == "deduction" for rs in kingston_level.rulesets())
    with pytest.raises(LevelError, match="did you mean kingston"):
        get_level("kingstn")


def test_lower_levels_know_less_and_nothing_false():
    record = load_record(EXAMPLE)
    deal = record.deal
    known = {}
    for name in ("complete", "kingston", "mitchell"):
        level = get_level(name)
        k = replay_record(record, rulesets=level.rulesets(), complete=level.completion)
        cells = {(o, c): s for o, row in k.sheet().cells.items() for c, s in row.items() if s != "unknown"}
        for (o, c), s in cells.items():  # sound against the true deal
            assert (deal.owner_of(c) == o) == (s == "held"), (name, o, c, s)
        known[name] = set(cells)
    assert known["kingston"] < known["complete"] and known["mitchell"] < known["complete"]


def test_seat_spec_knowledge_and_errors():
    assert parse_seat("kingston-no-intelligence:knowledge=kingston")["knowledge"] == "kingston"
    assert parse_seat("kingston-no-intelligence")["knowledge"] == "complete"
    with pytest.raises(ClueError, match="unknown knowledge level"):
        parse_seat("kingston-no-intelligence:knowledge=psychic")


def test_own_turn_level_reads_others_moves_only_at_its_turn():
    deal = get_deal("mitchell-1-3p")
    first = deal.players[0]
    for level, lags in (("mitchell", True), ("complete", False)):
        players = {p: seat_player(p, f"mitchell-basic:knowledge={level}", seed=1) for p in deal.players}
        result = play_game(deal, players, max_rounds=2)
        taken = sorted({t for t, _ in players[first].knowledge.observations() if t})
        last_own = max(e.turn for e in result.events if e.observation.by == first)
        every = sorted(e.turn for e in result.events)
        if lags:  # what the others did after its last turn waits for its next turn
            assert taken == [t for t in every if t <= last_own] and taken != every
        else:
            assert taken == every


@pytest.mark.slow  # a long run (the slow tier runs it in .ci/run)
def test_reproduce_kingston_no_intelligence_row_is_his():
    tables = kingston(envelopes=0, beside=None, seeds=2)
    three = dict(tables[0].rows)
    ours = [o.mean for _, o in three["kingston-no-intelligence"][:5]]
    assert ours == [6, 12, 6, 7, 4]


@pytest.mark.slow  # a long run (the slow tier runs it in .ci/run)
def test_reproduce_kingston_json_beside_rows(capsys):
    assert main(["reproduce", "kingston", "--json", "--envelopes", "0", "--seeds", "1", "--workers", "1", "--beside", "complete"]) == 0
    tables = json.loads(capsys.readouterr().out)
    labels = [r["label"] for r in tables[0]["rows"]]
    assert "kingston-no-intelligence" in labels
    assert "kingston-no-intelligence (with complete deduction)" in labels
    row = next(r for r in tables[0]["rows"] if r["label"] == "kingston-no-intelligence")
    assert [c["ours"]["mean"] for c in row["cells"][:5]] == [6, 12, 6, 7, 4]
    assert all(c["inside_range"] for c in row["cells"][:5])


def test_envelope_sample_is_unbiased_and_seeded():
    deal = get_deal("kingston-1-3p")
    ed = deal.edition
    everything = envelope_variants(deal)
    assert len(everything) == 324 and envelope_sample(deal, 324) == everything
    sample = envelope_sample(deal, 18, seed=1)
    assert len(sample) == 18 and sample == envelope_sample(deal, 18, seed=1)
    rooms = {d.envelope[2] for d in sample}
    assert len(rooms) > 1  # every 18th variant in product order would always give the same room
    assert all(ed.category_of(r) == "room" for r in rooms)
    assert envelope_sample(deal, 18, seed=2) != sample


@pytest.mark.parametrize("n", [2, 7, 10])
def test_games_of_two_to_ten_players(n):
    ed = get_edition("cluedo")
    deal = random_deal(ed, [f"p{i}" for i in range(n)], random.Random(n))
    players = {p: seat_player(p, "clue-expert-focused", seed=1) for p in deal.players}
    result = play_game(deal, players, max_rounds=40)
    assert result.winner is not None
    assert result.winner == [e for e in result.events if getattr(e.observation, "correct", False)][0].observation.by


def test_player_counts_outside_the_family_are_clear_errors(capsys):
    with pytest.raises(ClueError, match="2 to 10 players"):
        check_players(11, get_edition("cluedo"))
    assert main(["simulate", "--players", "1", "--games", "1"]) == 2
    assert "2 to 10 players" in capsys.readouterr().err


LEVEL_CASES = [pytest.param(name, rs, sc, id=f"{name}::{rs.id}::{sc.rule}::{sc.name}")
               for name in available_levels() if name != "complete"
               for rs in get_level(name).rulesets()
               for sc in load_scenarios(scenario_path(rs.path))]


@pytest.mark.parametrize("name", [n for n in available_levels() if n != "complete"])
def test_every_level_rule_has_scenarios(name):
    for rs in get_level(name).rulesets():
        path = scenario_path(rs.path)
        assert path.exists(), f"{rs.path} has no scenario file beside it"
        problems = check_coverage(rs, load_scenarios(path))
        assert not problems, f"{path}: " + "; ".join(problems)


@pytest.mark.parametrize("name, ruleset, scenario", LEVEL_CASES)
def test_level_scenario(name, ruleset, scenario):
    run_scenario(scenario, get_level(name).rulesets())


@pytest.mark.parametrize("name", ["kingston", "mitchell"])
@pytest.mark.parametrize("n_players", [3, 4, 6])
def test_levels_are_sound_against_the_oracle(name, n_players):
    level = get_level(name)
    for record in random_records(100 + n_players, 6, n_players, 24):
        entailed = cnf_entailed(record)
        k = replay_record(record, rulesets=level.rulesets(), complete=level.completion)
        for o, row in k.sheet().cells.items():
            for c, s in row.items():
                if s != "unknown":
                    assert entailed.get((o, c)) == s, (name, record.me, o, c, s)
