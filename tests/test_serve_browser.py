"""``clue-expert serve`` in a real browser: a uvicorn server on a free local
port and headless Chromium driven by selenium through Debian's chromedriver
(as the classroom page's test does).  At a phone viewport (390 x 844) and a
laptop one (1366 x 768) it sets a game up by tapping, plays the whole
recorded game kingston-1-player1 through the page, undoes and redoes, opens
a proof and a why-not, hits a contradiction (refused, the entry kept), edits
a past turn, and compares the final sheet with ``clue-expert deduce`` on the
same record.  Screenshots go to the test's folder, and also to the folder
named by ``CLUE_EXPERT_SCREENSHOTS`` (docs/images for docs/notebook.md).
Skipped, saying why, where Chromium, its driver, selenium or uvicorn is
missing."""
from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
import yaml

from clue_expert.people.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
RECORD = EXAMPLES / "kingston-1-player1.yaml"
GAME = yaml.safe_load(RECORD.read_text())
VIEWPORTS = {"phone": (390, 844, True), "laptop": (1366, 768, False)}




@pytest.fixture(scope="module")
def browser(chromium):
    return chromium(1366, 900)


@pytest.fixture
def server(tmp_path):
    """A real uvicorn server of a new game file; yields (url, file)."""
    yield from _server(tmp_path)


@pytest.fixture
def shared_server(tmp_path):
    """The same, asking for an access token (as with --host): yields (url, file)."""
    yield from _server(tmp_path, token="t0ken-for-the-test")


def _server(tmp_path, token=None):
    uvicorn = pytest.importorskip("uvicorn", reason="uvicorn is not installed (pip install '.[web]')")
    from clue_expert.people.server import build_app
    from clue_expert.people.table import TableAssistant
    path = tmp_path / "game.yaml"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(build_app(TableAssistant(path), token), host="127.0.0.1", port=port,
                                        log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):  # wait until it listens (a count of tries, not a time assertion)
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started
    yield f"http://127.0.0.1:{port}/", path
    srv.should_exit = True
    thread.join(timeout=10)


