"""The experta adapter: the one module that imports experta.

experta 1.9.4 (its last release) pins ``frozendict==1.2``, which subclasses
``collections.Mapping``, an alias Python removed in 3.10: a plain ``import
experta`` fails on Python 3.11.  Before experta (and frozendict) is first
imported, the old ``collections`` aliases are restored from
``collections.abc`` -- the very same classes, so nothing else changes; with
frozendict >= 2 installed the shim is harmless.  That shim is the only
adaptation: experta's own Rete network matches every rule's patterns and its
own agenda (the depth strategy: highest salience first, then the most recent
facts) orders the activations.  No experta internals are patched.

Every compiled rule becomes one experta rule:

- ``when: KIND`` is one pattern, the fact of that kind bound as ``_m0``
  (``when: [K1, K2]``: experta's ``OR`` of the two patterns);
- ``match:`` items: a :class:`~clue_expert.engine.language.ir.Pattern` is a ``Fact``
  pattern with ``W`` variables (bound as ``_m<i>``), ``not:`` is ``NOT``, a
  :class:`~clue_expert.engine.language.ir.Test` is a ``TEST`` whose function takes
  the variables it reads by name, :class:`~clue_expert.engine.language.ir.Exists`
  is ``EXISTS`` and :class:`~clue_expert.engine.language.ir.Either` is ``OR``.  A :class:`~clue_expert.engine.language.ir.NotAll` of one pattern is
  ``NOT``; one of several items is compiled around experta with a witness
  rule (:func:`_witness`): experta's matcher rewrites ``NOT(AND(a, b))`` by
  De Morgan's law into ``OR(NOT(a), NOT(b))``, which is not the negation of
  the join.  An ``exists:`` that reads the rule's variables (or holds a
  test) likewise: experta wires ``EXISTS`` to the initial fact alone;
- every pattern that joins is followed by a work tick (:func:`_tick`), so
  the partial matches are counted as on CLIPS.

The experta rule's action does nothing: :meth:`ExpertaEngine.run` takes the
next activation off experta's agenda itself (what ``KnowledgeEngine.run``
does) and yields it as an :class:`~clue_expert.engine.engines.base.EngineFiring`
with the facts it matched; the seat computes the right-hand side and
declares the conclusions before the next activation is chosen.
"""
from __future__ import annotations

import collections
import collections.abc
import inspect
from typing import Any, Iterator, Mapping, Sequence

for _name in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Hashable", "Callable"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))

from experta import AND, AS, EXISTS, NOT, OR, TEST, W, Fact, KnowledgeEngine, Rule  # noqa: E402
from experta import __version__ as EXPERTA_VERSION  # noqa: E402
from experta.fact import InitialFact  # noqa: E402

from ...core.errors import RuleFileError, RuleLimitError  # noqa: E402
from ..language import ir  # noqa: E402
from ..language.ir import TALLIES, Either, Exists, NotAll, Pattern, Tally, Test, evaluate, node_name  # noqa: E402
from ..language.compiler import SALIENCE  # noqa: E402
from .base import Activation, EngineFact, EngineFiring, NativeSink, RuleEngine, register_engine  # noqa: E402

#: The salience of the rules that keep the counts (above every rule's).
TALLY_SALIENCE = 10**6

#: Salience values per group: a group's rules fire in file order (the first ``RULE_SLOTS`` rules).
RULE_SLOTS = 1000

_CLASSES: dict[str, type] = {}
_KINDS: dict[type, str] = {}


def fact_class(kind: str) -> type:
    """The experta ``Fact`` subclass of a fact kind (one class per kind, made
    on first use: experta's ``TypeCheck`` compares ``type(fact) ==``)."""
    cls = _CLASSES.get(kind)
    if cls is None:
        name = "".join(part.capitalize() for part in kind.split("-"))
        cls = _CLASSES[kind] = type(name, (Fact,), {"__doc__": f"A {kind!r} fact.", "__module__": __name__})
        _KINDS[cls] = kind
    return cls


