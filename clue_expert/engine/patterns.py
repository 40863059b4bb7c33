"""A rule's ``match:``, compiled to the IR of :mod:`clue_expert.engine.ir`.

Items, in order (docs/rule-language.md, "Patterns: match:"):

- ``{KIND: {FIELD: VALUE, ...}}``: a fact pattern.  A VALUE is a variable (a
  name: bound by its first use, equal after), ``_`` (anything), ``ENVELOPE``,
  a quoted literal (``"'rope'"``), a number, true/false or null;
- ``{test: "EXPR"}``: a test over variables bound before it -- comparisons,
  ``+`` and ``-``, ``x in cards`` / ``x not in cards`` (a multislot),
  ``len(cards)``, ``and``/``or``/``not``, literals and ``ENVELOPE`` only;
- ``{not: {KIND: {...}}}``: no such fact; ``{not: [ITEM, ...]}``: no facts
  match all of the items together (a negated conjunction);
- ``{exists: {KIND: {...}}}`` or ``{exists: [ITEM, ...]}``: some facts match
  (one activation however many);
- ``{either: [PATTERN, ...]}``, the first item only: a fact of any of the
  patterns, each binding the same variables (``when: [K1, K2]`` in patterns).

Variables first met inside ``not``/``exists`` are local to it.  Every
mistake is a :class:`~clue_expert.core.errors.RuleFileError` naming the
file, the rule and the item (``match #3 (test)``).
"""
from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..core.errors import RuleFileError, RuleLimitError
from ..core.facts import KINDS
from .expr import clip
from .ir import MAX_TEST_DEPTH, Either, Exists, Lit, NotAll, Op, Pattern, Test, Var

_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
#: Fields whose variables hold sets of cards (read as frozensets, like a trigger's ``cards``).
SET_FIELDS = ("cards", "matching")

_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
            ast.In: "in", ast.NotIn: "not-in", ast.Is: "==", ast.IsNot: "!="}
_ARITH = {ast.Add: "+", ast.Sub: "-"}
_TEST_FORMS = ("comparisons (== != < <= > >=), + and -, x in CARDS / x not in CARDS, len(CARDS), "
               "subset(CARDS, CARDS), CARDS - {x}, and/or/not, over variables bound before it, literals and ENVELOPE")


@dataclass
class MatchResult:
    """A compiled ``match:``."""

    nodes: tuple
    """The IR nodes, in order."""
    variables: list = field(default_factory=list)
    """The variables bound outside ``not``/``exists``, in order of first use."""
    set_vars: frozenset = frozenset()
    """Those bound to a ``cards``/``matching`` field."""


