"""The one table of rule functions, and the sections that fill it.

:data:`FUNCTIONS` (name -> function) is the table the rule language is handed
(:mod:`clue_expert.engine.language.rules`); :data:`DESCRIPTIONS` (name -> one
line) is the reference page's (docs/rule-functions.md).  Each module of the
library declares its functions in a :class:`Section` and registers them with
its own ``register(functions, descriptions)``, the way CLIPS's built-in
functions are split by domain, each file with its own registration call; the
package's ``__init__`` calls them in order.
"""
from __future__ import annotations

from typing import Callable

FUNCTIONS: dict[str, Callable] = {}
#: name -> one-line description (the table in docs/rule-functions.md).
DESCRIPTIONS: dict[str, str] = {}


class Section:
    """One section of the library (a heading of docs/rule-functions.md): the
    rule functions declared in it, in the order they are defined.

    Used as a decorator: ``@SHEET("cards the owner is known to hold")``.
    ``pure``: the function's value depends on its arguments only, never on the
    knowledge (the rule language may then check an ``if:`` that calls it on
    the trigger's fields before the rule runs).  ``costly``: it may set off
    costly work (the exact beliefs, the interrogation search, the board's
    searches, search over clauses); the evaluator charges its work to the
    request's budget and looks at the clock on every call (see
    clue_expert.core.work and docs/limits.md).  ``soft``: a costly function
    with a cheap stand-in (the sheet's estimate): past the request's deadline
    it answers from it instead of failing the request, so a slow position on
    a loaded machine still plays."""

    def __init__(self, title: str):
        self.title = title
        #: (name in rule files, function, description), in the order of definition.
        self.entries: list[tuple[str, Callable, str]] = []

    def __call__(self, doc: str, pure: bool = False, costly: bool = False, soft: bool = False):
        def declare(fn):
            fn.pure = pure
            fn.section = self.title
            if costly:
                fn.costly = True
            if soft:
                fn.soft = True
            self.entries.append((fn.__name__.rstrip("_"), fn, doc))
            return fn
        return declare

    def register(self, functions: dict, descriptions: dict) -> None:
        """Add the section's functions to the table (``round_`` is ``round`` in rule files)."""
        for name, fn, doc in self.entries:
            functions[name] = fn
            descriptions[name] = doc
