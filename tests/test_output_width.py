"""Output is never cut: terminal output fits the width, piped and exported
output keeps every word (issue 14).  Rendered at a fixed width and at
narrow ones, through the CLI and through the views."""
from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from clue_expert.core.cards import editions, get_edition
from clue_expert.core.deals import get_deal, random_deal
from clue_expert.core.records import load_record
from clue_expert.people.cli import main
from clue_expert.people.cli.play import _seat_label, seat_labels
from clue_expert.people.render import ComparisonView, EditionsView, Fit, StepView, make_console
from clue_expert.people.replay import steps
from clue_expert.play.reproduce import Comparison

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
K1 = str(EXAMPLES / "kingston-1-player1.yaml")
BOX = re.compile(r"[│┃╭╮╰╯─━┏┓┗┛┡┩┳┻╇┠┨┃├└┬┴┼╷╵┌┐┘]")


def flat(text: str) -> str:
    """The words of rendered output in order, borders and line breaks gone."""
    return " ".join(BOX.sub(" ", text).split())


def words(text: str) -> str:
    return " ".join(text.split())


def render(obj, width: int) -> str:
    buf = io.StringIO()
    make_console(width=width, color=False, file=buf).print(obj)
    return buf.getvalue()


def fits(text: str, width: int) -> bool:
    return all(len(line) <= width for line in text.splitlines())


