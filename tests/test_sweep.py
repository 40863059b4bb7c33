"""Sweeps (issue 15): a tiny grid gives simulate's summaries per cell, an
interrupted sweep resumed gives the same CSV (a killed write's half line
included), a bad sweep file is one error naming file, line and key."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from clue_expert.people.cli import main
from clue_expert.play import sweep as sweep_module
from clue_expert.play.simulate import make_specs, run_games, summarize
from clue_expert.play.sweep import CELLS_FILE, CSV_FILE, SweepError, load_sweep, rows, run_sweep, write_tables

TINY = """\
title: tiny
seed: 4
games: 3
lineups:
  - [mitchell-basic, clue-expert-focused]
  - name: basic-alone
    seats: [mitchell-basic]
players: [3, 4]
"""


def tiny(tmp_path, text=TINY) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(text, encoding="utf-8")
    return path


class StopAfter:
    """on_game: Ctrl-C after ``k`` games."""

    def __init__(self, k):
        self.k, self.seen = k, 0

    def __call__(self, cell, summary):
        self.seen += 1
        if self.seen == self.k:
            raise KeyboardInterrupt


def test_tiny_sweep_cells_equal_simulate(tmp_path):
    sweep = load_sweep(tiny(tmp_path))
    assert [(c.lineup, c.players) for c in sweep.cells] == [
        ("mitchell-basic + clue-expert-focused", 3), ("mitchell-basic + clue-expert-focused", 4),
        ("basic-alone", 3), ("basic-alone", 4)]
    run = run_sweep(sweep, tmp_path / "out")
    assert run.played_cells == 4 and run.skipped_cells == 0 and run.interrupted is None
    # each cell is exactly simulate's games with its options
    cell = sweep.cells[1]
    alone = summarize(run_games(make_specs(players=4, games=3, seed=4,
                                           strategies=["mitchell-basic", "clue-expert-focused"]), 1))
    assert run.finished[sweep.key(cell)]["summary"] == alone
    write_tables(tmp_path / "out", rows(sweep, run.finished))
    with open(tmp_path / "out" / CSV_FILE, encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == 2 + 2 + 1 + 1  # one row per cell and strategy
    assert table[0]["strategy"] == "mitchell-basic" and table[0]["players"] == "3" and table[0]["games"] == "3"
    assert sum(int(r["wins"]) for r in table[:2]) == 3  # every game of the cell has one winner


def test_interrupted_sweep_resumed_gives_the_same_csv(tmp_path):
    path = tiny(tmp_path)
    sweep = load_sweep(path)
    whole = run_sweep(sweep, tmp_path / "whole")
    write_tables(tmp_path / "whole", rows(sweep, whole.finished))

    # first run: Ctrl-C at the 8th game, in the third cell (the first two, 3 games each, are finished)
    part = tmp_path / "part"
    first = run_sweep(sweep, part, on_game=StopAfter(8))
    assert first.interrupted is not None and first.played_cells == 2
    # ... and a kill while the next cell's line was being written
    with open(part / CELLS_FILE, "a", encoding="utf-8") as fh:
        fh.write('{"key": "{\\"format\\": 1, \\"edi')
    played = []
    second = run_sweep(load_sweep(path), part, workers=2, on_cell=lambda i, line: played.append(i))
    assert second.skipped_cells == 2 and second.played_cells == 2 and sorted(played) == [2, 3]
    write_tables(part, rows(sweep, second.finished))
    assert (part / CSV_FILE).read_text() == (tmp_path / "whole" / CSV_FILE).read_text()
    assert len((part / CELLS_FILE).read_text().splitlines()) == 4  # the half line is gone
    # a third run plays nothing
    assert run_sweep(sweep, part).played_cells == 0


def test_sweep_command_json_resume_and_exit_130(tmp_path, monkeypatch, capsys):
    path = tiny(tmp_path, TINY.replace("players: [3, 4]", "players: [3]"))
    out = tmp_path / "out"
    real = sweep_module.run_games
    stop = StopAfter(4)

    def interrupted_run(specs, workers, progress, executor=None):  # Ctrl-C after 4 games
        def progress_then_stop(summary):
            progress(summary)
            stop(None, summary)
        return real(specs, workers, progress_then_stop, executor=executor)
    monkeypatch.setattr(sweep_module, "run_games", interrupted_run)
    monkeypatch.setenv("COLUMNS", "60")  # narrow and piped: every word kept, nothing wider
    code = main(["sweep", str(path), "--out", str(out), "--workers", "1"])
    captured = capsys.readouterr()
    assert code == 130
    assert all(len(line) <= 60 for line in captured.out.splitlines()) and "…" not in captured.out
    text = " ".join(captured.out.split())
    # stopped: a short summary (issue 39), not the finished cells' tables
    for words in ("tiny: stopped with 1 of 2 cells finished (1 played now, 0 from before); 1 left to play",
                  "run the same command again to play the other 1 cells"):
        assert words in text, words
    assert "per strategy" not in text and "cell 1 of 2" not in text
    assert len(captured.out.splitlines()) <= 12
    assert str(out / CSV_FILE) in captured.out.replace("\n", "")  # a long path folds, whole
    assert "interrupted after 1 of 2 cells; run the same command again to play the other 1" in captured.err
    monkeypatch.setattr(sweep_module, "run_games", real)
    assert main(["sweep", str(path), "--out", str(out), "--workers", "1", "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert "1 of 2 cells already finished" in captured.err
    assert [c["cell"]["lineup"] for c in result["cells"]] == ["mitchell-basic + clue-expert-focused", "basic-alone"]
    assert result["files"] == [str(out / CSV_FILE)] or str(out / "results.parquet") in result["files"]


def test_generalized_cells(tmp_path):
    sweep = load_sweep(tiny(tmp_path, "games: 2\nlineups: [clue-expert-generalized]\nplayers: 3\n"
                                      "game: generalized\nhands: [1, 2]\nhidden: 1\n"))
    assert [c.edition for c in sweep.cells] == ["pool-4-1", "pool-7-1"]
    run = run_sweep(sweep, tmp_path / "out")
    assert [line["summary"]["games"] for line in run.finished.values()] == [2, 2]


@pytest.mark.parametrize("text, message", [
    ("games: 2\nlineups:\n  - [kingston-next-not-hld]\nplayers: 3\n",
     "line 3: at lineups/0/0: unknown strategy 'kingston-next-not-hld'; did you mean kingston-next-not-held"),
    ("games: 2\nlineups: [mitchell-basic]\nplayer: 3\n", "line 1: unknown key 'player'; did you mean players?"),
    ("games: 2\nlineups: [mitchell-basic]\nplayers: [3, 11]\n",
     "line 3: at players/1: 11 is greater than the maximum of 10"),
    ("games: 2\nlineups: [mitchell-basic]\nplayers: 3\neditions: [cludo]\n",
     "line 4: at editions/0: unknown edition 'cludo'; did you mean cluedo"),
    ("games: 2\nlineups: [mitchell-basic]\nplayers: 3\nhands: 2\n", "hands are for the generalized game"),
    ("lineups: [mitchell-basic]\nplayers: 3\n", "games is missing"),
    ("games: 2\nlineups: [mitchell-basic]\nplayers: three\n", "at players: 'three' is not an integer or a list"),
    ("games: 2\nlineups: [mitchell-basic]\nplayers: [3\n", "not valid YAML (line 4)"),
])
def test_bad_sweep_file_is_one_error_naming_file_and_line(tmp_path, capsys, text, message):
    path = tiny(tmp_path, text)
    with pytest.raises(SweepError, match="^" + str(path).replace("\\", "\\\\")):
        load_sweep(path)
    assert main(["sweep", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "out").exists()  # checked before anything is written


def test_parquet_when_pyarrow_is_installed(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="Parquet is written only when pyarrow is installed")
    sweep = load_sweep(tiny(tmp_path, TINY.replace("players: [3, 4]", "players: 3").replace("games: 3", "games: 1")))
    run = run_sweep(sweep, tmp_path / "out")
    files = write_tables(tmp_path / "out", rows(sweep, run.finished))
    assert [f.name for f in files] == [CSV_FILE, "results.parquet"]
    assert pq.read_table(files[1]).num_rows == 3
