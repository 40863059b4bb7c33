"""A small, whitelisted expression language for rule files.

Expressions are written in a tiny subset of Python syntax and parsed with
:func:`ast.parse`, but never handed to ``eval``/``exec``: the syntax tree is
checked against a whitelist and translated into plain Python closures.  What is
allowed:

* literals (numbers, strings, ``True``/``False``/``None``), lists, tuples, sets;
* names bound by the rule (fact fields, ``let`` and ``for`` variables) and the
  functions of the rule library (see :mod:`clue_expert.library`);
* ``and``/``or``/``not``, comparisons (``== != < <= > >= in not in is is not``),
  ``+ - & | *`` and unary minus, ``a if c else b``;
* calls of library functions with positional arguments;
* one-generator list/set comprehensions (``[f(x) for x in xs if g(x)]``).

Attribute access, subscripts, keyword arguments, lambdas, imports, assignment
expressions and everything else are rejected with an :class:`ExpressionError`
that says what was found.  Unknown names are rejected when the rule is loaded,
not silently read as ``None`` at run time.

Rule files are untrusted input, so the language is bounded (the limits below,
listed in ``docs/limits.md``): when loaded, an expression's length, its
nesting, its size and its comprehensions; when run, every value it builds
(sequence length, integer size, the total size of nested collections) and the
work it does, counted in steps against a :class:`Budget` that the knowledge
binds as ``__budget__`` (names starting with ``__`` are the evaluator's, never
a rule's).  Exceeding a run-time limit raises :class:`LimitError`, which the
knowledge reports as a :class:`~clue_expert.core.errors.RuleLimitError`
naming the file and the rule.
"""
from __future__ import annotations

import ast
import difflib
import inspect
import operator
import time
from typing import Any, Callable, Iterable, Mapping

from ...core import work
from ...core.errors import ExpressionError

# --- load-time limits ---------------------------------------------------------
#: Characters of one expression's source.
MAX_SOURCE = 2_000
#: Nesting of the syntax tree (and of brackets in the source, checked before parsing).
MAX_DEPTH = 32
#: Syntax-tree nodes of one expression.
MAX_NODES = 400
#: Comprehensions in one expression.
MAX_COMPREHENSIONS = 4
#: Magnitude of an integer literal (and of any integer a rule computes).
MAX_INT = 2 ** 64

# --- run-time limits ------------------------------------------------------------
#: Length of a string, list, tuple or set a rule builds, or iterates over in a
#: comprehension or a ``for:``.
MAX_LENGTH = 10_000
#: Total size of a nested value a rule builds: elements counted at every level
#: (a shared part once per occurrence), a string as one plus a sixteenth of its length.
MAX_VALUE = 100_000
#: Evaluation steps per rule firing (one per element iterated, times the size of
#: the expression evaluated for it, plus the size of every collection built).
RULE_STEPS = 200_000
#: Evaluation steps per request (one observation or one decision request: every
#: rule firing it sets off, together).
RUN_STEPS = 2_000_000
#: Wall-clock seconds per request.
RUN_SECONDS = 10.0
#: Units of work the library calls of one request may do in all (the exact
#: beliefs: table entries times the moves tried on each; the interrogation
#: search: asks valued times players; the board: squares visited, squares
#: times sweeps of value iteration), charged through :mod:`clue_expert.core.work`.
#: The largest request of a shipped seat measured did 16,047,765 units
#: (master-detective at 6 players with clue-expert-information-gain, 2 games;
#: cluedo at 6 players 10,597,704); the exact beliefs do about 10-12 million
#: units a second here, so the old 200,000,000 let a request run past the
#: 10 s clock.  Past it the beliefs stop and their stand-in answers (see
#: :meth:`Budget.late`); other costly work fails the request.
RUN_WORK = 50_000_000
_CLOCK_EVERY = 20_000  # steps between looks at the clock
#: Characters of a message a rule formats (a ``message:`` or a
#: ``contradiction:`` with its placeholders filled in); past it the text is cut
#: and ends with :data:`CUT_NOTE`.
MAX_MESSAGE = 4_000
#: Characters of a message template once a file's parameters are folded into it (checked when loaded).
MAX_TEMPLATE = 20_000
#: What ends a message cut at :data:`MAX_MESSAGE`.
CUT_NOTE = " … [message cut at {n:,} characters: the limit on a rule's message]"


