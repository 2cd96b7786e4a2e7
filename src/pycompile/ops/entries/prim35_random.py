"""MindSpore 2.10's random and fractional-pooling names that were missing: Gamma / ops.gamma,
Poisson / ops.poisson, Randperm, RandpermV2, ops.bernoulli_ext, DropoutGenMask / DropoutDoMask,
FractionalMaxPoolWithFixedKsize / FractionalMaxPool3DWithFixedKsize with ops.fractional_max_pool2d /
fractional_max_pool3d, and SampleDistortedBoundingBoxV2.

The random draws come from pycompile's counter-based generator (ops/function_random.py: one seed
gives the same numbers in PyNative and graph mode); MindSpore's own streams are not followed, as for
the other random ops (prim34b_random.py), so their conformance cases compare shapes, dtypes, ranges
and statistics. The wheel has no CPU kernel for Gamma, Poisson, Randperm, BernoulliExt,
DropoutGenMask and DropoutDoMask: their argument checks are recorded, their values checked against
NumPy in tests/ops/test_prim35_random.py.

Fractional max pooling with a fixed kernel is deterministic once `random_samples` is given, and is
written here as MindSpore's CPU kernels compute it: the window starts of an axis of input size n,
output size m and kernel k are trunc((i + u) a) - trunc(u a) for i < m - 1 and n - k last, with
a = (n - k) / (m - 1), all in the samples' dtype (u: the 2-D kernel reads samples[..., 0] for the
width and [..., 1] for the height; the 3-D one [0] depth, [1] height, [2] width). Each output is the
first maximum of its window; the 2-D kernel starts from -inf (0 for integer inputs, its integer
'infinity', so negative integer windows give 0 at the window's first position) and skips NaN, the
3-D one starts from the dtype's lowest value and lets a NaN win (the last one). Windows are gathered
from the flattened planes, so both modes and any batch work from one decomposition."""
from __future__ import annotations

import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import function_random as FR
from pycompile.ops import functional as F
from pycompile.ops import random_dist_rand33 as D
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError, apply
from pycompile.ops.defs import random as R
from pycompile.ops.entries.image_img33 import shape_values
from pycompile.ops.entries.random_poisson import random_poisson
from pycompile.ops.entry import Arg, op_entry

_FLOATS = frozenset({mstype.float16, mstype.float32, mstype.float64})
_F32 = frozenset({mstype.float32})


def _known(t):
    """t's values when they are known (PyNative, a constant), else None."""
    if isinstance(t, Symbolic) or not hasattr(t, "asnumpy"):
        return None
    return np.asarray(t.asnumpy())


def _non_negative_int(what):
    def check(v, op):
        if isinstance(v, bool) or not isinstance(v, int):
            raise OpTypeError(f"For '{op}', the type of '{what}' should be 'int', but got type '{type(v).__name__}'.")
        if v < 0:
            raise OpValueError(f"For '{op}', the '{what}' must be greater than or equal to 0, but got {v}.")
    return check


def _shape_tuple(op, shape):
    """MindSpore's `shape` input of Gamma / Poisson: a tuple of positive ints known when compiling."""
    if shape is None:
        raise OpValueError(f"For '{op}', the 'shape' cannot be None.")
    if not isinstance(shape, tuple):
        raise OpTypeError(f"For '{op}', the type of 'shape' should be 'tuple', but got type '{type(shape).__name__}'.")
    for i, d in enumerate(shape):
        if isinstance(d, bool) or not isinstance(d, int) or d <= 0:
            raise OpValueError(f"For '{op}', the 'shape[{i}]' must be a positive int, but got {d!r}.")
    return shape


def _broadcast(op, a, b, na, nb):
    try:
        return tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        raise OpValueError(f"For '{op}', {na}.shape and {nb}.shape need to broadcast. The value of {na}.shape: "
                           f"{list(a)}, the value of {nb}.shape: {list(b)}.") from None


def _func_seed(op, seed):
    if seed is None:
        return 0
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise OpTypeError(f"For '{op}', the type of 'seed' should be 'int', but got type '{type(seed).__name__}'.")
    if seed < 0:
        raise OpValueError(f"For '{op}', the 'seed' must be greater than or equal to 0, but got {seed}.")
    return seed


# ---- Gamma / ops.gamma -------------------------------------------------------------------------------
@op_entry("gamma_primitive", primitive="Gamma", functional=False,
          args=[Arg("shape", "value"), Arg("alpha", dtypes=_F32), Arg("beta", dtypes=_F32),
                Arg("seed", "value", default=0, init=True, check=_non_negative_int("seed")),
                Arg("seed2", "value", default=0, init=True, check=_non_negative_int("seed2"))])
def gamma_primitive(shape, alpha, beta, seed=0, seed2=0):
    """Float32 Gamma(alpha, rate beta) samples (mean alpha / beta: beta is the inverse scale, as the
    Inputs section of MindSpore's docs says), of the broadcast shape of shape, alpha and beta."""
    dims = _shape_tuple("Gamma", shape)
    ab = _broadcast("Gamma", alpha.shape, beta.shape, "alpha", "beta")
    out = _broadcast("Gamma", ab, dims, "broadcast_alpha_beta", "shape")
    unit = D.RandomGamma(seed, seed2)((), F.broadcast_to(alpha, out))
    return F.div(unit, F.broadcast_to(beta, out))


