"""docs/rule-functions.md, the reference of every rule function, is
generated (`clue-expert rules --functions`) and complete."""
from __future__ import annotations

from pathlib import Path

from clue_expert.engine.library import DESCRIPTIONS, FUNCTIONS
from clue_expert.engine.language.reference import function_reference, signature
from clue_expert.people.cli import main

PAGE = Path(__file__).resolve().parent.parent / "docs" / "rule-functions.md"


def test_the_page_is_what_the_command_prints(capsys):
    assert main(["rules", "--functions"]) == 0
    printed = capsys.readouterr().out
    assert printed == function_reference()
    assert PAGE.read_text(encoding="utf-8") == printed, \
        "docs/rule-functions.md is out of date: run clue-expert rules --functions > docs/rule-functions.md"


def test_every_rule_function_is_on_the_page():
    page = PAGE.read_text(encoding="utf-8")
    public = [n for n in FUNCTIONS if not n.startswith("_")]
    missing = [n for n in public if f"| `{signature(n, FUNCTIONS[n])}` |" not in page]
    assert not missing, missing
    assert f"{len(public)} functions." in page
    assert all(DESCRIPTIONS[n].replace("|", "\\|") in page for n in public)


def test_a_new_function_would_be_missing_until_regenerated():
    def shiny(k, card, extra=3):
        return card
    page = function_reference({**FUNCTIONS, "shiny": shiny}, {**DESCRIPTIONS, "shiny": "a new function"})
    assert "| `shiny(card, extra=3)` | `card`: a card | a new function |" in page
    assert page != PAGE.read_text(encoding="utf-8")