def cap_message(text: str) -> str:
    """A formatted message cut at :data:`MAX_MESSAGE` characters, with a note saying so."""
    if len(text) <= MAX_MESSAGE:
        return text
    return text[:MAX_MESSAGE] + CUT_NOTE.format(n=MAX_MESSAGE)


class LimitError(ExpressionError):
    """A run-time limit of the rule language was exceeded (the knowledge
    names the file and the rule)."""


class Budget:
    """The work a request may do: a step counter with a per-firing and a
    per-request limit and a wall-clock deadline.  ``start_run`` begins a
    request, ``start_rule`` a rule firing; evaluation ``charge``s steps."""

    __slots__ = ("steps", "rule_left", "limit", "deadline", "work", "work_check")

    def __init__(self):
        self.start_run()

    def start_run(self) -> None:
        """A new request: the counters start afresh."""
        self.steps = 0
        self.work = 0
        self.work_check = _CLOCK_EVERY  # units of library work before the clock is looked at
        self.rule_left = RULE_STEPS
        self.deadline = time.monotonic() + RUN_SECONDS
        self.limit = min(RUN_STEPS, _CLOCK_EVERY)

    def start_rule(self) -> None:
        """A new rule firing."""
        self.rule_left = RULE_STEPS

    def charge(self, n: int) -> None:
        """Count ``n`` steps; raise :class:`LimitError` past a limit."""
        self.rule_left -= n
        self.steps += n
        if self.rule_left < 0 or self.steps > self.limit:
            self._over()

    def charge_work(self, units: int, what: str) -> None:
        """Count ``units`` of a library call's work (``what`` names it): raise
        :class:`LimitError` past :data:`RUN_WORK`, or past the deadline --
        the clock is looked at every 20,000 units of library work, as the
        evaluation steps are every 20,000 steps (a call that does costly work
        charges many units), so a request of light calls is not failed by
        time spent outside the rules (the completion step on a loaded machine)."""
        self.work += units
        if self.work > RUN_WORK:
            raise LimitError(f"request's library calls did more than {RUN_WORK:,} units of work (at {what}; "
                             f"the limit on library work per observation or decision)")
        if self.work < self.work_check:
            return
        self.work_check = self.work + _CLOCK_EVERY
        if time.monotonic() > self.deadline:
            raise LimitError(f"request ran longer than {RUN_SECONDS:g} s (at {what}; the wall-clock limit per "
                             f"observation or decision)")

    def late(self) -> bool:
        """Whether the request is spent: its deadline has passed, or its
        library calls have done :data:`RUN_WORK` units of work (work with a
        cheap stand-in -- the exact beliefs -- then uses it instead)."""
        return self.work >= RUN_WORK or time.monotonic() > self.deadline

    def _over(self) -> None:
        if self.rule_left < 0:
            raise LimitError(f"rule firing used more than {RULE_STEPS:,} evaluation steps "
                             f"(the limit per rule firing)")
        if self.steps > RUN_STEPS:
            raise LimitError(f"request used more than {RUN_STEPS:,} evaluation steps "
                             f"(the limit per observation or decision)")
        if time.monotonic() > self.deadline:
            raise LimitError(f"request ran longer than {RUN_SECONDS:g} s "
                             f"(the wall-clock limit per observation or decision)")
        self.limit = min(RUN_STEPS, self.steps + _CLOCK_EVERY)


_SCALARS = frozenset({str, int, float, bool, type(None)})
_NESTED = (list, tuple, set, frozenset)


