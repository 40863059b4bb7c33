"""A rule's ``match:``, compiled to the IR of :mod:`clue_expert.engine.language.ir`.

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

Every test and every join is typed against the fact kinds' field types
(:func:`field_type`, :func:`typed`): an operator applies only to the types
it means the same thing for on experta and on CLIPS (ordering of names is
alphabetical by code point on both), or the file is refused at load.
"""
from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ...core.errors import RuleFileError, RuleLimitError
from ...core.facts import KINDS
from .expr import clip
from .ir import MAX_TEST_DEPTH, Either, Exists, Lit, NotAll, Op, Pattern, Test, Var

_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
#: Fields whose variables hold sets of cards (read as frozensets, like a trigger's ``cards``).
SET_FIELDS = ("cards", "matching")

# --- types --------------------------------------------------------------------------
#: The types of values a test reads, the same on both engines (CLIPS's slot types): a name
#: (a CLIPS symbol or string; ``symbol?`` when the field may be null: nil / None), an
#: integer, a boolean (TRUE/FALSE), a multislot of card names (a set: a fact keeps it
#: sorted) or of owner names (a list, in seat order), and the literal ``None``.
SYMBOL, MAYBE_NULL, INTEGER, BOOLEAN, CARDS, NAMES, NULL = (
    "symbol", "symbol?", "integer", "boolean", "cards", "names", "null")
_INTEGER_FIELDS = frozenset({"size", "turn", "n", "low", "high", "envelope", "round", "roll"})
#: Fields whose value may be null (None / nil): the card of a show the seat did not see, and
#: the seat of a spectator's game.
NULLABLE_FIELDS = frozenset({("showed", "card"), ("game", "me")})
#: The largest integer literal a test may write (CLIPS's integers are 64 bits, Python's unbounded).
MAX_INTEGER = 2 ** 31


def field_type(kind: str, name: str) -> str:
    """The type of field ``name`` of a ``kind`` fact (see :data:`SYMBOL` ...)."""
    if name in _INTEGER_FIELDS:
        return INTEGER
    if (kind, name) in (("owner", "player"), ("accused", "correct")):
        return BOOLEAN
    if name in SET_FIELDS:
        return CARDS
    if name == "players":
        return NAMES
    return MAYBE_NULL if (kind, name) in NULLABLE_FIELDS else SYMBOL


_TYPE_WORDS = {SYMBOL: "a name", MAYBE_NULL: "a name or null", INTEGER: "an integer", BOOLEAN: "a boolean",
               CARDS: "a list of cards", NAMES: "a list of names", NULL: "None"}
#: Ordering of names: alphabetical by code point, on both engines (Python's ``<`` on strings;
#: CLIPS ``(< (str-compare a b) 0)``, which compares UTF-8 bytes: the same order).
NAME_ORDER = {"<": "name<", "<=": "name<=", ">": "name>", ">=": "name>="}


class TypeProblem(Exception):
    """A test or conclusion whose operator does not apply to its operands' types."""


def _scalar(t: str) -> bool:
    return t in (SYMBOL, MAYBE_NULL, INTEGER, BOOLEAN, NULL)


def _same(a: str, b: str) -> bool:
    """Whether two types may be compared with == / != (the same meaning on both engines)."""
    names = (SYMBOL, MAYBE_NULL, NULL)
    if a in names and b in names:
        return True
    return a == b


def not_null(term: Any) -> set[str]:
    """The variables a condition, when true, says are not null (``x is not None``, and conjunctions of it)."""
    if isinstance(term, Op) and term.op == "!=" and len(term.args) == 2:
        a, b = term.args
        if isinstance(a, Var) and isinstance(b, Lit) and b.value is None:
            return {a.name}
        if isinstance(b, Var) and isinstance(a, Lit) and a.value is None:
            return {b.name}
    if isinstance(term, Op) and term.op == "and":
        return not_null(term.args[0]) | not_null(term.args[1])
    return set()


