"""Ops MindSpore's own CPU tests use that compose from others: SpaceToBatchND (BatchToSpaceND's
inverse), ops.print_, the Median Primitive. Values recorded from the wheel in
tests/conformance/cases_tail.py."""
import builtins
import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.entry import Arg, op_entry


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
    nd = F._tensor_type("SpaceToBatchND", input_x, "input_x").ndim     # (a run-time length: its bound)
    if nd < m + 1:
        raise OpValueError(f"For 'SpaceToBatchND', 'input_x' must have more than {m} dimensions, but got {nd}")
    x = input_x
    if any(p[0] or p[1] for p in pads):
        flat = []
        for p in reversed(pads):
            flat += [int(p[0]), int(p[1])]
        x = ops.pad(x, tuple(flat))
    shape = tuple(F._tensor_type("SpaceToBatchND", x, "input_x").shape)
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


@op_entry("print_", prim_name="Print", args=[Arg("input_x", "value", variadic=True)])
def print_(input_x):
    """ops.Print as a function: strings, numbers, tuples and tensors, in program order."""
    from pycompile.ops.operations import print_values
    return print_values(input_x)


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
