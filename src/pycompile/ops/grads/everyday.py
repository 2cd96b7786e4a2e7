"""Gradient rules of the everyday ops (ops/defs/math.py, index.py, sort.py, ReduceProd, Argmin),
written with ops of the table (the contract is in `pycompile.ops.grads`).

A gather's gradient is a scatter-add of the cotangent into zeros and a scatter's gradient a
gather of it: GatherD <-> TensorScatterElements(add), GatherNd <-> TensorScatterAdd. CumSum's
is the cumulative sum in the other direction; CumProd's is MindSpore's (the reversed cumulative
sum of g * out, divided by x). ReduceProd's takes the product of the other elements from
exclusive cumulative products on both sides, so a zero in the input does not give NaN.
"""
from __future__ import annotations

import math

from pycompile.common.abstract import TensorType, type_of
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import apply, norm_axes
from pycompile.ops.defs.reduce import reduced_shape
from pycompile.ops.grads import defgrad, nondiff
from pycompile.ops.grads.core import _cj      # complex: g * conj(f'(x)), MindSpore's convention

nondiff(P.IsNan, P.IsInf, P.Argsort, P.TopKIndices, P.Argmin)


def _shape(v) -> tuple:
    t = type_of(v)
    return t.shape if isinstance(t, TensorType) else ()


def _zeros_like(v):
    return F.zeros_like(v)


# ---- elementwise ----------------------------------------------------------------------------------
@defgrad(P.CheckFinite)
def _check_finite(g, out, x, message=""):
    """The check passes its input through: so does the cotangent."""
    return (g,)


@defgrad(P.Log1p)
def _log1p(g, out, x):
    return (F.div(g, _cj(F.add(x, 1))),)


@defgrad(P.Expm1)
def _expm1(g, out, x):
    return (F.mul(g, _cj(F.add(out, 1))),)


@defgrad(P.Erfc)
def _erfc(g, out, x):
    return (F.mul(g, F.mul(F.exp(F.neg(F.square(x))), -2 / math.sqrt(math.pi))),)


@defgrad(P.Log2)
def _log2(g, out, x):
    return (F.div(g, _cj(F.mul(x, math.log(2)))),)


@defgrad(P.Tan)
def _tan(g, out, x):
    return (F.mul(g, _cj(F.add(F.square(out), 1))),)


@defgrad(P.Asin)
def _asin(g, out, x):
    return (F.mul(g, _cj(F.rsqrt(F.sub(1, F.square(x))))),)


@defgrad(P.ACos)
def _acos(g, out, x):
    return (F.neg(F.mul(g, _cj(F.rsqrt(F.sub(1, F.square(x)))))),)


@defgrad(P.Atan)
def _atan(g, out, x):
    return (F.div(g, _cj(F.add(F.square(x), 1))),)


@defgrad(P.Sinh)
def _sinh(g, out, x):
    return (F.mul(g, _cj(apply(P.Cosh, [x]))),)


@defgrad(P.Cosh)
def _cosh(g, out, x):
    return (F.mul(g, _cj(apply(P.Sinh, [x]))),)


@defgrad(P.Asinh)
def _asinh(g, out, x):
    return (F.mul(g, _cj(F.rsqrt(F.add(F.square(x), 1)))),)


@defgrad(P.Acosh)
def _acosh(g, out, x):
    return (F.mul(g, _cj(F.rsqrt(F.sub(F.square(x), 1)))),)


@defgrad(P.Atanh)
def _atanh(g, out, x):
    return (F.div(g, _cj(F.sub(1, F.square(x)))),)


@defgrad(P.Atan2)
def _atan2(g, out, y, x):
    # atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
    scale = F.div(g, F.add(F.square(x), F.square(y)))
    return F.mul(scale, x), F.neg(F.mul(scale, y))


def _flat_zero(g, out, x):
    return (F.mul(g, 0),)          # piecewise constant: zero almost everywhere


defgrad(P.Trunc)(_flat_zero)
defgrad(P.Round)(_flat_zero)
defgrad(P.Sign)(_flat_zero)


@defgrad(P.Mod)
def _mod(g, out, x, y):
    # x mod y = x - trunc(x / y) * y
    return g, F.neg(F.mul(g, apply(P.Trunc, [F.div(x, y)])))


