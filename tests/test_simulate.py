"""simulate and reproduce: seat rotation, reproducibility across workers,
summary fields, records that replay, the published tables."""
from __future__ import annotations

import json
import pickle

import pytest

from clue_expert.people.cli import main
from clue_expert.core.deals import get_deal
from clue_expert.core.errors import ClueError
from clue_expert.core.records import load_record
from clue_expert.engine.seat.knowledge import replay_record as replay
from clue_expert.play.reproduce import Estimate, kingston, published
from clue_expert.play.simulate import (WORKER_SEATS, envelope_variants, make_specs, play_one, run_games,
                                       summarize, wilson)


def test_seats_rotate_across_games():
    specs = make_specs(players=3, games=3, seed=1, strategies=["mitchell-basic", "mitchell-advanced"])
    assert [s.strategies for s in specs] == [
        ("mitchell-basic", "mitchell-advanced", "mitchell-basic"),
        ("mitchell-advanced", "mitchell-basic", "mitchell-advanced"),
        ("mitchell-basic", "mitchell-advanced", "mitchell-basic")]


def test_results_do_not_depend_on_workers():
    specs = make_specs(players=3, games=6, seed=4, strategies=["mitchell-basic", "clue-expert-focused"])
    one = run_games(specs, 1)
    two = run_games(specs, 2)
    assert one == two


def test_a_worker_keeps_its_seats_knowledge_from_game_to_game():
    """A pool worker receives each game pickled, each with an edition
    object of its own. A seat must keep its knowledge for an equal edition,
    not only for the same object, or it builds its engine again for every
    game: that cost pool workers about 40 % more CPU per six-player game
    than one process playing the same games."""
    specs = make_specs(players=3, games=2, seed=3, strategies=["clue-expert-focused"])  # the same seats twice
    received = [pickle.loads(pickle.dumps(s)) for s in specs]
    assert received[0].deal.edition is not received[1].deal.edition
    assert received[0].deal.edition == received[1].deal.edition == specs[0].deal.edition
    WORKER_SEATS.clear()
    play_one(received[0])
    first = {key: player.knowledge for key, player in WORKER_SEATS.items()}
    play_one(received[1])
    assert list(WORKER_SEATS) == list(first)  # the second game seated the same three players
    kept = [key for key, player in WORKER_SEATS.items() if player.knowledge is first[key]]
    assert len(first) == 3 and len(kept) == 3


def test_summary_fields_and_ci():
    results = run_games(make_specs(players=4, games=6, seed=2, strategies=["mitchell-advanced"]))
    s = summarize(results)
    for key in ("games", "mean_rounds_to_solution", "mean_rounds_to_win", "wrong_accusations", "strategies",
                "seats"):
        assert key in s
    d = s["strategies"]["mitchell-advanced"]
    assert d["seats"] == 24 and d["wins"] == 6 and 0 <= d["ci95"][0] <= d["win_rate"] <= d["ci95"][1] <= 1
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.404, abs=0.001) and hi == pytest.approx(0.596, abs=0.001)


def test_all_envelopes_generator():
    deal = get_deal("kingston-1-3p")
    variants = envelope_variants(deal)
    assert len(variants) == 324 and len({v.envelope for v in variants}) == 324
    for v in variants[::37]:
        cards = sorted(list(v.envelope) + [c for h in v.hands.values() for c in h])
        assert cards == sorted(deal.edition.card_ids)
        assert [len(v.hands[p]) for p in v.players] == [6, 6, 6]


def test_bad_strategy_name():
    with pytest.raises(ClueError, match="did you mean"):
        make_specs(players=3, games=1, seed=1, strategies=["mitchell-advancd"])


