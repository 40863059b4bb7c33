"""The contest agent against the scripted fake server shipped in the package."""
from __future__ import annotations

import io
import random
import socket
import subprocess
import sys
import threading

import pytest

from clue_expert.play.contest import EDITION, SERVER_REPLY_LIMIT, ContestAgent, codes
from clue_expert.testing.contest_server import Disqualified, FakeContestServer
from clue_expert.core.deals import random_deal
from clue_expert.play.players import RuleBasedPlayer
from clue_expert.core.records import load_record
from clue_expert.engine.seat.knowledge import replay_record as replay


def start_agent(identifier="agent7", **kw):
    """A fake server on a local port (the reference server's reply limit) and
    an agent playing it in a thread: (server, agent, thread, log)."""
    server = FakeContestServer(timeout=SERVER_REPLY_LIMIT)
    port = server.start()
    log = io.StringIO()
    agent = ContestAgent(identifier, log=log, **kw)
    thread = threading.Thread(target=agent.run, args=(port,), daemon=True)
    thread.start()
    server.accept(identifier)
    return server, agent, thread, log


# two games (the smallest and the largest table) in the default run, six in the slow tier (.ci/run runs it)
@pytest.mark.parametrize("tables", [(3, 6), pytest.param((3, 4, 5, 6, 3, 6), marks=pytest.mark.slow)],
                         ids=lambda t: f"{len(t)}-games")
def test_whole_games_against_rule_based_opponents(tmp_path, tables):
    server, agent, thread, log = start_agent(records=tmp_path)
    try:
        wins = 0
        for g, n in enumerate(tables):
            names = tuple(f"p{i}" for i in range(n))
            deal = random_deal(EDITION, names, random.Random(g))
            seat = g % n
            opponents = {p: RuleBasedPlayer(p, "mitchell-advanced", seed=g * 10 + i)
                         for i, p in enumerate(names) if i != seat}
            result = server.play_game(deal, seat, opponents)
            assert result["winner"] is not None
            wins += result["winner"] == result["agent"]
        assert server.ask("done") == "dead"
        thread.join(5)
        assert not thread.is_alive()
    finally:
        server.close()
    assert wins >= 1
    records = sorted(tmp_path.glob("*.yaml"))
    assert len(records) == len(tables)
    k = replay(load_record(records[0]))  # readable by deduce/why
    assert k.me == "p0"
    for record in records[1:]:
        replay(load_record(record))  # every record the agent writes replays without a contradiction
    assert "!!" not in log.getvalue()


def test_reply_lengths_and_no_newlines():
    server, agent, thread, log = start_agent()
    try:
        hand = ["green", "knife", "ballroom", "study", "plum", "rope"]
        assert server.ask("reset 3 0 " + codes(hand)) == "ok"
        reply = server.ask("suggest")
        assert len(reply) == 16 and reply.startswith("suggest ") and "\n" not in reply
        assert server.ask("suggestion 0 " + reply[8:] + " -") == "ok"
        acc = server.ask("accuse")
        # undisproved, holding none of them: it must be the solution and the agent must accuse it
        if not set(reply[8:].split()) & {"Gr", "Kn", "Ba", "St", "Pl", "Ro"}:
            assert acc == "accuse " + reply[8:]
        server.ask("done")
    finally:
        server.close()


def test_disprove_choice_prefers_card_already_shown_to_asker():
    server, agent, thread, log = start_agent()
    try:
        hand = ["green", "knife", "ballroom", "study", "plum", "rope"]
        server.ask("reset 3 1 " + codes(hand))
        # player 0 asks Gr Kn Ba; we show Kn (our response rules avoid rooms, list order)
        first = server.ask("disprove 0 Gr Kn Ba")
        assert first in ("show Gr", "show Kn")
        server.ask(f"suggestion 0 Gr Kn Ba 1 {first[5:]}")
        # asked again by player 0 with the same card among the options: show the same card again
        again = server.ask(f"disprove 0 {first[5:] if first[5:] == 'Gr' else 'Sc'} Kn St")
        assert again == first if first == "show Kn" else again in ("show Gr", "show Kn")
        server.ask("done")
    finally:
        server.close()


def test_repeated_suggestion_guard():
    server, agent, thread, log = start_agent(strategy="kingston-no-intelligence")
    try:
        server.ask("reset 3 0 " + codes(["green", "knife", "ballroom", "study", "plum", "rope"]))
        made = set()
        for _ in range(4):  # no information in between: the strategy would propose the same thing
            reply = server.ask("suggest")
            assert reply not in made
            made.add(reply)
            server.ask("accuse")
        server.ask("done")
    finally:
        server.close()
    assert "again" in log.getvalue()


def test_accuses_when_certain():
    server, agent, thread, log = start_agent()
    try:
        server.ask("reset 3 0 " + codes(["green", "knife", "ballroom", "study", "plum", "rope"]))
        # another player's suggestion nobody could disprove is not enough: he may hold the cards
        assert server.ask("suggestion 2 Mu Ca Ha -") == "ok"
        reply = server.ask("suggest")
        assert server.ask(f"suggestion 0 {reply[8:]} -") == "ok"
        assert server.ask("accuse") == "accuse " + reply[8:]
        assert server.ask(f"accusation 0 {reply[8:]} +") == "ok"
        server.ask("done")
    finally:
        server.close()


