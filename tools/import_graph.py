"""pycompile's module import graph, read from the source with ast (nothing is imported).

    python tools/import_graph.py            # upward imports and import cycles; exit 1 if any
    python tools/import_graph.py --naive    # also the cycles the naive package rule counts

tests/test_layering.py asserts what this prints is empty.

**Layers.** `LAYERS` names each layer, the module prefixes it holds (the longest matching
prefix wins) and the layers it may import directly; it may import those layers' own lower
layers too, and its own. nn and compiler are siblings: the compiler sees a Cell only as
`common.cellbase.CellBase`, so neither imports the other and the backend, above the compiler,
never imports nn.

**Edges.** Every import statement of src/pycompile counts, at module level or inside a function:
a lazy import is still a dependency. `import a.b.c`, `from a.b.c import x` and `from a.b import c`
(c a submodule) depend on `a.b.c`; `from a.b import name` (name no submodule) depends on `a.b`,
its __init__. Importing `a.b.c` also runs the __init__ of each package enclosing it first, so
the importer depends on those packages too, except on a package that encloses the importer
itself: Python enters a package (puts it in sys.modules) before it runs any submodule, so when
ops/grads/core.py imports pycompile.ops.functional, ops/__init__.py has already started and is
not run again. A submodule that reads a *name* from an enclosing package's __init__ still depends
on that __init__ (the `from a.b import name` rule above).

**Cycles** are the strongly connected components of that graph with more than one module.

The naive package rule (`--naive`) adds the edge to every enclosing package even from inside it.
It finds a "cycle" in every package whose __init__ imports a submodule that imports a sibling
(issue 32 counted 8 of these on 2026-11-28: ops, nn, train, backend, dataset, common, ...).
Those are no import-order hazard, for the reason above, and only emptying the package's __init__
would remove them; they are printed for comparison, not checked.
"""
from __future__ import annotations

import argparse
import ast
import os
import sys
from collections import deque

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src", "pycompile")

# the C runtime's extension modules (setup.py builds them; they import nothing of pycompile)
EXTENSIONS = ("pycompile._rt", "pycompile._call")

# layer: (module prefixes, layers it imports directly)
LAYERS = {
    "common": (("pycompile.common", "pycompile.errors", "pycompile._version") + EXTENSIONS, ()),
    "communication": (("pycompile.communication",), ("common",)),
    "ops": (("pycompile.ops",), ("communication",)),
    "dataset": (("pycompile.dataset",), ("ops",)),
    "nn": (("pycompile.nn",), ("ops",)),
    "numpy": (("pycompile.numpy",), ("ops",)),       # mindspore.numpy: compositions of ops
    "train": (("pycompile.train", "pycompile.amp"), ("nn", "dataset")),
    "compiler": (("pycompile.compiler",), ("ops",)),
    "backend": (("pycompile.backend",), ("compiler",)),
    # the package itself, pycompile.api (jit, inspect, the Cell call hook), the CLI, and the
    # other top-level modules
    "entry": (("pycompile",), ("backend", "train", "numpy")),
}


def modules(src: str = SRC) -> dict:
    """module name -> file path of every module under src (a package by its __init__.py; None
    for a C extension)."""
    out = {}
    root = os.path.dirname(src)
    for dirpath, _, files in os.walk(src):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                out[rel[: -len(".__init__")] if rel.endswith(".__init__") else rel] = path
    for ext in EXTENSIONS:                           # built or not
        out.setdefault(ext, None)
    return out


def layer_of(module: str) -> str:
    best = max(((p, name) for name, (prefixes, _) in LAYERS.items() for p in prefixes
                if module == p or module.startswith(p + ".")), key=lambda pn: len(pn[0]))
    return best[1]


def allowed(layer: str) -> set:
    """The layers `layer` may import: itself and everything below it."""
    seen, todo = {layer}, [layer]
    while todo:
        for d in LAYERS[todo.pop()][1]:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def _enclosing(module: str) -> list:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imports(name: str, path: str, mods: dict, naive: bool = False) -> set:
    """The pycompile modules importing `name` runs, each resolved to the deepest existing module
    (see the module docstring for the rules)."""
    if path is None:
        return set()
    tree = ast.parse(open(path).read(), path)
    package = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
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
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
        for t in targets:
            while t and t not in mods:
                t = t.rsplit(".", 1)[0] if "." in t else ""
            if not t.startswith("pycompile"):
                continue
            if t == "pycompile" and name != "pycompile":
                found.add(t)                       # a name read from the package's own __init__
            inside = set(_enclosing(name)) | {name}
            for p in _enclosing(t)[1:] + [t]:      # never the root: everything runs it first
                if p != name and (p == t or naive or p not in inside):
                    found.add(p)
    return found


def graph(naive: bool = False, src: str = SRC) -> dict:
    mods = modules(src)
    return {m: imports(m, p, mods, naive) for m, p in mods.items()}


def upward(g: dict) -> list:
    """'a (layer) imports b (layer)' for each import of a layer `a` may not import."""
    bad = []
    for m, targets in g.items():
        lm = layer_of(m)
        for t in targets:
            if layer_of(t) not in allowed(lm):
                bad.append(f"{m} ({lm}) imports {t} ({layer_of(t)})")
    return sorted(bad)


def cycles(g: dict) -> list:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(out)


def a_cycle(g: dict, comp: list) -> list:
    """One shortest cycle through the first module of a component: [m, ..., m]."""
    start, members = comp[0], set(comp)
    prev, todo = {start: None}, deque([start])
    while todo:
        v = todo.popleft()
        for w in sorted(g[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w in members and w not in prev:
                prev[w] = v
                todo.append(w)
    return []


def describe(g: dict, comp: list) -> str:
    return f"{len(comp)} modules, e.g. " + " -> ".join(a_cycle(g, comp))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--naive", action="store_true", help="also count cycles with the naive package rule")
    args = ap.parse_args(argv)
    g = graph()
    bad, cyc = upward(g), cycles(g)
    print(f"{len(g)} modules, {sum(map(len, g.values()))} import edges")
    print(f"upward imports: {len(bad)}")
    for b in bad:
        print("  " + b)
    print(f"import cycles: {len(cyc)}")
    for c in cyc:
        print("  " + describe(g, c))
    if args.naive:
        gn = graph(naive=True)
        cn = cycles(gn)
        print(f"naive package rule (not checked): {len(cn)} cycles")
        for c in cn:
            print("  " + describe(gn, c))
    return 1 if bad or cyc else 0


if __name__ == "__main__":
    sys.exit(main())