def typed(term: Any, types: Mapping[str, str]) -> tuple[Any, str]:
    """``term`` (an IR term) with ordering of names made explicit (``name<`` ...), and its
    type; :class:`TypeProblem` when an operator does not apply to its operands."""
    if isinstance(term, Var):
        return term, types.get(term.name, SYMBOL)
    if isinstance(term, Lit):
        return term, _literal_type(term.value)
    assert isinstance(term, Op)
    if term.op == "and":  # the right conjunct runs only when the left is true (both engines short-circuit)
        left = typed(term.args[0], types)
        narrowed = {**types, **{v: SYMBOL for v in not_null(term.args[0])}}
        parts = [left, typed(term.args[1], narrowed)]
    else:
        parts = [typed(a, types) for a in term.args]
    args = tuple(a for a, _ in parts)
    ts = [t for _, t in parts]
    return _operator_type(term.op, args, ts)


def _literal_type(v: Any) -> str:
    """The type of a literal (a name, an integer in range, a boolean, null)."""
    if v is None:
        return NULL
    if isinstance(v, bool):
        return BOOLEAN
    if isinstance(v, int):
        if abs(v) > MAX_INTEGER:
            raise TypeProblem(f"the integer {v} is out of range (at most {MAX_INTEGER:,} either way)")
        return INTEGER
    if isinstance(v, str):
        return SYMBOL
    raise TypeProblem(f"{clip(v, 40)} is {type(v).__name__}: a test compares names, integers and booleans")


def _operator_type(op: str, args: tuple, ts: list) -> tuple[Any, str]:
    """An operation on typed operands (types ``ts``): the IR term, ordering of
    names made explicit, and its type; :class:`TypeProblem` when ``op`` does not apply."""
    words = [_TYPE_WORDS[t] for t in ts]
    if op in ("==", "!="):
        if not _same(ts[0], ts[1]):
            raise TypeProblem(f"{op} compares {words[0]} with {words[1]}")
        return Op(op, args), BOOLEAN
    if op in NAME_ORDER or op in NAME_ORDER.values():
        if ts[0] == ts[1] == INTEGER:
            return Op(op, args), BOOLEAN
        if ts[0] in (SYMBOL,) and ts[1] in (SYMBOL,):
            return Op(NAME_ORDER.get(op, op), args), BOOLEAN
        if MAYBE_NULL in ts and all(t in (SYMBOL, MAYBE_NULL) for t in ts):
            raise TypeProblem(f"{op} orders a name that may be null (a show's card, the game's seat): test "
                              f"'x is not None' before it (CLIPS orders nil, Python cannot order None)")
        raise TypeProblem(f"{op} orders {words[0]} and {words[1]}: it orders two integers, or two names "
                          f"(alphabetically)")
    if op in ("+", "-"):
        if ts[0] == ts[1] == INTEGER:
            return Op(op, args), INTEGER
        raise TypeProblem(f"{op} takes two integers, not {words[0]} and {words[1]}")
    if op in ("in", "not-in"):
        if ts[1] not in (CARDS, NAMES):
            raise TypeProblem(f"{'in' if op == 'in' else 'not in'} looks in a list of cards or names, "
                              f"not in {words[1]}")
        if ts[0] not in (SYMBOL, MAYBE_NULL, NULL):
            raise TypeProblem(f"{'in' if op == 'in' else 'not in'} looks for a name, not {words[0]}")
        return Op(op, args), BOOLEAN
    if op == "len":
        if ts[0] not in (CARDS, NAMES):
            raise TypeProblem(f"len() takes a list of cards or names, not {words[0]}")
        return Op(op, args), INTEGER
    if op == "subset":
        if ts[0] not in (CARDS, NAMES) or ts[0] != ts[1]:
            raise TypeProblem(f"subset() takes two lists of cards (or of names), not {words[0]} and {words[1]}")
        return Op(op, args), BOOLEAN
    if op == "without":
        if ts[0] not in (CARDS, NAMES) or ts[1] not in (SYMBOL, MAYBE_NULL):
            raise TypeProblem(f"LIST - {{x}} takes a list of cards or names and a name, not {words[0]} "
                              f"and {words[1]}")
        return Op(op, args), ts[0]
    if op in ("and", "or", "not"):
        bad = [w for t, w in zip(ts, words) if t != BOOLEAN]
        if bad:
            raise TypeProblem(f"{op} takes conditions, not {bad[0]} (CLIPS reads every value but FALSE as true, "
                              f"Python 0 and empty lists as false: write a comparison)")
        return Op(op, args), BOOLEAN
    raise TypeProblem(f"unknown operator {op!r}")  # pragma: no cover - the parser makes no other


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
    types: dict = field(default_factory=dict)
    """Variable -> its type (:func:`field_type` of the field that first binds it)."""


