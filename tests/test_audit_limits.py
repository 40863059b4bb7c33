"""Issue 25's audit re-run from outside (benchmarks/audit.py): the classes it
found still open, each closed by a limit counted in work, never in time --
the joins of ``match:`` rules over a whole game or record, and the size of a
game the machine plays by itself."""
from __future__ import annotations

import pytest
import yaml

from clue_expert.core.cards import build_edition, get_edition
from clue_expert.core.errors import ClueError
from clue_expert.engine.seat import interpret
from clue_expert.people.cli import main
from clue_expert.play import simulate
from clue_expert.testing.samples import costly_strategy

HAND = ("scarlett", "rope", "hall", "lounge", "dagger", "plum")
TRIPLES = [(s, w, r) for s in ("mustard", "white", "green") for w in ("candlestick", "spanner", "pipe")
           for r in ("kitchen", "ballroom", "study")]


def joins(tmp_path):
    path = tmp_path / "joins.yaml"
    path.write_text(yaml.safe_dump({
        "id": "joins", "title": "joins",
        "rules": [{"id": "join3", "message": "{a} {b} {c}",
                   "match": [{"one-of": {"owner": "o", "cards": "a"}}, {"one-of": {"owner": "o", "cards": "b"}},
                             {"one-of": {"owner": "o", "cards": "c"}}],
                   "then": [{"one-of": ["o", "a"]}]}]}))
    return path


def record(tmp_path, turns):
    path = tmp_path / "shows.yaml"
    path.write_text(yaml.safe_dump({
        "edition": "cluedo", "players": ["ann", "bob", "cat"], "me": "ann", "hand": list(HAND),
        "turns": [{"by": "cat", "suggest": list(TRIPLES[i % len(TRIPLES)]), "passed": ["ann"], "shown_by": "bob"}
                  for i in range(turns)]}))
    return path


def counting(monkeypatch):
    made = []
    real = interpret.RuleInterpreter._count_match
    monkeypatch.setattr(interpret.RuleInterpreter, "_count_match", lambda self, r: made.append(1) or real(self, r))
    return made


