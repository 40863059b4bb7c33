"""Digests of whole games as the game drivers play them: per game, one of
every event and every seat's decisions, and one of every seat's
justifications at the end (rule, message, premises, step, turn; the
completion step not run again).  Two commits that print the same first
digests play the same games; the second also shows whether the seats
recorded the same facts the same way.

    python benchmarks/game_digest.py [--games 100] [--players 3 --players 4 ...] [--strategy S ...]

The games are ``benchmarks/games.py``'s (seed 1, its three strategies,
every seat on clips), seats kept from game to game as ``simulate`` keeps
them.  Prints ``players game decisions-digest justifications-digest``.
"""
from __future__ import annotations

import argparse
import hashlib

from games import on_engine
from clue_expert.play.game import play_game
from clue_expert.play.players import seat_player
from clue_expert.play.simulate import make_specs

STRATEGIES = ("clue-expert-focused", "kingston-next-not-held", "mitchell-advanced")


def _digest(lines: list[str]) -> str:
    return hashlib.sha1("\n".join(lines).encode()).hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", type=int, action="append", help="player counts (default 3-6)")
    ap.add_argument("--strategy", action="append", help=f"strategies in rotation (default {', '.join(STRATEGIES)})")
    args = ap.parse_args()
    seats: dict = {}
    for n in args.players or (3, 4, 5, 6):
        specs = make_specs(players=n, games=args.games, seed=1,
                           strategies=on_engine(args.strategy or STRATEGIES, "clips"))
        for spec in specs:
            names = spec.deal.players
            players = {}
            for i, (p, strategy) in enumerate(zip(names, spec.strategies)):
                player = seats.get((n, p, strategy))
                if player is None:
                    player = seats[(n, p, strategy)] = seat_player(p, strategy, spec.response, spec.accusation)
                player.rng.seed(spec.seed * 10 + i)
                players[p] = player
            result = play_game(spec.deal, players, max_rounds=spec.max_rounds, game=spec.game)
            played = [repr(e) for e in result.events] + [repr((result.winner, result.win_round))]
            played += [repr((t, c.kind, c.options, c.priority, c.rule, c.message))
                       for p in names for t, c in players[p].decisions]
            recorded = [repr((key, j.rule, j.message, tuple(j.premises), j.step, j.turn))
                        for p in names for key, j in players[p]._knowledge.justifications.items()]
            print(n, spec.index, _digest(played), _digest(recorded))


if __name__ == "__main__":
    main()
