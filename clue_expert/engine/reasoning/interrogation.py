"""Group 1's two-player interrogation recurrence (CS4444 report, appendix A).

The end of a two-player game of the generalized Clue is described by two
counts: ``p``, the opponent's cards we are still unsure of, and ``q``, the
hidden (envelope) cards we are still unsure of.  A turn asks the opponent
about ``k`` of those ``p + q`` cards, drawn at random:

* with chance ``alpha(p, q, k) = C(q, k) / C(p + q, k)`` every asked card
  is a hidden one, the opponent shows nothing, and ``k`` hidden cards
  become known (``q`` drops by ``k``);
* otherwise the opponent shows one of its cards (``p`` drops by one).
  When ``k > q`` some asked card must be the opponent's, so this is certain.

``Q(p, q)`` is the least expected number of such turns until everything is
known, the minimum over ``k`` of ``Q(p, q, k)``, with ``Q(0, q) = Q(p, 0) = 0``.

The recurrence is solved with exact fractions, so that ask sizes of equal
value are seen to tie (floating point could split them by rounding noise).
Each cell keeps the smallest best ``k`` -- the one the report's program
keeps, since it replaces its best only on a strictly smaller value -- and
every ``k`` that ties with it.  The rule library's ``best_ask_size`` and
``expected_interrogations`` read this module; ``clue_expert.play.group1_dp``
compares it with the published table.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Callable

from ...core import work
from ..language.expr import LimitError

#: ``alpha(p, q, k)``: the chance that a question about ``k`` cards shows nothing.
Alpha = Callable[[int, int, int], Fraction]

#: The size of the published table: p and q both run 1 .. SIZE.
SIZE = 10
#: The largest p or q of a cell: the tables are solved in exact fractions, in
#: time growing as (p q)**2 (40 x 40: about a second here); past it a
#: :class:`~clue_expert.engine.language.expr.LimitError` names the limit.
MAX_CELL = 40


def alpha(p: int, q: int, k: int) -> Fraction:
    """The chance that all ``k`` cards asked about (drawn from the ``p + q``
    uncertain ones) are hidden cards, i.e. that the opponent holds none of them."""
    return Fraction(comb(q, k), comb(p + q, k))


def java_number(x: Fraction, digits: int = 3) -> str:
    """``x`` as the report's program prints it (Java's ``NumberFormat`` with
    one to ``digits`` fraction digits, half-even rounding): ``"1.0"``,
    ``"2.25"``, ``"5.91"``.  Rounds the exact value, not a float."""
    scaled = round(Fraction(x) * 10 ** digits)  # round() on a Fraction is half-even
    sign = "-" if scaled < 0 else ""
    whole, frac = divmod(abs(scaled), 10 ** digits)
    decimals = f"{frac:0{digits}d}".rstrip("0") or "0"
    return f"{sign}{whole}.{decimals}"


@dataclass(frozen=True)
class Cell:
    """One solved ``(p, q)``: the optimal expectation and the ask sizes reaching it."""

    p: int
    """The opponent's uncertain cards."""
    q: int
    """The uncertain hidden cards."""
    expected: Fraction
    """``Q(p, q)``, exactly."""
    ask: int
    """The smallest ask size ``k`` reaching ``Q(p, q)``."""
    ties: tuple
    """Every ask size reaching ``Q(p, q)``, ascending (``ask`` first)."""

    @property
    def printed(self) -> str:
        """The cell as the report's program prints it: ``"1.667/1"``."""
        return f"{java_number(self.expected)}/{self.ask}"


def ask_values(p: int, q: int, solved: dict, alpha_fn: Alpha = alpha) -> list[Fraction]:
    """``Q(p, q, k)`` for ``k = 1 .. p + q`` (index ``k - 1``), given the
    expectations ``solved[(p - 1, q)]`` and ``solved[(p, q - j)]`` for ``j >= 1``."""
    shown = solved[(p - 1, q)]  # the opponent showed a card
    values = []
    for k in range(1, p + q + 1):
        if k <= q:
            a = alpha_fn(p, q, k)
            values.append((1 - a) * shown + a * solved[(p, q - k)] + 1)
        else:
            values.append(shown + 1)
    return values


def solve(max_p: int = SIZE, max_q: int = SIZE, alpha_fn: Alpha = alpha) -> dict:
    """Every cell ``(p, q)`` with ``1 <= p <= max_p`` and ``1 <= q <= max_q``,
    keyed by ``(p, q)``.  ``alpha_fn`` may replace :func:`alpha` (to check that a wrong
    recurrence is noticed)."""
    expected: dict = {}
    for p in range(max_p + 1):
        expected[(p, 0)] = Fraction(0)
    for q in range(max_q + 1):
        expected[(0, q)] = Fraction(0)
    cells = {}
    for p in range(1, max_p + 1):
        for q in range(1, max_q + 1):
            values = ask_values(p, q, expected, alpha_fn)
            best = min(values)
            ties = tuple(k for k, v in enumerate(values, 1) if v == best)
            expected[(p, q)] = best
            cells[(p, q)] = Cell(p, q, best, ties[0], ties)
    return cells


@functools.lru_cache(maxsize=8)
def _table(max_p: int, max_q: int) -> dict:
    work.charge(max_p * max_q * (max_p + max_q), "group 1's interrogation table")
    return solve(max_p, max_q)


def cell(p: int, q: int) -> Cell | None:
    """The solved cell ``(p, q)`` (None when ``p`` or ``q`` is 0: nothing is
    left to learn).  Tables are solved in blocks of ten and cached."""
    p, q = int(p), int(q)
    if p < 0 or q < 0:
        raise ValueError(f"p and q count uncertain cards and cannot be negative (p={p}, q={q})")
    if p == 0 or q == 0:
        return None
    if p > MAX_CELL or q > MAX_CELL:
        raise LimitError(f"group 1's table is solved up to {MAX_CELL} uncertain cards a side, not p={p}, q={q} "
                         f"(the limit of the interrogation table)")
    block = lambda n: max(SIZE, -(-n // SIZE) * SIZE)  # noqa: E731 - round up to a multiple of ten
    return _table(block(p), block(q))[(p, q)]


def fixed_ask_expectation(p: int, q: int, choose: Callable[[int, int], int]) -> Fraction:
    """The expected number of interrogations when every question asks
    ``choose(p, q)`` cards (1 to ``p + q``) instead of the best number: e.g.
    ``lambda p, q: q``, group 1's submitted players' rule."""
    memo: dict = {}

    def e(p: int, q: int) -> Fraction:
        if p == 0 or q == 0:
            return Fraction(0)
        if (p, q) not in memo:
            k = int(choose(p, q))
            if not 1 <= k <= p + q:
                raise ValueError(f"an ask size must be 1 to p + q = {p + q}, got {k}")
            if k <= q:
                a = alpha(p, q, k)
                memo[(p, q)] = (1 - a) * e(p - 1, q) + a * e(p, q - k) + 1
            else:
                memo[(p, q)] = e(p - 1, q) + 1
        return memo[(p, q)]
    return e(int(p), int(q))
