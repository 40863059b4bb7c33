"""The generalized game of the CS4444 reports (docs/generalized.md).

(a) Random games of it (2–6 players, 1–4 hidden cards, interrogations of any
length, wrong guesses that lay hands open), seen from every seat: the
complete deduction equals the independent CNF oracle after every turn and
never contradicts the true deal (a bounded property test, so failures shrink).
(b) Its records: the turn shapes, written and read back, and one clear error
for each rule of the game a record breaks.
(c) The driver: a wrong guesser is out, his hand laid open, nobody asks him.
"""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clue_expert.core.cards import get_edition, pool_edition
from clue_expert.core.deals import random_deal
from clue_expert.core.errors import ClueError, RecordError
from clue_expert.core.observations import Accusation, Suggestion
from clue_expert.core.records import load_record, parse_record
from clue_expert.engine.seat.knowledge import replay_record
from clue_expert.engine.language.rules import parse_ruleset
from clue_expert.play.game import Player, play_game
from clue_expert.people.cli import main
from clue_expert.people.human import HumanPlayer
from clue_expert.people.notebook import NotebookSession
from clue_expert.play.players import RuleBasedPlayer
from clue_expert.testing.oracle import cnf_entailed
from clue_expert.testing.randomgame import random_generalized_record
from test_family import check_against_oracle, incremental_check



# --- (a) deduction against the oracle ----------------------------------------------
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 6), hidden=st.integers(1, 4),
       hand=st.integers(1, 3), turns=st.integers(0, 16))
def test_random_generalized_games_are_sound_and_complete(seed, players, hidden, hand, turns):
    rng = random.Random(seed)
    record = random_generalized_record(rng, players, hand, hidden, n_turns=turns, guess_rate=0.12)
    incremental_check(record)


def test_a_wrong_guess_lays_the_hand_open_to_every_seat():
    rng = random.Random(11)
    for _ in range(40):
        record = random_generalized_record(rng, 4, 3, 2, n_turns=14, guess_rate=0.3)
        guesses = [t for t in record.turns if isinstance(t, Accusation)]
        if guesses:
            break
    guess = guesses[0]
    assert guess.revealed is not None and set(guess.revealed) == set(record.deal.hands[guess.by])
    k = replay_record(record, complete=False)  # by the rules alone
    assert set(guess.revealed) <= k.held_by(guess.by)


# --- (b) records ---------------------------------------------------------------------
def _record(turns, **extra):
    data = {"game": "generalized", "edition": "pool-11-2", "players": ["ann", "bob", "cat"], "me": "ann",
            "hand": ["c1", "c2", "c3"], "turns": turns}
    data.update(extra)
    return data


def test_a_generalized_record_reads_and_writes_back():
    data = _record([
        {"by": "ann", "asks": "cat", "suggest": ["c3", "c7", "c9", "c11"], "shown_by": "cat", "card": "c7"},
        {"by": "bob", "asks": "ann", "suggest": ["c4", "c5"], "passed": ["ann"]},
        {"by": "cat", "asks": "bob", "suggest": ["c1", "c4", "c8"], "shown_by": "bob"},
        {"by": "bob", "accuse": ["c8", "c9"], "correct": False, "revealed": ["c4", "c5", "c6"]},
        {"by": "cat", "asks": "ann", "suggest": ["c10"], "passed": ["ann"]},
    ])
    record = parse_record(data)
    assert record.game == "generalized"
    assert record.turns[0] == Suggestion("ann", ("c3", "c7", "c9", "c11"), (), "cat", "c7", "c7", "cat")
    assert record.turns[3].revealed == ("c4", "c5", "c6")
    again = parse_record(record.to_dict())
    assert again.turns == record.turns and again.game == "generalized"
    k = replay_record(record)
    assert k.status("cat", "c7") == "held" and k.status("bob", "c6") == "held"
    assert k.status("ann", "c10") == "lacked"
    # the whole pool: ann 3, bob 3 (laid open), cat holds c7 of the 3 left besides the envelope's 2
    assert k.envelope() is not None


