"""``clue-expert serve`` at the HTTP level: Starlette's TestClient drives the
app in process (no socket, no browser), so these run everywhere the ``web``
extra is installed.  A whole recorded game is entered through the API and
its final sheet compared with ``deduce --json``; undo / redo, edit,
contradictions, proofs, why-not, odds, advice, the shared game file and the
access token are checked."""
from __future__ import annotations

import inspect
import json
import re
import warnings
from pathlib import Path

import pytest
import yaml

pytest.importorskip("starlette", reason="starlette is not installed (pip install '.[web]')")
pytest.importorskip("httpx", reason="httpx (starlette's TestClient) is not installed (pip install '.[test]')")
warnings.filterwarnings("ignore", message=".*httpx.*")
from starlette.testclient import TestClient  # noqa: E402

from clue_expert.people.cli import main  # noqa: E402
from clue_expert.people.notebook import Notebook, NotebookSession  # noqa: E402
from clue_expert.people.server import build_app, needs_token, page_html  # noqa: E402
from clue_expert.people.table import TableAssistant  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
RECORD = EXAMPLES / "kingston-1-player1.yaml"
GAME = yaml.safe_load(RECORD.read_text())


def _client(path, token=None):
    return TestClient(build_app(TableAssistant(path), token))


def _start(c):
    r = c.post("/api/new", json={"edition": "kingston", "players": GAME["players"], "me": "player1",
                                 "first": "player1", "hand": GAME["hand"]})
    assert r.status_code == 200, r.json()
    return r.json()


def _deduced(capsys) -> dict:
    assert main(["deduce", "--json", str(RECORD)]) == 0
    return json.loads(capsys.readouterr().out)["cells"]


def test_a_whole_game_through_the_api_matches_deduce(tmp_path, capsys):
    c = _client(tmp_path / "game.yaml")
    assert c.get("/api/state").json()["game"] is None
    _start(c)
    for n, turn in enumerate(GAME["turns"], start=1):
        # the page sends who showed and the card; the passes follow from the seat order
        body = {k: v for k, v in turn.items() if k != "passed"}
        state = c.post("/api/turns", json=body).json()
        assert len(state["game"]["turns"]) == n
        assert (state["game"]["accuse"] is not None) == (n == 16)
    g = state["game"]
    assert g["cells"] == _deduced(capsys)
    assert g["accuse"] == ["Professor Plum", "Lead Pipe", "Hall"]
    # the file is the terminal notebook's record: the same turns, and it opens there
    saved = yaml.safe_load((tmp_path / "game.yaml").read_text())
    assert saved["turns"] == GAME["turns"] and saved["hand_sizes"] == GAME["hand_sizes"]
    # (a copy: while the server has the file open, a second notebook on it is refused)
    (tmp_path / "copy.yaml").write_text((tmp_path / "game.yaml").read_text())
    session = NotebookSession(tmp_path / "copy.yaml")
    assert session.notebook.knowledge.sheet().cells == g["cells"]
    assert "accuse" in " ".join(m.text for m in session._advice())


def test_undo_redo_without_limit_and_edit(tmp_path):
    c = _client(tmp_path / "game.yaml")
    _start(c)
    for turn in GAME["turns"][:6]:
        c.post("/api/turns", json=turn)
    sheets = [c.get("/api/state").json()["game"]["cells"]]
    for n in range(6, 0, -1):
        g = c.post("/api/undo").json()["game"]
        assert len(g["turns"]) == n - 1 and g["redo"] == 7 - n
        sheets.append(g["cells"])
    assert c.post("/api/undo").status_code == 409  # nothing left
    for n in range(1, 7):
        g = c.post("/api/redo").json()["game"]
        assert len(g["turns"]) == n and g["cells"] == sheets[6 - n]
    assert c.post("/api/redo").json()["error"] == "nothing to redo"
    # edit turn 4 (player2 showed study -> showed prof-plum): turns after it are recomputed
    edited = dict(GAME["turns"][3], card="prof-plum")
    g = c.put("/api/turns/4", json=edited).json()["game"]
    assert g["turns"][3]["turn"]["card"] == "prof-plum" and g["cells"]["player2"]["prof-plum"] == "held"
    assert g["cells"]["player2"]["study"] == "unknown"
    # and the edit is one more change to undo
    g = c.post("/api/undo").json()["game"]
    assert g["cells"]["player2"]["study"] == "held" and g["redo"] == 1
    # a new entry clears redo
    g = c.post("/api/turns", json=GAME["turns"][6]).json()["game"]
    assert g["redo"] == 0 and len(g["turns"]) == 7
    assert c.put("/api/turns/9", json=GAME["turns"][0]).status_code == 404


