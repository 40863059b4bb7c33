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
import heapq

for _name in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Hashable", "Callable"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))

from experta import AS, MATCH, NOT, W, Fact, Field, KnowledgeEngine, Rule  # noqa: E402
from experta import __version__ as EXPERTA_VERSION  # noqa: E402
from experta import watchers  # noqa: E402
from experta.agenda import Agenda  # noqa: E402
from experta.fact import InitialFact  # noqa: E402
from experta.factlist import FactList  # noqa: E402
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


class _FactList(FactList):
    """experta's fact list, with a shorter path for the facts of the
    :func:`fact_class` classes: they declare no ``Field``, so experta's
    ``validate`` checks nothing, and their duplicate-refusing id is
    experta's (the class and the items other than ``__special__`` ones),
    built without a method call per item."""

    @staticmethod
    def _get_fact_id(fact):
        return frozenset([fact.__class__, *[(k, v) for k, v in fact.items()
                                            if not (isinstance(k, str) and k[:2] == "__" and k[-2:] == "__")]])

    def declare(self, fact):
        if type(fact) not in _KINDS or self.duplication:
            return super().declare(fact)
        fact_id = self._get_fact_id(fact)
        counter = self.reference_counter
        if fact_id in counter:
            return None
        idx = self.last_index
        fact.__factid__ = idx
        self[idx] = fact
        self.last_index = idx + 1
        self.added.append(fact)
        counter[fact_id] = 1  # (it was not there: Counter's += 1 without its __missing__ call)
        if _FACTS_LOG.isEnabledFor(20):  # logging.INFO: experta's watcher line, when someone watches
            _FACTS_LOG.info(" ==> %s: %r", fact, fact)
        return fact


_FACTS_LOG = watchers.FACTS


class DispatchEngine(KnowledgeEngine):
    """experta's engine for rules that each match one fact by its exact type
    (``AS.fact << SomeFact()``, as :func:`clue_expert.engine.language.compile_engine`
    generates them), without the per-fact matching machinery such rules do
    not need.

    For every declared fact experta walks the RETE network (a token through
    a type test and a capture node to the rule's conflict-set node), then
    collects the changes of every conflict-set node, updates the agenda (an
    ordered list, with a cached sort key per activation) and formats a log
    line per firing.  For one-pattern rules that work has a simple result:
    one activation of the rule of the fact's type.  This engine keeps
    experta's fact list (ids, duplicate facts refused, retraction) and
    experta's ``Rule`` objects and fires them in experta's order -- the
    depth strategy: highest salience first, then the most recent fact --
    from a heap of (salience, fact id), which is that order exactly.  A
    retracted fact's pending activation is dropped, as experta drops it.
    An engine with any other kind of rule runs experta's own machinery
    unchanged.  The equivalence is checked by every deduction test and by
    tests/test_golden_games.py (the same decisions and sheets as with
    experta's machinery)."""

    def __init__(self):
        super().__init__()
        self._index = _one_pattern_rules(type(self), self)
        self._pending: list = []
        self._gone: set = set()
        if self._index is not None:
            self.facts.__class__ = _FactList

    def reset(self, **kwargs):
        if self._index is not None and not kwargs and _initial_fact_only(type(self), self):
            # experta's reset, for an engine whose only deffacts is experta's
            # initial fact: a new agenda and fact list holding the initial
            # fact (id 0).  The RETE network experta also resets is never
            # consulted here (see declare and run), so it is left alone.
            self.agenda = Agenda()
            self.facts = _FactList()
            self.facts.declare(InitialFact())
            self.facts.added.clear()
            self.running = False
        else:
            super().reset(**kwargs)
        if self._index is not None:
            self.facts.__class__ = _FactList
        self._pending = []
        self._gone = set()

    def declare(self, *facts):
        index = self._index
        if index is None:
            return super().declare(*facts)
        last = None
        for fact in facts:
            last = self.facts.declare(fact)
            if last is not None:
                hit = index.get(type(fact))
                if hit is not None:
                    salience, rule, name = hit
                    heapq.heappush(self._pending, (-salience, -fact.__factid__, rule, name, fact))
        self.facts.added.clear()
        return last

    def can_settle(self) -> bool:
        """Whether :meth:`settled_facts` and :meth:`settle` work (for the
        one-pattern rules this engine dispatches itself)."""
        return self._index is not None

    def settled_facts(self) -> list:
        """The facts declared since the last reset, once every activation
        has fired (to put them back with :meth:`settle`)."""
        if self._pending:
            raise RuntimeError("activations are pending")
        return [f for f in self.facts.values() if not isinstance(f, InitialFact)]

    def settle(self, facts) -> None:
        """Declare ``facts`` -- facts whose rules already fired in an
        identical state, their consequences restored with them -- without
        firing any rule (right after a reset: they get the same ids)."""
        for fact in facts:
            self.facts.declare(fact)
        self.facts.added.clear()

    def retract(self, idx_or_declared_fact):
        if self._index is None:
            return super().retract(idx_or_declared_fact)
        idx = self.facts.retract(idx_or_declared_fact)
        self.facts.removed.clear()
        self._gone.add(idx)
        return idx

    def run(self, steps=float("inf")):
        if self._index is None:
            return super().run(steps)
        self.running = True
        pending, gone = self._pending, self._gone
        while steps > 0 and self.running and pending:
            _, neg_id, rule, name, fact = heapq.heappop(pending)
            if gone and -neg_id in gone:
                continue
            steps -= 1
            rule(self, **{name: fact})
        self.running = False


