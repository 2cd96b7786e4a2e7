"""ops.random_poisson (MindSpore's RandomPoisson): Poisson counts of `shape + rate.shape`, drawn
on pycompile's counter-based generator (ops/function_random.py; MindSpore's exact stream is
not a goal). Rates below 10 invert the CDF (40 terms: P(X >= 40) < 1e-11 there); larger ones use
Hoermann's transformed rejection (PTRS) with 16 vectorized attempts, each accepted with
probability > 0.9 (a lane rejected 16 times, p < 1e-16, takes round(rate)). Argument errors as
the wheel raises them (recorded in tests/conformance/cases_tail.py)."""
import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import TensorMethods
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry
from pycompile.ops.function_random import R, _op_seed, draw

_OUT = (mstype.float16, mstype.float32, mstype.float64, mstype.int32, mstype.int64)
_RATE = frozenset(_OUT)
_CDF_TERMS = 40
_ATTEMPTS = 16


def _check_shape(shape) -> None:
    if not isinstance(shape, TensorMethods):
        raise OpTypeError(f"For 'RandomPoisson', 'shape' must be a Tensor, but got {type(shape).__name__}.")
    if shape.dtype not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"For 'RandomPoisson', the type of 'shape' should be one of [Int32, Int64], "
                          f"but got {shape.dtype}.")
    if len(shape.shape) != 1:
        raise OpValueError(f"For 'RandomPoisson', 'shape' must be a 1-D tensor, but got {len(shape.shape)}-D.")


def _shape_values(shape) -> tuple:
    if isinstance(shape, Symbolic):
        raise OpValueError("For 'RandomPoisson', the values of 'shape' must be known at compile time in graph "
                           "code: pass a constant Tensor, or create it in __init__.")
    dims = tuple(int(d) for d in shape.asnumpy())
    if any(d < 0 for d in dims):
        raise OpValueError(f"For 'RandomPoisson', each element of 'shape' must be non-negative, but got {dims}.")
    return dims


def _log_factorial(k):
    """lgamma(k + 1) for k >= 0 (float64): Stirling's series at k + 9, shifted down by 8 terms."""
    z = k + 9.0
    series = (z - 0.5) * ops.log(z) - z + 0.5 * math.log(2 * math.pi) + 1.0 / (12.0 * z) \
        - 1.0 / (360.0 * z * z * z) + 1.0 / (1260.0 * z * z * z * z * z)
    prod = k + 1.0
    for i in range(2, 9):
        prod = prod * (k + float(i))
    return series - ops.log(prod)


def _small(lam, u):
    """Inverse CDF: the number of k with CDF(k) < u."""
    p = ops.exp(-lam)
    cdf = p
    count = ops.cast(u > cdf, mstype.float64)
    for k in range(1, _CDF_TERMS):
        p = p * lam / float(k)
        cdf = cdf + p
        count = count + ops.cast(u > cdf, mstype.float64)
    return count


def _ptrs(lam, uu, vv):
    """Hoermann (1993), 'The transformed rejection method for generating Poisson random variables'."""
    slam, loglam = ops.sqrt(lam), ops.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_inv_alpha = ops.log(1.1239 + 1.1328 / (b - 3.4))
    vr = 0.9277 - 3.6224 / (b - 2.0)
    out = ops.round(lam)
    for t in reversed(range(_ATTEMPTS)):
        u, v = uu[t] - 0.5, vv[t]
        us = 0.5 - ops.abs(u)
        safe = ops.maximum(us, 1e-12)
        k = ops.floor((2.0 * a / safe + b) * u + lam + 0.43)
        fast = ops.logical_and(us >= 0.07, v <= vr)
        bad = ops.logical_or(ops.logical_or(k < 0, us <= 0.0), ops.logical_and(us < 0.013, v > us))
        kk = ops.maximum(k, 0.0)
        slow = ops.log(ops.maximum(v, 1e-300)) + log_inv_alpha - ops.log(a / (safe * safe) + b) \
            <= -lam + kk * loglam - _log_factorial(kk)
        ok = ops.logical_or(ops.logical_and(fast, us > 0.0), ops.logical_and(ops.logical_not(bad), slow))
        out = ops.select(ok, kk, out)
    return out


def _check_seed(seed, name):
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise OpTypeError(f"For 'RandomPoisson', '{name}' must be an int, but got {type(seed).__name__}.")


@op_entry("random_poisson", prim_name="RandomPoisson",
          args=[Arg("shape", "value"), Arg("rate", dtypes=_RATE), Arg("seed", "value", default=None),
                Arg("dtype", "value", default=mstype.float32)])
def random_poisson(shape, rate, seed=None, dtype=mstype.float32):
    """Poisson counts with mean `rate`, of shape `shape + rate.shape`, in `dtype`."""
    _check_shape(shape)
    _check_seed(seed, "seed")
    dt = dtype if isinstance(dtype, mstype.DType) else None
    if dt not in _OUT:
        raise OpTypeError(f"For 'RandomPoisson', the type of 'dtype' should be one of "
                          f"[Float16, Float32, Float64, Int32, Int64], but got {dt}.")
    out_shape = _shape_values(shape) + tuple(rate.shape)
    n = int(np.prod(out_shape, dtype=np.int64))
    if n == 0:
        return ops.zeros(out_shape, dt)
    lam = ops.broadcast_to(ops.cast(rate, mstype.float64), out_shape)
    u = draw(R.RandomUniform, [], {"shape": (1 + 2 * _ATTEMPTS,) + out_shape, "dtype": mstype.float64,
                                   "seed": _op_seed("random_poisson", seed or 0)})
    big = ops.maximum(lam, 10.0)
    counts = ops.select(lam < 10.0, _small(ops.minimum(lam, 10.0), u[0]),
                        _ptrs(big, u[1:1 + _ATTEMPTS], u[1 + _ATTEMPTS:]))
    return ops.cast(counts, dt)
