"""The one place where clue-expert imports experta (and adapts it).

experta 1.9.4 (its last release) pins ``frozendict==1.2``.  That frozendict
subclasses ``collections.Mapping``, an alias Python removed in 3.10, so a plain
``import experta`` fails on a fresh Python 3.11 with ``AttributeError: module
'collections' has no attribute 'Mapping'``.

The fix lives here and only here: before experta (and with it frozendict) is
imported for the first time, the old ``collections`` aliases are restored from
``collections.abc``.  The aliases are the very same classes, so nothing else
changes; with frozendict >= 2 installed the shim is harmless.  Every other
module imports experta names from this module, never from ``experta`` itself
(``tests/test_layers.py`` checks both that the engine works on this
Python and that no other module imports experta directly).

One speed adaptation lives here too: experta's RETE root (``BusNode``) offers
every new fact to the first node of every rule's alpha chain, and each such
node copies the token and runs a type check that fails for all but one kind.
:func:`_route_by_type` makes the root hand a fact only to the chains whose
first check is a ``TypeCheck`` for that exact type (plus any chain that does
not start with a type check), which is what those checks would have let
through anyway -- ``TypeCheck`` compares ``type(fact) ==``.  It changes no
match, only skips failing ones; every deduction and game test runs through it.
"""
from __future__ import annotations

import collections
import collections.abc

for _name in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Hashable", "Callable"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))

from experta import AS, MATCH, NOT, W, Fact, Field, KnowledgeEngine, Rule  # noqa: E402
from experta import __version__ as EXPERTA_VERSION  # noqa: E402
from experta.matchers.rete.check import TypeCheck  # noqa: E402
from experta.matchers.rete.nodes import BusNode  # noqa: E402
from experta.matchers.rete.token import Token  # noqa: E402


def _route_by_type(bus: BusNode, fact_type: type) -> list:
    """The children of the RETE root that can accept a fact of this type."""
    cache = bus.__dict__.get("_clue_routes")
    if cache is None or cache[0] != len(bus.children):
        typed: dict = {}
        untyped: list = []
        for child in bus.children:
            matcher = getattr(child.node, "matcher", None)
            if isinstance(matcher, TypeCheck):
                typed.setdefault(matcher.fact_type, []).append(child)
            else:
                untyped.append(child)
        cache = bus.__dict__["_clue_routes"] = (len(bus.children), typed, untyped, {})
    _, typed, untyped, memo = cache
    routes = memo.get(fact_type)
    if routes is None:
        routes = memo[fact_type] = typed.get(fact_type, []) + untyped
    return routes


def _bus_add(self, fact):
    token = Token.valid(fact)
    for child in _route_by_type(self, type(fact)):
        child.callback(token)


def _bus_remove(self, fact):
    token = Token.invalid(fact)
    for child in _route_by_type(self, type(fact)):
        child.callback(token)


BusNode.add = _bus_add
BusNode.remove = _bus_remove

_CLASSES: dict = {}
_KINDS: dict = {}


def fact_class(kind: str) -> type:
    """The experta ``Fact`` subclass of a fact kind (one class per kind of
    :data:`clue_expert.core.facts.KINDS`, made on first use)."""
    cls = _CLASSES.get(kind)
    if cls is None:
        name = "".join(part.capitalize() for part in kind.split("-"))
        cls = _CLASSES[kind] = type(name, (Fact,), {"__doc__": f"A {kind!r} fact.", "__module__": __name__})
        _KINDS[cls] = kind
    return cls


def fact_kind(fact) -> str:
    """The fact kind of a fact made with :func:`fact_class`."""
    return _KINDS[type(fact)]

__all__ = ["AS", "MATCH", "NOT", "W", "Fact", "Field", "KnowledgeEngine", "Rule", "EXPERTA_VERSION", "fact_class",
           "fact_kind"]
