"""The contest agent's seat: the per-size default seats (clue_expert/seats/speed-clue.yaml),
an explicit --strategy, --model, and the reply-time guard, against the fake server."""
from __future__ import annotations

import random

import pytest

from clue_expert.core.deals import random_deal
from clue_expert.core.errors import ClueError
from clue_expert.people.cli import build_parser
from clue_expert.play.contest import DECISION_BUDGET, EDITION, SERVER_REPLY_LIMIT, ContestAgent, codes
from clue_expert.play.players import RuleBasedPlayer
from clue_expert.play.seats import SeatsFileError, default_seat, load_seats, seat_choice, seats_path
from test_contest import start_agent as start_contest_agent

FOCUSED = "clue-expert-focused:response=minimal-information:accusation=when-certain"
OPEN_GAIN = "clue-expert-open-information-gain:response=seen-model:accusation=when-certain"
PROBABLE_GAIN = ("clue-expert-probable-information-gain:response=seen-model:accusation=clue-expert-race-60"
                 ":model=first-round-asks:model=second-round-asks")
WEIGHTED_GAIN = ("clue-expert-weighted-information-gain:response=seen-model:accusation=clue-expert-even-race"
                 ":model=first-round-asks:model=second-round-asks")
WEIGHTED_55 = WEIGHTED_GAIN.replace("clue-expert-even-race", "clue-expert-race-55")  # the floor at 0.55


def start_agent(identifier="seats7", **kw):
    return start_contest_agent(identifier, **kw)


def play(server, n, game):
    names = tuple(f"p{i}" for i in range(n))
    deal = random_deal(EDITION, names, random.Random(100 + game))
    seat = game % n
    opponents = {p: RuleBasedPlayer(p, "mitchell-advanced", seed=game * 10 + i)
                 for i, p in enumerate(names) if i != seat}
    return server.play_game(deal, seat, opponents)


def test_the_shipped_table():
    table = load_seats(seats_path())
    assert sorted(table) == [3, 4, 5, 6]
    assert default_seat(3) == WEIGHTED_GAIN  # issue 26's second pass: the 4-player seat at 3 players too
    # issue 26's third pass: the 4-player seat at 5 players too; its fourth: with the floor at 0.55 there
    assert (default_seat(4), default_seat(5), default_seat(6)) == (WEIGHTED_GAIN, WEIGHTED_55, PROBABLE_GAIN)
    assert default_seat(2) == WEIGHTED_GAIN and default_seat(9) == PROBABLE_GAIN  # the nearest size
    for choice in table.values():
        assert choice.reason and choice.source


@pytest.mark.parametrize("n, seat, strategy", [(3, WEIGHTED_GAIN, "clue-expert-weighted-information-gain"),
                                               (6, PROBABLE_GAIN, "clue-expert-probable-information-gain")])
def test_default_seat_per_size_and_replies_within_budget(n, seat, strategy):
    server, agent, thread, log = start_agent()
    try:
        result = play(server, n, 0)
        assert result["winner"] is not None
        assert agent.seat_spec == seat
        assert agent.player.strategy.id == strategy
        assert f"seat {seat} (default for {n} players from speed-clue.yaml" in log.getvalue()
        assert server.ask("done") == "dead"
        thread.join(5)
    finally:
        server.close()
    assert "!!" not in log.getvalue()
    assert max(t for _, t in server.reply_times) < DECISION_BUDGET < SERVER_REPLY_LIMIT


def test_the_seat_follows_the_table_size_between_games():
    server, agent, thread, log = start_agent()
    try:
        hand = ["green", "knife", "ballroom", "study", "plum", "rope"]
        assert server.ask("reset 3 0 " + codes(hand)) == "ok"
        assert agent.player.strategy.id == "clue-expert-weighted-information-gain"
        assert server.ask("reset 6 0 " + codes(hand[:3])) == "ok"
        assert agent.player.strategy.id == "clue-expert-probable-information-gain"
        assert agent.player.response.id == "seen-model"
        assert agent.player.accusation.id == "clue-expert-race-60"  # issue 26's second pass
        assert server.ask("reset 5 1 " + codes(hand[:4])) == "ok"
        assert agent.player.strategy.id == "clue-expert-weighted-information-gain"  # issue 26's third pass
        assert agent.player.accusation.id == "clue-expert-race-55"  # issue 26's fourth pass
        assert [m.id for m in agent.player.models] == ["first-round-asks", "second-round-asks"]
        assert server.ask("reset 6 1 " + codes(hand[:3])) == "ok"
        assert [m.id for m in agent.player.models] == ["first-round-asks", "second-round-asks"]
        assert server.ask("reset 4 1 " + codes(hand[:5])) == "ok"
        assert [m.id for m in agent.player.models] == ["first-round-asks", "second-round-asks"]
        assert agent.player.strategy.id == "clue-expert-weighted-information-gain"  # issue 26's 4-player seat
        assert agent.player.accusation.id == "clue-expert-even-race"
        assert server.ask("reset 6 1 " + codes(hand[:3])) == "ok"
        assert agent.player.strategy.id == "clue-expert-probable-information-gain"
        reply = server.ask("suggest")
        assert reply.startswith("suggest ") and len(reply) == 16
        server.ask("done")
    finally:
        server.close()