@op_entry("gamma", args=[Arg("shape", "value"), Arg("alpha", dtypes=_F32), Arg("beta", dtypes=_F32),
                         Arg("seed", "value", default=None)])
def gamma(shape, alpha, beta, seed=None):
    """ops.gamma: the Gamma Primitive with the op seed `seed` (None: 0)."""
    return gamma_primitive(shape, alpha, beta, seed=_func_seed("gamma", seed), seed2=0)


# ---- Poisson / ops.poisson ---------------------------------------------------------------------------
@op_entry("poisson_primitive", primitive="Poisson", functional=False,
          args=[Arg("shape", "value"), Arg("mean", dtypes=_F32),
                Arg("seed", "value", default=0, init=True, check=_non_negative_int("seed")),
                Arg("seed2", "value", default=0, init=True, check=_non_negative_int("seed2"))])
def poisson_primitive(shape, mean, seed=0, seed2=0):
    """Int32 Poisson counts with mean `mean`, of the broadcast shape of shape and mean (a mean
    below 0 counts as 0)."""
    dims = _shape_tuple("Poisson", shape)
    out = _broadcast("Poisson", mean.shape, dims, "mean", "shape")
    lam = ops.maximum(F.broadcast_to(mean, out), F.zeros((), mean.dtype))
    s = (seed * 1000003 + seed2) % (1 << 62)
    return random_poisson(Tensor(np.zeros(0, np.int64)), lam, seed=s, dtype=mstype.int32)


@op_entry("poisson", args=[Arg("shape", "value"), Arg("mean", dtypes=_F32), Arg("seed", "value", default=None)])
def poisson(shape, mean, seed=None):
    """ops.poisson: the Poisson Primitive with the op seed `seed` (None: 0); Int32 counts."""
    return poisson_primitive(shape, mean, seed=_func_seed("poisson", seed), seed2=0)


# ---- Randperm ----------------------------------------------------------------------------------------
_RANDPERM_DTYPES = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8, mstype.uint16,
                    mstype.uint32, mstype.uint64, mstype.float16, mstype.float32, mstype.float64)


def _int_value(what):
    def check(v, op):
        if isinstance(v, bool) or not isinstance(v, int):
            raise OpTypeError(f"For '{op}', the type of '{what}' should be 'int', but got type '{type(v).__name__}'.")
    return check


def _max_length(v, op):
    _int_value("max_length")(v, op)
    if v < 1:
        raise OpValueError(f"For '{op}', the 'max_length' must be greater than or equal to 1, but got {v}.")


def _randperm_dtype(v, op):
    if v not in _RANDPERM_DTYPES:
        raise OpTypeError(f"For '{op}', the 'dtype' should be one of [{', '.join(str(d) for d in _RANDPERM_DTYPES)}], "
                          f"but got {v}.")


@op_entry("randperm_primitive", primitive="Randperm", functional=False,
          args=[Arg("n", dtypes=frozenset({mstype.int32, mstype.int64})),
                Arg("max_length", "value", default=1, init=True, check=_max_length),
                Arg("pad", "value", default=-1, init=True, check=_int_value("pad")),
                Arg("dtype", "value", default=mstype.int32, init=True, check=_randperm_dtype)])
def randperm_primitive(n, max_length=1, pad=-1, dtype=mstype.int32):
    """(max_length,) values: a random permutation of range(n) (n: a (1,) Tensor), then `pad`.
    n may be known only when the graph runs: positions j >= n get keys above every uniform key,
    so a sort puts a random order of range(n) first."""
    if n.ndim != 1 or n.shape[0] != 1:
        raise OpValueError(f"For 'Randperm', the shape of 'n' must be (1,), but got {tuple(n.shape)}.")
    known = _known(n)
    if known is not None and not 0 <= int(known[0]) <= max_length:
        raise OpValueError(f"For 'Randperm', 'n' must be in range [0, {max_length}], but got {int(known[0])}.")
    pos = Tensor(np.arange(max_length, dtype=np.int64))
    inside = F.less(pos, F.cast(n, mstype.int64))
    keys = FR.draw(R.RandomUniform, [], {"shape": (max_length,), "dtype": mstype.float32, "seed": 0})
    keys = F.select(inside, keys, F.add(F.cast(pos, mstype.float32), 2.0))
    order = F.cast(ops.argsort(keys), mstype.int64)
    return F.cast(F.select(inside, order, F.fill(mstype.int64, (max_length,), pad)), dtype)


# ---- RandpermV2 --------------------------------------------------------------------------------------
# the largest n per dtype: the wheel takes n - 1 up to the dtype's largest value
_V2_DTYPES = {mstype.float16: 65505, mstype.float32: 1 << 62, mstype.float64: 1 << 62, mstype.int8: 128,
              mstype.int16: 1 << 15, mstype.int32: 1 << 31, mstype.int64: 1 << 62, mstype.uint8: 256}


def _v2_seed(v, op):
    _int_value("seed")(v, op)
    if v < -1:
        raise OpValueError(f"For '{op}', the input 'seed' must be greater than 0 or equal to 0 or -1, but got data: "
                           f"{v}.")