def _weigh(value, env) -> None:
    """Check the total size of a collection just built (every level, shared
    parts counted once per occurrence) and charge it as steps."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        total += len(v) + 1
        if total > MAX_VALUE:
            raise LimitError(f"a value of total size over {MAX_VALUE:,} (the limit on nested values)")
        for x in v:
            tx = type(x)
            if tx is str:
                total += len(x) >> 4
            elif tx not in _SCALARS and isinstance(x, _NESTED):
                stack.append(x)
    if total > MAX_VALUE:
        raise LimitError(f"a value of total size over {MAX_VALUE:,} (the limit on nested values)")
    _budget(env).charge(total)


def _check_small(out, env):
    """A literal collection: flat and short is free, anything else is weighed.
    A library call's tuple is checked too, a fact key's record included
    (``isinstance``: a key is a tuple's subclass, ``Held(...)`` nested in
    itself is weighed like the plain tuple it was)."""
    for x in out:
        tx = type(x)
        if tx not in _SCALARS or (tx is str and len(x) > 64):
            _weigh(out, env)
            break
    return out


def _budget(env) -> "Budget":
    """The environment's budget; evaluated outside a knowledge, one is made
    and kept in the environment."""
    b = env.get("__budget__")
    if b is None:
        b = env["__budget__"] = Budget()
    return b


def _int_ok(r):
    if type(r) is int and not -MAX_INT <= r <= MAX_INT:
        raise LimitError("an integer beyond ±2**64 (the limit on integers)")
    return r


def _length_error(n) -> LimitError:
    return LimitError(f"a sequence of {n:,} elements, over {MAX_LENGTH:,} (the limit on lengths)")


def _mul(a, b, env):
    ta, tb = type(a), type(b)
    if ta in _NUMBERS and tb in _NUMBERS:
        return _int_ok(a * b)
    if isinstance(b, int) and isinstance(a, (str, list, tuple)):
        seq, n = a, b
    elif isinstance(a, int) and isinstance(b, (str, list, tuple)):
        seq, n = b, a
    else:
        return a * b  # a TypeError, reported as the rule's
    if len(seq) * n > MAX_LENGTH:
        raise _length_error(len(seq) * n)
    out = a * b
    if type(out) is not str:
        _weigh(out, env)
    return out


def _add(a, b, env):
    ta = type(a)
    if ta in _NUMBERS and type(b) in _NUMBERS:
        return _int_ok(a + b)
    if isinstance(a, (str, list, tuple)) and isinstance(b, (str, list, tuple)):
        if len(a) + len(b) > MAX_LENGTH:
            raise _length_error(len(a) + len(b))
        out = a + b
        if type(out) is not str:
            _weigh(out, env)
        return out
    return a + b


_NUMBERS = frozenset({int, float, bool})

# One comparison, written out (``True if ... else False`` is what the general
# loop in _Compiler.v_Compare returns): (against an expression, against a constant).
_ONE_COMPARE = {
    ast.Eq: (lambda l, r: lambda env: True if l(env) == r(env) else False,
             lambda l, v: lambda env: True if l(env) == v else False),
    ast.NotEq: (lambda l, r: lambda env: True if l(env) != r(env) else False,
                lambda l, v: lambda env: True if l(env) != v else False),
    ast.Lt: (lambda l, r: lambda env: True if l(env) < r(env) else False,
             lambda l, v: lambda env: True if l(env) < v else False),
    ast.LtE: (lambda l, r: lambda env: True if l(env) <= r(env) else False,
              lambda l, v: lambda env: True if l(env) <= v else False),
    ast.Gt: (lambda l, r: lambda env: True if l(env) > r(env) else False,
             lambda l, v: lambda env: True if l(env) > v else False),
    ast.GtE: (lambda l, r: lambda env: True if l(env) >= r(env) else False,
              lambda l, v: lambda env: True if l(env) >= v else False),
    ast.In: (lambda l, r: lambda env: True if l(env) in r(env) else False,
             lambda l, v: lambda env: True if l(env) in v else False),
    ast.NotIn: (lambda l, r: lambda env: True if l(env) not in r(env) else False,
                lambda l, v: lambda env: True if l(env) not in v else False),
}

Env = dict
Compiled = Callable[[Env], Any]

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_, ast.Mult: operator.mul,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


class Expression:
    """A compiled expression: call it with an environment mapping."""

    __slots__ = ("source", "names", "calls", "_fn", "fn")

    def __init__(self, source: str, fn: Compiled, names: frozenset[str], calls: frozenset[str] = frozenset()):
        #: The text the expression was compiled from.
        self.source = source
        #: Free variable names the expression reads.
        self.names = names
        #: The library functions the expression calls.
        self.calls = calls
        self._fn = fn
        #: The compiled closure itself (``fn(env)`` is ``self(env)`` without
        #: the method call: the knowledge's hot loop calls it directly).
        self.fn = fn

    def __call__(self, env: Env) -> Any:
        return self._fn(env)

    def __repr__(self) -> str:
        return f"Expression({self.source!r})"


def compile_expression(source: Any, variables: Iterable[str], functions: Mapping[str, Callable],
                       constants: Mapping[str, Any] | None = None) -> Expression:
    """Compile ``source`` against the bound ``variables`` and the whitelisted
    ``functions``.  Functions are looked up in the environment at call time
    under their own name, so the caller binds them per evaluation.
    ``constants`` (a rule file's parameters) are names whose values are
    folded in now."""
    if isinstance(source, bool) or source is None or isinstance(source, (int, float)):
        if isinstance(source, int) and not isinstance(source, bool) and not -MAX_INT <= source <= MAX_INT:
            raise LimitError("an integer beyond ±2**64 (the limit on integers)")
        value = source
        return Expression(repr(source), lambda env: value, frozenset())
    if not isinstance(source, str):
        raise ExpressionError(f"expression must be a string, got {type(source).__name__}: {clip(source)}")
    if len(source) > MAX_SOURCE:
        raise LimitError(f"expression {clip(source, 60)} is {len(source):,} characters long, "
                         f"over {MAX_SOURCE:,} (the limit on an expression's length)")
    _check_brackets(source)
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"syntax error in expression {clip(source)}: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ExpressionError(f"expression {clip(source, 60)} cannot be parsed ({type(exc).__name__})") from None
    _check_tree(tree, source)
    compiler = _Compiler(set(variables), functions, source, dict(constants or {}))
    try:
        fn = compiler.visit(tree.body)
    except RecursionError:  # pragma: no cover - _check_tree bounds the depth first
        raise LimitError(f"expression {clip(source, 60)} is nested too deeply "
                         f"(the limit is {MAX_DEPTH} levels)") from None
    return Expression(source, fn, frozenset(compiler.used), frozenset(compiler.calls))


def clip(value: Any, limit: int = 200) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for error messages
    (a rule file's values can be huge)."""
    if isinstance(value, str):
        text = repr(value[:limit + 1])
    elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        text = f"<an integer of {value.bit_length()} bits>"
    elif isinstance(value, (int, float, bool, type(None))):
        text = repr(value)
    elif isinstance(value, (list, tuple, dict, set, frozenset)):
        text = f"<a {type(value).__name__} of {len(value)} items>"
    else:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "…"


def _check_brackets(source: str) -> None:
    """Refuse deep nesting before the parser (and the compiler) recurse into it."""
    depth = deepest = 0
    for ch in source:
        if ch in "([{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch in ")]}":
            depth -= 1
    if deepest > MAX_DEPTH:
        raise LimitError(f"expression {clip(source, 60)} nests brackets {deepest} deep, "
                         f"over {MAX_DEPTH} (the limit on nesting)")


