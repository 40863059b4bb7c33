"""Issue 25's audit, re-run from outside: one hostile input of our own per
finding class, each run through the command line in a child process under a
3 GB address-space cap.

    nice -n 10 python benchmarks/audit.py [--only NAME ...] [--list] [--keep DIR]

Every case builds its files in a temporary folder, runs ``python -m
clue_expert ...`` (this tree: ``PYTHONPATH`` is set to it) with
``resource.setrlimit(RLIMIT_AS, 3 GB)`` in ``preexec_fn``, in a session of
its own, with a timeout, and records the exit code, the wall time, the CPU
time (user + system of the child and of every child it reaped:
``os.wait4``'s rusage; for a run stopped on purpose, the CPU read from
/proc of the whole tree at the moment the first result showed), the peak
resident size of any one process (``ru_maxrss`` of the child and of the
workers it reaped, and /proc's VmRSS of every descendant sampled every
0.1 s), and whether the answer is right: one clear error naming the file,
the rule and the limit, or the right result.  A case passes when the
answer is right, the CPU time is at most 10 s and the peak at most 1 GB.

Runs that are long by design (a 9-million-game sweep, ``simulate --games
5000000``, a sweep of 9,000 cells) are stopped on purpose some seconds
after their first result; the row says so, gives the CPU time to that first
result and the resident sizes at the first result and at the stop (flat
memory).  Linux only (/proc, RLIMIT_AS).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from clue_expert.testing.samples import costly_strategy
from worker_memory import descendants, rss_mb

ROOT = Path(__file__).resolve().parent.parent
CAP = 3 * 1024 ** 3
CPU_LIMIT = 10.0
#: How long the 9,000-cell sweep runs after its first cell (--sweep-seconds).
SWEEP_SECONDS = 45.0
RSS_LIMIT_MB = 1024.0
TICK = os.sysconf("SC_CLK_TCK")


# --- running one child ---------------------------------------------------------------------------------
def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as from a terminal, even when this script runs in the background


def tree_cpu(pid: int) -> float:
    """User + system seconds of ``pid``, its reaped children and its living descendants, from /proc."""
    total = 0.0
    for i, p in enumerate([pid, *descendants(pid)]):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
        total += (utime + stime + cutime + cstime) / TICK if i == 0 else (utime + stime) / TICK
    return total


@dataclass
class Run:
    """What one child did."""

    code: int | None = None
    out: str = ""
    err: str = ""
    wall: float = 0.0
    cpu: float = 0.0
    peak_mb: float = 0.0
    first: dict = field(default_factory=dict)  # for runs stopped on purpose: cpu, wall, rss at the first result
    stopped: bool = False  # stopped on purpose (a long run), or by the timeout
    timed_out: bool = False
    extra: dict = field(default_factory=dict)


def run_cli(argv: list, *, cwd: Path, timeout: float = 60.0, stdin: str | None = None,
            first: Callable[[], bool] | None = None, after_first: float = 0.0,
            stop_signal: int = signal.SIGINT, during: Callable[[subprocess.Popen], None] | None = None) -> Run:
    """Runs ``python -m clue_expert ARGV`` capped at 3 GB.  With ``first``, the
    run is watched: when ``first()`` holds (a first result on disk), its CPU and
    resident size are noted, and ``after_first`` seconds later the child gets
    ``stop_signal`` (the memory then is the flat-memory figure)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120", NO_COLOR="1")
    out_path, err_path = cwd / ".out", cwd / ".err"
    r = Run()
    with open(out_path, "w") as out, open(err_path, "w") as err:
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "clue_expert", *argv], cwd=cwd, env=env,
                                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                stdout=out, stderr=err, preexec_fn=_cap, start_new_session=True)
        if stdin is not None:
            threading.Thread(target=_feed, args=(proc, stdin), daemon=True).start()
        if during is not None:
            threading.Thread(target=during, args=(proc,), daemon=True).start()
        peaks: dict[int, float] = {}
        first_at = None
        signalled = None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            now = time.monotonic()
            for p in [proc.pid, *descendants(proc.pid)]:
                peaks[p] = max(peaks.get(p, 0.0), rss_mb(p) or 0.0)
            if first is not None and first_at is None and first():
                first_at = now
                r.first = {"cpu": tree_cpu(proc.pid), "wall": now - started,
                           "rss": max(rss_mb(p) or 0.0 for p in [proc.pid, *descendants(proc.pid)])}
            if first_at is not None and signalled is None and now - first_at >= after_first:
                r.first["rss_stop"] = max(rss_mb(p) or 0.0 for p in [proc.pid, *descendants(proc.pid)])
                r.first["wall_stop"] = now - started
                r.stopped = True
                signalled = now
                os.kill(proc.pid, stop_signal)
            if signalled is None and now - started > timeout:
                r.timed_out = r.stopped = True
                r.cpu = tree_cpu(proc.pid)
                signalled = now
                os.kill(proc.pid, signal.SIGTERM)
            if signalled is not None and now - signalled > 60:
                os.killpg(proc.pid, signal.SIGKILL)  # the session this script started for the case
            time.sleep(0.1)
        r.wall = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        r.code = proc.returncode
        cpu = usage.ru_utime + usage.ru_stime
        r.cpu = max(r.cpu, cpu) if r.timed_out else cpu
        r.peak_mb = max([usage.ru_maxrss / 1024, *peaks.values()])
        r.extra["parent_mb"] = max(peaks.get(proc.pid, 0.0), 0.0)
        workers = [v for k, v in peaks.items() if k != proc.pid]
        r.extra["worker_mb"] = max(workers, default=0.0)
        r.extra["workers"] = len(workers)
    r.out = out_path.read_text(errors="replace")
    r.err = err_path.read_text(errors="replace")
    return r


