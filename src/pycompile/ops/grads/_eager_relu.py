"""PyNative's ReLU gradient on plain Tensors, in two NumPy passes (issue 32 item 4, branch train32).

The rule (grads/core.py `_relu`) is `select(out > 0, g, 0)`: in PyNative, Greater (a pass and a
bool array, run as its decomposition Less), then Select's branch-free mask (bool -> 0 / ~0 words
through a casting loop, then an AND): ~0.7 ms of LeNet-5's training step on its first activation
(64, 6, 28, 28). `out` is ReLU's own output, which the table's ReLU makes +0 or a positive
number (`fmax(x, 0) + 0`: NaN -> +0, -0 -> +0, never negative), so as integers of its width its
bits are 0 exactly where `out > 0` is false and positive elsewhere: `min(bits, 1)` is the 0 / 1
mask and an integer product by it keeps g's bits or gives +0 - Select's result, bit for bit
(tests/autodiff/test_train32_relu_grad.py: edge values, and LeNet's Parameters after PyNative
steps with and without it).

Only for what that argument covers: g and out plain Tensors (no tracer: graph mode, vmap and a
grad of a grad take the rule), float32 / float64 of one shape, outside a mixed-precision scope and
without the emulated float-status register (Select's plan would record its result there)."""
from __future__ import annotations

import numpy as np

from pycompile.common.tensor import Tensor
from pycompile.ops import _mixed
from pycompile.ops._table import STATUS_TRACKING

_INT_OF = {np.dtype(np.float32): np.int32, np.dtype(np.float64): np.int64}


def relu_grad(g, out):
    """`select(out > 0, g, 0)` for ReLU's output `out` as a new Tensor, or None where the rule
    must run (see the module doc)."""
    if g.__class__ is not Tensor or out.__class__ is not Tensor or _mixed.SCOPE or STATUS_TRACKING[0]:
        return None
    gd, od = g._data, out._data
    it = _INT_OF.get(gd.dtype)
    if it is None or od.dtype != gd.dtype or od.shape != gd.shape:
        return None
    m = np.empty(od.shape, it)              # (an array for 0-d operands too, not a NumPy scalar)
    np.minimum(od.view(it), 1, out=m)       # 1 where out > 0, 0 where out is +0
    np.multiply(m, gd.view(it), out=m)      # g's bits, or +0
    return Tensor._wrap_array(m.view(gd.dtype))
