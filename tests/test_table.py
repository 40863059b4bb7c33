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
from clue_expert.core.observations import Event, Suggestion
from clue_expert.people.cli import main
from clue_expert.core.deals import get_deal
from clue_expert.play.game import play_game
from clue_expert.people.human import HumanPlayer, HumanQuit
from clue_expert.people.notebook import NotebookSession, split_cards
from clue_expert.people.output import Changes, Message
from clue_expert.play.players import RuleBasedPlayer
from clue_expert.core.records import load_record
from clue_expert.engine.seat.knowledge import replay_record as replay
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
    text = render(out + s.handle("sheet"))  # compact by default: the sheet on demand
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
    steps_out = render(s.handle("why --steps bob lacks rope"))
    assert "1. ann holds rope  [record-own-hand: dealt]" in steps_out
    assert "2. bob lacks rope  [holder-excludes-other-owners: 1]" in steps_out
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
    # no stray temporary file (the lock of the session open on it is not one)
    assert [p.name for p in tmp_path.glob(".game.yaml.*")] in ([], [".game.yaml.lock"])
    s.close()
    assert not list(tmp_path.glob(".game.yaml.*"))
    # the saved game is a record that deduce reads
    assert replay(load_record(path)).status("cat", "study") == "lacked"


def test_english_list():
    from clue_expert.people.output import english_list
    assert english_list([]) == "nothing"
    assert english_list(["rope"]) == "rope"
    assert english_list(["rope", "hall"]) == "rope and hall"
    assert english_list(["rope", "hall", "plum"]) == "rope, hall and plum"
    assert english_list(["rope", "hall"], "or") == "rope or hall"


def test_notebook_compact_by_default_sheet_on_demand_and_verbose(tmp_path):
    from clue_expert.engine.seat.knowledge import Sheet
    s, _ = session(tmp_path)
    out = s.handle("bob: white rope study / cat passes / ann shows rope")
    assert "turn 1 recorded" in texts(out)
    assert not any(isinstance(i, Sheet) for i in out)  # compact: no 30-line sheet after an entry
    assert any(isinstance(i, Changes) for i in out)  # but what changed
    assert len(render(out).splitlines()) < 10
    assert any(isinstance(i, Sheet) for i in s.handle("sheet"))
    assert any("verbose" in t for t in texts(s.handle("verbose")))
    out = s.handle("cat: green spanner hall / ann shows hall")
    assert any(isinstance(i, Sheet) for i in out)
    s.handle("compact")
    assert not any(isinstance(i, Sheet) for i in s.handle("undo"))
    assert "compact" in texts(s.handle("help"))[0] and "verbose" in texts(s.handle("help"))[0]


def test_notebook_no_suggestion_advice_once_the_envelope_is_known(tmp_path):
    s, _ = session(tmp_path, "kingston-next-not-held")
    s.handle("bob: white rope study / cat passes / ann shows rope")
    out = texts(s.handle("ann: mustard candlestick kitchen / nobody"))
    assert "the envelope is known: mustard, candlestick and kitchen — accuse!" in out
    assert not any(t.startswith("advice") for t in out)


def test_notebook_refute_note_only_when_nobody_else_showed(tmp_path):
    s, _ = session(tmp_path)
    out = texts(s.handle("cat: white rope study / ann shows rope"))
    assert any("you can refute it with rope" in t for t in out)
    out = texts(s.handle("bob: green rope hall / cat shows"))  # cat showed before ann was asked
    assert "turn 2 recorded" in out
    assert not any("refute" in t for t in out)
    out = texts(s.handle("cat: plum rope hall / ann shows rope"))
    assert any("you can refute it with plum, rope or hall" in t for t in out)


def test_notebook_hand_sizes_are_not_mistaken_for_a_turn(tmp_path):
    s = NotebookSession(tmp_path / "game.yaml")
    s.start()
    for line in SETUP[:-1]:
        s.handle(line)
    assert "Enter accepts" in s.prompt and "sizes" in s.prompt and "ann 6, bob 6 and cat 6" in s.prompt
    out = texts(s.handle("bob: white rope study / cat passes / ann shows rope"))
    assert any("looks like a turn" in t and "Enter" in t for t in out)
    assert s.notebook is None and s._setup["sizes"] == {"ann": 6, "bob": 6, "cat": 6}
    assert any("cannot read" in t for t in texts(s.handle("bob 5 cat 7")))  # no 'sizes': never read as sizes
    assert any("pairs" in t for t in texts(s.handle("sizes bob")))
    assert any("add up to 24, but 18 cards are dealt" in t for t in texts(s.handle("sizes bob 9 cat 9")))
    out = texts(s.handle("sizes bob 7 cat 5"))
    assert "hand sizes now ann 6, bob 7 and cat 5; Enter accepts them" in out and s.notebook is None
    s.handle("")
    assert s.notebook.hand_sizes == {"ann": 6, "bob": 7, "cat": 5} and s.prompt == "turn 1> "


