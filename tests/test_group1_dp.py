"""reproduce group1-dp: group 1's two-player interrogation table (CS4444
report, appendix A) recomputed exactly and compared cell by cell."""
from __future__ import annotations

import json
import re
from fractions import Fraction

from clue_expert.people.cli import main
from clue_expert.play.group1_dp import (Cell, alpha, cells, group1_dp, group1_dp_tables, java_number,
                                        published_cells, solve, tied_cells)

BOX = re.compile(r"[│┃─━┏┓┗┛┡┩┳┻╇└┘┴┬┼├┤┌┐]")


def test_the_published_table_is_all_there():
    pub = published_cells()
    assert sorted(pub) == [(p, q) for p in range(1, 11) for q in range(1, 11)]
    # a few cells read off the printed table
    assert pub[(1, 1)] == "1.0/1" and pub[(2, 1)] == "1.667/1" and pub[(6, 3)] == "5.592/2"
    assert pub[(7, 2)] == "5.981/1" and pub[(10, 5)] == "9.81/3" and pub[(10, 10)] == "9.971/8"


def test_every_cell_matches_the_published_table():
    ours = solve()
    pub = published_cells()
    assert {key: ours[key].printed for key in pub} == pub
    out = cells()
    assert len(out) == 100 and all(c["match"] for c in out)


def test_cli_json_lists_the_cells(capsys):
    assert main(["reproduce", "group1-dp", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out) == 100
    assert all(set(c) == {"p", "q", "expected", "ask", "ties", "published", "match"} for c in out)
    assert sum(c["match"] for c in out) == 100
    first = out[0]
    assert first == {"p": 1, "q": 1, "expected": 1.0, "ask": 1, "ties": [1, 2], "published": "1.0/1",
                     "match": True}
    cell = next(c for c in out if (c["p"], c["q"]) == (6, 3))
    assert cell["expected"] == 5.592 and cell["ask"] == 2 and cell["ties"] == [2]


def test_exact_values():
    ours = solve(3, 3)
    assert ours[(2, 1)].expected == Fraction(5, 3)
    assert ours[(3, 1)].expected == Fraction(9, 4)
    assert all(ours[(1, q)].expected == 1 for q in range(1, 4))


def test_ties_are_the_p1_row_and_reported():
    ties = tied_cells()
    # with one uncertain opponent card, asking about all q hidden cards or all q + 1 cards both take one
    # interrogation for sure; nowhere else do two ask sizes give the same expectation
    assert [(c.p, c.q, c.ties) for c in ties] == [(1, q, (q, q + 1)) for q in range(1, 11)]
    assert all(c.ask == c.q and c.expected == 1 for c in ties)
    notes = " ".join(group1_dp().notes)
    assert "p=1 q=1: k=1 or 2" in notes and "p=1 q=10: k=10 or 11" in notes
    assert "100 of 100 cells match" in notes


def test_the_largest_tied_ask_would_not_match():
    pub = published_cells()
    latest = {key: Cell(c.p, c.q, c.expected, c.ties[-1], c.ties) for key, c in solve().items()}
    wrong = [key for key in pub if latest[key].printed != pub[key]]
    assert wrong == [(1, q) for q in range(1, 11)]


def test_a_wrong_alpha_is_caught():
    def with_replacement(p: int, q: int, k: int) -> Fraction:  # a plausible slip: draws with replacement
        return Fraction(q, p + q) ** k
    out = cells(with_replacement)
    assert sum(not c["match"] for c in out) > 50
    assert alpha(2, 3, 2) == Fraction(3, 10) != with_replacement(2, 3, 2)
    table = group1_dp(with_replacement)
    assert not any("100 of 100" in note for note in table.notes)


def test_java_number_formatting():
    assert java_number(Fraction(1)) == "1.0"
    assert java_number(Fraction(9, 4)) == "2.25"
    assert java_number(Fraction(591, 100)) == "5.91"
    assert java_number(Fraction(10)) == "10.0"
    assert java_number(Fraction(5, 3)) == "1.667"
    assert java_number(Fraction(21245, 10000)) == "2.124"  # half-even: down to the even digit
    assert java_number(Fraction(21235, 10000)) == "2.124"  # and up to it


def test_tables_split_for_the_terminal():
    parts = group1_dp_tables()
    assert [t.columns for t in parts] == [[f"q={q}" for q in range(1, 6)], [f"q={q}" for q in range(6, 11)]]
    whole = group1_dp()
    assert [c for t in parts for c in t.rows[0][1]] == whole.rows[0][1]
    assert parts[0].notes == [] and parts[1].notes == whole.notes


def test_text_output_fits_80_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["reproduce", "group1-dp"]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines()) and "…" not in out
    text = " ".join(BOX.sub(" ", out).split())
    assert "100 of 100 cells match the published table." in text
    words = text.split()  # a cell may wrap beside others: its figures, each whole, published and ours
    assert all(words.count(printed) >= 2 for printed in published_cells().values())
