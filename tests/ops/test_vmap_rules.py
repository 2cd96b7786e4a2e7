"""vmap's batch rules for the rows that used to batch by looping (ops/batch_rules_cnn.py,
ops/batch_rules_index.py): every CNN-family case of tests/ops/cnn_refs.py and the indexed
reads / writes, batched over each operand (in_axes 0, 1 or None, out_axes 0 or 1), against the
NumPy reference applied example by example; vmap(conv2d) compiled to C whose size does not
grow with the batch; gradients through vmap (grad of vmap, vmap of grad) against finite
differences."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops, vmap
from pycompile.ops import OPS

from tests.ops import cnn_refs as R

B = 2


def _examples(arrays, seed):
    """B examples of each operand: the case's arrays, then arrays of the same shape and kind."""
    rng = np.random.default_rng(seed)
    out = []
    for a in arrays:
        if a.dtype.kind == "f":
            more = [rng.uniform(-1, 1, a.shape).astype(a.dtype) for _ in range(B - 1)]
        else:
            more = [rng.permutation(a.ravel()).reshape(a.shape) for _ in range(B - 1)]
        out.append([a] + more)
    return out


def _patterns(n):
    """in_axes to try: every operand batched, each one alone, the first on its axis 1."""
    pats = [(0,) * n]
    if n > 1:
        pats += [tuple(0 if i == k else None for i in range(n)) for k in range(n)]
    pats.append((1,) + (0,) * (n - 1))
    return pats


def check_vmap(fn, ref, arrays, seed=0, rtol=1e-5, atol=1e-5, out_axes=0):
    ex = _examples(arrays, seed)
    for axes in _patterns(len(arrays)):
        args, per_example = [], [[] for _ in range(B)]
        for k, ax in enumerate(axes):
            if ax is None:
                args.append(Tensor(ex[k][0]))
                for j in range(B):
                    per_example[j].append(ex[k][0])
            else:
                args.append(Tensor(np.stack(ex[k], axis=ax)))
                for j in range(B):
                    per_example[j].append(ex[k][j])
        got = vmap(fn, in_axes=axes, out_axes=out_axes)(*args)
        want = np.stack([np.asarray(ref(*e)) for e in per_example], axis=out_axes)
        got = got.asnumpy()
        assert got.shape == want.shape, (axes, got.shape, want.shape)
        if want.dtype.kind in "iu":
            np.testing.assert_array_equal(got, want, err_msg=str(axes))
        else:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=str(axes))


CNN = R.conv_cases() + R.pool_cases() + R.misc_cases()


@pytest.mark.parametrize("case", CNN, ids=[c[0] for c in CNN])
def test_cnn_rules_match_the_reference_per_example(case):
    name, opname, fn, ref, arrays = case
    assert OPS[opname].batch != "loop", f"{opname} batches by looping"
    check_vmap(fn, ref, arrays, seed=len(name), out_axes=len(name) % 2)


