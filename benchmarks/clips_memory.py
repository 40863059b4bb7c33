"""Does clipspy still leak the facts its Python wrappers touch, and which way
of asserting and reading facts stays flat over a long run?

clipspy's ``Fact`` wrapper retains its CLIPS fact when created and releases it
in ``__del__`` by calling ``ReleaseFact(env, fact)``; CLIPS 6.4's
``ReleaseFact`` takes one argument, the ``TypeError`` is swallowed, and every
fact a wrapper ever touched stays in CLIPS's memory (retracted or not, and
across ``reset``).  This script plays ``--games`` small games (reset, assert a
seating and some held/lacked facts, run a lacked-by-everyone-else rule, read
every fact back) in one environment per method and prints, for the first and
last tenth of the games, CLIPS's own memory (``(mem-used)``), the process's
resident memory and the time per game:

- ``wrapper``: ``assert_string`` and iterating ``env.facts()`` (Fact wrappers);
- ``eval``: ``(fact-index (assert …))`` through ``env.eval`` and reading through
  a deffunction that returns plain values (no wrapper is ever made);
- ``fresh-env``: wrappers, but a new environment for every game.

    python benchmarks/clips_memory.py [--games 200] [--facts 40]
"""
from __future__ import annotations

import argparse
import os
import random
import time

import clips  # a benchmark of the binding itself; the product imports clips only in engine/engines/clips.py

TEMPLATES = """
(deftemplate player (slot name))
(deftemplate held (slot owner) (slot card))
(deftemplate lacked (slot owner) (slot card))
(defrule held-excludes-others
  (held (owner ?p) (card ?c))
  (player (name ?q&~?p))
  (not (lacked (owner ?q) (card ?c)))
  =>
  (assert (lacked (owner ?q) (card ?c))))
(deffunction facts-of (?kind)
  (bind ?out (create$))
  (do-for-all-facts ((?f held lacked)) (eq (fact-relation ?f) ?kind)
    (bind ?out (create$ ?out (fact-index ?f) (fact-slot-value ?f owner) (fact-slot-value ?f card))))
  ?out)
"""

PLAYERS = ("ann", "bob", "cat", "dan")
CARDS = tuple(f"c{i}" for i in range(21))


def new_env() -> clips.Environment:
    """An environment holding the templates, the rule and the reader."""
    env = clips.Environment()
    for construct in split_constructs(TEMPLATES):
        env.build(construct)
    return env


def split_constructs(text: str) -> list[str]:
    """The top-level parenthesised constructs of ``text``."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                out.append(text[start:i + 1])
    return out


def game_facts(rng: random.Random, n: int) -> list[str]:
    """``n`` held facts of one small game, as CLIPS fact text."""
    facts = [f"(player (name {p}))" for p in PLAYERS]
    for _ in range(n):
        facts.append(f"(held (owner {rng.choice(PLAYERS)}) (card {rng.choice(CARDS)}))")
    return facts


def play_wrapper(env: clips.Environment, facts: list[str]) -> int:
    """Assert with assert_string, read by iterating env.facts()."""
    env.reset()
    for text in facts:
        env.assert_string(text)
    env.run()
    return sum(1 for f in env.facts() if f.template.name in ("held", "lacked") and f["owner"])


def play_eval(env: clips.Environment, facts: list[str]) -> int:
    """Assert through eval, read plain values through a deffunction."""
    env.reset()
    for text in facts:
        env.eval(f"(progn (assert {text}) TRUE)")
    env.run()
    values = list(env.eval("(facts-of held)")) + list(env.eval("(facts-of lacked)"))
    return len(values) // 3


def rss_mb() -> float:
    """Resident memory of this process in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def measure(method: str, games: int, n: int, seed: int) -> list[tuple[float, float, float]]:
    """Per game: (seconds, CLIPS mem-used MB, process RSS MB)."""
    rng = random.Random(seed)
    env = new_env()
    out = []
    for _ in range(games):
        facts = game_facts(rng, n)
        t = time.perf_counter()
        if method == "fresh-env":
            env = new_env()
            play_wrapper(env, facts)
        elif method == "wrapper":
            play_wrapper(env, facts)
        else:
            play_eval(env, facts)
        dt = time.perf_counter() - t
        out.append((dt, int(env.eval("(mem-used)")) / 1e6, rss_mb()))
    return out


def main() -> None:
    """Print the figures of every method."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--facts", type=int, default=40, help="held facts asserted per game (default 40)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    tenth = max(1, args.games // 10)
    print(f"clipspy {clips.__version__ if hasattr(clips, '__version__') else '?'}, "
          f"{args.games} games of {args.facts} held facts, one environment per method")
    print(f"{'method':<10} {'ms/game first':>14} {'ms/game last':>13} {'CLIPS MB first':>15} "
          f"{'CLIPS MB last':>14} {'RSS MB first':>13} {'RSS MB last':>12}")
    for method in ("wrapper", "eval", "fresh-env"):
        rows = measure(method, args.games, args.facts, args.seed)
        first, last = rows[:tenth], rows[-tenth:]

        def avg(rs: list, i: int, scale: float = 1.0) -> float:
            return sum(r[i] for r in rs) / len(rs) * scale
        print(f"{method:<10} {avg(first, 0, 1e3):>14.2f} {avg(last, 0, 1e3):>13.2f} {avg(first, 1):>15.2f} "
              f"{avg(last, 1):>14.2f} {avg(first, 2):>13.1f} {avg(last, 2):>12.1f}")


if __name__ == "__main__":
    main()
