"""Issue 5's players: the information-gain strategies, seat specs, and the
opponent models' probable clues, which stay off the sheet."""
from __future__ import annotations

import json
import random

import pytest

from clue_expert.people.cli import main
from clue_expert.core.deals import get_deal
from clue_expert.core.errors import ClueError
from clue_expert.play.game import play_game
from clue_expert.play.players import load_decisions, parse_seat, seat_player
from clue_expert.testing.randomgame import random_record
from clue_expert.core.observations import Suggestion
from clue_expert.core.records import dump_record
from clue_expert.engine.seat.knowledge import replay_record as replay
from clue_expert.engine.language.rules import default_rulesets

MODELS = [load_decisions("model", "first-round-asks"), load_decisions("model", "pattern-analysis")]


def test_seat_specs_parse_and_refuse_bad_parts():
    d = parse_seat("clue-expert-focused:model=pattern-analysis:accusation=probable-clues:model=first-round-asks")
    assert d == {"strategy": "clue-expert-focused", "response": "minimal-information",
                 "accusation": "probable-clues", "models": ["pattern-analysis", "first-round-asks"],
                 "knowledge": "complete", "rules": []}
    with pytest.raises(ClueError, match="cannot read 'colour=red'"):
        parse_seat("clue-expert-focused:colour=red")
    with pytest.raises(ClueError, match="unknown model 'pattern-analisys'; did you mean pattern-analysis"):
        parse_seat("clue-expert-focused:model=pattern-analisys")
    p = seat_player("ann", "kingston-next-not-held:response=seen-model:model=first-round-asks")
    assert p.response.id == "seen-model" and [m.id for m in p.models] == ["first-round-asks"]


@pytest.mark.parametrize("strategy", ["clue-expert-information-gain", "clue-expert-open-information-gain"])
def test_information_players_finish_games_without_wrong_accusations(strategy):
    deal = get_deal("kingston-1-3p")
    players = {p: seat_player(p, s, seed=i) for i, (p, s) in
               enumerate(zip(deal.players, [strategy, "clue-expert-focused", "kingston-next-not-held"]))}
    result = play_game(deal, players)
    assert result.winner is not None and not result.wrong_accusations
    reasons = [c.message for _, c in players[deal.players[0]].decisions if c.kind == "suggest"]
    assert reasons and all("expected gain" in r or "envelope is known" in r for r in reasons)


def test_probable_clues_stay_off_the_sheet_and_refuted_ones_are_reported():
    rng = random.Random(11)
    for _ in range(6):
        record = random_record(rng, 4, n_turns=24)
        plain = replay(record)
        k = replay(record, rulesets=[*default_rulesets(), *MODELS])
        assert k.probable, "the first round always gives first-round clues"
        assert set(k.justifications) == set(plain.justifications)  # the sheet is untouched
        assert not any(key[0].startswith("probably-") for key in k.justifications)
        for key in k.probable_clues(refuted=True):
            kind, owner, card = key
            assert k.status(owner, card) == ("lacked" if kind == "probably-held" else "held")
        for key in k.probable_clues():
            j = k.justification(key)
            assert j.rule in {r.id for m in MODELS for r in m.rules}
            assert k.roots(key), "every probable clue is traced to observations"


def test_deduce_and_why_with_models(tmp_path, capsys):
    record = random_record(random.Random(3), 3, n_turns=9)
    path = tmp_path / "game.yaml"
    dump_record(record, path)
    assert main(["deduce", "--json", "--model", "first-round-asks", str(path)]) == 0
    sheet = json.loads(capsys.readouterr().out)
    clue = next(c for c in sheet["probable"] if not c["refuted"])
    assert clue["rule"] == "suppose-first-round-asker-lacks-named-cards"
    assert main(["why", "--json", "--model", "first-round-asks", str(path), clue["clue"]]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["status"] == "probable" and answer["roots"]
    # without the model the clue is not known
    assert main(["why", str(path), clue["clue"], "--no-color"]) == 3


def test_seen_model_shows_a_card_the_asker_already_knows():
    k2 = replay(random_record(random.Random(5), 3, n_turns=0),
                rulesets=[*default_rulesets(), load_decisions("response", "seen-model")])
    me = k2.me
    asker = next(p for p in k2.players if p != me)
    hand = sorted(k2.held_by(me))
    # the asker saw this seat show hand[1] on an earlier turn
    k2.observe(Suggestion(asker, (hand[1],), (), me, hand[1]), 1)
    cands = k2.request("disprove-request", {"turn": 2, "by": asker, "cards": tuple(hand[:2]),
                                            "matching": tuple(hand[:2])})
    assert cands[0].rule == "show-card-asker-already-knows" and cands[0].options == ((hand[1],),)


def test_reproduce_mitchell_with_an_extra_strategy(capsys):
    assert main(["reproduce", "mitchell", "--table", "5.2", "--games", "1", "--workers", "1", "--json",
                 "--strategy", "clue-expert-focused"]) == 0
    tables = json.loads(capsys.readouterr().out)
    extra = [t for t in tables if "clue-expert-focused (ours)" in t["title"]]
    assert extra and all(c["ours"] is not None for row in extra[0]["rows"] for c in row["cells"])


def test_a_reused_player_does_not_reuse_the_last_games_beliefs():
    from clue_expert.core.cards import get_edition
    from clue_expert.core.deals import random_deal
    from clue_expert.play.players import RuleBasedPlayer
    e = get_edition("cluedo")
    names = ("p1", "p2", "p3")
    d1, d2 = (random_deal(e, names, random.Random(s)) for s in (1, 2))
    sizes = {p: len(d1.hands[p]) for p in names}
    reused = RuleBasedPlayer("p1", "clue-expert-information-gain")
    reused.start(e, names, sizes, d1.hands["p1"])
    reused.suggest(1, 1)
    reused.start(e, names, sizes, d2.hands["p1"])
    fresh = RuleBasedPlayer("p1", "clue-expert-information-gain")
    fresh.start(e, names, sizes, d2.hands["p1"])
    assert reused.suggest(1, 1) == fresh.suggest(1, 1)


def test_estimates_do_not_depend_on_the_order_of_the_cards():
    from clue_expert.engine.reasoning.scoring import SuggestionEvaluator
    k = replay(random_record(random.Random(1), 4, n_turns=12))
    ev = SuggestionEvaluator(k)
    for t in ev.candidates()[:10]:
        assert ev.estimate(t[::-1]).gain_bits == pytest.approx(ev.estimate(t).gain_bits)
        assert ev.evaluate(t[::-1]).gain_bits == pytest.approx(ev.evaluate(t).gain_bits)


def test_a_model_named_twice_runs_once():
    assert parse_seat("clue-expert-focused:model=first-round-asks:model=first-round-asks")["models"] == \
        ["first-round-asks"]
