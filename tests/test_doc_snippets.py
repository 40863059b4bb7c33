"""Snippets of the docs that once went stale run as written (issue 28):
docs/record-format.md's `clue-expert editions` output is the command's, and
docs/strategies.md's tutorial edits lines the shipped strategy file has,
checks the result, and prints the figures the page shows."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from clue_expert.people.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def console_output(doc: Path, command: str) -> str:
    """The output printed under ``$ COMMAND`` in a ```console block of ``doc``."""
    for block in re.findall(r"```console\n(.*?)```", doc.read_text(encoding="utf-8"), re.S):
        if block.startswith(f"$ {command}\n"):
            return block[len(f"$ {command}\n"):]
    raise AssertionError(f"no ```console block starting with $ {command} in {doc.name}")


def section(doc: Path, heading: str) -> str:
    text = doc.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)]


def run(capsys, monkeypatch, command: str) -> str:
    """``clue-expert ...`` as the docs show it: piped, COLUMNS unset."""
    monkeypatch.delenv("COLUMNS", raising=False)
    args = [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', command)][1:]
    capsys.readouterr()
    assert main(args) == 0, command
    return capsys.readouterr().out


def same(printed: str, shown: str) -> bool:
    strip = lambda text: [line.rstrip() for line in text.rstrip("\n").splitlines()]  # noqa: E731
    return strip(printed) == strip(shown)


def test_record_format_editions_output_is_the_commands(capsys, monkeypatch):
    shown = console_output(DOCS / "record-format.md", "clue-expert editions")
    printed = run(capsys, monkeypatch, "clue-expert editions")
    assert same(printed, shown), "docs/record-format.md: paste the output of `clue-expert editions | cat`"


def apply_diff(text: str, diff: str) -> str:
    """A unified-style diff applied to ``text`` as ``patch`` would, in
    order: each change (a run of ``-`` lines and the ``+`` lines after it,
    with the context lines just before it, which anchor an insertion) is
    made at its first place after the change before; a ``...`` line skips
    text.  A change whose lines are not there is an error."""
    pos, context = 0, []
    lines = diff.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == "...":
            context = []
            i += 1
            continue
        if not line.startswith(("-", "+")):
            context.append(line[1:])
            i += 1
            continue
        minus, plus = [], []
        while i < len(lines) and lines[i].startswith("-"):
            minus.append(lines[i][1:])
            i += 1
        while i < len(lines) and lines[i].startswith("+"):
            plus.append(lines[i][1:])
            i += 1
        old = "".join(f"{x}\n" for x in context + minus)
        new = "".join(f"{x}\n" for x in context + plus)
        at = text.find(old, pos)
        assert at >= 0, f"the shipped file has not exactly one {old!r} after the diff's earlier changes"
        text = text[:at] + new + text[at + len(old):]
        pos, context = at + len(new), []
    return text


@pytest.mark.slow  # a long run: the tutorial's 60-game simulate (the slow tier runs it in .ci/run)
def test_strategies_tutorial_runs_on_the_shipped_file(tmp_path, capsys, monkeypatch):
    tutorial = section(DOCS / "strategies.md", "Tutorial: change one rule and measure it")
    cp = re.search(r"```sh\ncp (\S+) (\S+)\n```", tutorial)
    assert cp is not None
    source, target = ROOT / cp.group(1), tmp_path / cp.group(2)
    shutil.copy(source, target)
    diff = re.search(r"```diff\n(.*?)```", tutorial, re.S).group(1)
    target.write_text(apply_diff(source.read_text(encoding="utf-8"), diff), encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    checked = run(capsys, monkeypatch, re.search(r"```sh\n(clue-expert rules \S+)\n```", tutorial).group(1))
    assert "fall-back-to-basic-forcing" in checked and "my-advanced" in checked

    command = re.search(r"```console\n\$ (clue-expert simulate [^\n]+)\n", tutorial).group(1)
    printed = run(capsys, monkeypatch, command)
    assert same(printed, console_output(DOCS / "strategies.md", command)), \
        "docs/strategies.md's tutorial: paste the output of the simulate command run on the edited file"

    play = re.search(r"`(clue-expert play --strategy my-advanced.yaml[^`]*)`", tutorial).group(1)
    traced = run(capsys, monkeypatch, play)
    assert "[fall-back-to-basic-forcing] nothing known lacked by" in traced  # "the new rule at work"


@pytest.mark.parametrize("line, problem", [("-          other: \"no such line\"\n+x\n", "exactly one")])
def test_a_stale_diff_is_caught(line, problem):
    with pytest.raises(AssertionError, match=problem):
        apply_diff("id: x\n", line)
