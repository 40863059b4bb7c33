"""Issue 35: the engines proven to agree.  Random valid rule files over the
whole ``match:`` language (clue_expert/testing/rulegen.py: patterns of every
kind joined in any order, ``not:``, ``exists:``, tests of every operator and
type, counts, one-of clauses, pure and computed conclusions) run on CLIPS and
on experta over random records: every match of their left-hand sides
(a bare engine of each kind), and a seat's sheets, contradictions and errors
after every observation, must be the same.  The default run checks 200 files;
the slow tier and ``benchmarks/engine_diff.py`` run more."""
from __future__ import annotations

import random

import pytest

from clue_expert.testing.randomgame import random_record
from clue_expert.testing.rulegen import compare, random_rule_file

#: Files per chunk of the default run (4 chunks: 200 files).
CHUNK = 50


def _records(n: int, turns: int) -> list:
    return [random_record(random.Random(7 + j), n_players=3 + j % 2, n_turns=turns) for j in range(n)]


# the first 50 files in the default run, all 200 in the slow tier (.ci/run runs it)
@pytest.mark.parametrize("chunk", [0, *(pytest.param(c, marks=pytest.mark.slow) for c in range(1, 4))])
def test_two_hundred_random_rule_files_match_alike_on_both_engines(chunk):
    records = _records(1, 2)
    bad = {}
    for i in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        text = random_rule_file(random.Random(i), name=f"gen{i}", rules=1)
        problems = compare(text, records, games=False)
        if problems:
            bad[i] = (text, problems)
    assert not bad, next(iter(bad.items()))


@pytest.mark.slow  # with the 300-file run below; the default run: the first 50 one-rule files above
def test_random_rule_files_give_the_same_sheets_contradictions_and_errors_on_both_engines():
    records = _records(1, 4)
    for i in range(5):
        text = random_rule_file(random.Random(10_000 + i), name=f"game{i}")
        assert compare(text, records) == [], text


def test_the_generator_covers_the_whole_language():
    texts = "".join(random_rule_file(random.Random(i), name=f"gen{i}") for i in range(200))
    for construct in ("not:", "exists:", "test:", "held-count:", "one-of:", " < ", " in ", "len(", "subset(",
                      " - {", " is None", " and ", " or ", "not (", "ENVELOPE"):
        assert construct in texts, construct


@pytest.mark.slow
def test_many_random_rule_files_agree_on_both_engines_over_several_records():
    records = _records(3, 8)
    for i in range(300):
        text = random_rule_file(random.Random(50_000 + i), name=f"slow{i}", rules=3)
        assert compare(text, records, games=i % 5 == 0) == [], text
