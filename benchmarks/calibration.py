"""Are the accusation's stated chances right?  (issue 26)

    python benchmarks/calibration.py [--players 6] [--games 60] [--workers 2] [--seed 301]
                                     [--field mixed|outside] [--candidate SPEC]
                                     [--risk EXPR | --risk-of FILE] [--dump FILE]

Plays the candidate (the size's default seat unless ``--candidate``) against
the field of ``benchmarks/strongest.py --field mixed`` (or the outside mix),
the same seeded deals, opponents and seat order as there, and at every
accusation offer to the candidate records what the accusation rules read:

* the likeliest envelope and its probability by the sheet's exact beliefs,
  by the beliefs that take the probable clues as facts (``'clues'``) and by
  the weighted beliefs (``'weighted'``);
* the race risk, ``race_risk(0.5)``: the model's chance that an opponent
  names the envelope before the seat's next turn;
* whether the seat accused, and with what;
* with ``--risk EXPR`` (a rule-language expression, e.g.
  ``race_risk(0.5)``) or ``--risk-of FILE`` (an accusation file's ``risk``
  binding, e.g. ``rules/accusations/clue-expert-hazard-race.yaml``) that
  expression's value too, evaluated on the seat's knowledge as its rules
  would (with ``turn`` bound).

``--dump FILE`` writes every offer as a JSON line (the figures above, the
seat's suggestions so far, the opponents still in and their shadows'
envelope counts, the outcome) for fitting a model.

After each game it checks them against the deal: whether each likeliest
envelope was the envelope, and whether an opponent did win before the
seat's next turn (the game ended with another winner and the seat had no
later offer).  Prints, bucketed by stated probability, how many offers fell
in the bucket, the mean stated figure and how often it came true, for every
source; then the same for the accusations the seat made.  A calibrated
figure comes true about as often as it says.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from strongest import FIELD, OUTSIDE, _SEATS, _jobs  # noqa: E402

from clue_expert.core.cards import get_edition  # noqa: E402
from clue_expert.core.deals import random_deal  # noqa: E402
import json  # noqa: E402

import yaml  # noqa: E402

from clue_expert.engine.language.expr import Budget, compile_expression  # noqa: E402
from clue_expert.engine.library import FUNCTIONS  # noqa: E402
from clue_expert.play.game import play_game  # noqa: E402
from clue_expert.play.players import parse_seat, seat_player  # noqa: E402
from clue_expert.play.seats import default_seat, seat_spec  # noqa: E402
from clue_expert.play.simulate import hash_seed, wilson  # noqa: E402
from pool import run_jobs  # noqa: E402

SOURCES = ("sheet", "clues", "weighted")
BUCKETS = (0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0 - 1e-9, 1.0)


#: The names a rule reads besides the library (the knowledge's base bindings, and the offer's ``turn``).
NAMES = {"turn", "ME", "PLAYERS", "OWNERS", "ENVELOPE", "CARDS", "CATEGORIES"}


def risk_expression(source: str):
    """The compiled rule-language expression ``source``."""
    return compile_expression(source, NAMES, FUNCTIONS)


def risk_of(path: str) -> str:
    """The ``risk`` binding of the accusation file's rule that guesses (the first rule binding ``risk``)."""
    data = yaml.safe_load(Path(path).read_text())
    for rule in data.get("rules", []):
        if "risk" in (rule.get("let") or {}):
            return rule["let"]["risk"]
    raise SystemExit(f"{path}: no rule binds `risk`")


def evaluate(expression, k, turn: int):
    """``expression`` on the knowledge ``k`` as a rule of the seat reads it at an accusation offer."""
    env = dict(k._runner.base_env)  # the bindings every firing starts from (ME, PLAYERS, ...)
    env.update({"__lib__": k, "__budget__": Budget(), "turn": turn})
    return expression(env)


def play_one(job: tuple) -> list:
    """One game; returns a row per accusation offer to the candidate."""
    index, seed, players, seats, cand, risk = job
    expression = risk_expression(risk) if risk else None
    names = tuple(f"player{i + 1}" for i in range(players))
    deal = random_deal(get_edition("cluedo"), names, random.Random(f"{seed}:deal:{index}"))
    gseed = hash_seed(seed, index)
    seated = {}
    for i, (p, spec) in enumerate(zip(names, seats)):
        player = _SEATS.get((p, spec))
        if player is None:
            player = _SEATS[(p, spec)] = seat_player(p, spec)
        player.rng.seed(gseed * 10 + i)
        seated[p] = player
    me = names[cand]
    player = seated[me]
    rows: list = []
    accuse = player.accuse

    def recording(turn, _accuse=accuse):
        out = _accuse(turn)  # catches up on the events first
        k = player.knowledge
        row = {"turn": turn, "accused": None if out is None else tuple(out),
               "risk": FUNCTIONS["race_risk"](k, 0.5), "solved": k.solved(),
               "asked": FUNCTIONS["ask_total"](k, me),
               "shadows": [FUNCTIONS["shadow_envelopes"](k, p) for p in FUNCTIONS["opponents_in"](k)],
               "own": FUNCTIONS["shadow_envelopes"](k, me)}
        if expression is not None:
            row["new_risk"] = float(evaluate(expression, k, turn))
        for s in SOURCES:
            row[s] = (FUNCTIONS["envelope_top_probability"](k, s), tuple(FUNCTIONS["envelope_top"](k, s)))
        rows.append(row)
        return out
    player.accuse = recording
    try:
        result = play_game(deal, seated)
    finally:
        player.__dict__.pop("accuse", None)
    env = set(deal.envelope)
    for i, row in enumerate(rows):
        last = i == len(rows) - 1
        row["lost_before_next"] = last and result.winner is not None and result.winner != me
        for s in SOURCES:
            row[s + "_right"] = set(row[s][1]) == env
        row["accused_right"] = row["accused"] is not None and set(row["accused"]) == env
        row["players"] = players
    return rows


