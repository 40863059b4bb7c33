"""The rule language: the schema of a rule file and its compiler to
:class:`CompiledRule` s, whose left-hand sides are the IR of
:mod:`clue_expert.engine.language.ir` (each engine adapter compiles them onto its engine).

A rule file is data.  :func:`compile_ruleset` validates an already-parsed
file against :data:`RULESET_SCHEMA` (JSON Schema) and compiles every
expression with the whitelisted evaluator of :mod:`clue_expert.engine.language.expr`
against a *function table handed to it* (the compiler imports no library of
functions; :mod:`clue_expert.engine.language.rules` binds the shipped one).  Nothing
in a rule file is ever executed as code.

Every YAML rule becomes one rule of the engine (see
:mod:`clue_expert.engine.engines`): ``when: KIND`` is shorthand for the
one-pattern ``match:`` of that kind, every field a variable
(:func:`when_patterns`), ``match:`` the patterns as written.  Its
salience is its group's, from the named salience levels of :data:`SALIENCE`,
the single register of priorities: cheap intake first, then propagation,
counting and search.
"""
from __future__ import annotations

import ast
import difflib
import inspect
import itertools
import re
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import jsonschema

from ...core.errors import ExpressionError, RuleFileError, RuleLimitError
from ...core.facts import CONCLUSION_KINDS, KINDS, PROBABLE_KINDS, REQUEST_KINDS, SETUP_KINDS
from .expr import MAX_MESSAGE, MAX_TEMPLATE, Expression, LimitError, cap_message, clip, compile_expression
from .ir import Either, Pattern
from .patterns import SET_FIELDS, check_conclusion, compile_match, compile_term

#: Named salience levels -- the one register.  Higher fires first.
SALIENCE: dict[str, int] = {
    "intake": 40,      # observations become sheet facts
    "propagate": 30,   # one fact implies others directly
    "count": 20,       # counting over hands, categories and clauses
    "search": 10,      # small searches over clause sets
}

#: Names every expression may read, besides the trigger's fields.
CONSTANTS = ("OWNERS", "PLAYERS", "ENVELOPE", "CARDS", "ME", "CATEGORIES", "this")

#: Rule-file kinds: where they live under ``rules/`` and what their rules may conclude.
FILE_KINDS: dict[str, tuple[str, ...]] = {
    "deduction": ("held", "lacked", "one-of", "not-all", "bound", "contradiction"),
    "strategy": ("suggest", "ask"),
    "response": ("show",),
    "accusation": ("accuse",),
    "model": PROBABLE_KINDS,
    "move": ("move",),
}

#: A rule's or rule file's id: lower-case words joined by ``-``.
ID_PATTERN = r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"
_EXPR = {"type": ["string", "number", "boolean"]}
#: A name a rule binds (``let``, ``for``, ``each``): an identifier of at most 64 characters.
_NAME = {"pattern": r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"}
_BINDINGS = {"type": "object", "propertyNames": _NAME, "additionalProperties": _EXPR}

#: Nested ``for:`` loops per rule.
MAX_LOOPS = 4
#: Names a rule binds with ``let`` and ``each`` together.
MAX_BINDINGS = 32
_PAIR = {"type": "array", "items": _EXPR, "minItems": 2, "maxItems": 2}
#: A bound: owner, cards, low, high.
_QUAD = {"type": "array", "items": _EXPR, "minItems": 4, "maxItems": 4}

# --- reuse: extends, include, parameters (see compile_ruleset) -------------------
#: How deeply ``extends:`` and ``include:`` may nest (a file extending a file that includes ...).
MAX_REUSE_DEPTH = 8
#: Rule files one file may bring in through ``extends:`` and ``include:``, counted over the whole tree.
MAX_REUSE_FILES = 64
#: Rules one rule file brings in, its own and those of the files it extends or
#: includes, counted on each file as it is read, before its rules are validated
#: or compiled (a knowledge level counts the rules of all its files together):
#: a 1 MB file holds 9,000 short rules, and 64 included files of 1,000 rules
#: compiled for 17 s.  The largest shipped file has 9 rules, the largest level 32.
MAX_RULES = 2_000
#: Parameters one rule file may declare, and values one ``with:`` may give.
MAX_PARAMETERS = 16
_SCALAR = {"type": ["string", "number", "boolean"]}
_PARAM_VALUE = {"oneOf": [_SCALAR, {"type": "array", "items": _SCALAR, "maxItems": 64}]}
_WITH = {"type": "object", "maxProperties": MAX_PARAMETERS, "propertyNames": _NAME,
         "additionalProperties": _PARAM_VALUE}
#: A reference to another rule file: an id (``minimal-information``, ``shared/no-intelligence``) or a path.
_REF = {"type": "string", "minLength": 1, "maxLength": 300}

# --- gathering (per:, order:, keep:, empty:) ------------------------------------------
#: How ``order:`` ranks a ``per`` variable's values: list order, its reverse, or list order with
#: the last value of its list first (Kingston's "a room by preference, then a suspect, then a weapon").
PER_ORDERS = ("list", "reversed", "last-first")

# --- patterns (match:) -----------------------------------------------------------
#: Items one rule's ``match:`` may have (patterns, negations, exists and tests, at the top level),
#: and positive patterns among them.
MAX_PATTERNS = 16
MAX_POSITIVE_PATTERNS = 10
#: Items of one ``not: [...]`` or ``exists: [...]``.
MAX_GROUP_ITEMS = 4
#: The set-up facts (one per game, per owner, per card, per category).  (A pattern of any kind
#: may join the ones before it by nothing: the engines bound the work of the joins.)
_SETUP_KINDS = ("game", "hand-size", *sorted(SETUP_KINDS))
#: (A decision rule's ``match:`` has its request among them: see :func:`_compile_lhs`.)
_PATTERN_KINDS = list(KINDS)
_PATTERN_FIELDS = {"type": "object", "maxProperties": 8, "additionalProperties": {"type": ["string", "number", "boolean", "null"]}}
_ONE_PATTERN = {"type": "object", "minProperties": 1, "maxProperties": 1,
                "propertyNames": {"enum": [*_PATTERN_KINDS, "test"]},
                "additionalProperties": {"oneOf": [_PATTERN_FIELDS, {"type": "string", "maxLength": 500}]}}
#: One ``match:`` item: ``{KIND: {FIELD: VALUE, ...}}``, ``{test: EXPR}``, ``{either: [PATTERN, ...]}``, ``{not: PATTERN}``,
#: ``{not: [ITEM, ...]}`` (a conjunction) or ``{exists: PATTERN or [ITEM, ...]}``.
_PATTERN = {"type": "object", "minProperties": 1, "maxProperties": 1,
            "propertyNames": {"enum": [*_PATTERN_KINDS, "not", "exists", "either", "test"]},
            "additionalProperties": {"anyOf": [
                _PATTERN_FIELDS,
                {"type": "string", "maxLength": 500},
                _ONE_PATTERN,
                {"type": "array", "minItems": 1, "maxItems": MAX_GROUP_ITEMS, "items": _ONE_PATTERN},
            ]}}

#: JSON Schema of a rule file.
RULESET_SCHEMA: dict = {
    "type": "object",
    "required": ["id", "title"],
    # its own rules, or rules it takes from another file
    "anyOf": [{"required": ["rules"]}, {"required": ["extends"]}, {"required": ["include"]}],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": ID_PATTERN},
        "title": {"type": "string", "minLength": 1},
        "description": {"type": "string"},
        "metadata": {"type": "object"},
        "kind": {"enum": list(FILE_KINDS)},
        "choice": {"enum": ["first", "random"]},
        "extends": _REF,
        "with": _WITH,
        "include": {"type": "array", "minItems": 1, "maxItems": MAX_PARAMETERS, "items": {"oneOf": [
            _REF,
            {"type": "object", "required": ["file"], "additionalProperties": False,
             "properties": {"file": _REF, "with": _WITH}},
        ]}},
        "parameters": {"type": "object", "maxProperties": MAX_PARAMETERS, "propertyNames": _NAME,
                       "additionalProperties": {
                           "type": "object", "additionalProperties": False,
                           "properties": {"description": {"type": "string"},
                                          "values": {"type": "array", "items": _SCALAR, "minItems": 1,
                                                     "maxItems": 64},
                                          "default": _PARAM_VALUE}}},
        "rules": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "required": ["id", "message", "then"],
            # what triggers it: fact kinds (when), or fact patterns (match)
            "oneOf": [{"required": ["when"], "not": {"required": ["match"]}},
                      {"required": ["match"], "not": {"required": ["when"]}}],
            "additionalProperties": False,
            "properties": {
                "id": {"type": "string", "pattern": ID_PATTERN},
                "message": {"type": "string", "minLength": 1},
                "group": {"enum": list(SALIENCE)},
                "priority": {"type": "integer"},
                "per": {"type": "string", **_NAME},
                "candidate": {"type": "string", "pattern": ID_PATTERN},
                "order": {"enum": list(PER_ORDERS)},
                "keep": {"enum": ["all", "first"]},
                "empty": {"enum": ["drop", "any-card"]},
                "when": {"oneOf": [
                    {"enum": list(KINDS)},
                    {"type": "array", "items": {"enum": list(KINDS)}, "minItems": 1, "uniqueItems": True},
                ]},
                "match": {"type": "array", "minItems": 1, "maxItems": MAX_PATTERNS, "items": _PATTERN},
                "metadata": {"type": "object"},
                "let": _BINDINGS,
                "if": _EXPR,
                "for": _BINDINGS,
                "each": _BINDINGS,
                "where": _EXPR,
                "then": {"type": "array", "minItems": 1, "items": {
                    "type": "object", "minProperties": 1, "maxProperties": 1,
                    "additionalProperties": False,
                    "properties": {
                        "held": _PAIR, "lacked": _PAIR, "one-of": _PAIR, "not-all": _PAIR, "bound": _QUAD,
                        "probably-held": _PAIR, "probably-lacked": _PAIR,
                        "contradiction": {"type": "string"},
                        "suggest": {"type": "object", "minProperties": 1, "maxProperties": 64,
                                    "propertyNames": {"pattern": ID_PATTERN},
                                    "additionalProperties": _EXPR},
                        "ask": {"type": "object", "required": ["player", "cards"], "additionalProperties": False,
                                "properties": {"player": _EXPR, "cards": _EXPR}},
                        "show": _EXPR,
                        "move": _EXPR,
                        "accuse": {"oneOf": [_EXPR, {"type": "array", "items": _EXPR, "minItems": 2,
                                                     "maxItems": 64}]},
                    },
                }},
                "because": {"type": "array", "items": _EXPR, "minItems": 1},
            },
        }},
    },
}


