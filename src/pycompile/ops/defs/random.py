"""Random ops on one counter-based generator (Philox-4x32-10), the same in NumPy (here) and in
C (csrc/pycompile_random.h), so PyNative and compiled code draw the same numbers.

Every value is a pure function of (key, offset, element index): the 64-bit key mixes the seed
with the op's own `seed` attribute, the offset counts random-op calls. Element i of a call is
word i % 4 of the Philox block (i / 4, offset) - threads can draw any range of elements on
their own, in any order.

Where the seed and the offset live: in RNG_STATE, a hidden int64 Parameter [seed, offset,
seed was set] shared by PyNative and compiled code like any Parameter. A random op takes the
state's value as its first input, and the functional layer (ops/function_random.py) advances
the offset right after with an Assign. So inside a graph the ops stay pure functions of their
inputs - CSE, hoisting and dead-code elimination stay sound - while two calls of ops.dropout in
one graph read different offsets (an Assign lies between their Loads), a call in a loop body
draws anew each iteration, and PyNative and GRAPH_MODE advance the offset identically.
`ms.set_seed(n)` resets the state to [n, 0, 1]; without it the seed comes from the OS.
"""
from __future__ import annotations

import os

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType, type_of
from pycompile.ops._table import OpDef, Kind, OpTypeError, OpValueError, defop, describe, tensor_arg
from pycompile.ops.defs.array import Reshape
from pycompile.ops.defs.elementwise import Less, call, cast
from pycompile.ops.lowering import Template

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_MASK = np.uint64(0xFFFFFFFF)
_KEY_MUL = 0x9E3779B97F4A7C15
_OP_MUL = 0xBF58476D1CE4E5B9


def key_of(state, op_seed: int) -> int:
    """The 64-bit Philox key of a call: state = [seed, offset, seed was set]. An op seed makes
    the draw reproducible even when no global seed was set (then the global part is 0)."""
    seed = int(state[0]) if (op_seed == 0 or int(state[2])) else 0
    return (seed * _KEY_MUL + op_seed * _OP_MUL + 1) % (1 << 64)


def philox_words(n: int, key: int, offset: int) -> np.ndarray:
    """The first n 32-bit words of the stream (key, offset): word i is lane i % 4 of block i / 4."""
    blocks = (n + 3) // 4
    b = np.arange(blocks, dtype=np.uint64)
    c0, c1 = b & _MASK, b >> np.uint64(32)
    off = np.uint64(offset % (1 << 64))
    c2 = np.full(blocks, off & _MASK, np.uint64)
    c3 = np.full(blocks, off >> np.uint64(32), np.uint64)
    k0, k1 = np.uint64(key & 0xFFFFFFFF), np.uint64(key >> 32)
    for _ in range(10):
        p0, p1 = _M0 * c0, _M1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & _MASK, (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & _MASK)
        k0, k1 = (k0 + _W0) & _MASK, (k1 + _W1) & _MASK
    return np.stack([c0, c1, c2, c3], axis=1).reshape(-1)[:n].astype(np.uint32)


def uniform01(words: np.ndarray) -> np.ndarray:
    """[0, 1) on a grid of 2^-24, exact in float32 and float64."""
    return (words >> np.uint32(8)).astype(np.float64) * (1.0 / (1 << 24))


def normals(n: int, key: int, offset: int) -> np.ndarray:
    """Box-Muller in double: words (2j, 2j + 1) give normals 2j (cos) and 2j + 1 (sin)."""
    w = philox_words(n + (n & 1), key, offset).astype(np.float64)
    u1 = (w[0::2] + 1.0) * (1.0 / 4294967296.0)          # (0, 1]
    u2 = w[1::2] * (1.0 / 4294967296.0)
    r = np.sqrt(-2.0 * np.log(u1))
    t = 2.0 * np.pi * u2
    out = np.empty(len(w))
    out[0::2], out[1::2] = r * np.cos(t), r * np.sin(t)
    return out[:n]


def randint_values(n: int, key: int, offset: int, low: int, high: int) -> np.ndarray:
    span = high - low
    w = philox_words(n, key, offset).astype(np.uint64)
    if span <= (1 << 32):
        return low + ((w * np.uint64(span)) >> np.uint64(32)).astype(np.int64)
    # wider ranges: the high word from the stream at the offset with its top bit set
    hi = philox_words(n, key, offset ^ (1 << 63)).astype(np.uint64)
    return low + (((hi << np.uint64(32)) | w) % np.uint64(span)).astype(np.int64)


