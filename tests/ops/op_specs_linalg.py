"""NumPy-checked specs of the singular values (the Svd op: ops.norm / ops.matrix_norm / Tensor.norm
with ord=2, -2 and 'nuc'), loaded by op_specs.py into its CASES."""
from __future__ import annotations

import numpy as np

from pycompile import ops
from op_specs import F32, F64, Case, sample


def _svals(x):
    return np.linalg.svd(x.astype(np.float64), compute_uv=False)


def _norms(x):
    s = _svals(x)
    return np.array([s.max(), s.min(), s.sum(), s.max()], F32)


def _batched(x):
    # Float32 from a Float64 input, as MindSpore 2.10 returns these norms
    return np.concatenate([_svals(x).sum(-1), _svals(np.moveaxis(x, 1, 0)).max(-1),
                           _svals(np.swapaxes(x, -1, -2)).min(-1)]).astype(F32)


LINALG_CASES = [
    Case("matrix norms 2 -2 nuc", "Svd",
         lambda x: ops.stack([ops.norm(x, 2), ops.norm(x, -2), ops.norm(x, "nuc"),
                              ops.matrix_norm(x, 2, keepdims=True).reshape(())]),
         _norms, (sample(F32, (3, 4)),), (ops.norm, ops.matrix_norm)),
    Case("matrix norms batched float64", "Svd",
         lambda x: ops.concat([ops.matrix_norm(x, "nuc"), ops.norm(x, 2, dim=(0, 2)),
                               x.norm(-2, dim=(-1, -2), keepdim=True).reshape(-1)]),
         _batched, (sample(F64, (2, 5, 3)),), (ops.matrix_norm, ops.norm)),
]


def _batch_dot(x, y):
    """ops.batch_dot's default axes: x's last with y's second to last, per batch entry."""
    return np.einsum("bij,bjk->bik", x.astype(np.float64), y.astype(np.float64)).astype(F32)


LINALG_CASES += [
    Case("batch dot, default axes", "BatchMatMul", lambda x, y: ops.batch_dot(x, y), _batch_dot,
         (sample(F32, (2, 3, 4)), sample(F32, (2, 4, 5))), (ops.batch_dot,)),
]
