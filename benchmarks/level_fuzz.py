"""Knowledge levels on random editions: false facts, contradictions and
premise errors per level (counts, not timings).

    python benchmarks/level_fuzz.py [--records 400] [--seed 0] [--level LEVEL ...]

Each record is a seeded random game (clue_expert/testing/randomgame.py) of a
random edition (1-4 categories of 1-5 cards, 0-2 envelope cards each), 2-10
players, half Speed Clue and half generalized (interrogations of one player,
wrong guesses that lay a hand open), seen from a random seat, with its true
deal.  Every level (default: every shipped one and
tests/data/levels/rules-only.yaml) replays it with premises checked (``--plain``: as
``deduce`` runs, only that cited premises are known facts), and the
script counts, per level and game, the records on which it reached a
contradiction (none is possible: the record is played from its deal), raised
another error (e.g. a premise that is not a known fact), or knew a false fact
(a cell the deal contradicts).  The pytest version, built from drawn parts so
failures shrink, is tests/test_level_oracle.py.
"""
from __future__ import annotations

import argparse
import collections
import random
from pathlib import Path

from clue_expert.core.errors import ClueError, ContradictionError
from clue_expert.engine.seat.knowledge import replay_record
from clue_expert.engine.seat.levels import available_levels, get_level
from clue_expert.testing.randomgame import _seat_record, random_edition, random_generalized_turns, random_record

RULES_ONLY = str(Path(__file__).resolve().parent.parent / "tests" / "data" / "levels" / "rules-only.yaml")


def record_for(seed: int):
    """The seeded random record number ``seed``: (game, record)."""
    rng = random.Random(seed)
    players = rng.randint(2, 10)
    edition = random_edition(rng, categories=(1, 4), cards=(1, 5), envelope=(0, 2), min_dealt=players)
    turns = rng.randint(0, 25)
    if rng.random() < 0.5:
        return "speed-clue", random_record(rng, players, n_turns=turns, edition=edition, accuse_rate=0.1)
    return "generalized", _seat_record(rng, players, edition, None, "generalized",
                                       lambda deal: random_generalized_turns(deal, rng, turns, 0.1))


def outcome(record, level, check_premises: bool = True) -> str:
    """'ok', 'contradiction', 'error' or 'false fact' for one level on one record."""
    try:
        k = replay_record(record, rulesets=level.rulesets(), complete=level.completion,
                          check_premises=check_premises)
    except ContradictionError:
        return "contradiction"
    except ClueError:
        return "error"
    for o in k.owners:
        for c in k.cards:
            s = k.status(o, c)
            if s != "unknown" and (record.deal.owner_of(c) == o) != (s == "held"):
                return "false fact"
    return "ok"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", action="append", help="a level id or file (repeatable; default: all)")
    parser.add_argument("--plain", action="store_true",
                        help="do not check that because: premises entail each conclusion (as plain deduce runs)")
    args = parser.parse_args()
    levels = [get_level(x) for x in (args.level or [*available_levels(), RULES_ONLY])]
    counts: dict = collections.defaultdict(collections.Counter)
    first: dict = {}
    games = collections.Counter()
    for seed in range(args.seed, args.seed + args.records):
        game, record = record_for(seed)
        games[game] += 1
        for level in levels:
            got = outcome(record, level, not args.plain)
            counts[(level.id, game)][got] += 1
            if got != "ok":
                first.setdefault((level.id, got), seed)
    print(f"{args.records} records (seeds {args.seed}..{args.seed + args.records - 1}): "
          + ", ".join(f"{n} {g}" for g, n in sorted(games.items())))
    print(f"{'level':<12} {'game':<12} {'ok':>5} {'false fact':>10} {'contradiction':>13} {'error':>5}")
    for (lid, game), c in sorted(counts.items()):
        print(f"{lid:<12} {game:<12} {c['ok']:>5} {c['false fact']:>10} {c['contradiction']:>13} {c['error']:>5}")
    for (lid, got), seed in sorted(first.items()):
        print(f"first {got} at {lid}: seed {seed}")


if __name__ == "__main__":
    main()
