"""The family of games: editions with any categories and envelope counts.

(a) Two edition files under ``tests/data/editions/`` -- four categories
(suspect, weapon, room, motive; one each in the envelope) and two categories
with two suspects in the envelope -- referenced by path from records of 2 to
10 players: the complete deduction (``replay_record``, ``complete=True``)
equals the independent CNF oracle on every cell after every turn, and never
contradicts the true deal.
(b) A bounded property test over random small editions, player counts and
games: soundness against the true deal, completeness against the CNF oracle.
(c) The CLI on such records and on broken edition files.
"""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clue_expert.core import cards as cards_module
from clue_expert.core.facts import ENVELOPE
from clue_expert.core.records import load_record
from clue_expert.engine.seat.knowledge import Knowledge, replay_record
from clue_expert.people.cli import main
from clue_expert.testing.oracle import cnf_entailed
from clue_expert.testing.randomgame import random_edition, random_record

DATA = Path(__file__).resolve().parent / "data"
EDITIONS = DATA / "editions"
RECORDS = sorted((DATA / "records").glob("*.yaml"))


def sheet_of(k: Knowledge) -> dict:
    """(owner, card) -> held / lacked for every known cell."""
    return {(o, c): s for o in k.owners for c in k.cards if (s := k.status(o, c)) != "unknown"}


def check_against_oracle(record, k: Knowledge, upto: int) -> None:
    """The sheet equals the CNF oracle's entailed cells, and the true deal agrees."""
    got = sheet_of(k)
    want = cnf_entailed(record, upto)
    assert want is not None, f"{record.source}: the oracle finds no deal after turn {upto}"
    missed = sorted(cell for cell in want if cell not in got)
    wrong = sorted(cell for cell in got if want.get(cell) != got[cell])
    assert not wrong, f"{record.source} turn {upto}: not entailed: {[(c, got[c]) for c in wrong]}"
    assert not missed, f"{record.source} turn {upto}: entailed but missed: {[(c, want[c]) for c in missed]}"
    if record.deal is not None:
        for (o, c), status in got.items():
            assert (record.deal.owner_of(c) == o) == (status == "held"), (record.source, upto, o, c, status)


def incremental_check(record) -> Knowledge:
    """Feed the record turn by turn, checking every cell after every turn."""
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, complete=True)
    for turn, obs in record.observations():
        k.observe(obs, turn)
        check_against_oracle(record, k, turn)
    return k


# --- (a) edition files by path ----------------------------------------------------
def test_the_records_cover_both_editions_and_2_to_10_players():
    by_edition: dict = {}
    for path in RECORDS:
        record = load_record(path)
        assert record.edition.source is not None, path  # given by path, not a shipped edition
        assert Path(record.edition.source).parent == EDITIONS.resolve()
        by_edition.setdefault(record.edition.id, set()).add(len(record.players))
    assert set(by_edition) == {"four-categories", "two-suspects"}
    for counts in by_edition.values():
        assert min(counts) == 2 and max(counts) == 10


def test_the_edition_files_have_the_intended_shapes():
    four = cards_module.get_edition(str(EDITIONS / "four-categories.yaml"))
    assert four.categories == ("suspect", "weapon", "room", "motive")
    assert four.envelope_counts == {"suspect": 1, "weapon": 1, "room": 1, "motive": 1}
    two = cards_module.get_edition(str(EDITIONS / "two-suspects.yaml"))
    assert two.categories == ("suspect", "room")
    assert two.envelope_counts == {"suspect": 2, "room": 1}


# the three longest records in the slow tier (.ci/run runs it); the other sizes of both editions in the default run
LONGEST = {"four-categories-10p", "four-categories-8p", "two-suspects-9p"}


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem in LONGEST else p for p in RECORDS],
                         ids=[p.stem for p in RECORDS])
def test_deduction_equals_the_cnf_oracle_after_every_turn(path):
    record = load_record(path)
    k = incremental_check(record)
    # replay_record (what deduce runs) gives the same sheet
    assert sheet_of(replay_record(record, complete=True)) == sheet_of(k)
    mid = len(record.turns) // 2
    assert sheet_of(replay_record(record, mid, complete=True)) == cnf_entailed(record, mid)


# --- (b) random small editions ----------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 5), turns=st.integers(0, 14))
def test_random_editions_are_sound_and_complete(seed, players, turns):
    rng = random.Random(seed)
    edition = random_edition(rng, categories=(1, 4), cards=(1, 4), envelope=(0, 2), max_cards=12,
                             min_dealt=players)
    record = random_record(rng, players, n_turns=turns, edition=edition, accuse_rate=0.1)
    incremental_check(record)