def _feed(proc: subprocess.Popen, text: str) -> None:
    try:
        proc.stdin.write(text.encode())
        proc.stdin.close()
    except OSError:
        pass


def yaml_text(data) -> str:
    return json.dumps(data, ensure_ascii=False)  # JSON is YAML; no dependency of the script on PyYAML's dump


# --- the cases -----------------------------------------------------------------------------------------
@dataclass
class Case:
    """One finding class of the audit and our own hostile input for it."""

    name: str
    finding: str
    run: Callable[[Path], tuple[Run, bool, str]]
    long: bool = False  # long by design: stopped on purpose, judged on the first result


CASES: list[Case] = []


def case(name: str, finding: str, long: bool = False):
    def wrap(fn):
        CASES.append(Case(name, finding, fn, long))
        return fn
    return wrap


def error_line(err: str) -> str:
    """What a run said on stderr, whole: its first ``error:`` line, else its last line."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error:")]
    return errors[0] if errors else (lines[-1] if lines else "")


def one_error(r: Run, *needles: str, code: int = 2) -> tuple[bool, str]:
    """One ``error:`` line on stderr holding every needle, and exit ``code``."""
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error:")]
    missing = [n for n in needles if n not in r.err]
    ok = r.code == code and len(errors) == 1 and not missing and "Traceback" not in r.err
    note = error_line(r.err)
    if missing:
        note += f" [missing: {missing}]"
    return ok, note


HAND = ["scarlett", "rope", "hall", "lounge", "dagger", "plum"]
RECORD = {"edition": "cluedo", "players": ["ann", "bob", "cat"], "me": "ann", "hand": HAND,
          "hand_sizes": {"ann": 6, "bob": 6, "cat": 6},
          "turns": [{"by": "bob", "suggest": ["white", "rope", "study"], "passed": ["cat"], "shown_by": "ann",
                     "card": "rope"}]}


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@case("folded-parameters", "a rule file whose parameter is folded into a message once per placeholder")
def _folded(d: Path):
    f = write(d / "folded.yaml", yaml_text({
        "id": "folded", "title": "folded", "kind": "response",
        "parameters": {"p": {"default": "v" * 200_000}},
        "rules": [{"id": "fold", "message": "{p}" * 5_000, "when": "disprove-request",
                   "then": [{"show": "matching"}]}]}))
    r = run_cli(["rules", str(f)], cwd=d)
    return (r, *one_error(r, str(f), "'fold'", "the limit on a message template"))


@case("contradiction-message", "a contradiction formatting a legal 10,000-character string many times")
def _contradiction(d: Path):
    f = write(d / "loud.yaml", yaml_text({
        "id": "loud", "title": "loud",
        "rules": [{"id": "loud-rule", "message": "m", "when": "held", "let": {"big": "'x' * 10000"},
                   "then": [{"contradiction": "{big}" * 2_000}]}]}))
    rec = write(d / "game.yaml", yaml_text(RECORD))
    r = run_cli(["deduce", "--rules", str(f), str(rec)], cwd=d)
    ok, note = one_error(r, "loud-rule", "message cut at 4,000 characters", code=1)
    ok = ok and len(r.err) < 20_000
    return r, ok, f"{note} (stderr {len(r.err):,} chars)"


@case("model-message", "a model rule's message formatting a legal 10,000-character string many times")
def _model_message(d: Path):
    f = write(d / "chatty.yaml", yaml_text({
        "id": "chatty", "kind": "model", "title": "chatty",
        "rules": [{"id": "chatty-rule", "message": "{big}" * 2_000, "when": "showed",
                   "let": {"big": "'y' * 10000"}, "for": {"card": "cards - held(by)"},
                   "then": [{"probably-lacked": ["by", "card"]}]}]}))
    rec = write(d / "game.yaml", yaml_text(RECORD))
    r = run_cli(["why", "--model", str(f), str(rec), "bob probably lacks rope"], cwd=d)
    cut = "message cut at 4,000 characters"
    ok = r.code == 0 and cut in r.out and len(r.out) < 200_000 and "Traceback" not in r.err
    return r, ok, f"why: exit {r.code}, {r.out.count(cut)} message(s) cut with a note, stdout {len(r.out):,} chars"


def _tiny_nodes(d: Path, name: str, text: str):
    f = write(d / name, text)
    r = run_cli(["deduce", str(f)], cwd=d)
    ok, note = one_error(r, str(f), "more than 200,000 values")
    return r, ok, f"{len(text) / 1e6:.1f} MB: {note}"


@case("tiny-yaml-nodes", "a record of millions of tiny YAML nodes under the 20 MB cap (block list)")
def _tiny_block(d: Path):
    return _tiny_nodes(d, "tiny.yaml", "edition: cluedo\nextra:\n" + "- 0\n" * 4_900_000)


@case("tiny-flow-nodes", "the same as a flow list (two bytes a node)")
def _tiny_flow(d: Path):
    return _tiny_nodes(d, "flow.yaml", "edition: cluedo\nextra: [" + "0," * 9_900_000 + "0]\n")


@case("tiny-json-nodes", "the same as JSON")
def _tiny_json(d: Path):
    return _tiny_nodes(d, "tiny.json", '{"edition": "cluedo", "extra": [' + "0," * 9_900_000 + "0]}")


def _edition(d: Path, name: str, categories: dict, envelope: dict | None = None) -> Path:
    data = {"id": name, "name": name, "categories": categories}
    if envelope:
        data["envelope"] = envelope
    return write(d / f"{name}.yaml", yaml_text(data))


def _huge_game(d: Path, edition: Path):
    r = run_cli(["simulate", "--edition", str(edition), "--players", "10", "--games", "1", "--workers", "1",
                 "--seed", "3", "--json", "--quiet"], cwd=d, timeout=150)
    right = r.code == 0 and '"games"' in r.out
    refused = r.code == 2 and str(edition) in r.err and "limit" in r.err
    note = ("played (exit 0)" if right else
            f"refused: {error_line(r.err)}" if refused else f"exit {r.code}: {error_line(r.err)}")
    if r.timed_out:
        note = f"stopped after {r.wall:.0f} s, not finished; " + note
    return r, right or refused, note


@case("edition-40x10", "simulate, 10 players, an edition of 40 categories x 10 cards (default seat)")
def _edition_40(d: Path):
    ed = _edition(d, "wide", {f"c{i}": [f"k{i}x{j}" for j in range(10)] for i in range(40)})
    return _huge_game(d, ed)


@case("edition-15-of-30", "simulate, 10 players, an edition whose envelope takes 15 of 30 cards")
def _edition_15(d: Path):
    ed = _edition(d, "deep", {"a": [f"a{j}" for j in range(30)], "b": [f"b{j}" for j in range(10)]},
                  {"a": 15, "b": 0})
    return _huge_game(d, ed)


def _cells(d: Path) -> int:
    p = d / "out" / "cells.jsonl"
    return len(p.read_text().splitlines()) if p.exists() else 0


@case("sweep-9000-cells", "a sweep of 9,000 one-game cells, one worker (worker memory)", long=True)
def _sweep_cells(d: Path):
    f = write(d / "cells.yaml", yaml_text({
        "games": 1, "seed": 1, "players": list(range(2, 11)),
        "editions": ["cluedo", "clue", "mitchell", "contest", "kingston"],
        "lineups": [{"name": f"L{i}", "seats": ["mitchell-basic", "kingston-deduction"][: 1 + i % 2]}
                    for i in range(200)]}))
    r = run_cli(["sweep", str(f), "--out", str(d / "out"), "--workers", "1", "--quiet"], cwd=d,
                timeout=SWEEP_SECONDS + 60, first=lambda: _cells(d) >= 1, after_first=SWEEP_SECONDS)
    cells = _cells(d)
    ok = r.stopped and not r.timed_out and r.code == 130 and cells >= 2 and "Traceback" not in r.err
    return r, ok, (f"stopped on purpose after {r.first.get('wall_stop', 0):.0f} s: {cells} of 9,000 cells kept; "
                   f"largest process {r.first.get('rss', 0):.0f} MB at the first cell, "
                   f"{r.first.get('rss_stop', 0):.0f} MB at the stop; peaks: sweep process "
                   f"{r.extra['parent_mb']:.0f} MB, worker {r.extra['worker_mb']:.0f} MB "
                   f"({r.extra['workers']} worker processes seen)")


@case("sweep-9M-games", "a sweep of 9 cells x 1,000,000 games (parent memory, time to the first game)", long=True)
def _sweep_games(d: Path):
    f = write(d / "games.yaml", yaml_text({"games": 1_000_000, "seed": 1, "players": list(range(2, 11)),
                                           "lineups": [["mitchell-basic"]]}))
    progress = d / ".err"
    r = run_cli(["sweep", str(f), "--out", str(d / "out"), "--workers", "2"], cwd=d, timeout=120,
                first=lambda: _progress_games(progress) >= 1, after_first=10)
    games = _progress_games(progress)
    ok = r.stopped and not r.timed_out and games >= 1 and "Traceback" not in r.err
    return r, ok, (f"stopped on purpose {r.first.get('wall_stop', 0) - r.first.get('wall', 0):.0f} s after the "
                   f"first game (progress: {games} games); RSS {r.first.get('rss', 0):.0f} MB at the first game, "
                   f"{r.first.get('rss_stop', 0):.0f} MB at the stop")


def _progress_games(err: Path) -> int:
    """The largest count of games finished a progress line on stderr shows."""
    try:
        text = err.read_text(errors="replace")
    except OSError:
        return 0
    found = [int(m.replace(",", "")) for m in re.findall(r"(\d[\d,]*) of [\d,]+ games", text)]
    return max(found, default=0)


@case("simulate-5M", "simulate --games 5000000 (memory before the first result)", long=True)
def _simulate_5m(d: Path):
    out = d / "records"
    r = run_cli(["simulate", "--games", "5000000", "--players", "3", "--strategy", "mitchell-basic", "--workers",
                 "2", "--records", str(out), "--quiet"], cwd=d, timeout=120,
                first=lambda: any(out.glob("game-*.yaml")), after_first=10)
    games = len(list(out.glob("game-*.yaml")))
    ok = r.stopped and not r.timed_out and r.code == 130 and games >= 1 and "Traceback" not in r.err
    return r, ok, (f"stopped on purpose 10 s after the first record ({games} games); RSS "
                   f"{r.first.get('rss', 0):.0f} MB at the first result, {r.first.get('rss_stop', 0):.0f} MB at the stop")


def _strategy(d: Path, name: str, let: dict, edition_cards: str = "category_cards(category)") -> Path:
    return write(d / f"{name}.yaml", yaml_text({
        "id": name, "title": name, "kind": "strategy",
        "rules": [{"id": f"{name}-rule", "message": "costly", "when": "your-turn", "let": let,
                   "then": [{"suggest": {"other": edition_cards}}]}]}))


@case("costly-library-call", "a short strategy valuing all 216 suggestions twice in one request (5 players, "
                             "one such seat, one round)")
def _costly(d: Path):
    f = write(d / "costly.yaml", yaml_text(costly_strategy()))
    r = run_cli(["play", "--strategy", str(f), *["--strategy", "mitchell-basic"] * 4, "--players", "5", "--seed", "1",
                 "--max-rounds", "1", "--show", "quiet", "--no-sheets"], cwd=d, timeout=150)
    ok_err, note = one_error(r, str(f), "'costly-rule'", "limit")
    ok = ok_err or r.code == 0
    return r, ok, ("one round played (exit 0): the request stopped at its work limit, the sheet's estimate "
                   "answered" if r.code == 0 else note)


@case("three-joined-one-of", "three joined one-of patterns sharing a variable, on a record of 1,500 shows (84 clauses)")
def _joins(d: Path):
    f = write(d / "joins.yaml", yaml_text({
        "id": "joins", "title": "joins",
        "rules": [{"id": "join3", "message": "{a} {b} {c}",
                   "match": [{"one-of": {"owner": "o", "cards": "a"}}, {"one-of": {"owner": "o", "cards": "b"}},
                             {"one-of": {"owner": "o", "cards": "c"}},
                             {"test": "a != b"}, {"test": "b != c"}],
                   "then": [{"one-of": ["o", "a"]}]}]}))
    sus = ["mustard", "white", "green"]  # bob may hold all three: the record is consistent
    wea = ["candlestick", "spanner", "pipe", "revolver"]
    rooms = ["kitchen", "ballroom", "conservatory", "dining-room", "billiard-room", "library", "study"]
    triples = [(s, w, ro) for s in sus for w in wea for ro in rooms]
    turns = [{"by": "cat", "suggest": list(triples[i % len(triples)]), "passed": ["ann"], "shown_by": "bob"}
             for i in range(1_500)]
    rec = write(d / "shows.yaml", yaml_text({**RECORD, "turns": turns}))
    r = run_cli(["deduce", "--no-complete", "--rules", str(f), str(rec)], cwd=d, timeout=300)
    ok_err, note = one_error(r, str(f), "'join3'", "limit")
    ok = ok_err or r.code == 0
    return r, ok, ("deduced (exit 0)" if r.code == 0 else note)


def _board(d: Path) -> Path:
    """200 x 200: rooms along the bottom edge, every start at the top left, so
    value iteration needs a sweep per row to carry the rooms' values up."""
    rooms = ["study", "hall", "lounge", "library", "billiard-room", "dining-room", "conservatory", "ballroom",
             "kitchen"]
    letters = "SHOLIDCBK"
    width, height = 200, 200
    rows = ["123456" + "." * (width - 6)] + ["." * width for _ in range(height - 4)]
    rows.append("".join(f"{c}^#" for c in letters).ljust(width, "."))  # doors open north
    rows.append("".join(f"{c}{c}#" for c in letters).ljust(width, "#"))
    rows.append("".join(f"{c}{c}#" for c in letters).ljust(width, "#"))
    data = {"id": "huge", "name": "huge", "edition": "clue", "dice": 2, "map": "\n".join(rows) + "\n",
            "legend": {"hallway": ".", "wall": "#", "rooms": dict(zip(letters, rooms)),
                       "doors": {"^": "north", "v": "south", "<": "west", ">": "east"},
                       "starts": dict(zip("123456", ["scarlet", "mustard", "white", "green", "peacock", "plum"]))}}
    return write(d / "huge-board.yaml", yaml_text(data))


