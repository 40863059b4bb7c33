"""The intermediate representation of a rule's left-hand side, shared by
every engine adapter.

The rule language (:mod:`clue_expert.engine.language.compiler`) compiles a rule's
``match:`` into a tuple of the nodes below (:attr:`CompiledRule.patterns`);
each engine adapter (:mod:`clue_expert.engine.engines`) compiles every node
type onto its engine: experta conditions (``Fact`` patterns with ``W``
variables, ``NOT``, ``AND``, ``EXISTS``, ``TEST``), or CLIPS conditional
elements (``(kind (field ?v))``, ``(not (and ...))``, ``(exists ...)``,
``(test ...)``).  Anything an adapter cannot compile is refused when the
rule file is loaded, naming the file, the rule and the construct.

A test over bound variables is a :class:`Op` tree over :class:`Var` and
:class:`Lit` leaves with the operators of :data:`OPERATORS` only -- a small,
bounded form every engine can compile (comparisons, arithmetic on counts,
membership in a multislot, the length of a multislot, ``and``/``or``/``not``);
:func:`evaluate` is its meaning (experta's ``TEST`` calls it; a CLIPS
``(test ...)`` computes the same).

Every node is a frozen dataclass: hashable, comparable, printable.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Union

#: How a pattern field is matched: ``var`` binds (first use) or joins (later
#: uses) a variable, ``lit`` compares with a literal value.
FIELD_MODES = ("var", "lit")


@dataclass(frozen=True)
class Pattern:
    """One fact pattern: a fact of ``kind`` whose fields match ``fields``."""

    kind: str
    """The fact kind it matches (a key of :data:`clue_expert.core.facts.KINDS`)."""
    fields: tuple
    """``(field, "var", name)`` (a variable: bound on its first use, equal after) or ``(field, "lit", value)``."""
    negated: bool = False
    """True for ``not:``: the rule matches only when no such fact is known."""


@dataclass(frozen=True)
class Var:
    """A variable bound by a pattern, read in a test."""

    name: str
    """The variable's name (as written in the rule file)."""


@dataclass(frozen=True)
class Lit:
    """A literal value in a test: a string, a number, a boolean or None."""

    value: Any
    """The value."""


@dataclass(frozen=True)
class Op:
    """An operator of :data:`OPERATORS` applied to its arguments."""

    op: str
    """The operator's name (a key of :data:`OPERATORS`)."""
    args: tuple
    """Its arguments: :class:`Var`, :class:`Lit` or :class:`Op` nodes."""


Term = Union[Var, Lit, Op]


def _member(x: Any, xs: Any) -> bool:
    return x in xs


def _without(xs: Any, x: Any) -> Any:
    """A multislot less one value: a set less the element (a frozenset stays
    one), a list or tuple without its occurrences (CLIPS ``delete-member$``)."""
    if isinstance(xs, (set, frozenset)):
        return frozenset(xs) - {x}
    return tuple(v for v in xs if v != x)


def _subset(xs: Any, ys: Any) -> bool:
    """Every value of the first multislot is in the second (CLIPS ``subsetp``)."""
    return set(xs) <= set(ys)


#: Operator -> (arity, Python meaning, CLIPS function).  The whole expression
#: form of a test (and of a pure rule's conclusion fields): nothing else
#: compiles.  ``in``/``not-in`` test membership in a multislot (a fact's
#: ``cards``); ``len`` is a multislot's length; ``subset`` tests that one
#: multislot's values are all in another (written ``subset(a, b)``);
#: ``without`` is a multislot less one value (written ``cards - {card}``:
#: how a clause or a bound is narrowed by one card); ``<`` ``<=`` ``>`` ``>=``
#: order two integers, and (as ``name<`` ...) two names alphabetically by code
#: point -- Python's order of strings, CLIPS's ``str-compare`` (UTF-8 bytes).
#: Every test is typed when its file loads (:func:`~clue_expert.engine.language.patterns.typed`).  Each is bounded: linear
#: in the multislots' lengths.
OPERATORS: dict[str, tuple[int, Callable[..., Any], str]] = {
    "==": (2, lambda a, b: a == b, "eq"),
    "!=": (2, lambda a, b: a != b, "neq"),
    "<": (2, lambda a, b: a < b, "<"),
    "<=": (2, lambda a, b: a <= b, "<="),
    ">": (2, lambda a, b: a > b, ">"),
    ">=": (2, lambda a, b: a >= b, ">="),
    # ordering of names (typed: patterns.typed): alphabetical by code point on both engines
    "name<": (2, lambda a, b: a < b, "str-compare"),
    "name<=": (2, lambda a, b: a <= b, "str-compare"),
    "name>": (2, lambda a, b: a > b, "str-compare"),
    "name>=": (2, lambda a, b: a >= b, "str-compare"),
    "+": (2, lambda a, b: a + b, "+"),
    "-": (2, lambda a, b: a - b, "-"),
    "in": (2, _member, "member$"),
    "not-in": (2, lambda x, xs: x not in xs, "not (member$"),
    "len": (1, len, "length$"),
    "subset": (2, _subset, "subsetp"),
    "without": (2, _without, "delete-member$"),
    "and": (2, lambda a, b: bool(a) and bool(b), "and"),
    "or": (2, lambda a, b: bool(a) or bool(b), "or"),
    "not": (1, lambda a: not a, "not"),
}