@pytest.mark.parametrize("turn, problem", [
    ({"by": "ann", "suggest": ["c4"], "passed": ["bob"]}, "needs asks"),
    ({"by": "ann", "asks": "ann", "suggest": ["c4"], "passed": ["ann"]}, "cannot ask himself"),
    ({"by": "ann", "asks": "bob", "suggest": [], "passed": ["bob"]}, "at least one card"),
    ({"by": "ann", "asks": "bob", "suggest": ["c4", "c4"], "passed": ["bob"]}, "repeats a card"),
    ({"by": "ann", "asks": "bob", "suggest": ["c4"], "passed": ["cat"]}, "only bob can pass"),
    ({"by": "ann", "asks": "bob", "suggest": ["c4"], "shown_by": "cat"}, "only bob can show"),
    ({"by": "ann", "asks": "bob", "suggest": ["c4"]}, "must either pass"),
    ({"by": "ann", "asks": "bob", "suggest": ["c4"], "passed": ["bob"], "shown_by": "bob"}, "must either pass"),
    ({"by": "ann", "asks": "bob", "suggest": ["c44"], "passed": ["bob"]}, "c44"),
    ({"by": "bob", "accuse": ["c8", "c9"], "correct": False}, "lays the guesser's hand open"),
    ({"by": "bob", "accuse": ["c8", "c9"], "correct": False, "revealed": ["c4", "c5"]}, "3 distinct cards"),
    ({"by": "bob", "accuse": ["c8", "c9"], "correct": False, "revealed": ["c1", "c5", "c6"]}, "which ann holds"),
    ({"by": "ann", "accuse": ["c8", "c9"], "correct": False, "revealed": ["c4", "c5", "c6"]}, "is not ann's hand"),
])
def test_each_broken_rule_of_the_game_is_one_clear_error(turn, problem):
    with pytest.raises(RecordError, match=problem):
        parse_record(_record([turn]))


def test_nobody_can_ask_a_player_who_is_out():
    turns = [{"by": "bob", "accuse": ["c8", "c9"], "correct": False, "revealed": ["c4", "c5", "c6"]},
             {"by": "cat", "asks": "bob", "suggest": ["c7"], "passed": ["bob"]}]
    with pytest.raises(RecordError, match="bob made a wrong guess earlier and is out"):
        parse_record(_record(turns))


def test_a_speed_clue_record_cannot_hold_an_interrogation():
    data = _record([{"by": "ann", "asks": "bob", "suggest": ["c4"], "passed": ["bob"]}])
    del data["game"]
    with pytest.raises(RecordError, match="unknown key"):
        parse_record(data)


def test_an_unknown_game_is_named():
    with pytest.raises(RecordError, match="game must be one of speed-clue, generalized or board"):
        parse_record(_record([], game="bridge"))


def test_pool_editions_by_id():
    ed = get_edition("pool-14-2")
    assert ed is pool_edition(14, 2)
    assert ed.categories == ("card",) and ed.envelope_size == 2 and ed.card_ids[0] == "c1"
    assert ed.hand_sizes(4) == [3, 3, 3, 3]
    with pytest.raises(ClueError, match="at least one hidden"):
        get_edition("pool-5-0")


# --- (c) the driver --------------------------------------------------------------------
class _Guesser(Player):
    """Guesses wrong at its first turn, or asks the first player about every card."""

    def __init__(self, name, wrong=False):
        self.name, self.wrong, self.seen, self.asked = name, wrong, [], []

    def start(self, edition, players, hand_sizes, hand):
        self.edition, self.hand = edition, tuple(hand)

    def suggest(self, turn, round):
        return self.edition.card_ids

    def interrogate(self, turn, round, askable):
        self.asked.append(tuple(askable))
        return askable[0], self.edition.card_ids

    def disprove(self, turn, by, cards, matching):
        return matching[-1]

    def observe(self, event):
        self.seen.append(event.observation)

    def accuse(self, turn):
        if self.wrong:
            self.wrong = False
            return self.edition.sort_cards(self.hand[:2])  # his own cards: surely not the envelope
        return None


