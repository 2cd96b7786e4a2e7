"""Batch normalization with batch statistics (training mode) and its gradient.

`BatchNorm(x, gamma, beta)` normalizes over every axis but the channel axis 1 with the batch's
own mean and (biased) variance and returns (y, mean, variance); nn.BatchNorm updates its moving
statistics from those with Assign, as MindSpore's kernel does in place. In eval mode BatchNorm
is a per-channel affine map the layers write with elementwise ops (x * scale + shift), so it
fuses into a producing convolution's epilogue. `BatchNormGrad(dy, x, gamma)` recomputes the
statistics and returns (dx, dgamma, dbeta). Both run as one template each (ops/c/norm.py):
per channel, a pass for the sums, a pass for the output.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import TensorType, TupleType
from pycompile.ops._table import OpDef, Kind, OpTypeError, OpValueError, defop, describe, tensor_arg
from pycompile.ops.lowering import Template


def _axes(x):
    return (0,) + tuple(range(2, x.ndim))


def _check(name, x, gamma, beta):
    if x.ndim < 2:
        raise OpValueError(f"For '{name}', the input must have at least 2 dimensions, but got {describe(x)}")
    if not x.dtype.is_float:
        raise OpTypeError(f"For '{name}', the input must be a float tensor, but got {describe(x)}")
    c = x.shape[1]
    for t, what in ((gamma, "scale"), (beta, "bias")):
        if t.shape != (c,):
            raise OpValueError(f"For BatchNorm, {what}.shape[0] should be equal to input_x's channel dimension: "
                               f"{c}, bug got {what}.shape[0]: {t.shape[0] if t.shape else t.shape}.")


def _bn_infer(types, epsilon=1e-5):
    x, gamma, beta = (tensor_arg("BatchNorm", t, n) for t, n in zip(types, ("x", "scale", "bias")))
    _check("BatchNorm", x, gamma, beta)
    stat = TensorType(x.dtype, (x.shape[1],))
    return TupleType((x, stat, stat))


def _stats(x):
    xf = x.astype(np.float64)
    mean = xf.mean(axis=_axes(x))
    var = xf.var(axis=_axes(x))
    return xf, mean, var


def _shape(v, x):
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def _bn_eager(x, gamma, beta, epsilon=1e-5):
    xf, mean, var = _stats(x)
    inv = 1.0 / np.sqrt(var + epsilon)
    y = (xf - _shape(mean, x)) * _shape(inv * gamma, x) + _shape(beta.astype(np.float64), x)
    return y.astype(x.dtype), mean.astype(x.dtype), var.astype(x.dtype)


def _bn_grad_infer(types, epsilon=1e-5):
    dy, x, gamma = (tensor_arg("BatchNormGrad", t, n) for t, n in zip(types, ("dy", "x", "scale")))
    _check("BatchNormGrad", x, gamma, gamma)
    if dy.shape != x.shape:
        raise OpValueError(f"For 'BatchNormGrad', dy must have the shape of x {list(x.shape)}, but got {list(dy.shape)}")
    stat = TensorType(x.dtype, (x.shape[1],))
    return TupleType((x, stat, stat))


def _bn_grad_eager(dy, x, gamma, epsilon=1e-5):
    xf, mean, var = _stats(x)
    m = x.size // x.shape[1]
    inv = 1.0 / np.sqrt(var + epsilon)
    xhat = (xf - _shape(mean, x)) * _shape(inv, x)
    d = dy.astype(np.float64)
    dbeta = d.sum(axis=_axes(x))
    dgamma = (d * xhat).sum(axis=_axes(x))
    dx = _shape(gamma * inv / m, x) * (m * d - _shape(dbeta, x) - xhat * _shape(dgamma, x))
    return dx.astype(x.dtype), dgamma.astype(x.dtype), dbeta.astype(x.dtype)


BatchNorm = defop("BatchNorm", ("x", "scale", "bias"), attrs={"epsilon": 1e-5}, infer=_bn_infer, eager=_bn_eager,
                  kind=Kind.REDUCE, batch="loop", lower=Template("batchnorm"))
BatchNormGrad = defop("BatchNormGrad", ("dy", "x", "scale"), attrs={"epsilon": 1e-5}, infer=_bn_grad_infer,
                      eager=_bn_grad_eager, kind=Kind.REDUCE, batch="loop", lower=Template("batchnorm_grad"))


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
