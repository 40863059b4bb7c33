"""The board as data (issue 16): the classic board's figures, one clear
error naming the line for a malformed map, and `clue-expert board`."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from clue_expert.core.board import BoardError, Move, distances, get_board, load_board_file
from clue_expert.core.cards import get_edition
from clue_expert.core.paths import boards_dir
from clue_expert.people.cli import main
from clue_expert.people.render import board_view, make_console

CLASSIC = boards_dir() / "classic.yaml"


def test_classic_board_figures():
    b = get_board("classic")
    assert (b.width, b.height) == (24, 25)
    ed = get_edition(b.edition)
    assert set(b.rooms) == set(ed.category_cards("room"))
    assert set(b.starts) == set(ed.category_cards("suspect"))
    doors = {r: len(b.doors_of(r)) for r in b.rooms}
    assert doors == {"study": 1, "hall": 3, "lounge": 1, "library": 2, "billiard-room": 2, "dining-room": 2,
                     "conservatory": 1, "ballroom": 4, "kitchen": 1}
    assert b.passages == {"study": "kitchen", "kitchen": "study", "lounge": "conservatory",
                          "conservatory": "lounge"}
    assert b.starts["scarlet"] == (16, 0) and b.starts["plum"] == (0, 5)
    # every room and every start is reachable from every start
    for s, sq in b.starts.items():
        d = distances(b, sq)
        assert set(b.rooms) <= set(d), s
        assert set(b.starts.values()) <= set(d), s
    for d in b.doors:  # a door is a square of its room, in front of a hallway square
        assert b.room_at(d.square) == d.room and d.outside in b.hallway


def _write(tmp_path: Path, old: str, new: str) -> Path:
    text = CLASSIC.read_text()
    assert old in text
    path = tmp_path / "board.yaml"
    path.write_text(text.replace(old, new, 1))
    return path


def _map_line(row: int) -> int:
    lines = CLASSIC.read_text().splitlines()
    return lines.index("map: |") + 2 + row


@pytest.mark.parametrize("old,new,row,words", [
    ("  SSSSSSS.#HHHHHH..OOOOOOO", "  SSSSSSS.#HHHHHH..OOOOOO?", 1, "'?' at x=23 is not in the legend"),
    ("  SSSSSSS.#HHHHHH..OOOOOOO", "  SSSSSSS.#HHHHHH..OOOOOO", 1, "row 1 has 23 squares"),
    ("  #........<HHHHH..OOOOOOO", "  #......<.HHHHHH..OOOOOOO", 4, "no room square behind it"),
    ("  #........<HHHHH..OOOOOOO", "  #.......#<HHHHH..OOOOOOO", 4, "onto no hallway square"),
    ("  6........HHHHHH..vOOOOOO", "  #........HHHHHH..vOOOOOO", None, "no starting square on the map for plum"),
])
def test_malformed_map_one_error_naming_the_line(tmp_path, old, new, row, words):
    path = _write(tmp_path, old, new)
    with pytest.raises(BoardError) as exc:
        load_board_file(path)
    message = str(exc.value)
    assert str(path) in message and words in message
    if row is not None:
        assert f"line {_map_line(row)}:" in message


@pytest.mark.parametrize("old,new,words", [
    ("passages: [[study, kitchen], [lounge, conservatory]]", "passages: [[study, kitchn]]",
     "names 'kitchn', which is not a room"),
    ('doors: {"^": north', 'doors: {"^": up', "write north, south, east or west"),
    ("  wall: \"#\"", "  wall: \".\"", "gives '.' twice"),
    ("dice: 1", "dice: 7", "dice must be 1 or 2"),
    ("id: classic", "idd: classic", "unknown key(s) idd"),
])
def test_malformed_legend_one_error(tmp_path, old, new, words):
    with pytest.raises(BoardError, match="board.yaml") as exc:
        load_board_file(_write(tmp_path, old, new))
    assert words in str(exc.value)


def test_cli_board_json(capsys):
    assert main(["board", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["width"] == 24 and out["height"] == 25
    assert out["rooms"]["kitchen"]["passage_to"] == "study" and out["rooms"]["hall"]["passage_to"] is None
    assert out["rooms"]["ballroom"]["doors"] == 4
    assert out["starts"]["scarlet"] == [16, 0]


def test_cli_board_bad_file_exit_2(tmp_path, capsys):
    path = _write(tmp_path, "  SSSSSSS.#HHHHHH..OOOOOOO", "  SSSSSSS")
    assert main(["board", "--board", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"line {_map_line(1)}" in err


@pytest.mark.parametrize("width", [100, 60])
def test_board_drawing_keeps_every_word(width):
    b = get_board("classic")
    ed = get_edition("clue")
    buf = io.StringIO()
    make_console(width=width, color=False, file=buf).print(
        board_view(b, pawns={"scarlet": (16, 1), "plum": "study"}, marks={(16, 2): "*", "hall": "*"},
                   names={c: ed.display(c) for c in ed.card_ids}))
    out = buf.getvalue()
    assert all(len(line) <= width for line in out.splitlines())
    text = " ".join(out.split())
    for word in ("Study: 1 door, secret passage to Kitchen", "Ballroom: 4 doors", "Miss Scarlet (sc) at 16,0",
                 "pawns here: plum", "[*] reachable"):
        assert word in text
    rows = out.splitlines()[1:27]
    assert rows[1][3 + 2 * 16:3 + 2 * 17] == "sc"  # the pawn on its square (16, 1)
    assert rows[2][3 + 2 * 16:3 + 2 * 17] == "* "  # the mark on (16, 2)


def test_a_move_without_from_writes_back_as_null():
    """A record may leave a move's ``from`` out (Move.start None): writing it
    back keeps it out instead of failing (found by mypy)."""
    d = Move(1, "ann", "plum", None, None, "hall").to_dict()
    assert d["from"] is None and d["to"] == "hall"
    assert Move(1, "ann", "plum", 4, (7, 5), "hall").to_dict()["from"] == [7, 5]
