"""Reproductions a reader can trust (issue 27): the seat option choice=,
Kingston's possible strategies choosing at random, every cell a mean with
its 10-90 % range, Mitchell answering with her own rule, and the run that
shows why Kingston's Deduction strategy differs from his."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.core.deals import get_deal
from clue_expert.core.errors import ClueError
from clue_expert.core.paths import data_dir
from clue_expert.engine.levels import get_level
from clue_expert.engine.rules import load_ruleset
from clue_expert.people.cli import main
from clue_expert.play.game import play_game
from clue_expert.play.players import parse_seat, seat_player
from clue_expert.play.reproduce import Estimate, estimate, mean_estimate, mitchell
from clue_expert.play.seats import seat_spec
from clue_expert.testing.scenarios import check_coverage, load_scenarios, run_scenario, scenario_path


def _questions(deal_id: str, strategy: str, seed: int) -> tuple[list, int | None]:
    """The suggestions of one game (who, cards) and its solution round."""
    deal = get_deal(deal_id)
    players = {p: seat_player(p, strategy, seed=seed * 10 + i) for i, p in enumerate(deal.players)}
    result = play_game(deal, players, max_rounds=30)
    asked = [(e.observation.by, e.observation.cards) for e in result.events
             if type(e.observation).__name__ == "Suggestion"]
    return asked, result.solution_round


def test_seat_option_choice_is_parsed_checked_and_written_back():
    parts = parse_seat("kingston-next-possible:knowledge=kingston:choice=random")
    assert parts["choice"] == "random"
    assert seat_spec(parts).endswith(":knowledge=kingston:choice=random")
    assert "choice" not in parse_seat("kingston-next-possible")
    with pytest.raises(ClueError, match="choice is 'first' or 'random'"):
        parse_seat("kingston-next-possible:choice=sometimes")
    assert seat_player("player1", "kingston-next-possible:choice=random").choice == "random"
    assert seat_player("player1", "kingston-next-possible").choice is None


@pytest.mark.parametrize("strategy", ["kingston-next-possible", "kingston-previous-possible"])
def test_possible_strategies_do_not_again_equal_no_intelligence_on_deal_1(strategy):
    """With his random choice, the possible strategies ask other questions
    than No intelligence on deal 1 (3 players), and their outcome varies
    with the seed -- with choice=first they asked exactly No intelligence's
    questions' outcome on every deal."""
    ni, ni_round = _questions("kingston-1-3p", "kingston-no-intelligence:knowledge=kingston", 1)
    seat = f"{strategy}:knowledge=kingston:choice=random"
    games = [_questions("kingston-1-3p", seat, s) for s in range(1, 9)]
    assert all(asked != ni for asked, _ in games)
    if strategy == "kingston-previous-possible":  # 3 players, deal 1: 1-9 rounds over 20 seeds, never always 6
        assert {r for _, r in games} != {ni_round}
    # the same seed replays the same game
    assert _questions("kingston-1-3p", seat, 3) == games[2]


def test_possible_strategies_fall_back_to_list_order_under_random_choice():
    """The random choice is the possible card and its companions; the first
    turn (no possible list yet) is No intelligence's list-order question."""
    ni, _ = _questions("kingston-1-3p", "kingston-no-intelligence:knowledge=kingston", 1)
    asked, _ = _questions("kingston-1-3p", "kingston-previous-possible:knowledge=kingston:choice=random", 5)
    assert asked[0] == ni[0]


def test_estimate_is_the_mean_and_the_10_90_range():
    e = estimate(list(range(1, 11)))
    assert (e.mean, e.runs) == (5.5, 10) and e.low < 2 and e.high > 9
    assert e.contains(5) and not e.contains(1) and not e.contains(10.5)
    assert estimate([4, 4, 4]) == Estimate(4.0, 4.0, 4.0, 3) and str(estimate([4])) == "4"
    assert estimate([]) is None
    m = mean_estimate([1, 2, 3, 4, 5, 6, 7, 8, 9, 10] * 4, seed=1)
    assert m.mean == 5.5 and m.low < 5.5 < m.high and m.high - m.low < 2  # the mean's range, not the games'
    assert mean_estimate([1, 9] * 10, seed=1) == mean_estimate([1, 9] * 10, seed=1)


