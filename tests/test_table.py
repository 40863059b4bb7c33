"""The human seat, the table assistant and the classroom replay, driven by
scripted input and checked on a fixed-width, colourless console."""
from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from clue_expert.core.cards import get_edition
from clue_expert.people.cli import main
from clue_expert.core.deals import get_deal
from clue_expert.play.game import play_game
from clue_expert.people.human import HumanPlayer, HumanQuit
from clue_expert.people.notebook import NotebookSession, split_cards
from clue_expert.people.output import Changes, Message
from clue_expert.play.players import RuleBasedPlayer
from clue_expert.core.records import load_record
from clue_expert.engine.knowledge import replay_record as replay
from clue_expert.people.render import make_console, output_item
from clue_expert.people.replay import hindsight, steps

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
CLUEDO = get_edition("cluedo")


def texts(items):
    return [i.text for i in items if isinstance(i, Message)]


def render(items, edition=CLUEDO, width=100):
    buf = io.StringIO()
    console = make_console(width=width, color=False, file=buf)
    for i in items:
        console.print(output_item(i, edition))
    return buf.getvalue()


# ----------------------------------------------------------------- notebook
SETUP = ["cluedo", "ann bob cat", "ann", "scarlett rope hall lounge dagger plum", ""]


def session(tmp_path, strategy=None, lines=SETUP):
    s = NotebookSession(tmp_path / "game.yaml", strategy=strategy)
    s.start()
    out = []
    for line in lines:
        out += s.handle(line)
    return s, out


def test_split_cards_handles_multiword_names_and_aliases():
    assert split_cards(CLUEDO, "white lead pipe study", 3) == ["white", "lead-pipe", "study"]
    assert split_cards(CLUEDO, "Mrs White, knife, billiard room", 3) == ["white", "dagger", "billiard-room"]
    with pytest.raises(Exception, match="did you mean"):
        split_cards(CLUEDO, "white rop study", 3)


def test_notebook_setup_entries_and_sheet(tmp_path):
    s, out = session(tmp_path, "kingston-next-not-held")
    assert any("advice" in t for t in texts(out))
    out = s.handle("bob: white rope study / cat passes / ann shows rope")
    assert "turn 1 recorded" in texts(out)
    assert any("you can refute it with rope" in t for t in texts(out))
    text = render(out)
    assert "ann's sheet after turn 1" in text
    cat_study = next(l for l in text.splitlines() if "Study" in l)
    assert "✗" in cat_study  # cat passed on study
    out = s.handle("ann: mustard candlestick kitchen / nobody")
    assert any("the envelope is known" in t for t in texts(out))
    saved = yaml.safe_load((tmp_path / "game.yaml").read_text())
    assert len(saved["turns"]) == 2  # saved after every entry


def test_notebook_refuses_contradictions_and_bad_input_without_change(tmp_path):
    s, _ = session(tmp_path)
    s.handle("bob: white rope study / cat passes / ann shows rope")
    before = (tmp_path / "game.yaml").read_text()
    out = s.handle("bob: green revolver study / cat shows study")  # ann cannot have seen it
    assert any("refused, nothing changed" in t and "could not see it" in t for t in texts(out))
    out = s.handle("ann: green revolver study / bob passes / cat shows study")  # cat passed on study before
    assert any("refused, nothing changed" in t and "cat lacks study" in t and "cat holds study" in t
               for t in texts(out))
    assert (tmp_path / "game.yaml").read_text() == before
    assert len(s.notebook.turns) == 1
    for bad, msg in [("bob: white rop study", "did you mean 'rope'"), ("dan: white rope study", "unknown player"),
                     ("bob white", "cannot read"), ("edit 9", "no turn 9"), ("why bob lacks rop", "did you mean")]:
        out = s.handle(bad)
        assert any(msg in t for t in texts(out)), (bad, texts(out))
    assert len(s.notebook.turns) == 1


def test_notebook_undo_edit_history_why_and_why_not(tmp_path):
    s, _ = session(tmp_path)
    s.handle("bob: white rope study / cat passes / ann shows rope")
    s.handle("cat: green spanner hall / ann shows hall")
    assert len(texts(s.handle("history"))) == 2
    out = s.handle("why-not bob holds green")
    assert any("still open" in t for t in texts(out))
    assert any("bob shows you green" in t for t in texts(out))
    out = s.handle("why bob lacks rope")
    assert "holder-excludes-other-owners" in render(out)
    out = s.handle("undo")
    assert "removed turn 2" in texts(out) and len(s.notebook.turns) == 1
    s.handle("edit 1")
    out = s.handle("bob: white rope kitchen / cat passes / ann shows rope")
    changed = [i for i in out if isinstance(i, Changes)][0].cells
    assert ("cat", "kitchen", "unknown", "lacked") in changed and ("cat", "study", "lacked", "unknown") in changed


def test_notebook_step_by_step_entry(tmp_path):
    s, _ = session(tmp_path)
    for line in ["turn", "bob", "white rope study", "ann", "rope"]:
        out = s.handle(line)
    assert "turn 1 recorded" in texts(out)
    assert s.notebook.turns[0] == {"by": "bob", "suggest": ["white", "rope", "study"], "passed": ["cat"],
                                   "shown_by": "ann", "card": "rope"}