def _check_tree(tree: ast.AST, source: str) -> None:
    """Depth, size and comprehensions of a parsed expression (iteratively: a
    recursive walk is what a hostile expression would break)."""
    nodes = comprehensions = 0
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH:
            raise LimitError(f"expression {clip(source, 60)} is nested more than {MAX_DEPTH} levels deep "
                             f"(the limit on nesting)")
        if nodes > MAX_NODES:
            raise LimitError(f"expression {clip(source, 60)} has more than {MAX_NODES} parts "
                             f"(the limit on an expression's size)")
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            comprehensions += 1
            if comprehensions > MAX_COMPREHENSIONS:
                raise LimitError(f"expression {clip(source, 60)} has more than {MAX_COMPREHENSIONS} "
                                 f"comprehensions (the limit per expression)")
        if isinstance(node, ast.Name) and node.id.startswith("__"):
            raise ExpressionError(f"the name {node.id!r} is not allowed in rule expressions: names "
                                  f"starting with '__' are the evaluator's (in {clip(source, 60)})")
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + 1))


def public_functions(functions: Mapping[str, Callable]) -> list[str]:
    """The names of a function table a rule may call (never internal ``_`` names)."""
    return sorted(n for n in functions if not n.startswith("_"))


def _nearest_functions(name: str, functions: Mapping[str, Callable]) -> str:
    """``; did you mean a, b?`` with the nearest library functions (a few, never the whole table)."""
    names = public_functions(functions)
    if len(name) > 64:
        return ""
    near = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    if not near:  # a case slip or a prefix ("Held", "envelope")
        low = name.lower()
        near = [n for n in names if n.lower() == low][:3] or \
            [n for n in names if low and (n.lower().startswith(low) or low.startswith(n.lower()))][:3]
    if near:
        return f"; did you mean {', '.join(near)}?"
    return "; the functions are listed in docs/rule-language.md"


