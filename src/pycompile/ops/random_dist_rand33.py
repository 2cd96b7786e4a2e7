"""Distribution Primitives of MindSpore 2.10's `operations.random_ops` on pycompile's
counter-based generator (ops/function_random.py): Uniform, TruncatedNormal,
ParameterizedTruncatedNormal, RandomGamma (and F.random_gamma), MultinomialWithReplacement (and
F.multinomial_with_replacement). Each is a decomposition of uniform / normal draws, so it runs
the same in PyNative and graph code; seeded instances draw from a Generator of their own
(operations_cnn._Seeded). MindSpore's numbers are not followed (ops/random_rand33.py says which
ops do). A `shape` given as a Tensor must have values known when the op is traced: a constant
(PyNative, a Tensor made in __init__), or a Tensor argument of the compiled call when the
compiler specializes on its value (`tracing.needs_value`: errors.InputValueNeeded); not a value
computed in the graph."""
from __future__ import annotations


import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.ops import function_random as FR
from pycompile.ops import functional as F
from pycompile.ops import tracing
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.operations_cnn import _Seeded

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)
_TRIES = 8          # vectorized rejection attempts: a lane rejected 8 times (p < 1e-10) takes a fallback


def _shape_values(name, shape) -> tuple:
    if isinstance(shape, tuple):
        dims = shape
    else:
        t = F._tensor_type(name, shape, "shape")
        if t.dtype not in (mstype.int32, mstype.int64):
            raise OpTypeError(f"For '{name}', the type of 'shape' should be one of [Int32, Int64], but got {t.dtype}.")
        if t.ndim != 1:
            raise OpValueError(f"For '{name}', 'shape' must be a 1-D tensor, but got {t.ndim}-D.")
        if isinstance(shape, Symbolic) or not hasattr(shape, "asnumpy"):
            # a constant's values; a graph input compiles again with its value (errors.InputValueNeeded)
            known = tracing.needs_value(shape, f"'shape' of '{name}'")
            if known is None:
                raise OpValueError(f"For '{name}', the values of 'shape' must be known at compile time in graph "
                                   "code: pass a Tensor argument or constant (not a value computed in the graph), "
                                   "or run in PyNative mode.")
            dims = tuple(int(d) for d in np.asarray(known).reshape(-1))
        else:
            dims = tuple(int(d) for d in shape.asnumpy().reshape(-1))
    if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in dims):
        raise OpValueError(f"For '{name}', each element of 'shape' must be a non-negative int, but got {dims}.")
    return tuple(int(d) for d in dims)


