"""A meter for costly work done on a rule's behalf.

The rule language's evaluator charges its own steps (see
:class:`clue_expert.engine.language.expr.Budget`); a library call may set off far more
work than its few steps: the exact beliefs' dynamic programme, the
interrogation search, a board's move search or value iteration.  Those
loops call :func:`charge` with the work they are about to do (table entries
times moves, squares times sweeps); while a rule runs, the evaluator has
put its budget in place with :func:`metered`, which counts the work against
the request's limit and looks at the clock at every charge.  Outside a rule
(a test, the notebook's own queries) nothing is metered and :func:`charge`
costs one context lookup.

Lives in ``core`` so that ``core/board.py`` can charge its searches too.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator, Protocol


class Meter(Protocol):
    """What :func:`metered` accepts: a budget with a ``charge_work`` method."""

    def charge_work(self, units: int, what: str) -> None:
        """Count ``units`` of work done for ``what``; raise past a limit."""

    def late(self) -> bool:
        """Whether the request is spent: past its deadline or its work limit."""


#: The budget in place (the evaluator sets it around each library call).
METER: ContextVar = ContextVar("clue_expert_work_meter", default=None)


def charge(units: int, what: str) -> None:
    """Charge ``units`` of work (``what`` names it in an error) to the
    budget in place, if any; it raises its own limit error past a limit."""
    meter = METER.get()
    if meter is not None:
        meter.charge_work(units, what)


def late() -> bool:
    """Whether the budget in place (if any) is spent, past its deadline or
    its work limit: work that has a cheap stand-in (the exact beliefs)
    switches to it instead of failing the request."""
    meter = METER.get()
    return meter is not None and meter.late()


def current() -> Meter | None:
    """The budget in place, or None."""
    return METER.get()


@contextmanager
def metered(meter: Meter | None) -> Iterator[None]:
    """Charge the work done inside the block to ``meter``."""
    token = METER.set(meter)
    try:
        yield
    finally:
        METER.reset(token)