def fact_kind(fact: Fact) -> str:
    """The fact kind of a fact made with :func:`fact_class`."""
    return _KINDS[type(fact)]


def _pattern(p: Pattern) -> Fact:
    return fact_class(p.kind)(**{f: (W(v) if how == "var" else v) for f, how, v in p.fields})


def _test(node: Test) -> TEST:
    """experta's ``TEST`` of a test node: a function whose signature names
    the variables it reads (experta passes the bindings by parameter name)."""
    expr = node.expr

    def check(**bindings: Any) -> bool:
        return bool(evaluate(expr, bindings))

    check.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(v, inspect.Parameter.KEYWORD_ONLY) for v in node.variables])
    check.__name__ = f"test_{'_'.join(node.variables)}"
    return TEST(check)


#: The engine whose facts experta is matching now (experta's network runs as a fact is declared or
#: retracted; a rule class is shared by every engine that loads the same rules): its work is counted.
_MATCHING: list = [None]


def _tick(rule: Any) -> TEST:
    """A ``TEST`` counting one partial match of ``rule`` (after each pattern
    that joins): over :data:`~clue_expert.engine.language.ir.MAX_PARTIAL_MATCHES` in
    the engine's game it fails, so the network stops growing, and the engine
    raises a RuleLimitError naming the rule (as CLIPS's ``clue-work`` does)."""
    def tick() -> bool:
        engine = _MATCHING[0]
        if engine is None:  # pragma: no cover - the adapter sets it around every change of facts
            return True
        return engine.count_work(rule)
    tick.__signature__ = inspect.Signature([])  # type: ignore[attr-defined]
    tick.__name__ = f"work_{rule.id.replace('-', '_')}"
    return TEST(tick)


def _conditions(rule: Any) -> list:
    """The experta conditions of one compiled rule (see the module's docstring);
    each joining pattern followed by a work tick (:func:`_tick`)."""
    if not rule.patterns:
        alternatives = [AS._m0 << fact_class(kind)() for kind in rule.on]
        return [alternatives[0] if len(alternatives) == 1 else OR(*alternatives)]
    out = []
    positive = 0
    for i, node in enumerate(rule.patterns):
        out.append(_node(node, i, rule))
        if isinstance(node, Either) or isinstance(node, Pattern) and not node.negated:
            positive += 1
            if positive > 1:
                out.append(_tick(rule))
    return out


def _node(node: Any, i: int, rule: Any) -> Any:
    if isinstance(node, Either):  # experta's OR, each alternative bound as the node's fact
        return OR(*(getattr(AS, f"_m{i}") << _pattern(p) for p in node.items))
    if isinstance(node, Pattern):
        return NOT(_pattern(node)) if node.negated else getattr(AS, f"_m{i}") << _pattern(node)
    if isinstance(node, Test):
        return _test(node)
    if isinstance(node, NotAll) and _conjunction(node):
        # compiled around (see _witness): NOT of the witness fact of the rule's variables
        kind, outer = _witness_kind(rule, i), _outer(rule, i)
        return NOT(fact_class(kind)(**{v: W(v) for v in outer}))
    if isinstance(node, Exists) and _exists_around(rule, i):
        # compiled around (see _witness): the witness fact of the rule's variables, matched (not bound)
        kind, outer = _witness_kind(rule, i), _outer(rule, i)
        return fact_class(kind)(**{v: W(v) for v in outer})
    if isinstance(node, (NotAll, Exists)):
        inner = [_pattern(n) if isinstance(n, Pattern) else _node(n, i, rule) for n in node.items]
        if isinstance(node, NotAll) and len(inner) > 1:  # pragma: no cover - compiled around (_witness)
            raise RuleFileError(rule.path, rule.id, "the experta engine cannot compile not: of a conjunction")
        body = inner[0] if len(inner) == 1 else AND(*inner)
        return NOT(body) if isinstance(node, NotAll) else EXISTS(body)
    raise RuleFileError(rule.path, rule.id, f"the experta engine cannot compile {node_name(node)}")


