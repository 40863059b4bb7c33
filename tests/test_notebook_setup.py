"""The notebook's set-up: hand sizes follow from who was dealt the first
card and always add up to the cards dealt; a hand that does not fit is
refused with the seats it would fit.  A hypothesis property over the shipped
editions, 2-10 players and every first-dealt seat, through the same dialogue
a player types."""
from __future__ import annotations

import io
import random

import pytest
from hypothesis import given, settings, strategies as st

from clue_expert.core.cards import editions
from clue_expert.core.deals import get_deal
from clue_expert.people.human import HumanPlayer
from clue_expert.play.game import play_game
from clue_expert.play.players import RuleBasedPlayer
from clue_expert.people.notebook import (NotebookSession, dealt_sizes, first_dealt_fitting, hand_fit_warning,
                                         line_editing)
from clue_expert.people.output import Message

EDITIONS = sorted(editions())


def texts(items):
    return [i.text for i in items if isinstance(i, Message)]


def set_up_adds_up(tmp_path_factory, edition, n, data):
    ed = editions()[edition]
    players = [f"p{i}" for i in range(1, n + 1)]
    first = data.draw(st.sampled_from(players), label="first")
    me = data.draw(st.sampled_from(players), label="me")
    dealt = len(ed.cards) - ed.envelope_size
    sizes = dealt_sizes(ed, players, first)
    assert list(sizes) == players and sum(sizes.values()) == dealt
    assert max(sizes.values()) - min(sizes.values()) <= 1
    # the extra cards go to the first-dealt seat and those after it
    i = players.index(first)
    order = players[i:] + players[:i]
    assert [sizes[p] for p in order] == sorted(sizes.values(), reverse=True)
    # the dialogue: a hand of the right size is taken, the sizes saved add up
    s = NotebookSession(tmp_path_factory.mktemp("nb") / "game.yaml")
    s.start()
    s.handle(edition)
    s.handle(" ".join(players))
    s.handle(me)
    if len(set(sizes.values())) > 1:
        assert s.prompt.startswith("who was dealt the first card")
        s.handle(first)
    hand = random.Random(data.draw(st.integers(0, 999))).sample(list(ed.card_ids), sizes[me])
    wrong = hand[:-1] if len(hand) > 1 else hand + [c for c in ed.card_ids if c not in hand][:1]
    out = texts(s.handle(" , ".join(ed.display(c) for c in wrong)))
    if hand_fit_warning(ed, players, me, first if len(set(sizes.values())) > 1 else players[0], len(wrong)):
        assert out and out[0].startswith(f"you listed {len(wrong)} cards"), out
    s.handle(", ".join(ed.display(c) for c in hand))
    s.handle("")
    nb = s.notebook
    assert nb is not None and sum(nb.hand_sizes.values()) == dealt and nb.hand_sizes[me] == len(hand)
    assert nb.hand_sizes == sizes or len(set(sizes.values())) == 1


# The property runs twice: a bounded number of examples in the default run,
# more in the slow tier (python -m pytest -m slow; .ci/run runs it).
SET_UPS = dict(edition=st.sampled_from(EDITIONS), n=st.integers(2, 10), data=st.data())
test_set_up_never_produces_sizes_that_do_not_add_up = settings(max_examples=20, deadline=None)(
    given(**SET_UPS)(set_up_adds_up))
test_set_up_never_produces_sizes_that_do_not_add_up_long = pytest.mark.slow(
    settings(max_examples=60, deadline=None)(given(**SET_UPS)(set_up_adds_up)))


def test_the_issue_s_four_player_cluedo_game(tmp_path):
    s = NotebookSession(tmp_path / "game.yaml")
    s.start()
    for line in ("cluedo", "alice bob carol me", "me"):
        s.handle(line)
    assert s.prompt == "who was dealt the first card (alice, bob, carol or me; Enter: alice)> "
    assert texts(s.handle("")) == ["dealt from alice: alice 5, bob 5, carol 4 and me 4, so you hold 4 cards"]
    out = texts(s.handle("scarlett rope hall lounge dagger"))
    assert out == ["you listed 5 cards, but dealing from alice gives you 4; dealing from carol or me gives you 5: "
                   "who was dealt first? (type your cards again; 'first NAME' changes who was dealt first)"]
    assert texts(s.handle("first carol")) == ["dealt from carol: alice 4, bob 4, carol 5 and me 5, so you hold 5 cards"]
    s.handle("scarlett rope hall lounge dagger")
    assert "hand sizes: alice 4, bob 4, carol 5 and me 5" in s.prompt
    out = texts(s.handle("sizes bob 5"))
    assert out[0].startswith("hand sizes alice 4, bob 5, carol 5 and me 5 add up to 19, but 18 cards are dealt")
    assert texts(s.handle("sizes bob 5 alice 3")) == ["hand sizes now alice 3, bob 5, carol 5 and me 5; Enter accepts them"]
    s.handle("")
    assert s.notebook.hand_sizes == {"alice": 3, "bob": 5, "carol": 5, "me": 5}