def test_notebook_save_kill_load(tmp_path):
    path = tmp_path / "game.yaml"
    script = "\n".join(SETUP + ["bob: white rope study / cat passes / ann shows rope"]) + "\n"
    proc = subprocess.Popen([sys.executable, "-m", "clue_expert", "notebook", str(path), "--no-color"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdin.write(script)
    proc.stdin.flush()
    # wait until the entry is saved, then kill the process without letting it quit
    import time
    for _ in range(200):
        if path.exists() and "white" in path.read_text():
            break
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    s = NotebookSession(path)
    assert "1 turns" in texts(s.start())[0]
    assert s.notebook.knowledge.status("bob", "rope") == "lacked"
    assert not list(tmp_path.glob(".game.yaml.*"))  # no stray temporary file
    # the saved game is a record that deduce reads
    assert replay(load_record(path)).status("cat", "study") == "lacked"


# --------------------------------------------------------------- human seat
class Script:
    def __init__(self, lines):
        self.lines = list(lines)
        self.prompts = []

    def __call__(self, prompt):
        self.prompts.append(prompt)
        if not self.lines:
            return "quit"
        return self.lines.pop(0)


def test_human_seat_validates_and_plays():
    deal = get_deal("kingston-1-3p")
    told = []
    script = Script(["help", "sheet", "plum pipe hal", "rope plum hall", "plum rope hall", "no",
                     "scarlett", "spanner", "rope", "no"])
    human = HumanPlayer("player1", script, told.append)
    others = {p: RuleBasedPlayer(p, "mitchell-basic", seed=i) for i, p in enumerate(deal.players[1:])}
    with pytest.raises(HumanQuit):
        play_game(deal, {"player1": human, **others})
    msgs = texts(told)
    assert any("did you mean 'hall'" in m for m in msgs)
    assert any("names one suspect, one weapon and one room" in m or "shows you" in m for m in msgs)
    assert any("'sheet'" in m for m in msgs)  # help
    from clue_expert.engine.knowledge import Sheet
    assert any(isinstance(t, Sheet) for t in told)
    # his own marks only: no envelope deduction without hints
    assert human.marks.status("envelope", "prof-plum") == "unknown"


def test_human_disprove_only_held_cards_and_accusation_checks():
    deal = get_deal("kingston-1-3p")
    told = []
    human = HumanPlayer("player2", Script(["rope", "mrs-peacock"]), told.append)
    sizes = {p: len(h) for p, h in deal.hands.items()}
    human.start(deal.edition, deal.players, sizes, deal.hands["player2"])
    card = human.disprove(1, "player1", ("mrs-peacock", "revolver", "hall"), ("mrs-peacock", "revolver"))
    assert card == "mrs-peacock"
    assert any("you can only show one of" in t for t in texts(told))
    human.ask = Script(["mrs-peacock rope hall", "prof-plum rope hall", "yes"])
    assert human.accuse(2) == ("prof-plum", "rope", "hall")
    assert any("you hold mrs-peacock" in t for t in texts(told))


def test_play_human_cli_with_hints(monkeypatch, capsys):
    lines = iter(["hint", "plum pipe hall", "prof-plum lead-pipe hall", "yes"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines, "quit"))
    code = main(["play", "--human", "zoe", "--hints", "--no-color", "--no-sheets"])
    out = capsys.readouterr().out
    assert code == 0 and "You are zoe" in out and "hint: suggest" in out
    assert "You win" in out or "wins in round" in out or "left the game" in out
    assert "strategy" not in out.split("hidden")[1] if "hidden" in out else True


# --------------------------------------------------------------- classroom
def test_replay_steps_and_hindsight():
    record = load_record(EXAMPLES / "kingston-1-player1.yaml")
    all_steps = list(steps(record))
    assert len(all_steps) == len(record.turns) + 1
    assert all_steps[-1].solved and not all_steps[-2].solved
    assert all(s.firings or not s.changes for s in all_steps)
    h = hindsight(record)
    assert h["first_turn_complete"] == 16 and h["accused_turn"] is None
    other = record.as_seat("player2")
    assert other.me == "player2" and replay(other).status("player1", "miss-scarlett") in ("held", "unknown")


def test_replay_cli_all_and_exports(tmp_path, capsys):
    rec = str(EXAMPLES / "three-players.yaml")
    assert main(["replay", rec, "--all", "--hindsight", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "turn 3: ann suggests" in out and "card-nobody-holds-is-in-envelope" in out
    assert "could have named the envelope after turn 3" in out
    for ext in ("md", "html", "svg"):
        path = tmp_path / f"r.{ext}"
        assert main(["replay", rec, "--hindsight", "--export", str(path)]) == 0
        text = path.read_text()
        assert "Kitchen" in text or "kitchen" in text
    assert "## Final sheet" in (tmp_path / "r.md").read_text()
    assert "<svg" in (tmp_path / "r.svg").read_text()


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.skipif(chromium() is None, reason="headless Chromium is not installed (.ci/run installs it)")
def test_html_export_shows_the_sheet_in_a_browser(tmp_path):
    html = tmp_path / "replay.html"
    assert main(["replay", str(EXAMPLES / "three-players.yaml"), "--export", str(html)]) == 0
    out = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--disable-background-networking", "--disable-component-update", "--disable-sync",
                          f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", html.as_uri()],
                         capture_output=True, text=True, timeout=120)
    dom = out.stdout
    assert "ann's final sheet" in dom and "Miss Scarlett" in dom and "✓" in dom


def test_notebook_odds_show_exact_probabilities(tmp_path):
    s, _ = session(tmp_path, "clue-expert-information-gain")
    out = s.handle("bob: white rope study / cat passes / ann shows rope")
    assert any("expected gain" in t for t in texts(out))  # the information-gain advice and its reason
    out = s.handle("odds")
    text = render(out, width=120)
    assert "ann's probabilities (%)" in text
    assert "envelope" in text.lower()
    # cat passed on white, rope and study: 0 % in cat's column for them
    b = out[0].beliefs
    assert b.probabilities["cat"]["white"] == 0.0
    assert b.probabilities["ann"]["rope"] == 1.0
    assert abs(sum(b.envelope.values()) - 1.0) < 1e-9
