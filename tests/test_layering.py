"""The package's import graph: layers import downward only, and no module imports itself back.

    common  <-  ops  <-  nn  <-  compiler  <-  backend  <-  entry points

Every import statement of src/pycompile counts, at module level or inside a function: a lazy
import is still a dependency. The entry layer is the package itself (`pycompile/__init__.py`),
`pycompile.jit` (jit, inspect, the Cell call hook), the CLI, and `pycompile.common.api`, which
exists only to be importable under MindSpore's name `mindspore.common.api`.
"""
from __future__ import annotations

import ast
import os

import pycompile

SRC = os.path.dirname(pycompile.__file__)

LAYERS = [  # (module prefix, layer); the longest matching prefix wins
    ("pycompile._version", 0), ("pycompile._rt", 0), ("pycompile.errors", 0), ("pycompile.common", 0), ("pycompile.communication", 0),
    ("pycompile.ops", 1), ("pycompile.dataset", 1),
    ("pycompile.nn", 2), ("pycompile.train", 2), ("pycompile.amp", 2),
    ("pycompile.compiler", 3),
    ("pycompile.backend", 4),
    ("pycompile.jit", 5), ("pycompile.cli", 5), ("pycompile.__main__", 5), ("pycompile.common.api", 5),
    ("pycompile", 5),
]
LAYER_NAMES = ["common", "ops", "nn", "compiler", "backend", "entry"]


def _modules() -> dict:
    """module name -> file path of every module under src/pycompile."""
    out = {}
    root = os.path.dirname(SRC)
    for dirpath, _, files in os.walk(SRC):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                out[rel[: -len(".__init__")] if rel.endswith(".__init__") else rel] = path
    return out


def _layer(module: str) -> int:
    best = max((p for p, _ in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return dict(LAYERS)[best]


def _imports(name: str, path: str, modules: dict) -> set:
    """pycompile modules `name` imports (resolved to the deepest existing module)."""
    tree = ast.parse(open(path).read(), path)
    is_pkg = path.endswith("__init__.py")
    package = name if is_pkg else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            # `from pkg import sub` depends on the submodule; `from pkg import name` on pkg itself
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for t in targets:
            while t and t not in modules:
                t = t.rsplit(".", 1)[0] if "." in t else ""
            if t.startswith("pycompile") and t != name and t != "pycompile":
                found.add(t)
    return found


def _graph() -> dict:
    modules = _modules()
    return {m: _imports(m, p, modules) for m, p in modules.items()}


def test_imports_only_go_downward():
    bad = []
    for m, targets in _graph().items():
        for t in targets:
            if _layer(t) > _layer(m):
                bad.append(f"{m} ({LAYER_NAMES[_layer(m)]}) imports {t} ({LAYER_NAMES[_layer(t)]})")
    assert not bad, "upward imports:\n  " + "\n  ".join(sorted(bad))


def test_no_import_cycles():
    graph = _graph()
    state: dict = {}
    cycles = []

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                cycles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    assert not cycles, "import cycles:\n  " + "\n  ".join(cycles)


def test_every_module_has_a_layer():
    for m in _modules():
        assert _layer(m) is not None