def _screenshot(d, tmp_path, name):
    d.save_screenshot(str(tmp_path / name))
    folder = os.environ.get("CLUE_EXPERT_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / name, Path(folder) / name)


def _settled(d, version=None):
    """Wait until no request is in flight (and the page drew a newer version than ``version``)."""
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(d, 20).until(lambda drv: drv.execute_script(
        "return document.body.dataset.busy === '0'" + (f" && Number(document.body.dataset.version) > {version}"
                                                       if version is not None else "")))


def _version(d) -> int:
    return int(d.execute_script("return document.body.dataset.version"))


def _tap(d, css):
    from selenium.webdriver.common.by import By
    el = d.find_element(By.CSS_SELECTOR, css)
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()
    return el


def _pressed(d, css) -> bool:
    from selenium.webdriver.common.by import By
    return d.find_element(By.CSS_SELECTOR, css).get_attribute("aria-pressed") == "true"


def _enter(d, turn, expect_refusal=False):
    """Tap one turn in: suggester, cards, who showed, the card seen; then Record."""
    _tap(d, "#mode-accuse" if "accuse" in turn else "#mode-suggest")
    _tap(d, f'#by button[data-by="{turn["by"]}"]')
    for card in turn.get("accuse") or turn["suggest"]:
        if not _pressed(d, f'#cards button[data-card="{card}"]'):
            _tap(d, f'#cards button[data-card="{card}"]')
    if "accuse" in turn:
        _tap(d, f'#verdict button[data-correct="{"true" if turn["correct"] else "false"}"]')
    else:
        _tap(d, f'#shown button[data-shown="{turn["shown_by"] or ""}"]')
        if turn.get("card") and not _pressed(d, f'#seen button[data-seen="{turn["card"]}"]'):
            _tap(d, f'#seen button[data-seen="{turn["card"]}"]')  # (preselected where only one card fits)
    v = _version(d)
    _tap(d, "#record")
    if expect_refusal:
        from selenium.webdriver.support.ui import WebDriverWait
        WebDriverWait(d, 20).until(lambda drv: drv.execute_script("return document.body.dataset.refused === '1'"))
        _settled(d)
    else:
        _settled(d, v)


def _sheet(d) -> dict:
    return d.execute_script("""
        const out = {};
        for (const b of document.querySelectorAll('#sheet td button')) {
          (out[b.dataset.owner] = out[b.dataset.owner] || {})[b.dataset.card] = b.dataset.status;
        }
        return out;""")


def _fits(d):
    """(viewport width, document width): equal when nothing overflows sideways."""
    return d.execute_script("return [document.documentElement.clientWidth, document.documentElement.scrollWidth]")


# Slow tier (.ci/run runs it), both viewports: the default run taps a whole game in through
# test_the_generalized_game_by_tapping, and test_serve.py plays this game, undo / redo, edits, odds, advice and
# proofs through the same API the page calls.
@pytest.mark.slow
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_whole_game_by_tapping(browser, server, tmp_path, viewport, capsys):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    width, height, mobile = VIEWPORTS[viewport]
    d = browser
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    url, path = server
    d.get(url)
    _settled(d)
    assert d.execute_script("return [innerWidth, innerHeight]") == [width, height]
    # ---- set-up: edition, players in seat order, who was dealt first, my hand
    assert d.find_element(By.ID, "setup").is_displayed()
    Select(d.find_element(By.ID, "edition")).select_by_value("kingston")
    d.find_element(By.ID, "players").send_keys("player1 player2 player3")
    _settled(d)
    Select(d.find_element(By.ID, "me")).select_by_value("player1")
    Select(d.find_element(By.ID, "first")).select_by_value("player2")
    _settled(d)
    for card in GAME["hand"][:5]:
        _tap(d, f'#hand button[data-hand="{card}"]')
        _settled(d)
    assert "player1 6 · player2 6 · player3 6 = 18 of 18 cards dealt. You picked 5." in d.find_element(By.ID,
                                                                                                        "sizes").text
    assert "you listed 5 cards, but dealing from player2 gives you 6" in d.find_element(By.ID, "setup-warning").text
    _tap(d, f'#hand button[data-hand="{GAME["hand"][5]}"]')
    _settled(d)
    assert not d.find_element(By.ID, "setup-warning").is_displayed()
    assert _fits(d)[0] == _fits(d)[1]
    _screenshot(d, tmp_path, f"notebook-setup-{viewport}.png")
    v = _version(d)
    _tap(d, "#start")
    _settled(d, v)
    assert d.find_element(By.ID, "entry-title").text == "Turn 1"
    # ---- the whole game, one tap at a time
    for n, turn in enumerate(GAME["turns"], start=1):
        _enter(d, turn)
        assert d.find_element(By.ID, "entry-title").text == f"Turn {n + 1}", (n, d.find_element(By.ID, "message").text)
        if n == 2:  # an unseen show: the clue it leaves is said with the result
            assert "new clue: player3 holds one of Mrs Peacock, Lead Pipe, Billiard Room" in \
                d.find_element(By.ID, "entry-status").text
        if n == 8:
            _screenshot(d, tmp_path, f"notebook-turn-{viewport}.png")
            # player3's unseen shows left clues; the result is said where the thumb is too
            assert "holds one of" in d.find_element(By.ID, "clause-list").text
            assert d.find_element(By.ID, "entry-status").text.startswith("turn 8 recorded")
        assert d.find_element(By.ID, "accuse").is_displayed() == (n == 16), n
    banner = d.find_element(By.ID, "accuse").text
    assert banner == "The envelope is known — accuse: Professor Plum, Lead Pipe, Hall"
    assert main(["deduce", "--json", str(RECORD)]) == 0
    deduced = json.loads(capsys.readouterr().out)["cells"]
    assert _sheet(d) == deduced
    assert _fits(d)[0] == _fits(d)[1]
    d.execute_script("window.scrollTo(0, 0)" if not mobile else
                     "document.getElementById('sheet-section').scrollIntoView({block: 'start'})")
    _screenshot(d, tmp_path, f"notebook-solved-{viewport}.png")
    # ---- undo and redo
    v = _version(d)
    _tap(d, "#undo")
    _settled(d, v)
    assert not d.find_element(By.ID, "accuse").is_displayed()
    assert d.find_element(By.ID, "entry-title").text == "Turn 16"
    assert _sheet(d)["envelope"]["hall"] == "unknown"
    # an open cell: what would settle it
    v = _version(d)
    _tap(d, 'button[data-owner="envelope"][data-card="hall"]')
    _settled(d, v)
    assert "player2 shows you Hall → envelope lacks Hall" in d.find_element(By.ID, "why-not").text
    # exact odds: every open cell gets its percentage, and the likeliest envelopes are listed
    v = _version(d)
    _tap(d, "#odds-toggle")
    _settled(d, v)
    marks = d.execute_script("return [...document.querySelectorAll('#sheet td button[data-status=unknown]')]"
                             ".map(b => b.textContent)")
    assert marks and all(m.endswith("%") for m in marks)
    assert d.find_element(By.ID, "envelopes").text.upper().startswith("LIKELIEST ENVELOPES (OF ")
    v = _version(d)
    _tap(d, "#odds-toggle")
    _settled(d, v)
    v = _version(d)
    _tap(d, "#redo")
    _settled(d, v)
    assert d.find_element(By.ID, "accuse").is_displayed() and _sheet(d) == deduced
    # ---- a settled cell: its numbered proof
    v = _version(d)
    _tap(d, 'button[data-owner="envelope"][data-card="hall"]')
    _settled(d, v)
    assert d.find_element(By.ID, "proof-title").text == "Why is Hall in the envelope?"
    lines = d.find_elements(By.CSS_SELECTOR, "#proof li")
    assert len(lines) == 28 and lines[0].get_attribute("data-label") == "1"
    assert "no player holds Hall, so it is in the envelope\nfrom 5, 14, 27" in lines[-1].text
    d.execute_script("document.getElementById('panel').scrollIntoView({block: 'start'})")
    _screenshot(d, tmp_path, f"notebook-proof-{viewport}.png")
    # ---- a contradiction: refused, naming the turns, the entry kept
    text = path.read_text()
    bad = {"by": "player1", "suggest": ["prof-plum", "spanner", "study"], "shown_by": None}
    _enter(d, bad, expect_refusal=True)
    message = d.find_element(By.ID, "message").text
    assert message.startswith("refused, nothing changed: turn 17 contradicts turn 4: player2 cannot both hold and "
                              "lack Study"), message
    assert all(_pressed(d, f'#cards button[data-card="{c}"]') for c in bad["suggest"])
    assert _pressed(d, '#shown button[data-shown=""]') and _pressed(d, '#by button[data-by="player1"]')
    assert path.read_text() == text and _sheet(d) == deduced
    d.execute_script("window.scrollTo(0, 0)")
    _screenshot(d, tmp_path, f"notebook-refused-{viewport}.png")
    # ---- edit a past turn: refused when it contradicts later turns (the edit kept), taken when it does not
    _tap(d, '#turns button[data-edit="4"]')
    assert d.find_element(By.ID, "entry-title").text == "Edit turn 4"
    assert _pressed(d, '#seen button[data-seen="study"]')
    _tap(d, '#seen button[data-seen="prof-plum"]')
    _tap(d, "#record")
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(d, 20).until(lambda drv: drv.execute_script("return document.body.dataset.refused === '2'"))
    assert d.find_element(By.ID, "message").text.startswith("refused, nothing changed: turn ")
    assert d.find_element(By.ID, "entry-title").text == "Edit turn 4" and path.read_text() == text
    _tap(d, "#cancel-edit")
    _tap(d, '#turns button[data-edit="1"]')
    v = _version(d)
    _tap(d, '#seen button[data-seen=""]')  # turn 1: player3 showed a card I did not note
    _tap(d, "#record")
    _settled(d, v)
    assert d.find_element(By.ID, "message").text.startswith("turn 1 changed")
    assert "card" not in yaml.safe_load(path.read_text())["turns"][0]
    # without the card seen on turn 1 the envelope is no longer known
    assert _sheet(d)["player3"]["candlestick"] == "unknown" and not d.find_element(By.ID, "accuse").is_displayed()
    # ---- advice and odds after undoing the edit
    v = _version(d)
    _tap(d, "#undo")
    _settled(d, v)
    assert _sheet(d) == deduced
    v = _version(d)
    _tap(d, "#advise")
    _settled(d, v)
    assert d.find_element(By.ID, "advice-text").text.startswith("the envelope is known: accuse Professor Plum")


GENERALIZED = [  # (by, asks, cards, shown_by, card) and a wrong guess with its hand laid open
    {"by": "ann", "asks": "bob", "suggest": ["c3", "c4"], "shown_by": "bob", "card": "c3"},
    {"by": "bob", "asks": "cat", "suggest": ["c5", "c6"], "shown_by": None},
    {"by": "cat", "asks": "ann", "suggest": ["c1", "c8"], "shown_by": "ann", "card": "c1"},
    {"by": "ann", "asks": "cat", "suggest": ["c4", "c7"], "shown_by": "cat"},
    {"by": "bob", "accuse": ["c5", "c8"], "correct": False, "revealed": ["c3", "c4"]},
]


@pytest.mark.slow  # ten seconds of browser; the default run keeps the shared page's test
def test_the_generalized_game_by_tapping(browser, server, tmp_path, capsys):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    d = browser
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    url, path = server
    d.get(url)
    _settled(d)
    Select(d.find_element(By.ID, "game")).select_by_value("generalized")
    _settled(d)
    pool = d.find_element(By.ID, "pool")
    pool.clear()
    pool.send_keys("pool-8-2")
    d.find_element(By.ID, "players").send_keys("ann bob cat")
    _settled(d)
    Select(d.find_element(By.ID, "me")).select_by_value("ann")
    _settled(d)
    for card in ("c1", "c2"):
        _tap(d, f'#hand button[data-hand="{card}"]')
        _settled(d)
    assert "ann 2 · bob 2 · cat 2 = 6 of 6 cards dealt" in d.find_element(By.ID, "sizes").text
    v = _version(d)
    _tap(d, "#start")
    _settled(d, v)
    assert d.find_element(By.ID, "mode-suggest").text == "Ask"
    for n, turn in enumerate(GENERALIZED, start=1):
        _tap(d, "#mode-accuse" if "accuse" in turn else "#mode-suggest")
        _tap(d, f'#by button[data-by="{turn["by"]}"]')
        if "accuse" in turn:
            for card in turn["accuse"]:
                _tap(d, f'#cards button[data-card="{card}"]')
            _tap(d, '#verdict button[data-correct="false"]')
            for card in turn["revealed"]:
                _tap(d, f'#revealed button[data-revealed="{card}"]')
        else:
            _tap(d, f'#asks button[data-asks="{turn["asks"]}"]')
            for card in turn["suggest"]:
                _tap(d, f'#cards button[data-card="{card}"]')
            _tap(d, f'#shown button[data-shown="{turn["shown_by"] or ""}"]')
            if turn.get("card"):
                _tap(d, f'#seen button[data-seen="{turn["card"]}"]')
        v, refused = _version(d), d.execute_script("return document.body.dataset.refused || '0'")
        _tap(d, "#record")
        from selenium.webdriver.support.ui import WebDriverWait
        WebDriverWait(d, 20).until(lambda drv: drv.execute_script(
            f"return Number(document.body.dataset.version) > {v} || (document.body.dataset.refused || '0') != "
            f"'{refused}'"))
        _settled(d)
        assert d.find_element(By.ID, "entry-title").text == f"Turn {n + 1}", d.find_element(By.ID, "message").text
    saved = yaml.safe_load(path.read_text())
    assert saved["game"] == "generalized" and saved["edition"] == "pool-8-2"
    assert saved["turns"][1] == {"by": "bob", "asks": "cat", "suggest": ["c5", "c6"], "passed": ["cat"]}
    assert saved["turns"][4]["revealed"] == ["c3", "c4"]
    assert main(["deduce", "--json", str(path)]) == 0
    assert _sheet(d) == json.loads(capsys.readouterr().out)["cells"]
    assert d.find_element(By.ID, "accuse").text == "The envelope is known — guess: c5, c6"
    d.execute_script("document.getElementById('sheet-section').scrollIntoView({block: 'start'})")
    _screenshot(d, tmp_path, "notebook-generalized-phone.png")


def test_a_shared_page_sends_its_token(browser, shared_server):
    """Opened with the printed URL, the page's own requests carry the token; without it the page is refused."""
    from selenium.webdriver.common.by import By
    d = browser
    url, path = shared_server
    d.get(url)
    assert "403" in d.find_element(By.TAG_NAME, "body").text
    d.get(url + "?token=t0ken-for-the-test")
    _settled(d)
    d.find_element(By.ID, "players").send_keys("ann bob cat")
    _settled(d)
    assert "ann 6 · bob 6 · cat 6 = 18 of 18 cards dealt" in d.find_element(By.ID, "sizes").text


# ----------------------------------------------------------------- a 4-player game kept by tapping (issue 38)
# The deal (dealt from ann, the envelope Professor Plum, Rope, Library); each turn's answer follows from it.
TABLE_DEAL = {"ann": ["scarlett", "peacock", "revolver", "conservatory", "lounge"],
              "bob": ["mustard", "candlestick", "spanner", "dining-room", "study"],
              "cat": ["white", "dagger", "kitchen", "billiard-room"],
              "me": ["green", "lead-pipe", "ballroom", "hall"]}
TABLE_PLAYERS = ["ann", "bob", "cat", "me"]
ENVELOPE = ["plum", "rope", "library"]


def _answer(by, cards, card=None):
    """The turn a suggestion of ``cards`` by ``by`` makes under TABLE_DEAL: the first player after ``by`` holding
    one shows it (the card named when I suggested or showed; ``card`` chooses among mine)."""
    i = TABLE_PLAYERS.index(by)
    for p in TABLE_PLAYERS[i + 1:] + TABLE_PLAYERS[:i]:
        held = [c for c in cards if c in TABLE_DEAL[p]]
        if held:
            turn = {"by": by, "suggest": cards, "shown_by": p}
            if "me" in (by, p):
                turn["card"] = card or held[0]
            return turn
    return {"by": by, "suggest": cards, "shown_by": None}


def _watch_console(d):
    """Record every console error and uncaught error of the pages opened from now on (window.__errors)."""
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """(() => {
        if (window.__errors) return;  // (added once a test: the browser is the module's)
        window.__errors = [];
        const keep = (what) => window.__errors.push(String(what));
        const error = console.error.bind(console);
        console.error = (...a) => { keep(a.join(' ')); error(...a); };
        addEventListener('error', e => keep(e.message || e));
        addEventListener('unhandledrejection', e => keep('unhandled: ' + (e.reason && (e.reason.error || e.reason))));
    })();"""})


