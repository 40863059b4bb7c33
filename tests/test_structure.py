"""The seat's knowledge is split by concern (issue 24): no function of the
modules that replaced the one ``Knowledge`` class is longer than 80 lines,
and each of them is a module with a docstring."""
from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "clue_expert" / "engine" / "seat"

#: The modules ``Knowledge`` was split into (see docs/architecture.md).
SUCCESSORS = ("justify.py", "store.py", "decisions.py", "interpret.py", "completion.py", "ledger.py", "knowledge.py")

#: The longest a function of those modules may be, in lines (its decorators, signature and body).
MAX_FUNCTION_LINES = 80


def long_functions(source: str, name: str, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``name:line function (N lines)`` for each function or method of ``source`` longer than ``limit`` lines."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            length = (node.end_lineno or node.lineno) - start + 1
            if length > limit:
                out.append(f"{name}:{node.lineno} {node.name} ({length} lines)")
    return out


def _body(lines: int, indent: str = "    ") -> str:
    return "".join(f"{indent}x{i} = {i}\n" for i in range(lines))


def test_the_check_finds_a_long_function():
    assert long_functions(f"def f():\n{_body(80)}", "t.py") == ["t.py:1 f (81 lines)"]
    assert long_functions(f"def f():\n{_body(79)}", "t.py") == []
    # a method's decorators count; 1 + 1 + 78 lines is the most allowed
    method = "class C:\n    @property\n    def f(self):\n"
    assert long_functions(method + _body(78, " " * 8), "t.py") == []
    assert long_functions(method + _body(79, " " * 8), "t.py") == ["t.py:3 f (81 lines)"]


def test_no_function_of_the_knowledge_modules_is_longer_than_80_lines():
    offenders = [hit for name in SUCCESSORS for hit in long_functions((ENGINE / name).read_text(), name)]
    assert not offenders, f"split these functions (at most {MAX_FUNCTION_LINES} lines each): {offenders}"


def test_each_knowledge_module_says_what_it_holds():
    for name in SUCCESSORS:
        tree = ast.parse((ENGINE / name).read_text())
        assert ast.get_docstring(tree), f"{name} has no module docstring"
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                assert ast.get_docstring(node), f"{name}: class {node.name} has no docstring"
