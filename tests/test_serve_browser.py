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


# the phone viewport in the default run, the laptop one in the slow tier (.ci/run runs both)
@pytest.mark.parametrize("viewport", [v if v == "phone" else pytest.param(v, marks=pytest.mark.slow) for v in VIEWPORTS])
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
