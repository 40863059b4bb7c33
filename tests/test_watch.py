"""``deduce --watch`` and ``deduce --agenda``, on both engines.  On experta
the watch is in CLIPS's watch style, at a fixed width and a narrow one: every
line fits, nothing is cut.  On CLIPS it is what CLIPS itself prints running
the game's batch file (``--export-batch``), line for line, with the seat's
``;;`` comments between: checked against a bare clipspy environment that
runs the batch file (no clue-expert code)."""
from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from clue_expert.engine.seat.knowledge import Firing
from clue_expert.people.batch import traced
from clue_expert.people.cli import main

THREE = str(Path(__file__).resolve().parent.parent / "docs" / "examples" / "three-players.yaml")
ENGINES = ["experta", "clips"]


def deduce(capsys, monkeypatch, width: int, *argv: str, fits: bool = True) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    capsys.readouterr()
    assert main(["deduce", "--no-color", *argv]) == 0
    out = capsys.readouterr().out
    if fits:  # CLIPS's own trace is never wrapped (line for line CLIPS's)
        assert all(len(line) <= width for line in out.splitlines()) and "…" not in out
    return " ".join(out.split())


@pytest.mark.parametrize("width", [40, 100])
def test_watch_shows_facts_activations_and_firings(capsys, monkeypatch, width, engine="experta"):
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


def _sorted_lists(fact: str) -> str:
    return re.sub(r"\((cards|players) ([^()]*)\)", lambda m: f"({m.group(1)} {' '.join(sorted(m.group(2).split()))})",
                  fact)


def test_both_engines_assert_the_same_facts(capsys, monkeypatch):
    """The same facts but the counts (CLIPS modifies a count in place and
    shows only the slot it changed) and the order of a clause's cards (the
    exported program keeps a category's order; the seat sorts them); CLIPS
    may assert more clauses."""
    asserted = {}
    for engine in ENGINES:
        text = deduce(capsys, monkeypatch, 100, THREE, "--watch", "--engine", engine, fits=False)
        facts = re.findall(r"==> f-\d+ (\(.*?\)\))(?= ==>| <==| FIRE| ;;|$)", text)
        # the experta adapter's own markers (a negated conjunction compiled around experta's NOT(AND))
        asserted[engine] = {_sorted_lists(f) for f in facts if not f.startswith("(not-witness-")
                            and not re.match(r"\([a-z-]+-count ", f)}
    # and clauses the exported program asserts where the seat's store keeps none (one it holds a card of)
    assert asserted["experta"] <= asserted["clips"] and len(asserted["experta"]) > 60
    assert all(f.startswith(("(not-all ", "(one-of ")) for f in asserted["clips"] - asserted["experta"])


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


# --- on CLIPS: what CLIPS prints running the game's batch file ---------------------------------------
LESSON = str(Path(__file__).resolve().parent.parent / "docs" / "examples" / "kingston-1-player1.yaml")


@pytest.fixture(scope="module")
def lesson(tmp_path_factory) -> tuple[Path, list[str]]:
    """The classroom record's batch file and ``deduce --no-complete --watch``'s lines."""
    bat = tmp_path_factory.mktemp("batch") / "game.bat"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["deduce", "--no-color", LESSON, "--no-complete", "--watch", "--export-batch", str(bat)]) == 0
    return bat, out.getvalue().splitlines()


def test_clips_watch_is_what_clips_prints_running_the_batch(lesson, clips_prints):
    bat, out = lesson
    trace = [line for line in out if not line.startswith(";;")]
    assert trace == clips_prints(bat) and len(trace) > 1000
    text = "\n".join(trace)
    assert re.search(r"^FIRE +\d+ count-held-count: f-\d+$", text, re.M)  # the counts' firings shown
    modified = re.search(r"^<== f-(\d+) +\(held-count \.\.\. \(n 0\)\)\n==> f-(\d+) +\(held-count \.\.\. \(n 1\)\)$",
                         text, re.M)
    assert modified and modified.group(1) == modified.group(2)  # modify keeps the fact's index
    assert re.search(r"^==> Activation \d+ +holder-excludes-other-owners: f-\d+,f-\d+,\*$", text, re.M)  # a not
    # the batch: the program loaded, the watches, then each turn's facts and (run)
    lines = bat.read_text(encoding="utf-8").splitlines()
    assert lines[:5] == [f'(load* "{bat.with_suffix(".clp")}")', "(reset)", "(watch facts)", "(watch activations)",
                         "(watch rules)"]
    assert lines.count("(run)") == 17 and lines[-1] == "(run)"  # the deal and 16 turns
    assert all(line.startswith("(assert (") for line in lines[5:] if line != "(run)")


def test_clips_watch_explains_every_firing_of_the_seat_after_its_fire_line(lesson):
    _, out = lesson
    summary = re.search(r"^;; (\d+) facts derived by (\d+) rule firings", "\n".join(out), re.M)
    assert summary  # the sheet and the summary are ;; lines too
    explained = [i for i, line in enumerate(out) if re.match(r";; [a-z-]+: ", line)]
    assert len(explained) == int(summary.group(2)) == 111
    for i in explained:  # right after the FIRE line of the same rule
        rule = out[i].split()[1].rstrip(":")
        assert re.match(rf"FIRE +\d+ {rule}(--\S+)?: ", out[i - 1]), out[i - 1:i + 1]
    assert not any("not in CLIPS's run" in line for line in out)


