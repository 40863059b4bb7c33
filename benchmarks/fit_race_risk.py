"""Fit the measured race risk of ``clue-expert-hazard-race`` (issue 26).

    python benchmarks/fit_race_risk.py FILE [FILE ...]

Each FILE is written by ``benchmarks/calibration.py --dump FILE``: one JSON
line per accusation offer.  Kept: the offers before certainty where the
seat waited, with whether an opponent won before the seat's next turn.
The model, for ``near``, a base hazard ``b`` and a per-round step ``s``::

    hazard = b + s * max(0, the seat's suggestions so far - 1)     per opponent still in
    risk   = 1 - (1 - race_risk(near)) * max(0, 1 - hazard * opponents still in)

(``race_risk(near)`` recomputed from the opponents' shadow counts the dump
holds, as the library computes it.)  Prints the grid's best by log-loss,
then per table size the mean stated risk against how often it came true,
for the best model and for ``race_risk(0.5)``.
"""
from __future__ import annotations

import argparse
import json
import math

from clue_expert.engine.library import hazard_risk, shadow_accuse_chance

NEARS = (0.5, 1, 2, 3, 4, 5, 6, 8, 10)
BASES = (0.0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05)
STEPS = (0.0, 0.01, 0.02, 0.03, 0.05)


def race_risk(shadows: list, near: float) -> float:
    """The library's race_risk(near) from the opponents' shadow counts."""
    stay = 1.0
    for n in shadows:
        stay *= 1.0 - shadow_accuse_chance(n, near)
    return 1.0 - stay


def risk(row: dict, near: float, base: float, step: float) -> float:
    """The model's risk at one offer (the library's measured_race_risk from the dump's parts)."""
    return hazard_risk(race_risk(row["shadows"], near), row["asked"], len(row["shadows"]), base, step)


def log_loss(rows: list, stated: list) -> float:
    """Mean negative log-likelihood of the outcomes."""
    total = 0.0
    for row, p in zip(rows, stated):
        p = min(max(p, 1e-4), 1 - 1e-4)
        total -= math.log(p) if row["lost_before_next"] else math.log(1 - p)
    return total / len(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", metavar="FILE")
    a = ap.parse_args()
    rows = []
    for name in a.files:
        with open(name) as f:
            rows += [r for r in map(json.loads, f) if not r["solved"] and r["accused"] is None]
    if not rows:
        raise SystemExit("no offer where the seat waited before certainty in the files")
    best = min(((log_loss(rows, [risk(r, n, b, s) for r in rows]), n, b, s)
                for n in NEARS for b in BASES for s in STEPS))
    loss, near, base, step = best
    print(f"{len(rows)} offers where the seat waited; best: near {near}, base {base}, step {step} "
          f"(log-loss {loss:.4f}; race_risk(0.5): {log_loss(rows, [race_risk(r['shadows'], 0.5) for r in rows]):.4f})")
    print("| players | offers | came true | model: mean stated | race_risk(0.5): mean stated |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for n in sorted({r["players"] for r in rows}):
        sub = [r for r in rows if r["players"] == n]
        true = sum(r["lost_before_next"] for r in sub) / len(sub)
        model = sum(risk(r, near, base, step) for r in sub) / len(sub)
        old = sum(race_risk(r["shadows"], 0.5) for r in sub) / len(sub)
        print(f"| {n} | {len(sub)} | {true:.3f} | {model:.3f} | {old:.3f} |")


if __name__ == "__main__":
    main()