def test_a_wrong_guesser_is_out_and_his_hand_is_shown_to_everyone():
    ed = pool_edition(11, 2)
    deal = random_deal(ed, ("ann", "bob", "cat"), random.Random(5))
    players = {"ann": _Guesser("ann"), "bob": _Guesser("bob", wrong=True), "cat": _Guesser("cat")}
    result = play_game(deal, players, game="generalized", max_rounds=3)
    guess = result.events[1].observation
    assert isinstance(guess, Accusation) and guess.by == "bob" and not guess.correct
    assert guess.revealed == deal.hands["bob"]
    for p in ("ann", "cat"):
        assert guess in players[p].seen
    # after bob is out nobody asks him, and he never plays again
    assert all("bob" not in a for a in players["ann"].asked[1:])
    assert all(not isinstance(e.observation, Suggestion) or "bob" not in (e.observation.by, e.observation.asks)
               for e in result.events[2:])
    # an interrogation: the shower's card only for the asker and the shower
    ask = result.events[0].observation
    assert ask.asks == "bob" and ask.shown_by == "bob"
    assert players["cat"].seen[0].card is None and players["ann"].seen[0].card == ask.actual
    assert result.record("ann").game == "generalized"


def test_rule_based_players_play_the_generalized_game_to_the_end():
    ed = pool_edition(14, 2)
    names = ("ann", "bob", "cat", "dan")
    for seed in range(3):
        deal = random_deal(ed, names, random.Random(seed))
        result = play_game(deal, {n: RuleBasedPlayer(n, "generalized-ask-all-uncertain", seed=i)
                                  for i, n in enumerate(names)}, game="generalized")
        assert result.winner in names and not result.wrong_accusations
        for n in names:  # every seat's record replays to a sheet the oracle agrees with
            record = parse_record(result.record(n).to_dict())
            check_against_oracle(record, replay_record(record), len(record.turns))


def test_a_speed_clue_strategy_cannot_ask_in_speed_clue():
    rs = parse_ruleset({"id": "asker", "kind": "strategy", "title": "t", "rules": [
        {"id": "ask-all", "message": "m", "when": "your-turn", "then": [{"ask": {"player": "first(askable())",
                                                                                  "cards": "CARDS"}}]}]}, "<test>")
    deal = random_deal(get_edition("cluedo"), ("ann", "bob", "cat"), random.Random(1))
    players = {n: RuleBasedPlayer(n, strategy=rs if n == "ann" else "clue-expert-focused") for n in deal.players}
    with pytest.raises(ClueError, match="only the generalized game"):
        play_game(deal, players)