def _check_arity(name: str, fn: Callable, given: int, source: str) -> None:
    """Refuse a call with the wrong number of arguments when the rule is loaded
    (the first parameter of a library function is the knowledge, supplied implicitly)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return
    params = list(sig.parameters.values())[1:]
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    least = sum(1 for p in positional if p.default is p.empty)
    most = len(positional)
    if least <= given <= most:
        return
    shown = ", ".join(p.name if p.default is p.empty else f"[{p.name}]"
                      for p in positional if not p.name.startswith("_"))
    most = sum(1 for p in positional if not p.name.startswith("_")) or least  # hidden optional ones aside
    want = (f"{most}" if least == most else f"{least} to {most}") + \
        (" argument" if most == 1 and least == most else " arguments")
    raise ExpressionError(f"{name}({shown}) takes {want}, got {given} (in {clip(source)})")


def _metered_call(fn: Callable, name: str, args: list) -> Compiled:
    """A call that may set off costly work: the work is charged to this
    request's budget (clue_expert.core.work), which looks at the clock."""
    meter = work.METER
    what = f"{name}()"
    soft = getattr(fn, "soft", False)

    def metered_call(env):
        b = _budget(env)
        if not soft:  # counted (the clock is looked at as the work adds up); a soft one,
            b.charge_work(1, what)  # past the deadline, answers from its cheap stand-in instead
        token = meter.set(b)
        try:
            r = fn(env["__lib__"], *[a(env) for a in args])
        finally:
            meter.reset(token)
        return _check_small(r, env) if isinstance(r, tuple) else r
    return metered_call


def _plain_call(fn: Callable, args: list, var: list) -> Compiled:
    """A library call, specialised for one or two arguments (a variable's
    name read without a closure: the calls rules make most, per firing)."""
    if len(args) == 1 and var[0] is not None:
        n0 = var[0]

        def call1v(env):
            r = fn(env["__lib__"], env[n0])
            return _check_small(r, env) if isinstance(r, tuple) else r
        return call1v
    if len(args) == 2 and var[0] is not None and var[1] is not None:
        m0, m1 = var[0], var[1]

        def call2v(env):
            r = fn(env["__lib__"], env[m0], env[m1])
            return _check_small(r, env) if isinstance(r, tuple) else r
        return call2v
    if len(args) == 1:
        a0 = args[0]

        def call1(env):
            r = fn(env["__lib__"], a0(env))
            return _check_small(r, env) if isinstance(r, tuple) else r
        return call1
    if len(args) == 2:
        a0, a1 = args

        def call2(env):
            r = fn(env["__lib__"], a0(env), a1(env))
            return _check_small(r, env) if isinstance(r, tuple) else r
        return call2

    def call(env):
        r = fn(env["__lib__"], *[a(env) for a in args])
        return _check_small(r, env) if isinstance(r, tuple) else r
    return call