@dataclass
class Conclusion:
    """One ``then:`` item: a fact template, or a contradiction message."""

    kind: str
    """``held``, ``lacked``, ``one-of``, ``not-all``, ``bound`` or ``contradiction``."""
    args: tuple[Expression, ...] = ()
    """Owner and card(s) expressions (a ``bound``: owner, cards, low, high)."""
    message: str = ""
    """For ``contradiction``: the message template."""
    slots: dict = field(default_factory=dict)
    """For ``suggest``: category (or ``other``) -> expression."""


@dataclass(eq=False)
class CompiledRule:
    """A validated, compiled YAML rule."""

    id: str
    """Stable kebab-case id."""
    message: str
    """One-line message template with ``{placeholders}``."""
    group: str
    """Its group (a key of :data:`SALIENCE`)."""
    on: tuple[str, ...]
    """Fact kinds that trigger it."""
    ruleset: str
    """Id of the file's ruleset."""
    path: str
    """The file it came from."""
    metadata: dict = field(default_factory=dict)
    """Free metadata (sources, tags)."""
    priority: int = 0
    """For decision rules: higher candidates win."""
    lets: list = field(default_factory=list)
    condition: Expression | None = None
    condition_after: int = 0
    """How many ``let`` bindings the condition needs; it is checked as soon as
    they are evaluated, so a failing guard skips the remaining (costlier) lets."""
    loops: list = field(default_factory=list)
    each: list = field(default_factory=list)
    where: Expression | None = None
    then: list = field(default_factory=list)
    because: list = field(default_factory=list)
    """The stated premises (``because:``); empty when the premises are read off the firing."""
    auto_premises: bool = False
    """True for a deduction rule without ``because:``: its premises are the fact it matched and the
    facts its queries read while it decided (minimised when explained)."""
    patterns: tuple = ()
    """Its left-hand side: its ``match:`` fact patterns, or for ``when: KIND``
    the one pattern it stands for (see :func:`when_patterns`)."""
    shorthand: bool = False
    """True for a rule written with ``when:`` (its patterns are :func:`when_patterns`)."""
    set_vars: frozenset = frozenset()
    """Pattern variables bound to a ``cards`` field (read as frozensets, like a trigger's ``cards``)."""
    guard: Expression | None = None
    """The leading conditions of its ``if:`` that read only the trigger's
    fields, constants and pure functions (see :func:`_guard`): checked
    before the rule runs, so a rule they rule out costs one call."""
    rebinds: bool = False
    """Whether it binds (``let``/``for``/``each``) a name that is a field of
    one of its trigger kinds: such a rule runs in its own copy of the
    trigger's bindings, since the rules a fact triggers otherwise share one."""
    per: str | None = None
    """A decision rule with ``match:``: the variable whose values part its
    firings into candidates (None: all its firings of a request make one)."""
    per_reversed: bool = False
    """Whether its candidates come in the reverse of the ``per`` values' list order (``order: reversed``)."""
    per_order: str = "list"
    """How its ``per`` values are ranked (:data:`PER_ORDERS`): ``list``, ``reversed`` or ``last-first``."""
    keep_first: bool = False
    """``keep: first``: each slot of its candidates keeps only its first card in list order."""
    empty_any: bool = False
    """``empty: any-card``: an empty slot of a category the envelope holds none of takes every
    card of that category instead of dropping the candidate."""
    candidate: str | None = None
    """A decision rule with ``match:``: the candidate its firings add to
    (``candidate: ID``, shared with other rules of its file; None: its own)."""
    plan: "RulePlan | None" = field(default=None, repr=False, compare=False)
    """How the knowledge runs it, the compiled closures unwrapped (see :func:`rule_plan`)."""

    def format_message(self, env: dict) -> str:
        """The message with this firing's bindings filled in."""
        return format_template(self.message, env)


_GUARD_NODES = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.Compare, ast.Name,
                ast.Constant, ast.Load, ast.Set, ast.Tuple, ast.List, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt,
                ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot, ast.Call)


def _guard(source: str, names: set, functions: Mapping[str, Callable]) -> str | None:
    """The leading conjuncts of an ``if:`` (``A and B and ...``) that read
    only ``names`` (the trigger's fields, the constants, the file's
    parameters) and call only pure functions (``fn.pure``), joined with
    ``and``; None when the first conjunct is not such.  When they are false,
    so is the ``if:``: the rule would stop at its guard, having evaluated
    only the ``let``s it needs, which read the sheet and change nothing."""
    text = source.strip()
    try:
        body = ast.parse(text, mode="eval").body
    except SyntaxError:  # pragma: no cover - compiled already
        return None
    parts = body.values if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And) else [body]
    lead = []
    for part in parts:
        ok = True
        for node in ast.walk(part):
            if not isinstance(node, _GUARD_NODES):
                ok = False
            elif isinstance(node, ast.Name) and node.id not in names and node.id not in functions:
                ok = False
            elif isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and not node.keywords
                                                     and getattr(functions.get(node.func.id), "pure", False)):
                ok = False
            elif isinstance(node, ast.Name) and node.id in functions and node.id in names:
                ok = False  # (a bound name shadowing a function: read as the name)
            if not ok:
                break
        if not ok:
            break
        segment = ast.get_source_segment(text, part)
        if segment is None:  # pragma: no cover
            break
        lead.append(f"({segment})")
    return " and ".join(lead) if lead else None


#: A compiled expression: called with a rule's bindings.
Fn = Callable[[dict], Any]