@case("board-200x200", "Siebel's value iteration on a 200 x 200 board inside the limits (a whole game)")
def _board_case(d: Path):
    b = _board(d)
    r = run_cli(["play", "--board", str(b), "--players", "3", "--seed", "1", "--strategy",
                 "clue-expert-focused:move=siebel-value-iteration", "--show", "quiet", "--no-sheets"],
                cwd=d, timeout=150)
    ok_err, note = one_error(r, "siebel-value-iteration", "limit")
    ok = ok_err or r.code == 0
    return r, ok, ("played (exit 0)" if r.code == 0 else note)


@case("level-3000-entries", "a 63 kB level file of 3,000 entries with a duplicate")
def _level(d: Path):
    names = [f"deduction/r-{i:04d}" for i in range(2_999)] + ["deduction/r-0007"]
    text = yaml_text({"id": "big-level", "title": "big", "deduction": names, "completion": False})
    f = write(d / "big-level.yaml", text)
    rec = write(d / "game.yaml", yaml_text(RECORD))
    r = run_cli(["deduce", "--knowledge", str(f), str(rec)], cwd=d)
    ok, note = one_error(r, str(f), "limit")
    return r, ok, f"{len(text) / 1000:.0f} kB: {note}"


@case("level-64-files", "a level naming 64 rule files of 1,000 rules each, a rule id repeated in the last")
def _level_files(d: Path):
    names = []
    for i in range(64):
        rules = [{"id": f"f{i}-r{j}", "message": "m", "when": "held", "if": f"card != 'x{j}'",
                  "then": [{"lacked": ["owner", "card"]}]} for j in range(1_000)]
        if i == 63:
            rules[-1]["id"] = "f0-r0"
        write(d / f"part{i}.yaml", yaml_text({"id": f"part{i}", "title": "part", "rules": rules}))
        names.append(str(d / f"part{i}.yaml"))
    f = write(d / "wide-level.yaml", yaml_text({"id": "wide-level", "title": "wide", "deduction": names,
                                                "completion": False}))
    rec = write(d / "game.yaml", yaml_text(RECORD))
    r = run_cli(["deduce", "--knowledge", str(f), str(rec)], cwd=d, timeout=150)
    ok, note = one_error(r, str(f), "limit")
    return r, ok, note


