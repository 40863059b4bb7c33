"""``deduce --watch`` in CLIPS's watch style and ``deduce --agenda``, on both
engines, at a fixed width and a narrow one: every line fits, nothing is cut."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from clue_expert.people.cli import main

THREE = str(Path(__file__).resolve().parent.parent / "docs" / "examples" / "three-players.yaml")
ENGINES = ["experta", "clips"]


def deduce(capsys, monkeypatch, width: int, *argv: str) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    capsys.readouterr()
    assert main(["deduce", "--no-color", *argv]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= width for line in out.splitlines()) and "…" not in out
    return " ".join(out.split())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("width", [40, 100])
def test_watch_shows_facts_activations_and_firings(capsys, monkeypatch, width, engine):
    text = deduce(capsys, monkeypatch, width, THREE, "--turn", "1", "--watch", "--engine", engine)
    assert text.startswith("==> f-1 (owner (name ann) (player TRUE)) ==> ")  # the set-up first
    assert re.search(r"==> f-\d+ \(game \(players ann bob cat\) \(me ann\)\)", text)
    passed = re.search(r"==> f-(\d+) \(passed \(turn 1\) \(player cat\) \(by bob\) \(cards white rope study\)\)",
                        text)
    assert passed, text[:400]
    n = passed.group(1)
    assert re.search(rf"==> Activation \d+ record-pass-as-lacked: f-{n},f-\d+", text)  # the pass, a card of it
    fire = re.search(rf"FIRE +(\d+) record-pass-as-lacked: f-{n},f-\d+ \(salience \d+\)", text)
    assert fire
    # what the firing asserts, then the seat's account of it
    assert re.match(r" ==> f-\d+ \(lacked \(owner cat\) \(card (white|study)\)\) .*?"
                    r";; record-pass-as-lacked: cat could not disprove", text[fire.end():])


def test_both_engines_assert_the_same_facts(capsys, monkeypatch):
    asserted = {}
    for engine in ENGINES:
        text = deduce(capsys, monkeypatch, 100, THREE, "--watch", "--engine", engine)
        facts = re.findall(r"==> f-\d+ (\(.*?\)\))(?= ==>| <==| FIRE| ;;|$)", text)
        # the experta adapter's own markers (a negated conjunction compiled around experta's NOT(AND))
        asserted[engine] = sorted(f for f in facts if not f.startswith("(not-witness-"))
    assert asserted["experta"] == asserted["clips"] and len(asserted["clips"]) > 60


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("width", [40, 100])
def test_agenda_lists_the_activations_at_a_turn(capsys, monkeypatch, width, engine):
    text = deduce(capsys, monkeypatch, width, THREE, "--turn", "1", "--agenda", "--engine", engine)
    m = re.search(r"agenda at turn 1, before its first firing ─* (.*?) For a total of (\d+) activations\.", text)
    listed = re.findall(r"\d+ +([a-z-]+): (f-\d+(?:,f-\d+)*)", m.group(1)) if m else []
    if engine == "experta":  # cat lacks each of the 3 cards he passed on; ann holds the one she showed
        assert m and int(m.group(2)) == 4
        assert sorted(rule for rule, _ in listed) == ["record-pass-as-lacked"] * 3 + ["record-seen-card-as-held"]
    else:  # on CLIPS a native rule's activation needs its conclusion to be new (its last pattern, not CELL):
        # ann knew that cat lacks her own card he passed on, and that she holds the card she showed
        assert m and int(m.group(2)) == 2
        assert [rule for rule, _ in listed] == ["record-pass-as-lacked"] * 2
    after = text[m.end():]
    for _, basis in listed:  # every fact named is listed after the count
        for n in basis.replace("f-", "").split(","):
            assert re.search(rf"f-{n} \((passed|showed|card) ", after)
