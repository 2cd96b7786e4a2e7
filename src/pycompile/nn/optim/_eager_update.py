"""PyNative's Momentum update on the Parameters' own NumPy buffers (issue 32, W9).

`Momentum.construct` run op by op costs 8 table ops per Parameter (two Casts, Mul, Add, Mul,
Sub, two Assigns; the Assigns take the full dispatch path). When nothing can observe those ops -
no tracer active (no @jit / GRAPH_MODE capture, no grad tape, no vmap), no mixed-precision scope,
no emulated float-status register - `momentum_update` does the same arithmetic in place, in the
same order and dtypes, so the Parameters come out bit for bit as the table ops leave them:

    moment = moment * cast(momentum, dtype) + g          (Mul, then Add: no fused multiply-add)
    p      = p - cast(lr, dtype) * moment
float32 / float64 compute in their own dtype; float16 operands are widened to float32 and every
op's result rounded back to float16 (the table's rule for float16 elementwise ops). Anything else
(another dtype, mixed dtypes, a non-scalar rate, aliasing buffers, tracer values) returns False
and the caller runs the table ops. `_FAST[0] = False` turns the path off (tests compare both).
"""
from __future__ import annotations

import numpy as np

from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor, parameters_written
from pycompile.ops import _mixed, tracing
from pycompile.ops._table import STATUS_TRACKING

_FAST = [True]
_NATIVE = (np.dtype(np.float32), np.dtype(np.float64))
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)


def eager_ready() -> bool:
    """True when the table ops of an update would run at once on NumPy, seen by no one."""
    return _FAST[0] and not tracing._ACTIVE.get() and not _mixed.SCOPE and not STATUS_TRACKING[0]


def _buffers(params, moments, gradients, lrs):
    """The NumPy arrays of every Parameter's update, or None where one is not the plain case."""
    out = []
    for p, m, g, lr in zip(params, moments, gradients, lrs):
        if p.__class__ is not Parameter or m.__class__ is not Parameter or g.__class__ not in (Tensor, Parameter) \
                or not isinstance(lr, Tensor):
            return None
        pa, ma, ga, la = p._data, m._data, g._data, lr._data
        dt = pa.dtype
        if (dt not in _NATIVE and dt != _F16) or ma.dtype != dt or ga.dtype != dt or pa.shape != ma.shape \
                or ga.shape != pa.shape or la.ndim != 0 or la.dtype.kind != "f" \
                or not (pa.flags.c_contiguous and ma.flags.c_contiguous) \
                or np.may_share_memory(pa, ma) or np.may_share_memory(ga, pa) or np.may_share_memory(ga, ma):
            return None
        out.append((pa, ma, ga, la))
    return out


def momentum_update(params, moments, gradients, lrs, momentum) -> bool:
    """moment = moment * momentum + g; p -= lr * moment, in place. False: not done (see above)."""
    mom_arr = momentum._data
    if mom_arr.ndim != 0 or len(gradients) != len(params):
        return False
    bufs = _buffers(params, moments, gradients, lrs)
    if bufs is None:
        return False
    with np.errstate(all="ignore"):
        for pa, ma, ga, la in bufs:
            dt = pa.dtype
            mom = mom_arr.astype(dt)            # F.cast(momentum, g.dtype)
            lr = la.astype(dt)                  # F.cast(lr, p.dtype)
            if dt == _F16:
                m32 = ma.astype(_F32)
                np.multiply(m32, mom.astype(_F32), out=m32)
                new_m = m32.astype(_F16)
                np.add(new_m, ga, out=m32, dtype=_F32)
                ma[...] = m32                    # the Assign of the rounded new moment
                np.multiply(lr.astype(_F32), ma, out=m32, dtype=_F32)
                step = m32.astype(_F16)
                np.subtract(pa, step, out=m32, dtype=_F32)
                pa[...] = m32
            else:
                np.multiply(ma, mom, out=ma)
                np.add(ma, ga, out=ma)
                step = np.multiply(lr, ma)
                np.subtract(pa, step, out=pa)
    parameters_written()
    return True