def _conjunction(node: NotAll) -> bool:
    """Whether a negation is of several items (or of a test): experta's
    matcher puts every rule in disjunctive normal form, rewriting
    ``NOT(AND(a, b))`` by De Morgan's law into ``OR(NOT(a), NOT(b))``, which
    is not the negation of the join (and fails on a ``TEST`` inside), so such
    a negation is compiled around it (:func:`_witness`)."""
    return len(node.items) > 1 or not isinstance(node.items[0], Pattern)


def _exists_around(rule: Any, i: int) -> bool:
    """Whether the ``i``-th node, an ``exists:``, is compiled around experta
    (:func:`_witness`): experta wires ``EXISTS`` to the initial fact alone,
    so it sees none of the rule's variables (``exists: {one-of: {owner: o}}``
    held whenever any one-of fact did), and takes no test inside."""
    node = rule.patterns[i]
    return bool(_outer(rule, i)) or any(isinstance(n, Test) for n in node.items)


def _witnessed(rule: Any, i: int) -> bool:
    """Whether the ``i``-th node is compiled around experta with a witness rule."""
    node = rule.patterns[i]
    return isinstance(node, NotAll) and _conjunction(node) or isinstance(node, Exists) and _exists_around(rule, i)


def _witness_kind(rule: Any, i: int) -> str:
    return f"not-witness-{rule.id}-{i}"


def _outer(rule: Any, i: int) -> tuple[str, ...]:
    """The variables the items before the ``i``-th bind that the negation's items read."""
    bound: list[str] = []
    for node in rule.patterns[:i]:
        for p in node.items[:1] if isinstance(node, Either) else (node,):  # (alternatives bind alike)
            if isinstance(p, Pattern) and not p.negated:
                bound.extend(v for _, how, v in p.fields if how == "var" and v not in bound)
    node = rule.patterns[i]
    read = {v for item in node.items for v in (item.variables if isinstance(item, Test) else
                                                 [v for _, how, v in item.fields if how == "var"])}
    return tuple(v for v in bound if v in read)


def _witness(rule: Any, i: int) -> list:
    """The conditions of the witness rule of the rule's ``i``-th node, a
    negated conjunction: the rule's items before it, then the negation's own
    items as positive conditions.  Each activation is answered by the
    adapter with a witness fact of the variables the negation reads
    (:func:`_outer`), and the rule itself has ``NOT`` of that fact in its
    place -- CLIPS's own way with ``(not (and ...))``, made explicit.  The
    witness rules fire above every rule (as the counts do), so a rule's
    activation is gone before it could fire when a witness exists.  The
    facts the shipped negations look at (held, lacked) are never retracted,
    so a witness stays true; one over a fact that is retracted later stays
    too and only holds the rule back (never a wrong conclusion)."""
    conditions = []
    positive = 0
    for j, n in enumerate(rule.patterns[:i]):
        if _witnessed(rule, j):
            continue
        conditions.append(_node(n, j, rule))
        if isinstance(n, Either) or isinstance(n, Pattern) and not n.negated:
            positive += 1
            if positive > 1:
                conditions.append(_tick(rule))
    base = len(rule.patterns)
    for j, item in enumerate(rule.patterns[i].items):
        conditions.append(_test(item) if isinstance(item, Test) else getattr(AS, f"_m{base + j}") << _pattern(item))
        if isinstance(item, Pattern) and not item.negated:
            conditions.append(_tick(rule))
    return conditions


def _matched_ids(context: dict) -> tuple:
    """The numbers of the facts an activation's patterns matched, in pattern order."""
    return tuple(context[k]["__factid__"] for k in sorted((k for k in context if k[:2] == "_m" and k[2:].isdigit()),
                                                         key=lambda k: int(k[2:])))


