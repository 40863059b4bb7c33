"""The frozendict==1.2 workaround lives in the experta adapter
(clue_expert/engine/engines/experta.py) only, and gives a working engine on
this Python; only the engine adapters import their engines."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "clue_expert"


def fresh_python(code: str, code_expected: int = 0) -> subprocess.CompletedProcess:
    """``code`` run by a fresh interpreter (nothing imported yet), which must exit with ``code_expected``."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == code_expected, (out.stdout, out.stderr)
    return out


def test_experta_works_in_a_fresh_interpreter():
    code = ("from clue_expert.engine.engines.experta import KnowledgeEngine, Rule, Fact, AS\n"
            "class F(Fact): pass\n"
            "hits = []\n"
            "class E(KnowledgeEngine):\n"
            "    @Rule(AS.f << F(x=1))\n"
            "    def r(self, f): hits.append(f['x'])\n"
            "e = E(); e.reset(); e.declare(F(x=1)); e.declare(F(x=2)); e.run()\n"
            "assert hits == [1], hits\n"
            "import experta, frozendict; print(experta.__version__)")
    assert fresh_python(code).stdout.strip() == "1.9.4"


#: The engine adapters: the only modules that import their engines (experta, clips).
ADAPTERS = {"experta": PACKAGE / "engine" / "engines" / "experta.py",
            "clips": PACKAGE / "engine" / "engines" / "clips.py"}


def test_only_the_adapters_import_their_engines():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for engine, adapter in ADAPTERS.items():
            if path != adapter and re.search(rf"^\s*(from|import)\s+{engine}\w*\b", path.read_text(), re.M):
                offenders.append(f"{path.name} imports {engine}")
    assert not offenders, f"import an engine only in its adapter module: {offenders}"


def test_only_the_kernels_import_numba():
    """numba compiles the DP's steps in clue_expert/engine/reasoning/kernels.py and nowhere else, imported
    inside the function that loads them (a command without exact beliefs never imports it)."""
    kernels = PACKAGE / "engine" / "reasoning" / "kernels.py"
    offenders = [path.name for path in PACKAGE.rglob("*.py")
                 if path != kernels and re.search(r"^\s*(from|import)\s+numba\b", path.read_text(), re.M)]
    assert not offenders, f"import numba only in kernels.py: {offenders}"
    assert not re.search(r"^(from|import)\s+numba\b", kernels.read_text(), re.M), "numba imported at module level"
    out = fresh_python("import sys, clue_expert.people.cli, clue_expert.engine; print('numba' in sys.modules)")
    assert out.stdout.strip() == "False", out.stdout


#: Which layers each layer may import (arrows point down only).
ALLOWED = {
    "core": {"core"},
    "engine": {"core", "engine"},
    "play": {"core", "engine", "play"},
    "testing": {"core", "engine", "play", "testing"},
    "people": {"core", "engine", "play", "testing", "people"},
}