def test_the_joins_of_a_record_are_counted_over_all_its_observations(tmp_path, capsys, monkeypatch):
    made = counting(monkeypatch)
    rules, path = joins(tmp_path), record(tmp_path, 27)
    assert main(["deduce", "--no-complete", "--rules", str(rules), str(path)]) == 0  # no run over the per-run limit
    assert len(made) > 5_000
    made.clear()
    capsys.readouterr()
    monkeypatch.setattr(interpret, "MAX_GAME_MATCHES", 500)
    assert main(["deduce", "--no-complete", "--rules", str(rules), str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {rules}: rule 'join3': match: the rules' joins made over "
                                               f"500 matches in this game or record"), err
    assert len(made) == 501


def test_the_count_starts_again_with_each_knowledge(tmp_path, monkeypatch):
    made = counting(monkeypatch)
    rules, path = joins(tmp_path), record(tmp_path, 4)
    assert main(["deduce", "--no-complete", "--rules", str(rules), str(path)]) == 0
    once = len(made)
    monkeypatch.setattr(interpret, "MAX_GAME_MATCHES", once)
    assert main(["deduce", "--no-complete", "--rules", str(rules), str(path), str(path)]) == 0  # two records
    assert len(made) == 3 * once


# --- the size of a game played here ------------------------------------------------------
def test_a_game_over_the_cell_limit_is_refused_before_it_starts(tmp_path, capsys, monkeypatch):
    played = []
    monkeypatch.setattr(simulate, "play_one", lambda spec: played.append(spec))
    edition = tmp_path / "wide.yaml"
    edition.write_text(yaml.safe_dump({"id": "wide", "name": "wide",
                                       "categories": {f"c{i}": [f"k{i}x{j}" for j in range(10)] for i in range(40)}}))
    assert main(["simulate", "--edition", str(edition), "--players", "10", "--games", "1", "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(edition) in err[0], err
    assert "400 cards x 11 owners = 4,400 cells, more than the limit of 1,000 cells" in err[0]
    assert played == []


def test_every_shipped_game_is_inside_the_cell_limit():
    for name in ("cluedo", "master-detective"):
        simulate.check_players(10, get_edition(name))  # 330 cells at most
    simulate.check_players(10, get_edition("pool-32-2"))  # the generalized game's default pool at 10 players
    with pytest.raises(ClueError, match="1,100 cells"):
        simulate.check_players(10, build_edition("e", {f"c{i}": [f"k{i}x{j}" for j in range(10)] for i in range(10)}))


# --- a costly request and a large board stop on counted work ---------------------------------
def test_value_iteration_on_a_200_square_board_names_the_board_file(tmp_path, monkeypatch):
    from clue_expert.core import work
    from clue_expert.core.board import load_board_file
    from clue_expert.engine.language import expr
    from clue_expert.engine.reasoning import planning
    rows = ["123456" + "." * 194] + ["." * 200 for _ in range(196)]
    rows += ["".join(f"{c}^#" for c in "SHOLIDCBK").ljust(200, "."), *["".join(f"{c}{c}#" for c in "SHOLIDCBK")
                                                                      .ljust(200, "#")] * 2]
    path = tmp_path / "huge.yaml"
    path.write_text(yaml.safe_dump({
        "id": "huge", "name": "huge", "edition": "clue", "dice": 2, "map": "\n".join(rows) + "\n",
        "legend": {"hallway": ".", "wall": "#",
                   "rooms": dict(zip("SHOLIDCBK", ["study", "hall", "lounge", "library", "billiard-room",
                                                   "dining-room", "conservatory", "ballroom", "kitchen"])),
                   "doors": {"^": "north"},
                   "starts": dict(zip("123456", ["scarlet", "mustard", "white", "green", "peacock", "plum"]))}}))
    board = load_board_file(path)
    monkeypatch.setattr(planning, "MAX_SWEEP_WORK", 200_000)  # the real limit, 2,000,000, takes 2 s here
    budget = expr.Budget()
    with pytest.raises(expr.LimitError, match=f"value iteration on board {path} needs more than 200,000 square"), \
            work.metered(budget):
        planning.value_iteration(board, {r: 1.0 for r in board.rooms})
    assert budget.work <= 200_000  # refused before the sweep that would pass the limit


@pytest.mark.slow
def test_a_request_valuing_every_suggestion_twice_stops_at_the_work_limit(tmp_path, monkeypatch):
    """The audit's costly-library-call case: about 120,000,000 units of the
    exact beliefs' work in one request; past RUN_WORK (50,000,000) the
    beliefs stop and the sheet's estimate answers (the game goes on)."""
    from clue_expert.engine.language import expr
    path = tmp_path / "costly.yaml"
    path.write_text(yaml.safe_dump(costly_strategy()))
    budgets = []
    real = expr.Budget.start_run
    monkeypatch.setattr(expr.Budget, "start_run", lambda self: budgets.append(getattr(self, "work", 0)) or real(self))
    # the work limit, not the request's wall-clock deadline (10 s), must stop it: on a loaded machine the
    # deadline came first (21,914,230 units)
    monkeypatch.setattr(expr, "RUN_SECONDS", 600.0)
    assert main(["play", "--strategy", str(path), *["--strategy", "mitchell-basic"] * 4, "--players", "5", "--seed", "1",
                 "--max-rounds", "1", "--show", "quiet", "--no-sheets"]) == 0  # played, on the estimate
    spent = max(budgets)
    assert expr.RUN_WORK <= spent <= expr.RUN_WORK + 5_000_000  # the request stopped at its work limit


# --- an interrupt dropped inside a game (a C callback printed it) still stops the run ---------------
def test_an_interrupt_dropped_in_a_game_stops_the_in_process_run(monkeypatch):
    import signal

    played = []
    real = simulate.play_one

    def play(spec):
        played.append(spec.index)
        if spec.index == 2:  # the handler ran, but its KeyboardInterrupt was swallowed by a callback
            simulate.stop_asked(signal.SIGINT)
        return real(spec)
    monkeypatch.setattr(simulate, "play_one", play)
    specs = simulate.make_specs(players=3, games=10, seed=1, strategies=["mitchell-basic"])
    with pytest.raises(simulate.Interrupted) as info:
        simulate.run_games(specs, workers=1)
    assert played == [0, 1, 2]  # no game after the one the interrupt came in
    assert [s.index for s in info.value.results] == [0, 1]  # that game is not counted
    assert simulate.STOP_ASKED == []  # acted on: the next run plays
    assert len(simulate.run_games(specs[:2] if isinstance(specs, list) else list(specs)[:2], workers=1)) == 2


def test_pysats_own_ctrl_c_error_is_a_keyboard_interrupt():
    import pycard  # PySAT's cardinality encodings: its C code raises pycard.error on SIGINT

    from clue_expert.engine.reasoning import backbone
    with pytest.raises(KeyboardInterrupt), backbone._ctrl_c():
        raise pycard.error("Caught keyboard interrupt")
    with pytest.raises(pycard.error, match="something else"), backbone._ctrl_c():
        raise pycard.error("something else")
    model = backbone.SatModel(["a", "envelope"], ["x", "y"], {"k": ["x", "y"]}, {"a": 1}, "envelope")
    assert isinstance(model.solver, backbone._Minicard)


def test_an_interrupt_in_a_finalizer_is_noted_not_raised(monkeypatch):
    import signal
    import sys

    simulate.STOP_ASKED.clear()

    class Holder:
        def __del__(self):
            simulate.interrupt(signal.SIGINT, sys._getframe())  # as if SIGINT came in here

    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", dropped.append)  # what prints "Exception ignored in ..."
    Holder()  # collected at once
    assert dropped == [] and simulate.STOP_ASKED == [signal.SIGINT]
    with pytest.raises(KeyboardInterrupt):
        simulate.interrupt(signal.SIGINT, sys._getframe())
    simulate.STOP_ASKED.clear()


def test_a_clips_environment_is_made_with_ctrl_c_held_back(monkeypatch):
    import os
    import signal

    import clips

    from clue_expert.engine.engines import clips as adapter
    real, inside = clips.Environment, []

    def environment():
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while clipspy builds the environment
        inside.append("went on")  # not reached if the interrupt were raised here
        return real()
    monkeypatch.setattr(adapter.clips, "Environment", environment)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            adapter._new_environment()  # raised once the environment is whole
    finally:
        signal.signal(signal.SIGINT, old)
    assert inside == ["went on"]
