"""Random functional ops (`ops.rand`, `ops.randn`, `ops.uniform`, `ops.normal`, `ops.randint`,
`ops.bernoulli`, `ops.multinomial`, `ops.randperm`, `ops.dropout`, ...) on the counter-based
generator of ops/defs/random.py.

Each call reads the generator state (a hidden int64 Parameter, RNG_STATE), draws with the op's
seed attribute and the state's offset, then advances the offset with an Assign: in graph code
that is a Load and an Assign like any Parameter update, so calls are ordered, each draws anew
(also in loops), and compiled code advances the state exactly as PyNative code does.
"""
from __future__ import annotations

import contextvars

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.seed import add_seed_listener as _add_seed_listener, get_seed as _get_seed
from pycompile.common.abstract import TensorType, type_of
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.defs import random as R

RNG_STATE = Parameter(Tensor(np.array([R._entropy_seed(), 0, 0], np.int64)), name="pycompile_rng_state",
                      requires_grad=False)
_STEP = Tensor(np.array([0, 1, 0], np.int64))


def _reset(seed: int) -> None:
    RNG_STATE.set_data(np.array([int(seed), 0, 1], np.int64))


_add_seed_listener(_reset)
if _get_seed() is not None:
    _reset(_get_seed())


def _op_seed(name: str, seed) -> int:
    if seed is None:
        return 0
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise OpTypeError(f"For '{name}', 'seed' must be a non-negative int, but got {seed!r}")
    return int(seed)


# the state random ops draw from: RNG_STATE (the default generator's), or a Generator's while one
# is drawing (`with generator.drawing():`, ops/generator.py)
_DRAWING_FROM = contextvars.ContextVar("pycompile_drawing_from", default=None)


def draw(op, inputs: list, attrs: dict):
    """Run random op `op` on the current state, then advance the state's offset."""
    state = _DRAWING_FROM.get()
    if state is None:
        state = RNG_STATE
    out = apply(op, [state, *inputs], attrs)
    F.assign(state, state + _STEP)
    return out


def _size(name, size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0 for d in size):
        raise OpValueError(f"For '{name}', the size must be non-negative ints, but got {size}")
    return tuple(int(d) for d in size)


def _float_dtype(name, dtype, default=mstype.float32):
    dt = mstype.to_dtype(dtype) if dtype is not None else default
    if not dt.is_float:
        raise OpTypeError(f"For '{name}', 'dtype' must be a float type, but got {dt}")
    return dt


def rand(*size, dtype=None, seed=None):
    return draw(R.RandomUniform, [], {"shape": _size("rand", size), "dtype": _float_dtype("rand", dtype),
                                      "seed": _op_seed("rand", seed)})


def randn(*size, dtype=None, seed=None):
    return draw(R.RandomNormal, [], {"shape": _size("randn", size), "dtype": _float_dtype("randn", dtype),
                                     "seed": _op_seed("randn", seed)})


def rand_like(input, seed=None, *, dtype=None):
    t = F._tensor_type("rand_like", input)
    return rand(*t.shape, dtype=dtype if dtype is not None else t.dtype, seed=seed)


def randn_like(input, seed=None, *, dtype=None):
    t = F._tensor_type("randn_like", input)
    return randn(*t.shape, dtype=dtype if dtype is not None else t.dtype, seed=seed)


def standard_normal(shape, seed=None):
    return randn(*_size("standard_normal", tuple(shape)), seed=seed)


def randint(low, high, size, seed=None, *, dtype=None):
    for v, what in ((low, "low"), (high, "high")):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise OpTypeError(f"For 'randint', '{what}' must be an int, but got {type(v).__name__}")
    if not isinstance(size, (tuple, list)):
        raise OpTypeError(f"For 'randint', 'size' must be a tuple, but got {type(size).__name__}")
    dt = mstype.to_dtype(dtype) if dtype is not None else mstype.int64
    return draw(R.RandomInt, [], {"shape": _size("randint", tuple(size)), "low": int(low), "high": int(high),
                                  "dtype": dt, "seed": _op_seed("randint", seed)})


def randint_like(input, low, high, seed=None, *, dtype=None):
    t = F._tensor_type("randint_like", input)
    return randint(low, high, t.shape, seed, dtype=dtype if dtype is not None else t.dtype)


def _bshape(*values) -> tuple:
    shapes = [type_of(v).shape if isinstance(type_of(v), TensorType) else () for v in values]
    return tuple(np.broadcast_shapes(*shapes))


def uniform(shape, minval, maxval, seed=None, dtype=mstype.float32):
    """minval + U[0, 1) * (maxval - minval), broadcast with `shape` (MindSpore's ops.uniform);
    an int dtype draws integers in [minval, maxval)."""
    dt = mstype.to_dtype(dtype)
    shape = _size("uniform", tuple(shape))
    if not dt.is_float:
        lo, hi = (int(np.asarray(getattr(v, "_data", v))) for v in (minval, maxval))
        return randint(lo, hi, shape, seed, dtype=dt)
    full = tuple(np.broadcast_shapes(shape, _bshape(minval, maxval)))
    u = draw(R.RandomUniform, [], {"shape": full, "dtype": dt, "seed": _op_seed("uniform", seed)})
    return u * (maxval - minval) + minval


def normal(shape, mean, stddev, seed=None):
    shape = _size("normal", tuple(shape))
    full = tuple(np.broadcast_shapes(shape, _bshape(mean, stddev)))
    n = draw(R.RandomNormal, [], {"shape": full, "dtype": mstype.float32, "seed": _op_seed("normal", seed)})
    return n * stddev + mean