def test_notebook_save_as_says_it_saves_there_from_now_on(tmp_path):
    s, _ = session(tmp_path)
    out = texts(s.handle("save"))
    assert out == [f"saved to {tmp_path / 'game.yaml'}", f"the game is saved to {tmp_path / 'game.yaml'} "
                                                            f"after every entry"]
    other = tmp_path / "other.yaml"
    out = texts(s.handle(f"save {other}"))
    assert out[0] == f"saved to {other}"
    assert f"from now on the game is saved to {other} after every entry" in out[1]
    assert f"{tmp_path / 'game.yaml'} is no longer updated" in out[1]
    s.handle("bob: white rope study / cat passes / ann shows rope")
    assert len(yaml.safe_load(other.read_text())["turns"]) == 1
    assert yaml.safe_load((tmp_path / "game.yaml").read_text())["turns"] == []


def test_notebook_messages_list_in_english(tmp_path):
    s, out = session(tmp_path)
    assert "your cards: scarlett, rope, hall, lounge, dagger and plum" in texts(out)
    out = texts(s.handle("bob: plum rope hall / ann shows"))
    assert any("which did you show? you hold plum, rope and hall" in t for t in out)
    assert not any("[" in t and "'" in t for t in out)
    out = texts(s.handle("dan: plum rope hall"))
    assert any("unknown player 'dan'; players are ann, bob and cat" in t for t in out)


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
    from clue_expert.engine.seat.knowledge import Sheet
    assert any(isinstance(t, Sheet) for t in told)
    # his own marks only: no envelope deduction without hints
    assert human.marks.status("envelope", "prof-plum") == "unknown"


def seated_player2(script, hints: bool = False):
    """A person at player2's seat of kingston-1-3p, started on its deal: (the seat, what it was told)."""
    deal = get_deal("kingston-1-3p")
    told: list = []
    human = HumanPlayer("player2", script, told.append, hints=hints)
    human.start(deal.edition, deal.players, {p: len(h) for p, h in deal.hands.items()}, deal.hands["player2"])
    return human, told


def test_human_disprove_only_held_cards_and_accusation_checks():
    human, told = seated_player2(Script(["rope", "mrs-peacock"]))
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
    text = " ".join(out.split())
    assert "the other players' strategies are hidden" in text  # and then never named
    assert "strateg" not in text.split("the other players' strategies are hidden", 1)[1]


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
    md = (tmp_path / "r.md").read_text()
    assert "## Final sheet" in md and "## Why: envelope holds kitchen" in md
    assert "4. envelope holds kitchen — *card-nobody-holds-is-in-envelope: 2, 3*" in md
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
    assert "ann's seat" in dom and "Miss Scarlett" in dom and "✓" in dom and 'id="sheet"' in dom


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


def test_human_hint_answers_the_question_asked():
    human, told = seated_player2(Script(["hint", "revolver"]), hints=True)  # kingston-1-3p: envelope prof-plum, lead-pipe, hall
    # which card do you show: the response rules' choice, not a suggestion
    card = human.disprove(1, "player1", ("mrs-peacock", "revolver", "hall"), ("mrs-peacock", "revolver"))
    hints = [t for t in texts(told) if t.startswith("hint")]
    assert card == "revolver" and len(hints) == 1
    assert hints[0].startswith("hint: show mrs-peacock") or hints[0].startswith("hint: show revolver")
    assert "suggest" not in hints[0]
    told.clear()
    human.ask = Script(["hint", "study"])
    human.disprove(2, "player3", ("mrs-white", "dagger", "study"), ("study",))
    assert texts(told)[0].startswith("hint: show study — it is the only one")
    # accuse now?: not known yet
    told.clear()
    human.ask = Script(["hint", "no"])
    assert human.accuse(3) is None
    assert texts(told) == ["hint: the envelope is not known yet — answer 'no'; a wrong accusation puts you out"]
    # at the suggestion prompt: suggestion advice
    told.clear()
    human.ask = Script(["hint", "plum rope hall"])
    human.suggest(4, 1)
    assert texts(told)[0].startswith("hint: suggest ")
    # once the envelope is known: which, and no more suggestion advice
    human.observe(Event(5, 2, Suggestion("player2", ("prof-plum", "lead-pipe", "hall"), ("player3", "player1"))))
    for prompt_lines, call in ((["hint", "no"], lambda: human.accuse(6)),
                               (["hint", "plum rope hall"], lambda: human.suggest(7, 3))):
        told.clear()
        human.ask = Script(prompt_lines)
        call()
        msg = texts(told)[0]
        assert msg.startswith("hint: the envelope is known: prof-plum, lead-pipe and hall"), msg
        assert "suggest" not in msg


def test_human_hint_when_hints_are_off():
    human, told = seated_player2(Script(["hint", "no"]))
    assert human.accuse(1) is None
    assert any("hints are off" in t for t in texts(told))


def test_play_human_prints_the_shown_card_once(monkeypatch, capsys):
    # player1 suggests white, dagger, kitchen (all player3's) and does not accuse
    lines = iter(["white dagger kitchen", "no"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines, "quit"))
    main(["play", "--human", "player1", "--no-color", "--no-sheets", "--deal", "kingston-1-3p"])
    out = capsys.readouterr().out
    flat = " ".join(out.split())  # the turn line may wrap
    assert flat.count("shows you") == 1, out  # once, on the turn line; not again from the seat
    assert ("turn 1: player1 suggests mrs-white, dagger, kitchen — player2 cannot disprove — player3 shows you"
            in flat)