def test_a_contradiction_is_refused_naming_its_turns_and_nothing_changes(tmp_path):
    c = _client(tmp_path / "game.yaml")
    _start(c)
    for turn in GAME["turns"][:5]:
        c.post("/api/turns", json=turn)
    before = c.get("/api/state").json()["game"]
    text = (tmp_path / "game.yaml").read_text()
    r = c.post("/api/turns", json={"by": "player1", "suggest": ["prof-plum", "spanner", "study"], "shown_by": None})
    assert r.status_code == 409
    err = r.json()
    # the edition's card names, not ids, in what a person reads
    assert err["error"].startswith("refused, nothing changed: turn 6 contradicts turn 4: player2 cannot both hold "
                                   "and lack Study")
    assert err["contradiction"]["turns"] == [4, 6]
    assert c.get("/api/state").json()["game"] == before and (tmp_path / "game.yaml").read_text() == text
    # bad input: one clear error each
    assert "tap one card of each category" in c.post("/api/turns", json={"by": "player1",
                                                                         "suggest": ["hall"]}).json()["error"]
    assert "did you mean" in c.post("/api/turns", json={"by": "player1", "suggest": ["prof-plum", "spaner", "hall"],
                                                        "shown_by": None}).json()["error"]
    assert c.post("/api/turns", json={"by": "player1", "accuse": ["prof-plum", "spanner", "hall"]}).json()["error"] \
        == "was the accusation right or wrong?"
    assert c.post("/api/turns", content=b"{oops").json()["error"] == "the request body is not JSON"


def test_a_file_in_repair_mode_opens_and_is_repaired_by_undo(tmp_path):
    bad = dict({k: v for k, v in GAME.items() if k != "deal"}, turns=GAME["turns"][:5] + [{"by": "player1", "suggest": ["prof-plum", "spanner", "study"],
                                                 "passed": ["player2", "player3"], "shown_by": None}])
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(bad))
    c = _client(tmp_path / "game.yaml")
    g = c.get("/api/state").json()["game"]
    assert g["conflict"]["turn"] == 6 and g["conflict"]["turns"] == [4, 6]
    assert "turn 6 contradicts" in c.post("/api/turns", json=GAME["turns"][5]).json()["error"]
    g = c.post("/api/undo").json()["game"]
    assert g["conflict"] is None and len(g["turns"]) == 5


def test_cells_give_proofs_or_what_would_settle_them(tmp_path):
    c = _client(tmp_path / "game.yaml")
    _start(c)
    for turn in GAME["turns"]:
        c.post("/api/turns", json=turn)
    r = c.get("/api/cell", params={"owner": "envelope", "card": "hall"}).json()
    items = r["proof"]["items"]
    assert r["fact"] == "envelope holds Hall" and r["turn"] == 16 and len(items) == 28
    assert r["question"] == "Why is Hall in the envelope?"
    assert items[-1]["cites"] == ["5", "14", "27"] and items[-1]["rule"] == "card-nobody-holds-is-in-envelope"
    # each line read in the edition's names with the rule's own sentence; the ids kept for a details toggle
    assert items[-1]["text"] == "envelope holds Hall" and items[-1]["id_text"] == "envelope holds hall"
    assert items[-1]["message"] == "no player holds Hall, so it is in the envelope"
    assert items[-2]["message"] == "player3 holds 6 cards, a full hand of 6, so player3 lacks Hall"
    state = c.post("/api/undo").json()
    # undo names the turn it removed, and says the cells it reopened as reopened
    assert state["said"] == ("undone: removed turn 16: player1 suggests Miss Scarlett, Dagger, Hall; player2 cannot "
                             "disprove; player3 shows Dagger; 29 cells reopened")
    r = c.get("/api/cell", params={"owner": "envelope", "card": "hall"}).json()
    assert r["status"] == "unknown" and "proof" not in r and r["question"] == "Is Hall in the envelope?"
    texts = [m["text"] for m in r["why_not"]]
    assert texts[0].startswith("envelope holds Hall is still open")
    assert "  player2 shows you Hall → envelope lacks Hall" in texts
    assert c.post("/api/redo").json()["said"].startswith("redone: put back turn 16: player1 suggests Miss Scarlett")
    assert c.get("/api/cell", params={"owner": "nobody", "card": "hall"}).status_code == 404


