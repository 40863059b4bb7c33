"""Issue 25, the contest agent: every message answered (a fixed legal reply
when nothing better remains), records that ``deduce`` reads however long the
game, and exactly one reply per message however the bytes arrive."""
from __future__ import annotations

import io
import itertools
import re

import pytest

from clue_expert.core.observations import Accusation, Suggestion
from clue_expert.core.records import MAX_TURNS, load_record
from clue_expert.play.contest import CATEGORIES, EDITION, ContestAgent, MessageFramer, codes

HAND = codes(["green", "knife", "ballroom", "study", "plum", "rope"])
SUGGEST = re.compile(r"suggest [A-Z][a-z] [A-Z][a-z] [A-Z][a-z]")


def cut(stream: bytes, chunk: int | None = None) -> list:
    framer = MessageFramer(lambda: None)
    frames = []
    for i in range(0, len(stream), chunk or len(stream)):
        framer.feed(stream[i:i + (chunk or len(stream))])
        while (frame := framer.next(0.0)[0]) is not None:
            frames.append(frame)
    while (frame := framer.next(60.0)[0]) is not None:
        frames.append(frame)
    return [("oversized", f.verb) if f.oversized else f.text for f in frames]


def agent(tmp_path) -> ContestAgent:
    a = ContestAgent("limits", log=io.StringIO(), records=tmp_path)
    assert a.handle(f"reset 3 0 {HAND}") == "ok"
    return a


def test_every_suggest_is_answered_after_all_324_were_made(tmp_path):
    a = agent(tmp_path)
    a.player_ok = False  # the safe answers only (as when the rules fail): they used to raise after 324
    replies = [a.handle("suggest") for _ in range(400)]
    assert all(SUGGEST.fullmatch(r) for r in replies), [r for r in replies if not SUGGEST.fullmatch(r)][:3]
    assert len(set(replies[:324])) == 324  # every suggestion once, then repeats
    assert "every suggestion has been made" in a.log_file.getvalue()


def test_the_safe_reply_never_raises(tmp_path, monkeypatch):
    a = agent(tmp_path)
    monkeypatch.setattr(a, "_unused_triple", lambda: 1 / 0)
    a.player_ok = False
    assert SUGGEST.fullmatch(a.handle("suggest"))
    assert a.handle("accuse") == "-"


def test_a_long_game_is_written_as_records_deduce_reads(tmp_path):
    a = agent(tmp_path)
    mine = set(a.hand)
    free = next(t for t in itertools.product(*(EDITION.category_cards(c) for c in CATEGORIES)) if not set(t) & mine)
    a.turns.append(Accusation("p2", free, False))
    for _ in range(2_499):  # p1 asks the same cards again and again; nobody can show one
        a.turns.append(Suggestion("p1", free, ("p2", "p0"), None, None))
    assert a.handle("done") == "dead"
    parts = sorted(tmp_path.glob("limits-game-0001-part*.yaml"))
    assert len(parts) == 2
    records = [load_record(p) for p in parts]  # what deduce reads first: within every limit
    assert all(len(r.turns) <= MAX_TURNS for r in records)
    assert len(records[0].turns) == MAX_TURNS
    assert records[1].turns[0] == a.turns[0]  # the wrong accusation carried: p2 stays out
    assert len(records[0].turns) + len(records[1].turns) - 1 == 2_500


# a byte at a time (chunk 1) in the slow tier: 10 s here; test_contest_hostile.py sends a whole game so
@pytest.mark.parametrize("chunk", [None, pytest.param(1, marks=pytest.mark.slow), 7, 100, 4096])
def test_an_oversized_reset_is_one_frame(chunk):
    assert cut(b"reset 3 0 " + b"Gr " * 2_000, chunk) == [("oversized", "reset")]
    assert cut(b"reset 3 0 " + b"Gr " * 2_000 + b"accuse", chunk) == [("oversized", "reset"), "accuse"]


@pytest.mark.parametrize("chunk", [None, pytest.param(1, marks=pytest.mark.slow), 100, 4096])
def test_oversized_junk_does_not_swallow_the_next_message(chunk):
    assert cut(b"x" * 5_000 + b"accuse", chunk) == [("oversized", ""), "accuse"]
    assert cut(b"junkaccuse", chunk) == ["junk", "accuse"]