# ---- gathers and scatters ----------------------------------------------------------------------------
@defgrad(P.GatherD)
def _gather_d(g, out, x, index, axis=0):
    dx = apply(P.TensorScatterElements, [_zeros_like(x), index, g], {"axis": axis, "reduction": "add"})
    return dx, None


@defgrad(P.GatherNd)
def _gather_nd(g, out, x, indices):
    return apply(P.TensorScatterAdd, [_zeros_like(x), indices, g]), None


@defgrad(P.TensorScatterUpdate)
def _scatter_update(g, out, x, indices, updates):
    # the replaced rows of x get nothing; the updates get what reached their rows. The rows
    # are read first: in a differentiated loop, g is a carried cotangent that the scatter then
    # overwrites in place (backend/c/memory.py, _inplace_carried)
    dupdates = apply(P.GatherNd, [g, indices])
    dx = apply(P.TensorScatterUpdate, [g, indices, _zeros_like(updates)])
    return dx, None, dupdates


@defgrad(P.TensorScatterAdd)
def _scatter_add(g, out, x, indices, updates):
    return g, None, apply(P.GatherNd, [g, indices])


@defgrad(P.TensorScatterSub)
def _scatter_sub(g, out, x, indices, updates):
    return g, None, apply(P.Neg, [apply(P.GatherNd, [g, indices])])


# not yet: the multiplicative and selecting scatters' rules (MindSpore has them)
nondiff(P.TensorScatterMul, P.TensorScatterDiv, P.TensorScatterMax, P.TensorScatterMin)
# the arithmetic scatters' core row appears only after autodiff (the pre-render pass makes it from
# the rows above, whose rules applied)
nondiff(P.TensorScatterCombine)


@defgrad(P.CumMinMax)
def _cum_min_max(g, out, x, axis=0, rule="max", part="values"):
    # each output element is the input element at its index: the cotangents add up there
    if part != "values":
        return (None,)
    idx = apply(P.CumMinMax, [x], {"axis": axis, "rule": rule, "part": "indices"})
    return (apply(P.TensorScatterElements, [_zeros_like(x), idx, g], {"axis": axis, "reduction": "add"}),)


@defgrad(P.TensorScatterElements)
def _scatter_elements(g, out, x, indices, updates, axis=0, reduction="none"):
    dupd = apply(P.GatherD, [g, indices], {"axis": axis})
    if reduction == "add":
        return g, None, dupd
    dx = apply(P.TensorScatterElements, [g, indices, _zeros_like(updates)], {"axis": axis, "reduction": "none"})
    return dx, None, dupd


# ---- scans and products ---------------------------------------------------------------------------
@defgrad(P.CumSum)
def _cumsum(g, out, x, axis=0, exclusive=False, reverse=False):
    return (apply(P.CumSum, [g], {"axis": axis, "exclusive": exclusive, "reverse": not reverse}),)


@defgrad(P.CumProd)
def _cumprod(g, out, x, axis=0, exclusive=False, reverse=False):
    # MindSpore's rule: cumsum(out * g) taken the other way, divided by x
    s = apply(P.CumSum, [F.mul(out, g)], {"axis": axis, "exclusive": exclusive, "reverse": not reverse})
    return (F.div(s, x),)


@defgrad(P.ReduceProd)
def _reduce_prod(g, out, x, axis=None, keep_dims=False):
    shape = _shape(x)
    nd = len(shape)
    axes = norm_axes("ReduceProd", axis, nd)
    if not axes:
        return (g,)
    kept = tuple(d for d in range(nd) if d not in axes)
    perm = kept + tuple(axes)
    n = math.prod(shape[a] for a in axes)
    rows = math.prod(shape[d] for d in kept)
    xt = F.reshape(F.transpose(x, perm) if perm != tuple(range(nd)) else x, (rows, n))
    # the product of every other element: exclusive products from the left times from the right
    left = apply(P.CumProd, [xt], {"axis": 1, "exclusive": True, "reverse": False})
    right = apply(P.CumProd, [xt], {"axis": 1, "exclusive": True, "reverse": True})
    others = F.reshape(F.mul(left, right), tuple(shape[d] for d in perm))
    if perm != tuple(range(nd)):
        inverse = tuple(perm.index(d) for d in range(nd))
        others = F.transpose(others, inverse)
    spread = F.broadcast_to(F.reshape(g, reduced_shape(shape, axes, True)), shape)
    return (F.mul(spread, others),)