def _many_rules(prefix: str, n: int) -> list:
    return [{"id": f"{prefix}-r{j}", "message": "m", "when": "held", "if": f"card != 'x{j}'",
             "then": [{"lacked": ["owner", "card"]}]} for j in range(n)]


@case("rule-file-1MB", "one rule file of 1 MB: as many short rules as fit")
def _rule_file_big(d: Path):
    rules = _many_rules("big", 9_000)
    text = yaml_text({"id": "big", "title": "big", "rules": rules})
    while len(text.encode()) > 1_000_000:
        rules = rules[:-100]
        text = yaml_text({"id": "big", "title": "big", "rules": rules})
    f = write(d / "big.yaml", text)
    r = run_cli(["rules", str(f)], cwd=d, timeout=150)
    ok_err, note = one_error(r, str(f), "limit")
    ok = ok_err or r.code == 0
    return r, ok, f"{len(rules):,} rules, {len(text) / 1e6:.2f} MB: " + ("listed (exit 0)" if r.code == 0 else note)


@case("rule-file-include-tree", "a rule file including 64 files of 1,000 rules through include")
def _rule_tree(d: Path):
    top = []
    for i in range(16):
        subs = []
        for k in range(3):
            name = f"leaf{i}-{k}"
            write(d / f"{name}.yaml", yaml_text({"id": name, "title": name, "rules": _many_rules(name, 1_000)}))
            subs.append(name)
        name = f"mid{i}"
        write(d / f"{name}.yaml", yaml_text({"id": name, "title": name, "include": subs,
                                             "rules": _many_rules(name, 1_000)}))
        top.append(name)
    f = write(d / "tree.yaml", yaml_text({"id": "tree", "title": "tree", "include": top}))
    r = run_cli(["rules", str(f)], cwd=d, timeout=150)
    ok_err, note = one_error(r, str(f), "limit")
    ok = ok_err or r.code == 0
    return r, ok, "listed (exit 0)" if r.code == 0 else note