class Uniform(_Seeded):
    """U[minval, maxval) of x's shape and float dtype (MindSpore's random_ops.Uniform)."""

    def __init__(self, minval=0.0, maxval=1.0, seed=0, offset=0):
        super().__init__(seed, offset)
        for what, v in (("minval", minval), ("maxval", maxval)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise OpTypeError(f"For 'Uniform', the '{what}' must be float, but got {type(v).__name__}.")
        if minval > maxval:
            raise OpValueError(f"For 'Uniform', 'minval' must be less than or equal to 'maxval', "
                               f"but got {minval} and {maxval}.")
        self.minval, self.maxval = float(minval), float(maxval)
        self.add_prim_attrs(from_=self.minval, to=self.maxval, seed=seed, offset=offset)

    def __call__(self, x):
        t = F._tensor_type("Uniform", x, "x")
        if t.dtype not in _FLOATS:
            raise OpTypeError(f"For 'Uniform', the type of 'x' should be one of [Float16, Float32, Float64], "
                              f"but got {t.dtype}.")
        u = self._draw(lambda: FR.rand(*t.shape, dtype=mstype.float64 if t.dtype is mstype.float64 else mstype.float32))
        return F.cast(u * (self.maxval - self.minval) + self.minval, t.dtype)


def _truncated(z_fn, low, high, shape):
    """Standard normals of `shape` inside [low, high] (floats): the first of _TRIES draws that
    lands inside, else the midpoint's clip."""
    out = None
    for _ in range(_TRIES):
        z = z_fn()
        ok = F.logical_and(z >= low, z <= high)
        out = F.select(ok, z, F.clamp(z, low, high) if out is None else out)
    return out


class TruncatedNormal(_Seeded):
    """Standard normal values of a given shape, redrawn outside two standard deviations."""

    def __init__(self, dtype=mstype.float32, seed=0, seed2=0):
        super().__init__(seed, seed2)
        if dtype not in _FLOATS:
            raise OpTypeError(f"For 'TruncatedNormal', the 'dtype' should be one of [Float16, Float32, Float64], "
                              f"but got {dtype}.")
        self.dtype = dtype
        self.add_prim_attrs(dtype=dtype, seed=seed, seed2=seed2)

    def __call__(self, shape):
        dims = _shape_values("TruncatedNormal", shape)
        z = self._draw(lambda: _truncated(lambda: FR.randn(*dims), -2.0, 2.0, dims))
        return F.cast(z, self.dtype)


class ParameterizedTruncatedNormal(_Seeded):
    """Normal values of `shape` = (batch, ...) with per-batch mean, stdevs, minvals, maxvals
    (each (batch,) or one value), inside [minval, maxval]: the first of _TRIES normal draws that
    lands inside, else (bounds far in a tail) a uniform draw between them."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed, seed2)
        self.add_prim_attrs(seed=seed, seed2=seed2)

    def __call__(self, shape, mean, stdevs, min, max):
        dims = _shape_values("ParameterizedTruncatedNormal", shape)
        if not dims:
            raise OpValueError("For 'ParameterizedTruncatedNormal', 'shape' must have at least one element.")
        params = [mean, stdevs, min, max]
        dt = F._tensor_type("ParameterizedTruncatedNormal", mean, "mean").dtype
        for name, p in zip(("mean", "stdevs", "min", "max"), params):
            t = F._tensor_type("ParameterizedTruncatedNormal", p, name)
            if t.dtype not in _FLOATS or t.dtype is not dt:
                raise OpTypeError(f"For 'ParameterizedTruncatedNormal', '{name}' must be a float tensor of the "
                                  f"dtype of 'mean' ({dt}), but got {t.dtype}.")
            if t.ndim > 1 or t.size not in (1, dims[0]):
                raise OpValueError(f"For 'ParameterizedTruncatedNormal', '{name}' must be one value or have "
                                   f"shape ({dims[0]},), but got {list(t.shape)}.")
        col = (dims[0],) + (1,) * (len(dims) - 1)
        m, s, lo, hi = (F.broadcast_to(F.reshape(F.cast(p, mstype.float64), (-1,) + (1,) * (len(dims) - 1)), col)
                        for p in params)

        def draw():
            u = FR.rand(*dims, dtype=mstype.float64)
            out, found = lo + u * (hi - lo), None
            for _ in range(_TRIES):
                x = m + s * FR.randn(*dims, dtype=mstype.float64)
                ok = F.logical_and(x >= lo, x <= hi)
                ok = ok if found is None else F.logical_and(ok, F.logical_not(found))
                out = F.select(ok, x, out)
                found = ok if found is None else F.logical_or(found, ok)
            return out
        return F.cast(self._draw(draw), dt)


def _gamma_unit(alpha, shape):
    """Gamma(alpha, 1) of `shape` (alpha broadcast to it, float64): Marsaglia and Tsang (2000) for
    alpha >= 1 with _TRIES vectorized attempts, alpha < 1 through Gamma(alpha + 1) * U^(1/alpha)."""
    a = F.maximum(alpha, 1e-30)
    boost = a < 1.0
    d = F.select(boost, a + 1.0, a) - 1.0 / 3.0
    c = 1.0 / F.sqrt(9.0 * d)
    out = d
    for _ in range(_TRIES):
        x = FR.randn(*shape, dtype=mstype.float64)
        u = FR.rand(*shape, dtype=mstype.float64)
        v = (1.0 + c * x) ** 3
        vpos = F.maximum(v, 1e-300)
        ok = F.logical_and(v > 0, F.log(F.maximum(u, 1e-300)) < 0.5 * x * x + d - d * vpos + d * F.log(vpos))
        out = F.select(ok, d * vpos, out)
    u = F.maximum(FR.rand(*shape, dtype=mstype.float64), 1e-300)
    return F.select(boost, out * F.exp(F.log(u) / a), out)


class RandomGamma(_Seeded):
    """Gamma(alpha, 1) samples of shape `shape + alpha.shape`, in alpha's dtype."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed, seed2)
        self.add_prim_attrs(seed=seed, seed2=seed2)

    def __call__(self, shape, alpha):
        dims = _shape_values("RandomGamma", shape)
        t = F._tensor_type("RandomGamma", alpha, "alpha")
        if t.dtype not in _FLOATS:
            raise OpTypeError(f"For 'RandomGamma', the type of 'alpha' should be one of [Float16, Float32, Float64], "
                              f"but got {t.dtype}.")
        out_shape = dims + tuple(t.shape)
        al = F.broadcast_to(F.cast(alpha, mstype.float64), out_shape)
        return F.cast(self._draw(lambda: _gamma_unit(al, out_shape)), t.dtype)


def random_gamma(shape, alpha, seed=None):
    """Gamma(alpha, 1) samples of shape `shape + alpha.shape` (MindSpore's F.random_gamma)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise OpTypeError(f"For 'random_gamma', the 'seed' must be int, but got {type(seed).__name__}.")
    return RandomGamma(seed or 0, 0)(shape, alpha)


class MultinomialWithReplacement(_Seeded):
    """`numsamples` category indices (int64) per row of the (batch, categories) or (categories,)
    probabilities x; `seed` and `offset` are int64 tensors (a seed of 0 draws from the default
    stream, else from a stream of (seed, offset))."""

    def __init__(self, numsamples, replacement=False):
        super().__init__(0, 0)
        if isinstance(numsamples, bool) or not isinstance(numsamples, int) or numsamples <= 0:
            raise OpValueError(f"For 'MultinomialWithReplacement', 'numsamples' must be a positive int, "
                               f"but got {numsamples!r}.")
        if not isinstance(replacement, bool):
            raise OpTypeError(f"For 'MultinomialWithReplacement', 'replacement' must be bool, "
                              f"but got {type(replacement).__name__}.")
        self.numsamples, self.replacement = numsamples, replacement
        self.add_prim_attrs(numsamples=numsamples, replacement=replacement)

    def __call__(self, x, seed, offset):
        t = F._tensor_type("MultinomialWithReplacement", x, "x")
        if t.dtype not in _FLOATS or t.ndim not in (1, 2):
            raise OpTypeError(f"For 'MultinomialWithReplacement', 'x' must be a 1-D or 2-D float tensor, "
                              f"but got {t.dtype} of rank {t.ndim}.")
        if not self.replacement and self.numsamples > t.shape[-1]:
            raise OpValueError(f"For 'MultinomialWithReplacement', 'numsamples' ({self.numsamples}) must not exceed "
                               f"the number of categories ({t.shape[-1]}) without replacement.")
        s = 0
        if not isinstance(seed, Symbolic) and not isinstance(offset, Symbolic):
            s = int(np.asarray(seed.asnumpy()).reshape(-1)[0]) * 1000003 + int(np.asarray(offset.asnumpy()).reshape(-1)[0])
        probs = F.cast(x, mstype.float32)
        out = FR.multinomial(probs, self.numsamples, self.replacement, s or None)
        return F.cast(out, mstype.int64)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """MultinomialWithReplacement(numsamples, replacement)(x, seed, offset)."""
    return MultinomialWithReplacement(numsamples, replacement)(x, seed, offset)