@dataclass(frozen=True)
class Cell:
    """A deduction rule's single ``held``/``lacked`` conclusion (no ``because:``)."""

    kind: str
    """``held`` or ``lacked``."""
    owner: Fn
    """The owner expression's function."""
    card: Fn
    """The card expression's function."""


@dataclass(frozen=True)
class RulePlan:
    """A rule's parts as the knowledge runs them, each expression its
    compiled closure (called with the bindings, like the expression)."""

    pre: tuple
    """``(name, fn)`` of the ``let`` s the ``if:`` reads (evaluated before it)."""
    condition: Fn | None
    """The ``if:``, or None."""
    lets: tuple
    """``(name, fn)`` of the other ``let`` s."""
    loops: tuple
    """``(name, fn)`` of the ``for:`` loops, outermost first."""
    each: tuple
    """``(name, fn)`` of the ``each:`` bindings."""
    where: Fn | None
    """The ``where:``, or None."""
    cell: Cell | None
    """A deduction rule without ``because:`` concluding one ``held``/``lacked`` fact: that fact; else None."""
    guard: Fn | None
    """The :attr:`CompiledRule.guard`, or None."""
    gathered: str | None = None
    """A decision rule with ``match:`` that binds nothing and tests nothing
    in Python and concludes one card a pattern bound (``suggest: {other:
    VAR}``, ``show: VAR``, ``accuse: VAR``): that variable (its firings are
    gathered straight from the engine's bindings); else None."""


def _gathered_var(rule: CompiledRule) -> str | None:
    """See :attr:`RulePlan.gathered`."""
    if rule.shorthand or len(rule.then) != 1 or rule.lets or rule.loops or rule.each \
            or rule.where is not None or rule.condition is not None or rule.because:
        return None
    c = rule.then[0]
    if c.kind == "suggest":
        if set(c.slots) != {"other"}:
            return None
        source = c.slots["other"].source
    elif c.kind in ("show", "accuse") and len(c.args) == 1:
        source = c.args[0].source
    else:
        return None
    return source if isinstance(source, str) and source.isidentifier() and source not in rule.set_vars \
        and any(source == name for p in _patterns_in(rule.patterns) for _, how, name in p.fields
                if how == "var") else None


def rule_plan(rule: CompiledRule) -> RulePlan:
    """The rule's :class:`RulePlan`."""
    k = rule.condition_after if rule.condition is not None else 0
    lets = tuple((name, expr.fn) for name, expr in rule.lets)
    then = rule.then
    cell = None
    if rule.auto_premises and len(then) == 1 and then[0].kind in ("held", "lacked"):
        cell = Cell(then[0].kind, then[0].args[0].fn, then[0].args[1].fn)
    return RulePlan(pre=lets[:k], condition=rule.condition.fn if rule.condition is not None else None,
                    lets=lets[k:], loops=tuple((name, expr.fn) for name, expr in rule.loops),
                    each=tuple((name, expr.fn) for name, expr in rule.each),
                    where=rule.where.fn if rule.where is not None else None, cell=cell,
                    guard=rule.guard.fn if rule.guard is not None else None, gathered=_gathered_var(rule))


def format_template(template: str, env: dict) -> str:
    """Fill ``{name}`` placeholders from a rule's bindings; card sets are
    listed in sheet order.  The result is at most ``expr.MAX_MESSAGE``
    characters, cut with a note saying so (a placeholder's text is not even
    built once the message is that long)."""
    return cap_message(template.format_map(_Formatter(env)))


class _Formatter(dict):
    def __init__(self, env):
        super().__init__()
        self.env = env
        self.left = MAX_MESSAGE + 1  # characters the placeholders may still add

    def __missing__(self, key):
        if self.left <= 0:
            return ""  # the message is cut anyway: no more text is built
        text = self._text(key)[:self.left]
        self.left -= len(text)
        return text

    def _text(self, key):
        value = self.env.get(key, "{" + key + "}")
        if isinstance(value, (set, frozenset, list, tuple)):
            if value and all(isinstance(v, str) for v in value):
                order = self.env.get("__order__", {})
                if isinstance(value, (set, frozenset)):
                    value = sorted(value, key=lambda v: (order.get(v, len(order)), v))
                return ", ".join(value)
            return ", ".join(str(v) for v in value)
        return str(value)


@dataclass
class RuleSet:
    """The rules of one file."""

    id: str
    """Kebab-case id."""
    title: str
    """Human title."""
    path: str
    """The file."""
    rules: list[CompiledRule]
    """Its rules in file order."""
    description: str = ""
    """Longer description."""
    metadata: dict = field(default_factory=dict)
    """Free metadata."""
    kind: str = "deduction"
    """``deduction``, ``strategy``, ``response`` or ``accusation``."""
    choice: str = "first"
    """How a decision file breaks ties: ``first`` (rule and list order) or ``random`` (seeded)."""
    functions: Mapping[str, Callable] | None = field(default=None, repr=False, compare=False)
    """The function table it was compiled against (read by :func:`edition_problems`)."""
    parameters: dict = field(default_factory=dict)
    """The parameter values in effect: those of the file it extends (given by
    its ``with:``), then its own declared ones (defaults)."""
    extends: str | None = None
    """The file it extends, if any."""

    def own(self, rule: CompiledRule) -> bool:
        """Whether the rule is written in this file (not brought in by extends or include)."""
        return rule.path == self.path


def _check_message(template: str, names: set[str], path: str, rule: str) -> None:
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise RuleFileError(path, rule, f"message {clip(template)} is not a valid template ({exc}); "
                                        f"write {{{{ and }}}} for literal braces") from None
    for _, fname, spec, conv in parts:
        if fname is None:
            continue
        if len(fname) > 64:
            raise RuleFileError(path, rule, f"message placeholder {clip(fname, 60)} is not a bound name")
        if spec or conv:
            raise RuleFileError(path, rule, f"message placeholder {{{fname}{'!' + conv if conv else ''}"
                                            f"{':' + clip(spec, 60) if spec else ''}}} has a format spec; "
                                            f"write plain {{{fname}}}")
        if fname not in names:
            raise RuleFileError(path, rule, f"message placeholder {{{fname}}} is not a bound name "
                                            f"(bound: {', '.join(sorted(names))})")


def _fold_params(template: str, params: Mapping[str, Any], path: str = "", rule: str | None = None) -> str:
    """A message template with the ``{placeholders}`` that name parameters
    replaced by their values (braces in a value escaped); a result longer than
    ``expr.MAX_TEMPLATE`` characters is a :class:`RuleLimitError`, raised
    before it is built."""
    if not params or "{" not in template:
        return template
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return template  # reported by _check_message
    out = []
    size = 0
    texts: dict[str, str] = {}  # each parameter's text, built once
    for literal, fname, spec, conv in parts:
        # the parameter this placeholder names, when it is folded in (a bare {name}; None otherwise)
        folded = fname if fname is not None and fname in params and not spec and not conv else None
        if folded is not None and folded not in texts:
            value = params[folded]
            text = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
            texts[folded] = text.replace("{", "{{").replace("}", "}}")
        size += len(literal) + (len(texts[folded]) if folded is not None else 0)
        if size > MAX_TEMPLATE:
            raise RuleLimitError(path, rule, f"the message is over {MAX_TEMPLATE:,} characters once the file's "
                                             f"parameters are filled in (the limit on a message template)")
        out.append(literal.replace("{", "{{").replace("}", "}}"))
        if fname is None:
            continue
        if folded is not None:
            out.append(texts[folded])
        else:
            out.append("{" + fname + ("!" + conv if conv else "") + (":" + spec if spec else "") + "}")
    return "".join(out)


