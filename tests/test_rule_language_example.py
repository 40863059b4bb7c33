"""docs/rule-language.md's worked example runs as written: every file it
shows (``<!-- example-file: NAME -->`` before a block) is written to a
scratch folder, every ``$ clue-expert ...`` command of its console blocks is
run there, and the output it shows must appear, in order (whitespace and line
wrapping aside; a ``...`` line stands for lines left out)."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

from clue_expert.people.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rule-language.md"
SECTION = "## Worked example: your own rules, end to end"


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    return text[start:end]


def _blocks(text: str):
    """("file", name, body) and ("console", None, body) in order."""
    pattern = re.compile(r"(?:<!-- example-file: (?P<name>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)
    for m in pattern.finditer(text):
        if m.group("name"):
            yield "file", m.group("name"), m.group("body")
        elif m.group("lang") == "console":
            yield "console", None, m.group("body")


def _commands(body: str):
    """(argv, expected chunks) of each ``$`` line; chunks are split at ``...`` lines."""
    out = []
    for line in body.splitlines():
        if line.startswith("$ "):
            out.append((shlex.split(line[2:]), [[]]))
        elif line.strip() == "...":
            out[-1][1].append([])
        else:
            out[-1][1][-1].append(line)
    return [(argv, [" ".join(" ".join(c).split()) for c in chunks if c]) for argv, chunks in out]


def test_the_worked_example_runs_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    ran = 0
    for kind, name, body in _blocks(_section()):
        if kind == "file":
            (tmp_path / name).write_text(body, encoding="utf-8")
            continue
        for argv, chunks in _commands(body):
            assert argv[0] == "clue-expert", argv
            code = main(argv[1:])
            out, err = capsys.readouterr()
            assert code == 0, (argv, err)
            actual = " ".join((out + err).split())
            at = 0
            for chunk in chunks:
                found = actual.find(chunk, at)
                assert found >= 0, f"{' '.join(argv)}: the docs show\n{chunk}\nwhich is not in its output\n{out}"
                at = found + len(chunk)
            ran += 1
    assert ran >= 9
