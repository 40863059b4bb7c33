"""The installed CLI on real input: deduce, why, rules, with and without --json."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from clue_expert.people.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
EX = str(EXAMPLES / "three-players.yaml")
K1 = str(EXAMPLES / "kingston-1-player1.yaml")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_deduce_json_one_object_per_record(capsys):
    code, out, _ = run(capsys, "deduce", "--json", EX, K1)
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 2
    sheet = json.loads(lines[0])
    assert sheet["owners"] == ["ann", "bob", "cat", "envelope"]
    assert sheet["cells"]["envelope"]["kitchen"] == "held"
    assert sheet["cells"]["bob"]["rope"] == "lacked"
    assert set(sheet["cells"]["ann"].values()) <= {"held", "lacked", "unknown"}
    assert len(sheet["cards"]) == 21


def test_deduce_turn(capsys):
    code, out, _ = run(capsys, "deduce", "--json", "--turn", "0", EX)
    sheet = json.loads(out)
    assert sheet["cells"]["envelope"]["kitchen"] == "unknown"
    assert sheet["cells"]["ann"]["rope"] == "held"


def test_deduce_default_record_and_table(capsys):
    code, out, _ = run(capsys, "deduce", "--no-color")
    assert code == 0 and "player1's sheet" in out and "Envelope" in out


def test_deduce_watch(capsys):
    code, out, _ = run(capsys, "deduce", "--watch", "--no-color", EX)
    assert "FIRE" in out and "record-pass-as-lacked" in out


def test_why_text_and_json(capsys):
    code, out, _ = run(capsys, "why", EX, "bob lacks rope", "--no-color")
    assert code == 0 and "holder-excludes-other-owners" in out and "ann was dealt" in out
    code, out, _ = run(capsys, "why", "--json", EX, "envelope holds kitchen")
    data = json.loads(out)
    assert data["status"] == "known" and data["explanation"]["rule"] == "card-nobody-holds-is-in-envelope"
    assert any("could not disprove" in r for r in data["roots"])


def test_why_unknown_and_false(capsys):
    code, out, _ = run(capsys, "why", EX, "bob holds green")
    assert code == 3 and "Not known" in out
    code, out, _ = run(capsys, "why", EX, "bob holds rope")
    assert code == 0 and "No:" in out


def test_why_bad_card_suggests(capsys):
    code, _, err = run(capsys, "why", EX, "bob lacks rop")
    assert code == 2 and "did you mean 'rope'" in err


def test_rules_lists_everything(capsys):
    code, out, _ = run(capsys, "rules", "--json")
    rules = json.loads(out)
    ids = {r["id"] for r in rules}
    assert {"holder-excludes-other-owners", "record-pass-as-lacked", "full-hand-lacks-everything-else",
            "last-possible-card-of-category-in-envelope"} <= ids
    assert all(r["message"] for r in rules)


def test_contradictory_record_keeps_sheet_before_turn(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(Path(EX).read_text().replace(
        "  - {by: bob, accuse: [peacock, pipe, kitchen], correct: false}",
        "  - {by: ann, suggest: [mustard, rope, study], passed: [], shown_by: bob, card: study}\n"
        "  - {by: ann, suggest: [mustard, rope, kitchen], passed: [], shown_by: bob, card: kitchen}"))
    code, out, err = run(capsys, "deduce", "--json", str(bad))
    assert code == 1
    sheet = json.loads(out)
    assert sheet["error"]["turn"] == 5 and sheet["turn"] == 4
    assert "kitchen" in err


def test_console_script_installed():
    out = subprocess.run([sys.executable, "-m", "clue_expert", "deduce", "--json", EX], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["cells"]["envelope"]["mustard"] == "held"


def test_bad_inputs_are_errors_not_tracebacks(tmp_path, capsys):
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["deduce", str(binary)]) == 2
    brace = tmp_path / "brace.yaml"
    brace.write_text("id: b\ntitle: t\nrules:\n  - id: r-one\n    message: '{owner'\n    when: held\n"
                     "    then:\n      - lacked: [owner, card]\n")
    assert main(["rules", str(brace)]) == 2
    assert "r-one" in capsys.readouterr().err
    assert main(["play", "--record", str(tmp_path / "nodir" / "x.yaml")]) == 2
    assert main(["play", "--record-seat", "bob", "--record", str(tmp_path / "x.yaml")]) == 2
    assert main(["replay", EX, "--export", str(tmp_path / "x.txt")]) == 2


def test_replay_of_a_contradictory_record_exits_1(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(Path(EX).read_text().replace(
        "  - {by: bob, accuse: [peacock, pipe, kitchen], correct: false}",
        "  - {by: ann, suggest: [mustard, rope, kitchen], passed: [], shown_by: bob, card: kitchen}"))
    assert main(["replay", "--all", "--no-color", str(bad)]) == 1
    assert "contradiction" in capsys.readouterr().out