def _clean(d, when):
    """No console error so far, and no text on the page reading null, undefined or NaN (``when``: the step)."""
    errors = d.execute_script("return window.__errors")
    assert errors == [], (when, errors)
    bad = d.execute_script("""
        const out = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        while (walk.nextNode()) if (!walk.currentNode.parentElement.closest('script, style')
                                    && /\\b(null|undefined|NaN)\\b/.test(walk.currentNode.nodeValue))
          out.push(walk.currentNode.nodeValue);
        for (const e of document.querySelectorAll('[title], [aria-label], [placeholder]'))
          for (const a of ['title', 'aria-label', 'placeholder'])
            if (/\\b(null|undefined|NaN)\\b/.test(e.getAttribute(a) || '')) out.push(a + ': ' + e.getAttribute(a));
        return out;""")
    assert bad == [], (when, bad)


def _in_view(d, css) -> bool:
    """Whether the element's top is inside the viewport (below the page's sticky header) and it is shown."""
    return d.execute_script("""
        const e = document.querySelector(arguments[0]), r = e.getBoundingClientRect();
        const head = document.querySelector('header').getBoundingClientRect().bottom;
        return e.offsetParent !== null && r.top >= head - 1 && r.top < innerHeight - 40;""", css)


def _visible_text(d, css) -> str:
    return d.execute_script("return document.querySelector(arguments[0]).innerText", css)


