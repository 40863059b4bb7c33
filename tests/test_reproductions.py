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
from clue_expert.engine.seat.levels import get_level
from clue_expert.engine.language.rules import load_ruleset
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


@pytest.mark.parametrize("strategy", ["kingston-next-possible",
                                      pytest.param("kingston-previous-possible", marks=pytest.mark.slow)])
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


@pytest.mark.slow  # a long run (the slow tier runs it in .ci/run)
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


@pytest.mark.slow  # a long run (the slow tier runs it in .ci/run); test_models.py reproduces her table 5.2 by default
def test_reproduce_mitchell_answers_with_her_rule_by_default():
    tables = mitchell(games=1, tables=("5.2",))
    assert any("responses 'mitchell'" in n for n in tables[0].notes)
    assert any(n.endswith("cells match") for n in tables[0].notes)
    other = mitchell(games=1, tables=("5.2",), response="minimal-information")
    assert any("responses 'minimal-information'" in n for n in other[0].notes)


@pytest.mark.slow  # a long run: 30 games (the slow tier runs it in .ci/run)
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


# ------------------------------------------- issue 37: the closed form, the calibrated columns
def _no_intelligence_games(deals: list) -> list:
    from clue_expert.play.reproduce import NO_INTELLIGENCE_SEAT
    from clue_expert.play.simulate import GameSpec, run_games
    specs = [GameSpec(i, d, (NO_INTELLIGENCE_SEAT,) * len(d.players), 1) for i, d in enumerate(deals)]
    return [r.solution_round for r in run_games(specs, 1)]


# three random splits in the default run, eight in the slow tier (.ci/run runs it)
@pytest.mark.parametrize("splits", [3, pytest.param(8, marks=pytest.mark.slow)])
def test_no_intelligence_closed_form_agrees_with_the_simulator_on_random_splits(splits):
    """The closed form (the least over the seats of 1 + the unheld cards
    listed before the envelope's, and of the cards outside hand and envelope)
    is what the simulator plays, on random per-player splits of his deals
    and on random envelope variants of them."""
    import random

    from clue_expert.play.reproduce import KEEPS, kingston_split, no_intelligence_round
    from clue_expert.play.simulate import envelope_variants
    rng = random.Random(37)
    deals = []
    for _ in range(splits):
        deal = kingston_split(rng.randint(1, 5), tuple(rng.choice(KEEPS) for _ in range(3)))
        deals += [deal, rng.choice(envelope_variants(deal))]
    deals += [get_deal(f"kingston-{d}-3p") for d in (2, 5)]
    played = _no_intelligence_games(deals)
    assert played == [no_intelligence_round(d) for d in deals]
    assert len(set(played)) >= 3  # not one figure for all
    # without exhaustive elimination the deal-2 figure is his 16 at six players, but 13 (his 12) at three
    assert no_intelligence_round(get_deal("kingston-2-6p"), exhaustive=False) == 16
    assert no_intelligence_round(get_deal("kingston-2-3p"), exhaustive=False) == 13


def test_split_rules_that_fit_his_deal_5_trace():
    from clue_expert.play.reproduce import calibrated_split, fits_deal_5_trace, kingston_split, split_rules
    rules = split_rules()
    assert len(rules) == 1200  # of 20 ** 3
    rule, tied = calibrated_split()
    assert (rule.rounds, rule.matches, tied) == ((7, 15, 7, 9, 5), 4, 160)
    assert fits_deal_5_trace(rule.keep)
    five = kingston_split(5, rule.keep)
    assert set(five.hands["player1"]) == {"miss-scarlett", "col-mustard", "library"}
    assert kingston_split(1, ((0, 1, 2),) * 3) == get_deal("kingston-1-6p")  # the shipped split
    # of the 20 rules that treat every hand alike, those that fit the trace give at most 2 of his 5
    alike = [r for r in rules if r.keep[0] == r.keep[1] == r.keep[2]]
    assert alike and max(r.matches for r in alike) == 2


@pytest.mark.parametrize("n", [3, pytest.param(6, marks=pytest.mark.slow)])
def test_list_order_strategies_play_the_same_game_whatever_the_seed(n):
    """reproduce plays a list-order cell once: two seeds give the same questions."""
    from clue_expert.play.reproduce import KINGSTON_STRATEGIES, _list_order
    for strategy in KINGSTON_STRATEGIES:
        if not _list_order(strategy, "random", "minimal-information"):
            continue
        seat = f"{strategy}:knowledge=kingston"
        assert _questions(f"kingston-4-{n}p", seat, 1) == _questions(f"kingston-4-{n}p", seat, 7)
    assert not _list_order("kingston-next-possible", "random", "minimal-information")
    assert _list_order("kingston-next-possible", "first", "minimal-information")
    assert not _list_order("kingston-deduction", "first", "random-card")


