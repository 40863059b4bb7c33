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

from clue_expert.core.cards import get_edition
from clue_expert.core.deals import get_deal, random_deal
from clue_expert.core.records import load_record
from clue_expert.people.cli import _seat_label, _seat_labels, main
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
    for label, cells in COMPARISON.rows:  # a cell may wrap beside others: its words, each whole
        assert set(label.split()) <= set(text.split())
    assert {"10.33", "12.5", "5.25", "—"} <= set(text.split())


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
    assert _seat_labels([str(mine), "mitchell-fixed"]) == {str(mine): "my-greedy"}


def test_simulate_table_shows_the_ruleset_id(tmp_path, capsys, monkeypatch):
    from clue_expert.core.paths import data_dir
    src = data_dir("rules") / "strategies" / "kingston-next-not-held.yaml"
    mine = tmp_path / "my-strategy.yaml"
    mine.write_text(src.read_text(encoding="utf-8").replace("id: kingston-next-not-held", "id: my-greedy", 1),
                    encoding="utf-8")
    code, out, _ = cli(capsys, monkeypatch, 100, "simulate", "--games", "2", "--workers", "1",
                       "--strategy", str(mine), "--strategy", "mitchell-fixed")
    assert code == 0 and "my-greedy" in out and str(mine) not in out.replace("\n", "")