# ---- the state -------------------------------------------------------------------------------------
def _entropy_seed() -> int:
    return int.from_bytes(os.urandom(4), "little")


def _state_check(name, t):
    if not (isinstance(t, TensorType) and t.dtype is mstype.int64 and t.shape == (3,)):
        raise OpTypeError(f"For '{name}', the generator state must be an Int64 tensor of shape (3,), "
                          f"but got {describe(t)}")


def _shape_attr(name, shape):
    if any(not isinstance(d, int) or d < 0 for d in shape):
        raise OpValueError(f"For '{name}', 'shape' must be a tuple of non-negative ints, but got {shape}")
    return tuple(shape)


def _dist_infer(name):
    def infer(types, shape=(), dtype=mstype.float32, seed=0):
        _state_check(name, types[0])
        dt = mstype.to_dtype(dtype)
        if not dt.is_float:
            raise OpTypeError(f"For '{name}', 'dtype' must be a float type, but got {dt}")
        return TensorType(dt, _shape_attr(name, shape))
    return infer


def _uniform_eager(state, shape=(), dtype=mstype.float32, seed=0):
    n = int(np.prod(shape, dtype=np.int64))
    return uniform01(philox_words(n, key_of(state, seed), int(state[1]))).reshape(shape).astype(mstype.to_dtype(dtype).np)


def _normal_eager(state, shape=(), dtype=mstype.float32, seed=0):
    n = int(np.prod(shape, dtype=np.int64))
    return normals(n, key_of(state, seed), int(state[1])).reshape(shape).astype(mstype.to_dtype(dtype).np)


def _randint_infer(types, shape=(), low=0, high=1, dtype=mstype.int64, seed=0):
    _state_check("RandomInt", types[0])
    if not high > low:
        raise OpValueError(f"For 'randint', 'high' must be greater than 'low', but got low={low}, high={high}")
    return TensorType(mstype.to_dtype(dtype), _shape_attr("RandomInt", shape))


def _randint_eager(state, shape=(), low=0, high=1, dtype=mstype.int64, seed=0):
    n = int(np.prod(shape, dtype=np.int64))
    v = randint_values(n, key_of(state, seed), int(state[1]), low, high)
    return v.reshape(shape).astype(mstype.to_dtype(dtype).np)


def _bernoulli_infer(types, shape=(), dtype=mstype.float32, seed=0):
    _state_check("Bernoulli", types[0])
    p = tensor_arg("Bernoulli", types[1], "p")
    shape = _shape_attr("Bernoulli", shape)
    if p.size != 1 and p.shape != shape:
        raise OpValueError(f"For 'Bernoulli', 'p' must be one value or have shape {list(shape)}, but got {list(p.shape)}")
    return TensorType(mstype.to_dtype(dtype), shape)


def _bernoulli_eager(state, p, shape=(), dtype=mstype.float32, seed=0):
    n = int(np.prod(shape, dtype=np.int64))
    u = uniform01(philox_words(n, key_of(state, seed), int(state[1]))).reshape(shape)
    return (u < np.asarray(p, np.float64).reshape(() if np.size(p) == 1 else shape)).astype(mstype.to_dtype(dtype).np)


def _multinomial_infer(types, num_samples=1, replacement=True, dtype=mstype.int32, seed=0):
    _state_check("Multinomial", types[0])
    p = tensor_arg("Multinomial", types[1], "input")
    if p.ndim not in (1, 2) or not p.dtype.is_float:
        raise OpValueError(f"For 'multinomial', 'input' must be a 1-D or 2-D float tensor, but got {describe(p)}")
    if not replacement and num_samples > p.shape[-1]:
        raise OpValueError(f"For 'multinomial', 'num_samples' ({num_samples}) must not exceed the number of categories "
                           f"({p.shape[-1]}) when 'replacement' is False")
    return TensorType(mstype.to_dtype(dtype), p.shape[:-1] + (num_samples,))


def multinomial_values(p, num_samples, replacement, key, offset):
    """Inverse-CDF sampling; without replacement, each draw renormalizes over what is left.
    Row r, sample j reads word r * num_samples + j."""
    rows = np.asarray(p, np.float64).reshape(-1, p.shape[-1])
    u = uniform01(philox_words(rows.shape[0] * num_samples, key, offset)).reshape(rows.shape[0], num_samples)
    out = np.zeros((rows.shape[0], num_samples), np.int64)
    for r, row in enumerate(rows):
        w = row.copy()
        for j in range(num_samples):
            c = np.cumsum(w)
            t = u[r, j] * c[-1]
            k = int(np.searchsorted(c, t, side="right"))
            k = min(k, len(w) - 1)
            while w[k] <= 0 and k > 0:        # never a zero-probability category
                k -= 1
            out[r, j] = k
            if not replacement:
                w[k] = 0.0
    return out