def test_odds_advice_and_clauses(tmp_path):
    c = _client(tmp_path / "game.yaml")
    _start(c)
    for turn in GAME["turns"][:13]:
        c.post("/api/turns", json=turn)
    odds = c.get("/api/odds").json()
    assert abs(sum(e["p"] for e in odds["envelopes"]) - 1) < 1e-9 or odds["count"] > 10
    assert all(abs(sum(odds["probabilities"][o][card] for o in odds["probabilities"]) - 1) < 1e-9
               for card in ("hall", "dagger"))
    focused = c.get("/api/advice").json()
    gain = c.get("/api/advice", params={"strategy": "clue-expert-information-gain"}).json()
    assert focused["strategy"] == "clue-expert-focused" and len(focused["cards"]) == 3
    assert gain["reason"].startswith("expected gain")
    assert "unknown strategy" in c.get("/api/advice", params={"strategy": "nope"}).json()["error"]
    # player2's unseen shows leave one-of clauses
    state = c.get("/api/state").json()["game"]
    assert set(state["clauses"]) == {"player1", "player2", "player3"}
    assert any(state["clauses"].values())
    for text in sum(state["clauses"].values(), []):
        assert re.fullmatch(r"[A-Z][\w .]+(, [A-Z][\w .]+)+", text), text


def test_set_up_sizes_follow_who_was_dealt_first(tmp_path):
    c = _client(tmp_path / "game.yaml")
    p = c.post("/api/preview", json={"edition": "cluedo", "players": ["ann", "bob", "cat", "me"], "first": "bob",
                                     "me": "me", "hand": ["rope", "hall", "plum", "knife"]}).json()
    assert p["sizes"] == {"ann": 4, "bob": 5, "cat": 5, "me": 4} and p["warning"] is None
    p = c.post("/api/preview", json={"edition": "cluedo", "players": ["ann", "bob", "cat", "me"], "first": "ann",
                                     "me": "me", "hand": ["rope", "hall", "plum", "knife"]}).json()
    assert p["sizes"] == {"ann": 5, "bob": 5, "cat": 4, "me": 4}
    assert p["warning"] is None
    p = c.post("/api/preview", json={"edition": "cluedo", "players": ["ann", "bob", "cat", "me"], "first": "cat",
                                     "me": "me", "hand": ["rope", "hall", "plum", "knife"]}).json()
    assert p["warning"] == ("you listed 4 cards, but dealing from cat gives you 5; dealing from ann or bob gives "
                            "you 4: who was dealt first?")
    r = c.post("/api/new", json={"edition": "cluedo", "players": ["ann", "bob", "cat", "me"], "first": "cat",
                                 "me": "me", "hand": ["rope", "hall", "plum", "knife"]})
    assert r.status_code == 400 and "who was dealt first" in r.json()["error"]
    assert not (tmp_path / "game.yaml").exists()
    r = c.post("/api/new", json={"edition": "cluedo", "players": ["ann", "bob", "ann"], "me": "ann", "hand": []})
    assert r.json()["error"] == "two players have the same name"


def test_the_token_guards_every_request_when_shared(tmp_path):
    assert not needs_token("127.0.0.1") and not needs_token("localhost") and needs_token("0.0.0.0")
    c = _client(tmp_path / "game.yaml", token="s3cret")
    for path in ("/", "/api/state", "/?token=wrong"):
        r = c.get(path)
        assert r.status_code == 403 and "access token" in r.text
    assert c.post("/api/undo").status_code == 403
    r = c.get("/?token=s3cret")
    assert r.status_code == 200 and 'const TOKEN = "s3cret";' in r.text
    assert c.get("/api/state", headers={"X-Clue-Token": "s3cret"}).status_code == 200
    # without a token the page carries none
    assert "const TOKEN = null;" in _client(tmp_path / "other.yaml").get("/").text


def test_the_page_is_offline():
    text = page_html()
    assert not re.search(r"(?i)<(link|img|iframe)\b|\bsrc=|@import|url\(|https?://|@font-face", text)


