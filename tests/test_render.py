"""Rendered output on a fixed-width, colourless console."""
from __future__ import annotations

import io
from pathlib import Path

from clue_expert.core.records import load_record
from clue_expert.engine.knowledge import replay_record as replay
from clue_expert.people.render import ExplanationView, RulesView, SheetView, make_console
from clue_expert.engine.rules import default_rulesets

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
