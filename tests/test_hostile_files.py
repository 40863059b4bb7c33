"""Hostile files (issue 11): every one is answered quickly by the command
line with exit code 2 and ONE short ``error:`` line, or with a correct result.

The corpus is built in ``tmp_path``: YAML alias bombs in each top-level key
of a record, recursive aliases, deep nesting (YAML flow and block, JSON),
huge values and files, a 10 MB JSON record, colliding, reserved and markup
player names, and hostile edition, deal, level, rule and notebook files.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from clue_expert.core import yamlio
from clue_expert.core.errors import UnknownPlayerError
from clue_expert.core.facts import parse_fact, player_name_problem
from clue_expert.core.cards import get_edition
from clue_expert.people.cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "three-players.yaml"
RULE = Path(__file__).resolve().parent.parent / "rules" / "shared" / "no-intelligence.yaml"
HAND = ["scarlett", "rope", "hall", "lounge", "dagger", "plum"]
TURNS = [{"by": "bob", "suggest": ["white", "rope", "study"], "passed": ["cat"], "shown_by": "ann", "card": "rope"},
         {"by": "cat", "suggest": ["green", "spanner", "hall"], "passed": [], "shown_by": "ann", "card": "hall"}]
GOOD = {"edition": "cluedo", "players": ["ann", "bob", "cat"], "me": "ann", "hand": HAND,
        "hand_sizes": {"ann": 6, "bob": 6, "cat": 6}, "turns": TURNS}
TOP_KEYS = ["edition", "players", "me", "hand", "hand_sizes", "turns", "deal"]


def run(capsys, *argv):
    """Run the command line; (exit code, stdout, stderr).  How long it takes is
    measured in benchmarks/, not here; the work limits it hits are asserted."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def one_error(capsys, *argv, expect: str | None = None) -> str:
    """The command fails with exit code 2 and one short clean ``error:`` line."""
    code, out, err = run(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2, (code, err[:500])
    assert len(lines) == 1, err[:2000]
    assert lines[0].startswith("error:") and len(lines[0]) < 400, lines[0][:500]
    if expect is not None:
        assert expect in lines[0], lines[0]
    return lines[0]


def each_file_one_error(capsys, tmp_path, cases: dict, *argv) -> None:
    """Write each case (file name -> text) and check that the command, with
    the file where ``argv`` says ``FILE``, fails with one clean error."""
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text, errors="surrogateescape")
        one_error(capsys, *(path if a == "FILE" else a for a in argv))


