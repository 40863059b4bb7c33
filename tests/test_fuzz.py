"""Fuzzing the file readers: a valid record (docs/examples/three-players.yaml)
and a valid rule file (rules/shared/no-intelligence.yaml),
mutated at random — deletions, substitutions, type changes, duplications,
and raw text edits — and fed to the command line.  Never a traceback (the
exit code is 0, 1, 2 or 3), never a hang."""
from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clue_expert.people.cli import main

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "docs" / "examples" / "three-players.yaml"
RULE = ROOT / "rules" / "shared" / "no-intelligence.yaml"

#: Values a mutation may put anywhere.
ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 40), st.integers(min_value=10 ** 30), st.floats(allow_nan=True),
    st.sampled_from(["", "ann", "Ann", "ANN", "bob", "envelope", "Envelope", "nobody", "rope", "white", "study",
                     "[/]", "[bold red]x", "{owner", "x\ny", "\x00", "a" * 500, "cluedo", "clue", "../x.yaml",
                     "first", "your-turn", "held", "lacked: [owner, card]", "1 +", "__import__('os')"]),
    st.text(max_size=12),
    st.lists(st.sampled_from(["ann", "bob", "cat", "rope", "white", "study", "hall", "plum"]), max_size=8),
    st.dictionaries(st.sampled_from(["by", "suggest", "id", "when", "then", "x"]), st.integers(0, 3), max_size=3),
)


def _paths(data, prefix=()):
    """Every path (tuple of keys and indices) into nested lists and mappings."""
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, prefix + (i,))


def _get(data, path):
    for p in path:
        data = data[p]
    return data


def _copy(value):
    """A copy sharing nothing with ``value``: a node shared between two
    places let a later swap put a node inside itself (a cycle the path walk
    never left: a RecursionError in the test, not in the code under test)."""
    return json.loads(json.dumps(value, default=str))


def _mutate(data, draw):
    """Apply one random mutation in place (returns the new root)."""
    paths = list(_paths(data))
    path = draw(st.sampled_from(paths))
    op = draw(st.sampled_from(["delete", "substitute", "retype", "duplicate", "swap"]))
    if not path:
        return draw(ODD) if op == "substitute" else [data, _copy(data)] if op == "duplicate" else data
    parent, key = _get(data, path[:-1]), path[-1]
    value = parent[key]
    if op == "delete":
        del parent[key]
    elif op == "substitute":
        parent[key] = draw(ODD)
    elif op == "retype":
        parent[key] = draw(st.sampled_from([[value], {"x": value}, str(value), len(str(value)), None]))
    elif op == "duplicate":
        if isinstance(parent, list):
            parent.insert(key, _copy(value))
        else:
            parent[draw(st.sampled_from(["extra", "players", "me", "rules", "id", "then", key]))] = _copy(value)
    else:
        other = draw(st.sampled_from(paths))
        if other and other[:len(path)] != path and path[:len(other)] != other:
            try:
                o_parent = _get(data, other[:-1])
                parent[key], o_parent[other[-1]] = o_parent[other[-1]], value
            except (KeyError, IndexError, TypeError):
                pass
    return data


def _text_edit(text: str, draw) -> str:
    """A raw edit of the file's text: delete, duplicate or replace a span."""
    i = draw(st.integers(0, len(text)))
    j = draw(st.integers(i, min(len(text), i + 40)))
    op = draw(st.sampled_from(["delete", "duplicate", "insert"]))
    if op == "delete":
        return text[:i] + text[j:]
    if op == "duplicate":
        return text[:j] + text[i:j] + text[j:]
    return text[:i] + draw(st.sampled_from(["[", "]", "{", "}", ":", "- ", "\n", "  ", "&a ", "*a", "!!", "'", '"',
                                            "\t", "#", "---\n", "\\", "[/]", "%", "@"])) + text[i:]


def _run(argv) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert "Traceback" not in err.getvalue()
    return code, err.getvalue()


def _mutated_file(draw, source: Path, folder: str) -> Path:
    text = source.read_text()
    if draw(st.booleans()):
        data = yaml.safe_load(text)
        for _ in range(draw(st.integers(1, 4))):
            data = _mutate(data, draw)
        as_json = draw(st.booleans())
        text = json.dumps(data, default=str) if as_json else yaml.safe_dump(data, allow_unicode=True)
    else:
        for _ in range(draw(st.integers(1, 4))):
            text = _text_edit(text, draw)
    path = Path(folder) / source.name
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    return path


def fuzz(n: int) -> settings:
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def mutated_records_never_crash(data):
    with tempfile.TemporaryDirectory() as folder:
        path = _mutated_file(data.draw, RECORD, folder)
        code, err = _run(["deduce", str(path)])
        assert code in (0, 1, 2, 3), err
        if code == 2:
            assert len(err.strip().splitlines()) == 1 and err.startswith("error:"), err[:1000]


def mutated_rule_files_never_crash(data):
    with tempfile.TemporaryDirectory() as folder:
        path = _mutated_file(data.draw, RULE, folder)
        code, err = _run(["rules", str(path)])
        assert code in (0, 2), err
        if code == 2:
            assert err.startswith("error:") and len(err) < 5000, err[:1000]


# Each runs twice: a bounded number of examples in the default run, more in the slow tier
# (python -m pytest -m slow; .ci/run runs it).
test_mutated_records_never_crash = fuzz(15)(given(st.data())(mutated_records_never_crash))
test_mutated_records_never_crash_long = pytest.mark.slow(fuzz(40)(given(st.data())(mutated_records_never_crash)))
test_mutated_rule_files_never_crash = fuzz(15)(given(st.data())(mutated_rule_files_never_crash))
test_mutated_rule_files_never_crash_long = pytest.mark.slow(fuzz(40)(given(st.data())(mutated_rule_files_never_crash)))