def _tie_order(act: Any) -> tuple:
    """An activation's place among those experta's depth strategy ranks alike:
    its rule, then the facts its patterns matched (:func:`_matched_ids`)."""
    return act.rule.__name__, _matched_ids(act.context)


def _kinds_read(nodes: Sequence[Any]):
    for node in nodes:
        if isinstance(node, Pattern):
            yield node.kind
        elif isinstance(node, (NotAll, Exists, Either)):
            yield from _kinds_read(node.items)


def _tallies_used(rules: Sequence[Any]) -> list[Tally]:
    """The tallies whose count facts some rule matches."""
    kinds = {k for rule in rules for k in _kinds_read(rule.patterns)}
    return [t for kind, t in TALLIES.items() if kind in kinds]


#: Engine classes kept, per tuple of compiled rules (see ExpertaEngine.load).
MAX_BUILT = 32
_BUILT: dict[tuple, tuple] = {}


def _build(rules: Sequence[Any]) -> tuple[type, dict, tuple]:
    """The experta engine class of ``rules``, with its rule names -> (rule
    id, salience), and its tally rules' names -> tally and its witness
    rules' names -> (witness kind, variables) (see :func:`_witness`)."""
    attrs: dict[str, Any] = {}
    names: dict[str, tuple[str, int]] = {}
    tallies: dict[str, Tally] = {}
    for tally in _tallies_used(rules):
        name = f"tally_{tally.kind.replace('-', '_')}"
        conditions = [getattr(AS, f"_m{i}") << _pattern(p) for i, p in enumerate(tally.items)]
        # above every rule: a count is up to date before any rule reads it
        attrs[name] = Rule(*conditions, salience=TALLY_SALIENCE)(_action(name))
        names[name] = (tally.kind, TALLY_SALIENCE)
        tallies[name] = tally
    witnesses: dict[str, tuple[str, tuple[str, ...]]] = {}
    for n, rule in enumerate(rules):
        for i in range(len(rule.patterns)):
            if _witnessed(rule, i):
                name = f"w{n}_{i}_{rule.id.replace('-', '_')}"
                attrs[name] = Rule(*_witness(rule, i), salience=TALLY_SALIENCE)(_action(name))
                names[name] = (rule.id, TALLY_SALIENCE)
                witnesses[name] = (_witness_kind(rule, i), _outer(rule, i))
    for n, rule in enumerate(rules):
        name = f"r{n}_{rule.id.replace('-', '_')}"
        # the group's salience, then file order among the rules of a group (experta's
        # agenda would fire the rules an equal fact activates last-compiled first)
        salience = SALIENCE[rule.group] * RULE_SLOTS + RULE_SLOTS - 1 - min(n, RULE_SLOTS - 1)
        attrs[name] = Rule(*_conditions(rule), salience=salience)(_action(name))
        names[name] = (rule.id, salience)
    return type("ClueRules", (KnowledgeEngine,), attrs), names, (tallies, witnesses)


def _action(name: str):
    """An experta rule's action (one function per rule: experta tells rules
    apart by it).  It does nothing: :meth:`ExpertaEngine.run` takes the
    activation off the agenda and the seat runs the right-hand side."""
    def fire(engine: KnowledgeEngine, **_: Any) -> None:
        """Nothing (see _action)."""
    fire.__name__ = name
    return fire