def bomb(levels: int = 8, width: int = 9, indent: str = "  ") -> str:
    """A YAML mapping whose last entry expands to ``width ** levels`` values."""
    lines = [f"{indent}a0: &a0 [{', '.join(['x'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"{indent}a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "\n".join(lines)


def record_with(key: str, value_text: str) -> str:
    """The good record as YAML, with ``key``'s value replaced by raw YAML text."""
    lines = []
    data = dict(GOOD)
    data.setdefault("deal", None)
    for k, v in data.items():
        if k == key:
            lines.append(f"{k}:\n{value_text}")
        elif v is not None:
            lines.append(f"{k}: {json.dumps(v)}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ aliases
@pytest.mark.parametrize("key", TOP_KEYS)
def test_an_alias_bomb_in_any_key_of_a_record_is_one_error(tmp_path, capsys, key):
    path = tmp_path / f"bomb-{key}.yaml"
    path.write_text(record_with(key, bomb()))
    assert len(path.read_bytes()) < 1000
    line = one_error(capsys, "deduce", path, expect="YAML aliases")
    assert str(path) in line
    one_error(capsys, "why", path, "bob holds rope", expect="YAML aliases")


@pytest.mark.parametrize("key", ["players", "hand_sizes", "turns"])
def test_a_small_alias_bomb_under_the_alias_count_is_refused_by_its_expansion(tmp_path, capsys, key):
    path = tmp_path / "small-bomb.yaml"
    path.write_text(record_with(key, bomb(levels=5, width=9)))  # 36 aliases, 9**5 values
    one_error(capsys, "deduce", path, expect="expand to more than")


def test_a_recursive_alias_is_one_error(tmp_path, capsys):
    path = tmp_path / "loop.yaml"
    path.write_text(record_with("turns", "  &t [*t]"))
    one_error(capsys, "deduce", path, expect="inside the value it names")


def test_a_few_harmless_aliases_still_load(tmp_path, capsys):
    path = tmp_path / "anchors.yaml"
    text = (f"edition: cluedo\nplayers: &p [ann, bob, cat]\nme: ann\nhand: {json.dumps(HAND)}\n"
            "turns:\n  - &t {by: bob, suggest: [white, rope, study], passed: [cat], shown_by: ann, card: rope}\n"
            "  - *t\n")
    path.write_text(text)
    code, out, err = run(capsys, "deduce", "--json", path)
    assert code == 0, err
    assert json.loads(out)["cells"]["ann"]["rope"] == "held"


# ------------------------------------------------------------------ nesting
def test_deeply_nested_turns_are_one_error(tmp_path, capsys):
    path = tmp_path / "deep.yaml"
    path.write_text(record_with("turns", "  " + "[" * 1000 + "]" * 1000))
    assert len(path.read_bytes()) < 2500
    one_error(capsys, "deduce", path, expect=f"nested more than {yamlio.MAX_DEPTH} levels")


def test_deep_block_nesting_is_one_error(tmp_path, capsys):
    text = "".join(f"{'  ' * i}k{i}:\n" for i in range(200)) + "  " * 200 + "x\n"
    path = tmp_path / "block.yaml"
    path.write_text(text)
    one_error(capsys, "deduce", path, expect="nested more than")


@pytest.mark.parametrize("depth", [60, 100_000])
def test_deep_json_is_one_error(tmp_path, capsys, depth):
    path = tmp_path / "deep.json"
    path.write_text('{"turns": ' + "[" * depth + "]" * depth + "}")
    one_error(capsys, "deduce", path, expect="nested more than")


def test_nesting_through_an_alias_counts(tmp_path, capsys):
    deep = "[" * 40 + "1" + "]" * 40
    path = tmp_path / "alias-deep.yaml"
    path.write_text(f"x: &d {deep}\nturns: [[[[[[[[[[[[[[[[*d]]]]]]]]]]]]]]]]\n")
    one_error(capsys, "deduce", path, expect="through the alias")


# --------------------------------------------------------------- big things
@pytest.mark.slow  # writes and reads 10 MB; test_work_limits.py refuses a record of many tiny nodes in the default run
def test_a_ten_megabyte_json_record_is_refused_by_its_node_limit(tmp_path, capsys):
    data = dict(GOOD, turns=TURNS * 50_000)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    assert path.stat().st_size > 10_000_000
    with pytest.raises(yamlio.FileLoadError, match="more than 200,000 values"):
        yamlio.load_file(path)
    one_error(capsys, "deduce", path, expect="more than 200,000 values")


def test_a_record_within_the_node_limit_is_parsed_then_refused_by_its_turn_limit(tmp_path, capsys):
    data = dict(GOOD, turns=TURNS * 1_001)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    assert isinstance(yamlio.load_file(path), dict)
    one_error(capsys, "deduce", path, expect="turns, more than the limit")


def test_a_file_over_the_size_cap_is_refused_before_parsing(tmp_path, capsys):
    path = tmp_path / "huge.yaml"
    with open(path, "w") as fh:
        fh.write(record_with("turns", "  []"))
        fh.write(("#" * 999 + "\n") * (yamlio.MAX_BYTES["record"] // 1000 + 1))
    one_error(capsys, "deduce", path, expect="larger than the limit")


@pytest.mark.parametrize("key,value", [
    ("players", ["ann", "b" * 1_000_000, "cat"]),
    ("edition", "e" * 1_000_000),
    ("edition", "x/" * 300_000 + ".yaml"),
    ("hand", ["r" * 1_000_000] * 6),
    ("hand", ["rope"] * 500_000),
    ("me", list(range(100_000))),
    ("hand_sizes", {"ann": int("9" * 4000), "bob": 6, "cat": 6}),
    ("turns", [{"by": "bob", "suggest": ["white", "rope", "study"], "passed": ["cat"] * 100_000}]),
    ("turns", [{"by": "bob", "suggest": ["white", "rope", "s" * 1_000_000], "passed": ["cat"]}]),
    ("turns", ["t" * 1_000_000]),
    ("deal", {"envelope": ["x"] * 100_000, "hands": {}}),
])
def test_huge_values_give_short_errors(tmp_path, capsys, key, value):
    path = tmp_path / "huge-value.json"
    path.write_text(json.dumps(dict(GOOD, **{key: value})))
    one_error(capsys, "deduce", path)


def test_an_integer_of_too_many_digits_is_one_error(tmp_path, capsys):
    path = tmp_path / "digits.yaml"
    path.write_text(record_with("hand_sizes", "  ann: " + "7" * 5000))
    one_error(capsys, "deduce", path)
    path = tmp_path / "digits.json"
    path.write_text('{"hand_sizes": {"ann": ' + "7" * 5000 + "}}")
    one_error(capsys, "deduce", path)


@pytest.mark.parametrize("content", [b"", b"\xff\xfe\x00garbage", b"- just\n- a list\n", b"{1: x, foo: y}",
                                     b"edition: cluedo\n1: x\nfoo: y\n", b"--- a\n--- b\n", b"a: b: c",
                                     b"!!python/object/apply:os.system ['echo hi']", b"\x00\x01\x02"])
def test_malformed_records_are_one_error(tmp_path, capsys, content):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    one_error(capsys, "deduce", path)


# -------------------------------------------------------------------- names
@pytest.mark.parametrize("players,expect", [
    (["Bob", "bob", "cat"], "differ in more than case"),
    (["ann", "Envelope", "cat"], "cannot be a player name"),
    (["ann", "ENVELOPE", "cat"], "cannot be a player name"),
    (["ann", "Nobody", "cat"], "cannot be a player name"),
    (["ann", "b\nob", "cat"], "control characters"),
    (["ann", "b\tob", "cat"], "control characters"),
    (["ann", " bob", "cat"], "spaces"),
    (["ann", "b" * 41, "cat"], "1 to 40 characters"),
    (["ann", "", "cat"], "1 to 40 characters"),
    (["ann", "ann", "cat"], "is repeated"),
])
def test_player_names_follow_one_rule(tmp_path, capsys, players, expect):
    path = tmp_path / "names.json"
    data = dict(GOOD, players=players, me="ann", hand_sizes={}, turns=[])
    path.write_text(json.dumps(data))
    one_error(capsys, "deduce", path, expect=expect)
    assert player_name_problem(players) is not None


def test_owners_match_exactly_then_ignoring_case_when_unambiguous():
    ed = get_edition("cluedo")
    assert parse_fact("Bob holds white", ed, ("Bob", "bob", "envelope"))[1] == "Bob"
    assert parse_fact("bob holds white", ed, ("Bob", "bob", "envelope"))[1] == "bob"
    with pytest.raises(UnknownPlayerError, match="ignoring case"):
        parse_fact("BOB holds white", ed, ("Bob", "bob", "envelope"))
    assert parse_fact("ANN holds white", ed, ("Ann", "bob", "envelope"))[1] == "Ann"
    assert parse_fact("Envelope holds white", ed, ("Ann", "bob", "envelope"))[1] == "envelope"
    assert parse_fact("[bold red]x holds one of white, rope", ed, ("[bold red]x", "envelope"))[:2] == \
        ("one-of", "[bold red]x")
    with pytest.raises(UnknownPlayerError, match="unknown owner"):
        parse_fact("dan holds white", ed, ("Ann", "bob", "envelope"))


MARKUP = {"edition": "cluedo", "players": ["[/]", "[bold red]x", "cat"], "me": "[/]", "hand": HAND,
          "turns": [{"by": "[bold red]x", "suggest": ["white", "rope", "study"], "passed": ["cat"],
                     "shown_by": "[/]", "card": "rope"}]}


def test_markup_names_print_as_written(tmp_path, capsys):
    path = tmp_path / "[markup].yaml"
    path.write_text(json.dumps(MARKUP))
    code, out, err = run(capsys, "deduce", path)
    assert code == 0, err
    assert "[/]" in out and "[bold red]x" in out
    code, out, err = run(capsys, "why", path, "[/] holds rope")
    assert code == 0, err
    assert "[/] holds rope" in out and "[/] was dealt" in out
    code, out, err = run(capsys, "why", path, "[bold red]x holds one of white, rope, study")
    assert code == 3, err
    assert "[bold red]x holds one of" in out
    code, out, err = run(capsys, "replay", path)
    assert code == 0, err
    assert "[bold red]x" in out


def test_markup_in_rule_messages_and_file_names_prints_as_written(tmp_path, capsys):
    path = tmp_path / "[bold]rules[red].yaml"
    path.write_text(RULE.read_text().replace('"the first cards in list order I neither hold nor have seen"',
                                             '"[/] [bold red]x [link=y]"'))
    code, out, err = run(capsys, "rules", path)
    assert code == 0, err
    assert "[/] [bold red]x [link=y]" in " ".join(out.split())


# ------------------------------------------------------------ why, entailed
def test_why_decides_one_of_and_not_all_by_entailment(capsys):
    code, out, err = run(capsys, "why", EXAMPLE, "ann holds one of rope, white, study")
    assert code == 0 and "follows from what is known" in out and "ann holds rope" in out
    code, out, err = run(capsys, "why", "--json", EXAMPLE, "ann holds one of rope, white, study")
    answer = json.loads(out)
    assert answer["status"] == "entailed" and answer["roots"]
    code, out, err = run(capsys, "why", EXAMPLE, "cat holds one of white, study, hall")
    assert code == 0 and "No:" in out and "cat holds none of" in out
    code, out, err = run(capsys, "why", EXAMPLE, "ann does not hold all of rope, white")
    assert code == 0 and "follows" in out
    # the case analysis, with no card of it known: bob holds 6 of the 15 cards ann lacks
    code, out, err = run(capsys, "why", "--json", "--turn", "0", EXAMPLE,
                         "bob holds one of white, green, mustard, peacock, candlestick, lead pipe, revolver, "
                         "spanner, kitchen, ballroom")
    answer = json.loads(out)
    assert code == 0 and answer["status"] == "entailed"
    assert answer["explanation"]["rule"] == "case-analysis" and answer["roots"]
    code, out, err = run(capsys, "why", "--turn", "0", EXAMPLE, "bob holds one of white, green")
    assert code == 3 and "Not known" in out


# ------------------------------------------------- other kinds of file
def test_hostile_edition_files(tmp_path, capsys):
    cases = {
        "bomb.yaml": "id: x\ncategories:\n  suspect: [a, b]\nmetadata:\n" + bomb(),
        "deep.yaml": "id: x\ncategories: " + "[" * 500 + "]" * 500 + "\n",
        "big.yaml": "id: x\n" + "# padding\n" * 30_000,
        "names.yaml": "id: x\ncategories:\n  " + "c" * 100_000 + ": 5\n",
        "ids.yaml": "id: x\ncategories:\n  suspect: [{id: a, extra: " + "z" * 100_000 + "}]\n",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        one_error(capsys, "editions", path)
        record = tmp_path / f"record-{name}"
        record.write_text(json.dumps(dict(GOOD, edition=str(path))))
        one_error(capsys, "deduce", record)


def test_hostile_deal_files(tmp_path, capsys):
    cases = {
        "bomb.yaml": "edition: cluedo\nplayers: [a, b, c]\nenvelope: []\nhands:\n" + bomb(),
        "deep.yaml": "edition: cluedo\nplayers: " + "[" * 500 + "]" * 500 + "\n",
        "big.yaml": "# padding\n" * 30_000,
        "names.yaml": "edition: cluedo\nplayers: [Bob, bob]\nenvelope: [white, rope, hall]\nhands: {Bob: [], bob: []}\n",
        "list.yaml": "edition: cluedo\nplayers: [a, b]\nenvelope: " + json.dumps(["rope"] * 50_000) + "\nhands: {}\n",
        "hands.yaml": "edition: cluedo\nplayers: [a, b]\nenvelope: [white, rope, hall]\nhands: [1, 2]\n",
    }
    each_file_one_error(capsys, tmp_path, cases, "play", "--deal", "FILE")


def test_hostile_level_files(tmp_path, capsys):
    cases = {
        "bomb.yaml": "id: x\ndeduction: []\ncompletion: true\nmetadata:\n" + bomb(),
        "deep.yaml": "id: x\ndeduction: " + "[" * 500 + "]" * 500 + "\n",
        "big.yaml": "# padding\n" * 10_000,
        "meta.yaml": "id: x\ndeduction: []\ncompletion: true\nmetadata: [1, 2, 3]\n",
        "update.yaml": "id: x\ndeduction: []\ncompletion: true\nupdate: " + "u" * 50_000 + "\n",
    }
    each_file_one_error(capsys, tmp_path, cases, "deduce", "--knowledge", "FILE", EXAMPLE)


def test_hostile_rule_files(tmp_path, capsys):
    cases = {
        "bomb.yaml": "id: x\ntitle: t\nrules:\n" + bomb(),
        "deep.yaml": "id: x\nrules: " + "[" * 1000 + "]" * 1000 + "\n",
        "big.yaml": "# padding\n" * 110_000,
        "binary.yaml": "\udcff",
        "rule-id.yaml": "id: x\ntitle: t\nrules:\n  - id: " + "x" * 500_000 + "\n",
        "message.yaml": "id: x\ntitle: t\nrules:\n  - {id: r, message: '{" + "x" * 500_000 + "', when: held, "
                        "then: [{lacked: [owner, card]}]}\n",
    }
    each_file_one_error(capsys, tmp_path, cases, "rules", "FILE")


def test_hostile_notebook_files(tmp_path, capsys):
    for name, text in {"bomb.yaml": record_with("turns", bomb()),
                       "deep.yaml": record_with("turns", "  " + "[" * 1000 + "]" * 1000),
                       "names.yaml": json.dumps(dict(GOOD, players=["Ann", "ann", "cat"], me="ann"))}.items():
        path = tmp_path / name
        path.write_text(text)
        one_error(capsys, "notebook", path)


def test_shorten_is_one_bounded_line():
    loop: list = []
    loop.append(loop)
    for value in ["x" * 10_000_000, ["a\nb"] * 100_000, {"k": list(range(10 ** 5))}, loop, b"\x00" * 1000]:
        text = yamlio.shorten(value)
        assert len(text) <= 80 and "\n" not in text
