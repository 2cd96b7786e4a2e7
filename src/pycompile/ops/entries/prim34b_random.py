"""MindSpore 2.10's random Primitives that were missing: LogNormalReverse, RandomPoisson (the class
form of ops.random_poisson), NonDeterministicInts, Cauchy and Bernoulli. They draw on pycompile's
counter-based generator (ops/function_random.py: the same seed gives the same numbers in PyNative and
graph mode; MindSpore's own stream is not followed, as docs/DESIGN.md says of randomness). The
argument checks are the wheel's (recorded in tests/conformance/cases_prim34b.py)."""
from __future__ import annotations

import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.defs import random as R
from pycompile.ops.entries.image_img33 import shape_values
from pycompile.ops.entries.random_poisson import random_poisson
from pycompile.ops.entry import Arg, op_entry
from pycompile.ops.function_random import bernoulli as _bernoulli, draw

_FLOATS = frozenset({mstype.float16, mstype.float32, mstype.float64})


def _float_attr(what):
    def check(v, op):
        if not isinstance(v, float):
            raise OpTypeError(f"For '{op}', the type of '{what}' should be 'float', but got type '{type(v).__name__}'.")
    return check


def _int_attr(what):
    def check(v, op):
        if isinstance(v, bool) or not isinstance(v, int):
            raise OpTypeError(f"For '{op}', the type of '{what}' should be 'int', but got type '{type(v).__name__}'.")
    return check


def _seed(*seeds) -> int:
    """One non-negative op seed from MindSpore's seed attributes (0: the global stream)."""
    s = 0
    for v in seeds:
        s = (s * 1000003 + int(v)) % (1 << 62)
    return s


def _dtype_attr(allowed, names):
    def check(v, op):
        if v not in allowed:
            raise OpTypeError(f"For '{op}', the 'dtype' should be one of [{names}], but got '{v}'.")
    return check


# ---- LogNormalReverse ---------------------------------------------------------------------------------
@op_entry("log_normal_reverse_primitive", primitive="LogNormalReverse", functional=False,
          args=[Arg("input", dtypes=_FLOATS), Arg("mean", "value", default=1.0, init=True, check=_float_attr("mean")),
                Arg("std", "value", default=2.0, init=True, check=_float_attr("std"))])
def log_normal_reverse_primitive(input, mean=1.0, std=2.0):
    """exp(N(mean, std^2)) samples of input's shape and dtype (input's values are not read)."""
    dt = mstype.float64 if input.dtype is mstype.float64 else mstype.float32
    z = draw(R.RandomNormal, [], {"shape": tuple(input.shape), "dtype": dt, "seed": 0})
    return F.cast(ops.exp(z * std + mean), input.dtype)


# ---- RandomPoisson ------------------------------------------------------------------------------------
_POIS_OUT = (mstype.int64, mstype.int32, mstype.float16, mstype.float32, mstype.float64)


@op_entry("random_poisson_primitive", primitive="RandomPoisson", functional=False,
          args=[Arg("shape", dtypes=frozenset({mstype.int32, mstype.int64})),
                Arg("rate", dtypes=frozenset(_POIS_OUT)),
                Arg("seed", "value", default=0, init=True, check=_int_attr("seed")),
                Arg("seed2", "value", default=0, init=True, check=_int_attr("seed2")),
                Arg("dtype", "value", default=mstype.int64, init=True,
                    check=_dtype_attr(_POIS_OUT, "mindspore.int64, mindspore.int32, mindspore.float16, "
                                                 "mindspore.float32, mindspore.float64"))])
def random_poisson_primitive(shape, rate, seed=0, seed2=0, dtype=mstype.int64):
    """Poisson counts with mean `rate`, of shape `shape + rate.shape`, in `dtype` (ops.random_poisson;
    a negative rate gives 0)."""
    if shape.ndim != 1:
        raise OpValueError(f"For RandomPoisson, the argument[shape] must be a 1-D tensor, but got {shape.ndim}-D")
    dims = shape_values(shape, "shape", "RandomPoisson").reshape(-1)
    if np.any(dims <= 0):
        raise OpValueError("For primitive[RandomPoisson], the attribute[shape] should be a vector with all positive "
                           "item. but got [" + "".join(f"{int(d)}, " for d in dims) + "].")
    lam = ops.maximum(rate, F.zeros((), rate.dtype))
    return random_poisson(Tensor._wrap(np.asarray(dims, np.int64)), lam, seed=_seed(seed, seed2), dtype=dtype)


# ---- NonDeterministicInts -----------------------------------------------------------------------------
_NDI_OUT = (mstype.int32, mstype.int64, mstype.uint32, mstype.uint64)


@op_entry("non_deterministic_ints_primitive", primitive="NonDeterministicInts", functional=False,
          args=[Arg("shape", dtypes=frozenset(_NDI_OUT)),
                Arg("dtype", "value", default=mstype.int64, init=True,
                    check=_dtype_attr(_NDI_OUT, "mindspore.int32, mindspore.int64, mindspore.uint32, "
                                                "mindspore.uint64"))])