# --- (d) the commands -------------------------------------------------------------------
# five games in the default run, twenty in the slow tier (.ci/run runs it)
@pytest.mark.parametrize("games", [5, pytest.param(20, marks=pytest.mark.slow)])
def test_simulate_reports_generalized_games(capsys, games):
    assert main(["simulate", "--game", "generalized", "--players", "4", "--hand", "3", "--hidden", "2",
                 "--games", str(games), "--json", "--workers", "1"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == games and summary["wrong_accusations"] == 0
    assert summary["config"]["game"] == "generalized" and summary["config"]["edition"] == "pool-14-2"
    assert sum(s["wins"] for s in summary["seats"]) == summary["won_games"] > 0


def test_played_records_read_back_and_deduce_equals_the_oracle(tmp_path, capsys):
    path = tmp_path / "g.yaml"
    assert main(["play", "--game", "generalized", "--players", "3", "--hand", "3", "--hidden", "2", "--seed", "4",
                 "--show", "quiet", "--no-sheets", "--record", str(path), "--record-seat", "player2"]) == 0
    out = capsys.readouterr().out
    assert "The generalized game" in out and " asks " in out
    record = load_record(path)
    assert record.game == "generalized" and all(t.asks for t in record.turns if isinstance(t, Suggestion))
    for upto in (1, len(record.turns) // 2, len(record.turns)):
        assert main(["deduce", "--json", "--turn", str(upto), str(path)]) == 0
        sheet = json.loads(capsys.readouterr().out)
        got = {(o, c): s for o, row in sheet["cells"].items() for c, s in row.items() if s != "unknown"}
        assert got == cnf_entailed(record, upto)
    assert main(["replay", str(path)]) == 0
    assert "asks" in capsys.readouterr().out


@pytest.mark.parametrize("argv, problem", [
    (["simulate", "--hand", "3"], "add --game generalized"),
    (["play", "--game", "generalized", "--edition", "cluedo", "--hidden", "2"], "either --edition or"),
    (["simulate", "--game", "generalized", "--hand", "0"], "at least 1"),
    (["simulate", "--game", "generalized", "--deal", "kingston-1-3p"], "leave out --deal"),
])
def test_bad_game_options_are_one_clear_error(argv, problem, capsys):
    assert main(argv) == 2
    assert problem in capsys.readouterr().err


def test_the_human_seat_asks_one_player_about_a_list():
    told = []
    answers = iter(["bob c1 c2", "dan: c4, c5", "bob: c9 c9", "bob:", "bob: c4 c7"])
    human = HumanPlayer("ann", lambda prompt: next(answers), told.append)
    human.start(pool_edition(11, 2), ("ann", "bob", "cat"), {"ann": 3, "bob": 3, "cat": 3}, ("c1", "c2", "c3"))
    assert human.interrogate(1, 1, ("bob", "cat")) == ("bob", ("c1", "c2"))
    assert human.interrogate(2, 1, ("bob", "cat")) == ("bob", ("c4", "c7"))
    errors = [m.text for m in told if getattr(m, "kind", "") == "error"]
    assert any("start with the player you ask" in e for e in errors)  # dan is not at the table
    assert any("each card once" in e for e in errors) and any("at least one card" in e for e in errors)


def test_the_notebook_keeps_a_generalized_game(tmp_path):
    path = tmp_path / "nb.yaml"
    s = NotebookSession(path, game="generalized", strategy="generalized-ask-all-uncertain")
    s.start()
    for line in ["pool-11-2", "ann bob cat", "ann", "c1 c2 c3", ""]:
        s.handle(line)
    assert s.notebook.game == "generalized"
    out = s.handle("ann asks bob: c4 c5 c6 / bob shows c5")
    assert any("advice" in getattr(m, "text", "") and "ask " in m.text for m in out)
    s.handle("cat asks bob: c7 c8 / yes")
    s.handle("bob asks cat: c9 c10 / no")
    out = s.handle("bob guesses c10 c11 wrong / hand c4 c5 c6")
    assert any("contradict" in getattr(m, "text", "") or "refused" in getattr(m, "text", "") for m in out)
    assert len(s.notebook.turns) == 3  # the contradicting guess is refused, nothing lost
    out = s.handle("bob guesses c10 c11 wrong / hand c5 c7 c9")
    assert len(s.notebook.turns) == 4
    k = s.notebook.knowledge
    assert k.status("bob", "c7") == "held" and k.status("cat", "c9") == "lacked"
    again = load_record(path)  # saved after every entry, as a generalized record
    assert again.game == "generalized" and again.turns[-1].revealed == ("c5", "c7", "c9")


def test_the_grid_reproduction_plays_a_cell_and_compares_the_shape(capsys):
    # a field of players that exist whatever else is shipped: the mechanics, not the figures
    from clue_expert.play.group1_grid import cells, group1
    assert (3, 2, 1) in cells() and (10, 5, 2) in cells() and (7, 16, 1) not in cells()
    field = {"super-crazy": "generalized-ask-all-uncertain",
             "psychotic": "generalized-ask-all-uncertain:accusation=threshold-95"}
    tables = group1(games=4, players=(3,), hands=(1,), field=field)
    assert len(tables) == 1 and tables[0].rows[0][0] == "3 players"
    (published_cell, ours), _ = tables[0].rows[0][1]
    assert published_cell == "2/9" and "/" in ours
    assert any("compare which Broomhead ranks better" in n for n in tables[0].notes)