@pytest.mark.slow  # both viewports (see test_a_whole_game_by_tapping)
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_four_player_game_kept_by_tapping(browser, server, tmp_path, viewport, capsys):
    """Issue 38: a whole game with a wrong accusation (a player out), a contradiction, undo / redo, marks and
    notes, proofs in view, card names everywhere, and a correct accusation; never a console error nor a
    visible null / undefined / NaN."""
    import re
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
    width, height, mobile = VIEWPORTS[viewport]
    d = browser
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    _watch_console(d)
    url, path = server
    d.get(url)
    _settled(d)
    # ---- set-up: Start stays disabled, saying why, until my hand fits the deal
    d.find_element(By.ID, "players").send_keys(" ".join(TABLE_PLAYERS))
    _settled(d)
    Select(d.find_element(By.ID, "me")).select_by_value("me")
    Select(d.find_element(By.ID, "first")).select_by_value("ann")
    _settled(d)
    start = d.find_element(By.ID, "start")
    assert not start.is_enabled() and d.find_element(By.ID, "start-status").text == "Tap your 4 cards."
    for card in TABLE_DEAL["me"] + ["study"]:
        _tap(d, f'#hand button[data-hand="{card}"]')
        _settled(d)
    assert not start.is_enabled() and "does not fit" in d.find_element(By.ID, "start-status").text
    _tap(d, '#hand button[data-hand="study"]')
    _settled(d)
    assert start.is_enabled() and d.find_element(By.ID, "start-status").text == ""
    _clean(d, "set-up")
    v = _version(d)
    _tap(d, "#start")
    _settled(d, v)
    # ---- the header fits a phone: a short title, icons for undo / redo
    assert d.execute_script("const h = document.getElementById('title'); return h.scrollWidth <= h.clientWidth"), \
        d.find_element(By.ID, "title").text
    assert d.find_element(By.ID, "title").text == "me · turn 1"
    # ---- turn 1: ann suggests; I show the only card of mine among them, preselected and marked mine
    t1 = _answer("ann", ["green", "rope", "library"])
    assert t1["shown_by"] == "me" and t1["card"] == "green"
    _tap(d, '#by button[data-by="ann"]')
    for card in t1["suggest"]:
        _tap(d, f'#cards button[data-card="{card}"]')
    assert "mine" in d.find_element(By.CSS_SELECTOR, '#cards button[data-card="green"]').get_attribute("class")
    _tap(d, '#shown button[data-shown="me"]')
    offered = [b.get_attribute("data-seen") for b in d.find_elements(By.CSS_SELECTOR, "#seen button")]
    assert offered == ["green", ""] and _pressed(d, '#seen button[data-seen="green"]')
    assert "mine" in d.find_element(By.CSS_SELECTOR, '#seen button[data-seen="green"]').get_attribute("class")
    v = _version(d)
    _tap(d, "#record")
    _settled(d, v)
    assert yaml.safe_load(path.read_text())["turns"][0]["card"] == "green"
    _clean(d, "turn 1")
    # ---- turns 2 to 4; on turn 3 two of my cards fit: both offered (marked), neither chosen for me
    _enter(d, _answer("bob", ["white", "dagger", "hall"]))
    t3 = _answer("cat", ["mustard", "lead-pipe", "ballroom"], card="ballroom")
    _tap(d, '#by button[data-by="cat"]')
    for card in t3["suggest"]:
        _tap(d, f'#cards button[data-card="{card}"]')
    _tap(d, '#shown button[data-shown="me"]')
    offered = [b.get_attribute("data-seen") for b in d.find_elements(By.CSS_SELECTOR, "#seen button")]
    assert offered == ["lead-pipe", "ballroom", ""] and not _pressed(d, '#seen button[data-seen="ballroom"]')
    _enter(d, t3)
    _enter(d, _answer("me", ["scarlett", "candlestick", "study"]))
    # ---- turn 5: ann accuses wrongly and is out; the next suggester is bob, then after bob never ann
    _enter(d, {"by": "ann", "accuse": ["mustard", "rope", "hall"], "correct": False})
    _clean(d, "a wrong accusation")
    assert _pressed(d, '#by button[data-by="bob"]')
    ann = d.find_element(By.CSS_SELECTOR, '#by button[data-by="ann"]')
    assert not ann.is_enabled() and ann.text == "ann (out)"
    _enter(d, _answer("bob", ["plum", "revolver", "conservatory"]))  # ann, out, still shows a card
    assert _pressed(d, '#by button[data-by="cat"]')
    _enter(d, _answer("cat", ["peacock", "spanner", "lounge"]))
    assert _pressed(d, '#by button[data-by="me"]')
    # ---- card names everywhere a person reads; ids only behind a details toggle
    turns_text = _visible_text(d, "#turns")
    assert "turn 1: ann suggests Reverend Green, Rope, Library; bob and cat cannot disprove; me shows Reverend Green" \
        in turns_text, turns_text
    assert "turn 5: ann accuses Colonel Mustard, Rope, Hall — wrong" in turns_text
    ids = [c for c in ("lead-pipe", "billiard-room", "dining-room", "candlestick", "scarlett", "peacock")]
    assert not [i for i in ids if re.search(rf"(?<![\w-]){i}(?![\w-])", turns_text)], turns_text
    # ---- a contradiction: refused, naming the turns, nothing changed
    text = path.read_text()
    _enter(d, {"by": "me", "suggest": ["scarlett", "dagger", "kitchen"], "shown_by": None}, expect_refusal=True)
    message = d.find_element(By.ID, "entry-status").text
    assert message.startswith("refused, nothing changed: turn 8 contradicts turn 4") and "Miss Scarlett" in message, \
        message
    assert path.read_text() == text
    _clean(d, "a contradiction")
    # ---- turn 8 solves it; undo names the turn and says reopened; redo puts it back
    _tap(d, "#clear")
    _enter(d, _answer("me", ENVELOPE))
    assert d.find_element(By.ID, "accuse").text == "The envelope is known — accuse: Professor Plum, Rope, Library"
    # after me comes ann, who is out: bob is preselected (recording ann's turn would be refused)
    assert _pressed(d, '#by button[data-by="bob"]') and not _pressed(d, '#by button[data-by="ann"]')
    v = _version(d)
    _tap(d, "#undo")
    _settled(d, v)
    said = d.find_element(By.ID, "entry-status").text
    assert re.fullmatch(r"undone: removed turn 8: me suggests Professor Plum, Rope, Library; nobody can disprove; "
                        r"\d+ cells reopened", said), said
    v = _version(d)
    _tap(d, "#redo")
    _settled(d, v)
    assert d.find_element(By.ID, "entry-status").text.startswith("redone: put back turn 8: me suggests Professor Plum")
    _clean(d, "undo and redo")
    # ---- the advice once the envelope is known: no "null" after it
    v = _version(d)
    _tap(d, "#advise")
    _settled(d, v)
    assert d.find_element(By.ID, "advice-text").text == ("the envelope is known: accuse Professor Plum, Rope and "
                                                         "Library")
    _clean(d, "advice")
    # ---- a proof: in view at once, in card names, rule ids only behind a toggle
    d.execute_script("document.getElementById('sheet-section').scrollIntoView({block: 'start'})")
    v = _version(d)
    _tap(d, 'button[data-owner="envelope"][data-card="plum"]')
    _settled(d, v)
    assert _in_view(d, "#panel"), d.execute_script("return document.getElementById('panel').getBoundingClientRect().top")
    assert d.find_element(By.ID, "proof-title").text == "Why is Professor Plum in the envelope?"
    shown = _visible_text(d, "#panel")
    assert "no player holds Professor Plum, so it is in the envelope" in shown
    assert not re.search(r"record-pass-as-lacked|card-nobody-holds|(?<![\w-])plum(?![\w-])", shown), shown
    _screenshot(d, tmp_path, f"notebook-proof-in-view-{viewport}.png")
    # ---- a mark and a note of my own: drawn apart, never deduced from, a contradicting deduction pointed out
    cells = _sheet(d)
    _tap(d, "#mark-choice button[data-mark=held]")
    d.find_element(By.ID, "mark-note").send_keys("saw its corner")
    v = _version(d)
    _tap(d, "#mark-save")
    _settled(d, v)
    _settled(d)
    assert _sheet(d) == cells
    cell = d.find_element(By.CSS_SELECTOR, '#sheet td button[data-owner="envelope"][data-card="plum"]')
    assert cell.get_attribute("data-mark") == "held"
    d.execute_script("document.getElementById('sheet-section').scrollIntoView({block: 'start'})")
    v = _version(d)
    _tap(d, 'button[data-owner="cat"][data-card="rope"]')  # cat lacks the Rope (it is in the envelope)
    _settled(d, v)
    _tap(d, "#mark-choice button[data-mark=held]")
    d.find_element(By.ID, "mark-note").send_keys("a hunch")
    v = _version(d)
    _tap(d, "#mark-save")
    _settled(d, v)
    _settled(d)
    against = d.find_element(By.CSS_SELECTOR, "#mark-list li.against").text
    assert against == "cat holds Rope? (a hunch) — the deductions say cat lacks Rope", against
    assert "against" in d.find_element(By.CSS_SELECTOR, '#sheet td:has(button[data-owner="cat"][data-card="rope"])')\
        .get_attribute("class")
    _clean(d, "marks")
    # ---- the column headers stay in view down the sheet, with the count of known cards
    d.execute_script("""const row = [...document.querySelectorAll('#sheet tr.cat')][1];
        const box = innerWidth < 900 ? null : document.getElementById('col-right');
        const head = document.querySelector(innerWidth < 900 ? 'header' : '#sheet thead').getBoundingClientRect();
        const by = row.getBoundingClientRect().top - (innerWidth < 900 ? head.bottom : 0) - 60;
        if (box) box.scrollTop += row.getBoundingClientRect().top - box.getBoundingClientRect().top - 60;
        else window.scrollBy(0, by);""")
    rooms_row = d.find_elements(By.CSS_SELECTOR, "#sheet tr.cat")[1]  # (the weapons')
    th = d.find_element(By.CSS_SELECTOR, '#sheet thead th[data-owner="bob"]')
    assert th.text.split() == ["bob", "5/5"] or th.text.split()[0] == "bob", th.text
    top = d.execute_script("return arguments[0].getBoundingClientRect().bottom", th)
    assert top <= d.execute_script("return arguments[0].getBoundingClientRect().top", rooms_row) + 1
    assert _in_view(d, '#sheet thead th[data-owner="bob"]')
    assert _fits(d)[0] == _fits(d)[1]
    _screenshot(d, tmp_path, f"notebook-marks-{viewport}.png")
    # ---- the Sheet link (a phone) shows the sheet's title below the header
    if mobile:
        d.execute_script("window.scrollTo(0, 0)")
        _tap(d, 'nav.jump a[href="#sheet-section"]')
        WebDriverWait(d, 10).until(lambda drv: _in_view(drv, "#sheet-title"))
    # ---- a correct accusation ends the game: the form gives way to the reason
    _enter(d, {"by": "me", "accuse": ENVELOPE, "correct": True})
    assert not d.find_element(By.ID, "entry-form").is_displayed()
    assert d.find_element(By.ID, "over-note").text.startswith("me accused correctly on turn 9: the game is over.")
    assert d.find_element(By.ID, "title").text == "me · over"
    _clean(d, "the end")
    d.execute_script("window.scrollTo(0, 0)")
    _screenshot(d, tmp_path, f"notebook-over-{viewport}.png")
    # ---- the file: deduce reads it (the same sheet), the terminal notebook opens it with the marks
    assert main(["deduce", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["cells"] == _sheet(d)
    saved = yaml.safe_load(path.read_text())
    assert saved["marks"] == [{"owner": "envelope", "card": "plum", "mark": "held", "note": "saw its corner"},
                              {"owner": "cat", "card": "rope", "mark": "held", "note": "a hunch"}]
    copy = tmp_path / "copy.yaml"
    copy.write_text(path.read_text())
    from clue_expert.people.notebook import NotebookSession
    session = NotebookSession(copy)
    opened = " ".join(getattr(m, "text", "") for m in session.start())
    assert "your marks (2, never deduced from): Professor Plum in the envelope? (saw its corner); cat holds Rope? " \
           "(a hunch)" in opened
    assert session.notebook.knowledge.sheet().cells == _sheet(d)