def non_deterministic_ints_primitive(shape, dtype=mstype.int64):
    """Integers drawn uniformly from the whole range of `dtype`, of the shape `shape` holds (at least
    two dimensions)."""
    op = "NonDeterministicInts"
    if shape.ndim != 1:
        raise OpValueError(f"For primitive[{op}], the shape's rank must be equal to 1, but got {shape.ndim}.")
    if shape.shape[0] < 2:
        raise OpValueError(f"For '{op}', 'shape' must be at least 2-dimensional.")
    dims = shape_values(shape, "shape", op).reshape(-1).astype(np.int64)
    if np.any(dims < 0):
        raise OpValueError(f"For '{op}', each element of 'shape' must be non-negative, but got {dims.tolist()}.")
    size = tuple(int(d) for d in dims)
    if dtype in (mstype.int32, mstype.uint32):
        low = -(1 << 31) if dtype is mstype.int32 else 0
        v = draw(R.RandomInt, [], {"shape": size, "low": low, "high": low + (1 << 32), "dtype": mstype.int64,
                                   "seed": 0})
        return F.cast(v, dtype)
    # 64 bits: a signed high half times 2^32 plus an unsigned low half spans int64 without overflow
    hi = draw(R.RandomInt, [], {"shape": size, "low": -(1 << 31), "high": 1 << 31, "dtype": mstype.int64, "seed": 0})
    lo = draw(R.RandomInt, [], {"shape": size, "low": 0, "high": 1 << 32, "dtype": mstype.int64, "seed": 0})
    return F.cast(hi * (1 << 32) + lo, dtype)


# ---- Cauchy -------------------------------------------------------------------------------------------
def _cauchy_size(v, op):
    if not isinstance(v, list):
        raise OpTypeError(f"For '{op}', the type of 'size' should be 'list', but got type '{type(v).__name__}'.")
    for i, d in enumerate(v):
        if isinstance(d, bool) or not isinstance(d, int) or d <= 0:
            raise OpValueError(f"For '{op}', the 'size[{i}]' must be int and must > 0, but got '{d}' with type "
                               f"'{type(d).__name__}'.")
    if not v:
        raise OpValueError(f"For primitive[{op}], the the length of 'size' must be greater than 0, but got 0.")


@op_entry("cauchy_primitive", primitive="Cauchy", functional=False,
          args=[Arg("size", "value", init=True, check=_cauchy_size),
                Arg("median", "value", default=0.0, init=True, check=_float_attr("median")),
                Arg("sigma", "value", default=1.0, init=True, check=_float_attr("sigma"))])
def cauchy_primitive(size, median=0.0, sigma=1.0):
    """Float32 samples of the Cauchy distribution, median + sigma tan(pi (u - 1/2)) for u uniform
    in [0, 1), of shape `size`."""
    u = draw(R.RandomUniform, [], {"shape": tuple(size), "dtype": mstype.float64, "seed": 0})
    return F.cast(ops.tan((u - 0.5) * math.pi) * sigma + median, mstype.float32)


# ---- Bernoulli ----------------------------------------------------------------------------------------
def _bernoulli_seed(v, op):
    if isinstance(v, bool) or not isinstance(v, int):
        raise OpTypeError(f"For '{op}', the type of 'seed' should be 'int', but got type '{type(v).__name__}'.")
    if v < -1:
        raise OpValueError(f"Seed must be -1 or a non-negative integer, but got {v}.")


@op_entry("bernoulli_primitive", primitive="Bernoulli", functional=False,
          args=[Arg("x", dtypes=frozenset({mstype.bool_, mstype.int8, mstype.int16, mstype.int32, mstype.int64,
                                           mstype.uint8, mstype.float16, mstype.float32, mstype.float64})),
                Arg("p", "tensor|number"),
                Arg("seed", "value", default=-1, init=True, check=_bernoulli_seed),
                Arg("offset", "value", default=0, init=True, check=_int_attr("offset"))])
def bernoulli_primitive(x, p, seed=-1, offset=0):
    """1 with probability p, else 0, in x's shape and dtype (x's values are not read); p a float or
    a float32 / float64 Tensor of x's shape or of one element, within [0, 1]."""
    op = "Bernoulli"
    if isinstance(p, TensorMethods):
        if p.dtype not in (mstype.float32, mstype.float64):
            raise OpTypeError(f"For primitive[{op}], the input argument[p] must be a type of {{Tensor[Float32], "
                              f"Tensor[Float64]}}, but got Tensor[{p.dtype}].")
        if tuple(p.shape) != tuple(x.shape) and p.size != 1:
            raise OpValueError(f"For '{op}', 'x' and 'p' should have same shape or 'p' have a size of 1.")
        known = getattr(p, "_data", None)
        values = np.asarray(known) if known is not None else None
    else:
        values = np.asarray(float(p))
    if values is not None and values.size and (np.any(values < 0) or np.any(values > 1) or np.any(np.isnan(values))):
        bad = values[(values < 0) | (values > 1) | np.isnan(values)].reshape(-1)[0]
        raise OpValueError(f"For bernoulli, p should be in [0, 1], but got {bad}.")
    return _bernoulli(x, p, None if seed == -1 else _seed(seed, offset))
