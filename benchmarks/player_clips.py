"""A whole player in stock CLIPS against clue-expert, at every turn of
held-out random records: for each strategy with a plain CLIPS form
(Kingston's five at knowledge level kingston, Mitchell's basic player at
level mitchell with choice=first), the program ``rules --export clips kb.clp
--knowledge LEVEL --strategy S`` writes is run in a bare clipspy environment
-- ``(reset) (load-facts facts.clp) (run)``, the facts as ``deduce --turn N
--export-facts`` writes them -- and its one ``(suggestion (cards ...))`` is
compared with the suggestion the seat's rules make after turn N (what
``deduce --turn N --strategy S --json`` reports).

    python benchmarks/player_clips.py [--records 20] [--turns 30] [--seed 2026] [--strategy S ...]

Prints one line per strategy and size (records, turns compared, mismatches)
and the first mismatches; exits 1 if there is any.  The records are
``random_records(seed + players, records, players, n_turns=turns)``, seeds
the tests (tests/test_player_clips.py) do not use.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import clips

from clue_expert.core.facts import KINDS
from clue_expert.engine.engines.base import EngineFact
from clue_expert.engine.engines.clp import atom, export_facts, input_facts
from clue_expert.engine.engines.player_clp import export_player
from clue_expert.engine.seat.knowledge import GIVEN, Knowledge
from clue_expert.engine.seat.levels import get_level
from clue_expert.engine.language.rules import all_rules
from clue_expert.play.players import load_decisions
from clue_expert.testing.randomgame import random_records

PLAYERS = {"kingston-no-intelligence": "kingston", "kingston-deduction": "kingston",
           "kingston-next-possible": "kingston", "kingston-previous-possible": "kingston",
           "kingston-next-not-held": "kingston", "mitchell-basic": "mitchell", "mitchell-advanced": "mitchell"}


def facts_text(k: Knowledge, turn: int) -> str:
    """The facts ``deduce --turn TURN --export-facts`` writes (people/cli/deduce.py ``_write_facts``)."""
    given = [EngineFact(key[0], tuple((f, k.values[key][f]) for f in KINDS[key[0]]))
             for key, j in k.justifications.items() if j.rule == GIVEN]
    facts = input_facts(k.rule_engine.facts(), k.rules, given)
    facts.append(EngineFact("your-turn", (("turn", turn + 1), ("round", turn // len(k.players) + 1))))
    return export_facts(facts) + f"(categories {atom(k.edition.categories)})\n"


def seat_suggestion(k: Knowledge, turn: int) -> list:
    """The suggestion the seat's strategy rules make, choice first (people/cli/deduce.py ``_suggestion``)."""
    cands = [c for c in k.request("your-turn", {"turn": turn + 1, "round": turn // len(k.players) + 1})
             if c.kind == "suggest"]
    return [o[0] for o in cands[0].options] if cands else []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=20)
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--players", type=int, action="append", help="sizes (default 3-6)")
    ap.add_argument("--strategy", action="append", help=f"default: {', '.join(PLAYERS)}")
    args = ap.parse_args()
    bad_total = 0
    tmp = Path(tempfile.mkdtemp())
    for strategy in args.strategy or PLAYERS:
        level = get_level(PLAYERS[strategy])
        ruleset = load_decisions("strategy", strategy)
        kb = tmp / f"{strategy}.clp"
        kb.write_text(export_player(all_rules(level.rulesets()), ruleset, strategy), encoding="utf-8")
        env = clips.Environment()
        env.load(str(kb))
        for players in args.players or (3, 4, 5, 6):
            compared = bad = 0
            for n, record in enumerate(random_records(args.seed + players, args.records, players,
                                                      n_turns=args.turns)):
                k = Knowledge(record.edition, record.players, record.me, record.hand_sizes,
                              complete=level.completion, rulesets=[*level.rulesets(), ruleset])
                observations = list(record.observations())
                for turn in range(0, len(record.turns) + 1):
                    for t, obs in observations:
                        if t == turn:
                            k.observe(obs, t)
                    facts = tmp / "facts.clp"
                    facts.write_text(facts_text(k, turn), encoding="utf-8")
                    want = seat_suggestion(k, turn)
                    env.reset()
                    env.load_facts(str(facts))
                    env.run()
                    got = [[str(c) for c in f["cards"]] for f in env.facts() if f.template.name == "suggestion"]
                    compared += 1
                    if got != [want]:
                        bad += 1
                        if bad <= 3:
                            print(f"  mismatch: {strategy} {players} players record {n} turn {turn}: "
                                  f"clue-expert {want}, CLIPS {got}")
            print(f"{strategy:28} {players} players: {args.records} records, {compared} turns compared, "
                  f"{bad} mismatches", flush=True)
            bad_total += bad
    return 1 if bad_total else 0


if __name__ == "__main__":
    sys.exit(main())