def _imports(path: Path):
    """(line number, indented?, absolute target module) of each package import."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    here = list(rel.parts[:-1])
    for n, line in enumerate(path.read_text().splitlines(), 1):
        m = re.match(r"^(\s*)from (\.+)([\w.]*) import", line)
        if m:
            base = here[: len(here) - (len(m.group(2)) - 1)]
            target = ".".join(base + ([m.group(3)] if m.group(3) else []))
            yield n, bool(m.group(1)), target
        m = re.match(r"^(\s*)(?:from|import) (clue_expert[\w.]*)", line)
        if m:
            yield n, bool(m.group(1)), m.group(2)


def test_layers_point_one_way():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        if len(parts) < 2:
            continue
        layer = parts[0]
        for n, _, target in _imports(path):
            tparts = target.split(".")
            if len(tparts) >= 2 and tparts[1] in ALLOWED and tparts[1] not in ALLOWED[layer]:
                offenders.append(f"{path.relative_to(PACKAGE)}:{n} imports {target}")
    assert not offenders, offenders


def test_no_function_local_imports_of_the_package():
    offenders = [f"{path.relative_to(PACKAGE)}:{n} imports {target}"
                 for path in PACKAGE.rglob("*.py") for n, local, target in _imports(path) if local]
    assert not offenders, offenders


def test_only_render_imports_rich_and_only_cli_imports_argparse():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        if path.name != "render.py":
            assert not re.search(r"^\s*(from|import)\s+rich\b", text, re.M), path
        if path.parent.name != "cli":  # the command line's package: people/cli/
            assert not re.search(r"^\s*(from|import)\s+argparse\b", text, re.M), path


#: Optional packages, each imported by one module only (and only when used).
OPTIONAL_IMPORTERS = {
    "matplotlib": {"people/plots.py"},
    "distributed": {"play/cluster.py"},
    "dask": {"play/cluster.py"},
    "pyarrow": {"play/sweep.py"},
    # the web extra: only the server module, and only when `serve` runs
    "starlette": {"people/server.py"},
    "uvicorn": {"people/server.py"},
}


def test_optional_packages_have_one_importer_each():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        text = path.read_text()
        for package, allowed in OPTIONAL_IMPORTERS.items():
            if rel not in allowed and re.search(rf"^\s*(from|import)\s+{package}\b", text, re.M):
                offenders.append(f"{rel} imports {package}")
            # at the top of a module it would be needed by every command: only inside functions
            if re.search(rf"^(from|import)\s+{package}\b", text, re.M):
                offenders.append(f"{rel} imports {package} at module level")
    assert not offenders, offenders


def test_the_cli_starts_without_the_optional_packages():
    code = ("import sys\n"
            "for name in ('matplotlib', 'distributed', 'dask', 'pyarrow', 'starlette', 'uvicorn'): "
            "sys.modules[name] = None\n"
            "from clue_expert.people.cli import main\n"
            "raise SystemExit(main(['simulate', '--games', '1', '--workers', '1', '--json']))")
    fresh_python(code)


def test_serve_without_the_web_extra_says_which_to_install(tmp_path):
    code = ("import sys\n"
            "for name in ('starlette', 'uvicorn'): sys.modules[name] = None\n"
            "from clue_expert.people.cli import main\n"
            f"raise SystemExit(main(['serve', {str(tmp_path / 'g.yaml')!r}]))")
    out = fresh_python(code, 2)
    assert "serve needs Starlette, which is not installed: pip install 'clue-expert[web]'" \
        in out.stderr, out.stderr


def test_the_cli_starts_without_running_numpy_or_asyncio():
    """Start-up pays for neither: numpy runs when the exact beliefs first do (``core.lazy``), asyncio is
    imported by ``serve`` alone.  (They cost about 70 ms of a 0.4 s start before.)"""
    code = ("import sys\n"
            "from clue_expert.people.cli import main\n"  # every command's module, as the console script
            "print(sorted(m for m in ('numpy._core', 'asyncio') if m in sys.modules))\n")
    assert fresh_python(code).stdout.strip().splitlines()[-1] == "[]"


def test_a_lazy_module_runs_at_its_first_use_and_a_missing_one_fails_at_once():
    code = ("import sys\n"
            "from clue_expert.core.lazy import lazy_module\n"
            "assert 'colorsys' not in sys.modules\n"
            "m = lazy_module('colorsys')\n"
            "before = type(m).__name__\n"  # type() does not run it
            "hsv = m.rgb_to_hsv(1.0, 0.0, 0.0)\n"
            "print(before, type(m).__name__, hsv, lazy_module('colorsys') is m)\n"
            "try:\n"
            "    lazy_module('clue_expert_no_such_module')\n"
            "except ModuleNotFoundError as exc:\n"
            "    print('missing:', exc.name)\n")
    assert fresh_python(code).stdout.splitlines() == ["_LazyModule module (0.0, 1.0, 1.0) True",
                                                      "missing: clue_expert_no_such_module"]