def cli(capsys, monkeypatch, width, *argv):
    monkeypatch.setenv("COLUMNS", str(width))
    code = main(["--version"] if not argv else list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ replay
def test_replay_piped_at_60_keeps_every_turn():
    env = {**os.environ, "COLUMNS": "60"}
    out = subprocess.run([sys.executable, "-m", "clue_expert", "replay", K1, "--all"], env=env,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert "…" not in out and fits(out, 60)
    text = flat(out)
    for step in steps(load_record(K1)):
        assert words(step.observation) in text, step.observation


@pytest.mark.parametrize("width", [40, 80, 110])
def test_step_view_title_never_cut(width):
    record = load_record(K1)
    for step in list(steps(record))[:4]:
        out = render(StepView(step, record.edition), width)
        assert fits(out, width) and "…" not in out
        assert words(step.observation) in flat(out)


def test_replay_export_html_keeps_every_turn(tmp_path, capsys):
    path = tmp_path / "lesson.html"
    assert main(["replay", K1, "--export", str(path)]) == 0
    html = re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")).replace("&#x27;", "'").replace("&amp;", "&")
    text = flat(html)
    for step in steps(load_record(K1)):
        assert words(step.observation) in text, step.observation


# --------------------------------------------------------------- reproduce
COMPARISON = Comparison(
    "Kingston Table 1, 3 players: rounds until any player can name the envelope",
    ["deal-1", "deal-2", "deal-3", "deal-4", "deal-5", "all"],
    rows=[("kingston-next-not-held (with complete deduction)", [(5, 5.0)] * 5 + [(5.25, None)]),
          ("kingston-previous-possible", [(10.33, 12.5)] * 6)],
    notes=["ours: every seat runs the strategy at the knowledge level 'kingston'; responses "
           "'minimal-information', one game per deal",
           "'all': ours is the mean over a seeded random sample (seed 1) of 36 of the 324 envelope variants of "
           "deal 1 (Kingston's generator swaps the new envelope cards into the hands)"])


@pytest.mark.parametrize("width", [40, 60, 80, 100, 120, 200])
def test_comparison_keeps_title_notes_and_cells(width):
    out = render(ComparisonView(COMPARISON), width)
    assert fits(out, width) and "…" not in out
    text = flat(out)
    for note in COMPARISON.notes:
        assert words(note) in text
    assert words(COMPARISON.title) in text
    for label, _cells in COMPARISON.rows:  # a cell may wrap beside others: its words, each whole
        assert set(label.split()) <= set(text.split())
    assert {"10.33", "12.5", "5.25", "—"} <= set(text.split())



@pytest.mark.parametrize("width", [40, 80, 200])
def test_comparison_with_a_calibrated_column_shows_it_headed_and_flagged(width):
    """The calibrated column is a third figure per cell, headed as such, and
    a flagged cell's reason is a line under the table."""
    from dataclasses import replace
    table = replace(COMPARISON, calibrated={"kingston-previous-possible": [7.5] * 5 + [None]},
                    calibrated_heading="cal. (calibrated, not his text)",
                    flags={("kingston-previous-possible", "all"): "not played: a reason of one line"})
    out = render(ComparisonView(table), width)
    assert fits(out, width) and "…" not in out
    text = flat(out)
    assert "cal. (calibrated, not his text)" in text and "7.5" in text.split()
    assert "† kingston-previous-possible, all: not played: a reason of one line" in text
    assert "7.5" not in flat(render(ComparisonView(COMPARISON), width)).split()

@pytest.mark.slow  # a long run (the slow tier runs it in .ci/run)
def test_reproduce_small_run_piped(capsys, monkeypatch):
    code, out, _ = cli(capsys, monkeypatch, 80, "reproduce", "kingston", "--envelopes", "0", "--no-beside",
                       "--seeds", "2", "--workers", "1")
    assert code == 0 and "…" not in out and fits(out, 80)
    assert "'all': not computed (use --envelopes N)" in flat(out)
    assert "over 2 seeds" in flat(out) and "published cells of the main rows inside our 10-90 % range" in flat(out)


# ----------------------------------------------------------- deduce and why
@pytest.mark.parametrize("width", [40, 120])
def test_deduce_fits_and_keeps_words(capsys, monkeypatch, width):
    code, out, _ = cli(capsys, monkeypatch, width, "deduce", K1, "--probabilities", "--model", "pattern-analysis")
    assert code == 0
    assert "…" not in out and fits(out, width)
    text = flat(out)
    assert "Envelope — suspect: prof-plum, weapon: lead-pipe, room: hall" in text
    assert "player1's sheet after turn 16" in text
    assert "envelope entropy" in text


@pytest.mark.parametrize("width", [40, 120])
def test_deduce_two_records_rule_title_kept(capsys, monkeypatch, width):
    code, out, _ = cli(capsys, monkeypatch, width, "deduce", K1, K1)
    assert code == 0 and "…" not in out and fits(out, width)
    assert K1 in out.replace("\n", "")


@pytest.mark.parametrize("width", [40, 120])
def test_why_fits_and_keeps_words(capsys, monkeypatch, width):
    code, out, _ = cli(capsys, monkeypatch, width, "why", K1, "envelope holds hall")
    assert code == 0
    # (the "rests on:" line is printed in two parts by cmd_why, so its first line may run past the width)
    assert "…" not in out and fits(out.split("rests on:")[0], width)
    assert "no player holds hall, so it is in the envelope" in flat(out)


# ------------------------------------------------------------------ tables
def test_fit_lists_a_table_too_wide_for_the_width():
    from rich.table import Table
    table = Table(title="a table with many columns", caption="every word of the caption")
    for i in range(12):
        table.add_column(f"column-{i}")
    table.add_row(*[f"value-{i}" for i in range(12)])
    out = render(Fit(table), 40)
    assert fits(out, 40) and "…" not in out
    assert "column-11: value-11" in out and "every word of the caption" in out
    wide = render(Fit(table), 200)
    assert "┃ column-0" in wide or "column-0 ┃" in wide or "column-0" in wide.splitlines()[2]


def test_editions_show_aliases(capsys, monkeypatch):
    code, out, _ = cli(capsys, monkeypatch, 200, "editions")
    assert code == 0 and "aliases" in out
    cluedo = get_edition("cluedo")
    assert cluedo.aliases and all(a in flat(out) for a in cluedo.aliases)
    narrow = render(EditionsView([cluedo]), 40)
    assert fits(narrow, 40) and "…" not in narrow and all(a in flat(narrow) for a in cluedo.aliases)


# ------------------------------------------------------------------ deduce --turn
def test_deduce_turn_past_the_record_is_an_error(capsys):
    code = main(["deduce", "--turn", "99", K1])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "16 turns" in err and "--turn 99" in err
    assert main(["deduce", "--turn", "16", K1]) == 0


# ------------------------------------------------------------------ play --human
def _human_envelope(capsys, monkeypatch, *argv) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--human", "zoe", "--no-color", *argv]) == 0
    out = capsys.readouterr().out
    return re.search(r"the envelope was ([^.]+)\.", out).group(1)


def test_human_game_is_a_random_deal(capsys, monkeypatch):
    players = ("player1", "player2", "player3")
    seeded = random_deal(get_edition("cluedo"), players, random.Random(5)).envelope
    assert _human_envelope(capsys, monkeypatch, "--seed", "5") == ", ".join(seeded)
    monkeypatch.setattr(random.SystemRandom, "randrange", lambda self, n: 5)
    assert _human_envelope(capsys, monkeypatch) == ", ".join(seeded)
    fixed = get_deal("kingston-1-3p")
    assert _human_envelope(capsys, monkeypatch, "--deal", "kingston-1-3p") == ", ".join(fixed.envelope)


# ------------------------------------------------------------------ labels
def test_rule_file_paths_are_labelled_by_their_id(tmp_path):
    from clue_expert.core.paths import data_dir
    src = data_dir("rules") / "strategies" / "kingston-next-not-held.yaml"
    mine = tmp_path / "my-strategy.yaml"
    mine.write_text(src.read_text(encoding="utf-8").replace("id: kingston-next-not-held", "id: my-greedy", 1),
                    encoding="utf-8")
    assert _seat_label(str(mine)) == "my-greedy"
    assert _seat_label(f"{mine}:knowledge=kingston") == "my-greedy:knowledge=kingston"
    assert _seat_label("mitchell-fixed") == "mitchell-fixed"
    assert seat_labels([str(mine), "mitchell-fixed"]) == {str(mine): "my-greedy"}


def test_simulate_table_shows_the_ruleset_id(tmp_path, capsys, monkeypatch):
    from clue_expert.core.paths import data_dir
    src = data_dir("rules") / "strategies" / "kingston-next-not-held.yaml"
    mine = tmp_path / "my-strategy.yaml"
    mine.write_text(src.read_text(encoding="utf-8").replace("id: kingston-next-not-held", "id: my-greedy", 1),
                    encoding="utf-8")
    code, out, _ = cli(capsys, monkeypatch, 100, "simulate", "--games", "2", "--workers", "1",
                       "--strategy", str(mine), "--strategy", "mitchell-fixed")
    assert code == 0 and "my-greedy" in out and str(mine) not in out.replace("\n", "")


# ------------------------------------------------------- piped: not wrapped (issue 28)
def _piped(*argv, columns: str | None = None, quiet: bool = False):
    """The CLI in a subprocess, stdout and stderr pipes, COLUMNS unset unless given."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns is not None:
        env["COLUMNS"] = columns
    return subprocess.run([sys.executable, "-m", "clue_expert", *argv], env=env, capture_output=True, text=True,
                          timeout=300)


def test_piped_play_keeps_each_line_whole():
    """Piped without COLUMNS: each event, decision and deduction is one line, however long."""
    proc = _piped("play", "--seed", "3", "--no-color")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) > 100  # nothing was wrapped at 80
    events = [line for line in lines if re.match(r"turn +\d+  ", line)]
    assert len(events) >= 3 and all(" suggests " in line and ("shows" in line or "nobody" in line)
                                    for line in events if "accuses" not in line)
    reasons = [line for line in lines if re.match(r" {10}player\d \[", line)]
    assert reasons and all(not re.match(r" {11,}\S", line) for line in lines if "final sheet" not in line)  # no continuation line
    rules = [line for line in lines if line.startswith("─")]
    assert rules and all(len(line) == 80 for line in rules)
    assert proc.stderr == ""


def test_piped_replay_keeps_every_word_on_its_line():
    proc = _piped("replay", K1, "--all", "--no-color")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "…" not in out
    for step in steps(load_record(K1)):
        assert any(step.observation in line for line in out.splitlines()), step.observation
        for f in step.firings:  # every firing line whole, on one line
            assert any(f.rule in line and f.message in line for line in out.splitlines()), f.message


@pytest.mark.slow  # .ci/run's slow tier; the default run: replay piped at COLUMNS=60 (above), the indent (below)
def test_columns_still_wraps_piped_output_with_a_hanging_indent():
    proc = _piped("play", "--seed", "3", "--no-color", columns="60")
    assert proc.returncode == 0 and fits(proc.stdout, 60)
    lines = proc.stdout.splitlines()
    for i, line in enumerate(lines):  # a decision line's continuation is indented 4 more than its first line
        if re.match(r" {10}player\d \[", line) and i + 1 < len(lines) and re.match(r" {14}\S", lines[i + 1]):
            break
    else:
        pytest.fail("no wrapped decision line with a hanging indent")
    unpiped = _piped("play", "--seed", "3", "--no-color")
    assert flat(proc.stdout) == flat(unpiped.stdout)  # the same words in the same order


@pytest.mark.parametrize("width", [30, 47, 80])
def test_hanging_indent_keeps_every_word(width):
    from rich.text import Text
    text = Text("  player1: strategy clue-expert-focused, holds green, revolver, conservatory, lead-pipe, "
                "white, library, and a last word")
    out = render(text, width)
    lines = out.splitlines()
    assert len(lines) > 1 and fits(out, width)
    assert all(line.startswith(" " * 6) and not line.startswith(" " * 7) for line in lines[1:])
    assert out.split() == text.plain.split()  # every word whole, in order
    path = Text("results in /a/very/long/path/that/cannot/fit/on/one/line/of/this/console/results.csv, done")
    folded = render(path, 30)
    assert fits(folded, 30) and "/a/very/long/path/that/cannot/fit/on/one/line/of/this/console/results.csv," \
        in folded.replace("\n", "")  # too long to hang: folded whole


@pytest.mark.parametrize("width", [40, 60, 80, 81, 100, 200])
def test_table_headers_never_split_inside_a_word(width):
    out = render(EditionsView(get_edition(e) for e in ("clue", "cluedo", "master-detective", "dr-orchid")), width)
    assert fits(out, width) and "…" not in out
    tokens = {t.rstrip(":") for t in BOX.sub(" ", out).split()}
    assert {"categories", "aliases", "envelope"} <= tokens  # whole, as a table's header or a list's label
    assert not {"categori", "categorie", "envelop"} & tokens


def test_editions_at_80_columns_is_a_table_without_split_words():
    """Issue 28: at 80 columns the header read "categori / es"; the table now leaves out its outer edge."""
    out = render(EditionsView(list(editions().values())), 80)
    assert "┃" in out and fits(out, 80)  # a table
    assert "categories" in BOX.sub(" ", out).split() and "categori" not in BOX.sub(" ", out).split()


# ------------------------------------------------------- progress lines (issue 28)
def test_piped_progress_lines_on_stderr_only():
    proc = _piped("simulate", "--games", "3", "--workers", "1", "--strategy", "mitchell-basic", "--json")
    assert proc.returncode == 0, proc.stderr
    json_out = __import__("json").loads(proc.stdout)  # stdout is the JSON alone
    assert json_out["games"] == 3
    lines = proc.stderr.splitlines()
    assert lines[0] == "simulate: 0 of 3 games, 0 s"
    assert re.fullmatch(r"simulate: 3 of 3 games, done in \d+ s", lines[-1])
    quiet = _piped("simulate", "--games", "3", "--workers", "1", "--strategy", "mitchell-basic", "--json",
                   "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == proc.stdout


def test_progress_lines_every_step_when_the_interval_is_zero(capsys, monkeypatch):
    """The interval between two lines is a setting: at 0 every game gets its line (a count, not a time)."""
    monkeypatch.setattr("clue_expert.people.render.PROGRESS_EVERY", 0.0)
    assert main(["simulate", "--games", "4", "--workers", "1", "--strategy", "mitchell-basic", "--no-color"]) == 0
    out, err = capsys.readouterr()
    counts = [int(m.group(1)) for m in re.finditer(r"^simulate: (\d+) of 4 games", err, re.M)]
    assert counts == [0, 1, 2, 3, 4, 4]
    assert "simulate:" not in out and "Simulation: 4 games" in out


def test_progress_lines_say_when_the_first_game_is_done(capsys, monkeypatch):
    """A log shows the first finished game at once, not only after the interval."""
    monkeypatch.setattr("clue_expert.people.render.PROGRESS_EVERY", 3600.0)
    assert main(["simulate", "--games", "3", "--workers", "1", "--strategy", "mitchell-basic", "--no-color"]) == 0
    err = capsys.readouterr().err
    assert [int(m.group(1)) for m in re.finditer(r"^simulate: (\d+) of 3 games", err, re.M)] == [0, 1, 3]


@pytest.mark.parametrize("argv, label", [
    pytest.param(["reproduce", "kingston", "--envelopes", "0", "--seeds", "2", "--no-beside", "--workers", "1",
                  "--json"], "reproduce kingston", marks=pytest.mark.slow),
    (["puzzle", "--seed", "3", "--json"], "puzzle (medium)"),
])
def test_long_commands_say_how_far_they_are(capsys, argv, label):
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert err.startswith(f"{label}: 0 ") and re.search(rf"^{re.escape(label)}: \d+ .*done in \d+ s$", err, re.M)
    assert label not in out
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_sweep_progress_lines(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text("games: 2\nlineups: [[mitchell-basic]]\nplayers: [3, 4]\n")
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "1", "--no-color"]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[0] == "sweep of 2 cells: 0 of 4 games, 0 s"
    assert sum(line.startswith("sweep: done: ") for line in lines) == 2
    assert re.fullmatch(r"sweep of 2 cells: 4 of 4 games, done in \d+ s", lines[-1])
    assert "sweep" not in out.split("\n")[0] or "sweep:" not in out