def _compile_lhs(raw: dict, file_kind: str, path: str,
                 rid: str) -> tuple[tuple[str, ...], set[str], tuple, frozenset]:
    """A rule's left-hand side: the fact kinds it is triggered by, the names
    its patterns bind, its patterns (``when: KIND`` is shorthand for one
    pattern) and the variables bound to sets.  A decision rule (strategy,
    response, accusation, move) must be triggered by its request alone."""
    request = {"strategy": "your-turn", "response": "disprove-request", "accusation": "accuse-offer",
               "move": "move-request"}.get(file_kind)
    patterns: tuple = ()
    set_vars: frozenset = frozenset()
    if "match" in raw:
        patterns, variables, set_vars = _compile_patterns(raw["match"], path, rid)
        _check_request_patterns(patterns, request, file_kind, path, rid)
        on = tuple(dict.fromkeys(p.kind for node in patterns
                                 for p in (node.items if isinstance(node, Either) else (node,))
                                 if isinstance(p, Pattern) and not p.negated))
        patterns = _request_last(patterns, request)
        fields = set(variables)
    else:
        when = {raw["when"]} if isinstance(raw["when"], str) else set(raw["when"])
        if request is None and when & REQUEST_KINDS:
            raise RuleFileError(path, rid, f"a {file_kind} rule cannot be triggered by the decision request "
                                           f"{sorted(when & REQUEST_KINDS)}")
        if request is not None and when != {request}:
            raise RuleFileError(path, rid, f"a {file_kind} rule must have when: {request}")
        on = (raw["when"],) if isinstance(raw["when"], str) else tuple(raw["when"])
        # names bound by every trigger kind (the schema makes ``when`` name at least one)
        fields = set.intersection(*(set(KINDS[kind]) for kind in on))
        patterns, set_vars = when_patterns(on)
    return on, fields, patterns, set_vars


def _request_last(patterns: tuple, request: str | None) -> tuple:
    """A decision rule's patterns with its request pattern joined last when
    it binds nothing (``your-turn: {}``, ``accuse-offer: {}``): the engine
    then keeps the joins of the sheet's facts from one request to the next
    and joins only the request's fact when it comes, instead of joining
    everything anew at each request.  The firings are the same (gathered
    candidates do not depend on firing order)."""
    if request is None:
        return patterns
    at = [i for i, p in enumerate(patterns) if isinstance(p, Pattern) and not p.negated and p.kind == request]
    if len(at) != 1 or any(how == "var" for _, how, _ in patterns[at[0]].fields):
        return patterns
    i = at[0]
    return patterns[:i] + patterns[i + 1:] + (patterns[i],)


def _check_request_patterns(patterns: tuple, request: str | None, file_kind: str, path: str, rid: str) -> None:
    """A decision rule's ``match:`` matches its request (``your-turn``, ...)
    once, as a positive pattern: its firings are the request's candidates; a
    deduction or model rule matches no request."""
    def kinds(nodes) -> list[str]:
        out: list[str] = []
        for node in nodes:
            if isinstance(node, Pattern):
                out.append(node.kind)
            else:
                out += kinds(getattr(node, "items", None) or ())
        return out
    requests = [k for k in kinds(patterns) if k in REQUEST_KINDS]
    if request is None:
        if requests:
            raise RuleFileError(path, rid, f"match: a {file_kind} rule cannot match the decision request "
                                           f"{requests[0]!r}")
        return
    top = [p for p in patterns if isinstance(p, Pattern) and not p.negated and p.kind == request]
    if len(top) != 1 or len(requests) != 1:
        raise RuleFileError(path, rid, f"match: a {file_kind} rule matches its request once, as a pattern "
                                       f"of its own ({request}: {{}}), and no other request")


def _check_gathering(rule: "CompiledRule", raw: dict, file_kind: str, names: set, path: str, rid: str) -> None:
    """``per:`` and ``order:`` belong to a decision rule with ``match:`` (whose
    firings are gathered into candidates), ``per`` names a variable the rule
    binds; such a rule concludes ``suggest``, ``show`` or ``accuse``."""
    gathers = "match" in raw and file_kind in ("strategy", "response", "accusation", "move")
    for key in ("per", "order", "candidate", "keep", "empty"):
        if key in raw and not gathers:
            raise RuleFileError(path, rid, f"{key}: only a decision rule with match: gathers its firings into "
                                           f"candidates")
    if not gathers:
        return
    if "per" in raw and raw["per"] not in names:
        raise RuleFileError(path, rid, f"per: {raw['per']!r} is not a variable the rule binds "
                                       f"({', '.join(sorted(n for n in names if n not in CONSTANTS))})")
    order = raw.get("order", "list")
    if order != "list" and "per" not in raw:
        raise RuleFileError(path, rid, f"order: {order} orders the candidates of per:, which the rule lacks")
    for c in rule.then:
        if c.kind not in ("suggest", "show", "accuse"):
            raise RuleFileError(path, rid, f"a decision rule with match: concludes suggest, show or accuse "
                                           f"(its firings are gathered into candidates), not {c.kind!r}")
    if "empty" in raw and any(c.kind != "suggest" for c in rule.then):
        raise RuleFileError(path, rid, "empty: fills a suggestion's slot of a category; the rule concludes "
                                       f"{', '.join(sorted({c.kind for c in rule.then} - {'suggest'}))}")
    if raw.get("keep") == "first" and any(c.kind == "accuse" for c in rule.then):
        raise RuleFileError(path, rid, "keep: first keeps one card of each slot; an accusation is checked whole "
                                       "(every card of the envelope)")
    rule.per = raw.get("per")
    rule.per_order = order
    rule.candidate = raw.get("candidate")
    rule.per_reversed = order == "reversed"
    rule.keep_first = raw.get("keep") == "first"
    rule.empty_any = raw.get("empty") == "any-card"


def _compile_rule(raw: dict, ruleset: str, path: str, file_kind: str, functions: Mapping[str, Callable],
                  params: Mapping[str, Any] | None = None) -> CompiledRule:
    params = dict(params or {})
    rid = raw["id"]
    allowed = FILE_KINDS.get(file_kind)
    if "match" in raw:
        raw = {**raw, "match": _fold_pattern_params(raw["match"], params, path, rid)}
    on, fields, patterns, set_vars = _compile_lhs(raw, file_kind, path, rid)
    names = set(fields) | set(CONSTANTS)
    _check_bindings(raw, set(fields), path, rid, params)
    clash = sorted(set(params) & set(fields))
    if clash:
        raise RuleFileError(path, rid, f"the parameter {clash[0]!r} is also a field of the trigger "
                                       f"({', '.join(on)}); rename the parameter")

    def comp(src: Any, what: str) -> Expression:
        try:
            return compile_expression(src, names, functions, params)
        except LimitError as exc:
            raise RuleLimitError(path, rid, f"{what}: {exc}") from None
        except ExpressionError as exc:
            raise RuleFileError(path, rid, f"{what}: {exc}") from None

    rule = CompiledRule(id=rid, message=_fold_params(raw["message"], params, path, rid), group=raw.get("group", "propagate"), on=on,
                        ruleset=ruleset, path=path, metadata=dict(raw.get("metadata") or {}),
                        priority=int(raw.get("priority", 0)), patterns=patterns, set_vars=set_vars,
                        shorthand="when" in raw)
    for name, src in (raw.get("let") or {}).items():
        rule.lets.append((name, comp(src, f"let {name}")))
        names.add(name)
    if "if" in raw:
        rule.condition = comp(raw["if"], "if")
        if "when" in raw:
            guard = _guard(rule.condition.source, set(fields) | set(CONSTANTS) | set(params), functions)
            rule.guard = comp(guard, "if") if guard is not None else None
        let_names = [name for name, _ in rule.lets]
        used = [i + 1 for i, name in enumerate(let_names) if name in rule.condition.names]
        rule.condition_after = max(used, default=0)
    for name, src in (raw.get("for") or {}).items():
        rule.loops.append((name, comp(src, f"for {name}")))
        names.add(name)
    for name, src in (raw.get("each") or {}).items():
        rule.each.append((name, comp(src, f"each {name}")))
        names.add(name)
    if "where" in raw:
        rule.where = comp(raw["where"], "where")
    _compile_then(rule, raw, allowed, file_kind, names, params, comp, patterns)
    # Without because: the premises are what the rule matched and read (see Knowledge._fire);
    # a model rule's probable clue rests on its trigger.
    rule.because = [comp(src, "because") for src in raw.get("because", ["this"] if file_kind == "model" else [])]
    rule.auto_premises = "because" not in raw and file_kind == "deduction"
    _check_message(rule.message, names, path, rid)
    _check_gathering(rule, raw, file_kind, names, path, rid)
    every_field = {"this"}.union(*(KINDS[kind] for kind in on)) if "when" in raw else set()
    rule.rebinds = any(name in every_field for part in ("let", "for", "each") for name in raw.get(part) or {})
    rule.plan = rule_plan(rule)
    return rule


