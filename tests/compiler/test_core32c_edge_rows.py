"""Issue 32's edge-value differential over the rows of the op table that are not elementwise
(the elementwise ones: test_edge_values.py). Each case of tests/oracle/edge_rows_cases.py - a
public call on NaN, +-inf, +-0, denormals, the largest finite values, integer extremes, float16 -
runs in PyNative and compiled, and both must give MindSpore 2.10's CPU result, recorded by
tests/oracle/record_edge_rows.py (data/edge_rows.json, .npz); the differences pycompile keeps are
listed with why (`ROWS_DIFFER`). Every row of the table is reached: swept as elementwise, by a
case here, or listed in `NOT_COMPARED` with the reason.
"""
from __future__ import annotations

import importlib.util
import json
import pathlib
import sys

import numpy as np
import pytest

import edge_ops as E

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.ops import core
from pycompile.ops import prims as P
from pycompile.ops._table import OPS

ORACLE = pathlib.Path(__file__).resolve().parent.parent / "oracle"
sys.path.insert(0, str(ORACLE))
from edge_rows_cases import CASES  # noqa: E402

RECORDED = {r["name"]: r for r in json.loads((ORACLE / "data" / "edge_rows.json").read_text())["results"]}
VALUES = dict(np.load(ORACLE / "data" / "edge_rows.npz"))

# case -> why pycompile keeps its own result there (both modes)
ROWS_DIFFER = {
    "any_f32": "MindSpore 2.10's CPU any / all of a float tensor give neither x != 0 nor NumPy's result (any of "
               "[-0, 1, 3, -max] is False): pycompile reduces x != 0, as its docs and NumPy",
    "slice_step_f32": "MindSpore 2.10's CPU x[::2, ::-1] ignores the -1 step of the last axis (rows come back "
                      "unreversed); pycompile takes Python's slice",
    "topk_f32_finite": "ties: MindSpore's CPU TopK reads denormals as 0 (0, -0, +-denormal tie) and breaks ties in "
                       "heap order; pycompile compares the values and takes the lower index first (sort.py)",
    "max_pool_f32": "as amax_nan (test_edge_values.py): MindSpore's CPU max pooling skips a NaN unless it comes "
                    "first in the window; pycompile propagates NaN (a window's maximum of [100, -100, inf, NaN])",
    "fft_f32": "a sum with cancellation at 1e37: compiled DFT adds x0 + x1 + x2 + x3 in order (max/4 - max/4 + "
               "7 - 0.25 = 6.75); NumPy's FFT (PyNative) and MindSpore's pair them, and 7 is lost in max/4: 0",
}

# rows no case reaches, and why they are not compared with MindSpore at edge values
NOT_COMPARED = {
    **{op: "machinery: no arithmetic (effects, ordering, autodiff markers, loop stacks, float status, "
           "collectives)" for op in core.MACHINERY},
    P.RandomUniform: "random draws: pycompile's Philox stream is its own (DESIGN.md: MindSpore's stream is no goal)",
    P.RandomNormal: "random draws", P.RandomInt: "random draws", P.Bernoulli: "random draws",
    P.Multinomial: "random draws", P.Randperm: "random draws",
    P.Fill: "creation: a constant (no input to be an edge value)",
    P.CheckFinite: "an effect that raises on a non-finite value (tests/ops: its errors)",
    P.Svd: "singular vectors are defined up to sign: compared by reconstruction in tests/ops/test_linalg*",
    P.FusedConv: "made by the conv_epilogue pass, never called: equals Conv2D and its epilogue "
                 "(test_core32_fast_paths.py)",
    P.BatchNormChannelDot: "the batch norm's backward in PyNative (a gradient, which no case here takes): its "
                           "parts are the compiled backward's; against it and finite differences in "
                           "tests/backend/test_eager_batchnorm.py",
    P.BatchNormStatsGrad: "the batch norm's backward in PyNative, as BatchNormChannelDot",
}


