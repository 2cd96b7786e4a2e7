"""Ops MindSpore's own CPU tests use that compose from others: ApproximateEqual, Erfinv,
SpaceToBatchND (BatchToSpaceND's inverse), ReverseSequence, CheckValid. Values recorded from the
wheel in tests/conformance/cases_tail.py."""
import builtins
import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.entry import FLOAT, INT, Arg, op_entry


def _tolerance(v, op_name):
    if isinstance(v, bool) or not isinstance(v, float):
        raise OpTypeError(f"For '{op_name}', the type of 'tolerance' should be 'float', but got "
                          f"'{type(v).__name__}'.")


@op_entry("approximate_equal", primitive="ApproximateEqual",
          args=[Arg("x", dtypes=FLOAT), Arg("y", dtypes=FLOAT),
                Arg("tolerance", "value", default=1e-5, init=True, check=_tolerance)])
def approximate_equal(x, y, tolerance=1e-5):
    """|x - y| < tolerance, elementwise (x and y of one shape)."""
    if len(x.shape) >= 8:
        raise OpRuntimeError(f"For 'ApproximateEqual', the x's rank should be less than 8, but got {len(x.shape)}.")
    if tuple(x.shape) != tuple(y.shape):
        raise OpValueError(f"For 'ApproximateEqual', 'x1' must have the same shape as 'x2', but got "
                           f"{list(x.shape)} and {list(y.shape)}.")
    if y.dtype != x.dtype:
        y = F.cast(y, x.dtype)
    return ops.abs(x - y) < tolerance


# Giles (2010), "Approximating the erfinv function": w = -log(1 - x^2); a polynomial in w - 2.5
# below 5, in sqrt(w) - 3 above; then two Newton steps on erf in float64
_ERFINV_SMALL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                 -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_LARGE = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                 -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(coefs, w):
    p = coefs[0]
    for c in coefs[1:]:
        p = p * w + c
    return p


@op_entry("erfinv", primitive="Erfinv", tensor_method=True,
          args=[Arg("input", dtypes=frozenset({mstype.float16, mstype.float32, mstype.float64}))])
def erfinv(input):
    """The inverse of erf on [-1, 1] (+-inf at +-1, NaN outside)."""
    x = F.cast(input, mstype.float64)
    ax = ops.abs(x)
    inside = ax < 1.0
    xs = ops.select(inside, x, ops.zeros_like(x))
    w = -ops.log((1.0 - xs) * (1.0 + xs))
    small = _horner(_ERFINV_SMALL, w - 2.5)
    large = _horner(_ERFINV_LARGE, ops.sqrt(ops.maximum(w, 5.0)) - 3.0)
    y = ops.select(w < 5.0, small, large) * xs
    for _ in range(2):
        y = y - (ops.erf(y) - xs) / (2.0 / math.sqrt(math.pi) * ops.exp(-y * y))
    inf = ops.full(x.shape, float("inf"), dtype=mstype.float64)
    y = ops.select(ax == 1.0, ops.sign(x) * inf, y)
    y = ops.select(ax > 1.0, ops.full(x.shape, float("nan"), dtype=mstype.float64), y)
    y = ops.select(ops.isnan(x), x, y)
    return F.cast(y, input.dtype)


def _block(name, block_shape, m_default=2):
    block = [block_shape] * m_default if isinstance(block_shape, (int, np.integer)) else list(block_shape)
    if not block or any(isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 1 for b in block):
        raise OpValueError(f"For '{name}', 'block_shape' must be positive ints, but got {block_shape!r}")
    return [int(b) for b in block]


@op_entry("space_to_batch_nd_primitive", primitive="SpaceToBatchND", functional=False,
          args=[Arg("input_x"), Arg("block_shape", "value", init=True), Arg("paddings", "value", init=True)])
def space_to_batch_nd_primitive(input_x, block_shape, paddings):
    """The Primitive form (its constructor names the block `block_shape`)."""
    return space_to_batch_nd(input_x, block_shape, paddings)


@op_entry("space_to_batch_nd", prim_name="SpaceToBatchND",
          args=[Arg("input_x"), Arg("block_size", "value"), Arg("paddings", "value")])