def _multinomial_eager(state, p, num_samples=1, replacement=True, dtype=mstype.int32, seed=0):
    out = multinomial_values(p, num_samples, replacement, key_of(state, seed), int(state[1]))
    return out.reshape(p.shape[:-1] + (num_samples,)).astype(mstype.to_dtype(dtype).np)


def _randperm_infer(types, n=1, dtype=mstype.int64, seed=0):
    _state_check("Randperm", types[0])
    return TensorType(mstype.to_dtype(dtype), (int(n),))


def _randperm_eager(state, n=1, dtype=mstype.int64, seed=0):
    """A stable argsort of n random 32-bit words (ties keep index order, as the C sort does)."""
    w = philox_words(int(n), key_of(state, seed), int(state[1]))
    return np.argsort(w, kind="stable").astype(mstype.to_dtype(dtype).np)


RandomUniform = defop("RandomUniform", ("state",), attrs={"shape": (), "dtype": mstype.float32, "seed": 0},
                      infer=_dist_infer("RandomUniform"), eager=_uniform_eager, kind=Kind.CREATE, batch="loop",
                      lower=Template("random", rule="uniform"))
RandomNormal = defop("RandomNormal", ("state",), attrs={"shape": (), "dtype": mstype.float32, "seed": 0},
                     infer=_dist_infer("RandomNormal"), eager=_normal_eager, kind=Kind.CREATE, batch="loop",
                     lower=Template("random", rule="normal"))
RandomInt = defop("RandomInt", ("state",), attrs={"shape": (), "low": 0, "high": 1, "dtype": mstype.int64, "seed": 0},
                  infer=_randint_infer, eager=_randint_eager, kind=Kind.CREATE, batch="loop",
                  lower=Template("random", rule="int"))


def _bernoulli_parts(state, p, shape=(), dtype=mstype.float32, seed=0):
    """Bernoulli's decomposition (its template is the fast path): RandomUniform's draw of the same stream (same key, offset and element index), compared
    with p: `u < p`, the row's stream exactly. u lies on a grid of 2^-24 in [0, 1), exact in
    float32, so for a float16 / float32 p the comparison in float32 is the row's comparison in
    double; any other p is compared in float64."""
    pt = type_of(p)
    cdt = mstype.float32 if pt.dtype in (mstype.float16, mstype.float32) else mstype.float64
    u = call(RandomUniform, state, shape=tuple(shape), dtype=cdt, seed=seed)
    pv = p if pt.dtype is cdt else cast(p, cdt)
    if pt.size == 1 and pt.shape != tuple(shape):
        pv = call(Reshape, pv, shape=())
    out = call(Less, u, pv)
    return out if mstype.to_dtype(dtype) is mstype.bool_ else cast(out, dtype)


Bernoulli = defop("Bernoulli", ("state", "p"), attrs={"shape": (), "dtype": mstype.float32, "seed": 0},
                  infer=_bernoulli_infer, eager=_bernoulli_eager, kind=Kind.CREATE, batch="loop",
                  lower=Template("random", rule="bernoulli"), decompose=_bernoulli_parts, fast_path=True)
# (a fast path: as its parts, the uniform draws go through a buffer and a second loop; dropout on
# (512, 1024) float32, one thread: 1.37 -> 2.07 ms. docs/architecture.md, "The core")
Multinomial = defop("Multinomial", ("state", "input"), attrs={"num_samples": 1, "replacement": True, "dtype": mstype.int32, "seed": 0},
                    infer=_multinomial_infer, eager=_multinomial_eager, kind=Kind.CREATE, batch="multinomial",
                    lower=Template("random", rule="multinomial"))
Randperm = defop("Randperm", ("state",), attrs={"n": 1, "dtype": mstype.int64, "seed": 0}, infer=_randperm_infer,
                 eager=_randperm_eager, kind=Kind.CREATE, batch="loop", lower=Template("random", rule="perm"))

RANDOM_OPS = (RandomUniform, RandomNormal, RandomInt, Bernoulli, Multinomial, Randperm)


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