def _compile_then(rule: CompiledRule, raw: dict, allowed: Sequence[str] | None, file_kind: str, names: set,
                  params: Mapping[str, Any], comp: Callable[[Any, str], Expression], patterns: tuple) -> None:
    """A rule's ``then:`` items compiled into ``rule.then``: each one its file's kind may conclude, a
    pattern rule's facts typed against what its patterns bind."""
    path, rid = rule.path, rule.id
    for item in raw["then"]:
        (kind, value), = item.items()
        if allowed is not None and kind not in allowed:
            raise RuleFileError(path, rid, f"a {file_kind} file may conclude only {', '.join(allowed)}, not {kind!r}")
        rule.then.append(_conclusion(kind, value, names, params, comp, path, rid))
        if "match" in raw and kind in (*CONCLUSION_KINDS, *PROBABLE_KINDS):
            check_conclusion(kind, rule.then[-1].args, patterns, path, rid)


def _conclusion(kind: str, value: Any, names: set, params: Mapping[str, Any],
                comp: Callable[[Any, str], Expression], path: str, rid: str) -> Conclusion:
    """One ``then:`` item compiled (``comp`` compiles an expression, naming the item in errors)."""
    if kind == "contradiction":
        value = _fold_params(value, params, path, rid)
        _check_message(value, names, path, rid)
        return Conclusion(kind, (), value)
    if kind == "suggest":
        slots = {}
        for cat, src in value.items():
            if cat == "other":
                names.add("category")
                slots[cat] = comp(src, "then suggest other")
                names.discard("category")
            else:
                slots[cat] = comp(src, f"then suggest {cat}")
        return Conclusion(kind, (), slots=slots)
    if kind == "ask":
        return Conclusion(kind, (comp(value["player"], "then ask player"), comp(value["cards"], "then ask cards")))
    if kind in ("show", "move"):
        return Conclusion(kind, (comp(value, f"then {kind}"),))
    if kind == "accuse":
        parts = value if isinstance(value, list) else [value]
        return Conclusion(kind, tuple(comp(v, "then accuse") for v in parts))
    assert kind in CONCLUSION_KINDS or kind in PROBABLE_KINDS
    return Conclusion(kind, tuple(comp(v, f"then {kind}") for v in value))


_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _fold_pattern_params(items: list, params: Mapping[str, Any], path: str, rid: str) -> list:
    """A rule's ``match:`` with the file's parameters folded in where a
    pattern writes ``{NAME}`` as a whole field name (the parameter's value,
    a field of the kind: ``seat: {player: me, "{direction}": who}``) or as a
    whole value (a literal: a string quoted, a number or boolean as it is).
    A ``{NAME}`` that names no parameter is an error naming the item."""
    def fold_value(where: str, value: Any, as_field: bool) -> Any:
        m = _PLACEHOLDER.fullmatch(value) if isinstance(value, str) else None
        if m is None:
            return value
        name = m.group(1)
        if name not in params:
            known = ", ".join(sorted(params)) or "none"
            raise RuleFileError(path, rid, f"{where}: {value!r} names no parameter of the file (its parameters: "
                                           f"{known}){_hint(name, list(params))}")
        folded = params[name]
        if as_field:
            if not isinstance(folded, str):
                raise RuleFileError(path, rid, f"{where}: the parameter {name!r} is {clip(folded, 40)}, which "
                                               f"is not a field name")
            return folded
        if isinstance(folded, str):
            if "'" in folded:
                raise RuleFileError(path, rid, f"{where}: the parameter {name!r} is {folded!r}, which a "
                                               f"pattern cannot quote")
            return f"'{folded}'"
        if isinstance(folded, (list, tuple)):
            raise RuleFileError(path, rid, f"{where}: the parameter {name!r} is a list, not a pattern value")
        return folded

    def fold_pattern(where: str, item: Any) -> Any:
        if not isinstance(item, dict) or len(item) != 1:
            return item
        (kind, body), = item.items()
        if kind == "test":
            return item
        if kind in ("not", "exists", "either"):
            inner = [fold_pattern(f"{where} ({kind}) #{m}", sub) for m, sub in enumerate(body, start=1)] \
                if isinstance(body, list) else fold_pattern(f"{where} ({kind})", body)
            return {kind: inner}
        if not isinstance(body, dict):
            return item
        out = {}
        for name, value in body.items():
            field_name = fold_value(f"{where} ({kind})", name, True)
            if field_name in out:
                raise RuleFileError(path, rid, f"{where} ({kind}): the field {field_name!r} is given twice once "
                                               f"the file's parameters are folded in")
            out[field_name] = fold_value(f"{where} ({kind}) {field_name}", value, False)
        return {kind: out}

    if not isinstance(items, list):
        return items
    return [fold_pattern(f"match #{n}", item) for n, item in enumerate(items, start=1)]


def _compile_patterns(items: list, path: str, rid: str) -> tuple[tuple, list, frozenset]:
    """A rule's ``match:``: its IR nodes, the variables they bind in order of
    first use, and those bound to a ``cards`` field (see
    :mod:`clue_expert.engine.language.patterns`)."""
    result = compile_match(items, path, rid, constants=CONSTANTS, setup_kinds=_SETUP_KINDS,
                           max_positive=MAX_POSITIVE_PATTERNS)
    return result.nodes, result.variables, result.set_vars


def _check_bindings(raw: dict, fields: set, path: str, rid: str, params: Mapping[str, Any] | None = None) -> None:
    """The names a rule binds: not the evaluator's (``__``), not a constant,
    not a trigger field (except as a ``for`` variable), each bound once; and at most
    :data:`MAX_LOOPS` nested loops and :data:`MAX_BINDINGS` other names."""
    loops = raw.get("for") or {}
    if len(loops) > MAX_LOOPS:
        raise RuleLimitError(path, rid, f"for: {len(loops)} nested loops, over {MAX_LOOPS} "
                                        f"(the limit on nested 'for' loops per rule)")
    count = len(raw.get("let") or {}) + len(raw.get("each") or {})
    if count > MAX_BINDINGS:
        raise RuleLimitError(path, rid, f"let/each: {count} names, over {MAX_BINDINGS} "
                                        f"(the limit on names a rule binds)")
    bound: dict[str, str] = {}
    for part in ("let", "for", "each"):
        for name in raw.get(part) or {}:
            if name.startswith("__"):
                raise RuleFileError(path, rid, f"{part} {name}: names starting with '__' are the evaluator's")
            if name in CONSTANTS:
                raise RuleFileError(path, rid, f"{part} {name}: {name!r} is a constant every rule reads "
                                               f"({', '.join(CONSTANTS)}); choose another name")
            if params and name in params:
                raise RuleFileError(path, rid, f"{part} {name}: {name!r} is a parameter of the file; "
                                               f"choose another name")
            if name in fields and part != "for":  # a loop may rebind a field (levels/kingston/sheet.yaml)
                raise RuleFileError(path, rid, f"{part} {name}: {name!r} is a field of the trigger; "
                                               f"choose another name")
            if name in bound:
                raise RuleFileError(path, rid, f"{part} {name}: {name!r} is already bound by {bound[name]}")
            bound[name] = part


#: Characters of any value quoted in an error message.
MAX_QUOTE = 200


