"""pycompile's autodiff against MindSpore 2.10's recorded results: values, dtypes, output
structures and exception classes of GradOperation / grad / value_and_grad / stop_gradient over
144 cases (tests/oracle/data/autodiff.json)."""
from __future__ import annotations

import re

import pytest

from oracle_autodiff import DATA, case_thunk, compare, expected, outcome

import pycompile as ms

CASES = {c["name"]: c for c in DATA["cases"]}


def _available(c) -> bool:
    """The case only uses names pycompile has (a case needing an op still to be built is not
    selected yet; it runs as soon as the name exists)."""
    for module, name in re.findall(r"\b(ops|nn|ms)\.([A-Za-z_]\w*)", c["source"]):
        if not hasattr({"ops": ms.ops, "nn": ms.nn, "ms": ms}[module], name):
            return False
    return True


PYNATIVE = sorted(n for n, c in CASES.items() if _available(c))


@pytest.mark.parametrize("name", PYNATIVE)
def test_pynative(name):
    c = CASES[name]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    got = outcome(case_thunk(c, "pynative"))
    diffs = compare(expected(c, "pynative"), got)
    assert not diffs, f"{name}: {c['desc']}\n" + "\n".join(diffs)


GRAPH = [(n, m) for n in PYNATIVE for m in ("graph_jit", "graph_cell")]


@pytest.mark.parametrize("name, mode", GRAPH, ids=[f"{n}-{m}" for n, m in GRAPH])
def test_graph(name, mode):
    """The same cases compiled: the call made inside @jit, or inside a Cell's construct in
    GRAPH_MODE (MindSpore's results per mode, where they differ from PyNative)."""
    c = CASES[name]
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph_cell" else ms.PYNATIVE_MODE)
    got = outcome(case_thunk(c, mode))
    diffs = compare(expected(c, mode), got)
    assert not diffs, f"{name} ({mode}): {c['desc']}\n" + "\n".join(diffs)