def test_reproduce_kingston_json_gives_mean_and_range_per_cell(capsys):
    assert main(["reproduce", "kingston", "--json", "--envelopes", "0", "--seeds", "3", "--no-beside",
                 "--workers", "1"]) == 0
    three, six = json.loads(capsys.readouterr().out)
    rows = {r["label"]: r["cells"] for r in three["rows"]}
    cell = rows["kingston-previous-possible"][0]
    assert set(cell["ours"]) == {"mean", "p10", "p90", "runs"} and cell["ours"]["runs"] == 3
    assert cell["inside_range"] == (cell["ours"]["p10"] <= 3 <= cell["ours"]["p90"])
    assert any("choice=random" in n for n in three["notes"])
    assert any(n.endswith("published cells of the main rows inside our 10-90 % range") for n in six["notes"])


def test_reproduce_kingston_rejects_bad_sizes(capsys):
    assert main(["reproduce", "kingston", "--seeds", "0"]) == 2
    assert "--seeds must be at least 1" in capsys.readouterr().err
    assert main(["reproduce", "kingston", "--base-deal", "6", "--seeds", "1"]) == 2
    assert "base deals are Kingston's deals 1-5" in capsys.readouterr().err


def test_reproduce_mitchell_answers_with_her_rule_by_default():
    tables = mitchell(games=1, tables=("5.2",))
    assert any("responses 'mitchell'" in n for n in tables[0].notes)
    assert any(n.endswith("cells match") for n in tables[0].notes)
    other = mitchell(games=1, tables=("5.2",), response="minimal-information")
    assert any("responses 'minimal-information'" in n for n in other[0].notes)


def test_kingston_deduction_is_no_intelligence_without_his_possible_set_rule():
    """The measured cause of Deduction beating No intelligence here: take
    the two rules that apply his Deduction-only inference (a possible set
    whose other cards the player lacks leaves the third held) out of his
    level, and Deduction asks exactly No intelligence's questions on every
    deal; with them, it does not."""
    level = Path(__file__).resolve().parent / "data" / "levels" / "kingston-without-possible-sets.yaml"
    assert {r.id for r in get_level(str(level)).rulesets()[0].rules} == {
        "kingston-absent-cards", "kingston-possible-cards", "kingston-full-hand-known"}
    differs = 0
    for n in (3, 6):
        for d in range(1, 6):
            deal = f"kingston-{d}-{n}p"
            ni = _questions(deal, "kingston-no-intelligence:knowledge=kingston", 1)
            without = _questions(deal, f"kingston-deduction:knowledge={level}", 1)
            assert without == ni
            differs += _questions(deal, "kingston-deduction:knowledge=kingston", 1) != ni
    assert differs == 10


def test_group1_end_game_padding_may_name_other_uncertain_cards():
    """Group 1's padding takes any card the asked player does not certainly
    hold: in a two-player end game (2 hidden cards, 5 uncertain ones) some
    seeds ask about more than the two uncertain cards the question needs;
    with padding limited to the cards he lacks none did."""
    ed = get_edition("pool-8-2")
    more = 0
    for s in range(40):
        p = seat_player("ann", "group1-crazy-broomhead", seed=s)
        p.start(ed, ("ann", "bob"), {"ann": 3, "bob": 3}, ("c1", "c2", "c3"))
        who, cards = p.interrogate(1, 1, ("bob",))
        assert who == "bob" and {"c4", "c5", "c6", "c7", "c8"} & set(cards)
        more += len(set(cards) - {"c1", "c2", "c3"}) > 2
    assert 5 <= more <= 35


