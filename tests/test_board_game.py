"""The board game (issue 16): movement legality (property tests against an
independent enumeration), the pulled pawn and the staying rule, the driver,
records with moves read by deduce, simulate --board."""
from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clue_expert.core.board import DIRECTIONS, distances, get_board, reachable, shortest_path
from clue_expert.core.cards import get_edition
from clue_expert.core.deals import random_deal
from clue_expert.core.errors import RecordError
from clue_expert.core.records import dump_record, load_record, parse_record
from clue_expert.people.cli import main
from clue_expert.play.board_game import play_board_game
from clue_expert.play.game import Player, PlayerError
from clue_expert.play.players import ScriptedPlayer, seat_player

BOARD = get_board("classic")
SQUARES = sorted(BOARD.hallway)
SETTINGS = settings(max_examples=60, deadline=None)


def brute_destinations(board, start, roll, occupied) -> dict:
    """Every legal end of a move, by walking the grid and the door table
    directly (not through Board.neighbours): destination -> fewest steps."""
    occupied = set(occupied)
    doors_out = {}  # hallway square -> rooms whose door is in front of it
    for d in board.doors:
        doors_out.setdefault(d.outside, set()).add(d.room)
    out: dict = {}

    def step(pos, n, seen):
        if isinstance(pos, str):
            nexts = [d.outside for d in board.doors if d.room == pos]
        else:
            x, y = pos
            nexts = [(x + dx, y + dy) for dx, dy in DIRECTIONS.values()] + sorted(doors_out.get(pos, ()))
        for q in nexts:
            if isinstance(q, str):
                if q != start:
                    out[q] = min(out.get(q, 99), n + 1)
                continue
            if q not in board.hallway or q in occupied or q in seen:
                continue
            if n + 1 == roll:
                out[q] = roll
            else:
                step(q, n + 1, seen | {q})
    step(start, 0, {start} if not isinstance(start, str) else set())
    return out


positions = st.one_of(st.sampled_from(SQUARES), st.sampled_from(BOARD.rooms))


@SETTINGS
@given(start=positions, roll=st.integers(1, 6),
       others=st.lists(st.sampled_from(SQUARES), max_size=5, unique=True))
def test_reachable_is_legal_and_complete(start, roll, others):
    occupied = [sq for sq in others if sq != start]
    got = reachable(BOARD, start, roll, occupied)
    assert {p: len(path) for p, path in got.items()} == brute_destinations(BOARD, start, roll, occupied)
    for dest, path in got.items():
        assert path[-1] == dest
        prev = start
        for i, pos in enumerate(path):
            assert pos in BOARD.neighbours(prev)  # one orthogonal step, or through a door
            if isinstance(pos, str):
                assert i == len(path) - 1  # entering a room ends the move
            else:
                assert pos not in occupied  # never onto or through a pawn
                assert pos in BOARD.hallway  # never through a wall
            prev = pos
        squares = [p for p in path if not isinstance(p, str)]
        assert len(squares) == len(set(squares)) and start not in squares  # no square twice
        assert (len(path) <= roll) if isinstance(dest, str) else (len(path) == roll)
        assert dest != start


@SETTINGS
@given(start=positions, others=st.lists(st.sampled_from(SQUARES), max_size=5, unique=True))
def test_distances_and_shortest_paths(start, others):
    occupied = [sq for sq in others if sq != start]
    dist = distances(BOARD, start, occupied)
    for room in BOARD.rooms:
        if room == start:
            continue
        # a room is reachable within a roll exactly when it is that close
        for roll in (1, 6):
            assert (room in reachable(BOARD, start, roll, occupied)) == (dist.get(room, 99) <= roll)
        path = shortest_path(BOARD, start, room, occupied)
        assert (path is None) == (room not in dist)
        if path is not None:
            assert len(path) == dist[room]


