"""Fact keys are records (issue 34): one NamedTuple per key shape
(clue_expert.core.facts), printed, compared and hashed as the plain tuple;
every key a played game leaves behind is one of them."""
from __future__ import annotations

import json
import pickle
import random

from clue_expert.core.facts import (GAME_KEY, KEY_RECORD, KEY_RECORDS, KEY_TYPES, KINDS, BoundKey, CellKey, ClauseKey,
                                    DecisionKey, NameKey, TurnPlayerKey, as_key, bound_key, describe, held_key,
                                    key_of)
from clue_expert.play.game import play_game
from clue_expert.play.players import seat_player
from clue_expert.play.simulate import make_specs
from clue_expert.testing.randomgame import random_record
from clue_expert.engine.seat.knowledge import replay_record as replay


def test_a_record_is_its_plain_tuple():
    for key, plain in ((held_key("bob", "rope"), ("held", "bob", "rope")),
                       (bound_key("bob", ["c9", "c3"], 1, 5), ("bound", "bob", ("c3", "c9"), 1, 2)),
                       (GAME_KEY, ("game",))):
        assert repr(key) == repr(plain) and str(key) == str(plain) and f"{key}" == f"{plain}"
        assert key == plain and hash(key) == hash(plain) and {plain: 1}[key] == 1
        assert sorted([key, plain]) == [plain, plain]
        assert pickle.loads(pickle.dumps(key)) == key and type(pickle.loads(pickle.dumps(key))) is type(key)
        assert json.dumps(key) == json.dumps(plain)
    key = held_key("bob", "rope")
    assert (key.kind, key.owner, key.card) == ("held", "bob", "rope")


def test_as_key_makes_the_record_of_a_plain_tuple():
    assert type(as_key(("held", "bob", "rope"))) is CellKey
    clause = as_key(["one-of", "bob", ["hall", "rope"]])  # as read from JSON
    assert type(clause) is ClauseKey and clause.cards == ("hall", "rope")
    assert type(as_key(("bound", "bob", ("c3",), 0, 1))) is BoundKey
    assert type(as_key(("passed", 3, "bob"))) is TurnPlayerKey
    assert type(as_key(("deck", 21))) is NameKey
    assert type(as_key(("suggest", (("plum",), ("rope",), ("hall",))))) is DecisionKey
    key = held_key("bob", "rope")
    assert as_key(key) is key
    assert type(as_key(("held", "bob"))) is tuple  # the wrong length: no record, no fact
    assert type(as_key(("no-such-kind", 1))) is tuple
    assert describe(("held", "bob", "rope")) == describe(key) == "bob holds rope"


def test_key_of_makes_each_kind_its_record():
    for kind, fields in KINDS.items():
        values = {f: ("c1", "c2") if f in ("cards", "players") else 1 if f in ("turn", "low", "high", "n", "size")
                  else "bob" for f in fields}
        key = key_of(kind, values)
        assert type(key) is KEY_RECORD[kind], kind
        assert key.kind == kind


def _check_keys(k, where):
    """Every key the knowledge ``k`` holds is the record of its kind."""
    def check(key, what):
        assert type(key) in KEY_TYPES, f"{where}: {what} {key!r} is a {type(key).__name__}"
        assert type(key) is KEY_RECORD[key.kind], f"{where}: {what} {key!r}"
    for key in list(k.justifications):
        check(key, "fact")
        j = k.justification(key)  # the premises a firing read, worked out now
        for p in j.premises:
            check(p, f"premise of {key!r}")
    for key in k.values:
        check(key, "observation")
    for key in k.probable:
        check(key, "probable clue")
    for firing in k.firings:
        for key in firing.conclusions:
            check(key, f"conclusion of {firing.rule}")
        for p in firing.premises:
            check(p, f"premise of {firing.rule}")


def test_every_key_of_a_replayed_record_is_a_record():
    rng = random.Random(34)
    for players in (3, 6):
        k = replay(random_record(rng, players, 30))
        _check_keys(k, f"{players} players")


def test_every_key_of_a_played_game_is_a_record():
    spec = make_specs(players=4, games=1, seed=34, strategies=("clue-expert-focused",) * 4)[0]
    players = {name: seat_player(name, strategy, spec.response, spec.accusation)
               for name, strategy in zip(spec.deal.players, spec.strategies)}
    play_game(spec.deal, players, max_rounds=spec.max_rounds, game=spec.game)
    decided = 0
    for name, p in players.items():
        _check_keys(p.knowledge, name)
        decided += sum(1 for f in p.knowledge.firings for key in f.conclusions if type(key) is DecisionKey)
    assert decided, "the seats decided something"
    assert len(KEY_RECORDS) == len(set(KEY_RECORD.values()))
