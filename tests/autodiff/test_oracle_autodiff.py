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