def test_passage_and_doors_on_the_classic_board():
    assert BOARD.passage_to("study") == "kitchen" and BOARD.passage_to("hall") is None
    # leaving the study: one step puts the pawn in front of its only door
    assert set(reachable(BOARD, "study", 1)) == {(6, 4)}
    # a pawn in front of the door shuts the room in
    assert reachable(BOARD, "study", 6, [(6, 4)]) == {}
    # from the square in front of the hall's west door, a roll of 1 enters the hall
    assert "hall" in reachable(BOARD, (8, 4), 1)


class Mover(ScriptedPlayer):
    """A scripted seat that also scripts its moves (choice per turn: a
    callable of the options) and records the options it was offered."""

    def __init__(self, name, moves=None, **kw):
        super().__init__(name, **kw)
        self.moves = moves or (lambda options: Player.move(self, 0, 0, options))
        self.offered: list = []

    def move(self, turn, round, options):
        self.offered.append(options)
        return self.moves(options)


def _deal(n=3, seed=5):
    return random_deal(get_edition("clue"), tuple(f"player{i + 1}" for i in range(n)), random.Random(seed))


def test_pulled_pawn_may_suggest_without_moving():
    deal = _deal()
    first = tuple(get_edition("clue").category_cards(c)[0] for c in ("suspect", "weapon", "room"))
    # player1 (scarlet) takes the study: start it next to the study's door with a rigged rng
    p1 = Mover("player1", suggestions=[("mustard", "rope", "study")],
               moves=lambda o: "study" if "study" in o.choices() else o.choices()[0])
    p2 = Mover("player2", suggestions=[first], moves=lambda o: None if o.may_suggest_here else o.choices()[0])
    p3 = Mover("player3", suggestions=[first])
    players = {"player1": p1, "player2": p2, "player3": p3}
    board = replace(BOARD, starts={**BOARD.starts, "scarlet": (6, 4)})
    result = play_board_game(deal, players, board, max_rounds=2, rng=random.Random(1))
    pulls = [m for m in result.moves if m.how == "pulled"]
    assert pulls and pulls[0].pawn == "mustard" and pulls[0].end == "study" and pulls[0].by == "player1"
    # mustard's player was offered a suggestion in the study without moving, took it, and suggested there
    offered = p2.offered[0]
    assert offered.here == "study" and offered.may_suggest_here and None in offered.choices()
    stay = [m for m in result.moves if m.by == "player2" and m.how == "stay"][0]
    assert stay.turn is not None
    assert result.events[1].observation.by == "player2" and "study" in result.events[1].observation.cards
    # the next time, without being pulled again, staying is not offered (unless nothing else is legal)
    later = [o for o in p2.offered[1:] if o.here == "study"]
    assert all(not o.may_suggest_here for o in later)


def test_driver_refuses_an_illegal_move_and_a_wrong_room():
    deal = _deal()
    bad = Mover("player1", suggestions=[("green", "rope", "hall")], moves=lambda o: (0, 0))
    players = {"player1": bad, "player2": Mover("player2"), "player3": Mover("player3")}
    with pytest.raises(PlayerError, match="not one of its legal moves"):
        play_board_game(deal, players, "classic", rng=random.Random(1))

    class WrongRoom(Mover):
        def suggest_in(self, turn, round, room, options):
            return ("green", "rope", "hall" if room != "hall" else "study")
    board = replace(BOARD, starts={**BOARD.starts, "scarlet": (6, 4)})
    players = {"player1": WrongRoom("player1", moves=lambda o: "study" if "study" in o.choices() else o.choices()[0]),
               "player2": Mover("player2"), "player3": Mover("player3")}
    with pytest.raises(PlayerError, match="pawn is in study"):
        play_board_game(deal, players, board, rng=random.Random(1))