def _module(tmp_path):
    src = "from pycompile import Tensor, ops\nimport pycompile as ms\n\n"
    for k, (name, (expr, inputs, _)) in enumerate(CASES.items()):
        args = ", ".join(f"x{j}" for j in range(len(inputs)))
        src += f"def case_{k}({args}):\n    return {expr}\n\n\n"
    path = tmp_path / "edge_row_fns.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("edge_row_fns", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _inputs(inputs):
    return [Tensor(np.array(i["value"], dtype=i["dtype"]).reshape(i["shape"])) for i in inputs]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    mod = _module(tmp_path_factory.mktemp("edge_rows"))
    names = list(CASES)
    fns = [getattr(mod, f"case_{k}") for k in range(len(names))]
    args = tuple(tuple(_inputs(CASES[n][1])) for n in names)
    def one(fn, a):          # (the gradients of several inputs: flat, one after the other, as recorded)
        y = fn(*a)
        return ops.cat([t.reshape(-1) for t in y]) if isinstance(y, tuple) else y
    with E._quiet():
        eager = [one(fn, a) for fn, a in zip(fns, args)]
        compiled = ms.jit(lambda xs: tuple(one(fn, a) for fn, a in zip(fns, xs)))(args)
    return dict(zip(names, zip(eager, compiled)))


def test_every_row_is_compared_or_listed():
    elementwise = {op for op in E._elementwise_ops()}
    reached = {OPS[r] for _, _, rows in CASES.values() for r in rows}
    missing = sorted(op.name for op in OPS.values()
                     if op not in elementwise and op not in reached and op not in NOT_COMPARED)
    assert not missing, f"rows no edge case reaches: {missing}"
    assert not [r["name"] for r in RECORDED.values() if "error" in r], "MindSpore refused a case: rewrite it"
    assert set(RECORDED) == set(CASES), "record again: /work/ms-venv/bin/python tests/oracle/record_edge_rows.py"


@pytest.mark.parametrize("name", list(CASES))
def test_row_edges_equal_mindspore_in_both_modes(name, results):
    rec, want = RECORDED[name]["result"], VALUES[name]
    bad = []
    for mode, got in zip(("PyNative", "compiled"), results[name]):
        if str(got.dtype) != rec["dtype"] or list(got.shape) != rec["shape"]:
            bad.append(f"{mode}: {got.dtype}{list(got.shape)}, MindSpore {rec['dtype']}{rec['shape']}")
            continue
        d = E.classify(got.asnumpy(), want, E.REL_MINDSPORE, scaled=True)
        if d:
            w = list(d[1])[:6]
            bad.append(f"{mode}: {d[0]} at {w}: pycompile {got.asnumpy().reshape(-1)[w].tolist()}, "
                       f"MindSpore {want.reshape(-1)[w].tolist()}")
    assert bool(bad) == (name in ROWS_DIFFER), "\n".join(bad) or f"{name}: equal now, take it off ROWS_DIFFER"


SCANS = [{"axis": ax, "exclusive": ex, "reverse": rev} for ax in (0, 1) for ex in (False, True) for rev in (False, True)]
ZEROS = np.array([[-0.0, -0.0, 1.0, -1.0, -0.0], [-0.0, 3.0, -3.0, -0.0, -0.0]])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_cumsum_keeps_the_sign_of_zero_as_the_reference(dtype):
    """The C scan's sum starts from -0 (the identity), so a running sum of -0 stays -0 as in NumPy
    and MindSpore; an exclusive scan still stores +0 first. (It started from +0: -0 became +0.)"""
    x = ZEROS.astype(dtype)
    got = ms.jit(lambda t: tuple(ops.cumsum(t, a["axis"]) if not (a["exclusive"] or a["reverse"]) else
                                 ms.ops.operations.CumSum(a["exclusive"], a["reverse"])(t, a["axis"]) for a in SCANS))(
        Tensor(x))
    for a, g in zip(SCANS, got):
        want = P.CumSum.eager(x, **a)
        np.testing.assert_array_equal(np.signbit(g.asnumpy()), np.signbit(want), err_msg=str(a))
        np.testing.assert_array_equal(g.asnumpy(), want, err_msg=str(a))
