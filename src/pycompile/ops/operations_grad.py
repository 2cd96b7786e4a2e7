"""The backward Primitives of MindSpore's `ops.operations._grad_ops` that its CPU op tests call
directly (`G.InvGrad()(y, dy)`, `G.BiasAddGrad()(dout)`, `G.KLDivLossGrad("mean")(dy, x, y)`...),
each a composition of table ops with MindSpore 2.10's argument order and formula (checked against
the wheel: tests/conformance/cases_scatter.py). pycompile's own gradients come from the rules in
ops/grads; these classes are the public names only."""
from __future__ import annotations

import numpy as np

from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.primitive import Primitive


def _cj(v):
    """conj(v) of a complex tensor (MindSpore's complex gradients are dy * conj(f'(x))), else v."""
    if getattr(getattr(v, "dtype", None), "is_complex", False):
        from pycompile.ops import prims as P
        from pycompile.ops._table import apply
        return apply(P.Conj, [v])
    return v


def _grad_prim(name: str, fn, params: dict | None = None, doc: str = ""):
    """A Primitive whose constructor takes `params` (name -> default) and whose call is fn(self, *args)."""
    params = params or {}

    def __init__(self, *args, **kwargs):
        Primitive.__init__(self, name)
        values = dict(params)
        values.update(zip(params, args))
        for k, v in kwargs.items():
            if k not in params:
                raise TypeError(f"For '{name}', unknown constructor argument '{k}'")
            values[k] = v
        for k, v in values.items():
            setattr(self, k, v)
    return type(name, (Primitive,), {"__init__": __init__, "__call__": fn, "__module__": __name__,
                                     "__doc__": doc or f"MindSpore's {name}."})


InvGrad = _grad_prim("InvGrad", lambda self, y, dy: F.neg(F.mul(dy, _cj(F.mul(y, y)))), doc="-dy * conj(y * y).")
SqrtGrad = _grad_prim("SqrtGrad", lambda self, y, dy: F.div(dy, _cj(F.mul(y, 2))), doc="dy / conj(2 y).")
AtanGrad = _grad_prim("AtanGrad", lambda self, x, dy: F.div(dy, _cj(F.add(F.square(x), 1))),
                      doc="dy / conj(1 + x^2).")
AsinGrad = _grad_prim("AsinGrad", lambda self, x, dy: F.div(dy, F.sqrt(F.sub(1, F.square(x)))),
                      doc="dy / sqrt(1 - x^2).")
ACosGrad = _grad_prim("ACosGrad", lambda self, x, dy: F.neg(F.div(dy, F.sqrt(F.sub(1, F.square(x))))),
                      doc="-dy / sqrt(1 - x^2).")
AsinhGrad = _grad_prim("AsinhGrad", lambda self, y, dy: F.div(dy, F.cosh(y)), doc="dy / cosh(y), y = asinh(x).")
AcoshGrad = _grad_prim("AcoshGrad", lambda self, y, dy: F.div(dy, F.sinh(y)), doc="dy / sinh(y), y = acosh(x).")
ReLU6Grad = _grad_prim("ReLU6Grad", lambda self, dy, x: F.select(F.logical_and(F.gt(x, 0), F.le(x, 6)), dy,
                                                                 F.zeros_like(dy)),
                       doc="dy where 0 < x <= 6 (MindSpore's CPU kernel passes it at 6), else 0.")
EluGrad = _grad_prim("EluGrad", lambda self, dy, y: F.select(F.gt(y, 0), dy, F.mul(dy, F.add(y, 1))),
                     doc="dy where y > 0, else dy * (y + 1) (alpha 1; y = elu(x)).")


def _shrink_grad(self, gradients, features):
    keep = F.gt(F.abs(features), float(self.lambd))
    return F.select(keep, gradients, F.zeros_like(gradients))


