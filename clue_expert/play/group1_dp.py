"""Group 1's two-player table: how many interrogations an end game needs.

The CS4444 group 1 report (2003), appendix A, models the end of a
two-player game by two counts: ``p``, the opponent's cards we are still
unsure of, and ``q``, the hidden (envelope) cards we are still unsure of.
A turn asks the opponent about ``k`` of those ``p + q`` cards:

* with chance ``alpha(p, q, k) = C(q, k) / C(p + q, k)`` every asked card
  is a hidden one, the opponent shows nothing, and ``k`` hidden cards
  become known (``q`` drops by ``k``);
* otherwise the opponent shows one of its cards (``p`` drops by one).
  When ``k > q`` some asked card must be the opponent's, so this is certain.

``Q(p, q)`` is the least expected number of such turns until everything is
known, the minimum over ``k`` of ``Q(p, q, k)``, with ``Q(0, q) = Q(p, 0) = 0``.
The report prints ``Q`` and the best ``k`` for ``p, q = 1 .. 10``; the
printed figures are data in ``clue_expert/published/group1-dp.yaml``.

The recurrence itself (exact fractions; the smallest best ``k`` of each
cell and every ``k`` that ties with it) lives in
:mod:`clue_expert.engine.reasoning.interrogation`, where rule functions use it too
(``best_ask_size``); this module compares it with the published table.
"""
from __future__ import annotations

from ..engine import SIZE, Alpha, Cell, alpha, ask_values, java_number, solve
from .reproduce import Comparison, published

__all__ = ["SIZE", "Alpha", "Cell", "alpha", "ask_values", "java_number", "solve", "published_cells", "cells",
           "tied_cells", "group1_dp", "group1_dp_tables"]

PAPER = "group1-dp"


def published_cells() -> dict:
    """The published table: ``(p, q)`` -> the printed string, e.g. ``"1.667/1"``."""
    pub = published(PAPER)
    return {(int(p), int(q)): str(text)
            for p, row in pub["rows"].items() for q, text in zip(pub["columns"], row)}


def cells(alpha_fn: Alpha = alpha) -> list[dict]:
    """The reproduction as JSON-ready cells, row by row: ``p``, ``q``,
    ``expected`` (ours, rounded to 3 decimals), ``ask``, ``ties`` (every
    tying ask size), ``published`` and ``match`` (our printed form equals it)."""
    pub = published_cells()
    ours = solve(max(p for p, _ in pub), max(q for _, q in pub), alpha_fn)
    out = []
    for (p, q), text in sorted(pub.items()):
        cell = ours[(p, q)]
        out.append({"p": p, "q": q, "expected": round(float(cell.expected), 3), "ask": cell.ask,
                    "ties": list(cell.ties), "published": text, "match": cell.printed == text})
    return out


def tied_cells(alpha_fn: Alpha = alpha) -> list[Cell]:
    """The cells of the published range where more than one ask size is best."""
    pub = published_cells()
    ours = solve(max(p for p, _ in pub), max(q for _, q in pub), alpha_fn)
    return [ours[key] for key in sorted(pub) if len(ours[key].ties) > 1]


def group1_dp(alpha_fn: Alpha = alpha) -> Comparison:
    """The published table beside ours: rows ``p``, columns ``q``, every cell
    ``expected/ask`` as published and as we compute it."""
    pub = published(PAPER)
    columns = [int(q) for q in pub["columns"]]
    ours = solve(max(int(p) for p in pub["rows"]), max(columns), alpha_fn)
    table = Comparison("Group 1 (CS4444, 2003), appendix A: expected interrogations / cards to ask next, "
                       "two players", [f"q={q}" for q in columns])
    matched = total = 0
    for p, row in pub["rows"].items():
        row_cells = []
        for q, text in zip(columns, row):
            mine = ours[(int(p), q)].printed
            matched += mine == str(text)
            total += 1
            row_cells.append((str(text), mine))
        table.rows.append((f"p={p}", row_cells))
    ties = [c for _, c in sorted(ours.items()) if len(c.ties) > 1]
    table.notes = [
        "p: the opponent's cards still unknown; q: the hidden cards still unknown. A cell reads expected "
        "number of interrogations / cards to ask next.",
        "ours: the recurrence of appendix A solved with exact fractions, printed as the report's program "
        "prints (at most 3 decimals, half-even), with the smallest best ask size.",
        f"{matched} of {total} cells match the published table.",
        ("ask sizes that tie exactly (ours shows the smallest): "
         + "; ".join(f"p={c.p} q={c.q}: k=" + " or ".join(map(str, c.ties)) for c in ties)
         if ties else "no two ask sizes tie in any cell."),
    ]
    return table


def group1_dp_tables(per_table: int = 5, alpha_fn: Alpha = alpha) -> list[Comparison]:
    """:func:`group1_dp` cut into tables of ``per_table`` columns each (all
    ten side by side do not fit a terminal); the notes go under the last."""
    whole = group1_dp(alpha_fn)
    n = len(whole.columns)
    parts = []
    for start in range(0, n, per_table):
        stop = min(start + per_table, n)
        parts.append(Comparison(f"{whole.title} ({whole.columns[start]} to {whole.columns[stop - 1]})",
                                whole.columns[start:stop],
                                [(label, row[start:stop]) for label, row in whole.rows],
                                whole.notes if stop == n else []))
    return parts
