"""--plot (issue 15): simulate and sweep write non-trivial images (PNG size
and dimensions, SVG text), a bad target or a missing matplotlib is one error
before any game is played."""
from __future__ import annotations

import struct
import sys
from pathlib import Path

import pytest

from clue_expert.people.cli import main

pytest.importorskip("matplotlib", reason="the plot tests need pip install '.[plot]' (in the test extra)")


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    data = path.read_bytes()[:32]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


SIM = ["simulate", "--players", "3", "--games", "6", "--seed", "2", "--workers", "1",
       "--strategy", "mitchell-basic", "--strategy", "clue-expert-focused"]


def test_simulate_plot_png_and_svg(tmp_path, capsys):
    png, svg = tmp_path / "sim.png", tmp_path / "sim.svg"
    assert main([*SIM, "--plot", str(png)]) == 0
    assert f"plot written to {png}" in capsys.readouterr().out.replace("\n", "")
    width, height = png_size(png)
    assert width >= 800 and height >= 300 and png.stat().st_size > 15_000
    assert main([*SIM, "--json", "--plot", str(svg)]) == 0
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and len(text) > 20_000
    assert "clue-expert-focused" in text  # the strategies are labelled


def test_sweep_plot_folder(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text("games: 2\nlineups: [[mitchell-basic, clue-expert-focused]]\nplayers: [3, 4]\n")
    plots = tmp_path / "plots"
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "1", "--plot", str(plots)]) == 0
    names = sorted(p.name for p in plots.iterdir())
    assert names == ["heatmap-rounds.png", "heatmap-win-rate.png", "win-rates.png"]
    for p in plots.iterdir():
        width, height = png_size(p)
        assert width >= 500 and height >= 200 and p.stat().st_size > 10_000, p


def test_sweep_plot_makes_its_folders_on_a_first_run(tmp_path, monkeypatch, capsys):
    """docs/strategies.md's command, run where neither runs/ nor runs/s1 exists yet."""
    path = tmp_path / "s.yaml"
    path.write_text("games: 1\nlineups: [[mitchell-basic, clue-expert-focused]]\nplayers: [3]\n")
    monkeypatch.chdir(tmp_path)
    assert not (tmp_path / "runs").exists()
    assert main(["sweep", str(path), "--out", "runs/s1", "--workers", "1", "--plot", "runs/s1/plots",
                 "--quiet"]) == 0
    assert sorted(p.name for p in (tmp_path / "runs" / "s1" / "plots").iterdir()) == [
        "heatmap-rounds.png", "heatmap-win-rate.png", "win-rates.png"]
    assert (tmp_path / "runs" / "s1" / "results.csv").is_file()


def test_sweep_plot_under_a_file_is_one_error(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text("games: 1\nlineups: [[mitchell-basic]]\nplayers: [3]\n")
    (tmp_path / "afile").write_text("x")
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "--plot", str(tmp_path / "afile" / "plots")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a file, not a folder" in err
    assert not (tmp_path / "out").exists()  # before any game


@pytest.mark.parametrize("target, message", [("sim.gif", "cannot plot to sim.gif: use .png, .svg, .pdf"),
                                             ("no/such/sim.png", "does not exist")])
def test_bad_plot_target_fails_before_the_games(tmp_path, capsys, target, message):
    assert main([*SIM, "--plot", str(tmp_path / target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_missing_matplotlib_names_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main([*SIM, "--plot", str(tmp_path / "sim.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install "clue-expert[plot]"' in err
    assert not (tmp_path / "sim.png").exists()