@register_engine
class ExpertaEngine(RuleEngine):
    """Compiled rules on experta (see the module's docstring)."""

    name = "experta"

    def __init__(self) -> None:
        super().__init__()
        self._ke: Any = None  # (experta's KnowledgeEngine, made by load)
        #: experta rule name -> (rule id, salience).
        self._names: dict[str, tuple[str, int]] = {}
        #: experta rule name -> the tally it keeps.
        self._tallies: dict[str, Tally] = {}
        #: experta rule name -> (witness kind, variables) of a negated conjunction (see _witness).
        self._witnesses: dict[str, tuple[str, tuple[str, ...]]] = {}
        #: (tally kind, group values) -> its count fact now.
        self._counts: dict[tuple, EngineFact] = {}
        #: experta fact id -> the fact as declared.
        self._by_id: dict[int, EngineFact] = {}
        #: fact -> experta's fact (to retract it).
        self._declared: dict[EngineFact, Fact] = {}
        self._step = 0
        #: Whether facts changed since the agenda was last updated.
        self._dirty = False
        #: Partial matches made since the last reset (see :func:`_tick`), and the rule that went over the limit.
        self._work = 0
        self._over: Any = None
        #: Activations experta's matcher has produced since the engine was made, per rule id
        #: (the Rete activity a test counts).
        self.activations_made: collections.Counter = collections.Counter()

    def count_work(self, rule: Any) -> bool:
        """One partial match of ``rule`` counted: False once the game's work is
        over :data:`~clue_expert.engine.language.ir.MAX_PARTIAL_MATCHES` (the first rule
        over it is kept, to be named)."""
        self._work += 1
        if self._work <= ir.MAX_PARTIAL_MATCHES:
            return True
        if self._over is None:
            self._over = rule
        return False

    def load(self, rules: Sequence[Any], native: Mapping[str, tuple] | None = None) -> None:
        """See :meth:`.base.RuleEngine.load`; the seat computes every right-hand side (``native`` is not used)."""
        key = tuple(rules)  # (compiled rules compare by identity)
        built = _BUILT.get(key)
        if built is None:
            built = _BUILT[key] = _build(rules)
            while len(_BUILT) > MAX_BUILT:
                del _BUILT[next(iter(_BUILT))]
        cls, self._names, (self._tallies, self._witnesses) = built
        _MATCHING[0] = self
        self._ke = cls()  # (experta builds the engine's Rete network here)
        self.reset()

    def reset(self) -> None:
        assert self._ke is not None, "load() the rules first"
        self._work, self._over = 0, None
        _MATCHING[0] = self
        self._ke.reset()
        # experta updates its agenda on each declare unless it is running; this adapter
        # takes the matcher's activations itself (_update), so it is always "running"
        self._ke.running = True
        self._dirty = True
        self._by_id = {}
        self._declared = {}
        self._counts = {}
        self._step = 0

    def declare(self, fact: EngineFact) -> bool:
        assert self._ke is not None, "load() the rules first"
        if fact in self._declared:
            return False
        _MATCHING[0] = self
        made = self._ke.declare(fact_class(fact.kind)(**dict(fact.values)))
        if self._over is not None:
            self._work_over()
        if made is None:  # pragma: no cover - an equal fact is in _declared
            return False
        self._by_id[made["__factid__"]] = fact
        self._declared[fact] = made
        if fact.kind in TALLIES:
            self._counts[(fact.kind, tuple(v for f, v in fact.values if f != "n"))] = fact
        self._dirty = True
        self._emit("fact", "+", fact)
        return True

    def retract(self, fact: EngineFact) -> bool:
        made = self._declared.pop(fact, None)
        if made is None or self._ke is None:
            return False
        _MATCHING[0] = self
        self._ke.retract(made)
        if self._over is not None:
            self._work_over()
        self._dirty = True
        self._emit("fact", "-", fact)
        return True

    def _live(self, act: Any) -> bool:
        """Whether every fact an activation matched is still held.  experta
        can leave an activation on its agenda after one of its facts was
        retracted (one whose rule matched a fact twice, a count that then
        moved: found by the differential check, tests/test_engine_diff.py);
        CLIPS drops it, and so does this adapter."""
        context = act.context
        for k in context:
            if k[:2] == "_m" and k[2:].isdigit():
                fid = context[k]["__factid__"]
                made = self._declared.get(self._by_id.get(fid))  # type: ignore[arg-type]
                if made is None or made["__factid__"] != fid:
                    return False
        return True

    def _work_over(self) -> None:
        """The rules' joins went over :data:`~clue_expert.engine.language.ir.MAX_PARTIAL_MATCHES`."""
        rule = self._over
        raise RuleLimitError(rule.path, rule.id, f"match: the rules' joins made over {ir.MAX_PARTIAL_MATCHES:,} "
                                                 f"partial matches in this game or record, this rule the last (the "
                                                 f"limit on partial matches per game)")

    def _activation(self, act: Any) -> Activation:
        rule, salience = self._names[act.rule.__name__]
        context = act.context
        facts = tuple(self._by_id[fid] for fid in _matched_ids(context))
        bindings = tuple((k, v) for k, v in context.items() if not k.startswith("_"))
        return Activation(rule, salience, facts, bindings)

    def _update(self) -> None:
        """Take the activations experta's matcher made or dropped since the
        last call onto experta's agenda (only the facts change them)."""
        if not self._dirty:
            return
        self._dirty = False
        ke = self._ke
        added, removed = ke.get_activations()
        # experta's depth strategy orders activations by salience and their facts' numbers; two
        # activations of one rule on the same facts in another order (a symmetric join: p1 and p2,
        # p2 and p1) tie, and the matcher hands them over in an order that follows Python's string
        # hashing (PYTHONHASHSEED).  Taken in the order of the facts each pattern matched instead,
        # the same game gives the same firings in every process.
        added = sorted(added, key=_tie_order)
        for act in added:
            self.activations_made[self._names[act.rule.__name__][0]] += 1
        if self.watch is not None:
            for act in removed:
                self._emit("activation", "-", self._activation(act))
            for act in added:
                self._emit("activation", "+", self._activation(act))
        ke.strategy.update_agenda(ke.agenda, added, removed)

    def run(self, limit: int | None = None, sink: NativeSink | None = None) -> Iterator[EngineFiring]:
        """See :meth:`.base.RuleEngine.run` (no firing is native here: ``sink`` is not used)."""
        ke = self._ke
        assert ke is not None, "load() the rules first"
        try:
            left = limit
            while left is None or left > 0:
                self._update()
                act = ke.agenda.get_next()
                if act is None:
                    break
                if left is not None:
                    left -= 1
                tally = self._tallies.get(act.rule.__name__)
                if tally is not None:
                    self._count(tally, act.context)
                    continue
                if not self._live(act):  # experta kept an activation of a fact since retracted
                    continue
                witness = self._witnesses.get(act.rule.__name__)
                if witness is not None:  # a negated conjunction now has a witness
                    kind, variables = witness
                    self.declare(EngineFact(kind, tuple((v, act.context[v]) for v in variables)))
                    continue
                self._step += 1
                firing = EngineFiring(self._activation(act), self._step)
                self._emit("fire", "", firing)
                yield firing
        finally:
            self._update()

    def _count(self, tally: Tally, context: dict) -> None:
        """A fact the tally counts arrived: its count fact goes up by one (retracted, declared anew)."""
        group = tuple(context[v] for v in tally.group)
        old = self._counts.get((tally.kind, group))
        if old is None:  # no count fact declared for this group: nothing to keep
            return
        new = EngineFact(tally.kind, (*zip(tally.fields, group), ("n", old.get("n") + 1)))
        self.retract(old)
        self.declare(new)

    def settle(self, facts: Sequence[EngineFact]) -> None:
        for fact in facts:
            self.declare(fact)
        self._update()  # matched by the Rete network, then dropped unfired
        self._ke.agenda.activations.clear()

    def agenda(self) -> list[Activation]:
        ke = self._ke
        if ke is None:
            return []
        self._update()
        return [self._activation(a) for a in reversed(ke.agenda.activations)]

    def facts(self) -> list[EngineFact]:
        ke = self._ke
        if ke is None:
            return []
        return [self._by_id[f["__factid__"]] for f in ke.facts.values() if not isinstance(f, InitialFact)]


__all__ = ["EXPERTA_VERSION", "ExpertaEngine", "fact_class", "fact_kind"]