def test_explicit_strategy_overrides_and_model_reaches_the_player():
    server, agent, thread, log = start_agent(strategy="mitchell-advanced:response=random-card",
                                             accusation="when-certain", models=["pattern-analysis"])
    try:
        hand = ["green", "knife", "ballroom"]
        assert server.ask("reset 6 2 " + codes(hand)) == "ok"
        assert agent.player.strategy.id == "mitchell-advanced"  # not the 6-player default
        assert agent.player.response.id == "random-card"
        assert [m.id for m in agent.player.models] == ["pattern-analysis"]
        assert "seat mitchell-advanced:response=random-card" in log.getvalue()
        assert "given with --strategy" in log.getvalue()
        server.ask("done")
    finally:
        server.close()


def test_model_and_response_reach_the_default_seat():
    agent = ContestAgent("x", response="minimal-information", models=["pattern-analysis"])
    agent.handle("reset 6 0 Gr Kn Ba")
    assert agent.player.strategy.id == "clue-expert-probable-information-gain"
    assert agent.player.response.id == "minimal-information"  # --response replaces the default seat's
    assert [m.id for m in agent.player.models] == ["first-round-asks", "second-round-asks", "pattern-analysis"]


def test_cli_options():
    args = build_parser().parse_args(["contest-agent", "id", "4000", "--strategy", FOCUSED, "--model",
                                      "pattern-analysis", "--model", "group1-aging", "--decision-budget", "1.5"])
    assert args.strategy == FOCUSED and args.model == ["pattern-analysis", "group1-aging"]
    assert args.decision_budget == 1.5
    assert build_parser().parse_args(["contest-agent", "id", "4000"]).strategy is None


def test_over_budget_switches_to_the_cheap_suggestion():
    agent = ContestAgent("x", strategy=OPEN_GAIN, decision_budget=1e-9)
    agent.handle("reset 6 0 Gr Kn Ba")
    first = agent.handle("suggest")
    assert agent.over_budget
    seen = {first}
    for _ in range(5):
        reply = agent.handle("suggest")
        assert reply.startswith("suggest ") and reply not in seen
        seen.add(reply)
    assert len(agent.suggest_times[agent.seat_spec]) == 1  # the strategy ran once; the rest were cheap
    agent.handle("reset 6 0 Gr Kn Ba")
    assert not agent.over_budget  # a new game tries the strategy again


@pytest.mark.parametrize("text, problem", [
    ("seats: [1, 2]", "expected a mapping with 'seats'"),
    ("seats:\n  three: {seat: a, reason: b, source: c}", "table size 'three'"),
    ("seats:\n  3: {seat: clue-expert-focused, reason: b}", "needs source"),
    ("seats: {3: [", "not valid YAML"),
])
def test_malformed_seats_file_is_one_clear_error(tmp_path, text, problem):
    path = tmp_path / "bad-seats.yaml"
    path.write_text(text)
    with pytest.raises(SeatsFileError) as exc:
        seat_choice(3, path=path)
    assert str(path) in str(exc.value) and problem in str(exc.value)
    with pytest.raises(ClueError, match="bad-seats.yaml"):
        ContestAgent("x", seats=path)


def test_seats_file_with_an_unknown_strategy_fails_at_start(tmp_path):
    path = tmp_path / "seats.yaml"
    path.write_text("seats:\n  3: {seat: no-such-strategy, reason: r, source: s}\n")
    with pytest.raises(ClueError, match="unknown strategy 'no-such-strategy'"):
        ContestAgent("x", seats=path)
