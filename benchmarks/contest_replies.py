"""The contest agent's reply times with its default seat per table size
(issue 17): the agent (no --strategy) against the fake contest server and
``mitchell-advanced`` opponents, the agent at seat g mod n of game g, deals
``random_deal(EDITION, names, random.Random(100 + g))``.

    python benchmarks/contest_replies.py [--players 3 4 5 6] [--games 8]

Prints, per table size, the seat played and the median / max time from
sending a message to reading its reply, for ``suggest`` and for all
messages (``suggest`` replies include the agent's 50 ms ``quiet`` wait),
and the margin of the slowest reply to the 5 s decision budget and to the
server's 10 s limit.  Wall time: run it on an otherwise idle machine.

    python benchmarks/contest_replies.py --long 3000 [--players 6] [--seed 1]

A game of ``--long`` messages, driven message by message through
:meth:`ContestAgent.handle` (no socket, no server: the agent alone is
timed, in CPU time): the other seats suggest random triples, disproved as
the deal says (the agent asked to disprove when it holds a card), the
agent suggests and is asked to accuse every round, and its accusations are
not acted on, so the game goes on as long as asked (what a server whose
other seats never accuse sends).  Prints the mean and max CPU time of the
first 100 and of the last 100 replies, and their ratio (issue 39: the work
per message stays flat, within 1.5x, over a game of any length).
"""
from __future__ import annotations

import argparse
import io
import random
import statistics
import threading
import time

from clue_expert.core.deals import random_deal
from clue_expert.core.cards import CLASSIC_CATEGORIES
from clue_expert.play.contest import CODE, DECISION_BUDGET, EDITION, SERVER_REPLY_LIMIT, ContestAgent, codes
from clue_expert.play.players import RuleBasedPlayer
from clue_expert.testing.contest_server import FakeContestServer


def measure(n: int, games: int) -> None:
    server = FakeContestServer(timeout=SERVER_REPLY_LIMIT)
    port = server.start()
    agent = ContestAgent("bench", log=io.StringIO())
    threading.Thread(target=agent.run, args=(port,), daemon=True).start()
    server.accept("bench")
    try:
        for g in range(games):
            names = tuple(f"p{i}" for i in range(n))
            deal = random_deal(EDITION, names, random.Random(100 + g))
            seat = g % n
            opponents = {p: RuleBasedPlayer(p, "mitchell-advanced", seed=g * 10 + i)
                         for i, p in enumerate(names) if i != seat}
            server.play_game(deal, seat, opponents)
        server.ask("done")
    finally:
        server.close()
    sug = [t for verb, t in server.reply_times if verb == "suggest"]
    every = [t for _, t in server.reply_times]
    worst = max(every)
    print(f"| {n} | `{agent.seat_spec}` | {games} | {1000 * statistics.median(sug):.0f} ms / {1000 * max(sug):.0f} ms "
          f"| {1000 * statistics.median(every):.0f} ms / {1000 * worst:.0f} ms "
          f"| {DECISION_BUDGET - worst:.1f} s / {SERVER_REPLY_LIMIT - worst:.1f} s |")


def long_game(n: int, messages: int, seed: int) -> list[float]:
    """CPU seconds of each of the agent's replies over a game of ``messages`` messages (see the module's docstring)."""
    rng = random.Random(seed)
    names = tuple(f"p{i}" for i in range(n))
    deal = random_deal(EDITION, names, random.Random(seed))
    me = 0
    agent = ContestAgent("bench", log=None, records=None, quiet=0.0)
    times: list[float] = []

    def ask(message: str) -> str:
        start = time.process_time()
        reply = agent.handle(message)
        times.append(time.process_time() - start)
        return reply
    ask(f"reset {n} {me} {codes(deal.hands[names[me]])}")
    cats = [EDITION.category_cards(c) for c in CLASSIC_CATEGORIES]
    turn = 0
    while len(times) < messages:
        i = turn % n
        _by = names[i]
        if i == me:
            reply = ask("suggest")
            cards = _cards(reply)
        else:
            cards = tuple(rng.choice(c) for c in cats)
        shower, card = None, None
        for j in range(1, n):
            other = names[(i + j) % n]
            held = [c for c in cards if c in deal.hands[other]]
            if held:
                shower = other
                if other == names[me]:
                    card = _cards(ask(f"disprove {i} {codes(cards)}"))[0]
                else:
                    card = rng.choice(held) if i == me else None
                break
        message = f"suggestion {i} {codes(cards)} " + ("-" if shower is None else str(names.index(shower)))
        if card is not None:
            message += f" {CODE[card]}"
        ask(message)
        if i == me:
            ask("accuse")  # answered, not acted on: the game goes on
        turn += 1
    return times[:messages]


_FROM = {code.lower(): card for card, code in CODE.items()}


def _cards(reply: str) -> tuple:
    return tuple(_FROM[w.lower()] for w in reply.split()[1:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--long", type=int, default=0, metavar="MESSAGES", help="one game of this many messages")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.long:
        for n in a.players if a.players != [3, 4, 5, 6] else [6]:
            t = long_game(n, a.long, a.seed)
            first, last = t[:100], t[-100:]
            ratio = statistics.mean(last) / statistics.mean(first)
            print(f"{n} players, {len(t)} messages: first 100 replies mean {1000 * statistics.mean(first):.2f} ms "
                  f"(max {1000 * max(first):.1f}), last 100 mean {1000 * statistics.mean(last):.2f} ms "
                  f"(max {1000 * max(last):.1f}); last / first {ratio:.2f}")
        return
    print("| players | seat | games | `suggest` replies: median / max | all replies: median / max "
          "| margin to the budget / to the server's limit |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in a.players:
        measure(n, a.games)


if __name__ == "__main__":
    main()
