"""Stop signals against the long commands (issue 39): each signal pattern,
N tries per command, and what happened.

    python benchmarks/stop_signals.py [--tries 100] [--commands simulate sweep ...]
                                      [--patterns term-group forwarded ...] [--jobs 2]

Every try starts the command in its own session (its own process group),
waits until it is running (its first progress line, prompt or log line; for
``serve``, its port answering), then a random 0-``--spread`` s more, so that
the signals land anywhere (in a game, between games, while a worker is
replaced, while results are written), then sends the pattern's signals:

* ``term-group``: one SIGTERM to the process group (the parent and its
  workers at once: systemd's default KillMode, Slurm's scancel);
* ``int-group``: Ctrl-C (SIGINT to the process group); ``int-group-twice``:
  Ctrl-C, then again 50-300 ms later;
* ``forwarded``: SIGTERM to the parent, then to each worker, then to the
  parent again, milliseconds apart (``timeout`` forwarding its SIGTERM while
  someone also signals the tree);
* ``worker-term``: SIGTERM to one worker alone (the parent, for commands
  without workers);
* ``mixed``: 2 to 5 signals, SIGINT or SIGTERM, each to the parent, a
  worker or the group, 0-300 ms apart (seeded by the try).

A try *hangs* when the command is still running ``--hang`` s (default 15)
after the last signal (it is then killed with SIGKILL, with its group); it
is *slow* when it ended more than 2 s after the first signal.  Also counted:
worker processes still alive after the parent ended (*orphans*), a
traceback on stderr, and files left half-written (``.partial-`` records, a
``cells.jsonl`` line or a ``results.csv`` that does not parse, a notebook
file that does not load).  Prints one row per command and pattern: tries,
hangs, slow, the exit codes seen (count each), the slowest exit after the
first signal, and the problems.  Wall time (the delays are the point):
run it on a machine as quiet as you have.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import csv
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

from clue_expert.core.deals import random_deal
from clue_expert.play.contest import EDITION
from clue_expert.play.players import RuleBasedPlayer
from clue_expert.testing.contest_server import FakeContestServer

ROOT = Path(__file__).resolve().parent.parent
PATTERNS = ("term-group", "int-group", "int-group-twice", "forwarded", "worker-term", "mixed")
COMMANDS = ("simulate", "sweep", "reproduce", "play", "contest-agent", "notebook", "serve")
#: Seconds a command may take to end after the first signal.
BOUND = 2.0
#: The tree whose clue_expert is run (--root: another checkout, e.g. a baseline).
CODE = ROOT
#: --verbose: each try that hung or did not end with 130 or 143, with its signals and the end of its stderr.
VERBOSE = False

SWEEP = ("games: 30\nseed: 1\nlineups: [[mitchell-basic], [mitchell-advanced], [kingston-deduction], "
         "[kingston-next-not-held]]\nplayers: [3, 4, 5, 6]\n")
NOTEBOOK_SETUP = "cluedo\nann bob cat\nann\nscarlett rope hall lounge dagger plum\n\n"


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux: /proc)."""
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                out += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _default_sigint() -> None:
    """In the child, before it runs the command: SIGINT's default action back."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Try:
    """One run of a command: its process, its folder, how it is known to be running."""

    def __init__(self, command: str, folder: Path, seed: int):
        self.command, self.folder, self.seed = command, folder, seed
        self.sent: list = []
        self.server = None
        self.server_thread = None
        self.stdin = subprocess.DEVNULL
        self.port = 0
        argv = {"simulate": ["simulate", "--players", "4", "--games", "3000", "--workers", "2",
                             "--records", str(folder / "records")],
                "sweep": ["sweep", str(folder / "sweep.yaml"), "--out", str(folder / "out"), "--workers", "2"],
                "reproduce": ["reproduce", "kingston", "--workers", "2"],
                # a long game (8-27 s): a 6-player game on CLIPS now ends before the signals come
                "play": ["play", "--players", "10", "--seed", str(seed), "--show", "all", "--engine", "experta"],
                "notebook": ["notebook", str(folder / "game.yaml"), "--no-color"],
                }.get(command)
        if command == "sweep":
            (folder / "sweep.yaml").write_text(SWEEP)
        if command == "contest-agent":
            self.port = self._contest_server()
            argv = ["contest-agent", "bench", str(self.port), "--log", str(folder / "agent.log"),
                    "--records", str(folder / "contest")]
        if command == "serve":
            (folder / "game.yaml").write_text(yaml.safe_dump({"edition": "cluedo", "players": ["ann", "bob", "cat"],
                                                              "me": "ann", "hand": ["scarlett", "rope", "hall",
                                                                                     "lounge", "dagger", "plum"],
                                                              "turns": []}))
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                self.port = s.getsockname()[1]
            argv = ["serve", str(folder / "game.yaml"), "--port", str(self.port)]
        if command == "notebook":
            self.stdin = subprocess.PIPE
        assert argv is not None, command
        env = dict(os.environ, PYTHONPATH=str(CODE), PYTHONUNBUFFERED="1")
        self.err_path = folder / "stderr"
        self.out_path = folder / "stdout"
        # SIGINT at its default in the command, as at a terminal: run as a shell's background job (a
        # script's `cmd &`), this process may have it ignored, the command would inherit that and
        # keep it ignored (nohup), and every Ctrl-C pattern would hang
        self.proc = subprocess.Popen([sys.executable, "-m", "clue_expert", *argv], stdin=self.stdin,
                                     stdout=open(self.out_path, "w"), stderr=open(self.err_path, "w"),
                                     env=env, start_new_session=True, cwd=folder, preexec_fn=_default_sigint)
        if command == "notebook":
            assert self.proc.stdin is not None
            self.proc.stdin.write(NOTEBOOK_SETUP.encode())
            self.proc.stdin.flush()

    def _contest_server(self) -> int:
        server = FakeContestServer(timeout=30)
        port = server.start()
        self.server = server

        def play() -> None:
            try:
                server.accept("bench")
                (self.folder / "accepted").write_text("")
                for g in range(1000):
                    names = tuple(f"p{i}" for i in range(4))
                    deal = random_deal(EDITION, names, random.Random(self.seed * 1000 + g))
                    opponents = {p: RuleBasedPlayer(p, "mitchell-basic", seed=g * 10 + i)
                                 for i, p in enumerate(names) if i != g % 4}
                    server.play_game(deal, g % 4, opponents)
            except Exception:  # the agent went away: what the try is about
                pass
            finally:
                try:
                    server.close()
                except Exception:
                    pass
        self.server_thread = threading.Thread(target=play, daemon=True)
        self.server_thread.start()
        return port

    def running(self) -> bool:
        """Whether the command is under way (its handlers installed, its work started)."""
        if self.command == "contest-agent":
            return (self.folder / "accepted").exists() and (self.folder / "agent.log").exists() and \
                "seat" in (self.folder / "agent.log").read_text()
        if self.command == "serve":
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return True
            except OSError:
                return False
        if self.command == "notebook":
            return "turn 1>" in self.out_path.read_text()
        if self.command == "play":
            return len(self.out_path.read_text()) > 0
        if self.command == "simulate":
            return "simulate: " in self.err_path.read_text() and bool(children(self.proc.pid))
        return len(self.err_path.read_text()) > 0 and bool(children(self.proc.pid))

    def problems(self) -> list[str]:
        """Files left half-written, tracebacks."""
        out = []
        err = self.err_path.read_text(errors="replace")
        if "Traceback" in err:
            out.append("traceback")
        records = self.folder / "records"
        if records.exists() and any(p.name.startswith(".partial-") for p in records.iterdir()):
            out.append("partial record")
        cells = self.folder / "out" / "cells.jsonl"
        if cells.exists():
            for line in cells.read_text().splitlines():
                try:
                    json.loads(line)
                except ValueError:
                    out.append("cells.jsonl line cut")
                    break
        results = self.folder / "out" / "results.csv"
        if results.exists():
            try:
                rows = list(csv.DictReader(results.open()))
                if rows and None in rows[-1].values():
                    out.append("results.csv cut")
            except csv.Error:
                out.append("results.csv unreadable")
        if self.command == "notebook" and (self.folder / "game.yaml").exists():
            try:
                yaml.safe_load((self.folder / "game.yaml").read_text())
            except yaml.YAMLError:
                out.append("notebook file cut")
        return out


def send(pattern: str, t: Try, rng: random.Random) -> int:
    """Send the pattern's signals; the number sent."""
    pid = t.proc.pid
    workers = children(pid) if t.command in ("simulate", "sweep", "reproduce") else []

    def kill(target: int, sig: int) -> None:
        try:
            os.kill(target, sig)
        except ProcessLookupError:
            pass

    def group(sig: int) -> None:
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            pass

    def gap(low: float, high: float) -> None:
        time.sleep(rng.uniform(low, high))
    if pattern == "term-group":
        group(signal.SIGTERM)
        return 1
    if pattern == "int-group":
        group(signal.SIGINT)
        return 1
    if pattern == "int-group-twice":
        group(signal.SIGINT)
        gap(0.05, 0.3)
        group(signal.SIGINT)
        return 2
    if pattern == "forwarded":
        kill(pid, signal.SIGTERM)
        for w in workers:
            gap(0.001, 0.01)
            kill(w, signal.SIGTERM)
        gap(0.001, 0.01)
        kill(pid, signal.SIGTERM)
        return 2 + len(workers)
    if pattern == "worker-term":
        kill(workers[0] if workers else pid, signal.SIGTERM)
        return 1
    n = rng.randint(2, 5)
    for i in range(n):
        sig = rng.choice((signal.SIGINT, signal.SIGTERM))
        where = rng.choice(("parent", "worker", "group"))
        t.sent.append(f"{signal.Signals(sig).name} to {where}")
        if where == "group":
            group(sig)
        elif where == "worker" and workers:
            kill(rng.choice(workers), sig)
        else:
            kill(pid, sig)
        if i < n - 1:
            gap(0.0, 0.3)
    return n