class _Compiler:
    """One rule's ``match:`` being compiled."""

    def __init__(self, path: str, rid: str, constants: tuple, setup_kinds: tuple, max_positive: int):
        self.path, self.rid = path, rid
        self.constants, self.setup_kinds, self.max_positive = constants, setup_kinds, max_positive
        self.variables: list[str] = []
        self.set_vars: set[str] = set()
        self.positive = 0

    def error(self, where: str, problem: str) -> RuleFileError:
        return RuleFileError(self.path, self.rid, f"{where}: {problem}")

    def item(self, n: int, item: dict) -> Any:
        (key, body), = item.items()
        if key == "test":
            return self.test(f"match #{n} (test)", body, self.variables)
        if key in ("not", "exists"):
            return self.group(n, key, body)
        if key == "either":
            return self.either(n, body)
        return self.pattern(f"match #{n} ({key})", key, body, self.variables, top=True)

    def group(self, n: int, key: str, body: Any) -> Any:
        where = f"match #{n} ({key})"
        if isinstance(body, dict) and len(body) == 1 and "test" not in body:
            (kind, fields), = body.items()
            if not isinstance(fields, dict):
                raise self.error(where, f"{key}: takes a pattern {{KIND: {{FIELD: VALUE}}}} or a list of them")
            p = self.pattern(f"{where} {kind}", kind, fields, list(self.variables), top=False)
            if key == "exists":
                return Exists((p,))
            # a variable only this negated pattern names matches anything there
            return Pattern(p.kind, tuple(f for f in p.fields if f[1] == "lit" or f[2] in self.variables), True)
        if not isinstance(body, list):
            raise self.error(where, f"{key}: takes a pattern {{KIND: {{FIELD: VALUE}}}} or a list of them")
        scope = list(self.variables)
        items: list[Pattern | Test] = []
        for m, sub in enumerate(body, start=1):
            (kind, fields), = sub.items()
            if kind == "test":
                items.append(self.test(f"{where} #{m} (test)", fields, scope))
            else:
                items.append(self.pattern(f"{where} #{m} ({kind})", kind, fields, scope, top=False))
        if not any(isinstance(i, Pattern) for i in items):
            raise self.error(where, f"{key}: needs at least one pattern")
        return NotAll(tuple(items)) if key == "not" else Exists(tuple(items))

    def either(self, n: int, body: Any) -> Either:
        """``either: [PATTERN, ...]``: the first item only; each alternative binds the same variables."""
        where = f"match #{n} (either)"
        if n != 1:
            raise self.error(where, "either: must be the first item of match:")
        if not isinstance(body, list) or len(body) < 2:
            raise self.error(where, "either: takes a list of two or more patterns {KIND: {FIELD: VALUE}}")
        alternatives: list[Pattern] = []
        bound: list[str] = []
        for m, sub in enumerate(body, start=1):
            (kind, fields), = sub.items()
            if kind == "test" or not isinstance(fields, dict):
                raise self.error(f"{where} #{m}", "either: takes patterns {KIND: {FIELD: VALUE}} only")
            scope: list[str] = []
            p = self.pattern(f"{where} #{m} ({kind})", kind, fields, scope, top=False)
            if m > 1 and set(scope) != set(bound):
                raise self.error(f"{where} #{m} ({kind})", f"binds {', '.join(scope) or 'no variable'}, but the first "
                                                           f"alternative binds {', '.join(bound) or 'none'}; every "
                                                           f"alternative binds the same variables")
            bound = bound or scope
            for f, how, v in p.fields:
                if how == "var" and f in SET_FIELDS:
                    self.set_vars.add(v)
            alternatives.append(p)
        self.variables.extend(v for v in bound if v not in self.variables)
        self.positive += 1
        return Either(tuple(alternatives))

    def pattern(self, where: str, kind: str, body: Any, scope: list, top: bool) -> Pattern:
        if not isinstance(body, dict):
            raise self.error(where, f"a pattern is {{FIELD: VALUE, ...}}, got {clip(body, 60)}")
        fields = []
        new: list[str] = []
        for name, value in body.items():
            if name not in KINDS[kind]:
                raise self.error(where, f"a {kind} fact has no field {clip(name, 60)}; its fields: "
                                        f"{', '.join(KINDS[kind])}{hint(str(name), KINDS[kind])}")
            term = self.value(where, name, value)
            if term is None:
                continue
            fields.append((name, *term))
            if term[0] == "var" and term[1] not in scope and term[1] not in new:
                new.append(term[1])
                if top and name in SET_FIELDS:
                    self.set_vars.add(term[1])
        if top:
            self.positive += 1
            shared = {f[2] for f in fields if f[1] == "var"} & set(scope)
            if self.positive > 1 and not shared and kind not in self.setup_kinds:
                raise self.error(where, "shares no variable with the patterns before it, so every pair of facts "
                                        "would match; join it with a variable")
        scope.extend(new)
        return Pattern(kind, tuple(fields))

    def value(self, where: str, name: str, value: Any) -> tuple | None:
        if value is None or isinstance(value, (bool, int, float)):
            return ("lit", value)
        if value == "_":
            return None
        if value == "ENVELOPE":
            return ("lit", "envelope")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            return ("lit", value[1:-1])
        if _IDENT.fullmatch(value) and value not in self.constants:
            return ("var", value)
        raise self.error(where, f"{name}: {clip(value, 60)} is not a pattern value: write a name (a variable), "
                                f"_ (anything), ENVELOPE, a quoted literal (\"'rope'\"), a number, true/false or "
                                f"null; compare other values in a test: item")

    def test(self, where: str, source: Any, scope: list) -> Test:
        if not isinstance(source, str):
            raise self.error(where, f"a test is an expression in a string, got {clip(source, 60)}")
        try:
            tree = ast.parse(source.strip(), mode="eval").body
        except SyntaxError as exc:
            raise self.error(where, f"{clip(source, 80)} is not an expression ({exc.msg})") from None
        expr = _Term(self, where, scope).convert(tree, 0)
        if not isinstance(expr, Op):
            raise self.error(where, f"{clip(source, 80)} is not a condition; write {_TEST_FORMS}")
        return Test(expr, source.strip())