def test_simulate_cli_json_and_records(tmp_path, capsys):
    code = main(["simulate", "--players", "3", "--games", "3", "--seed", "9", "--strategy", "kingston-deduction",
                 "--strategy", "clue-expert-focused", "--json", "--records", str(tmp_path)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["games"] == 3
    for key in ("mean_rounds_to_solution", "mean_rounds_to_win", "wrong_accusations"):
        assert key in out
    for name in ("kingston-deduction", "clue-expert-focused"):
        assert {"wins", "win_rate", "ci95"} <= set(out["strategies"][name])
    files = sorted(tmp_path.glob("*.yaml"))
    assert len(files) == 3
    k = replay(load_record(files[0]))
    assert k.solved()


def test_published_tables_load():
    k = published("kingston")
    assert k["players"][3]["kingston-next-not-held"] == [5, 13, 4, 6, 4, 5.25]
    m = published("mitchell")
    assert m["table_5_2"]["rows"][7][0] == 8.762 and len(m["table_5_3"]) == 14


@pytest.mark.slow
def test_reproduce_kingston_runs():
    tables = kingston(envelopes=0, seeds=2, calibrated=False)
    assert len(tables) == 2
    three = dict(tables[0].rows)
    # No intelligence is deterministic list-order play: one game a deal (every seed plays it alike)
    assert all(isinstance(o, Estimate) and o.runs == 1 for p, o in three["kingston-no-intelligence"][:5])
    assert all(o.runs == 2 for p, o in three["kingston-next-possible"][:5])  # a random choice: every seed
    p, o = three["kingston-no-intelligence"][0]
    assert (p, o.mean, o.low, o.high) == (6, 6.0, 6.0, 6.0) and o.contains(6) and not o.contains(7)


def test_play_cli(capsys):
    code = main(["play", "--no-color", "--show", "moves"])
    out = capsys.readouterr().out
    assert code == 0 and "wins in round" in out and "turn   1" in out and "final sheet" in out


def test_play_cli_random_six_players_and_record(tmp_path, capsys):
    rec = tmp_path / "game.yaml"
    code = main(["play", "--players", "6", "--seed", "3", "--no-color", "--no-sheets", "--show", "quiet",
                 "--strategy", "mitchell-fixed", "--record", str(rec)])
    assert code == 0 and rec.exists()
    assert replay(load_record(rec)).solved()


def test_failing_strategy_in_workers_is_reported_not_hung(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\nkind: strategy\ntitle: t\nrules:\n  - id: only-of-many\n    message: m\n"
                   "    when: your-turn\n    then:\n      - suggest: {suspect: \"only(category_cards('suspect'))\", "
                   "weapon: \"category_cards('weapon')\", room: \"category_cards('room')\"}\n")
    code = main(["simulate", "--games", "2", "--workers", "2", "--strategy", str(bad), "--json"])
    assert code == 2 and "only-of-many" in capsys.readouterr().err


def test_deal_implies_players_and_all_envelopes_plays_each():
    specs = make_specs(players=None, games=0, seed=1, strategies=["kingston-deduction"], deal="kingston-1-6p",
                       all_envelopes=True)
    assert len(specs) == 324 and len(specs[0].deal.players) == 6


def _simulated_seats(capsys, *argv) -> list:
    assert main(["simulate", "--games", "1", "--workers", "1", "--max-rounds", "1", "--json", *argv]) == 0
    return list(json.loads(capsys.readouterr().out)["strategies"])


def test_simulate_without_strategy_seats_the_default_for_the_table_size(capsys):
    from clue_expert.play.players import parse_seat
    from clue_expert.play.seats import default_seat, seat_spec
    assert _simulated_seats(capsys, "--players", "3") == [seat_spec(parse_seat(default_seat(3)))]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_default_seat_follows_the_table_size(players):
    """What play and simulate seat when no strategy is named (the 5- and
    6-player games themselves are too slow for a test: the seat list is checked)."""
    from argparse import Namespace
    from clue_expert.people.cli.play import PLAY_SHOWCASE, seats_named
    from clue_expert.play.players import parse_seat
    from clue_expert.play.seats import default_seat, seat_spec
    def fresh():
        return Namespace(strategy=None, response=None, accusation=None, game="speed-clue")
    want = seat_spec(parse_seat(default_seat(players)))
    assert seats_named(fresh(), players, showcase=False) == [want]
    assert seats_named(fresh(), players, showcase=True) == [want, *PLAY_SHOWCASE]
    args = Namespace(strategy=None, response="random-card", accusation="threshold-95", game="speed-clue")
    seat, = seats_named(args, players, showcase=False)
    assert seat.split(":")[0] == default_seat(players).split(":")[0]
    assert ":response=random-card" in seat and ":accusation=threshold-95" in seat
    args = Namespace(strategy=["mitchell-basic"], response=None, accusation=None, game="speed-clue")
    assert seats_named(args, players, showcase=True) == ["mitchell-basic"]
    assert (args.response, args.accusation) == ("minimal-information", "when-certain")


def test_play_without_strategy_seats_the_default_beside_the_showcase(capsys):
    from clue_expert.play.seats import default_seat
    assert main(["play", "--players", "4", "--seed", "3", "--show", "quiet", "--no-sheets"]) == 0
    out = capsys.readouterr().out
    first = default_seat(4).split(":")[0]
    assert f"player1: strategy {first}" in out and "player2: strategy kingston-next-not-held" in out