def _run(jobs: list, workers: int) -> list:
    return run_jobs(play_one, jobs, workers)


def _bucket(p: float) -> int:
    for i in range(len(BUCKETS) - 1):
        if p < BUCKETS[i + 1]:
            return i
    return len(BUCKETS) - 2


def _label(i: int) -> str:
    lo, hi = BUCKETS[i], BUCKETS[i + 1]
    return "1 (certain)" if lo >= 1.0 - 1e-9 else f"{lo:.2f}–{min(hi, 1.0):.2f}"


def report(title: str, pairs: list) -> None:
    """``pairs``: (stated probability, came true) -> a bucketed table."""
    print(f"\n{title}")
    print("| stated | offers | mean stated | came true | 95 % interval |")
    print("| --- | ---: | ---: | ---: | --- |")
    groups: dict = {}
    for p, ok in pairs:
        groups.setdefault(_bucket(p), []).append((p, ok))
    for i in sorted(groups):
        xs = groups[i]
        n, t = len(xs), sum(ok for _, ok in xs)
        lo, hi = wilson(t, n)
        print(f"| {_label(i)} | {n} | {sum(p for p, _ in xs) / n:.3f} | {t / n:.1%} | {lo:.1%}–{hi:.1%} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=301)
    ap.add_argument("--field", choices=["mixed", "outside"], default="mixed")
    ap.add_argument("--candidate", default=None, metavar="SPEC")
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--risk", default=None, metavar="EXPR",
                     help="a rule-language race risk to check beside race_risk(0.5)")
    how.add_argument("--risk-of", default=None, metavar="FILE",
                     help="check the `risk` binding of this accusation file")
    ap.add_argument("--dump", default=None, metavar="FILE", help="write every offer as a JSON line")
    a = ap.parse_args()
    risk = risk_of(a.risk_of) if a.risk_of else a.risk
    if risk:
        risk_expression(risk)  # a bad expression: one clear error before any game
    cand = a.candidate or default_seat(a.players)
    ours = [s for s in FIELD if seat_spec(parse_seat(s)) != seat_spec(parse_seat(cand))]
    pool = list(OUTSIDE.values()) + (ours if a.field == "mixed" else [])
    t = time.perf_counter()
    jobs = _jobs(a.players, a.games, a.seed, cand, lambda rng: [rng.choice(pool) for _ in range(a.players - 1)])
    games = _run([(*job, risk) for job in jobs], a.workers)
    rows = [r for g in games for r in g]
    print(f"{a.players} players, {a.games} games, seed {a.seed}, field {a.field}: `{cand}` "
          f"({len(rows)} accusation offers; {time.perf_counter() - t:.0f} s on {a.workers} worker(s))")
    for s in SOURCES:
        report(f"likeliest envelope by the {s} beliefs, at every offer: is it the envelope?",
               [(r[s][0], r[s + "_right"]) for r in rows if not r["solved"]])
    waited = [r for r in rows if not r["solved"] and r["accused"] is None]
    report("race_risk(0.5) at every offer before certainty where the seat waited: did an opponent win before "
           "the seat's next turn?", [(r["risk"], r["lost_before_next"]) for r in waited])
    if risk:
        label = f"the `risk` of {a.risk_of}" if a.risk_of else f"`{risk}`"
        report(f"{label} at the same offers: did an opponent win before the seat's next turn?",
               [(r["new_risk"], r["lost_before_next"]) for r in waited])
    if waited:
        for name, key in (("race_risk(0.5)", "risk"), ("the --risk expression" if a.risk else "the `risk` of --risk-of", "new_risk")):
            if key in waited[0]:
                brier = sum((r[key] - r["lost_before_next"]) ** 2 for r in waited) / len(waited)
                print(f"\n{name}: mean stated {sum(r[key] for r in waited) / len(waited):.3f}, came true "
                      f"{sum(r['lost_before_next'] for r in waited) / len(waited):.3f}, Brier score {brier:.4f} "
                      f"({len(waited)} offers)")
    if a.dump:
        with open(a.dump, "w") as out:
            for r in rows:
                print(json.dumps(r, default=list), file=out)
    made = [r for r in rows if r["accused"] is not None]
    wrong = sum(not r["accused_right"] for r in made)
    print(f"\naccusations {len(made)}, at certainty {sum(r['solved'] for r in made)}, wrong {wrong}")
    for s in SOURCES:
        report(f"the guesses (accusations before certainty) by the {s} beliefs' stated probability: right?",
               [(r[s][0], r["accused_right"]) for r in made if not r["solved"]])


if __name__ == "__main__":
    main()