def _v2_offset(v, op):
    _int_value("offset")(v, op)
    if v < 0:
        raise OpValueError(f"For '{op}', the input 'offset' must be greater than 0 or equal to 0, but got data: {v}.")


def _v2_dtype(v, op):
    if v not in _V2_DTYPES:
        raise OpTypeError(f"For primitive[{op}], the input argument[dtype] must be a type of {{Float16, Float32, "
                          f"Float64, Int16, Int32, Int64, Int8, UInt8}}, but got {v}.")


@op_entry("randperm_v2_primitive", primitive="RandpermV2", functional=False,
          args=[Arg("n", "value"), Arg("seed", "value", default=0, init=True, check=_v2_seed),
                Arg("offset", "value", default=0, init=True, check=_v2_offset),
                Arg("dtype", "value", default=mstype.int64, init=True, check=_v2_dtype)])
def randperm_v2_primitive(n, seed=0, offset=0, dtype=mstype.int64):
    """A random permutation of range(n) in `dtype` (ops.randperm's Primitive; n an int or a
    scalar int Tensor known when compiling). As the wheel's, a call is a pure function of
    (seed, offset) - two calls alike give the same permutation - except seed -1, which draws
    from the default stream."""
    op = "RandpermV2"
    if isinstance(n, TensorMethods):
        n = int(shape_values(n, "n", op).reshape(-1)[0])
    elif isinstance(n, bool) or not isinstance(n, int):
        raise OpTypeError(f"For '{op}', the type of 'n' should be 'int', but got type '{type(n).__name__}'.")
    if n <= 0:
        raise OpValueError(f"For '{op}', the input 'n' must be greater than 0, but got data: {n}.")
    if n > _V2_DTYPES[dtype]:
        raise OpValueError(f"For '{op}', the value of 'n' is {n}, it's too lagrge for input 'dtype'. ")
    if seed == -1:
        return FR.randperm(n, 0, 0, dtype)
    state = Tensor(np.array([0, offset, 0], np.int64))          # [seed, offset, seed set]: a fixed stream
    return apply(R.Randperm, [state], {"n": n, "dtype": dtype, "seed": seed})


# ---- bernoulli_ext -----------------------------------------------------------------------------------
@op_entry("bernoulli_ext", args=[Arg("input", dtypes=_FLOATS), Arg("generator", "value", default=None, keyword=True)])
def bernoulli_ext(input, generator=None):
    """1 with probability input[i], else 0, in input's shape and dtype; drawn from `generator`
    (an ms.Generator) or the default one."""
    from pycompile.ops.generator import Generator, default_generator
    if generator is not None and not isinstance(generator, Generator):
        raise OpTypeError(f"For 'BernoulliExt', 'generator' must be a Generator, but got {type(generator).__name__}.")
    known = _known(input)
    if known is not None and known.size and not np.all((known >= 0) & (known <= 1)):
        raise OpValueError("For 'BernoulliExt', each element of 'input' must be in [0, 1].")
    with (generator or default_generator).drawing():
        return FR.bernoulli(input, input)


# ---- DropoutGenMask / DropoutDoMask ------------------------------------------------------------------
_KEEP = frozenset({mstype.float16, mstype.float32})


def _one_value(op, keep_prob):
    if math.prod(keep_prob.shape) != 1:
        raise OpValueError(f"For '{op}', 'keep_prob' must hold one value, but got shape {tuple(keep_prob.shape)}.")


