"""The package's plan, checked from the code's own imports (every import, also those inside
functions): no import circle, no import from a lower floor to a higher one, and the numpy model
imported only by the code that runs it."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mineru_tui"

# The words every engine speaks: they import nothing heavy and sit on the ground floor.
ENGINE_WORDS = {"base", "events", "params", "defaults", "errors"}

# Each wing's floor: a module may import its own wing and any lower floor, nothing higher.
FLOORS = {
    "root": 0, "errors": 0, "console": 0, "interrupts": 0, "events": 0, "engines.words": 0,
    "units": 0, "kinds": 0,  # the table of kinds names its readers as strings, imports none
    "collector": 0,  # the cycle collector's threshold for a reading job
    "document": 1, "detect": 1,
    "model_store": 1,           # where the model is kept: huggingface_hub's cache, no engine
    "office": 2, "pdf": 2,
    "engines.qwen2vl": 2,       # the MinerU2.5 host every local engine shares (no forward pass)
    "engines.numpy": 3,         # the numpy forward pass and its engine adapter
    "engines.bundle_files": 3,  # manifests, locations, errors, verify of compiled bundles
    "engines.impl": 4,          # Core ML, OpenVINO, http, llama.cpp, GGUF export
    "engines.registry": 5,      # engines/__init__: the lazy name -> engine table
    "reader": 6,                # the page reader: MinerU2.5's two stages over any engine
    "convert": 7, "output": 7,
    "model_needed": 7,          # the way forward without a model: asks pdf/ for the text layer
    "watch": 8, "serve": 8,
    "tui": 9,
    "cli": 10,
    "__main__": 11,
}

# Modules outside engines/numpy that import it, and why (exact module names): the numpy model is
# reached through the engine table; nothing else may import it, for a word or for its host (the
# checkpoint, tokenizer, generation loop... live in engines/qwen2vl/).
RUNS_THE_NUMPY_MODEL = {
    "mineru_tui.engines": "the engine table: opens the numpy engine, and loads the reference `bundle verify` compares with",
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                full = f"{target}.{alias.name}"
                found.add(full if full in modules else target)
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    return _graph_of(PACKAGE)


@functools.lru_cache(maxsize=4)
def _graph_of(package: Path) -> dict[str, set[str]]:
    """The import graph of ``package``, read once per test session (the tests only read it)."""
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _wing(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "root"
    if parts[1] != "engines":
        return parts[1]
    if len(parts) == 2:
        return "engines.registry"
    if parts[2] in ENGINE_WORDS:
        return "engines.words"
    if parts[2] in ("numpy", "qwen2vl", "bundle_files"):
        return f"engines.{parts[2]}"
    return "engines.impl"


def test_every_wing_has_a_floor():
    assert {_wing(m) for m in _graph()} <= set(FLOORS)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: Tarjan's strongly connected components of 2+ modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def _upward(graph: dict[str, set[str]]) -> list[str]:
    return [f"{m} -> {t}" for m, targets in sorted(graph.items()) for t in sorted(targets)
            if FLOORS[_wing(t)] > FLOORS[_wing(m)]]


def test_no_import_circle():
    assert _circles(_graph()) == []


def test_no_import_from_a_lower_floor_to_a_higher_one():
    assert _upward(_graph()) == []


def test_only_code_that_runs_the_numpy_model_imports_it():
    users = sorted(m for m, targets in _graph().items()
                   if not m.startswith("mineru_tui.engines.numpy")
                   and any(t.startswith("mineru_tui.engines.numpy") for t in targets))
    unexplained = [m for m in users if m not in RUNS_THE_NUMPY_MODEL]
    assert unexplained == []


def test_the_checks_see_a_circle_and_an_upward_import(tmp_path, monkeypatch):
    """The graph is read from the code: a circle or an upward import written into a copy of
    two modules is found."""
    pkg = tmp_path / "mineru_tui"
    (pkg / "document").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "errors.py").write_text("from mineru_tui.document import model\n")
    (pkg / "document" / "__init__.py").write_text("")
    (pkg / "document" / "model.py").write_text("def f():\n    from mineru_tui import errors\n")
    monkeypatch.setitem(globals(), "PACKAGE", pkg)
    graph = _graph()
    assert _circles(graph) == [["mineru_tui.document.model", "mineru_tui.errors"]]
    assert _upward(graph) == ["mineru_tui.errors -> mineru_tui.document.model"]


def _absolute_imports(path: Path) -> set[str]:
    """The first name of every absolute import in ``path`` (also those inside functions)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


BENCH = PACKAGE.parent / "bench"


def _bench_graph() -> dict[str, set[str]]:
    """bench/'s scripts and the siblings each imports (they run with bench/ on sys.path, so a
    sibling is imported by its bare name)."""
    scripts = {p.stem: p for p in BENCH.glob("*.py")}
    return {name: {m for m in _absolute_imports(path) if m in scripts and m != name}
            for name, path in scripts.items()}


def test_no_import_circle_in_bench():
    assert _circles(_bench_graph()) == []


def test_the_package_never_imports_bench_tests_or_testkit():
    """The arrow runs one way: bench/, tests/ and testkit/ use the package, never the reverse."""
    offenders = [f"{name} -> {m}" for name, path in _modules().items()
                 for m in sorted(_absolute_imports(path)) if m in ("bench", "tests", "testkit")]
    assert offenders == []


TESTS = PACKAGE.parent / "tests"
TESTKIT = PACKAGE.parent / "testkit"


def _tests_names() -> set[str]:
    """Names that reach tests/: the folder itself, and each of its modules by its bare name
    (imported so when tests/ is put on ``sys.path``)."""
    return {"tests"} | {p.stem for p in TESTS.rglob("*.py")}


def test_bench_never_imports_tests():
    """What a benchmark shares with the tests (the scripted engine, the PDF writer, the crafted
    files...) lives in testkit/, which both import: tests/ may import bench/ (to check its
    scorers), so bench/ importing tests/ would run the arrow both ways."""
    own = {p.stem for p in BENCH.glob("*.py")}
    offenders = [f"bench/{p.name} -> {m}" for p in sorted(BENCH.glob("*.py"))
                 for m in sorted(_absolute_imports(p) & (_tests_names() - own))]
    assert offenders == []


def test_testkit_imports_only_the_package():
    """testkit/ sits between the package and its users: of this repository's code it imports
    the package and itself, never tests/ or bench/."""
    names = _tests_names() | {"bench"} | {p.stem for p in BENCH.glob("*.py")}
    names -= {p.stem for p in TESTKIT.glob("*.py")}
    offenders = [f"testkit/{p.name} -> {m}" for p in sorted(TESTKIT.glob("*.py"))
                 for m in sorted(_absolute_imports(p) & names)]
    assert offenders == []