HShrinkGrad = _grad_prim("HShrinkGrad", _shrink_grad, {"lambd": 0.5}, "gradients where |features| > lambd, else 0.")
SoftShrinkGrad = _grad_prim("SoftShrinkGrad", _shrink_grad, {"lambd": 0.5},
                            "gradients where |features| > lambd, else 0.")
SigmoidCrossEntropyWithLogitsGrad = _grad_prim(
    "SigmoidCrossEntropyWithLogitsGrad", lambda self, x, y, dout: F.mul(F.sub(F.sigmoid(x), y), dout),
    doc="(sigmoid(x) - y) * dout.")


def _bias_add_grad(self, dout):
    t = F._tensor_type("BiasAddGrad", dout, "dout")
    if t.ndim < 2:
        raise OpValueError(f"For 'BiasAddGrad', 'dout' must have at least 2 dimensions, but got {t.ndim}")
    channel = t.ndim - 1 if self.data_format == "NHWC" else 1
    return F.reduce_sum(dout, tuple(a for a in range(t.ndim) if a != channel))


BiasAddGrad = _grad_prim("BiasAddGrad", _bias_add_grad, {"data_format": "NCHW"},
                         "dout summed over every axis but the channel axis (1 for NCHW / NCDHW, the last for NHWC).")

_KL_REDUCTIONS = ("none", "mean", "sum", "batchmean")


def _kl_div_loss_grad(self, dy, x, y):
    if not isinstance(self.reduction, str) or self.reduction not in _KL_REDUCTIONS:
        raise OpValueError(f"For 'KLDivLossGrad', 'reduction' must be one of {list(_KL_REDUCTIONS)}, but got "
                           f"{self.reduction!r}")
    t = F._tensor_type("KLDivLossGrad", x, "x")
    if not t.dtype.is_float:
        raise OpTypeError(f"For 'KLDivLossGrad', 'x' must be a float Tensor, but got {t}")
    dx = F.neg(F.mul(y, dy))
    if self.reduction == "mean" and t.size:
        dx = F.div(dx, float(t.size))
    elif self.reduction == "batchmean" and t.ndim:
        dx = F.div(dx, float(t.shape[0]))
    return dx


KLDivLossGrad = _grad_prim("KLDivLossGrad", _kl_div_loss_grad, {"reduction": "mean"},
                           "d KLDivLoss / d x: -y * dy, divided by the element count ('mean') or the batch "
                           "('batchmean').")