def _mask_bytes(count: int) -> int:
    """MindSpore's mask length: the element count rounded up to 128 bits, in bytes."""
    return -(-count // 128) * 16


@op_entry("dropout_gen_mask_primitive", primitive="DropoutGenMask", functional=False,
          args=[Arg("shape", "value"), Arg("keep_prob", dtypes=_KEEP),
                Arg("Seed0", "value", default=0, init=True, check=_int_value("Seed0")),
                Arg("Seed1", "value", default=0, init=True, check=_int_value("Seed1"))])
def dropout_gen_mask_primitive(shape, keep_prob, Seed0=0, Seed1=0):
    """A 1-D uint8 mask of ceil(prod(shape) / 128) * 16 bytes: bit b of byte j (least significant
    first) keeps element 8 j + b with probability keep_prob; bits past the elements are 0."""
    op = "DropoutGenMask"
    if not isinstance(shape, (tuple, list)):
        raise OpTypeError(f"For '{op}', the type of 'shape' should be 'tuple', but got type '{type(shape).__name__}'.")
    for i, d in enumerate(shape):
        if isinstance(d, bool) or not isinstance(d, int) or d <= 0:
            raise OpRuntimeError(f"For '{op}', each dim of 'shape' must be greater than 0, but got shape[{i}]: {d}.")
    _one_value(op, keep_prob)
    count = math.prod(shape)
    nbytes = _mask_bytes(count)
    p = F.cast(F.reshape(keep_prob, ()), mstype.float32)
    seed = (Seed0 * 1000003 + Seed1) % (1 << 62)
    bits = FR.draw(R.Bernoulli, [p], {"shape": (nbytes * 8,), "dtype": mstype.int32, "seed": seed})
    used = Tensor((np.arange(nbytes * 8) < count).astype(np.int32))
    weights = Tensor(np.tile(1 << np.arange(8, dtype=np.int32), nbytes))
    packed = ops.sum(F.reshape(F.mul(F.mul(bits, used), weights), (nbytes, 8)), 1)
    return F.cast(packed, mstype.uint8)


@op_entry("dropout_do_mask_primitive", primitive="DropoutDoMask", functional=False,
          args=[Arg("input_x", dtypes=frozenset({mstype.float16, mstype.float32, mstype.int32})),
                Arg("mask", dtypes=frozenset({mstype.uint8})), Arg("keep_prob", dtypes=_FLOATS)])
def dropout_do_mask_primitive(input_x, mask, keep_prob):
    """input_x * bit / keep_prob, bit i of the mask (DropoutGenMask's layout) for element i (an
    int32 input is scaled in float32 and truncated back)."""
    op = "DropoutDoMask"
    count = math.prod(input_x.shape)
    if mask.ndim != 1:
        raise OpValueError(f"For '{op}', the input 'mask' must be 1-D, but got: {mask.ndim}-D.")
    if mask.shape[0] * 8 < count:
        raise OpValueError(f"For '{op}', the input 'mask' must be less than or equal to match input, but got "
                           f"'input_x' shape: {tuple(input_x.shape)}, 'mask' shape: ({mask.shape[0]}).")
    _one_value(op, keep_prob)
    nbytes = -(-count // 8)
    m = F.cast(ops.strided_slice(mask, (0,), (nbytes,), (1,)), mstype.int32)
    weights = Tensor((1 << np.arange(8, dtype=np.int32)).reshape(1, 8))
    bits = ops.floor_mod(ops.floor_divide(F.reshape(m, (nbytes, 1)), weights), 2)
    flat = ops.strided_slice(F.reshape(bits, (nbytes * 8,)), (0,), (count,), (1,))
    dt = mstype.float32 if input_x.dtype is mstype.int32 else input_x.dtype
    keep = F.reshape(F.cast(flat, dt), tuple(input_x.shape))
    out = F.div(F.mul(F.cast(input_x, dt), keep), F.cast(F.reshape(keep_prob, ()), dt))
    return F.cast(out, input_x.dtype)


# ---- FractionalMaxPoolWithFixedKsize / FractionalMaxPool3DWithFixedKsize ------------------------------
_POOL_X = frozenset({mstype.float16, mstype.float32, mstype.float64, mstype.int32, mstype.int64})


def _sizes(what, v, op, nd):
    """An int or a tuple of nd (2-D: 1 or 2) positive ints -> a tuple of nd ints."""
    word = "two" if nd == 2 else "three"
    if isinstance(v, bool) or not isinstance(v, (int, tuple)):
        raise OpTypeError(f"For '{op}', the type of '{what}' should be one of ['int', 'tuple'], but got type "
                          f"'{type(v).__name__}'.")
    t = (v,) * nd if isinstance(v, int) else (v * nd if nd == 2 and len(v) == 1 else v)
    if len(t) != nd or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in t):
        raise OpValueError(f"For '{op}' attr '{what}' must be an positive int number or a tuple of {word} positive "
                           f"int numbers, but got {v}")
    return tuple(t)


def _attr(what, nd):
    return lambda v, op: _sizes(what, v, op, nd)


def _format(allowed):
    def check(v, op):
        if not isinstance(v, str) or v not in allowed:
            raise OpValueError(f"For '{op}', the 'data_format' must be str and must be in '{list(allowed)}', but got "
                               f"'{v}'.")
    return check


def _starts(u, n_in: int, n_out: int, k: int):
    """Window starts (N, C, n_out) int64 of one axis from its samples u (N, C), in u's dtype."""
    last = F.fill(mstype.int64, tuple(u.shape) + (1,), n_in - k)
    if n_out == 1:
        return last
    npd = np.dtype(u.dtype.np).type
    alpha = Tensor(np.array(npd(n_in - k) / npd(n_out - 1), npd))
    i = Tensor(np.arange(n_out - 1).astype(npd))
    s = F.expand_dims(u, -1)
    first = F.sub(F.cast(F.mul(F.add(i, s), alpha), mstype.int64), F.cast(F.mul(s, alpha), mstype.int64))
    return ops.concat((first, last), -1)


def _fixed_pool(op, x, samples, ksize, out, sample_axis, nan_wins):
    """(values, flat argmax) of MindSpore's fixed-kernel fractional max pool of the planes of the
    (N, C, *spatial) x; sample_axis[a]: which of samples[..., :] drives spatial axis a."""
    n, c = x.shape[:2]
    sp = tuple(x.shape[2:])
    nd = len(sp)
    strides = [math.prod(sp[a + 1:]) for a in range(nd)]
    full = (n, c) + tuple(out) + tuple(ksize)
    lin = None
    for a in range(nd):
        st = _starts(samples[:, :, sample_axis[a]], sp[a], out[a], ksize[a])         # (N, C, out[a])
        known = _known(st)
        if known is not None and known.size and (known.min() < 0 or known.max() > sp[a] - ksize[a]):
            raise OpValueError(f"For '{op}', index {'DHW'[3 - nd + a]} value is illegal.")
        shape = [n, c] + [1] * (2 * nd)
        shape[2 + a] = out[a]
        kshape = [1] * (2 + 2 * nd)
        kshape[2 + nd + a] = ksize[a]
        pos = F.add(F.reshape(st, tuple(shape)), Tensor(np.arange(ksize[a], dtype=np.int64).reshape(kshape)))
        pos = ops.clamp(pos, 0, sp[a] - 1)                  # samples outside [0, 1) (unchecked in graph code)
        term = F.mul(pos, strides[a])
        lin = term if lin is None else F.add(lin, term)
    p, k = math.prod(out), math.prod(ksize)
    lin = F.reshape(F.broadcast_to(lin, full), (n, c, p * k))
    vals = F.reshape(ops.gather_elements(F.reshape(x, (n, c, math.prod(sp))), 2, lin), (n, c, p, k))
    lin = F.reshape(lin, (n, c, p, k))
    dt = x.dtype
    if dt.is_float:
        init = float(mstype.finfo(dt.np).min) if nan_wins else float("-inf")
    else:
        init = int(np.iinfo(dt.np).min) if nan_wins else 0
    m0 = F.fill(dt, (), init)
    valid = F.greater(vals, m0)
    vm = F.select(valid, vals, F.broadcast_to(m0, vals.shape))
    best = ops.amax(vm, 3)
    hit = F.logical_and(valid, F.equal(vm, F.expand_dims(best, 3)))
    pick = ops.argmax(F.cast(hit, mstype.int32), 3)
    if nan_wins and dt.is_float:
        isn = ops.isnan(vals)
        rev = ops.gather(F.cast(isn, mstype.int32), Tensor(np.arange(k - 1, -1, -1, dtype=np.int64)), 3)
        has = ops.any(isn, 3)
        pick = F.select(has, F.sub(k - 1, ops.argmax(rev, 3)), pick)
        best = F.select(has, F.fill(dt, tuple(best.shape), float("nan")), best)
    idx = ops.gather_elements(lin, 3, F.expand_dims(F.cast(pick, mstype.int64), 3))
    return F.reshape(best, (n, c) + tuple(out)), F.reshape(idx, (n, c) + tuple(out))


def _check_samples(op, samples, n, c, last):
    if samples.ndim != 3:
        raise OpValueError(f"For '{op}', the dimension of 'random_samples' must be 3, but got {samples.ndim}.")
    if samples.shape[0] != n:
        raise OpValueError(f"For '{op}', the first dimension size of input_x and random_samples must be equal.")
    if samples.shape[1] != c:
        raise OpValueError("The second dimension size of input_x and random_samples must be equal.")
    if samples.shape[2] != last:
        raise OpValueError(f"For '{op}', the third dimension size of random_samples must be {last}, but got "
                           f"{samples.shape[2]}.")


@op_entry("fractional_max_pool_with_fixed_ksize_primitive", primitive="FractionalMaxPoolWithFixedKsize",
          functional=False,
          args=[Arg("input_x", dtypes=_POOL_X), Arg("random_samples", dtypes=_FLOATS),
                Arg("ksize", "value", init=True, check=_attr("ksize", 2)),
                Arg("output_shape", "value", init=True, check=_attr("output_shape", 2)),
                Arg("data_format", "value", default="NCHW", init=True, check=_format(("NCHW",)))])
def fractional_max_pool_with_fixed_ksize_primitive(input_x, random_samples, ksize, output_shape, data_format="NCHW"):
    """(y, argmax): y (N, C, *output_shape) the maximum of each ksize window, argmax (int64) its
    index in the flattened (H, W) plane."""
    op = "FractionalMaxPoolWithFixedKsize"
    ks, out = _sizes("ksize", ksize, op, 2), _sizes("output_shape", output_shape, op, 2)
    if input_x.ndim != 4:
        raise OpValueError(f"For '{op}', the dimension of 'input_x' must be 4, but got {input_x.ndim}.")
    n, c, h, w = input_x.shape
    _check_samples(op, random_samples, n, c, 2)
    for name, size, kk, o in (("height", h, ks[0], out[0]), ("width", w, ks[1], out[1])):
        if o + kk - 1 > size:
            ax = name[0]
            raise OpValueError(f"For {op}, ksize {name} [{kk}] + output_shape_{ax} [{o}] too large relative to input "
                               f"{name} [{size}], conflict with the rule: ksize_{ax} + output_shape_{ax} - 1 <= "
                               f"input_{ax}")
    return _fixed_pool(op, input_x, random_samples, ks, out, (1, 0), nan_wins=False)


@op_entry("fractional_max_pool3d_with_fixed_ksize_primitive", primitive="FractionalMaxPool3DWithFixedKsize",
          functional=False,
          args=[Arg("x", dtypes=_POOL_X), Arg("random_samples", dtypes=_FLOATS),
                Arg("ksize", "value", init=True, check=_attr("ksize", 3)),
                Arg("output_shape", "value", init=True, check=_attr("output_shape", 3)),
                Arg("data_format", "value", default="NCDHW", init=True, check=_format(("NCDHW", "NDHWC")))])
def fractional_max_pool3d_with_fixed_ksize_primitive(x, random_samples, ksize, output_shape, data_format="NCDHW"):
    """(y, argmax) of the 3-D pool of x (N, C, D, H, W), or (C, D, H, W) with random_samples
    (C, 1, 3); argmax (int64) indexes the flattened (D, H, W) volume. NDHWC inputs are pooled in
    that layout's channel-last order (transposed in and out)."""
    op = "FractionalMaxPool3DWithFixedKsize"
    ks, out = _sizes("ksize", ksize, op, 3), _sizes("output_shape", output_shape, op, 3)
    if x.ndim not in (4, 5):
        raise OpTypeError(f"For '{op}', the dimension of 'x' must be equal to 4 or 5, but got {x.ndim}.")
    unbatched = x.ndim == 4
    if unbatched:
        if random_samples.ndim != 3 or random_samples.shape[0] != x.shape[0 if data_format == "NCDHW" else 3]:
            raise OpValueError(f"For '{op}', if 'x' is 4 dimensional, the first dimension size of 'x' and "
                               f"'random_samples' must be equal.")
        x = F.expand_dims(x, 0)
        random_samples = F.transpose(random_samples, (1, 0, 2))
    if data_format == "NDHWC":
        x = F.transpose(x, (0, 4, 1, 2, 3))
    n, c, d, h, w = x.shape
    _check_samples(op, random_samples, n, c, 3)
    for name, size, kk, o in (("depth", d, ks[0], out[0]), ("height", h, ks[1], out[1]), ("width", w, ks[2], out[2])):
        if o + kk - 1 >= size:
            raise OpValueError(f"For '{op}', out(): pool {name} ,{kk}too large relative to input {name}{size}.")
    y, idx = _fixed_pool(op, x, random_samples, ks, out, (0, 1, 2), nan_wins=True)
    if data_format == "NDHWC":
        y, idx = F.transpose(y, (0, 2, 3, 4, 1)), F.transpose(idx, (0, 2, 3, 4, 1))
    if unbatched:
        y, idx = y[0], idx[0]
    return y, idx


def _output_size(op, shape, kernel_size, output_size, output_ratio, nd):
    if output_size is None and output_ratio is None:
        raise OpValueError(f"For {op}, 'output_size' and 'output_ratio' can not be Noneat the same time, but got None "
                           f"and None .")
    if output_size is not None:
        return output_size
    ratio = output_ratio
    if isinstance(ratio, (float, int)) and not isinstance(ratio, bool):
        if not isinstance(ratio, float):
            raise OpTypeError(f"For '{op}', the type of 'output_ratio' should be 'float', but got type "
                              f"'{type(ratio).__name__}'.")
        ratio = (ratio,) * nd
    for i in range(nd):
        if not 0.0 < ratio[i] < 1.0:
            raise OpValueError(f"For '{op}', the 'output_ratio[{i}]' must be in range of (0.0, 1.0), but got "
                               f"{ratio[i]}.")
    return tuple(int(shape[-nd + i] * ratio[i]) for i in range(nd))


def _return_indices(v, op):
    if not isinstance(v, bool):
        raise OpTypeError(f"For '{op}', the type of 'return_indices' should be 'bool', but got type "
                          f"'{type(v).__name__}'.")


def _samples(x, n, c, nd):
    return FR.rand(n, c, nd, dtype=x.dtype if x.dtype.is_float else mstype.float32)


_FMP_ARGS = [Arg("input"), Arg("kernel_size", "value"), Arg("output_size", "value", default=None),
             Arg("output_ratio", "value", default=None),
             Arg("return_indices", "value", default=False, check=_return_indices),
             Arg("_random_samples", "value", default=None)]


@op_entry("fractional_max_pool2d", args=_FMP_ARGS)
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling of (N, C, H, W) or (C, H, W) input with a fixed kernel; the window
    offsets come from _random_samples (N, C, 2), drawn uniformly when None."""
    op = "fractional_max_pool2d"
    size = _output_size(op, input.shape, kernel_size, output_size, output_ratio, 2)
    x = F.expand_dims(input, 0) if input.ndim == 3 else input
    samples = _samples(x, x.shape[0], x.shape[1], 2) if _random_samples is None else _random_samples
    y, idx = fractional_max_pool_with_fixed_ksize_primitive(x, samples, kernel_size, size)
    if input.ndim == 3:
        y, idx = y[0], idx[0]
    return (y, idx) if return_indices else y


@op_entry("fractional_max_pool3d", args=_FMP_ARGS)
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling of (N, C, D, H, W) or (C, D, H, W) input with a fixed kernel; the
    window offsets come from _random_samples (N, C, 3), drawn uniformly when None; the samples
    must have input's dtype."""
    op = "fractional_max_pool3d"
    size = _output_size(op, input.shape, kernel_size, output_size, output_ratio, 3)
    samples = _random_samples
    if samples is None:
        samples = _samples(input, 1 if input.ndim == 4 else input.shape[0], input.shape[-4], 3)
    if input.ndim == 4:
        samples = F.transpose(samples, (1, 0, 2))
    if input.dtype != samples.dtype:
        raise OpTypeError(f"For '{op}', 'input' and '_random_samples' must be same dtype, but got "
                          f"Tensor[{input.dtype}] and Tensor[{samples.dtype}].")
    y, idx = fractional_max_pool3d_with_fixed_ksize_primitive(input, samples, kernel_size, size)
    return (y, idx) if return_indices else y


# ---- SampleDistortedBoundingBoxV2 --------------------------------------------------------------------
# TensorFlow's sampler, which MindSpore's CPU kernel follows: each of max_attempts candidates draws an
# aspect ratio, a height between the smallest and the largest allowed by area_range (rounded as lrintf
# does), then an offset; the first candidate whose area fits and that covers at least
# min_object_covered of some box (of area >= 1 pixel) wins, else the whole image. All attempts are
# drawn and judged at once, so the image size may be a runtime value.
_IMAGE_SIZE = frozenset({mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8})


def _pair_of_floats(what):
    def check(v, op):
        if not isinstance(v, (list, tuple)):
            raise OpTypeError(f"For '{op}', the type of '{what}' should be one of ['list', 'tuple'], but got type "
                              f"'{type(v).__name__}'.")
        for i, x in enumerate(v):
            if not isinstance(x, float):
                raise OpTypeError(f"For '{op}', the type of '{what}[{i}]' should be 'float', but got type "
                                  f"'{type(x).__name__}'.")
    return check


def _positive_int(what):
    def check(v, op):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise OpValueError(f"For '{op}', the '{what}' must be int and must > 0, but got '{v}' with type "
                               f"'{type(v).__name__}'.")
    return check


def _bool_attr(what):
    def check(v, op):
        if not isinstance(v, bool):
            raise OpTypeError(f"For '{op}', the type of '{what}' should be 'bool', but got type '{type(v).__name__}'.")
    return check


def _sdbb_checks(op, image_size, boxes, covered, aspect_ratio_range, area_range, use_image):
    if image_size.ndim != 1 or image_size.shape[0] != 3:
        raise OpValueError(f"For primitive[{op}], the image_size elements must be equal to 3, but got "
                           f"{image_size.shape[0] if image_size.ndim == 1 else image_size.ndim}.")
    if boxes.ndim != 3:
        raise OpValueError(f"For primitive[{op}], the bounding_boxes dimension must be equal to 3, but got "
                           f"{boxes.ndim}.")
    if boxes.shape[2] != 4:
        raise OpValueError(f"For primitive[{op}], the last dimension of bounding_boxes must be 4, but got "
                           f"{boxes.shape[2]}.")
    if covered.ndim != 1 or covered.shape[0] != 1:
        raise OpValueError(f"For primitive[{op}], the min_object_covered dimension must be equal to 1, but got "
                           f"{covered.ndim}.")
    if len(aspect_ratio_range) != 2:
        raise OpValueError(f"For primitive[{op}], the aspect_ratio_range elements must be equal to 2, but got "
                           f"{len(aspect_ratio_range)}.")
    if len(area_range) != 2:
        raise OpValueError(f"For primitive[{op}], the area_range elements must be equal to 2, but got "
                           f"{len(area_range)}.")
    for v in area_range:
        if not 0.0 < v <= 1.0:
            raise OpValueError(f"For primitive[{op}], the area_range value must be in (0,1], but got {v}.")
    if area_range[0] > area_range[1]:
        raise OpValueError(f"For '{op}', area_range[0] must less than area_range[1].")
    if aspect_ratio_range[0] <= 0 or aspect_ratio_range[1] <= 0:
        raise OpValueError(f"For '{op}', aspect_ratio_range must be positive.")
    if (boxes.shape[0] == 0 or boxes.shape[1] == 0) and not use_image:
        raise OpValueError(f"For '{op}', batch or N in bounding_boxes whose shape is [batch, N, 4] equals 0, which "
                           f"means no bounding boxes provided as input. Set use_image_if_no_bounding_boxes=True if "
                           f"you wish to not provide any bounding boxes.")
    size, bv, cv = _known(image_size), _known(boxes), _known(covered)
    if size is not None and (size[0] <= 0 or size[1] <= 0):
        raise OpRuntimeError(f"For '{op}', image height and width must be positive, got: [{size[0]}] and "
                             f"[{size[1]}].")
    if bv is not None and bv.size and (bv.min() < 0 or bv.max() > 1):
        bad = bv[(bv < 0) | (bv > 1)][0]
        raise OpRuntimeError(f"For '{op}', all bounding box coordinates must in [0.0, 1.0], got: [{bad:g}].")
    if cv is not None and not 0.0 <= float(cv[0]) <= 1.0:
        raise OpRuntimeError(f"For '{op}', min_object_covered must be in [0.0, 1.0], got: [{float(cv[0]):g}].")


@op_entry("sample_distorted_bounding_box_v2_primitive", primitive="SampleDistortedBoundingBoxV2", functional=False,
          args=[Arg("image_size", dtypes=_IMAGE_SIZE), Arg("bounding_boxes", dtypes=_F32),
                Arg("min_object_covered", dtypes=_F32),
                Arg("seed", "value", default=0, init=True, check=_int_value("seed")),
                Arg("seed2", "value", default=0, init=True, check=_int_value("seed2")),
                Arg("aspect_ratio_range", "value", default=(0.75, 1.33), init=True,
                    check=_pair_of_floats("aspect_ratio_range")),
                Arg("area_range", "value", default=(0.05, 1.0), init=True, check=_pair_of_floats("area_range")),
                Arg("max_attempts", "value", default=100, init=True, check=_positive_int("max_attempts")),
                Arg("use_image_if_no_bounding_boxes", "value", default=False, init=True,
                    check=_bool_attr("use_image_if_no_bounding_boxes"))])
def sample_distorted_bounding_box_v2_primitive(image_size, bounding_boxes, min_object_covered, seed=0, seed2=0,
                                               aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                                               max_attempts=100, use_image_if_no_bounding_boxes=False):
    """(begin [y, x, 0], size [h, w, -1] in image_size's dtype (-1 is 255 for uint8), bboxes (1, 1, 4)
    float32 [y0, x0, y1, x1] / image size) of a random crop of the (height, width, channels) image.
    With seed or seed2 set, a call is a function of them (calls alike crop alike)."""
    op = "SampleDistortedBoundingBoxV2"
    _sdbb_checks(op, image_size, bounding_boxes, min_object_covered, aspect_ratio_range, area_range,
                 use_image_if_no_bounding_boxes)
    f64 = mstype.float64
    t = max_attempts
    attrs = {"shape": (4, t), "dtype": f64}
    if seed or seed2:
        state = Tensor(np.array([0, 0, 0], np.int64))
        u = apply(R.RandomUniform, [state], dict(attrs, seed=(seed * 1000003 + seed2) % (1 << 62) or 1))
    else:
        u = FR.draw(R.RandomUniform, [], dict(attrs, seed=0))
    size = F.cast(image_size, f64)
    hh, ww = size[0], size[1]
    lo_ar, hi_ar = aspect_ratio_range
    ar = F.cast(F.cast(u[0] * (hi_ar - lo_ar) + lo_ar, mstype.float32), f64)
    min_area, max_area = hh * ww * area_range[0], hh * ww * area_range[1]
    height = ops.round(ops.sqrt(min_area / ar))
    max_h = ops.round(ops.sqrt(max_area / ar))
    max_h = F.select(ops.round(max_h * ar) > ww, ops.floor((ww + 0.5 - 1e-7) / ar), max_h)
    max_h = ops.minimum(max_h, hh)
    height = ops.minimum(height, max_h)
    height = height + ops.floor(u[1] * (max_h - height + 1.0))
    width = ops.round(height * ar)
    grow = width * height < min_area
    height = F.select(grow, height + 1.0, height)
    width = ops.round(height * ar)
    shrink = width * height > max_area
    height = F.select(shrink, height - 1.0, height)
    width = ops.round(height * ar)
    area = width * height
    fits = (area >= min_area) & (area <= max_area) & (width <= ww) & (height <= hh) & (width > 0) & (height > 0)
    y = ops.floor(u[2] * ops.maximum(hh - height, 0.0))
    x = ops.floor(u[3] * ops.maximum(ww - width, 0.0))
    # the boxes in whole pixels (truncated, as the kernel's int conversion), plus the whole image when asked
    nb = bounding_boxes.shape[0] * bounding_boxes.shape[1]
    b = F.cast(F.reshape(bounding_boxes, (nb, 4)), f64)
    scale = ops.stack([hh, ww, hh, ww])
    pix = ops.trunc(b * F.reshape(scale, (1, 4))) if nb else F.zeros((0, 4), f64)
    if use_image_if_no_bounding_boxes and nb == 0:
        pix = F.reshape(ops.stack([F.zeros((), f64), F.zeros((), f64), hh, ww]), (1, 4))
    by0 = ops.minimum(pix[:, 0], pix[:, 2])
    by1 = ops.maximum(pix[:, 0], pix[:, 2])
    bx0 = ops.minimum(pix[:, 1], pix[:, 3])
    bx1 = ops.maximum(pix[:, 1], pix[:, 3])
    box_area = (by1 - by0) * (bx1 - bx0)                                          # (B,)
    cy0, cx0 = F.expand_dims(y, 1), F.expand_dims(x, 1)                          # (T, 1)
    cy1, cx1 = cy0 + F.expand_dims(height, 1), cx0 + F.expand_dims(width, 1)
    iy = ops.maximum(ops.minimum(cy1, by1) - ops.maximum(cy0, by0), 0.0)
    ix = ops.maximum(ops.minimum(cx1, bx1) - ops.maximum(cx0, bx0), 0.0)
    covered = F.cast(min_object_covered, f64)
    ratio = iy * ix / ops.maximum(box_area, 1.0)
    hit = (box_area >= 1.0) & (ratio >= covered)                                  # (T, B)
    good = fits & (area >= 1.0) & ops.any(hit, 1)
    first = ops.argmax(F.cast(good, mstype.int32), 0)
    found = ops.any(good)
    zero = F.zeros((), f64)

    def pick(v, fallback):
        return F.select(found, ops.gather(v, first, 0), fallback)
    py, px, ph, pw = pick(y, zero), pick(x, zero), pick(height, hh), pick(width, ww)
    dt = image_size.dtype
    last = 255 if dt is mstype.uint8 else -1
    begin = F.cast(ops.stack([py, px, zero]), dt)
    out_size = ops.stack([F.cast(ph, dt), F.cast(pw, dt), F.fill(dt, (), last)])
    bboxes = F.reshape(F.cast(ops.stack([py / hh, px / ww, (py + ph) / hh, (px + pw) / ww]), mstype.float32),
                       (1, 1, 4))
    return begin, out_size, bboxes