def one(command: str, pattern: str, index: int, spread: float, hang: float) -> dict:
    rng = random.Random(f"{command}:{pattern}:{index}")
    with tempfile.TemporaryDirectory(prefix="stop-") as tmp:
        t = Try(command, Path(tmp), index)
        try:
            deadline = time.monotonic() + 300
            while not t.running():
                if t.proc.poll() is not None or time.monotonic() > deadline:
                    return {"code": "no start", "after": None, "hang": False, "orphans": 0,
                            "problems": ["did not start: " + t.err_path.read_text()[-300:]]}
                time.sleep(0.05)
            time.sleep(rng.uniform(0, spread))
            tree = children(t.proc.pid)
            first = time.monotonic()
            send(pattern, t, rng)
            last = time.monotonic()
            hung = False
            try:
                t.proc.wait(timeout=hang + (last - first))
            except subprocess.TimeoutExpired:
                hung = True
            ended = time.monotonic()
            if hung:
                try:
                    os.killpg(t.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                t.proc.wait()
            time.sleep(0.5)
            orphans = sum(1 for c in tree if alive(c))
            for c in tree:
                try:
                    os.kill(c, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if VERBOSE and (hung or t.proc.returncode not in (130, 143)):
                print(f"  {command} {pattern} try {index}: {'hang' if hung else t.proc.returncode} after "
                      f"{', '.join(t.sent) or pattern}; stderr ends {t.err_path.read_text()[-400:]!r}", flush=True)
            return {"code": "hang" if hung else t.proc.returncode, "after": ended - first, "hang": hung,
                    "orphans": orphans, "problems": t.problems()}
        finally:
            if t.proc.poll() is None:
                try:
                    os.killpg(t.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                t.proc.wait()
            if t.server is not None:
                try:
                    t.server.close()
                except Exception:
                    pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tries", type=int, default=5)
    ap.add_argument("--commands", nargs="+", default=list(COMMANDS), choices=COMMANDS)
    ap.add_argument("--patterns", nargs="+", default=list(PATTERNS), choices=PATTERNS)
    ap.add_argument("--jobs", type=int, default=1, help="tries run at once (default 1)")
    ap.add_argument("--spread", type=float, default=1.0, help="most seconds waited after the start (default 1)")
    ap.add_argument("--hang", type=float, default=15.0, help="seconds after the last signal that make a hang")
    ap.add_argument("--verbose", action="store_true", help="say what each odd try got and printed")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose clue_expert runs (default: this one)")
    a = ap.parse_args()
    global CODE, VERBOSE
    CODE, VERBOSE = a.root.resolve(), a.verbose
    print(f"| command | pattern | tries | hangs | slow (> {BOUND:g} s) | exit codes | slowest exit | orphans | problems |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for command in a.commands:
        for pattern in a.patterns:
            with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
                runs = list(pool.map(lambda i, c=command, p=pattern: one(c, p, i, a.spread, a.hang), range(a.tries)))
            codes = collections.Counter(str(r["code"]) for r in runs)
            afters = [r["after"] for r in runs if r["after"] is not None]
            problems = collections.Counter(p for r in runs for p in r["problems"])
            print(f"| {command} | {pattern} | {len(runs)} | {sum(r['hang'] for r in runs)} "
                  f"| {sum(1 for x in afters if x > BOUND)} "
                  f"| {', '.join(f'{c}: {n}' for c, n in sorted(codes.items()))} "
                  f"| {max(afters):.2f} s | {sum(r['orphans'] for r in runs)} "
                  f"| {'; '.join(f'{p} ({n})' for p, n in problems.items()) or '-'} |"
                  if afters else f"| {command} | {pattern} | {len(runs)} | - | - | {dict(codes)} | - | - "
                  f"| {'; '.join(problems)} |", flush=True)


if __name__ == "__main__":
    main()