# ---- indexed reads and writes, linear algebra, the rest ---------------------------------------------
def _f(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def _i(values):
    return np.array(values, np.int64)


def _ref_gather_grad(dy, idx, shape, axis):
    out = np.zeros(shape, dy.dtype)
    moved = np.moveaxis(out, axis, 0)
    np.add.at(moved, idx % shape[axis], np.moveaxis(dy, tuple(range(axis, axis + idx.ndim)),
                                                     tuple(range(idx.ndim))))
    return out


def _ref_scatter(combine):
    def ref(x, idx, upd):
        out = x.copy()
        for k, row in enumerate(idx.reshape(-1, idx.shape[-1])):
            out[tuple(row)] = combine(out[tuple(row)], upd.reshape((-1,) + x.shape[idx.shape[-1]:])[k])
        return out
    return ref


def _ref_scatter_elements(x, idx, upd, add):
    out = x.copy()
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            k = idx[i, j] % x.shape[1]
            out[i, k] = out[i, k] + upd[i, j] if add else upd[i, j]
    return out


def _ref_cummax_index(x):
    out = np.zeros(x.shape, np.int64)
    for i in range(x.shape[0]):
        best = 0
        for j in range(x.shape[1]):
            if x[i, j] >= x[i, best]:
                best = j
            out[i, j] = best
    return out


def _ref_layernorm(x, g, b):
    m = x.mean(-1, keepdims=True)
    return (x - m) / np.sqrt(x.var(-1, keepdims=True) + 1e-7) * g + b


SOLVABLE = np.eye(3, dtype=np.float32) * 3 + _f(3, 3, seed=5)
OTHER = [
    ("AddN", lambda a, b: ops.addn((a, b)), lambda a, b: a + b, (_f(3, 4), _f(3, 4, seed=1))),
    ("GatherD", R.op("GatherD", axis=1), lambda x, i: np.take_along_axis(x, i % 5, 1),
     (_f(3, 5), _i([[0, 4, -1], [2, 2, 1], [-5, 3, 0]]))),
    ("GatherNd", R.op("GatherNd"), lambda x, i: x[tuple(np.moveaxis(i, -1, 0))],
     (_f(4, 4, 2), _i([[0, 1], [3, 2], [1, 1]]))),
    ("TensorScatterUpdate", R.op("TensorScatterUpdate"), _ref_scatter(lambda a, u: u),
     (_f(4, 3), _i([[1], [3]]), _f(2, 3, seed=2))),
    ("TensorScatterAdd", R.op("TensorScatterAdd"), _ref_scatter(np.add),
     (_f(4, 3), _i([[1], [1], [0]]), _f(3, 3, seed=2))),
    ("TensorScatterMax", R.op("TensorScatterMax"), _ref_scatter(np.maximum),
     (_f(4, 4, 2), _i([[2, 1], [0, 3]]), _f(2, 2, seed=2))),
    ("TensorScatterElements", R.op("TensorScatterElements", axis=1),
     lambda x, i, u: _ref_scatter_elements(x, i, u, False), (_f(3, 4), _i([[0, 3], [-1, 1], [2, 0]]), _f(3, 2))),
    ("TensorScatterElements add", R.op("TensorScatterElements", axis=1, reduction="add"),
     lambda x, i, u: _ref_scatter_elements(x, i, u, True), (_f(3, 4), _i([[0, 0], [-1, 1], [2, 0]]), _f(3, 2))),
    ("Gather", R.op("Gather", axis=1), lambda x, i: np.take(x, i % 5, axis=1),
     (_f(3, 5, 2), _i([[0, 4, -2], [1, 1, 3]]))),
    ("Gather scalar index", R.op("Gather", axis=0), lambda x, i: x[int(i)], (_f(5, 2), _i(3))),
    ("GatherGrad", R.op("GatherGrad", shape=(3, 5, 2), axis=1), lambda g, i: _ref_gather_grad(g, i, (3, 5, 2), 1),
     (_f(3, 2, 3, 2), _i([[0, 4, -2], [1, 1, 3]]))),
    ("StridedSliceGrad", R.op("StridedSliceGrad", shape=(4, 6), begin=(1, 0), end=(4, 6), strides=(2, 3)),
     lambda g: _slice_back(g), (_f(2, 2),)),
    ("CumMinMax", R.op("CumMinMax", axis=-1, rule="max", part="values"), lambda x: np.maximum.accumulate(x, -1),
     (_f(3, 5),)),
    ("CumMinMax indices", R.op("CumMinMax", axis=1, rule="max", part="indices"), _ref_cummax_index, (_f(3, 5),)),
    ("Svd", R.op("Svd", part="s"), lambda x: np.linalg.svd(x.astype(np.float64), compute_uv=False), (_f(4, 3),)),
    ("MatrixSolve", R.op("MatrixSolve"), lambda a, b: np.linalg.solve(a.astype(np.float64), b),
     (SOLVABLE, _f(3, 2))),
    ("CheckFinite", R.op("CheckFinite", message="not finite"), lambda x: x, (_f(3, 4),)),
    ("TensorMove", R.op("TensorMove"), lambda x: x, (_f(3, 4),)),
    ("LayerNorm", R.op("LayerNorm", begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-7), _ref_layernorm,
     (_f(3, 4), _f(4, seed=3), _f(4, seed=4))),
]


def _slice_back(g):
    out = np.zeros((4, 6), g.dtype)
    out[1:4:2, 0:6:3] = g
    return out


@pytest.mark.parametrize("case", OTHER, ids=[c[0] for c in OTHER])
def test_index_and_leading_rules_match_the_reference_per_example(case):
    name, fn, ref, arrays = case
    op = OPS[name.split()[0]]
    assert op.batch != "loop", f"{op.name} batches by looping"
    check_vmap(fn, ref, arrays, seed=len(name), out_axes=len(name) % 2, rtol=1e-4, atol=1e-5)
