"""Rendered output on a fixed-width, colourless console."""
from __future__ import annotations

import io
from pathlib import Path

from clue_expert.core.records import load_record
from clue_expert.engine.seat.knowledge import replay_record as replay
from clue_expert.people.render import ExplanationView, RulesView, SheetView, make_console
from clue_expert.engine.language.rules import default_rulesets

EX = Path(__file__).resolve().parent.parent / "docs" / "examples" / "three-players.yaml"


def render(obj, width=100):
    buf = io.StringIO()
    console = make_console(width=width, color=False, file=buf)
    console.print(obj)
    return buf.getvalue()


def test_sheet_marks_without_colour():
    r = load_record(EX)
    k = replay(r)
    text = render(SheetView(k.sheet(), r.edition))
    assert "\x1b[" not in text
    row = next(line for line in text.splitlines() if "Rope" in line)
    assert row.count("✓") == 1 and row.count("✗") == 3
    assert "Envelope — suspect: mustard, weapon: candlestick, room: kitchen" in text
    assert "ann's sheet after turn 4" in text


def test_explanation_tree():
    k = replay(load_record(EX))
    text = render(ExplanationView(k.explain(("lacked", "bob", "rope"))))
    lines = text.splitlines()
    assert lines[0].startswith("bob lacks rope  [holder-excludes-other-owners]")
    assert "└── ann holds rope  [record-own-hand]" in text
    assert "[observed]" in text


def test_rules_table():
    text = render(RulesView(default_rulesets()), width=160)
    assert "holder-excludes-other-owners" in text and "Deduction rules" in text


def test_sheet_too_wide_is_listed_whole():
    r = load_record(EX)
    k = replay(r)
    narrow = render(SheetView(k.sheet(), r.edition), width=20)
    assert "…" not in narrow and all(len(line) <= 20 for line in narrow.splitlines())
    assert "Rope" in narrow and "bob: ✗" in narrow
    wide = render(SheetView(k.sheet(), r.edition), width=100)
    row = next(line for line in wide.splitlines() if "Rope" in line)
    assert row.count("✓") == 1


def test_piped_console_does_not_wrap(monkeypatch):
    """Not a terminal and no COLUMNS: no line is wrapped, a rule is 80 wide, a table takes its natural width."""
    monkeypatch.delenv("COLUMNS", raising=False)
    buf = io.StringIO()
    console = make_console(color=False, file=buf)
    long = "word " * 60
    console.print(long.strip())
    console.rule("round 1")
    r = load_record(EX)
    console.print(SheetView(replay(r).sheet(), r.edition))
    lines = buf.getvalue().splitlines()
    assert lines[0] == long.strip()
    assert len(lines[1]) == 80 and "round 1" in lines[1]
    assert max(len(line) for line in lines[2:]) < 80  # the sheet is not stretched to the console's width


def test_fixed_width_console_wraps_with_a_hanging_indent():
    text = render("turn 1: " + "word " * 30, width=40)
    lines = text.splitlines()
    assert all(len(line) <= 40 for line in lines) and len(lines) > 2
    assert all(line.startswith("    word") for line in lines[1:])
    narrow = render("  " + "word " * 10, width=12)
    assert all(line.startswith("      word") for line in narrow.splitlines()[1:])  # 2 + 4, at most half of 12