def space_to_batch_nd(input_x, block_size, paddings):
    """The last len(block) axes, padded by `paddings` [[begin, end], ...], cut into blocks moved
    into the batch: (n, ..., s_0, s_1) gives (n * b_0 * b_1, ..., (s_0 + pads) / b_0, ...)."""
    block = _block("SpaceToBatchND", block_size)
    m = len(block)
    pads = [list(p) for p in paddings]
    if len(pads) != m or any(len(p) != 2 or min(p) < 0 for p in pads):
        raise OpValueError(f"For 'SpaceToBatchND', 'paddings' must be {m} pairs of non-negative ints, but got "
                           f"{paddings}")
    nd = len(input_x.shape)
    if nd < m + 1:
        raise OpValueError(f"For 'SpaceToBatchND', 'input_x' must have more than {m} dimensions, but got {nd}")
    x = input_x
    if any(p[0] or p[1] for p in pads):
        flat = []
        for p in reversed(pads):
            flat += [int(p[0]), int(p[1])]
        x = ops.pad(x, tuple(flat))
    shape = tuple(x.shape)
    n, rest, spatial = shape[0], shape[1:nd - m], shape[nd - m:]
    if any(s % b for s, b in zip(spatial, block)):
        raise OpValueError(f"For 'SpaceToBatchND', the padded spatial sizes {list(spatial)} must be divisible by "
                           f"'block_shape' {block}")
    r = len(rest)
    split = (n,) + rest
    for s, b in zip(spatial, block):
        split += (s // b, b)
    x = F.reshape(x, split)
    perm = tuple(1 + r + 2 * i + 1 for i in builtins.range(m)) + (0,) + tuple(1 + i for i in builtins.range(r)) \
        + tuple(1 + r + 2 * i for i in builtins.range(m))
    return F.reshape(F.transpose(x, perm), (n * math.prod(block),) + rest + tuple(s // b for s, b in zip(spatial, block)))


@op_entry("reverse_sequence", primitive="ReverseSequence", tensor_method=True,
          args=[Arg("x"), Arg("seq_lengths", dtypes=frozenset({mstype.int32, mstype.int64})),
                Arg("seq_dim", "value", init=True), Arg("batch_dim", "value", default=0, init=True)])
def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """For each b along `batch_dim`, the first seq_lengths[b] elements along `seq_dim` reversed."""
    nd = len(x.shape)
    sd, bd = seq_dim % nd, batch_dim % nd
    if sd == bd:
        raise OpValueError(f"For 'ReverseSequence', 'seq_dim' and 'batch_dim' must differ, but both are {seq_dim}.")
    n = x.shape[sd]
    shape = [1] * nd
    shape[sd] = n
    pos = F.reshape(ops.arange(0, n, dtype=seq_lengths.dtype), tuple(shape))
    lshape = [1] * nd
    lshape[bd] = x.shape[bd]
    lens = F.reshape(seq_lengths, tuple(lshape))
    src = ops.select(ops.broadcast_to(pos < lens, _bshape(shape, lshape)),
                     ops.broadcast_to(lens - 1 - pos, _bshape(shape, lshape)),
                     ops.broadcast_to(pos, _bshape(shape, lshape)))
    return ops.gather_elements(x, sd, ops.broadcast_to(src, tuple(x.shape)))


def _bshape(a, b):
    return tuple(max(i, j) for i, j in zip(a, b))


@op_entry("check_valid", primitive="CheckValid",
          args=[Arg("bboxes", dtypes=frozenset({mstype.float16, mstype.float32, mstype.int16, mstype.uint8})),
                Arg("img_metas", dtypes=frozenset({mstype.float16, mstype.float32, mstype.int16, mstype.uint8}))])
def check_valid(bboxes, img_metas):
    """Whether each box (x1, y1, x2, y2) lies inside the image of img_metas (height, width, ratio)."""
    b = F.cast(bboxes, mstype.float32)
    m = F.cast(img_metas, mstype.float32)
    h, w = m[0] * m[2], m[1] * m[2]
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    ok = ops.logical_and(ops.logical_and(x1 >= 0, y1 >= 0), ops.logical_and(x2 <= w - 1.0, y2 <= h - 1.0))
    return ok


@op_entry("print_", prim_name="Print", args=[Arg("input_x", "value", variadic=True)])
def print_(input_x):
    """ops.Print as a function: strings, numbers, tuples and tensors, in program order."""
    from pycompile.ops.operations import print_values
    return print_values(input_x)


@op_entry("rint_primitive", primitive="Rint", functional=False, prim_name="Rint",
          args=[Arg("input_x", dtypes=frozenset({mstype.float16, mstype.float32, mstype.float64}))])
def rint_primitive(input_x):
    """The nearest integer, ties to even (NumPy's rint)."""
    x = F.cast(input_x, mstype.float32) if input_x.dtype == mstype.float16 else input_x
    t = ops.floor(x)
    d = x - t
    odd = ops.not_equal(ops.floor(t * 0.5) * 2.0, t)
    up = ops.logical_or(d > 0.5, ops.logical_and(d == 0.5, odd))
    out = ops.select(up, t + 1.0, t)
    out = ops.select(ops.isfinite(x), out, x)
    return F.cast(out, input_x.dtype)


@op_entry("median_primitive", primitive="Median", functional=False, prim_name="Median",
          args=[Arg("x", dtypes=frozenset({mstype.int16, mstype.int32, mstype.int64, mstype.float16,
                                           mstype.float32, mstype.float64})),
                Arg("global_median", "value", default=False, init=True), Arg("axis", "value", default=0, init=True),
                Arg("keep_dims", "value", default=False, init=True),
                Arg("ignore_nan", "value", default=False, init=True)])
def median_primitive(x, global_median=False, axis=0, keep_dims=False, ignore_nan=False):
    """(values, Int64 indices): the lower median along `axis` (of all elements with global_median,
    whose index is then 0, as the wheel's); a slice holding NaN gives NaN (the first) unless ignore_nan,
    which takes the median of the other values; an empty input's global median is NaN (0 for
    integers)."""
    if global_median:
        if keep_dims:
            raise OpValueError("For 'Median', 'keep_dims' must be False when 'global_median' is True.")
        flat = F.reshape(x, (-1,)) if len(x.shape) else F.reshape(x, (1,))
        if flat.shape[0] == 0:
            v = ops.full((), float("nan") if x.dtype.is_float else 0, dtype=x.dtype)
            return v, ops.zeros((), mstype.int64)
        v, _ = _median_along(flat, 0, False, ignore_nan)
        return v, ops.zeros((), mstype.int64)          # the wheel's global median reports index 0
    nd = max(len(x.shape), 1)
    if not -nd <= axis < nd:
        raise OpValueError(f"For 'Median', 'axis' must be in range [{-nd}, {nd}), but got {axis}.")
    ax = axis % nd
    if x.shape[ax] == 0 or 0 in tuple(x.shape):
        shape = tuple(x.shape[:ax]) + ((1,) if keep_dims else ()) + tuple(x.shape[ax + 1:])
        return ops.zeros(shape, x.dtype), ops.zeros(shape, mstype.int64)
    return _median_along(x, ax, keep_dims, ignore_nan)


def _median_along(x, ax, keep_dims, ignore_nan):
    values, indices = ops.sort(x, ax)                       # NaN sorts last
    n = x.shape[ax]
    if x.dtype.is_float:
        nan_count = ops.sum(F.cast(ops.isnan(x), mstype.int32), ax, keepdim=True)
        valid = n - nan_count
        if ignore_nan:
            k = ops.maximum((valid - 1) // 2, 0)
        else:
            # the first NaN (NaN sorts last, stably)
            k = ops.select(nan_count > 0, n - nan_count, ops.full(nan_count.shape, (n - 1) // 2, dtype=mstype.int32))
    else:
        shape = list(x.shape)
        shape[ax] = 1
        k = ops.full(tuple(shape), (n - 1) // 2, dtype=mstype.int32)
    v = ops.gather_elements(values, ax, k)
    i = F.cast(ops.gather_elements(indices, ax, k), mstype.int64)
    if not keep_dims:
        v, i = ops.squeeze(v, ax), ops.squeeze(i, ax)
    return v, i
