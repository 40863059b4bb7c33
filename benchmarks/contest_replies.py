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
"""
from __future__ import annotations

import argparse
import io
import random
import statistics
import threading

from clue_expert.core.deals import random_deal
from clue_expert.play.contest import DECISION_BUDGET, EDITION, SERVER_REPLY_LIMIT, ContestAgent
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    ap.add_argument("--games", type=int, default=8)
    a = ap.parse_args()
    print("| players | seat | games | `suggest` replies: median / max | all replies: median / max "
          "| margin to the budget / to the server's limit |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in a.players:
        measure(n, a.games)


if __name__ == "__main__":
    main()