@case("two-notebooks", "two notebooks on one file: the second refused, the first's turns all kept")
def _notebooks(d: Path):
    game = d / "game.yaml"
    setup = "cluedo\nann bob cat\nann\nscarlett rope hall lounge dagger plum\n\n"
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    first = subprocess.Popen([sys.executable, "-m", "clue_expert", "notebook", str(game), "--no-color"], cwd=d,
                             env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, preexec_fn=_cap, start_new_session=True)
    first.stdin.write(setup + "bob: white rope study / cat passes / ann shows rope\n")
    first.stdin.flush()
    for _ in range(600):
        if game.exists() and "white" in game.read_text():
            break
        time.sleep(0.1)
    r = run_cli(["notebook", str(game), "--no-color"], cwd=d,
                stdin="cat: green dagger kitchen / ann shows dagger\nquit\n")
    first.stdin.write("cat: mustard candlestick study / ann passes / bob shows\nquit\n")
    first.stdin.flush()
    first.communicate(timeout=120)
    text = game.read_text()
    kept = "white" in text and "mustard" in text and "green" not in text
    ok, note = one_error(r, str(game), "open in another notebook")
    return r, ok and kept and first.returncode == 0, f"{note}; first exit {first.returncode}, both its turns kept: {kept}"


def _false_facts(d: Path, records: list, levels=("complete", "kingston", "mitchell")) -> tuple[Run, list, int]:
    """Runs ``deduce --json --knowledge L`` on every record for every level and
    compares each sheet with the record's own ``deal:``: a held or lacked that
    the deal contradicts is a false fact; exit 1 (a contradiction) on a record
    of a real game is a spurious one."""
    worst, bad, runs = Run(), [], 0
    worst.extra["facts"] = 0
    for rec in records:
        deal = json.loads(json.dumps(_yaml_load(rec)["deal"]))
        owner_of = {c: p for p, cards in deal["hands"].items() for c in cards}
        owner_of.update({c: "envelope" for c in deal["envelope"]})
        for level in levels:
            r = run_cli(["deduce", "--json", "--knowledge", level, str(rec)], cwd=d)
            runs += 1
            worst.cpu, worst.peak_mb, worst.wall = max(worst.cpu, r.cpu), max(worst.peak_mb, r.peak_mb), \
                max(worst.wall, r.wall)
            worst.code = r.code if worst.code in (None, 0) else worst.code
            if r.code != 0:
                bad.append(f"{rec.name} {level}: exit {r.code} {error_line(r.err)}")
                continue
            sheet = json.loads(r.out)
            for owner, cells in sheet["cells"].items():
                for card, state in cells.items():
                    worst.extra["facts"] += state in ("held", "lacked")
                    if (state == "held") != (owner_of.get(card) == owner) and state in ("held", "lacked"):
                        bad.append(f"{rec.name} {level}: says {owner} {state} {card}")
    return worst, bad, runs


def _yaml_load(path: Path):
    import yaml  # the script reads the records simulate wrote; PyYAML is a dependency of the package
    return yaml.safe_load(path.read_text())


def _levels_verdict(d: Path, sim, out: Path):
    """The level cases' row: the four records ``sim`` wrote to ``out``, each
    deduced at every level and checked against its deal."""
    records = sorted(out.glob("game-*.yaml"))
    r, bad, runs = _false_facts(d, records)
    ok = sim.code == 0 and len(records) == 4 and not bad
    return r, ok, (f"{len(records)} records x 3 levels ({runs} deduce runs; CPU and RSS of the largest): "
                   f"{r.extra['facts']:,} facts checked against the deal, {len(bad)} false or spurious "
                   f"contradictions{'; the first two: ' + str(bad[:2]) if bad else ''}")