#: The deepest test expression (nested operators) a rule may write.
MAX_TEST_DEPTH = 8

#: The partial matches the rules' joins may make in one game or record (one engine, between
#: resets): every combination of facts matching a rule's patterns up to a joining pattern,
#: counted by each engine as its network makes them (experta also counts those it withdraws).
#: The work a rule does, not its shape: a rule may join patterns in any order, related by tests
#: or by nothing; over the limit the engine stops with a RuleLimitError naming the file, the
#: rule that went over and the limit.  The shipped rules make about 20,000 in a long game.
MAX_PARTIAL_MATCHES = 1_000_000


@dataclass(frozen=True)
class Test:
    """A condition over variables the patterns before it bound (CLIPS's
    ``(test ...)``, experta's ``TEST``)."""

    expr: Op
    """The condition."""
    source: str = ""
    """As written in the rule file (for messages and ``--watch``)."""

    @property
    def variables(self) -> tuple[str, ...]:
        """The variables it reads, in order of first use."""
        return tuple(dict.fromkeys(term_variables(self.expr)))


@dataclass(frozen=True)
class NotAll:
    """Negation of a conjunction: the rule matches only when no combination
    of facts matches all of ``items`` together (CLIPS ``(not (and ...))``,
    experta ``NOT(AND(...))``).  Variables first bound inside are local to it."""

    items: tuple
    """Its patterns and tests (:class:`Pattern` not negated, :class:`Test`)."""


@dataclass(frozen=True)
class Exists:
    """At least one combination of facts matches all of ``items`` (CLIPS
    ``(exists ...)``, experta ``EXISTS``); it binds nothing outside and
    makes one activation however many combinations match."""

    items: tuple
    """Its patterns and tests (:class:`Pattern` not negated, :class:`Test`)."""


@dataclass(frozen=True)
class Either:
    """One fact of any of several patterns (CLIPS's ``(or ...)``, experta's
    ``OR``): the rule matches a fact of the first pattern, or of the second
    ... -- ``when: [K1, K2]`` in patterns.  Allowed as a rule's first item
    only; every alternative binds the same variables, so the items after it
    read them whichever matched.  On CLIPS it is one defrule per alternative
    (``ID--KIND``), as CLIPS itself splits an ``or``."""

    items: tuple
    """Its alternatives (positive :class:`Pattern` s)."""


@dataclass(frozen=True)
class Tally:
    """A fact kept up to date by the engine: for every binding of ``group``
    that the ``items`` match, one ``kind`` fact with those fields and ``n``,
    the number of distinct combinations of ``counted`` variables matched
    (a per-owner held count: ``held-count(owner ?o, n)`` over ``held(owner
    ?o, card ?c)``, grouped by ``o``, counting ``c``).  Its count starts at 0
    for every group given as a set-up fact and only grows: the facts it
    counts are never retracted in a game."""

    kind: str
    """The kind of the fact it keeps (its fields: ``fields``, then ``n``)."""
    items: tuple
    """The patterns whose matches it counts (positive :class:`Pattern` s)."""
    group: tuple[str, ...]
    """The variables that name one count."""
    fields: tuple[str, ...]
    """The count fact's fields holding the ``group`` variables' values, in order."""
    counted: tuple[str, ...]
    """The variables whose distinct values are counted."""


@dataclass(frozen=True)
class Assertion:
    """A native right-hand side item: assert a ``kind`` fact whose fields
    are terms over the rule's variables (runs inside the engine; the adapter
    still reports the firing and its matched facts)."""

    kind: str
    """The kind of the fact asserted."""
    values: tuple
    """``(field, term)`` pairs (:class:`Var`, :class:`Lit` or :class:`Op`)."""


