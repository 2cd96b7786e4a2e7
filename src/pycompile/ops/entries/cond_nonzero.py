"""ops.cond (the condition number of square matrices: sigma_max / sigma_min for p None / 2,
sigma_min / sigma_max for -2, else norm(A, p) * norm(inv(A), p)) and ops.is_nonzero (the truth of
a one-element tensor), as MindSpore 2.10 computes them (recorded in cases_internal.py)."""
import numpy as np

import pycompile.ops as ops
from pycompile.common.abstract import Symbolic
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.entry import Arg, op_entry


@op_entry("cond", args=[Arg("A"), Arg("p", "value", default=None)])
def cond(A, p=None):
    """The condition number of A (..., n, n) in the norm p (None, 'fro', 'nuc', inf, -inf, 1, -1, 2, -2)."""
    if p is None or p == 2 or p == -2:
        s = ops.svd(A, compute_uv=False)
        hi, lo = F.reduce_max(s, -1), F.reduce_min(s, -1)
        return F.div(lo, hi) if p == -2 else F.div(hi, lo)
    return F.mul(ops.matrix_norm(A, p), ops.matrix_norm(ops.inverse(A), p))


@op_entry("is_nonzero", args=[Arg("input")])
def is_nonzero(input):
    """Whether the one element of input is nonzero (a Python bool; PyNative)."""
    n = int(np.prod(input.shape, dtype=np.int64))
    if n != 1:
        raise OpValueError(f"For is_nonzero, the numel of input must be 1, but got {n}.")
    if isinstance(input, Symbolic):
        raise OpValueError("For is_nonzero, the value is known only when the program runs: call it in PyNative mode")
    return bool(input.asnumpy().reshape(-1)[0] != 0)