@case("levels-two-envelope-cards", "every level on records of an edition whose envelope holds 2 suspects (deal known)")
def _levels_edition(d: Path):
    ed = _edition(d, "two-suspects", {"suspect": [f"s{j}" for j in range(7)], "weapon": [f"w{j}" for j in range(6)],
                                       "room": [f"r{j}" for j in range(8)]}, {"suspect": 2})
    out = d / "records"
    sim = run_cli(["simulate", "--edition", str(ed), "--players", "4", "--games", "4", "--seed", "5", "--workers", "1",
                   "--strategy", "mitchell-basic", "--strategy", "kingston-deduction", "--records", str(out),
                   "--quiet"], cwd=d, timeout=150)
    return _levels_verdict(d, sim, out)


@case("levels-generalized", "every level on records of the generalized game (deal known)")
def _levels_generalized(d: Path):
    out = d / "records"
    sim = run_cli(["simulate", "--game", "generalized", "--players", "4", "--hand", "3", "--hidden", "2", "--games",
                   "4", "--seed", "7", "--workers", "1", "--records", str(out), "--quiet"], cwd=d, timeout=150)
    return _levels_verdict(d, sim, out)


# --- the contest agent against a server of our own -----------------------------------------------------
REPLY = re.compile(r"ok|dead|-|suggest [A-Z][a-z] [A-Z][a-z] [A-Z][a-z]|accuse [A-Z][a-z] [A-Z][a-z] [A-Z][a-z]"
                   r"|show [A-Z][a-z]")