def _cell(kind: str, owner: Any) -> Pattern:
    return Pattern(kind, (("owner", "lit", owner) if owner is not None else ("owner", "var", "o"),
                          ("card", "var", "c")))


_CATEGORY = Pattern("card", (("id", "var", "c"), ("category", "var", "k")))

#: The counts every engine keeps up to date (their kinds: :data:`clue_expert.core.facts.TALLY_KINDS`).
#: The seat declares each at 0 when the game starts (one per owner, card or category; seen-count
#: for the seat itself; pass-count and show-lacked-count when it reads the suggestion of the turn).
#: No tally's variable may be named ``t``: CLIPS's counting rule names the count fact ``?t``.
TALLIES: dict[str, Tally] = {
    "held-count": Tally("held-count", (_cell("held", None),), ("o",), ("owner",), ("c",)),
    "lacked-count": Tally("lacked-count", (_cell("lacked", None),), ("o",), ("owner",), ("c",)),
    "lacker-count": Tally("lacker-count", (_cell("lacked", None),), ("c",), ("card",), ("o",)),
    "envelope-held-count": Tally("envelope-held-count", (_cell("held", "envelope"), _CATEGORY), ("k",),
                                 ("category",), ("c",)),
    "envelope-lacked-count": Tally("envelope-lacked-count", (_cell("lacked", "envelope"), _CATEGORY), ("k",),
                                   ("category",), ("c",)),
    # cards shown to the seat (Kingston's exhaustive elimination): one seen fact per card
    "seen-count": Tally("seen-count", (Pattern("seen", (("by", "var", "m"), ("card", "var", "c"))),), ("m",),
                        ("by",), ("c",)),
    # the cards of turn u's unseen show that its shower is known to lack (Kingston, Mitchell)
    "show-lacked-count": Tally("show-lacked-count", (
        Pattern("showed", (("turn", "var", "u"), ("player", "var", "p"), ("card", "lit", None))),
        Pattern("show-card", (("turn", "var", "u"), ("card", "var", "c"))),
        Pattern("lacked", (("owner", "var", "p"), ("card", "var", "c")))), ("u",), ("turn",), ("c",)),
    # the players who passed on turn u (Kingston's unanswered own suggestion)
    "pass-count": Tally("pass-count", (Pattern("passed", (("turn", "var", "u"), ("player", "var", "p"))),),
                        ("u",), ("turn",), ("p",)),
}

#: The node types a rule's left-hand side is made of.
NODE_TYPES = (Pattern, Test, NotAll, Exists, Either)


def term_variables(term: Term) -> Iterator[str]:
    """The names of the variables a test term reads, in order (repeats kept)."""
    if isinstance(term, Var):
        yield term.name
    elif isinstance(term, Op):
        for a in term.args:
            yield from term_variables(a)


def evaluate(term: Term, bindings: Mapping[str, Any]) -> Any:
    """The value of a test expression under ``bindings`` (variable -> value)."""
    if isinstance(term, Var):
        return bindings[term.name]
    if isinstance(term, Lit):
        return term.value
    fn = OPERATORS[term.op][1]
    if term.op == "and":
        return all(evaluate(a, bindings) for a in term.args)
    if term.op == "or":
        return any(evaluate(a, bindings) for a in term.args)
    return fn(*(evaluate(a, bindings) for a in term.args))


def node_name(node: Any) -> str:
    """The construct a node stands for, as an error message names it."""
    if isinstance(node, Pattern):
        return f"{'not ' if node.negated else ''}{node.kind} pattern"
    if isinstance(node, Test):
        return f"test {node.source or node.expr}"
    if isinstance(node, NotAll):
        return "not (a conjunction)"
    if isinstance(node, Exists):
        return "exists"
    if isinstance(node, Either):
        return "either"
    if isinstance(node, Tally):
        return f"tally {node.kind}"
    return type(node).__name__


__all__ = ["Assertion", "Either", "Exists", "FIELD_MODES", "Lit", "MAX_PARTIAL_MATCHES", "MAX_TEST_DEPTH", "NODE_TYPES", "NotAll", "OPERATORS",
           "Op", "Pattern", "TALLIES", "Tally", "Term", "Test", "Var", "evaluate", "node_name",
           "term_variables"]