def test_never_accuses_with_a_card_it_holds(tmp_path):
    bad = tmp_path / "reckless.yaml"
    bad.write_text("""id: reckless
kind: accusation
title: Accuse at once
rules:
  - id: accuse-own-cards
    priority: 0
    message: "always"
    when: accuse-offer
    then:
      - accuse: ["'green'", "'knife'", "'ballroom'"]
""")
    server, agent, thread, log = start_agent(accusation=str(bad))
    try:
        server.ask("reset 3 0 " + codes(["green", "knife", "ballroom", "study", "plum", "rope"]))
        server.ask("suggest")
        assert server.ask("accuse") == "-"
        server.ask("done")
    finally:
        server.close()
    assert "names a card we hold or saw" in log.getvalue()


def test_bad_rule_file_fails_at_start(tmp_path):
    from clue_expert.core.errors import RuleFileError
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\nkind: strategy\ntitle: t\nrules:\n  - id: r\n    message: m\n    when: your-turn\n"
                   "    then:\n      - suggest: {suspect: green, weapon: 'x', room: 'y'}\n")
    with pytest.raises(RuleFileError, match="unknown name 'green'"):
        ContestAgent("a", strategy=str(bad))


def test_garbage_is_logged_and_answered_safely():
    server, agent, thread, log = start_agent()
    try:
        assert server.ask("hello there") == "ok"
        assert server.ask("suggest") == "ok"  # before any reset: logged, acknowledged
        server.ask("reset 3 0 " + codes(["green", "knife", "ballroom", "study", "plum", "rope"]))
        assert server.ask("suggestion 9 Gr Kn Ba -") == "ok"
        assert server.ask("disprove 1 Xx Kn Ba").startswith("show ")
        assert server.ask("disprove 1 Mu Ca Ha") == "show Gr"  # holding none: logged, still a card of ours
        reply = server.ask("suggest")
        assert len(reply) == 16
        assert server.ask("accuse") in ("-",) or server.ask("accuse").startswith("accuse ")
        assert server.ask("DONE") == "dead"
    finally:
        server.close()
    text = log.getvalue()
    assert "unknown message 'hello'" in text and "unknown card code 'Xx'" in text and "no player '9'" in text


def test_server_closing_the_socket_ends_the_agent_quietly():
    server, agent, thread, log = start_agent()
    server.ask("reset 4 2 " + codes(["green", "knife", "ballroom", "study", "plum"]))  # 5 cards, not 4: coped with
    assert server.ask("suggest").startswith("suggest ")
    server.close()
    thread.join(5)
    assert not thread.is_alive()
    assert "closed the connection" in log.getvalue()


def test_cli_agent_as_the_server_launches_it(tmp_path):
    server = FakeContestServer(timeout=10)
    port = server.start()
    logfile = tmp_path / "agent.log"
    line = f"{sys.executable} -m clue_expert contest-agent bot1 {port} --log {logfile} --records {tmp_path}"
    proc = subprocess.Popen(line.split(" "))
    try:
        server.accept("bot1")
        names = ("p0", "p1", "p2")
        deal = random_deal(EDITION, names, random.Random(42))
        opponents = {p: RuleBasedPlayer(p, "kingston-next-not-held", seed=i) for i, p in enumerate(names) if i}
        result = server.play_game(deal, 0, opponents)
        assert result["winner"] is not None
        assert server.ask("done") == "dead"
        assert proc.wait(10) == 0
    finally:
        server.close()
        if proc.poll() is None:
            proc.kill()
    assert "-> 'dead'" in logfile.read_text()
    assert len(list(tmp_path.glob("bot1-game-*.yaml"))) == 1


def test_fake_server_disqualifies_a_repeated_suggestion():
    """The test double enforces the reference server's rules: a client that
    always suggests the same triple is disqualified."""
    server = FakeContestServer(timeout=10)
    port = server.start()
    same = "suggest " + codes([EDITION.category_cards(cat)[0] for cat in ("suspect", "weapon", "room")])

    def client():
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(b"lazy alive")
            while True:
                message = conn.recv(512).decode("ascii")
                if not message or message == "done":
                    return
                word = message.split()[0]
                reply = {"suggest": same, "accuse": "-"}.get(word, "ok")
                if word == "disprove":
                    reply = "show " + message.split()[2]
                conn.sendall(reply.encode("ascii"))
    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    try:
        server.accept("lazy")
        names = ("p0", "p1", "p2")
        deal = random_deal(EDITION, names, random.Random(1))
        opponents = {p: RuleBasedPlayer(p, "mitchell-advanced", seed=i) for i, p in enumerate(names[1:])}
        with pytest.raises(Disqualified, match="repeated suggestion|missed accusation|invalid disprove"):
            server.play_game(deal, 0, opponents)
    finally:
        server.close()
