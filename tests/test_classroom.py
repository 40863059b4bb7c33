"""docs/classroom.md: every command of the lesson runs (from a scratch
folder, the repository's docs/ paths made absolute), and the answer key
agrees with what the commands print."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from clue_expert.people.cli import main
from clue_expert.play.puzzles import make_puzzle

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "classroom.md"


def blocks(kind: str) -> list:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(), re.S)


def commands() -> list:
    out = []
    for block in blocks("sh"):
        out += [line.strip() for line in block.splitlines() if line.strip().startswith("clue-expert ")]
    return out


@pytest.mark.slow  # a long run: every command of the lesson (the slow tier runs it in .ci/run)
def test_every_command_of_the_lesson_runs(tmp_path, monkeypatch, clips_prints):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    notebook_input = blocks("text")[0]
    printed = {}
    cmds = commands()
    assert len(cmds) >= 14
    for cmd in cmds:
        line = re.sub(r"(?<![\w/])docs/", f"{ROOT}/docs/", cmd)
        target = None
        if " > " in line:
            line, target = line.split(" > ")
        args = [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', line)][1:]
        if args[0] == "notebook":  # the table assistant reads the typed lines of the text block
            proc = subprocess.run([sys.executable, "-m", "clue_expert", *args, "--no-color"], input=notebook_input,
                                  capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, (cmd, proc.stderr)
            printed[cmd] = proc.stdout
            continue
        buf = io.StringIO()
        with redirect_stdout(buf):
            code = main(args)
        assert code == 0, cmd
        printed[cmd] = buf.getvalue()
        if target:
            (tmp_path / target).write_text(buf.getvalue())

    def out(start):
        return next(v for k, v in printed.items() if k.startswith(start))

    # before class: the files
    page = (tmp_path / "lesson.html").read_text()
    data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert "## Why: envelope holds hall" in (tmp_path / "handout.md").read_text()
    assert "Show the answer" in (tmp_path / "puzzle-hard.html").read_text()
    # E2: what turn 1 settles
    turn1 = {d["rule"]: d["facts"] for d in data["steps"][1]["deductions"]}
    assert turn1["record-seen-card-as-held"] == ["player3 holds candlestick"]
    assert turn1["record-pass-as-lacked"] == ["player2 lacks candlestick and kitchen"]
    assert turn1["holder-excludes-other-owners"] == ["envelope lacks candlestick"]
    assert turn1["narrow-one-of"] == ["envelope holds one of revolver, dagger, lead-pipe"]
    # E10: two levels side by side, parting at turn 16 on the lead pipe
    compare = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>',
                                   (tmp_path / "compare.html").read_text(), re.S).group(1))
    mine, theirs = compare["steps"], compare["compare"]["steps"]
    assert compare["compare"]["level"]["id"] == "kingston"
    assert [s["sheet"] for s in mine[:16]] == [s["sheet"] for s in theirs[:16]]
    diff = sum(a != b for o in mine[16]["sheet"] for a, b in zip(mine[16]["sheet"][o], theirs[16]["sheet"][o]))
    assert diff == 25
    pipe = [c["id"] for cat in compare["categories"] for c in cat["cards"]].index("lead-pipe")
    assert mine[16]["sheet"]["envelope"][pipe] == "h" and theirs[16]["sheet"]["envelope"][pipe] == "u"
    assert "last-possible-card-of-category-in-envelope" in {d["rule"] for d in mine[16]["deductions"]}
    assert mine[16]["solved"] and not theirs[16]["solved"]
    # E3
    assert "player2 could not have named the envelope within the 16 turns recorded" in \
        " ".join(out("clue-expert replay docs/examples/kingston-1-player1.yaml --as player2").split())
    # E4, E5: the hall proof, at most 40 lines at 80 columns (the doc says 33: keep a margin)
    hall = out('clue-expert why --steps docs/examples/kingston-1-player1.yaml "envelope holds hall"')
    assert len(hall.splitlines()) <= 34
    words = " ".join(hall.split())
    for line in ["27. player3 lacks hall [full-hand-lacks-everything-else: 6, 11, 15, 19, 24, 26]",
                 "17. envelope holds lead-pipe [last-possible-card-of-category-in-envelope: 3, 7, 10, 16]",
                 "6. player3 holds candlestick", "11. player3 holds mrs-white", "15. player3 holds dagger",
                 "19. player3 holds conservatory", "24. player3 holds kitchen", "26. player3 holds billiard-room",
                 "3. envelope lacks rope and spanner", "7. envelope lacks candlestick",
                 "10. player3 and envelope lack revolver", "16. envelope lacks dagger"]:
        assert line in words, line
    # E6: the case analysis
    cases = " ".join(out("clue-expert why --steps docs/examples/case-analysis.yaml").split())
    for line in ["6. envelope lacks library [cases: 3, 4, 5]", "a. suppose envelope holds library",
                 "b. p1 and p3 lack library [holder-excludes-other-owners: a]",
                 "c. p1 holds revolver [one-of-down-to-last-card: 5, b]",
                 "d. p3 lacks revolver [holder-excludes-other-owners: c]",
                 "e. p3 holds one of green, library [narrow-one-of: 3, d]",
                 "f. p1 holds green [one-of-down-to-last-card: 4, b]",
                 "g. p3 lacks green [holder-excludes-other-owners: f]",
                 "h. impossible: p3 must hold one of green, library but lacks them all "
                 "[lacked-card-empties-one-of: e, g, b]"]:
        assert line in cases, line
    # E7-E9: the puzzles
    assert make_puzzle(3, "easy", 1).envelope == ("mustard", "rope", "ballroom")
    medium = make_puzzle(3, "medium", 2)
    assert medium.envelope == ("white", "lead-pipe", "hall")
    assert {"record-unseen-show-as-one-of", "narrow-one-of", "one-of-down-to-last-card"} \
        <= set(medium.rules_needed)
    assert not {"record-unseen-show-as-one-of", "narrow-one-of", "one-of-down-to-last-card"} \
        & set(make_puzzle(3, "easy", 1).rules_needed)
    assert make_puzzle(3, "hard", 1).envelope == ("peacock", "revolver", "ballroom")
    easy = " ".join(out('clue-expert why --steps puzzle-easy.yaml').split())
    assert "2. ann lacks mustard [full-hand-lacks-everything-else: 1]" in easy
    assert "3. cat lacks mustard [record-pass-as-lacked: turn 3]" in easy
    assert "4. bob lacks mustard [record-pass-as-lacked: turn 5]" in easy
    hard = " ".join(out('clue-expert why --steps puzzle-hard.yaml').split())
    for line in ["12. cat holds one of plum, spanner", "13. cat holds one of spanner, billiard-room",
                 "14. bob lacks revolver [cases: 2, 4, 5, 6, 9, 10]",
                 "a. suppose bob holds revolver", "b. envelope lacks revolver [holder-excludes-other-owners: a]",
                 "c. so cat holds plum or spanner: 2 cases [one-of: 12]",
                 "d. suppose cat holds plum (case of c)", "e. bob lacks plum [holder-excludes-other-owners: d]",
                 "g. envelope lacks spanner [owners-needing-same-cards-hold-them: f, 13]",
                 "h. impossible: envelope must hold one of revolver, spanner but lacks them all "
                 "[lacked-card-empties-one-of: 9, g, b]",
                 "i. suppose cat holds spanner (case of c)",
                 "k. impossible: envelope must hold one of revolver, spanner but lacks them all "
                 "[lacked-card-empties-one-of: 9, j, b]"]:
        assert line in hard, line
    # E14: --watch is what CLIPS prints running the batch file (a bare clipspy environment runs it here)
    watch = (tmp_path / "watch.txt").read_text().splitlines()
    trace = [line for line in watch if not line.startswith(";;")]
    assert trace == clips_prints(tmp_path / "game.bat")
    at = trace.index("FIRE    5 record-pass-as-lacked: f-98,f-11")
    assert trace[at + 1].startswith("FIRE    6 ") and watch[watch.index(trace[at]) + 1] == trace[at + 1]
    assert "FIRE    1 record-pass-as-lacked: f-98,f-28" in trace and "FIRE    3 record-pass-as-lacked: f-98,f-18" in trace
    assert "==> f-85    (lacked (owner player2) (card col-mustard))" in trace
    assert "==> f-11    (card (id col-mustard) (category suspect))" in trace
    assert "<== f-58    (lacker-count ... (n 0))" in trace and "==> f-58    (lacker-count ... (n 1))" in trace
    assert "==> Activation 6190   holder-excludes-other-owners: f-102,f-4,*" in trace
    # after class: the model and the notebook
    model = " ".join(out("clue-expert why --model").split())
    assert "player2 named billiard-room in the first round" in model
    assert "1. cat lacks white [record-pass-as-lacked: turn 1]" in " ".join(out("clue-expert notebook").split())


@pytest.mark.parametrize("fact", ["cat lacks revolver"])
def test_the_answer_key_s_other_proof(tmp_path, fact, capsys):
    path = tmp_path / "puzzle-hard.yaml"
    assert main(["puzzle", "--difficulty", "hard", "--seed", "1"]) == 0
    path.write_text(capsys.readouterr().out)
    assert main(["why", "--steps", str(path), fact]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "a. suppose cat holds revolver" in text and "c. so cat holds plum or spanner: 2 cases" in text