def test_random_editions_vary_in_shape():
    rng = random.Random(3)
    shapes = set()
    for _ in range(60):
        ed = random_edition(rng, max_cards=12, min_dealt=2)
        assert 1 <= len(ed.categories) <= 4 and len(ed.cards) <= 12 and ed.envelope_size >= 1
        assert all(0 <= n <= len(ed.category_cards(cat)) for cat, n in ed.envelope_counts.items())
        shapes.add((len(ed.categories), tuple(sorted(ed.envelope_counts.values()))))
    assert len({s[0] for s in shapes}) == 4  # every category count turns up
    assert any(0 in s[1] for s in shapes) and any(2 in s[1] for s in shapes)


# --- (c) the command line ---------------------------------------------------------
def test_deduce_json_on_a_record_by_path(capsys):
    path = DATA / "records" / "two-suspects-4p.yaml"
    assert main(["deduce", "--json", str(path)]) == 0
    sheet = json.loads(capsys.readouterr().out)
    record = load_record(path)
    want = cnf_entailed(record)
    got = {(o, c): s for o, row in sheet["cells"].items() for c, s in row.items() if s != "unknown"}
    assert got == want
    assert set(sheet["envelope"]) == {"suspect", "room"}
    assert sheet["owners"][-1] == ENVELOPE


def test_deduce_json_with_probabilities_on_a_four_category_record(capsys):
    path = DATA / "records" / "four-categories-5p.yaml"
    assert main(["deduce", "--json", "--probabilities", str(path)]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert set(sheet["envelope"]) == {"suspect", "weapon", "room", "motive"}
    dist = sheet["envelope_distribution"]
    assert abs(sum(e["p"] for e in dist) - 1) < 1e-9
    assert all(len(e["cards"]) == 4 for e in dist)


def test_deduce_probabilities_table_on_a_two_suspect_record(capsys):
    path = DATA / "records" / "two-suspects-6p.yaml"
    assert main(["deduce", "--probabilities", str(path)]) == 0
    assert "envelope entropy" in capsys.readouterr().out


BROKEN = "id: broken\ncategories: [suspect, weapon]\n"  # categories must be a mapping


def test_a_malformed_edition_file_is_one_clear_error(tmp_path, capsys):
    (tmp_path / "broken.yaml").write_text(BROKEN)
    record = (DATA / "records" / "four-categories-2p.yaml").read_text()
    record = record.replace("../editions/four-categories.yaml", "broken.yaml")
    (tmp_path / "game.yaml").write_text(record)
    assert main(["deduce", "--json", str(tmp_path / "game.yaml")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error:")
    assert "broken.yaml" in lines[0] and "malformed edition file" in lines[0]
    assert "Traceback" not in captured.err


def test_an_edition_file_that_is_not_yaml_is_one_clear_error(tmp_path, capsys):
    (tmp_path / "bad.yaml").write_text("id: bad\ncategories: {suspect: [a, b\n")
    assert main(["editions", str(tmp_path / "bad.yaml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.yaml" in err[0] and "not valid YAML" in err[0]


def test_a_broken_file_in_the_editions_folder_does_not_break_editions(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "editions"
    shutil.copytree(cards_module.editions_dir(), folder)
    (folder / "zz-broken.yaml").write_text(BROKEN)
    (folder / "four-categories.yaml").write_text((EDITIONS / "four-categories.yaml").read_text())
    monkeypatch.setattr(cards_module, "editions_dir", lambda: folder)
    cards_module._shipped.cache_clear()
    try:
        assert main(["editions", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert "cluedo" in out and "four-categories" in out
        assert out["four-categories"]["envelope"] == {"suspect": 1, "weapon": 1, "room": 1, "motive": 1}
        assert list(out["_errors"]) == ["zz-broken.yaml"]
        assert "zz-broken.yaml" in out["_errors"]["zz-broken.yaml"]
        assert main(["editions"]) == 0
        text = capsys.readouterr().out
        assert "zz-broken" in text and "malformed edition file" in " ".join(text.split()) and "left out" in text
        # other commands are unaffected too
        assert main(["deduce", "--json", str(DATA / "records" / "two-suspects-2p.yaml")]) == 0
        capsys.readouterr()
    finally:
        monkeypatch.undo()
        cards_module._shipped.cache_clear()


@pytest.mark.parametrize("edition", [pytest.param("four-categories.yaml", marks=pytest.mark.slow), "two-suspects.yaml"])
def test_simulate_and_play_on_an_edition_file(edition, capsys):
    path = str(Path(__file__).resolve().parent / "data" / "editions" / edition)
    # the default seat at 4 players may guess (clue-expert-even-race); accusing at certainty is never wrong
    assert main(["simulate", "--edition", path, "--players", "4", "--games", "4", "--json", "--workers", "1",
                 "--accusation", "when-certain"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 4 and summary["wrong_accusations"] == 0
    assert main(["play", "--edition", path, "--players", "5", "--seed", "3", "--show", "quiet", "--no-color"]) == 0
    assert "wins" in capsys.readouterr().out
