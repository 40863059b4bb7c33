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
"""
from __future__ import annotations

import ast
import operator
from typing import Any, Callable, Iterable, Mapping

from ..core.errors import ExpressionError

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

    __slots__ = ("source", "names", "_fn")

    def __init__(self, source: str, fn: Compiled, names: frozenset[str]):
        #: The text the expression was compiled from.
        self.source = source
        #: Free variable names the expression reads.
        self.names = names
        self._fn = fn

    def __call__(self, env: Env) -> Any:
        return self._fn(env)

    def __repr__(self) -> str:
        return f"Expression({self.source!r})"


def compile_expression(source: Any, variables: Iterable[str], functions: Mapping[str, Callable]) -> Expression:
    """Compile ``source`` against the bound ``variables`` and the whitelisted
    ``functions``.  Functions are looked up in the environment at call time
    under their own name, so the caller binds them per evaluation."""
    if isinstance(source, bool) or source is None or isinstance(source, (int, float)):
        value = source
        return Expression(repr(source), lambda env: value, frozenset())
    if not isinstance(source, str):
        raise ExpressionError(f"expression must be a string, got {type(source).__name__}: {source!r}")
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"syntax error in expression {source!r}: {exc.msg}") from None
    compiler = _Compiler(set(variables), functions, source)
    fn = compiler.visit(tree.body)
    return Expression(source, fn, frozenset(compiler.used))


class _Compiler:
    def __init__(self, variables: set[str], functions: Mapping[str, Callable], source: str):
        self.variables = variables
        self.functions = functions
        self.source = source
        self.used: set[str] = set()

    def fail(self, what: str) -> ExpressionError:
        return ExpressionError(f"{what} is not allowed in rule expressions (in {self.source!r})")

    def visit(self, node: ast.AST) -> Compiled:
        method = getattr(self, "v_" + type(node).__name__, None)
        if method is None:
            raise self.fail(f"{type(node).__name__} syntax")
        return method(node)

    # literals -------------------------------------------------------------
    def v_Constant(self, node: ast.Constant) -> Compiled:
        if not isinstance(node.value, (int, float, str, bool, type(None))):
            raise self.fail(f"constant {node.value!r}")
        value = node.value
        return lambda env: value

    def v_List(self, node: ast.List) -> Compiled:
        parts = [self.visit(e) for e in node.elts]
        return lambda env: [p(env) for p in parts]

    def v_Tuple(self, node: ast.Tuple) -> Compiled:
        parts = [self.visit(e) for e in node.elts]
        return lambda env: tuple(p(env) for p in parts)

    def v_Set(self, node: ast.Set) -> Compiled:
        parts = [self.visit(e) for e in node.elts]
        return lambda env: frozenset(p(env) for p in parts)

    # names ----------------------------------------------------------------
    def v_Name(self, node: ast.Name) -> Compiled:
        name = node.id
        if name in self.variables:
            self.used.add(name)
            return lambda env: env[name]
        if name in self.functions:
            raise self.fail(f"using function {name!r} without calling it")
        raise ExpressionError(
            f"unknown name {name!r} in expression {self.source!r}; bound here: "
            f"{', '.join(sorted(self.variables)) or 'nothing'}")

    # operators ------------------------------------------------------------
    def v_BoolOp(self, node: ast.BoolOp) -> Compiled:
        parts = [self.visit(v) for v in node.values]
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
            return lambda env: -inner(env)
        raise self.fail(f"operator {type(node.op).__name__}")

    def v_BinOp(self, node: ast.BinOp) -> Compiled:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.fail(f"operator {type(node.op).__name__}")
        left, right = self.visit(node.left), self.visit(node.right)
        if op is operator.sub:
            def sub(env):
                a, b = left(env), right(env)
                if isinstance(a, (set, frozenset)) and not isinstance(b, (set, frozenset)):
                    b = frozenset(b)
                return a - b
            return sub
        return lambda env: op(left(env), right(env))

    def v_Compare(self, node: ast.Compare) -> Compiled:
        left = self.visit(node.left)
        ops = []
        for op, comp in zip(node.ops, node.comparators):
            fn = _CMPOPS.get(type(op))
            if fn is None:
                raise self.fail(f"comparison {type(op).__name__}")
            ops.append((fn, self.visit(comp)))

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
        if not isinstance(node.func, ast.Name):
            raise self.fail("calling anything but a library function")
        name = node.func.id
        if name not in self.functions:
            raise ExpressionError(
                f"unknown function {name!r} in expression {self.source!r}; "
                f"the rule library has: {', '.join(sorted(self.functions))}")
        if node.keywords:
            raise self.fail("keyword arguments")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail("*args")
        args = [self.visit(a) for a in node.args]
        fn = self.functions[name]
        if len(args) == 1:
            a0 = args[0]
            return lambda env: fn(env["__lib__"], a0(env))
        if len(args) == 2:
            a0, a1 = args
            return lambda env: fn(env["__lib__"], a0(env), a1(env))
        return lambda env: fn(env["__lib__"], *[a(env) for a in args])

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

        def run(env):
            inner = dict(env)
            out = []
            for item in iterable(env):
                inner[var] = item
                if all(c(inner) for c in conds):
                    out.append(elt(inner))
            return make(out)
        return run

    def v_ListComp(self, node: ast.ListComp) -> Compiled:
        return self._comprehension(node, list)

    def v_SetComp(self, node: ast.SetComp) -> Compiled:
        return self._comprehension(node, frozenset)
