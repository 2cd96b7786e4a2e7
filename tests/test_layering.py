"""The package's import graph: layers import downward only, and no import cycle.

    common  <-  communication  <-  ops  <-  nn, dataset  <-  train  <-  entry points
                                    ^-- compiler  <-  backend  <--------'

nn and the compiler are siblings: the compiler and the backend's compile cache see a Cell only
as `pycompile.common.cellbase.CellBase`. Every import statement counts, lazy ones included, and
importing `a.b.c` depends on the __init__ of the packages enclosing it that the importer is not
already inside. The graph, the layer table and the rules are tools/import_graph.py's (run it to
see the graph's violations with an example path each).
"""
from __future__ import annotations

import functools
import importlib.util
import os
import textwrap

import pycompile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("import_graph", os.path.join(ROOT, "tools", "import_graph.py"))
ig = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ig)
SRC = os.path.dirname(pycompile.__file__)          # the sources of the pycompile under test


@functools.lru_cache(maxsize=None)
def _graph() -> dict:
    return ig.graph(src=SRC)


def test_imports_only_go_downward():
    bad = ig.upward(_graph())
    assert not bad, "upward imports:\n  " + "\n  ".join(bad)


def test_no_import_cycles():
    g = _graph()
    cycles = ig.cycles(g)
    assert not cycles, "import cycles:\n  " + "\n  ".join(ig.describe(g, c) for c in cycles)


def test_ops_imports_neither_the_compiler_nor_the_backend():
    """ops/ says what an op is; how a device renders it (backend/c/ops, the C text) is above it
    (issue 32, item 5; tests/test_ops_holds_no_target_code.py checks ops/ holds no C)."""
    g = _graph()
    bad = [f"{m} imports {t}" for m, targets in g.items() if ig.layer_of(m) == "ops"
           for t in targets if ig.layer_of(t) in ("compiler", "backend")]
    assert not bad, bad
    assert "compiler" not in ig.allowed("ops") and "backend" not in ig.allowed("ops")


def test_every_module_has_a_layer():
    for m in _graph():
        assert ig.layer_of(m) in ig.LAYERS


def test_the_layer_table_keeps_the_issue_32_separations():
    """Widening the table is no way to make the tests above pass: the compiler and the backend
    never reach nn, common never reaches communication, nothing below the entry reaches it."""
    assert "nn" not in ig.allowed("compiler") and "nn" not in ig.allowed("backend")
    assert "communication" not in ig.allowed("common")
    assert all("entry" not in ig.allowed(layer) for layer in ig.LAYERS if layer != "entry")
    assert ig.layer_of("pycompile.common.api") == "common"


def _package(tmp_path, files: dict) -> str:
    for rel, text in files.items():
        path = tmp_path / "pycompile" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return str(tmp_path / "pycompile")


def test_the_graph_follows_python_package_semantics(tmp_path):
    """A submodule importing a sibling does not depend on its package's __init__ (Python entered
    the package first); one reading a name from an __init__ that imports it is a cycle; an
    import of a submodule from outside depends on its package's __init__; lazy imports count."""
    src = _package(tmp_path, {
        "__init__.py": "",
        "common/__init__.py": "from pycompile.common.b import B\n",
        "common/a.py": "A = 1\n",
        "common/b.py": "from pycompile.common.a import A\nfrom . import a\nB = A\n",
        "ops/__init__.py": "from pycompile.ops.x import X\nNAME = 1\n",
        "ops/x.py": "from pycompile.common.a import A\nX = A\n",
        "ops/y.py": "def f():\n    from pycompile.ops import NAME\n    return NAME\n",
        "nn/__init__.py": "from pycompile.nn import z\n",
        "nn/z.py": "def g():\n    from pycompile.nn import Z\n",
    })
    g = ig.graph(src=src)
    assert g["pycompile.common.b"] == {"pycompile.common.a"}
    assert g["pycompile.ops.x"] == {"pycompile.common", "pycompile.common.a"}
    assert g["pycompile.ops.y"] == {"pycompile.ops"}
    assert ig.cycles(g) == [["pycompile.nn", "pycompile.nn.z"]]
    g["pycompile.common.a"].add("pycompile.nn.z")         # common -> nn: upward
    assert ig.upward(g) == ["pycompile.common.a (common) imports pycompile.nn.z (nn)"]
