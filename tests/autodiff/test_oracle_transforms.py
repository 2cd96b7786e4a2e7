"""ops.vjp / jvp / jacrev / jacfwd / get_grad, return_ids and higher-order gradients against
MindSpore 2.10's recorded results (tests/oracle/data/autodiff_transforms.json, cases in
tests/oracle/autodiff_transform_cases.py): values, dtypes, result structures and exception
classes, in PyNative, inside @jit and in a GRAPH_MODE Cell."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from oracle_autodiff import Wrap, compare, outcome

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops

ORACLE = Path(__file__).resolve().parent.parent / "oracle"
DATA = json.loads((ORACLE / "data" / "autodiff_transforms.json").read_text())
RECORDED = {c["name"]: c["results"] for c in DATA["cases"]}

# Where MindSpore 2.10 refuses and pycompile computes the value, the result is checked against
# MindSpore's result in the mode it works in (and against finite differences in
# test_transforms_fd.py): its refusals here are limitations of its implementation, not rules.
# None: MindSpore refuses in every mode; the value is checked against finite differences only.
BEYOND = {
    # MindSpore's jacrev / jacfwd broadcast the primals over the batch, so its vmap meets an
    # `if` on a batched condition; pycompile batches only the basis vectors, and computes it
    # in PyNative; in graph code, one gradient (jvp) per row, since vmap runs the function as
    # Python (ops/autodiff/transforms.py; values: test_auto34_graph_jac.py)
    ("jacrev_if", "pynative"): None, ("jacfwd_if", "pynative"): None,
    ("jacrev_if", "graph_jit"): None, ("jacfwd_if", "graph_jit"): None,
    ("jacrev_if", "graph_cell"): None, ("jacfwd_if", "graph_cell"): None,
    # MindSpore cannot compile jacfwd of jacrev inside @jit / construct ("Illegal AnfNode")
    ("hessian_jacfwd_of_jacrev", "graph_jit"): "pynative",
    ("hessian_jacfwd_of_jacrev", "graph_cell"): "pynative",
    # nor a jvp of a grad (a Hessian-vector product), which pycompile compiles into one call
    ("jvp_of_grad_hvp", "graph_jit"): "pynative",
    ("jvp_of_grad_hvp", "graph_cell"): "pynative",
    # MindSpore's graph mode runs forward hooks in registration order, ignoring prepend=True;
    # pycompile keeps PyNative's (documented) order in both modes
    ("hook_forward_prepend_order", "graph_jit"): "pynative",
    ("hook_forward_prepend_order", "graph_cell"): "pynative",
}


def _load():
    spec = importlib.util.spec_from_file_location("pycompile_autodiff_transform_cases",
                                                  ORACLE / "autodiff_transform_cases.py")
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__.update(ms=ms, ops=ops, nn=nn, Tensor=Tensor, Parameter=Parameter)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.CASES


CASES = _load()


def _runner(mode):
    if mode == "pynative":
        return lambda body, *args: body(*args)
    if mode == "graph_jit":
        return lambda body, *args: ms.jit(body)(*args)
    return lambda body, *args: Wrap(body)(*args)


def _expected(name, mode):
    res = RECORDED[name]
    mode = BEYOND.get((name, mode), mode)
    r = res[mode]
    return res["pynative"] if "same_as" in r else r


PARAMS = [(n, m) for n, (_, modes) in CASES.items() for m in modes]


def test_every_case_recorded():
    assert set(CASES) == set(RECORDED)
    assert len(PARAMS) >= 60


@pytest.mark.parametrize("name, mode", PARAMS, ids=[f"{n}-{m}" for n, m in PARAMS])
def test_transform_case(name, mode):
    make, _ = CASES[name]
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph_cell" else ms.PYNATIVE_MODE)
    try:
        got = outcome(make(_runner(mode)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    if BEYOND.get((name, mode), mode) is None:
        assert "error" not in got, got
        return          # (test_transforms_fd.py checks the value)
    diffs = compare(_expected(name, mode), got)
    assert not diffs, f"{name} ({mode})\n" + "\n".join(diffs)
