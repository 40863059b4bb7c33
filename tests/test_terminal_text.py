"""Issue 25: control characters in an edition's names and a rule file's
titles and messages reach the terminal escaped; player names that look alike
(Unicode's confusables: a Cyrillic homoglyph) are refused, naming the name they
collide with."""
from __future__ import annotations

import yaml

from clue_expert.core.facts import player_name_problem
from clue_expert.core.text import looks_alike, visible
from clue_expert.people.cli import main

ESC = "\x1b[2J\x1b[31m"  # clear the screen, then red


def test_visible_escapes_what_a_terminal_acts_on():
    assert visible("rope") == "rope"
    assert visible(f"a{ESC}b\u202ec\x00\x7f\x9b") == "a\\x1b[2J\\x1b[31mb\\u202ec\\x00\\x7f\\x9b"
    assert visible("two\nlines", keep_newlines=True) == "two\nlines"


def test_look_alike_player_names_are_refused_naming_the_other():
    problem = player_name_problem(["ann", "Bob", "B\u043eb"])  # a Cyrillic o
    assert problem is not None and "'Bob'" in problem and "look alike" in problem
    assert player_name_problem(["ann", "\u0430nn"]) is not None  # a Cyrillic a
    assert player_name_problem(["player1", "player2", "player10"]) is None
    assert looks_alike("Ålice", "alice") and looks_alike("mark", "rnark") and looks_alike("Joe", "J0e")
    assert not looks_alike("Ann", "Anne") and not looks_alike("player1", "player10")
    assert player_name_problem(["Carl", "Cаrl"]) is not None  # a Cyrillic a, mid-word
    assert player_name_problem(["mark", "rnark"]) is not None


def test_a_record_with_a_homoglyph_player_is_one_error(tmp_path, capsys):
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump({"edition": "cluedo", "players": ["ann", "Bob", "B\u043eb"], "me": "ann",
                                    "hand": ["plum", "rope", "hall", "study", "knife", "green"], "turns": []},
                                   allow_unicode=True))
    assert main(["deduce", str(path)]) == 2
    err = capsys.readouterr().err
    assert "look alike" in err and "'Bob'" in err


def test_edition_names_reach_the_terminal_escaped(tmp_path, capsys):
    edition = tmp_path / "esc.yaml"
    edition.write_text(yaml.safe_dump({
        "id": "esc", "name": f"Esc{ESC}", "envelope": {"who": 1, "what": 1},
        "categories": {"who": [{"id": "red", "name": f"Red{ESC}"}, "blue", "green"],
                       "what": ["knife", "rope", "gun"]}}))
    record = tmp_path / "r.yaml"
    record.write_text(yaml.safe_dump({"edition": str(edition), "players": ["ann", "bob"], "me": "ann",
                                      "hand": ["red", "knife"], "turns": []}))
    assert main(["deduce", str(record), "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b" in out


def test_rule_titles_and_messages_reach_the_terminal_escaped(tmp_path, capsys):
    path = tmp_path / "loud.yaml"
    path.write_text(yaml.safe_dump({
        "id": "loud", "title": f"Loud{ESC}", "kind": "response",
        "rules": [{"id": "show-first", "message": f"shows{ESC} the first", "when": "disprove-request",
                   "then": [{"show": "matching"}]}]}))
    assert main(["rules", str(path), "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b" in out