class _Term:
    """An expression of a test, as an IR term."""

    def __init__(self, compiler: _Compiler, where: str, scope: list):
        self.c, self.where, self.scope = compiler, where, scope

    def convert(self, node: ast.AST, depth: int) -> Any:
        if depth > MAX_TEST_DEPTH:
            raise RuleLimitError(self.c.path, self.c.rid, f"{self.where}: nested over {MAX_TEST_DEPTH} deep "
                                                          f"(the limit on a test's depth)")
        d = depth + 1
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (str, int, float))):
            return Lit(node.value)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.Compare):
            terms = [self.convert(x, d) for x in (node.left, *node.comparators)]
            parts = [Op(_COMPARE[type(op)], (a, b)) for op, a, b in zip(node.ops, terms, terms[1:])
                     if type(op) in _COMPARE]
            if len(parts) != len(node.ops):
                raise self.bad(node)
            return _chain("and", parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and isinstance(node.right, ast.Set) \
                and len(node.right.elts) == 1:  # a multislot less one value: cards - {card}
            return Op("without", (self.convert(node.left, d), self.convert(node.right.elts[0], d)))
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            return Op(_ARITH[type(node.op)], (self.convert(node.left, d), self.convert(node.right, d)))
        if isinstance(node, ast.BoolOp):
            return _chain("and" if isinstance(node.op, ast.And) else "or", [self.convert(v, d) for v in node.values])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return Op("not", (self.convert(node.operand, d),))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
                and isinstance(node.operand.value, (int, float)):
            return Lit(-node.operand.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                and len(node.args) == 1 and not node.keywords:
            return Op("len", (self.convert(node.args[0], d),))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "subset" \
                and len(node.args) == 2 and not node.keywords:
            return Op("subset", (self.convert(node.args[0], d), self.convert(node.args[1], d)))
        raise self.bad(node)

    def name(self, name: str) -> Any:
        if name == "ENVELOPE":
            return Lit("envelope")
        if name not in self.scope:
            bound = ", ".join(self.scope) or "none"
            raise self.c.error(self.where, f"{name!r} is not a variable bound before the test (bound: {bound})"
                                           f"{hint(name, self.scope)}")
        return Var(name)

    def bad(self, node: ast.AST) -> RuleFileError:
        text = ast.unparse(node) if hasattr(ast, "unparse") else type(node).__name__
        return self.c.error(self.where, f"{clip(text, 80)} is not allowed in a test; write {_TEST_FORMS}")


def compile_term(source: Any, scope: Sequence[str], path: str = "", rid: str = "") -> Any:
    """The IR term of an expression written in a rule's conclusion (a
    ``then:`` field of a pure rule): a variable, a literal, ``ENVELOPE`` or
    the operators of a test (:data:`~clue_expert.engine.ir.OPERATORS`:
    ``low - 1``, ``cards - {card}``) over the variables in ``scope``; None
    when it is anything else (a library call, a comprehension ...)."""
    if isinstance(source, bool) or source is None:
        return Lit(source)
    if isinstance(source, (int, float)):
        return Lit(source)
    if not isinstance(source, str):
        return None
    try:
        tree = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None
    c = _Compiler(path, rid, (), (), 0)
    try:
        return _Term(c, "then", list(scope)).convert(tree, 0)
    except (RuleFileError, RuleLimitError):
        return None


def _chain(op: str, parts: list) -> Any:
    out = parts[0]
    for p in parts[1:]:
        out = Op(op, (out, p))
    return out


def hint(name: str, names) -> str:
    """``; did you mean X?`` naming the nearest of ``names``, or ''."""
    near = difflib.get_close_matches(name.lower(), list(names), n=3, cutoff=0.6) if len(name) <= 64 else []
    return f"; did you mean {', '.join(near)}?" if near else ""


def compile_match(items: list, path: str, rid: str, *, constants: tuple, setup_kinds: tuple,
                  max_positive: int) -> MatchResult:
    """A rule's ``match:`` items as IR nodes (see the module's docstring).
    ``constants`` are names that are not variables; a positive pattern after
    the first must share a variable with those before it unless its kind is
    one of ``setup_kinds``; at most ``max_positive`` positive patterns."""
    c = _Compiler(path, rid, constants, setup_kinds, max_positive)
    nodes = tuple(c.item(n, item) for n, item in enumerate(items, start=1))
    if c.positive == 0:
        raise RuleFileError(path, rid, "match: needs at least one pattern that is not negated")
    if c.positive > max_positive:
        raise RuleLimitError(path, rid, f"match: {c.positive} patterns that are not negated, over "
                                        f"{max_positive} (the limit on joined patterns per rule)")
    return MatchResult(nodes, c.variables, frozenset(c.set_vars))
