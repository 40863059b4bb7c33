"""The human seat on the board (issue 16): the roll, the reachable places
marked on the drawn board, a square by coordinates or a room by name,
validated input; a whole scripted game through the seat's text prompts."""
from __future__ import annotations

import io
import random
import re

from clue_expert.core.cards import get_edition
from clue_expert.core.deals import random_deal
from clue_expert.core.records import parse_record
from clue_expert.people.cli import main
from clue_expert.people.human import HumanPlayer
from clue_expert.people.output import BoardPosition, Message
from clue_expert.people.render import make_console, output_item
from clue_expert.play.board_game import play_board_game
from clue_expert.play.players import seat_player


class Person:
    """Answers the seat's prompts as a person would, from what it was told:
    a few wrong answers first, then a room it may enter (else the first
    square marked *), plum and the rope in its room, the first card it may
    show, never an accusation."""

    def __init__(self, edition):
        self.edition = edition
        self.told: list = []
        self.prompts: list = []
        self.board = None
        self.mistakes = ["9,9", "nowhere", "stay"]  # not reachable, not a place, not allowed
        self.suggestion_mistakes = ["plum rope kitchen"]  # a room the pawn is not in (unless it is the kitchen)

    def tell(self, item):
        self.told.append(item)
        if isinstance(item, BoardPosition):
            self.board = item

    def ask(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if "move to" in prompt:
            if self.mistakes:
                return self.mistakes.pop(0)
            marks = self.board.marks
            rooms = [m for m in marks if isinstance(m, str)]
            if rooms:
                return self.edition.display(rooms[0])
            x, y = sorted(marks, key=lambda s: (s[1], s[0]))[0]
            return f"{x}, {y}"
        if "your suggestion in the" in prompt:
            if self.suggestion_mistakes and "Kitchen" not in prompt:
                return self.suggestion_mistakes.pop(0)
            return "plum rope"
        if "which card do you show" in prompt:
            names = re.search(r"\(([^()]*)\)> $", prompt).group(1)
            return re.split(r", | or ", names)[0]
        if "accuse now" in prompt:
            return "no"
        raise AssertionError(f"unexpected prompt {prompt!r}")


def test_a_whole_scripted_game_on_the_board():
    ed = get_edition("clue")
    deal = random_deal(ed, ("zoe", "player2", "player3"), random.Random(11))
    person = Person(ed)
    zoe = HumanPlayer("zoe", person.ask, person.tell)
    players = {"zoe": zoe, **{p: seat_player(p, "clue-expert-focused", move="nearest-useful-room", seed=i)
                              for i, p in enumerate(("player2", "player3"))}}
    result = play_board_game(deal, players, "classic", rng=random.Random(4), max_rounds=80)
    assert result.winner in ("player2", "player3")  # zoe never accuses
    errors = [t.text for t in person.told if isinstance(t, Message) and t.kind == "error"]
    assert any("9,9 is not reachable with this roll" in e for e in errors)
    assert any("give a square as x,y or a room's name" in e for e in errors)
    assert any("staying is not reachable" in e for e in errors)
    assert any("your pawn is in the" in e and "not Kitchen" in e for e in errors)
    zoes = [m for m in result.moves if m.by == "zoe" and m.how != "pulled"]
    assert zoes
    # every suggestion of zoe's names the room her pawn stood in, with plum and the rope
    rooms = {m.turn: m.end for m in zoes if m.turn is not None}
    assert rooms, "zoe never entered a room"
    for e in result.events:
        if e.turn in rooms:
            assert e.observation.cards == ("plum", "rope", rooms[e.turn])
    # the rolls she was told match the moves recorded
    told = [t for t in person.told if isinstance(t, Message) and t.text.startswith("You (scarlet)")]
    assert len(told) == len(zoes)
    for t, m in zip(told, zoes):
        assert f"rolled {m.roll}" in t.text or m.roll is None
    # the board she was shown keeps every word at 60 and 100 columns
    for width in (60, 100):
        buf = io.StringIO()
        make_console(width=width, color=False, file=buf).print(output_item(person.board, ed))
        assert all(len(line) <= width for line in buf.getvalue().splitlines())
    parse_record(result.record("zoe").to_dict())


def test_play_human_board_from_the_cli(monkeypatch, capsys):
    answers = iter(["help", "1,1", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["play", "--human", "zoe", "--board", "classic", "--seed", "3", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "The board game (Classic Clue" in out and "zoe plays scarlet" in out
    assert "You (scarlet) are on 16,0 and rolled" in out and "1,1 is not reachable" in out
    assert "zoe left the game" in out