def connected_first(items: list, outer: Sequence[str]) -> list:
    """The patterns and tests of a ``not:``/``exists:`` group in the order
    the engines join them: each time the first pattern that shares a
    variable with the rule's patterns before the group or with the group's
    patterns already placed (else the first left), and each test as soon as
    its variables are bound (after the first pattern), otherwise in the
    order written.  A conjunction
    means the same in any order; joined this way, a group keyed by the
    rule's variables (``[{owner: {name: p, player: true}}, {held: {owner: p,
    card: c}}]``, ``c`` bound before it) looks up the few facts that match
    it instead of joining every fact of its first pattern for each match of
    the rule: Kingston's Next-not-held made a fifth fewer partial matches."""
    bound = set(outer)
    patterns = [i for i in items if isinstance(i, Pattern)]
    tests = [i for i in items if not isinstance(i, Pattern)]
    out: list = []

    def place_tests() -> None:
        for t in list(tests):
            if set(t.variables) <= bound:
                out.append(t)
                tests.remove(t)

    while patterns:
        pick = next((p for p in patterns if any(how == "var" and v in bound for _, how, v in p.fields)), patterns[0])
        patterns.remove(pick)
        out.append(pick)
        bound.update(v for _, how, v in pick.fields if how == "var")
        place_tests()
    return out + tests


class _Compiler:
    """One rule's ``match:`` being compiled."""

    def __init__(self, path: str, rid: str, constants: tuple, setup_kinds: tuple, max_positive: int):
        self.path, self.rid = path, rid
        self.constants, self.setup_kinds, self.max_positive = constants, setup_kinds, max_positive
        self.variables: list[str] = []
        self.set_vars: set[str] = set()
        self.types: dict[str, str] = {}
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
        items = connected_first(items, self.variables)
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
            ftype = field_type(kind, name)
            if term[0] == "var":
                known = self.types.get(term[1])
                if (term[1] in scope or term[1] in new) and known is not None and not _same(known, ftype):
                    raise self.error(where, f"{name}: {term[1]!r} is {_TYPE_WORDS[known]} where it was bound, but "
                                            f"{kind}.{name} is {_TYPE_WORDS[ftype]}: the join would never match")
                if term[1] not in scope and term[1] not in new:
                    self.types[term[1]] = ftype
            elif ftype == INTEGER and not (isinstance(term[1], int) and not isinstance(term[1], bool)) \
                    or ftype == BOOLEAN and not isinstance(term[1], bool) \
                    or ftype in (SYMBOL, MAYBE_NULL) and not isinstance(term[1], str) \
                    and not (term[1] is None and ftype == MAYBE_NULL) or ftype in (CARDS, NAMES):
                raise self.error(where, f"{name}: {clip(term[1], 40)} is not {_TYPE_WORDS[ftype]}, the type "
                                        f"of {kind}.{name}")
            fields.append((name, *term))
            if term[0] == "var" and term[1] not in scope and term[1] not in new:
                new.append(term[1])
                if top and name in SET_FIELDS:
                    self.set_vars.add(term[1])
        if top:
            self.positive += 1
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
        try:
            expr, kind = typed(expr, self.types)
        except TypeProblem as exc:
            raise self.error(where, f"{clip(source.strip(), 80)}: {exc}") from None
        if kind != BOOLEAN:
            raise self.error(where, f"{clip(source.strip(), 80)} is {_TYPE_WORDS[kind]}, not a condition")
        if scope is self.variables:  # a test at the top: the items after it see the variable as a name
            for v in not_null(expr):
                if self.types.get(v) == MAYBE_NULL:
                    self.types[v] = SYMBOL
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


