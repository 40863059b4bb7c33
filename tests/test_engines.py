"""The engine interface (clue_expert/engine/engines/base.py) and the experta
adapter: experta's own Rete network and agenda match and order every rule."""
from __future__ import annotations

import collections
import random

import pytest

from clue_expert.core.errors import UnknownEngineError
from clue_expert.core.observations import DealtHand
from clue_expert.engine import engines
from clue_expert.engine.engines import (DEFAULT_ENGINE, ENGINES, EngineFact, check_engine_name, choose_engine,
                                       make_engine)
from clue_expert.engine.language.ir import Lit, Op, Pattern, Var, evaluate
from clue_expert.engine.language import ir
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.seat.levels import LevelError, load_level
from clue_expert.people.cli import main
from clue_expert.play.players import parse_seat, seat_player
from clue_expert.engine.language.rules import compile_ruleset
from clue_expert.engine.library import FUNCTIONS
from clue_expert.testing.randomgame import random_record


def _watched_game(seed: int = 3):
    """A random game's record observed by a seat on experta, with every
    engine event counted: (knowledge, fired per rule, activations added per rule)."""
    record = random_record(random.Random(seed), n_players=4, n_turns=16)
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, engine="experta")
    fired: collections.Counter = collections.Counter()
    added: collections.Counter = collections.Counter()

    def watch(what, sign, item):
        if what == "fire":
            fired[item.rule] += 1
        elif what == "activation" and sign == "+":
            added[item.rule] += 1
    k._engine.watch = watch
    k.observe(DealtHand(k.me, tuple(record.hand)))
    for n, turn in enumerate(record.turns, start=1):
        k.observe(turn, n)
    return k, fired, added


def test_every_fired_rule_was_activated_by_expertas_matcher():
    k, fired, added = _watched_game()
    made = k._engine.activations_made
    assert len(fired) >= 10, fired  # intake, propagation and counting rules all fired
    for rule, n in fired.items():
        # every firing is an activation experta's Rete network produced for that rule
        assert made[rule] >= n > 0, (rule, made[rule], n)
        assert added[rule] >= n, (rule, added[rule], n)
    # the observations' intake, propagation and counting rules among them
    assert {"record-pass-as-lacked", "holder-excludes-other-owners"} <= set(fired)


def test_the_adapter_matches_a_join_and_a_test_over_bound_variables():
    raw = {"id": "demo", "title": "demo", "rules": [{
        "id": "held-elsewhere", "message": "{o} holds {c}, so {p} lacks it",
        "match": [{"held": {"owner": "o", "card": "c"}}, {"hand-size": {"owner": "p", "size": "n"}}],
        "if": "p != o and p != ENVELOPE",
        "then": [{"lacked": ["p", "c"]}]}]}
    rs = compile_ruleset(raw, "demo.yaml", FUNCTIONS)
    engine = make_engine("experta")
    engine.load(rs.rules)
    engine.declare(EngineFact.of("hand-size", {"owner": "bob", "size": 3}))
    engine.declare(EngineFact.of("held", {"owner": "amy", "card": "rope"}))
    assert [a.rule for a in engine.agenda()] == ["held-elsewhere"]
    firings = list(engine.run())
    assert len(firings) == 1
    assert firings[0].activation.binding() == {"o": "amy", "c": "rope", "p": "bob", "n": 3}
    assert [f.kind for f in firings[0].facts] == ["held", "hand-size"]
    assert engine.agenda() == []
    assert not engine.declare(EngineFact.of("held", {"owner": "amy", "card": "rope"}))  # already held


def test_ir_tests_evaluate_comparisons_counts_and_membership():
    expr = Op("and", (Op("in", (Var("c"), Var("cards"))), Op("<", (Op("len", (Var("cards"),)), Lit(3)))))
    assert evaluate(expr, {"c": "rope", "cards": ("rope", "hall")}) is True
    assert evaluate(expr, {"c": "rope", "cards": ("rope", "hall", "plum")}) is False
    assert ir.Test(expr).variables == ("c", "cards")
    assert Pattern("held", (("owner", "var", "o"),)) == Pattern("held", (("owner", "var", "o"),))


