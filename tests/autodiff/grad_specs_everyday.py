"""Finite-difference inputs for the gradients of the everyday ops that are not elementwise
(GatherD / GatherNd, the scatters, CumSum / CumProd, ReduceProd), in grad_specs.py's format:
(op name, function of tensors, input arrays, indices of the inputs differentiated). Index
inputs are constants of the functions (they get no gradient)."""
from __future__ import annotations

import numpy as np

import pycompile as ms
from pycompile import ops
from pycompile.ops import prims as P
from pycompile.ops._table import apply


def rnd(*shape, lo=-2.7, hi=2.7, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(np.float64)


def _t(a, dtype=np.int32):
    return ms.Tensor(np.array(a, dtype))


IDX_D = _t([[0, 3], [3, 3], [2, 1]])                     # a repeated index accumulates
IDX_ND = _t([[1, 2], [0, 0], [1, 2]], np.int64)
ROWS = _t([[2], [0]])

def _svd(x):
    return apply(P.Svd, [x], {"part": "s"})


EVERYDAY = [
    ("BatchMatMul", lambda a, c: ops.einsum("ii,...ij->...j", a, c), [rnd(3, 3), rnd(2, 3, 3, seed=1)], (0, 1)),
    ("CheckFinite", lambda x: ops.clip_by_norm(x, 0.5, error_if_nonfinite=True), [rnd(3, 4)], (0,)),
    ("GatherD", lambda x: ops.gather_elements(x, 1, IDX_D), [rnd(3, 4)], (0,)),
    ("GatherD", lambda x: ops.gather_d(x, 0, _t([[1, 0, 1]])), [rnd(2, 3, seed=1)], (0,)),
    ("GatherNd", lambda x: ops.gather_nd(x, IDX_ND), [rnd(2, 3, 4)], (0,)),
    ("TensorScatterUpdate", lambda x, u: ops.tensor_scatter_update(x, ROWS, u), [rnd(3, 4), rnd(2, 4, seed=1)],
     (0, 1)),
    ("TensorScatterAdd", lambda x, u: ops.tensor_scatter_add(x, IDX_ND, u), [rnd(2, 3, 4), rnd(3, 4, seed=1)], (0, 1)),
    ("TensorScatterSub", lambda x, u: ops.tensor_scatter_sub(x, IDX_ND, u), [rnd(2, 3, 4), rnd(3, 4, seed=1)], (0, 1)),
    ("TensorScatterElements", lambda x, u: ops.tensor_scatter_elements(x, _t([[1, 0], [3, 2], [0, 1]]), u, 1),
     [rnd(3, 4), rnd(3, 2, seed=1)], (0, 1)),
    ("TensorScatterElements", lambda x, u: ops.tensor_scatter_elements(x, _t([[1, 1, 0, 2]]), u, 0, "add"),
     [rnd(3, 4), rnd(1, 4, seed=1)], (0, 1)),
    ("CumSum", lambda x: ops.cumsum(x, 1), [rnd(3, 4)], (0,)),
    # the singular values (the norms' ord=2: u1 v1^T, 'nuc': U V^T, -2: the smallest pair), batched, wide
    # and tall; the op itself, since the norms return Float32 as MindSpore's do
    ("Svd", lambda x: _svd(x), [rnd(3, 4)], (0,)),
    ("Svd", lambda x: ops.sum(_svd(x), -1), [rnd(2, 4, 3, seed=1)], (0,)),
    ("CumMinMax", lambda x: ops.cummax(x, 1)[0], [rnd(3, 5)], (0,)),
    ("CumMinMax", lambda x: ops.cummin(x, 0)[0], [rnd(4, 2, seed=1)], (0,)),
    ("MatrixSolve", lambda a, b: ops.matrix_solve(a + 4 * ops.eye(3, 3, ms.float64), b), [rnd(2, 3, 3), rnd(2, 3, 2, seed=1)],
     (0, 1)),
    ("MatrixSolve", lambda a, b: ops.matrix_solve(a + 4 * ops.eye(3, 3, ms.float64), b, True),
     [rnd(3, 3, seed=2), rnd(3, 4, seed=3)], (0, 1)),
    ("Svd", lambda x: ops.amin(_svd(x), -1) + ops.amax(_svd(x), -1), [rnd(3, 2, 4, seed=2)], (0,)),
    ("CumSum", lambda x: ops.CumSum(exclusive=True, reverse=True)(x, 0), [rnd(4, 3)], (0,)),
    ("CumProd", lambda x: ops.cumprod(x, 1), [rnd(3, 4, lo=0.5, hi=1.5)], (0,)),
    ("CumProd", lambda x: ops.CumProd(exclusive=True, reverse=True)(x, 0), [rnd(4, 2, lo=-1.5, hi=-0.5)], (0,)),
    ("ReduceProd", lambda x: ops.prod(x, 1), [rnd(3, 4, lo=0.5, hi=1.5)], (0,)),
    ("ReduceProd", lambda x: ops.prod(x, (0, 2), keep_dims=True), [rnd(2, 3, 2, lo=-1.5, hi=1.5)], (0,)),
    ("ReduceProd", lambda x: ops.prod(x), [np.array([[0.0, 2.0, -1.5], [1.2, 0.7, 3.0]])], (0,)),
]