def compile_term(source: Any, scope: Sequence[str], path: str = "", rid: str = "",
                 types: Mapping[str, str] | None = None) -> Any:
    """The IR term of an expression written in a rule's conclusion (a
    ``then:`` field of a pure rule): a variable, a literal, ``ENVELOPE`` or
    the operators of a test (:data:`~clue_expert.engine.language.ir.OPERATORS`:
    ``low - 1``, ``cards - {card}``) over the variables in ``scope``; None
    when it is anything else (a library call, a comprehension ...).  With
    ``types`` (variable -> type), ordering of names is made explicit
    (:func:`typed`) and an ill-typed term raises :class:`TypeProblem`."""
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
        term = _Term(c, "then", list(scope)).convert(tree, 0)
    except (RuleFileError, RuleLimitError):
        return None
    if types is not None:
        term = typed(term, types)[0]
    return term


def pattern_types(nodes: Sequence[Any]) -> dict[str, str]:
    """Variable -> type of the variables a rule's top-level positive patterns
    bind (an ``either:``'s first alternative: they all bind alike)."""
    out: dict[str, str] = {}
    for node in nodes:
        for p in (node.items[:1] if isinstance(node, Either) else (node,)):
            if isinstance(p, Pattern) and not p.negated:
                for name, how, v in p.fields:
                    if how == "var" and v not in out:
                        out[v] = field_type(p.kind, name)
    return out


#: The type of each field of a conclusion a rule asserts.
def conclusion_types(kind: str) -> tuple[str, ...]:
    """The types of a ``held``/``lacked``/``one-of``/``not-all``/``bound``
    (or probable) conclusion's fields, in order."""
    fields = KINDS.get(kind.replace("probably-", ""), ())
    return tuple(field_type(kind, f) for f in fields)


def check_conclusion(kind: str, sources: Sequence[Any], nodes: Sequence[Any], path: str, rid: str) -> None:
    """A conclusion's fields that are terms over the patterns' variables
    (what a pure rule asserts inside the engine) type-checked against the
    kind's fields: :class:`RuleFileError` naming the file, the rule and the
    expression when one does not fit."""
    types = pattern_types(nodes)
    for n, (src, want) in enumerate(zip(sources, conclusion_types(kind)), start=1):
        source = getattr(src, "source", src)
        try:
            term = compile_term(source, tuple(types), path, rid, types=types)
        except TypeProblem as exc:
            raise RuleFileError(path, rid, f"then {kind} #{n}: {clip(str(source), 80)}: {exc}") from None
        if term is None:
            continue
        got = typed(term, types)[1]
        fits = _same(got, want) if want in (SYMBOL, MAYBE_NULL) else got == want
        if not fits and not (want == CARDS and got == NAMES):
            raise RuleFileError(path, rid, f"then {kind} #{n}: {clip(str(source), 80)} is {_TYPE_WORDS[got]}, "
                                           f"where {kind} takes {_TYPE_WORDS[want]}")


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
    ``constants`` are names that are not variables; at most
    ``max_positive`` positive patterns, joined in any order (on shared
    variables, through tests, or by nothing: the engines bound the work of
    the joins, :data:`~clue_expert.engine.language.ir.MAX_PARTIAL_MATCHES`);
    ``setup_kinds`` is kept for callers (no longer a constraint).  Every
    test is typed (:func:`typed`)."""
    c = _Compiler(path, rid, constants, setup_kinds, max_positive)
    nodes = tuple(c.item(n, item) for n, item in enumerate(items, start=1))
    if c.positive == 0:
        raise RuleFileError(path, rid, "match: needs at least one pattern that is not negated")
    if c.positive > max_positive:
        raise RuleLimitError(path, rid, f"match: {c.positive} patterns that are not negated, over "
                                        f"{max_positive} (the limit on joined patterns per rule)")
    return MatchResult(nodes, c.variables, frozenset(c.set_vars), dict(c.types))