def test_an_unknown_engine_is_one_error_naming_the_nearest():
    assert "experta" in ENGINES
    with pytest.raises(UnknownEngineError, match="did you mean experta"):
        check_engine_name("experts")
    with pytest.raises(UnknownEngineError, match="engines: experta, clips"):
        make_engine("jess")


def test_engine_is_chosen_on_the_command_line_in_a_seat_spec_and_in_a_level(tmp_path, capsys):
    assert main(["deduce", "--engine", "expert"]) == 2
    assert "unknown engine 'expert' (engines: experta, clips); did you mean experta?" in capsys.readouterr().err
    assert main(["deduce", "--engine", "experta", "--json"]) == 0
    with pytest.raises(UnknownEngineError, match="did you mean experta"):
        parse_seat("clue-expert-focused:engine=experts")
    assert seat_player("p1", "clue-expert-focused:engine=experta").engine == "experta"
    level = tmp_path / "mine.yaml"
    level.write_text("id: mine\ndeduction: [deduction/observations]\ncompletion: false\nengine: experta\n")
    assert load_level(level).engine == "experta"
    level.write_text("id: mine\ndeduction: [deduction/observations]\ncompletion: false\nengine: clip\n")
    with pytest.raises(LevelError, match="'engine': unknown engine 'clip' .*did you mean clips"):
        load_level(level)


def test_which_engine_a_seat_runs_first_match_wins():
    assert DEFAULT_ENGINE == "clips" and choose_engine() == "clips"
    assert choose_engine(level="experta") == "experta"  # a level's engine: beats the default
    assert choose_engine(command="experta", level="clips") == "experta"  # --engine beats the level
    assert choose_engine(seat="clips", command="experta", level="experta") == "clips"  # a seat spec's beats all


def test_the_engine_choice_is_passed_not_a_process_wide_setting():
    """--engine travels as an argument to where seats are made (issue 34): no
    setter, and a player or game told nothing runs the default."""
    assert not hasattr(engines, "set_engine")
    told = seat_player("p1", "clue-expert-focused", command_engine="experta")
    assert (told.engine, told.command_engine) == (None, "experta")
    spec_wins = seat_player("p1", "clue-expert-focused:engine=clips", command_engine="experta")
    assert (spec_wins.engine, spec_wins.command_engine) == ("clips", "experta")
    assert seat_player("p1", "clue-expert-focused").command_engine is None


def test_the_commands_engine_reaches_the_seats_it_makes(tmp_path):
    """--engine's value, passed down, is the engine of a simulated game's seats
    (a seat spec's engine= still wins) and of a notebook's knowledge."""
    from clue_expert.people.notebook import Notebook
    from clue_expert.play.simulate import WORKER_SEATS, make_specs, play_one
    spec = make_specs(players=3, games=1, seed=1, engine="experta",
                      strategies=["clue-expert-focused", "clue-expert-focused:engine=clips"])[0]
    play_one(spec)
    seats = {key[1]: player for key, player in WORKER_SEATS.items() if key[-1] == "experta"}
    assert seats["clue-expert-focused"].knowledge.engine == "experta"
    assert seats["clue-expert-focused:engine=clips"].knowledge.engine == "clips"
    k = seats["clue-expert-focused"].knowledge
    assert k.fresh(k.players[1], complete=False).engine == "experta"  # a shadow runs on its seat's engine
    nb = Notebook(k.edition, ["ann", "bob", "cat"], "ann", ["plum", "rope", "hall", "lounge", "knife", "white"],
                  engine="experta")
    assert nb.knowledge.engine == "experta"
    assert Notebook(k.edition, ["ann", "bob", "cat"], "ann", ["plum", "rope", "hall", "lounge", "knife", "white"]
                    ).knowledge.engine == DEFAULT_ENGINE