def test_serve_cli_prints_where_to_open_it(tmp_path, monkeypatch, capsys):
    uvicorn = pytest.importorskip("uvicorn")
    runs = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: runs.append(kw))
    assert main(["serve", str(tmp_path / "g.yaml"), "--port", "8899"]) == 0
    out = capsys.readouterr().out
    # a stop waits at most 1 s for requests under way (issue 39), where uvicorn takes the bound
    bounded = {"timeout_graceful_shutdown": 1} \
        if "timeout_graceful_shutdown" in inspect.signature(uvicorn.Config).parameters else {}
    assert "open http://127.0.0.1:8899/\n" in out and runs == [{"host": "127.0.0.1", "port": 8899,
                                                                "log_level": "warning", "lifespan": "off",
                                                                **bounded}]
    assert main(["serve", str(tmp_path / "g.yaml"), "--host", "0.0.0.0", "--port", "8899"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"open http://\S+:8899/\?token=[\w-]{20,} \(every request needs this token\)", out), out
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port 70000 is out of range" in capsys.readouterr().err


def test_a_terminal_notebook_file_opens_in_the_browser(tmp_path):
    nb = Notebook.load(RECORD)
    nb.save(tmp_path / "game.yaml")
    nb.release()  # the terminal notebook ends: the file is free for the browser
    g = _client(tmp_path / "game.yaml").get("/api/state").json()["game"]
    assert len(g["turns"]) == 16 and g["accuse"] and g["me"] == "player1"


def test_a_correct_accusation_ends_the_game(tmp_path):
    c = _client(tmp_path / "game.yaml")
    _start(c)
    for turn in GAME["turns"][:3]:
        c.post("/api/turns", json=turn)
    g = c.post("/api/turns", json={"by": "player3", "accuse": ["prof-plum", "lead-pipe", "hall"],
                                   "correct": True}).json()["game"]
    assert g["over"] == "player3"
    r = c.post("/api/turns", json=GAME["turns"][3])
    assert r.status_code == 400 and r.json()["error"] == ("the game is over: player3 accused correctly on turn 4 "
                                                          "('undo' removes it)")
    assert c.post("/api/undo").json()["game"]["over"] is None


def test_the_generalized_game_through_the_api(tmp_path, capsys):
    c = _client(tmp_path / "game.yaml")
    r = c.post("/api/new", json={"game": "generalized", "edition": "pool-8-2", "players": ["ann", "bob", "cat"],
                                 "me": "ann", "hand": ["c1", "c2"]})
    assert r.status_code == 200 and r.json()["game"]["game"] == "generalized"
    assert c.post("/api/turns", json={"by": "ann", "asks": "ann", "suggest": ["c3"]}).json()["error"] == \
        "whom did ann ask? tap another player"
    assert c.post("/api/turns", json={"by": "ann", "asks": "bob", "suggest": ["c3"], "shown_by": "cat"}).json()[
        "error"] == "only bob, who was asked, can show a card"
    c.post("/api/turns", json={"by": "ann", "asks": "bob", "suggest": ["c4", "c3"], "shown_by": "bob", "card": "c3"})
    c.post("/api/turns", json={"by": "bob", "asks": "cat", "suggest": ["c5", "c6"], "shown_by": None})
    g = c.post("/api/turns", json={"by": "ann", "accuse": ["c5", "c6"], "correct": False}).json()["game"]
    saved = yaml.safe_load((tmp_path / "game.yaml").read_text())
    assert saved["turns"] == [
        {"by": "ann", "asks": "bob", "suggest": ["c3", "c4"], "shown_by": "bob", "card": "c3"},
        {"by": "bob", "asks": "cat", "suggest": ["c5", "c6"], "passed": ["cat"]},
        {"by": "ann", "accuse": ["c5", "c6"], "correct": False, "revealed": ["c1", "c2"]}]  # my own hand, laid open
    assert main(["deduce", "--json", str(tmp_path / "game.yaml")]) == 0
    assert g["cells"] == json.loads(capsys.readouterr().out)["cells"]
    advice = c.get("/api/advice").json()
    assert advice["strategy"] == "clue-expert-generalized" and advice["ask"] in ("bob", "cat")


def test_turns_read_with_card_names_each_thing_said_once(tmp_path):
    c = _client(tmp_path / "game.yaml")
    _start(c)
    for turn in GAME["turns"][:5]:
        c.post("/api/turns", json=turn)
    texts = [t["text"] for t in c.get("/api/state").json()["game"]["turns"]]
    assert texts[0] == ("turn 1: player1 suggests Colonel Mustard, Candlestick, Kitchen; player2 cannot disprove; "
                        "player3 shows Candlestick")
    assert texts[1] == "turn 2: player2 suggests Mrs Peacock, Lead Pipe, Billiard Room; player3 shows a card"
    nobody = c.post("/api/turns", json={"by": "player1", "suggest": ["prof-plum", "lead-pipe", "hall"],
                                        "shown_by": None}).json()
    # not "player2, player3 cannot disprove; nobody can disprove"
    assert nobody["game"]["turns"][-1]["text"] == ("turn 6: player1 suggests Professor Plum, Lead Pipe, Hall; nobody can "
                                                   "disprove")


def test_players_out_after_a_wrong_accusation_and_counts_of_known_cards(tmp_path):
    c = _client(tmp_path / "game.yaml")
    g = _start(c)["game"]
    assert g["out"] == [] and g["counts"]["player1"] == [6, 6] and g["counts"]["envelope"] == [0, 3]
    g = c.post("/api/turns", json={"by": "player1", "suggest": ["col-mustard", "candlestick", "kitchen"],
                                   "shown_by": "player3", "card": "candlestick"}).json()["game"]
    assert g["counts"]["player3"] == [1, 6]
    g = c.post("/api/turns", json={"by": "player2", "accuse": ["prof-plum", "rope", "hall"],
                                   "correct": False}).json()["game"]
    assert g["out"] == ["player2"]
    # a turn of a player who is out is refused in card names
    err = c.post("/api/turns", json={"by": "player2", "suggest": ["prof-plum", "rope", "hall"],
                                     "shown_by": None}).json()["error"]
    assert "player2 made a wrong accusation earlier and is out of the game" in err


def test_marks_and_notes_are_kept_apart_from_deduction(tmp_path, capsys):
    path = tmp_path / "game.yaml"
    c = _client(path)
    _start(c)
    for turn in GAME["turns"]:
        c.post("/api/turns", json=turn)
    cells = c.get("/api/state").json()["game"]["cells"]
    r = c.put("/api/marks", json={"owner": "player2", "card": "hall", "mark": "held", "note": "saw a corner"})
    assert r.status_code == 200 and r.json()["said"] == "marked player2 holds Hall? (saw a corner)"
    g = r.json()["game"]
    assert g["cells"] == cells  # never deduced from
    # the deduction (player2 lacks hall) contradicts the mark: pointed out
    assert g["marks"] == [{"owner": "player2", "card": "hall", "mark": "held", "note": "saw a corner",
                           "text": "player2 holds Hall? (saw a corner)", "contradicted": "lacked"}]
    g = c.put("/api/marks", json={"owner": "envelope", "card": "study", "note": "a hunch"}).json()["game"]
    assert [m["text"] for m in g["marks"]][1] == "envelope / Study (a hunch)" and g["marks"][1]["contradicted"] is None
    assert c.get("/api/cell", params={"owner": "player2", "card": "hall"}).json()["mark"]["note"] == "saw a corner"
    # marks survive undo and redo
    assert len(c.post("/api/undo").json()["game"]["marks"]) == 2
    assert len(c.post("/api/redo").json()["game"]["marks"]) == 2
    assert c.put("/api/marks", json={"owner": "bob", "card": "hall", "mark": "held"}).status_code == 404
    assert "held, lacked or none" in c.put("/api/marks", json={"owner": "player2", "card": "hall",
                                                         "mark": "maybe"}).json()["error"]
    # saved in the file: deduce reads it (the same sheet), the terminal notebook opens it with the marks
    saved = yaml.safe_load(path.read_text())
    assert saved["marks"] == [{"owner": "player2", "card": "hall", "mark": "held", "note": "saw a corner"},
                              {"owner": "envelope", "card": "study", "note": "a hunch"}]
    copy = tmp_path / "copy.yaml"
    copy.write_text(path.read_text())
    assert main(["deduce", "--json", str(copy)]) == 0
    assert json.loads(capsys.readouterr().out)["cells"] == cells
    session = NotebookSession(copy)
    said = " ".join(m.text for m in session.start() if hasattr(m, "text"))
    assert "your marks (2, never deduced from): player2 holds Hall? (saw a corner); envelope / Study (a hunch)" in said
    assert "the deductions contradict your mark player2 holds Hall? (saw a corner): player2 lacks Hall" in said
    session.handle("undo")
    assert yaml.safe_load(copy.read_text())["marks"] == saved["marks"]  # kept by the terminal's saves
    # a mark with neither hunch nor note is removed
    g = c.put("/api/marks", json={"owner": "envelope", "card": "study", "note": " "}).json()["game"]
    assert len(g["marks"]) == 1