class _Compiler:
    def __init__(self, variables: set[str], functions: Mapping[str, Callable], source: str,
                 constants: dict | None = None):
        self.variables = variables
        self.functions = functions
        self.source = source
        self.constants = constants or {}
        self.used: set[str] = set()
        #: The functions called (:attr:`Expression.calls`).
        self.calls: set[str] = set()

    def _constant(self, node: ast.AST) -> tuple | None:
        """``(value,)`` when the node is a literal number, string, flag or
        None, or a rule file's parameter (folded in); None otherwise."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
            return (node.value,)
        if isinstance(node, ast.Name) and node.id not in self.variables and node.id in self.constants:
            return (self.constants[node.id],)
        return None

    def fail(self, what: str) -> ExpressionError:
        return ExpressionError(f"{what} is not allowed in rule expressions (in {clip(self.source)})")

    def visit(self, node: ast.AST) -> Compiled:
        method = getattr(self, "v_" + type(node).__name__, None)
        if method is None:
            raise self.fail(f"{type(node).__name__} syntax")
        return method(node)

    # literals -------------------------------------------------------------
    def v_Constant(self, node: ast.Constant) -> Compiled:
        if not isinstance(node.value, (int, float, str, bool, type(None))):
            raise self.fail(f"constant {clip(node.value)}")
        value = node.value
        if type(value) is int and not -MAX_INT <= value <= MAX_INT:
            raise LimitError(f"an integer beyond ±2**64 in {clip(self.source, 60)} (the limit on integers)")
        return lambda env: value

    def v_List(self, node: ast.List) -> Compiled:
        parts = [self.visit(e) for e in node.elts]
        return lambda env: _check_small([p(env) for p in parts], env)

    def v_Tuple(self, node: ast.Tuple) -> Compiled:
        parts = [self.visit(e) for e in node.elts]
        return lambda env: _check_small(tuple([p(env) for p in parts]), env)

    def v_Set(self, node: ast.Set) -> Compiled:
        parts = [self.visit(e) for e in node.elts]
        return lambda env: frozenset(_check_small([p(env) for p in parts], env))

    # names ----------------------------------------------------------------
    def v_Name(self, node: ast.Name) -> Compiled:
        name = node.id
        if name in self.variables:
            self.used.add(name)
            return operator.itemgetter(name)  # env[name], without a Python frame
        if name in self.constants:  # a parameter of the rule file: its value, folded in
            value = self.constants[name]
            return lambda env: value
        if name in self.functions:
            raise self.fail(f"using function {name!r} without calling it")
        raise ExpressionError(
            f"unknown name {name!r} in expression {clip(self.source)}; bound here: "
            f"{', '.join(sorted(self.variables | set(self.constants))) or 'nothing'}")

    # operators ------------------------------------------------------------
    def v_BoolOp(self, node: ast.BoolOp) -> Compiled:
        parts = [self.visit(v) for v in node.values]
        if len(parts) == 2:  # the same values as the loops below, without them
            p0, p1 = parts
            if isinstance(node.op, ast.And):
                return lambda env: p0(env) and p1(env)
            return lambda env: p0(env) or p1(env)
        if len(parts) == 3:
            p0, p1, p2 = parts
            if isinstance(node.op, ast.And):
                return lambda env: p0(env) and p1(env) and p2(env)
            return lambda env: p0(env) or p1(env) or p2(env)
        if isinstance(node.op, ast.And):
            def and_(env):
                result = True
                for p in parts:
                    result = p(env)
                    if not result:
                        return result
                return result
            return and_

        def or_(env):
            result = False
            for p in parts:
                result = p(env)
                if result:
                    return result
            return result
        return or_

    def v_UnaryOp(self, node: ast.UnaryOp) -> Compiled:
        inner = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            return lambda env: not inner(env)
        if isinstance(node.op, ast.USub):
            return lambda env: _int_ok(-inner(env))
        raise self.fail(f"operator {type(node.op).__name__}")

    def v_BinOp(self, node: ast.BinOp) -> Compiled:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.fail(f"operator {type(node.op).__name__}")
        left, right = self.visit(node.left), self.visit(node.right)
        if op is operator.sub:
            def sub(env):
                a, b = left(env), right(env)
                if type(a) is frozenset and type(b) is frozenset:
                    return a - b  # the common case: what the general path below returns
                if isinstance(a, (set, frozenset)) and not isinstance(b, (set, frozenset)):
                    if len(b) > MAX_LENGTH:
                        raise _length_error(len(b))
                    b = frozenset(b)
                return _int_ok(a - b)
            return sub
        if op is operator.mul:
            return lambda env: _mul(left(env), right(env), env)
        if op is operator.add:
            return lambda env: _add(left(env), right(env), env)
        return lambda env: op(left(env), right(env))

    def v_Compare(self, node: ast.Compare) -> Compiled:
        left = self.visit(node.left)
        ops = []
        for op, comp in zip(node.ops, node.comparators):
            fn = _CMPOPS.get(type(op))
            if fn is None:
                raise self.fail(f"comparison {type(op).__name__}")
            ops.append((fn, self.visit(comp)))
        if len(ops) == 1:  # one operator: the loop below, unrolled (left operand first, as there)
            make = _ONE_COMPARE.get(type(node.ops[0]))
            if make is not None:
                const = self._constant(node.comparators[0])
                if const is not None:
                    return make[1](left, const[0])
                return make[0](left, ops[0][1])

        def compare(env):
            a = left(env)
            for fn, comp in ops:
                b = comp(env)
                if not fn(a, b):
                    return False
                a = b
            return True
        return compare

    def v_IfExp(self, node: ast.IfExp) -> Compiled:
        test, body, orelse = self.visit(node.test), self.visit(node.body), self.visit(node.orelse)
        return lambda env: body(env) if test(env) else orelse(env)

    # calls ----------------------------------------------------------------
    def v_Call(self, node: ast.Call) -> Compiled:
        name = self._library_function(node)
        self.calls.add(name)
        args = [self.visit(a) for a in node.args]
        fn = self.functions[name]
        if getattr(fn, "costly", False):
            return _metered_call(fn, name, args)
        # A result that is a tuple may embed the arguments (fact references):
        # weighed like a literal, so nesting cannot grow a value without bound.
        var = [a.id if isinstance(a, ast.Name) and a.id in self.variables else None for a in node.args]
        return _plain_call(fn, args, var)

    def _library_function(self, node: ast.Call) -> str:
        """The name of the library function ``node`` calls, checked: a plain
        name of the table, positional arguments only, as many as it takes."""
        if not isinstance(node.func, ast.Name):
            raise self.fail("calling anything but a library function")
        name = node.func.id
        if name not in self.functions:
            raise ExpressionError(f"unknown function {clip(name, 60)} in expression {clip(self.source)}"
                                  + _nearest_functions(name, self.functions))
        if node.keywords:
            raise self.fail("keyword arguments")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail("*args")
        _check_arity(name, self.functions[name], len(node.args), self.source)
        return name

    # comprehensions -------------------------------------------------------
    def _comprehension(self, node, make):
        if len(node.generators) != 1:
            raise self.fail("a comprehension with more than one 'for'")
        gen = node.generators[0]
        if not isinstance(gen.target, ast.Name) or gen.is_async:
            raise self.fail("a comprehension target other than a single name")
        iterable = self.visit(gen.iter)
        var = gen.target.id
        added = var not in self.variables
        self.variables.add(var)
        try:
            conds = [self.visit(c) for c in gen.ifs]
            elt = self.visit(node.elt)
        finally:
            if added:
                self.variables.discard(var)
        self.used.discard(var)
        # steps per element: the size of what is evaluated for it
        cost = 1 + sum(1 for c in gen.ifs for _ in ast.walk(c)) + sum(1 for _ in ast.walk(node.elt))

        def run(env):
            items = iterable(env)
            try:
                n = len(items)
            except TypeError:  # an iterator: a library function's (bounded) result
                items = list(items)
                n = len(items)
            if n > MAX_LENGTH:
                raise _length_error(n)
            _budget(env).charge(n * cost)
            inner = dict(env)
            out = []
            for item in items:
                inner[var] = item
                if all(c(inner) for c in conds):
                    out.append(elt(inner))
            _check_small(out, env)
            return make(out)
        return run

    def v_ListComp(self, node: ast.ListComp) -> Compiled:
        return self._comprehension(node, list)

    def v_SetComp(self, node: ast.SetComp) -> Compiled:
        return self._comprehension(node, frozenset)