def _short(err: jsonschema.ValidationError) -> str:
    """A schema error in a few words, never quoting more than
    :data:`MAX_QUOTE` characters of the rule file's own values (the
    validator's message embeds the whole value, however big)."""
    v, expected, got = err.validator, err.validator_value, clip(err.instance, MAX_QUOTE)
    if v == "additionalProperties" and isinstance(err.instance, dict):
        allowed = set(err.schema.get("properties") or {})
        extra = [k for k in err.instance if k not in allowed][:5]
        text = "unknown key(s) " + ", ".join(clip(k, 60) for k in extra)
    elif v == "required":
        missing = [k for k in expected if not isinstance(err.instance, dict) or k not in err.instance]
        text = ", ".join(repr(k) for k in missing) + (" is" if len(missing) == 1 else " are") + " missing"
    elif v == "oneOf" and isinstance(err.instance, dict) and "then" in err.instance and "message" in err.instance:
        text = ("'when' is missing (or 'match': the fact patterns it matches)" if "match" not in err.instance
                else "give 'when' or 'match', not both")
    elif v == "anyOf" and not err.path and isinstance(err.instance, dict):
        text = "'rules' is missing (a file has rules of its own, or takes them with 'extends' or 'include')"
    elif v in ("oneOf", "enum") and err.path and err.path[-1] == "when":
        text = f"'when' must be one of {', '.join(KINDS)} (or a list of them), got {got}"
    elif v == "type":
        want = expected if isinstance(expected, str) else " or ".join(expected)
        text = f"{got} is not of type {want}"
    elif v == "enum":
        text = f"{got} is not one of {', '.join(repr(e) for e in expected)}"
    elif v == "pattern":
        text = f"{got} does not match {expected!r}"
    elif v in ("minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength"):
        text = f"{got} has too {'few' if v.startswith('min') else 'many'} " \
               f"{'items' if 'Items' in v else 'properties' if 'Properties' in v else 'characters'} " \
               f"(the {'least' if v.startswith('min') else 'most'} allowed is {expected})"
    elif v == "propertyNames":
        text = f"a name in {got} is not allowed (names are identifiers of at most 64 characters)"
    else:
        text = f"{got} is not valid here ({v})"
    return text if len(text) <= 2 * MAX_QUOTE else text[:2 * MAX_QUOTE] + "…"


def when_patterns(kinds: Sequence[str]) -> tuple[tuple, frozenset]:
    """The one-pattern ``match:`` that ``when: KIND`` stands for: a fact of
    that kind, each of its fields bound to a variable of the field's name
    (``when: held`` is ``match: [{held: {owner: owner, card: card}}]``);
    ``when: [K1, K2]`` is ``either:`` of such patterns over the fields every
    kind has (the names such a rule may read).  With the variables that hold
    card sets (read as frozensets)."""
    common = [f for f in KINDS[kinds[0]] if all(f in KINDS[k] for k in kinds)]
    alternatives = [Pattern(kind, tuple((f, "var", f) for f in (KINDS[kind] if len(kinds) == 1 else common)))
                    for kind in kinds]
    set_vars = frozenset(f for p in alternatives for f, _, _ in p.fields if f in SET_FIELDS)
    return ((alternatives[0],) if len(kinds) == 1 else (Either(tuple(alternatives)),)), set_vars


def pure_problems(rule: CompiledRule) -> list[str]:
    """Why ``rule`` is not pure patterns, one reason each (empty when it is):
    a pure rule is triggered by ``match:`` patterns (not ``when:``), binds
    and checks nothing in Python (no ``let``, ``if``, ``for``, ``each``,
    ``where`` or ``because``), and concludes facts whose every field is a
    variable its patterns bind, a literal, ``ENVELOPE`` or the operators of
    :data:`~clue_expert.engine.language.ir.OPERATORS` over them -- no library
    function.  Such a rule compiles natively onto every engine and exports
    to plain CLIPS (every shipped deduction rule is pure:
    tests/test_pure_rules.py)."""
    out: list[str] = []
    if rule.shorthand:
        out.append(f"it is triggered by when: {', '.join(rule.on)}, not by match: patterns")
    for part, label in (("lets", "let"), ("loops", "for"), ("each", "each")):
        for name, expr in getattr(rule, part):
            out.append(f"{label} {name}: {_calls_text(expr)}")
    for expr, label in ((rule.condition, "if"), (rule.where, "where")):
        if expr is not None:
            out.append(f"{label}: {_calls_text(expr)}")
    if rule.because:
        out.append("because: states its premises in Python")
    variables = {v for node in rule.patterns for p in (node.items if isinstance(node, Either) else (node,))
                 if isinstance(p, Pattern) and not p.negated for _, how, v in p.fields if how == "var"}
    from_patterns = tuple(sorted(variables))
    for c in (rule.then if not rule.shorthand else ()):
        for expr in c.args:
            source = getattr(expr, "source", expr)
            if isinstance(source, str) and source.strip() in variables | {"ENVELOPE"}:
                continue
            if compile_term(source, from_patterns) is None:
                out.append(f"then {c.kind}: {_calls_text(expr)}")
    return out


def _calls_text(expr: Any) -> str:
    """An expression, and the library functions it calls, for :func:`pure_problems`."""
    source = getattr(expr, "source", expr)
    calls: list[str] = []
    try:
        for node in ast.walk(ast.parse(str(source).strip(), mode="eval")):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in calls:
                calls.append(node.func.id)
    except SyntaxError:  # pragma: no cover - compiled already
        pass
    what = f"calls {', '.join(calls)}" if calls else "is computed in Python"
    return f"{clip(str(source), 80)} {what}"


def all_rules(rulesets: Iterable[RuleSet]) -> list[CompiledRule]:
    """Every rule of ``rulesets``, in load order; rule ids must be unique."""
    seen: dict[str, CompiledRule] = {}
    out = []
    for rs in rulesets:
        for r in rs.rules:
            if r.id in seen:
                other = seen[r.id]
                if other.path == r.path:  # one file brought in twice, by extends or include
                    raise RuleFileError(r.path, r.id, f"rule id already used: both {other.ruleset} and "
                                                      f"{r.ruleset} bring in this file's rules; load only one")
                raise RuleFileError(r.path, r.id, f"rule id already used in {other.path}")
            seen[r.id] = r
            out.append(r)
    return out


#: Loads a referenced rule file: ``load(ref, from_path, kind)`` -> ``(raw, path)``
#: (see :func:`clue_expert.engine.language.rules.load_ruleset`); raises RuleFileError.
Loader = Callable[[str, str, str], "tuple[Any, str]"]


@dataclass
class _Trail:
    """The files being compiled, outermost first (cycles, depth), how many in
    all, and how many rules they hold (:data:`MAX_RULES`)."""

    stack: list = field(default_factory=list)
    count: int = 0
    rules: int = 0
    what: str = ""
    """The files counted together, for the error (default: the outermost file and what it brings in)."""


#: The count :func:`rule_count` returns (to pass through ``load_ruleset(path, count=...)``).
RuleCount = _Trail


def rule_count(what: str) -> _Trail:
    """A count of rules shared by several rule files compiled together (a
    knowledge level's): pass it to :func:`compile_ruleset` as ``_trail``
    through ``load_ruleset(path, count=...)``; ``what`` names them in the
    error."""
    return _Trail(what=what)


def _count_rules(raw: Any, path: str, trail: _Trail) -> None:
    """Adds the file's own rules to the count, before anything of it is compiled."""
    rules = raw.get("rules") if isinstance(raw, dict) else None
    trail.rules += len(rules) if isinstance(rules, list) else 0
    if trail.rules > MAX_RULES:
        top = trail.stack[0] if trail.stack else path
        what = trail.what or (f"{top} and the files it extends or includes" if top != path else
                              "this file and the files it extends or includes")
        raise RuleLimitError(path, None, f"more than {MAX_RULES:,} rules in {what} ({trail.rules:,} "
                                         f"counted so far; the limit on rules compiled together)")


