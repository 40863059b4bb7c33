"""No function in clue_expert/ is longer than 60 lines (issue 34), except
the few listed here, each at most as long as it is now: the list may only
shrink (a function split comes off it; a listed one may not grow; a new long
one fails)."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "clue_expert"

#: The longest a function may be, in lines (its decorators, signature and body).
LIMIT = 60

#: Functions still over the limit when the rule came in (path:function -> its length then).
#: Every one has been split (issue 34); none may be added.
STILL_LONG: dict[str, int] = {}


def long_functions(source: str, name: str, limit: int = LIMIT) -> dict[str, int]:
    """``name:function`` -> length of each function or method of ``source`` over ``limit`` lines
    (the longest of a name kept, when a module has two)."""
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            length = (node.end_lineno or node.lineno) - start + 1
            if length > limit:
                key = f"{name}:{node.name}"
                out[key] = max(out.get(key, 0), length)
    return out


def test_the_check_measures_decorators_and_bodies():
    body = "".join(f"    x{i} = {i}\n" for i in range(60))
    assert long_functions("def f():\n" + body, "m.py") == {"m.py:f": 61}
    assert long_functions("def f():\n" + body[: body.rindex("    x")], "m.py") == {}
    assert long_functions("class C:\n    @property\n    def g(self):\n" + body.replace("    ", "        "),
                          "m.py") == {"m.py:g": 62}


def test_no_function_is_longer_than_60_lines_but_the_listed_ones():
    found: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found.update(long_functions(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE))))
    new = {k: n for k, n in found.items() if k not in STILL_LONG}
    grown = {k: (STILL_LONG[k], n) for k, n in found.items() if k in STILL_LONG and n > STILL_LONG[k]}
    assert not new, f"split these functions (at most {LIMIT} lines each): {new}"
    assert not grown, f"these long functions grew (was, now): {grown}"
    done = sorted(set(STILL_LONG) - set(found))
    assert not done, f"these are {LIMIT} lines or fewer now: take them off STILL_LONG: {done}"
