"""Every knowledge level is sound on every edition and game of the family.

Each shipped level (``clue-expert`` ``--knowledge`` values: complete, kingston,
mitchell) and a level built from the deduction rules alone
(``tests/data/levels/rules-only.yaml``: no case analysis) replays records
built by hypothesis from drawn parts (clue_expert/testing/drawn.py, so a
failure shrinks to a small game): random editions of 1-4 categories of 1-5
cards whose envelope holds 0-2 cards of each, 2-10 players, Speed Clue
suggestions or the generalized game's interrogations of one player (with
wrong guesses that lay a hand open).  The test fails on

* a contradiction on a valid record (the record is played truthfully from
  its deal, so there is none);
* a rule that cites a premise that is not a known fact, or whose
  ``because:`` premises do not entail its conclusion (premises are checked);
* a false fact: a cell the level knows that the independent CNF oracle
  (clue_expert/testing/oracle.py) does not entail, or that the true deal
  contradicts.

The default run is small (a bounded number of examples); the larger run is
marked ``slow``: ``python -m pytest -m slow tests/test_level_oracle.py``.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clue_expert.core.errors import ContradictionError
from clue_expert.engine.seat.knowledge import replay_record
from clue_expert.engine.seat.levels import available_levels, get_level
from clue_expert.people.cli import main
from clue_expert.testing.drawn import editions, games
from clue_expert.testing.oracle import cnf_entailed

RULES_ONLY = str(Path(__file__).resolve().parent / "data" / "levels" / "rules-only.yaml")
LEVELS = [*available_levels(), RULES_ONLY]


def family_games(max_turns: int):
    """Records of a drawn small edition (1-4 categories, 0-2 envelope cards
    each), 2-10 players, Speed Clue or the generalized game."""
    return editions(categories=(1, 4), cards=(1, 5), envelope=(0, 2)) \
        .filter(lambda e: len(e.cards) - e.envelope_size >= 2) \
        .flatmap(lambda ed: games(edition=ed, players=(2, 10), max_turns=max_turns, game=None))


def check_every_level(record) -> int:
    """Replay the record at every level, premises checked; fail on any
    contradiction or false fact.  Returns the number of known cells checked."""
    entailed = cnf_entailed(record)
    assert entailed is not None, "the drawn record is not consistent with its own deal"
    checked = 0
    for name in LEVELS:
        level = get_level(name)
        try:
            k = replay_record(record, rulesets=level.rulesets(), complete=level.completion, check_premises=True)
        except ContradictionError as exc:
            pytest.fail(f"level {level.id}: contradiction on a valid {record.game} record of "
                        f"{record.edition.id} ({len(record.players)} players): {exc}")
        for o in k.owners:
            for c in record.edition.card_ids:
                status = k.status(o, c)
                if status == "unknown":
                    continue
                checked += 1
                true = "held" if record.deal.owner_of(c) == o else "lacked"
                assert status == true, (f"level {level.id}: false fact '{o} {status} {c}' on {record.edition.id} "
                                        f"({record.game}, {len(record.players)} players, seat {record.me})")
                assert entailed.get((o, c)) == status, (f"level {level.id}: '{o} {status} {c}' is true of this deal "
                                                        f"but not entailed by the record ({record.edition.id})")
    return checked


# a bounded number of examples in the default run, many more in the slow tier (the test below; .ci/run runs it)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(record=family_games(max_turns=16))
def test_every_level_is_sound_on_the_family(record):
    check_every_level(record)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(record=family_games(max_turns=30))
def test_every_level_is_sound_on_the_family_long(record):
    check_every_level(record)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record=st.sampled_from(["speed-clue", "generalized"]).flatmap(
    lambda game: games(players=(2, 10), max_turns=12, game=game)))
def test_every_level_is_sound_on_the_classic_and_drawn_editions(record):
    """The classic Cluedo (one card of each category in the envelope) is
    among the editions :func:`games` draws."""
    check_every_level(record)


def test_the_levels_checked_include_every_shipped_one_and_the_rules_alone():
    assert {"complete", "kingston", "mitchell"} <= set(LEVELS)
    rules_only = get_level(RULES_ONLY)
    assert not rules_only.completion
    assert {rs.id for rs in rules_only.rulesets()} >= {"ownership", "observations", "counting", "clauses"}


ONE_INTERROGATION = """\
game: generalized
edition: cluedo
players: [ann, bob, cat]
me: ann
hand: [scarlett, rope, kitchen, hall, dagger, mustard]
turns:
  - {by: ann, suggest: [plum, spanner, study], passed: [cat], asks: cat}
"""


@pytest.mark.parametrize("command", [["deduce", "--json"], ["why"], ["replay"]])
def test_kingston_reads_a_one_interrogation_generalized_record(tmp_path, capsys, command):
    """cat passing on ann's interrogation says nothing of bob's hand, so
    nothing of the envelope; the level used to refuse the record (a premise,
    bob's pass, that is not a known fact)."""
    path = tmp_path / "one.yaml"
    path.write_text(ONE_INTERROGATION)
    args = [*command, "--knowledge", "kingston", str(path)]
    if command == ["why"]:
        args.append("cat lacks plum")
    assert main(args) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    if command[0] == "deduce":
        cells = json.loads(out)["cells"]
        assert cells["cat"]["plum"] == "lacked" and cells["envelope"]["plum"] == "unknown"