def _initial_fact_only(cls: type, engine) -> bool:
    """Whether experta's own initial fact is the engine class's only
    deffacts (computed once per class)."""
    if "_clue_initial_only" not in cls.__dict__:
        deffacts = engine.get_deffacts()
        setattr(cls, "_clue_initial_only", len(deffacts) == 1 and list(deffacts[0]()) == [InitialFact()])
    return cls.__dict__["_clue_initial_only"]


def _one_pattern_rules(cls: type, engine) -> dict | None:
    """fact type -> (salience, rule's action, name the fact is bound to) when every
    rule of the engine class matches exactly one fact by type with no field
    test (None otherwise); computed once per class."""
    if "_clue_index" in cls.__dict__:
        return cls.__dict__["_clue_index"]
    index: dict | None = {}
    for rule in engine.get_rules():
        ces = tuple(rule)
        pattern = ces[0] if len(ces) == 1 else None
        name = pattern.get("__bind__") if isinstance(pattern, Fact) else None
        fields = [k for k in pattern or () if not (isinstance(k, str) and k.startswith("__"))] \
            if isinstance(pattern, Fact) else None
        if not isinstance(name, str) or fields or type(pattern) is Fact or type(pattern) in index:
            index = None
            break
        # experta fires a copy of the rule that is not bound to an engine,
        # passing the engine first: the wrapped function, called likewise
        index[type(pattern)] = (rule.salience, rule._wrapped, name)
    setattr(cls, "_clue_index", index)
    return index


_CLASSES: dict = {}
_KINDS: dict = {}


#: Values experta's ``freeze`` returns unchanged (a tuple is returned as it is).
_AS_IS = frozenset({str, int, bool, float, type(None), tuple})


def _init_fact(self, *args, **kwargs):
    """``Fact.__init__``, without the per-value ``freeze`` dispatch when
    every value is one ``freeze`` returns unchanged (the facts of a game:
    names, numbers, flags and tuples of names)."""
    if not args:
        for v in kwargs.values():
            if type(v) not in _AS_IS:
                break
        else:
            dict.update(self, kwargs)
            self._Fact__defaults = {}
            return
    Fact.__init__(self, *args, **kwargs)


def fact_class(kind: str) -> type:
    """The experta ``Fact`` subclass of a fact kind (one class per kind of
    :data:`clue_expert.core.facts.KINDS`, made on first use)."""
    cls = _CLASSES.get(kind)
    if cls is None:
        name = "".join(part.capitalize() for part in kind.split("-"))
        cls = _CLASSES[kind] = type(name, (Fact,), {"__doc__": f"A {kind!r} fact.", "__module__": __name__,
                                                     "__init__": _init_fact})
        _KINDS[cls] = kind
    return cls


def fact_kind(fact) -> str:
    """The fact kind of a fact made with :func:`fact_class`."""
    return _KINDS[type(fact)]


__all__ = ["AS", "MATCH", "NOT", "W", "DispatchEngine", "Fact", "Field", "KnowledgeEngine", "Rule",
           "EXPERTA_VERSION", "fact_class", "fact_kind"]
