"""Gradient clipping (mindspore.ops.clip_by_value / clip_by_norm / clip_by_global_norm) over a
Tensor or a tuple / list of Tensors, with MindSpore 2.10's formulas and result structures
(recorded in tests/oracle/data/loss_scale.json):

* clip_by_value: max(min(x, max), min) per tensor (so min > max gives max everywhere).
* clip_by_norm: total = (sum over tensors of (sum x^p)^(1/p))^p)^(1/p) - MindSpore raises x to p
  without taking |x| first, and so does this - or the largest |x| for p = inf; every tensor is
  multiplied by max_norm / (total + 1e-6) when that is below 1.
* clip_by_global_norm: global = sqrt(sum of every squared element); tensors are multiplied by
  clip_norm / max(global, clip_norm).

A list argument gives a tuple eagerly and a list in graph code, as in MindSpore.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops import tracing
from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply


def _is_tensor(x) -> bool:
    return isinstance(x, (Tensor, Symbolic))


def _structure(x, results):
    """Results in MindSpore's container: a list input gives a list in graph code, a tuple eagerly."""
    if isinstance(x, list) and tracing.capturing() is not None:
        return list(results)
    return tuple(results)


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """x clipped to [clip_value_min, clip_value_max] (numbers or broadcast tensors), in x's dtype;
    x may be a tuple or list of tensors."""
    if clip_value_min is None and clip_value_max is None:
        raise OpValueError("For 'clip_by_value', at least one of 'clip_value_min' or 'clip_value_max' must not be None")
    if not (_is_tensor(x) or isinstance(x, (tuple, list))):
        raise OpTypeError("For 'clip_by_value', the type of argument 'x' must be Tensor or tuple[Tensor] or list[Tensor]")

    def one(t):
        if not _is_tensor(t):
            raise OpTypeError("For 'clip_by_value', the type of argument 'x' must be Tensor or tuple[Tensor] or "
                              "list[Tensor]")
        out = t
        if clip_value_min is not None:
            out = F.maximum(out, F.cast(clip_value_min, t.dtype) if _is_tensor(clip_value_min) else clip_value_min)
        if clip_value_max is not None:
            out = F.minimum(out, F.cast(clip_value_max, t.dtype) if _is_tensor(clip_value_max) else clip_value_max)
        return out if out.dtype == t.dtype else F.cast(out, t.dtype)

    if _is_tensor(x):
        return one(x)
    return _structure(x, [one(t) for t in x])


def _p_norm(x, p):
    return F.cast(F.pow(F.sum(F.pow(x, p)), 1.0 / p), x.dtype)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale x (a tensor, or every tensor of a tuple / list) so their total norm is at most
    max_norm."""
    single = _is_tensor(x)
    xs = [x] if single else list(x)
    if norm_type == float("inf"):
        total = None
        for t in xs:
            m = F.amax(F.abs(t))
            total = m if total is None else F.maximum(total, m)
    else:
        total = _p_norm(F.stack([_p_norm(t, norm_type) for t in xs]), norm_type)
    if error_if_nonfinite:      # checked when the program runs, in graph code as in PyNative
        total = apply(P.CheckFinite, [total], {
            "message": f"For clip_by_norm, the total norm of order {norm_type} from input is non-finite."})
    coef = max_norm / (total + 1e-6)
    small = coef < 1
    out = [F.select(small, t * F.cast(coef, t.dtype), t) for t in xs]
    return out[0] if single else _structure(x, out)


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Scale every tensor of x by clip_norm / max(global norm, clip_norm)."""
    if use_norm is not None:
        raise OpValueError(f"For '_ClipByGlobalNorm', input 'use_norm' only supports None currently, but got "
                           f"'use_norm': {use_norm}")
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, (int, float)):
        raise OpTypeError(f"For 'clip_by_global_norm', the 'clip_norm' must be int or float, "
                          f"but got {type(clip_norm).__name__}")
    if clip_norm <= 0:
        raise OpValueError(f"For 'clip_by_global_norm', the 'clip_norm' must be > 0, but got {clip_norm}.")
    if _is_tensor(x):
        if tracing.capturing() is not None:
            raise OpTypeError('Failed calling AddN with "x=Tensor[Float32]".')
        xs = [x]
    else:
        xs = list(x)
    square_sum = None
    for t in xs:
        s = F.cast(F.sum(F.square(t)), mstype.float32)
        square_sum = s if square_sum is None else square_sum + s
    global_norm = F.sqrt(square_sum)
    limit = Tensor(float(clip_norm), mstype.float32)
    global_norm = F.select(global_norm >= limit, global_norm, limit)
    out = [F.cast(t * limit / global_norm, t.dtype) for t in xs]
    return out[0] if _is_tensor(x) else _structure(x, out)


__all__ = ["clip_by_value", "clip_by_norm", "clip_by_global_norm"]
