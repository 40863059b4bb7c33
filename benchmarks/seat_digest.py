"""Digests of a seat's knowledge after every observation of seeded random
records: the sheet, the contradiction if any, and every fact's justification
(rule, message, premises, step, turn), with every seventh fact explained
(premises minimised).  Two commits that print the same lines keep sheets,
contradictions and justifications identical.

    python benchmarks/seat_digest.py [--records 24] [--engine clips] > digest.txt

Records: seeds 1..N, 3-6 players in turn, 16 turns each, each replayed as the
seat and as a spectator (no hand).
"""
from __future__ import annotations

import argparse
import hashlib
import random

from clue_expert.core.errors import ContradictionError
from clue_expert.core.observations import DealtHand
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.testing.randomgame import random_record


def digests(record, me, engine: str | None):
    """One line per observation: ``turn sha1``."""
    k = Knowledge(record.edition, record.players, me, record.hand_sizes, engine=engine)
    observations = ([(0, DealtHand(me, tuple(record.hand)))] if me is not None else []) + \
        list(enumerate(record.turns, start=1))
    for turn, obs in observations:
        try:
            k.observe(obs, turn)
            error = None
        except ContradictionError as exc:
            error = str(exc)
        lines = [repr(error), repr(k.sheet().to_json())]
        lines += [repr((key, j.rule, j.message, tuple(j.premises), j.step, j.turn)) for key, j in k.justifications.items()]
        lines += [repr((key, k.justification(key).premises)) for key in list(k.justifications)[::7]]
        yield turn, hashlib.sha1("\n".join(lines).encode()).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=24)
    ap.add_argument("--engine", default=None)
    args = ap.parse_args()
    for seed in range(1, args.records + 1):
        record = random_record(random.Random(seed), n_players=3 + seed % 4, n_turns=16)
        for me in (record.me, None):
            for turn, digest in digests(record, me, args.engine):
                print(seed, me, turn, digest)


if __name__ == "__main__":
    main()
