"""TensorScatterElements states its decomposition (a fast path, docs/architecture.md "The core"): a
TensorScatterUpdate ('none') or TensorScatterAdd ('add') into the input flattened with one spare
element, at flat positions computed from the indices (negative ones wrapped once; out-of-range
ones sent to the spare element: MindSpore skips them, and so does the row's reference). Compiled
as the row's template and as its parts (PYCOMPILE_FAST_PATHS=0), both equal the row's NumPy
reference bit for bit, repeated indices (the last update wins, or all add in order), negative and
out-of-range ones included; the parts run in PyNative too.
"""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor
from pycompile.ops import prims as P
from pycompile.ops._table import apply

EDGE = np.array([0.0, -0.0, 1.0, -1.0, 1e-45, np.inf, -np.inf, np.nan, 65504.0, 0.5, -2.5, 3.0])
CASES = [(dt, axis, red) for dt in ("float16", "float32", "int32", "bool_") for axis in (0, 1, -1)
         for red in ("none", "add") if not (dt == "bool_" and red == "add")]


def _arrays(dt, axis, seed):
    rng = np.random.default_rng(seed)
    x = rng.permutation(np.resize(EDGE, 12)).reshape(3, 4)
    if dt == "int32":
        x = np.where(np.isfinite(x), x, 7.0).clip(-1e4, 1e4)
    x = (x != 0) if dt == "bool_" else x.astype(dt)
    n = x.shape[axis]
    idx = rng.integers(-n - 2, n + 2, (3, 3) if axis in (1, -1) else (2, 4)).astype(np.int32)
    upd = rng.permutation(np.resize(x.reshape(-1), idx.size)).reshape(idx.shape)
    return x, idx, upd


def _graph(xs):
    return tuple(apply(P.TensorScatterElements, [x, i, u], {"axis": axis, "reduction": red})
                 for (x, i, u), (_, axis, red) in zip(xs, CASES))


@pytest.fixture(scope="module")
def both():
    xs = tuple(tuple(Tensor(a) for a in _arrays(dt, axis, k)) for k, (dt, axis, _) in enumerate(CASES))
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        for fast in ("1", "0"):
            mp.setenv("PYCOMPILE_FAST_PATHS", fast)
            fn = ms.jit(_graph)
            out[fast] = (fn(xs), ms.inspect(fn, xs))
    return out


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


@pytest.mark.parametrize("k", range(len(CASES)), ids=[f"{d}-axis{a}-{r}" for d, a, r in CASES])
def test_scatter_elements_parts_equal_the_reference_in_both_modes(k, both):
    dt, axis, red = CASES[k]
    x, idx, upd = _arrays(dt, axis, k)
    with np.errstate(all="ignore"):
        want = P.TensorScatterElements.eager(x, idx, upd, axis=axis, reduction=red)
    parts = P.TensorScatterElements.decompose(Tensor(x), Tensor(idx), Tensor(upd), axis=axis, reduction=red)
    np.testing.assert_array_equal(_bits(parts.asnumpy()), _bits(want))
    for fast in ("1", "0"):
        np.testing.assert_array_equal(_bits(both[fast][0][k].asnumpy()), _bits(want))


def test_the_fast_path_and_its_parts_are_what_runs(both):
    assert P.TensorScatterElements.fast_path and not P.TensorScatterElements.expands
    assert "TensorScatterElements(" in both["1"][1].ir_after
    assert "TensorScatterElements(" not in both["0"][1].ir_after