def test_optional_no_holder_rule_has_passing_scenarios_and_is_not_in_the_level():
    path = data_dir("rules") / "levels" / "kingston" / "no-holder.yaml"
    rs = load_ruleset(path)
    scenarios = load_scenarios(scenario_path(rs.path))
    assert not check_coverage(rs, scenarios)
    for sc in scenarios:
        run_scenario(sc, get_level("kingston").rulesets() + (rs,))
    assert rs.id not in {r.id for r in get_level("kingston").rulesets()}


def test_kingston_asked_again_model_fires_true_clues_in_his_deal_1(tmp_path, capsys):
    """Kingston's 'human' inference (asked A,B,C then D,B,C: shown A), an
    opponent model, fires in a played No-intelligence game of his deal 1 (3
    players, player1's view) and every clue it gives is true of the deal."""
    record = tmp_path / "k1.json"
    assert main(["play", "--deal", "kingston-1-3p", "--strategy", "kingston-no-intelligence:knowledge=kingston",
                 "--record", str(record), "--show", "quiet", "--no-sheets", "--no-color"]) == 0
    capsys.readouterr()
    model = Path(__file__).resolve().parent.parent / "rules" / "models" / "kingston-asked-again.yaml"
    assert main(["deduce", str(record), "--knowledge", "kingston", "--model", str(model), "--json"]) == 0
    clues = [c["clue"] for c in json.loads(capsys.readouterr().out)["probable"]]
    assert clues == ["player3 probably holds dagger", "player2 probably holds mrs-peacock",
                     "player3 probably holds mrs-white", "player2 probably holds revolver"]
    deal = get_deal("kingston-1-3p")
    for clue in clues:
        owner, _, _, card = clue.split()
        assert card in deal.hands[owner]


def test_own_turn_level_solves_at_the_seats_own_turn():
    """Mitchell's players read others' suggestions and accuse only at their
    own turn (her section 4.1), so a seat at an own-turn level solves at one
    of its own turns, and a game's round to a solution is the round of the
    winning accusation.  Before the fix a seat that found the envelope in
    what it read at its turn was credited with the turn of the event it
    read, often in the round before (6-player deal 1: solution 5.22 rounds,
    accusations 5.40, over 100 games)."""
    solved = 0
    for seed in range(6):
        deal = get_deal("mitchell-1-6p")
        players = {p: seat_player(p, "mitchell-basic:knowledge=mitchell:response=mitchell", seed=seed * 10 + i)
                   for i, p in enumerate(deal.players)}
        result = play_game(deal, players)
        own = {e.turn: e.observation.by for e in result.events if type(e.observation).__name__ == "Suggestion"}
        for p, report in result.reports.items():
            t = report["solved_turn"]
            if t:
                assert own.get(t) == p, (seed, p, t, own.get(t))
                solved += 1
        assert result.solution_round == result.win_round, seed
    assert solved >= 6


def test_no_intelligence_is_shown_a_new_card_every_turn_so_six_player_deal_2_ends_by_round_15():
    """The argument of docs/reproductions.md against Kingston's 16 rounds for
    No intelligence on his 6-player deal 2: a seat that asks only for cards
    it neither holds nor has seen is either shown a card it had not seen or
    left unanswered (and then names the envelope), so with 3 cards in hand
    it has seen the other 15 by its 15th turn -- by round 15, whatever the
    split of his hands and the seat order."""
    deal = get_deal("kingston-2-6p")
    players = {p: seat_player(p, "kingston-no-intelligence:knowledge=kingston", seed=1) for p in deal.players}
    result = play_game(deal, players)
    seen: dict = {p: set() for p in deal.players}
    for e in result.events:
        obs = e.observation
        if type(obs).__name__ == "Suggestion" and obs.shown_by is not None:
            assert obs.card not in seen[obs.by] and obs.card not in deal.hands[obs.by]
            seen[obs.by].add(obs.card)
    assert result.solution_round is not None and result.solution_round <= 15