def test_rule_based_board_game_and_its_record(tmp_path, capsys):
    deal = _deal(4, seed=2)
    players = {p: seat_player(p, "clue-expert-focused", move="nearest-useful-room") for p in deal.players}
    result = play_board_game(deal, players, "classic", rng=random.Random(3))
    assert result.winner is not None and result.game == "board"
    for m in result.moves:
        if m.how == "roll":
            assert m.roll is not None and 1 <= m.roll <= 6
    suggestions = [e.observation for e in result.events if hasattr(e.observation, "shown_by")]
    moved_in = {m.turn: m.end for m in result.moves if m.turn is not None}
    assert len(moved_in) == len(suggestions)  # one suggestion per room entry (or stay where pulled)
    for e in result.events:
        if e.turn in moved_in:
            assert moved_in[e.turn] in e.observation.cards  # the suggestion names the pawn's room
    path = tmp_path / "board.yaml"
    dump_record(result.record(result.winner), path)
    record = load_record(path)
    assert record.game == "board" and record.board == "classic" and len(record.moves) == len(result.moves)
    assert main(["deduce", "--json", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    # the winner accused only when certain: its sheet, read back from the record, names the envelope
    assert out["envelope"] == dict(zip(("suspect", "weapon", "room"), deal.envelope))
    assert main(["why", str(path), f"envelope holds {deal.envelope[2]}"]) == 0


TINY_BOARD = """\
id: tiny
edition: clue
dice: 2
map: |
  SS.HH.OO.CC.KK
  v#.v#.v#.v#.v#
  ..............
  1.....2......3
  ..............
  ^#.^#.^#.^#.##
  LL.II.DD.BB.##
legend:
  hallway: "."
  wall: "#"
  rooms: {S: study, H: hall, O: lounge, L: library, I: billiard-room, D: dining-room, C: conservatory,
          B: ballroom, K: kitchen}
  doors: {"^": north, "v": south}
  starts: {"1": scarlet, "2": mustard, "3": white}
passages: [[study, kitchen]]
"""


def test_a_hand_made_board_file_is_read_and_played(tmp_path):
    """Not only the classic board: a small board file of one's own (two
    dice, one door per room, three pawns) is read, its moves are legal by
    the independent enumeration, and rule-based seats play it to the end."""
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_BOARD, encoding="utf-8")
    board = get_board(str(path))
    assert (board.width, board.height, board.dice, len(board.doors)) == (14, 7, 2, 9)
    assert board.passage_to("kitchen") == "study" and board.starts["white"] == (13, 3)
    assert set(reachable(board, "hall", 1)) == {(3, 2)} and "lounge" in reachable(board, (3, 2), 5)
    deal = _deal(3, seed=4)
    players = {p: seat_player(p, "clue-expert-focused", move="nearest-useful-room") for p in deal.players}
    checked = []

    def check(move, options):
        if options is not None and move.how == "roll":
            assert 2 <= move.roll <= 12
            assert move.end in brute_destinations(board, move.start, move.roll, options.occupied())
            checked.append(move)
    result = play_board_game(deal, players, board, rng=random.Random(2), on_move=check)
    assert result.winner is not None and checked
    assert result.board == str(path)


def test_board_record_errors(tmp_path):
    deal = _deal()
    players = {p: seat_player(p, "clue-expert-focused", move="nearest-useful-room") for p in deal.players}
    data = play_board_game(deal, players, "classic", rng=random.Random(3)).record("player1").to_dict()
    parse_record(data)
    for change, words in [
        ({"board": None}, "names its board"),
        ({"moves": [{"round": 1, "by": "player1", "pawn": "scarlet", "to": [0, 0]}]}, "neither a hallway square"),
        ({"moves": [{"round": 1, "by": "zed", "pawn": "scarlet", "to": "hall"}]}, "not one of the players"),
        ({"moves": [{"round": 1, "by": "player1", "pawn": "rope", "to": "hall"}]}, "not a suspect of the board"),
        ({"moves": [{"round": 1, "by": "player1", "pawn": "scarlet", "to": "hall", "roll": 9}]}, "not a roll"),
        ({"moves": [{"round": 1, "by": "player1", "pawn": "scarlet", "to": "hall", "turn": 1}]},
         "is not a suggestion by player1 in hall"),
        ({"game": "speed-clue"}, "belong to a board game"),
    ]:
        with pytest.raises(RecordError, match=words):
            parse_record({**data, **change})


@pytest.mark.slow  # a long run (the slow tier runs it in .ci/run)
def test_simulate_board_reports_games_with_speed_clue_keys(capsys):
    assert main(["simulate", "--board", "classic", "--players", "4", "--games", "10", "--json",
                 "--workers", "1"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert board["games"] == 10 and board["config"]["game"] == "board"
    assert main(["simulate", "--players", "4", "--games", "2", "--json", "--workers", "1"]) == 0
    speed = json.loads(capsys.readouterr().out)
    assert set(board) == set(speed)


@pytest.mark.parametrize("argv,words", [
    (["simulate", "--board", "classic", "--players", "7", "--games", "1"], "3 to 6 players, not 7"),
    (["simulate", "--board", "classic", "--players", "2", "--games", "1"], "3 to 6 players, not 2"),
    (["simulate", "--board", "classic", "--edition", "cluedo", "--games", "1"], "which edition cluedo has no card"),
    (["play", "--board", "nowhere"], "unknown board"),
])
def test_board_cli_errors(capsys, argv, words):
    assert main(argv) == 2
    assert words in capsys.readouterr().err


def test_a_wrong_accusers_pawn_is_moved_off_a_door():
    deal = _deal()
    fronts = {d.outside: d.room for d in BOARD.doors}
    wrong = ("scarlet", "rope", "hall")
    if wrong == deal.envelope:
        wrong = ("mustard", "rope", "hall")
    board = replace(BOARD, starts={**BOARD.starts, "scarlet": (7, 4)})
    for seed in range(30):
        p1 = Mover("player1", suggestions=[("green", "rope", "hall")], accusations={0: wrong},
                   moves=lambda o: next((c for c in o.choices() if c in fronts), o.choices()[0]))
        players = {"player1": p1, "player2": Mover("player2"), "player3": Mover("player3")}
        result = play_board_game(deal, players, board, rng=random.Random(seed), max_rounds=1)
        first = result.moves[0]
        if first.end in fronts:
            break
    else:
        pytest.fail("no seed put scarlet in front of a door")
    assert result.wrong_accusations == [("player1", 1)]
    cleared = [m for m in result.moves if m.how == "cleared"]
    assert cleared == [cleared[0]] and cleared[0].start == first.end and cleared[0].end == fronts[first.end]
    parse_record(result.record("player1").to_dict())


def test_the_notebook_keeps_a_board_games_moves(tmp_path):
    from clue_expert.people.notebook import Notebook
    deal = _deal()
    players = {p: seat_player(p, "clue-expert-focused", move="nearest-useful-room") for p in deal.players}
    data = play_board_game(deal, players, "classic", rng=random.Random(3)).record("player1").to_dict()
    del data["deal"]  # a game at a real table: no true deal, no card seen by others
    for t in data["turns"]:
        t.pop("actual", None)
    path = tmp_path / "game.yaml"
    path.write_text(json.dumps(data))
    nb = Notebook.load(path)
    assert nb.record.game == "board" and len(nb.record.moves) == len(data["moves"])
    nb.save()
    assert len(load_record(path).moves) == len(data["moves"])
    last = len(data["turns"])  # the winning accusation; the suggestion before it came from a move
    assert any(m.turn == last - 1 for m in nb.record.moves)
    nb.undo()
    nb.undo()  # the move that led to the undone suggestion goes with it
    assert all(m.turn is None or m.turn < last - 1 for m in nb.record.moves)


def test_play_board_trace_and_record_at_narrow_width(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    path = tmp_path / "game.yaml"
    assert main(["play", "--board", "classic", "--show", "moves", "--no-sheets", "--seed", "2",
                 "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 60 for line in out.splitlines())
    text = " ".join(out.split())
    assert "player1 plays scarlet" in text and "rolls" in text and "enters" in text
    assert "[head-for-open-room]" in text  # the reason of a move
    record = load_record(path)
    assert record.game == "board" and record.moves
    assert main(["replay", str(path), "--all"]) == 0


def test_the_move_search_is_bounded(monkeypatch):
    import clue_expert.core.board as board_module
    monkeypatch.setattr(board_module, "MAX_SEARCH", 10)
    from clue_expert.core.board import BoardError
    with pytest.raises(BoardError, match="limit of the move search"):
        reachable(BOARD, (16, 7), 6)
