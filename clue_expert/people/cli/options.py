"""Options several commands share, each added to a parser by one function."""
from __future__ import annotations

from ...engine import DEFAULT_LEVEL, available_levels
from ...play.game import GAMES
from ...play.players import (DEFAULT_ACCUSATION, DEFAULT_MOVE, DEFAULT_RESPONSE)



def knowledge(p):
    p.add_argument("--knowledge", default=DEFAULT_LEVEL, metavar="LEVEL",
                   help=f"the seat's knowledge level: {', '.join(available_levels())} "
                        f"(default {DEFAULT_LEVEL}) or a level file")


def extra_rules(p):
    p.add_argument("--model", action="append", metavar="ID|FILE",
                   help="also run this opponent model, listing and explaining its probable clues (repeatable)")
    p.add_argument("--rules", action="append", metavar="FILE",
                   help="also run this deduction or model rule file of yours, traced like the shipped rules "
                        "(repeatable)")


def seat_rules(p):
    p.add_argument("--rules", action="append", metavar="FILE",
                   help="also run this deduction or model rule file of yours in every rule-based seat, "
                        "traced like the shipped rules (repeatable; per seat: SEAT:rules=FILE)")


def seat_defaults(p):
    p.add_argument("--response", metavar="ID|FILE",
                   help=f"response rules of every seat that names none (default {DEFAULT_RESPONSE}; "
                        "replaces the default seat's own)")
    p.add_argument("--accusation", metavar="ID|FILE",
                   help=f"accusation rules of every seat that names none (default {DEFAULT_ACCUSATION}; "
                        "replaces the default seat's own)")


def colour(p):
    p.add_argument("--color", action="store_true", help="force colour")
    p.add_argument("--no-color", action="store_true", help="no colour")


def quiet(p):
    p.add_argument("--quiet", action="store_true",
                   help="no progress lines on standard error (they never go to standard output)")


def board_option(p):
    p.add_argument("--board", metavar="ID|FILE",
                   help="play the board game on this board (classic, or a board file): pawns, a die, rooms "
                        "entered by doors and passages, 3-6 players; seats move by their :move=ID rules "
                        f"(default {DEFAULT_MOVE}); docs/board.md")


def common(p):
    p.add_argument("--json", action="store_true", help="machine-readable output")
    colour(p)


def game_options(p):
    p.add_argument("--game", choices=list(GAMES), default="speed-clue",
                   help="speed-clue (default) or generalized: one chosen player is asked about any list of "
                        "cards, a wrong guesser is out and his hand laid open (docs/generalized.md)")
    p.add_argument("--hand", type=int, metavar="C",
                   help="the generalized game: cards per player (default 3); the pool has players x C + K cards")
    p.add_argument("--hidden", type=int, metavar="K", help="the generalized game: hidden cards (default 2)")


def workers_and_cluster(p):
    p.add_argument("--workers", type=int, default=0,
                   help="processes (default 0: one per core); with --cluster local, the local cluster's workers")
    p.add_argument("--cluster", metavar="ADDRESS|local",
                   help="play the games on a Dask cluster: a scheduler's address (tcp://HOST:8786) or 'local' "
                        "(one started on this machine); needs pip install \"clue-expert[cluster]\" "
                        "(docs/cluster.md)")