def _norm_axes(name: str, axis, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < max(ndim, 1):
        raise OpValueError(f"For '{name}', the begin axis must be an int in [{-ndim}, {ndim}), but got {axis!r}")
    return axis % ndim


def _layer_norm_grad(self, x, dy, variance, mean, gamma):
    t = F._tensor_type("LayerNormGrad", x, "x")
    a = _norm_axes("LayerNormGrad", self.begin_norm_axis, t.ndim)
    p = _norm_axes("LayerNormGrad", self.begin_params_axis, t.ndim)
    norm_axes, param_axes = tuple(range(a, t.ndim)), tuple(range(p))
    rstd = F.rsqrt(F.add(variance, 1e-12))
    xhat = F.mul(F.sub(x, mean), rstd)
    g = F.mul(dy, F.reshape(gamma, (1,) * p + tuple(t.shape[p:])))
    # MindSpore's kernel form, which holds for any given mean (the suite passes ones that are not
    # x's): with d = x - mean, s1 = sum(-g d rstd^3 / 2), s2 = sum(g), s3 = sum(-2 d) over the
    # normalized axes (n elements), dx = g rstd + s1 (2 / n) d + (s1 s3 / n - rstd s2) / n
    n = 1
    for k in norm_axes:
        n *= t.shape[k]
    d = F.sub(x, mean)
    s1 = F.sum(F.mul(F.mul(g, d), F.mul(F.mul(rstd, rstd), rstd) * -0.5), norm_axes, True)
    s2 = F.sum(g, norm_axes, True)
    s3 = F.sum(d * -2.0, norm_axes, True)
    dx = F.add(F.add(F.mul(g, rstd), F.mul(s1, d) * (2.0 / n)),
               F.sub(F.mul(s1, s3) * (1.0 / n), F.mul(rstd, s2)) * (1.0 / n))
    gshape = F._tensor_type("LayerNormGrad", gamma, "gamma").shape
    # begin_params_axis 0: nothing is summed (an empty axis tuple would sum everything)
    total = (lambda v: F.reduce_sum(v, param_axes)) if param_axes else (lambda v: v)
    dgamma = F.reshape(total(F.mul(dy, xhat)), gshape)
    dbeta = F.reshape(total(dy), gshape)
    return dx, dgamma, dbeta


LayerNormGrad = _grad_prim("LayerNormGrad", _layer_norm_grad, {"begin_norm_axis": 1, "begin_params_axis": 1},
                           "(dx, dgamma, dbeta) of LayerNorm from (x, dy, variance, mean, gamma); epsilon 1e-12.")

def _dropout_grad(self, dy, mask):
    keep = float(self.keep_prob)
    if not 0 < keep <= 1:
        raise OpValueError(f"For 'DropoutGrad', 'keep_prob' must be in (0, 1], but got {keep}")
    t = F._tensor_type("DropoutGrad", dy, "dy")
    return F.mul(F.mul(dy, F.cast(mask, t.dtype)), 1.0 / keep)


DropoutGrad = _grad_prim("DropoutGrad", _dropout_grad, {"keep_prob": 0.5}, "dy * mask / keep_prob.")


def _scatter_back(name, dy, shape, ranges):
    """zeros of `shape` with dy written at the grid of positions `ranges` (one range per axis)."""
    t = F._tensor_type(name, dy, "dy")
    grid = np.stack(np.meshgrid(*[np.array(r, np.int32) for r in ranges], indexing="ij"), -1)
    counts = tuple(len(r) for r in ranges)
    if int(np.prod(counts)) != t.size:
        raise OpValueError(f"For '{name}', dy has {t.size} elements but the slice has {int(np.prod(counts))}")
    zeros = F.zeros(tuple(shape), t.dtype)
    if not t.size:
        return zeros
    from pycompile.common.tensor import Tensor
    return F.tensor_scatter_update(zeros, Tensor(grid.reshape(counts + (len(ranges),))), F.reshape(dy, counts))


def _slice_grad(self, dy, x, begin, size):
    shape = tuple(F._tensor_type("SliceGrad", x, "x").shape)
    if any(s < 0 for s in size):
        raise OpRuntimeError("For 'SliceGrad', the value of size can not be negative.")
    ranges = [range(b, b + s) for b, s in zip(begin, size)]
    return _scatter_back("SliceGrad", dy, shape, ranges)


SliceGrad = _grad_prim("SliceGrad", _slice_grad, doc="The gradient of Slice: dy in zeros of x's shape at begin.")


def _strided_slice_grad(self, dy, shapex, begin, end, strides):
    masks = [m for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
             if getattr(self, m)]
    if masks:
        raise OpValueError(f"For 'StridedSliceGrad', pycompile supports no masks, but got {', '.join(masks)}")
    shape = tuple(int(v) for v in shapex)
    ranges = [range(*slice(b, e, s).indices(n)) for b, e, s, n in zip(begin, end, strides, shape)]
    ranges += [range(n) for n in shape[len(ranges):]]
    return _scatter_back("StridedSliceGrad", dy, shape, ranges)


StridedSliceGrad = _grad_prim("StridedSliceGrad", _strided_slice_grad,
                              {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0,
                               "shrink_axis_mask": 0},
                              "The gradient of StridedSlice (no masks): dy in zeros of shapex at the slice.")

__all__ = [n for n, v in list(globals().items()) if isinstance(v, type) and issubclass(v, Primitive)
           and v is not Primitive]