class Server:
    """A listening socket the agent connects to; ``talk`` sends a message and
    collects the replies that arrive until ``quiet`` seconds pass with none."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.conn: socket.socket | None = None

    def accept(self) -> str:
        self.sock.settimeout(30)
        self.conn, _ = self.sock.accept()
        return self.read(2.0)

    def read(self, quiet: float) -> str:
        assert self.conn is not None
        data = b""
        self.conn.settimeout(quiet)
        while True:
            try:
                chunk = self.conn.recv(65536)
            except socket.timeout:
                return data.decode(errors="replace")
            if not chunk:
                return data.decode(errors="replace")
            data += chunk

    def ask(self, message: str | bytes, wait: float = 30.0, more: float = 0.02) -> str:
        """Sends one message, waits for its reply (the first bytes), then for any more within ``more`` s
        (a second reply arriving later shows in the next message's answer)."""
        assert self.conn is not None
        self.conn.sendall(message if isinstance(message, bytes) else message.encode())
        self.conn.settimeout(wait)
        try:
            data = self.conn.recv(65536)
        except socket.timeout:
            return ""
        return data.decode(errors="replace") + self.read(more)


def replies(text: str) -> list[str]:
    return REPLY.findall(text)


def _agent_case(d: Path, script: Callable[[Server, dict], None], extra: list | None = None):
    server = Server()
    notes: dict = {}

    def during(_proc):
        try:
            notes["alive"] = server.accept()
            script(server, notes)
        except Exception as exc:  # noqa: BLE001 - reported in the row
            notes["error"] = repr(exc)

    r = run_cli(["contest-agent", "audit", str(server.port), "--records", str(d / "records"), "--strategy",
                 "mitchell-basic", "--read-timeout", "20", *(extra or [])], cwd=d, timeout=200, during=during)
    server.sock.close()
    r.extra = notes
    return r


HAND_CODES = "Gr Kn Ba St Pl Ro"


@case("contest-324-suggests", "the contest agent asked to suggest 400 times in one game")
def _contest_suggests(d: Path):
    def script(s: Server, n: dict) -> None:
        n["reset"] = s.ask(f"reset 3 0 {HAND_CODES}")
        answers = [s.ask("suggest") for _ in range(400)]
        n["answered"] = sum(len(replies(a)) == 1 and a.startswith("suggest ") for a in answers)
        n["done"] = s.ask("done")

    r = _agent_case(d, script)
    n = r.extra
    ok = r.code == 0 and n.get("answered") == 400 and n.get("done") == "dead"
    return r, ok, f"exit {r.code}; {n.get('answered')} of 400 suggests answered once; done -> {n.get('done')!r} {n.get('error', '')}"


@case("contest-2500-turns", "a 2,500-turn game: the agent's records must be readable by deduce")
def _contest_long(d: Path):
    def script(s: Server, n: dict) -> None:
        s.ask(f"reset 3 0 {HAND_CODES}")
        n["ok"] = sum(s.ask("suggestion 1 Mu Ca Co -") == "ok" for _ in range(2_500))
        n["done"] = s.ask("done")

    r = _agent_case(d, script)
    n = r.extra
    parts = sorted((d / "records").glob("*.yaml"))
    read = []
    for p in parts:
        rr = run_cli(["deduce", str(p)], cwd=d)
        read.append(rr.code)
        r.cpu = max(r.cpu, rr.cpu)
        r.peak_mb = max(r.peak_mb, rr.peak_mb)
    ok = r.code == 0 and n.get("ok") == 2_500 and parts and all(c == 0 for c in read)
    return r, ok, (f"exit {r.code}; {n.get('ok')} of 2,500 answered ok; {len(parts)} record file(s), deduce exits "
                   f"{read} (CPU, RSS: the largest of agent and deduce) {n.get('error', '')}")


@case("contest-oversized-reset", "an oversized reset (6 kB of card codes) gets one reply")
def _contest_reset(d: Path):
    def script(s: Server, n: dict) -> None:
        n["big"] = replies(s.ask("reset 3 0 " + "Gr " * 2_000, wait=10, more=1.0))
        n["big"] += replies(s.read(3.0))  # anything more that trickles in
        n["reset"] = s.ask(f"reset 3 0 {HAND_CODES}")
        n["done"] = s.ask("done")

    r = _agent_case(d, script)
    n = r.extra
    ok = r.code == 0 and len(n.get("big", [])) == 1 and n.get("done") == "dead"
    return r, ok, f"exit {r.code}; replies to the oversized reset: {n.get('big')}; done -> {n.get('done')!r}"


@case("contest-junk-then-accuse", "5 kB of junk stuck to an accuse: two replies, the accuse answered")
def _contest_junk(d: Path):
    def script(s: Server, n: dict) -> None:
        s.ask(f"reset 3 0 {HAND_CODES}")
        got = replies(s.ask(b"x" * 5_000 + b"accuse", wait=10, more=1.0))
        got += replies(s.read(3.0))
        n["got"] = got
        n["done"] = s.ask("done")

    r = _agent_case(d, script)
    n = r.extra
    got = n.get("got", [])
    ok = r.code == 0 and len(got) == 2 and (got[1] == "-" or got[1].startswith("accuse")) and n.get("done") == "dead"
    return r, ok, f"exit {r.code}; replies: {got}; done -> {n.get('done')!r}"


# --- signals, text, names ------------------------------------------------------------------------------
@case("sigterm-simulate", "SIGTERM on simulate once a game is finished")
def _sigterm_simulate(d: Path):
    out = d / "records"
    r = run_cli(["simulate", "--games", "5000", "--players", "3", "--strategy", "mitchell-basic", "--workers", "2",
                 "--records", str(out)], cwd=d, timeout=120, first=lambda: any(out.glob("game-*.yaml")),
                after_first=1, stop_signal=signal.SIGTERM)
    ok = (r.code == 143 and "Simulation (interrupted)" in r.out and "interrupted after" in r.err
          and "Traceback" not in r.err and "BrokenPipe" not in r.err)
    last = r.err.strip().splitlines()[-1] if r.err.strip() else ""
    return r, ok, f"exit {r.code}; summary printed: {'Simulation (interrupted)' in r.out}; last line {last!r}"


@case("sigterm-sweep", "SIGTERM on sweep once a cell is finished")
def _sigterm_sweep(d: Path):
    f = write(d / "s.yaml", yaml_text({"games": 3, "seed": 1, "players": [3, 4, 5, 6],
                                       "lineups": [["mitchell-basic"], ["mitchell-advanced"]]}))
    r = run_cli(["sweep", str(f), "--out", str(d / "out"), "--workers", "2"], cwd=d, timeout=120,
                first=lambda: _cells(d) >= 1, after_first=0.5, stop_signal=signal.SIGTERM)
    ok = r.code == 143 and "interrupted after" in r.err and "Traceback" not in r.err and "BrokenPipe" not in r.err
    last = r.err.strip().splitlines()[-1] if r.err.strip() else ""
    return r, ok, f"exit {r.code}; {_cells(d)} cells kept; last line {last!r}"


@case("sigint-in-process", "Ctrl-C on a sweep whose games run in its own process, 8 times at different moments")
def _sigint_tries(d: Path):
    f = write(d / "cells.yaml", yaml_text({
        "games": 1, "seed": 1, "players": list(range(2, 11)), "editions": ["cluedo", "clue", "mitchell"],
        "lineups": [{"name": f"L{i}", "seats": ["mitchell-basic", "kingston-deduction"][: 1 + i % 2]}
                    for i in range(50)]}))
    worst, outcomes = Run(), []
    for i, delay in enumerate([0.5, 1.3, 2.1, 2.9, 3.6, 4.4, 5.2, 6.0]):  # seconds after the first cell
        out = d / f"out{i}"
        r = run_cli(["sweep", str(f), "--out", str(out), "--workers", "1", "--quiet"], cwd=d, timeout=120,
                    first=lambda out=out: (out / "cells.jsonl").exists(), after_first=delay)
        clean = r.code == 130 and "Traceback" not in r.err and "Exception ignored" not in r.err \
            and r.err.strip().splitlines()[-1:] != [] and r.err.strip().splitlines()[-1].startswith("interrupted after")
        outcomes.append("ok" if clean else f"exit {r.code}: {error_line(r.err)}")
        worst.code = r.code if clean and worst.code in (None, 130) else (worst.code or r.code)
        worst.cpu, worst.peak_mb, worst.wall = max(worst.cpu, r.cpu), max(worst.peak_mb, r.peak_mb), \
            max(worst.wall, r.wall)
    good = outcomes.count("ok")
    bad = [o for o in outcomes if o != "ok"]
    return worst, not bad, (f"{good} of {len(outcomes)} stopped with exit 130, the summary line and no traceback "
                            f"(CPU, wall and RSS of the longest try){'; the others: ' + str(bad) if bad else ''}")


ESC = "\x1b[31mRED\x1b]0;owned\x07\u202e"


@case("control-chars-edition", "control characters in an edition's card names (editions FILE, deduce)")
def _ctl_edition(d: Path):
    ed = write(d / "ctl.yaml", yaml_text({
        "id": "ctl", "name": f"Edition {ESC}", "description": f"about {ESC}",
        "categories": {"suspect": [{"id": "sus-a", "name": f"Suspect {ESC}"}, "sus-b", "sus-c"],
                       "weapon": ["w1", "w2", "w3"], "room": ["r1", "r2", "r3"]}}))
    rec = write(d / "game.yaml", yaml_text({"edition": str(ed), "players": ["ann", "bob"], "me": "ann",
                                            "hand": ["sus-a", "w1", "r1"], "turns": []}))
    r = run_cli(["editions", str(ed), "--no-color"], cwd=d)
    r2 = run_cli(["deduce", str(rec), "--no-color"], cwd=d)
    both = r.out + r.err + r2.out + r2.err
    raw = [c for c in "\x1b\x07\u202e" if c in both]
    ok = r.code == 0 and r2.code == 0 and not raw and "\\x1b" in r.out and "\\x1b" in r2.out
    r.cpu, r.peak_mb = max(r.cpu, r2.cpu), max(r.peak_mb, r2.peak_mb)
    escaped = "\\x1b" in r.out and "\\x1b" in r2.out
    return r, ok, (f"editions exit {r.code}, deduce exit {r2.code}; raw control characters in the output: "
                   f"{[hex(ord(c)) for c in raw]}; escaped: {escaped}")


@case("control-chars-rules", "control characters in a rule file's title and message (rules FILE)")
def _ctl_rules(d: Path):
    f = write(d / "ctl-rules.yaml", yaml_text({
        "id": "ctl", "title": f"title {ESC}", "description": f"desc {ESC}",
        "rules": [{"id": "ctl-rule", "message": f"msg {ESC}", "when": "held",
                   "then": [{"lacked": ["ENVELOPE", "card"]}]}]}))
    r = run_cli(["rules", str(f), "--no-color"], cwd=d)
    raw = [c for c in "\x1b\x07\u202e" if c in r.out + r.err]
    ok = r.code == 0 and not raw and "\\x1b" in r.out
    return r, ok, f"exit {r.code}; raw control characters in the output: {[hex(ord(c)) for c in raw]}"


@case("duplicate-me-key", "a record with two me: keys")
def _dup_me(d: Path):
    f = write(d / "dup.yaml", "edition: cluedo\nplayers: [ann, bob, cat]\nme: ann\nme: bob\n"
                              f"hand: [{', '.join(HAND)}]\nturns: []\n")
    r = run_cli(["deduce", str(f)], cwd=d)
    return (r, *one_error(r, str(f), "the key 'me' appears twice"))


@case("homoglyph-player", "a player name with a Cyrillic letter beside the Latin one")
def _homoglyph(d: Path):
    rec = dict(RECORD, players=["ann", "Bob", "B\u043eb"], hand_sizes={"ann": 6, "Bob": 6, "B\u043eb": 6},
               turns=[])
    f = write(d / "glyph.yaml", yaml_text(rec))
    r = run_cli(["deduce", str(f)], cwd=d)
    return (r, *one_error(r, str(f), "look alike"))


@case("homoglyph-turn", "a turn by a Cyrillic look-alike of a player (not a new player)")
def _homoglyph_turn(d: Path):
    rec = dict(RECORD, players=["ann", "Bob", "cat"], hand_sizes={"ann": 6, "Bob": 6, "cat": 6},
               turns=[{"by": "B\u043eb", "suggest": ["white", "rope", "study"], "passed": ["cat"],
                       "shown_by": "ann", "card": "rope"}])
    f = write(d / "glyph-turn.yaml", yaml_text(rec))
    r = run_cli(["deduce", str(f)], cwd=d)
    return (r, *one_error(r, str(f), "Bob"))


# --- the table -----------------------------------------------------------------------------------------
def verdict(c: Case, r: Run, ok: bool) -> tuple[str, float, float]:
    cpu = r.first.get("cpu", r.cpu) if c.long else r.cpu
    peak = r.peak_mb
    passed = ok and cpu <= CPU_LIMIT and peak <= RSS_LIMIT_MB and not (r.timed_out and not c.long)
    return ("PASS" if passed else "FAIL"), cpu, peak


def main() -> None:
    global SWEEP_SECONDS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="run these cases only")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("--keep", help="build the cases' files under DIR and keep them")
    ap.add_argument("--sweep-seconds", type=float, default=SWEEP_SECONDS,
                    help="how long the 9,000-cell sweep runs after its first cell (default 45)")
    args = ap.parse_args()
    SWEEP_SECONDS = args.sweep_seconds
    if args.list:
        for c in CASES:
            print(f"{c.name}: {c.finding}")
        return
    chosen = [c for c in CASES if not args.only or c.name in args.only]
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.node()}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, Python {platform.python_version()}; "
          f"children capped at {CAP / 1024 ** 3:.0f} GB (RLIMIT_AS)")
    print("| case | exit | wall s | CPU s | peak RSS MB | verdict | what happened |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    failed = 0
    for c in chosen:
        base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="audit-"))
        d = base / c.name
        d.mkdir(parents=True, exist_ok=True)
        try:
            r, ok, note = c.run(d)
        finally:
            if not args.keep:
                shutil.rmtree(base, ignore_errors=True)
        mark, cpu, peak = verdict(c, r, ok)
        failed += mark == "FAIL"
        cpu_text = f"{cpu:.1f}" + (" (to the first result)" if c.long else "")
        note = note.replace(str(d) + "/", "").replace(str(base) + "/", "")  # the files by name
        note = note.replace("|", "\\|").replace("\n", " ")
        print(f"| {c.name} | {r.code} | {r.wall:.1f} | {cpu_text} | {peak:.0f} | {mark} | {note} |", flush=True)
    print(f"# {len(chosen) - failed} of {len(chosen)} cases pass (CPU <= {CPU_LIMIT:.0f} s, "
          f"peak RSS <= {RSS_LIMIT_MB:.0f} MB, the right answer)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
