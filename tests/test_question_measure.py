"""The open information player's ``measure`` parameter (docs/beliefs.md):
with ``measure: top`` its questions are valued by the expected rise of the
chance of naming the envelope at once instead of the envelope's entropy.
A file extending it with that measure asks another question than the
shipped file on a position where the two measures disagree, and each asks
the better question by its own measure -- which fails if the parameter is
not passed to the ranking."""
from __future__ import annotations

import random
from pathlib import Path

from clue_expert.core.cards import get_edition
from clue_expert.engine.seat.knowledge import replay_record
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.language.rules import load_ruleset
from clue_expert.testing.randomgame import random_record

OPEN = Path(__file__).resolve().parent.parent / "rules" / "strategies" / "clue-expert-open-information-gain.yaml"
TOP = """\
id: open-top
kind: strategy
title: "the open information player valuing its questions by measure top"
description: the shipped open information player with measure top
metadata: {sources: [clue-expert]}
extends: clue-expert-open-information-gain
with: {measure: top}
"""


def _question(path: Path, record, upto: int):
    k = replay_record(record, upto, rulesets=[load_ruleset(path)])
    proposals = [c.options for c in k.request("your-turn", {"turn": 99, "round": 9})]
    chosen = tuple(slot[0] for slot in proposals[0])
    assert all(len(slot) == 1 for slot in proposals[0])
    return k, chosen


def test_measure_top_asks_the_question_that_best_raises_the_chance_of_naming_the_envelope(tmp_path):
    top_file = tmp_path / "open-top.yaml"
    top_file.write_text(TOP)
    # a seeded 3-player position nine turns in where the measures disagree
    record = random_record(random.Random(0), 3, n_turns=9, edition=get_edition("cluedo"), accuse_rate=0.0)
    k, by_entropy = _question(OPEN, record, 9)
    _, by_top = _question(top_file, record, 9)
    assert by_entropy != by_top
    gain = FUNCTIONS["information_gain"]
    assert gain(k, by_top, "top") > gain(k, by_entropy, "top") + 1e-9
    assert gain(k, by_entropy, "shannon") > gain(k, by_top, "shannon") + 1e-9