def _validate(raw: Any, path: str) -> None:
    validator = jsonschema.Draft202012Validator(RULESET_SCHEMA)
    # the first errors in path order (a hostile file can have very many)
    errors = sorted(itertools.islice(validator.iter_errors(raw), 100), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        where = list(err.absolute_path)
        rule = None
        if len(where) >= 2 and where[0] == "rules" and isinstance(where[1], int):
            try:
                rule = raw["rules"][where[1]].get("id") or f"#{where[1] + 1}"
            except Exception:  # pragma: no cover - defensive
                rule = f"#{where[1] + 1}"
            where = where[2:]
        loc = "/".join(str(p) for p in where)
        raise RuleFileError(path, rule, (f"at {loc}: " if loc else "") + _short(err))


def _parameter_values(raw: dict, path: str, given: Mapping[str, Any] | None, by: str | None) -> dict:
    """The values of a file's declared ``parameters:``: those ``given`` (by
    the ``with:`` of the file that extends or includes it), else defaults."""
    declared = raw.get("parameters") or {}
    given = dict(given or {})
    who = f" (given by {by})" if by else ""
    for name in given:
        if name not in declared:
            raise RuleFileError(path, None, f"has no parameter {name!r}{who}; its parameters: "
                                            f"{', '.join(declared) or 'none'}{_hint(str(name), declared)}")
    out = {}
    for name, spec in declared.items():
        if name in CONSTANTS:
            raise RuleFileError(path, None, f"parameter {name!r} is a constant every rule reads "
                                            f"({', '.join(CONSTANTS)}); choose another name")
        if name in given:
            value = given[name]
        elif "default" in spec:
            value = spec["default"]
        else:
            raise RuleFileError(path, None, f"parameter {name!r} needs a value: extend or include the file "
                                            f"with 'with: {{{name}: ...}}'"
                                + (f" ({', '.join(map(str, spec['values']))})" if spec.get("values") else ""))
        allowed = spec.get("values")
        if allowed is not None and value not in allowed:
            raise RuleFileError(path, None, f"parameter {name!r} is {clip(value, 60)}{who}, not one of "
                                            f"{', '.join(map(str, allowed))}"
                                + (_hint(value, map(str, allowed)) if isinstance(value, str) else ""))
        out[name] = tuple(value) if isinstance(value, list) else value
    return out


def _bring_in(ref: str, path: str, kind: str, what: str, values, functions, load, trail: _Trail) -> "RuleSet":
    """Compile the file that ``path`` extends or includes (``what``), within the limits."""
    if load is None:
        raise RuleFileError(path, None, f"{what} {clip(ref, 80)}: no loader for other rule files was given")
    raw, ref_path = load(ref, path, kind)
    chain = [*trail.stack, ref_path]
    if ref_path in trail.stack:
        names = " -> ".join(Path(p).name for p in chain[chain.index(ref_path):])
        raise RuleFileError(path, None, f"{what} {clip(ref, 80)} makes a cycle: {names}")
    if len(trail.stack) >= MAX_REUSE_DEPTH:
        raise RuleLimitError(path, None, f"{what} {clip(ref, 80)}: extends/include nest more than "
                                         f"{MAX_REUSE_DEPTH} files deep (the limit on nesting)")
    trail.count += 1
    if trail.count > MAX_REUSE_FILES:
        raise RuleLimitError(path, None, f"{what} {clip(ref, 80)}: extends/include bring in more than "
                                         f"{MAX_REUSE_FILES} rule files in all (the limit per file)")
    base = compile_ruleset(raw, ref_path, functions, load=load, values=values, _trail=trail,
                           _by=Path(path).name)
    if base.kind != kind:
        raise RuleFileError(path, None, f"{what} {clip(ref, 80)}: {ref_path} is a {base.kind} file, "
                                        f"not a {kind} file")
    return base


def compile_ruleset(raw: Any, path: str, functions: Mapping[str, Callable], *, load: Loader | None = None,
                    values: Mapping[str, Any] | None = None, _trail: _Trail | None = None,
                    _by: str | None = None) -> RuleSet:
    """Validate and compile an already-parsed rule file; its expressions may
    call the functions of ``functions`` (name -> function) only.

    Reuse: ``extends: REF`` starts from the rules of another file of the same
    kind (given its parameter ``values`` by ``with:``); a rule of this file
    with the id of one of them replaces it in place, the others are added
    after them.  ``include: [REF, ...]`` adds the rules of shared files after
    the file's own.  ``load`` reads a referenced file (see
    :func:`clue_expert.engine.language.rules.load_ruleset`); nesting is bounded by
    :data:`MAX_REUSE_DEPTH` and :data:`MAX_REUSE_FILES`, and a cycle is an
    error naming the files."""
    trail = _trail if _trail is not None else _Trail()
    _count_rules(raw, path, trail)
    _validate(raw, path)
    trail.stack.append(path)
    try:
        kind = raw.get("kind", "deduction")
        if "with" in raw and "extends" not in raw:
            raise RuleFileError(path, None, "'with' gives parameter values to the file it extends; "
                                            "add 'extends:' (an include takes its own: {file: ..., with: ...})")
        params = _parameter_values(raw, path, values, _by)
        rules: list[CompiledRule] = []
        base = None
        if "extends" in raw:
            base = _bring_in(raw["extends"], path, kind, "extends", raw.get("with"), functions, load, trail)
            rules = list(base.rules)
        position = {r.id: i for i, r in enumerate(rules)}
        _own_rules(raw, path, kind, functions, params, rules, position)
        for item in raw.get("include") or ():
            ref, given = (item, None) if isinstance(item, str) else (item["file"], item.get("with"))
            block = _bring_in(ref, path, kind, "include", given, functions, load, trail)
            _add_included(block.rules, ref, path, rules, position)
        if not rules:  # pragma: no cover - the schema asks for rules, extends or include
            raise RuleFileError(path, None, "no rules")
        _check_shared_candidates(rules, path)
        for rule in rules:
            rule.ruleset = raw["id"]
        description = raw.get("description", base.description if base else "")
        choice = raw.get("choice", base.choice if base else "first")
        return RuleSet(id=raw["id"], title=raw["title"], path=path, rules=rules, description=description,
                       metadata=dict(raw.get("metadata") or {}), kind=kind, choice=choice, functions=functions,
                       parameters={**(base.parameters if base else {}), **params},
                       extends=base.path if base else None)
    finally:
        trail.stack.pop()


def _check_shared_candidates(rules: Sequence[CompiledRule], path: str) -> None:
    """Rules that add to one candidate (``candidate: ID``) name a rule of the
    file that gathers into its own candidate, and agree with it on
    priority, ``per`` and ``order``."""
    by_id = {r.id: r for r in rules}
    for rule in rules:
        if rule.candidate is None:
            continue
        owner = by_id.get(rule.candidate)
        if owner is None or owner.shorthand or owner.candidate is not None:
            raise RuleFileError(path, rule.id, f"candidate: {rule.candidate!r} is not a match: rule of this file "
                                               f"that makes its own candidate")
        if (owner.priority, owner.per is None, owner.per_order, owner.keep_first, owner.empty_any,
                [c.kind for c in owner.then]) != \
                (rule.priority, rule.per is None, rule.per_order, rule.keep_first, rule.empty_any,
                 [c.kind for c in rule.then]):
            raise RuleFileError(path, rule.id, f"candidate: it adds to {owner.id!r}'s candidate, so its priority, "
                                               f"per, order, keep, empty and conclusions must be that rule's "
                                               f"({owner.priority}, {owner.per or 'none'}, {owner.per_order}, "
                                               f"{'first' if owner.keep_first else 'all'}, "
                                               f"{'any-card' if owner.empty_any else 'drop'})")


def _own_rules(raw: Any, path: str, kind: str, functions: Mapping[str, Callable], params: dict,
               rules: list[CompiledRule], position: dict[str, int]) -> None:
    """The file's own rules compiled into ``rules`` (``position``: id -> index):
    one with the id of an extended file's rule replaces it in place, the
    others come after.  Every id is checked before any rule is compiled."""
    seen: set[str] = set()
    for item in raw.get("rules") or ():
        if item["id"] in seen:
            raise RuleFileError(path, item["id"], "duplicate rule id in this file")
        seen.add(item["id"])
    for item in raw.get("rules") or ():
        rule = _compile_rule(item, raw["id"], path, kind, functions, params)
        if rule.id in position:
            rules[position[rule.id]] = rule  # overrides the base's rule of that id
        else:
            position[rule.id] = len(rules)
            rules.append(rule)


def _add_included(block: Iterable[CompiledRule], ref: str, path: str, rules: list[CompiledRule],
                  position: dict[str, int]) -> None:
    """An included file's rules added after the others; an id already in the file is an error."""
    for rule in block:
        if rule.id in position:
            raise RuleFileError(path, rule.id, f"include {clip(ref, 80)}: this rule id is already "
                                               f"in the file (from {Path(rules[position[rule.id]].path).name})")
        position[rule.id] = len(rules)
        rules.append(rule)


def written_clash(rulesets: Iterable[RuleSet]) -> tuple[CompiledRule, str] | None:
    """The first rule id written in two different files among ``rulesets``
    (a rule brought in by extends or include is written once, in its own
    file), with the other file; None when every id is written once."""
    seen: dict[str, str] = {}
    for rs in rulesets:
        for r in rs.rules:
            if seen.setdefault(r.id, r.path) != r.path:
                return r, seen[r.id]
    return None


# --- the edition check -----------------------------------------------------------
#: Library parameters that take one card id, and those that take a category name.
CARD_PARAMS = frozenset({"card"})
CATEGORY_PARAMS = frozenset({"cat", "category"})
#: Names a rule binds to a card / a category / a collection of cards, compared with literals.
_CARD_NAMES = frozenset({"card"})
_CATEGORY_NAMES = frozenset({"cat", "category"})
_CARDS_NAMES = frozenset({"cards", "CARDS", "matching"})
_CARD_CONCLUSIONS = {"held": 1, "lacked": 1, "probably-held": 1, "probably-lacked": 1}


def edition_problems(ruleset: RuleSet, edition: Any,
                     functions: Mapping[str, Callable] | None = None) -> list[tuple[str, str]]:
    """``(rule id, problem)`` for every string literal of ``ruleset`` used
    where a card or a category is expected that is not one of ``edition``
    (an :class:`~clue_expert.core.cards.Edition`): the strings of set, list
    and tuple literals; arguments of library functions whose parameter is a
    card (``card``) or a category (``cat``); literals compared with ``card``
    or ``category``, or tested ``in cards``; a whole card expression of a
    conclusion (``held``/``lacked`` card, ``show``, ``suggest`` slots,
    ``accuse``); and the category keys of ``suggest``.  Each problem names
    the nearest names.  A rule file is not tied to one edition, so this is a
    separate check (``clue-expert rules FILE --edition E``), not part of
    loading."""
    functions = functions if functions is not None else (ruleset.functions or {})
    checker = _LiteralChecker(edition, functions)
    out: list[tuple[str, str]] = []
    for rule in ruleset.rules:
        problems: list[str] = []
        for p in _patterns_in(rule.patterns):  # a literal card of a pattern
            for f, how, value in p.fields:
                if how == "lit" and f == "card" and isinstance(value, str):
                    checker._one(value, "card", f"match {p.kind} card: '{value}'", problems)
        exprs = [e for _, e in rule.lets] + [e for _, e in rule.loops] + [e for _, e in rule.each]
        exprs += [e for e in (rule.condition, rule.where) if e is not None] + list(rule.because)
        for e in exprs:
            checker.check(e, None, problems)
        for c in rule.then:
            if c.kind in _CARD_CONCLUSIONS:
                for i, e in enumerate(c.args):
                    checker.check(e, "card" if i == _CARD_CONCLUSIONS[c.kind] else None, problems)
            elif c.kind in ("show", "accuse"):
                for e in c.args:
                    checker.check(e, "card", problems)
            elif c.kind == "ask":
                checker.check(c.args[0], None, problems)
                checker.check(c.args[1], "card", problems)
            elif c.kind == "suggest":
                for cat, e in c.slots.items():
                    if cat != "other" and cat not in edition.categories:
                        problems.append(f"suggest names {cat!r}, which is not a category of edition "
                                        f"{edition.id!r}{_hint(cat, edition.categories)}")
                    checker.check(e, "card", problems)
            else:
                for e in c.args:
                    checker.check(e, None, problems)
        for problem in dict.fromkeys(problems):
            out.append((rule.id, problem))
    return out


def check_edition(ruleset: RuleSet, edition: Any, functions: Mapping[str, Callable] | None = None) -> None:
    """Raise :class:`RuleFileError` naming the first literal of ``ruleset``
    that is not a card or category of ``edition`` (see :func:`edition_problems`)."""
    problems = edition_problems(ruleset, edition, functions)
    if problems:
        rule, problem = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise RuleFileError(ruleset.path, rule, problem + more)


def _patterns_in(nodes: Iterable) -> Iterable[Pattern]:
    """The fact patterns among a rule's ``match:`` nodes, those inside ``not``/``exists`` too."""
    for node in nodes:
        if isinstance(node, Pattern):
            yield node
        else:
            yield from _patterns_in(p for p in getattr(node, "items", ()) if isinstance(p, Pattern))


def _hint(name: str, names: Iterable[str]) -> str:
    near = difflib.get_close_matches(name.lower(), list(names), n=3, cutoff=0.6) if len(name) <= 64 else []
    return f"; did you mean {', '.join(near)}?" if near else ""


class _LiteralChecker:
    def __init__(self, edition, functions: Mapping[str, Callable]):
        self.edition = edition
        self.cards = set(edition.card_ids)
        self.categories = set(edition.categories)
        self.params: dict[str, list[str]] = {}
        for name, fn in functions.items():
            try:
                self.params[name] = list(inspect.signature(fn).parameters)[1:]
            except (TypeError, ValueError):  # pragma: no cover
                self.params[name] = []

    def check(self, expr, expected: str | None, problems: list[str]) -> None:
        src = expr.source
        if not isinstance(src, str):
            return
        try:
            tree = ast.parse(src.strip(), mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # pragma: no cover - compiled already
            return
        top = tree.body
        if expected and isinstance(top, ast.Constant) and isinstance(top.value, str):
            self._one(top.value, expected, src, problems)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
                for i, elt in enumerate(node.elts):
                    if isinstance(node, ast.Tuple) and i == 0 and getattr(elt, "value", None) in KINDS:
                        continue  # a fact key: ('passed', turn, player)
                    if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                        self._one(elt.value, "card-or-category", src, problems)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                for param, arg in zip(self.params.get(node.func.id, ()), node.args):
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        if param in CARD_PARAMS:
                            self._one(arg.value, "card", src, problems)
                        elif param in CATEGORY_PARAMS:
                            self._one(arg.value, "category", src, problems)
            elif isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                for op, a, b in zip(node.ops, operands, operands[1:]):
                    for x, y in ((a, b), (b, a)):
                        if not (isinstance(x, ast.Constant) and isinstance(x.value, str) and isinstance(y, ast.Name)):
                            continue
                        if isinstance(op, (ast.Eq, ast.NotEq)) and y.id in _CARD_NAMES:
                            self._one(x.value, "card", src, problems)
                        elif isinstance(op, (ast.Eq, ast.NotEq)) and y.id in _CATEGORY_NAMES:
                            self._one(x.value, "category", src, problems)
                        elif isinstance(op, (ast.In, ast.NotIn)) and x is a and y.id in _CARDS_NAMES:
                            self._one(x.value, "card", src, problems)
                        elif isinstance(op, (ast.In, ast.NotIn)) and x is a and y.id == "CATEGORIES":
                            self._one(x.value, "category", src, problems)

    def _one(self, text: str, expected: str, src: str, problems: list[str]) -> None:
        if expected == "card" and text in self.cards:
            return
        if expected == "category" and text in self.categories:
            return
        if expected == "card-or-category" and (text in self.cards or text in self.categories or text == "envelope"):
            return
        pool = {"card": sorted(self.cards), "category": list(self.edition.categories)}.get(
            expected, [*self.edition.card_ids, *self.edition.categories])
        hint = _hint(text, pool)
        if not hint and expected != "category":
            try:  # a display name or alias of a card: rules compare card ids
                hint = f"; did you mean {self.edition.resolve(text)}?"
            except Exception as exc:  # UnknownCardError: its nearest names
                near = getattr(exc, "suggestions", None)
                hint = f"; did you mean {', '.join(near)}?" if near else ""
        what = {"card": "a card", "category": "a category"}.get(expected, "a card or category")
        problems.append(f"{clip(text, 60)} is not {what} of edition {self.edition.id!r} "
                        f"(in {clip(src, 120)}){hint}")