@pytest.mark.skipif(shutil.which("clips") is None, reason="no stock CLIPS shell (Debian's clips package)")
def test_stock_clips_630_fires_the_same_rules_on_the_batch(lesson):
    """Debian's CLIPS 6.30 shell on the same batch file (``clips -f2``, its
    ``batch*``: no command echoed; then its banner and prompt): its
    ``modify`` asserts the count again under a new index, printing the
    whole fact, so from the first count's raise on the fact numbers differ;
    it fires the same rules in the same order and asserts the same facts."""
    bat, out = lesson
    run = subprocess.run(["clips", "-f2", bat.name], input="(exit)\n", capture_output=True, text=True, timeout=120,
                         cwd=bat.parent)
    stock = run.stdout.splitlines()
    assert re.match(r"\s+CLIPS \(6\.30", stock[-2]) and stock[-1].strip() == "CLIPS>"
    stock = stock[:-2]
    ours = [line for line in out if not line.startswith(";;")]
    assert len(stock) == len(ours)
    first = next(i for i, (a, b) in enumerate(zip(ours, stock)) if a != b)
    assert ours[:first] == stock[:first] and first > 80
    assert re.match(r"<== f-30 +\(held-count \.\.\. \(n 0\)\)", ours[first])  # 6.4's modify
    assert re.match(r"<== f-30 +\(held-count \(owner player1\) \(n 0\)\)", stock[first])  # 6.30's: the whole fact
    assert re.match(r"==> f-30 ", ours[first + 1]) and not re.match(r"==> f-30 ", stock[first + 1])  # a new index
    assert [line.split()[2] for line in ours if line.startswith("FIRE")] == \
        [line.split()[2] for line in stock if line.startswith("FIRE")]
    facts = re.compile(r"==> f-\d+ +(\((?![a-z-]+-count ).*)")
    assert [m.group(1) for line in ours if (m := facts.match(line))] == \
        [m.group(1) for line in stock if (m := facts.match(line))]


def test_export_names_saliences_comments_messages_and_binds_only_what_it_uses(tmp_path, capsys):
    kb = tmp_path / "kb.clp"
    assert main(["rules", "--export", "clips", str(kb)]) == 0
    text = kb.read_text(encoding="utf-8")
    assert re.search(r"^\(defglobal \?\*intake\* = \d+ \?\*propagate\* = \d+ .*\?\*bookkeeping\* = 10000\)$", text,
                     re.M)
    assert all(s.startswith(("?*", "(- ?*")) for s in re.findall(r"\(declare \(salience (.*?)\)\)\n", text))
    defrules = [(m.group(1) or "", m.group(2), m.group(3)) for block in text.split("\n\n")
                if (m := re.match(r"(?:;; (.*)\n)?\(defrule (\S+)\n(.*)", block.split("\n;; Salience")[0], re.S))]
    assert len(defrules) > 30
    for comment, name, body in defrules:
        if not name.startswith(("count-", "supersede-")):
            assert comment.startswith(f"{name.split('--')[0]} ("), name  # its message
        for bound in re.findall(r"(\?\w+) <- ", body):  # every binding used
            assert body.count(bound) >= 2, (name, bound)
    assert "(defrule record-pass-as-lacked" in text and "record-pass-as-lacked (intake): " in text


def test_export_batch_takes_one_record(capsys, tmp_path):
    code = main(["deduce", LESSON, THREE, "--export-batch", str(tmp_path / "game.bat")])
    assert code != 0 and "one record" in capsys.readouterr().err


def test_trace_places_each_account_under_the_firing_that_asserted_its_fact():
    """The seat's account goes under the CLIPS firing that asserted its
    conclusion, named as the seat's when CLIPS's rule is another; an
    account CLIPS never asserted the fact of comes after its turn's run."""
    held, lacked = ("held", "ann", "rope"), ("lacked", "bob", "rope")
    firings = [Firing(1, "rule-a", "ann has it", (held,), (), 0), Firing(2, "rule-c", "bob lacks it", (lacked,), (), 0)]
    seat = SimpleNamespace(firings=firings, values={held: {"owner": "ann", "card": "rope"},
                                                    lacked: {"owner": "bob", "card": "rope"}})
    output = ("==> f-1     (passed (turn 1))\nFIRE    1 rule-b: f-1\n==> f-2     (held (owner ann) (card rope))\n"
              "FIRE    2 rule-a: f-1\n")
    assert list(traced([output], [0], seat)) == [
        "==> f-1     (passed (turn 1))", "FIRE    1 rule-b: f-1",
        ";; the seat concluded this by rule-a: ann has it => ann holds rope",
        "==> f-2     (held (owner ann) (card rope))", "FIRE    2 rule-a: f-1",
        ";; not in CLIPS's run: rule-c: bob lacks it => bob lacks rope"]


def test_rules_that_run_python_are_watched_in_the_seat_s_engine_and_export_no_batch(capsys, monkeypatch, tmp_path):
    """An opponent model's rules compute their right-hand sides: no plain
    CLIPS program, so --watch shows the seat's engine's events (a firing
    with its salience) and --export-batch says why it writes nothing."""
    text = deduce(capsys, monkeypatch, 100, THREE, "--model", "first-round-asks", "--no-complete", "--watch",
                  "--turn", "1")
    assert re.search(r"FIRE +1 [a-z-]+: f-\d+,f-\d+ \(salience \d+\)", text) and "What CLIPS 6.4 prints" not in text
    code = main(["deduce", THREE, "--model", "first-round-asks", "--export-batch", str(tmp_path / "game.bat")])
    assert code != 0 and "rules do not export as a plain CLIPS program" in capsys.readouterr().err
    assert not (tmp_path / "game.bat").exists()