def test_calibrated_column_is_never_counted_into_the_headline():
    """The headline count reads the 'ours' figures only: a calibrated column
    that matches every cell leaves it as it was, and is counted apart."""
    from clue_expert.play.reproduce import Comparison, _calibrated_count, _match_count
    far, near = Estimate(20.0, 19.0, 21.0, 3), Estimate(6.0, 5.0, 7.0, 3)
    table = Comparison("t", ["deal-1", "deal-2"], rows=[("a", [(6, far), (6, far)])])
    before = _match_count(table, ["a"])
    table.calibrated = {"a": [near, None]}
    assert _match_count(table, ["a"]) == before and before.startswith("0 of 2 ")
    assert _calibrated_count(table).startswith("cal.: 1 of 2 ")
    cell = table.to_json()["rows"][0]["cells"][0]
    assert cell["inside_range"] is False and cell["calibrated"]["inside_range"] is True


@pytest.mark.slow  # a long run (the slow tier runs it in .ci/run)
def test_reproduce_kingston_json_gives_both_columns_counted_apart(capsys):
    assert main(["reproduce", "kingston", "--json", "--envelopes", "0", "--seeds", "2", "--workers", "1",
                 "--quiet"]) == 0
    three, six = json.loads(capsys.readouterr().out)
    for table in (three, six):
        cells = [c for r in table["rows"] for c in r["cells"] if isinstance(c["published"], (int, float))]
        inside = sum(bool(c.get("inside_range")) for c in cells)
        assert any(n.startswith(f"{inside} of ") and "main rows" in n for n in table["notes"])
        cal = sum(bool(c["calibrated"].get("inside_range")) for c in cells)
        assert any(n.startswith(f"cal.: {cal} of 30 ") for n in table["notes"])
        assert "calibrated, not his text" in table["calibrated_heading"]
    rows = {r["label"]: r["cells"] for r in three["rows"]}
    # a list-order cell is one game, a random choice's one per seed
    assert rows["kingston-no-intelligence"][0]["ours"]["runs"] == 1
    assert rows["kingston-next-possible"][0]["ours"]["runs"] == 2
    # calibrated: Deduction asks No intelligence's questions, so his three-player row
    assert [c["calibrated"]["ours"]["mean"] for c in rows["kingston-deduction"][:5]] == [6, 12, 6, 7, 4]
    assert [c["ours"]["mean"] for c in rows["kingston-deduction"][:5]] != [6, 12, 6, 7, 4]
    six_rows = {r["label"]: r["cells"] for r in six["rows"]}
    assert "no single rule gives both his deal-2 figures" in six_rows["kingston-no-intelligence"][1]["calibrated"]["flag"]
    assert six_rows["kingston-no-intelligence"][5]["calibrated"]["ours"] is None


@pytest.mark.slow  # a long run (the slow tier runs it in .ci/run)
def test_reproduce_mitchell_calibrated_column_is_counted_apart():
    """Her tables with and without the calibrated column: the same headline
    cells (means and bootstrap ranges), the calibrated one counted apart."""
    tables = mitchell(games=1, tables=("5.1", "5.2"), calibrated_tables=("5.1", "5.2"))
    without = mitchell(games=1, tables=("5.1", "5.2"), calibrated=False)
    default = mitchell(games=1, tables=("5.1", "5.2"))  # the calibrated column on Table 5.1 only
    assert default[0].calibrated == tables[0].calibrated and not default[1].calibrated
    assert [t.rows for t in default] == [t.rows for t in without]
    for t, w in zip(tables, without):
        assert set(t.calibrated) == {label for label, _ in t.rows} and not w.calibrated
        assert t.rows == w.rows
        assert any(n.startswith("cal.: ") and "counted on its own" in n for n in t.notes)
        assert [n for n in t.notes if n.endswith("cells match")] == [n for n in w.notes if n.endswith("cells match")]
    assert tables[0].calibrated != {label: [o for _, o in cells] for label, cells in tables[0].rows}


def test_progress_lines_keep_coming_while_no_game_finishes():
    import io
    import time

    from clue_expert.people.render import ProgressLines
    out = io.StringIO()
    lines = ProgressLines("work", None, file=out, every=0.2)
    lines.start()
    time.sleep(1.5)
    lines.done()
    text = out.getvalue().splitlines()
    assert len(text) >= 4 and text[-1].startswith("work: 0 games, done in")
    n = len(out.getvalue())
    time.sleep(0.5)
    assert len(out.getvalue()) == n  # stopped with the work
