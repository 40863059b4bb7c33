"""The rule library: the only functions a rule-file expression may call.

Each function takes the knowledge being reasoned over as its first argument
(supplied by the evaluator, invisible in rule files) and returns plain values:
strings, ints, frozensets, tuples.  Nothing here changes the knowledge, and
everything here reads it through its public query interface (the "queries"
section of :mod:`clue_expert.engine.seat.store`).  Functions whose names start
with a capital letter build *fact references* for a rule's ``because:`` list.

Editions are general: ``CATEGORIES`` are the edition's categories in sheet
order, and the envelope takes ``envelope_count(cat)`` cards of each (0, 1 or
more; 1 each in the classic game).

One module a domain, each declaring its functions in sections
(:class:`~.registry.Section`) and registering them in the one table,
:data:`FUNCTIONS`, with its own ``register``; :data:`DOMAINS` is the order
they register in (the order of docs/rule-functions.md).  This file is the
library's front door: the table, and the functions other modules call by name.
"""
from __future__ import annotations

from . import (beliefs, board, bounded, envelope, generalized, group1, group7, helpers, models, our_player, race,
               references, sheet, strategies, suggestions)
from .group7 import best_ask_size
from .models import known_to
from .race import hazard_risk, shadow_accuse_chance, shadow_envelopes
from .registry import DESCRIPTIONS, FUNCTIONS, Section
from .sheet import disjoint_clauses, held, unknown
from .strategies import known_owned
from .suggestions import information_gain, most_informative, refutation_none

#: The library's modules, in the order they register their functions.
DOMAINS = (sheet, envelope, strategies, beliefs, suggestions, board, models, race, generalized, group7, group1,
           our_player, helpers, references, bounded)

for _domain in DOMAINS:
    _domain.register(FUNCTIONS, DESCRIPTIONS)

#: The functions that may set off costly work (``costly=True``), and those of them with a cheap
#: stand-in past the deadline (``soft=True``); see :class:`~.registry.Section`.
COSTLY = tuple(name for name, fn in FUNCTIONS.items() if getattr(fn, "costly", False))
SOFT = tuple(name for name, fn in FUNCTIONS.items() if getattr(fn, "soft", False))

__all__ = ["COSTLY", "DESCRIPTIONS", "DOMAINS", "FUNCTIONS", "SOFT", "Section", "best_ask_size", "disjoint_clauses",
           "hazard_risk", "held", "information_gain", "known_owned", "known_to", "most_informative",
           "refutation_none", "shadow_accuse_chance", "shadow_envelopes", "unknown"]