def test_which_first_seats_fit():
    ed = editions()["cluedo"]
    assert first_dealt_fitting(ed, ["a", "b", "c", "d"], "d", 5) == ["c", "d"]
    assert first_dealt_fitting(ed, ["a", "b", "c", "d"], "d", 6) == []
    assert hand_fit_warning(ed, ["a", "b", "c", "d"], "d", "a", 6) == (
        "you listed 6 cards, but dealing from a gives you 4; with 4 players the 18 cards dealt make hands of "
        "4 or 5: check your cards")


SETUP = ["cluedo", "ann bob cat", "ann", "scarlett rope hall lounge dagger plum", ""]


def _session(tmp_path):
    s = NotebookSession(tmp_path / "game.yaml")
    s.start()
    for line in SETUP:
        s.handle(line)
    return s


def test_every_unknown_name_of_a_line_is_reported_at_once(tmp_path):
    s = _session(tmp_path)
    out = texts(s.handle("bob: white rop stdy / cot shows"))
    assert out == ["unknown cards in edition 'cluedo': 'rop' (did you mean rope or plum?); 'stdy' (did you mean "
                   "study or mustard?); unknown player 'cot'; players are ann, bob and cat (did you mean cat?)"]
    assert s.notebook.turns == []
    assert texts(s.handle("bob: white, rop, lead pipe / cat shows")) == ["unknown card 'rop' in edition 'cluedo'; "
                                                                        "did you mean 'rope', 'plum'?"]


def test_an_unseen_show_prints_its_new_clue(tmp_path):
    s = _session(tmp_path)
    out = texts(s.handle("bob: white revolver study / cat shows"))
    assert "  new clue: cat holds Mrs White, Revolver or Study" in out
    out = texts(s.handle("cat: white revolver kitchen / ann passes / bob shows"))
    assert "  new clue: bob holds Mrs White, Revolver or Kitchen" in out
    assert not any("new clue: cat" in t for t in out)


def test_an_accusation_asks_right_or_wrong_and_a_correct_one_ends_the_game(tmp_path):
    s = _session(tmp_path)
    assert s.handle("bob accuses white revolver study") == []
    assert s.prompt == "was bob's accusation right (yes/no)> "
    assert texts(s.handle("maybe")) == ["answer yes (it was right) or no (it was wrong)"]
    out = texts(s.handle("no"))
    assert "turn 1 recorded" in out and not s.done and s.prompt == "turn 2> "
    out = texts(s.handle("cat accuses mustard revolver kitchen"))
    out = texts(s.handle("yes"))
    assert "cat accused correctly: the game is over (the envelope held Colonel Mustard, Revolver and Kitchen)" in out
    assert s.done and out[-1] == f"the game is saved in {tmp_path / 'game.yaml'}"
    again = NotebookSession(tmp_path / "game.yaml")
    again.start()
    assert texts(again.handle("bob: white rope study / nobody")) == [
        "refused, nothing changed: the game is over: cat accused correctly on turn 2 ('undo' removes it)"]
    # the verdict on one line still works
    assert "turn 2 recorded" in texts(again.handle("undo") + again.handle("cat accuses mustard revolver kitchen wrong"))


def test_the_human_seat_says_you_can_accuse_now_unprompted():

    deal = get_deal("kingston-1-3p")
    told: list = []
    answers = iter([])
    human = HumanPlayer("player1", lambda prompt: next(answers, "quit"), told.append, hints=True)
    others = {p: RuleBasedPlayer(p, "clue-expert-focused", seed=i) for i, p in enumerate(deal.players[1:])}
    # the person never types a suggestion: the others play until someone's turns make it known (or win)
    human.suggest = lambda turn, round: ("prof-plum", "rope", "hall")
    human.accuse = lambda turn: None
    play_game(deal, {"player1": human, **others})
    said = [t for t in texts(told) if t.startswith("you can accuse now")]
    assert human.engine.solved()
    assert said == [f"you can accuse now: the envelope holds "
                    f"{', '.join(deal.edition.display(c) for c in deal.envelope[:-1])} and "
                    f"{deal.edition.display(deal.envelope[-1])} — at your turn, answer the accusation prompt "
                    f"with them"]
    # the announced envelope is on the person's own sheet too, hints or not
    marks = human.marks
    assert tuple(marks.envelope().values()) == tuple(deal.envelope)


def test_line_editing_only_at_a_terminal(monkeypatch, tmp_path):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert line_editing() is False  # piped input: plain input(), nothing printed by readline
    s = _session(tmp_path)
    words = s.words()
    assert {"ann", "bob", "cat", "lead-pipe", "why-not", "undo"} <= set(words)


def test_terminal_redo_puts_back_what_undo_removed(tmp_path):
    s = _session(tmp_path)
    s.handle("bob: white rope study / cat passes / ann shows rope")
    s.handle("cat: green spanner hall / ann shows hall")
    sheet = s.notebook.knowledge.sheet().cells
    assert "removed turn 2" in texts(s.handle("undo")) and "removed turn 1" in texts(s.handle("undo"))
    assert "turn 1 put back" in texts(s.handle("redo")) and "turn 2 put back" in texts(s.handle("redo"))
    assert s.notebook.knowledge.sheet().cells == sheet
    assert texts(s.handle("redo")) == ["nothing to redo"]
    s.handle("undo")
    s.handle("ann: mustard candlestick kitchen / nobody")  # a new entry forgets what was undone
    assert texts(s.handle("redo")) == ["nothing to redo"]