def bernoulli(input, p=0.5, seed=None):
    """1 with probability p, else 0, in the dtype and shape of `input` (p: a float or a tensor of
    input's shape)."""
    t = F._tensor_type("bernoulli", input)
    pv = p if not isinstance(p, (int, float)) else Tensor(np.float64(p) if t.dtype is mstype.float64
                                                             else np.float32(p))
    return draw(R.Bernoulli, [pv], {"shape": t.shape, "dtype": t.dtype, "seed": _op_seed("bernoulli", seed)})


def multinomial(input, num_samples, replacement=True, seed=None):
    return draw(R.Multinomial, [input], {"num_samples": int(num_samples), "replacement": bool(replacement),
                                         "dtype": mstype.int32, "seed": _op_seed("multinomial", seed)})


def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    """A permutation of range(n): a stable argsort of n random words."""
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise OpValueError(f"For 'randperm', 'n' must be a non-negative int, but got {n!r}")
    return draw(R.Randperm, [], {"n": int(n), "dtype": mstype.to_dtype(dtype),
                                 "seed": _op_seed("randperm", seed) * 1000003 + int(offset)})


def shuffle(x, seed=None):
    """x with its first axis randomly permuted (a 0-d tensor is returned as a copy)."""
    if not isinstance(getattr(x, "_abstract", None), TensorType):
        raise OpTypeError(f"For 'shuffle', 'x' must be a Tensor, but got {type(x).__name__}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise OpTypeError(f"For 'shuffle', 'seed' must be an int, but got {seed!r}")
    if seed is not None and seed < 0:
        raise OpValueError(f"For 'shuffle', 'seed' must be non-negative, but got {seed}")
    t = F._tensor_type("shuffle", x, "x")
    if t.ndim == 0 or t.shape[0] <= 1:
        return F.tensor_move(x)
    return F.gather(x, randperm(t.shape[0], 0 if seed is None else seed), 0)


# ---- dropout -----------------------------------------------------------------------------------------
def dropout_mask(x, keep_prob: float, mask_shape=None, seed=None):
    """A {0, 1} mask of x's dtype keeping each element (or each `mask_shape` entry) with
    probability keep_prob."""
    t = F._tensor_type("dropout", x)
    shape = t.shape if mask_shape is None else tuple(mask_shape)
    p = Tensor(np.array(keep_prob, t.dtype.np if t.dtype.is_float else np.float32))
    return draw(R.Bernoulli, [p], {"shape": shape, "dtype": t.dtype, "seed": _op_seed("dropout", seed)})


def _check_p(name, p):
    if not isinstance(p, (int, float)) or isinstance(p, bool):
        raise OpTypeError(f"For '{name}', 'p' must be a float, but got {type(p).__name__}")
    if not 0 <= p <= 1:
        raise OpValueError(f"For '{name}', the 'p' must be a number in range [0, 1], but got {p}.")


def dropout(input, p=0.5, training=True, seed=None):
    _check_p("dropout", p)
    t = F._tensor_type("dropout", input)
    if not t.dtype.is_float:
        raise OpTypeError(f"For 'dropout', the input must be a float tensor, but got {t.dtype}")
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    keep = 1.0 - p
    return input * dropout_mask(input, keep, seed=seed) * (1.0 / keep)


def _channel_dropout(name, input, p, training, nd):
    _check_p(name, p)
    t = F._tensor_type(name, input)
    if t.ndim != nd:
        raise OpValueError(f"For '{name}', the dimension of 'input' must be {nd}D, but got {t.ndim}D")
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    keep = 1.0 - p
    return input * dropout_mask(input, keep, t.shape[:2] + (1,) * (nd - 2)) * (1.0 / keep)


def dropout1d(input, p=0.5, training=True):
    return _channel_dropout("dropout1d", input, p, training, 3)


def dropout2d(input, p=0.5, training=True):
    return _channel_dropout("dropout2d", input, p, training, 4)


def dropout3d(input, p=0.5, training=True):
    return _channel_dropout("dropout3d", input, p, training, 5)


__all__ = ["rand", "randn", "rand_like", "randn_like", "standard_normal", "randint", "randint_like", "uniform",
           "normal", "bernoulli", "multinomial", "randperm", "shuffle", "dropout", "dropout1d", "dropout2d", "dropout3d"]


# ---- the default generator's state (ms.manual_seed / seed / initial_seed / get_rng_state) -----------
def reseed(seed) -> None:
    """Seed the default generator (ms.manual_seed, in ops/generator.py, returns it as well)."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"For 'manual_seed', the 'seed' must be an int, but got {type(seed).__name__}.")
    _reset(int(seed))


def initial_seed():
    """The seed the random ops' default generator was last seeded with."""
    return int(RNG_STATE.asnumpy()[0])


def seed():
    """Seed the random ops' default generator from the operating system's entropy; returns it."""
    s = int(R._entropy_seed())
    _reset(s)
    return s


def get_rng_state():
    """A copy of the default generator's state (an Int64 tensor: seed, offset, flag)."""
    return Tensor(RNG_STATE.asnumpy().copy())


def set_rng_state(state):
    """Restore a state `get_rng_state` returned: the random ops draw the same numbers again."""
    arr = np.asarray(state.asnumpy() if hasattr(state, "asnumpy") else state)
    if arr.shape != (3,) or arr.dtype != np.int64:
        raise ValueError(f"For 'set_rng_state', the state must be the Int64 tensor of shape (3,) that "
                         f"get_rng_state returns, but got {arr.dtype} {arr.shape}.")
    RNG_STATE.set_data(arr.copy())
