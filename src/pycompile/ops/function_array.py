"""The everyday array functions of model code, as MindSpore 2.10 spells them: shape and dtype
queries, split / chunk / unbind, ranges and creation (arange, eye, meshgrid, one_hot,
tuple_to_array), triangles, flips and slices, repeats.

Most are compositions of table ops: a split is a StridedSlice per piece, a flip a StridedSlice
with step -1, one_hot an Equal against a constant range followed by a Select (one fused kernel),
triu / tril a Select against a constant mask. What is known when compiling (shapes, ranges,
Python scalars) is computed in Python and enters the graph as a constant. Sizes that would
depend on tensor values (a range with tensor bounds read at run time) are errors in graph code.
"""
from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, Symbolic, TensorType, type_of
from pycompile.ops import prims as P
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError, apply, norm_axis


def _tensor_cls():
    from pycompile.common.tensor import Tensor
    return Tensor


def _const(arr: np.ndarray):
    """A constant tensor (a Const in graph code)."""
    return _tensor_cls()._wrap(np.array(arr, order="C"))


def _int(name: str, what: str, v) -> int:
    if isinstance(v, (int, np.integer)) and not isinstance(v, builtins.bool):
        return int(v)
    raise OpTypeError(f"For '{name}', '{what}' must be an int, but got {type(v).__name__}")


# ---- queries and small helpers ---------------------------------------------------------------------------
def partial(func, *args):
    """`ops.partial(fn, x)(y)` is `fn(x, y)`; graph code calls through it as it would call fn."""
    return functools.partial(func, *args)


def shape(input_x) -> tuple:
    return F._tensor_type("Shape", input_x, "input_x").shape


def dtype(x):
    return F._tensor_type("DType", x).dtype


def rank(input_x) -> int:
    return F._tensor_type("Rank", input_x, "input_x").ndim


def numel(input) -> int:
    return F._tensor_type("numel", input).size


def tuple_len(*args) -> int:
    (seq,) = args
    return len(seq)


def make_range(*args) -> tuple:
    """The tuple (start, ..., < limit) of ints, like Python's range."""
    if not 1 <= len(args) <= 3:
        raise OpValueError(f"For 'make_range', expected 1 to 3 int arguments, but got {len(args)}")
    return tuple(builtins.range(*[_int("make_range", "args", a) for a in args]))


def identity(x):
    """x itself (a copy in PyNative, so writing into the result leaves x alone)."""
    F._tensor_type("Identity", x)
    return x if isinstance(x, Symbolic) else _tensor_cls()._wrap(x._data.copy())


def tuple_to_array(input_x):
    """A 1-D tensor of a tuple of Python numbers: Int32 for ints, Float32 when any is a float."""
    if not isinstance(input_x, (tuple, list)) or not input_x:
        raise OpTypeError(f"For 'TupleToArray', the input must be a non-empty tuple of numbers, but got {input_x!r}")
    kinds = []
    for v in input_x:
        if isinstance(v, Symbolic) and isinstance(v._abstract, ScalarType) and v._abstract.kind != "bool":
            kinds.append(v._abstract.kind)          # a number known at run time
        elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, builtins.bool):
            kinds.append("float" if isinstance(v, (float, np.floating)) else "int")
        else:
            raise OpTypeError(f"For 'TupleToArray', the input must be a tuple of numbers, but got {input_x!r}")
    dt = mstype.float32 if "float" in kinds else mstype.int32
    if builtins.any(isinstance(v, Symbolic) for v in input_x):
        return F.stack([F.cast(v, dt) for v in input_x])
    return _const(np.array(input_x, dt.np))


def scalar_to_tensor(input_x, dtype=mstype.float32):
    dt = F._dtype_arg("ScalarToTensor", dtype)
    if isinstance(input_x, Symbolic) and isinstance(input_x._abstract, ScalarType):
        return F.cast(input_x, dt)       # a number known at run time
    if not isinstance(input_x, (int, float, np.number)) or isinstance(input_x, builtins.bool):
        raise OpTypeError(f"For 'ScalarToTensor', the input must be a number, but got {type(input_x).__name__}")
    return _const(np.array(input_x).astype(dt.np))


# ---- split, chunk, unbind ----------------------------------------------------------------------------------
def _pieces(x, axis: int, sizes) -> tuple:
    """x cut along `axis` into consecutive pieces of the given sizes (StridedSlice each)."""
    t = F._tensor_type("split", x)
    out, start = [], 0
    for s in sizes:
        begin = tuple(start if d == axis else 0 for d in builtins.range(t.ndim))
        end = tuple(start + s if d == axis else n for d, n in enumerate(t.shape))
        if s == t.shape[axis]:
            out.append(x)
        else:
            out.append(apply(P.StridedSlice, [x], {"begin": begin, "end": end, "strides": (1,) * t.ndim}))
        start += s
    return tuple(out)


def split(tensor, split_size_or_sections, axis=0):
    """Pieces of `split_size_or_sections` elements along axis (the last one smaller), or of the
    listed sizes, which must add up to the axis."""
    t = F._tensor_type("split", tensor, "tensor")
    ax = norm_axis("split", axis, t.ndim)
    n = t.shape[ax]
    s = split_size_or_sections
    if isinstance(s, (int, np.integer)) and not isinstance(s, builtins.bool):
        if s <= 0:
            raise OpValueError(f"For split, the value of 'split_size_or_sections' must be more than zero, but got {s}.")
        sizes = [min(s, n - k) for k in builtins.range(0, n, s)] or [0]
    elif isinstance(s, (tuple, list)):
        sizes = [_int("split", "split_size_or_sections", v) for v in s]
        if builtins.any(v < 0 for v in sizes):
            raise OpTypeError(f"Each element in 'split_size_or_sections' should be non-negative, but got {list(s)}")
        if builtins.sum(sizes) != n:
            raise OpValueError(f"The sum of 'split_size_or_sections' should be equal to {n}, but got "
                               f"{builtins.sum(sizes)}.")
    else:
        raise OpTypeError(f"Type of Argument `split_size_or_sections` should be integer, tuple(int) or list(int), "
                          f"but got {type(s)}")
    return _pieces(tensor, ax, sizes)


def split_equal(input_x, axis: int, output_num: int) -> tuple:
    """The Split primitive: `output_num` equal pieces."""
    t = F._tensor_type("Split", input_x, "input_x")
    ax = norm_axis("Split", axis, t.ndim)
    if output_num <= 0 or t.shape[ax] % output_num:
        raise OpValueError(f"For 'Split', x_shape[{ax}] must be divisible by output_num = {output_num}, but got "
                           f"{t.shape[ax]}")
    return _pieces(input_x, ax, [t.shape[ax] // output_num] * output_num)


def chunk(input, chunks, axis=0):
    """`chunks` pieces of ceil(n / chunks) elements (fewer pieces when they run out)."""
    t = F._tensor_type("chunk", input)
    chunks = _int("chunk", "chunks", chunks)
    if chunks <= 0:
        raise OpValueError(f"For 'chunk', 'chunks' must be greater than 0, but got {chunks}")
    ax = norm_axis("chunk", axis, t.ndim)
    return split(input, max(1, -(-t.shape[ax] // chunks)), ax)


def unbind(input, dim=0):
    """The slices along `dim`, each without that axis."""
    t = F._tensor_type("unbind", input)
    ax = norm_axis("unbind", dim, t.ndim)
    rest = t.shape[:ax] + t.shape[ax + 1:]
    return tuple(F.reshape(p, rest) for p in _pieces(input, ax, [1] * t.shape[ax]))


def unstack(input_x, axis=0):
    return unbind(input_x, axis)


# ---- ranges and creation --------------------------------------------------------------------------------
def _number(name: str, v):
    """A Python number (or a concrete 0-d tensor's value) known when compiling."""
    if isinstance(v, (int, float, np.number)) and not isinstance(v, builtins.bool):
        return v.item() if isinstance(v, np.number) else v
    if isinstance(v, Symbolic):
        raise OpTypeError(f"For '{name}', the bounds must be known when compiling (the result's size depends on "
                          f"them), but got a graph value")
    t = getattr(v, "_abstract", None)
    if isinstance(t, TensorType) and t.size == 1:
        return v._data.item()
    raise OpTypeError(f"For '{name}', the bounds must be numbers, but got {type(v).__name__}")


def _range_values(name: str, start, end, step, dtype):
    vals = [_number(name, v) for v in (start, end, step)]
    if vals[2] == 0:
        raise OpValueError(f"For '{name}', 'step' can not be 0")
    n = max(0, math.ceil((vals[1] - vals[0]) / vals[2]))
    is_float = builtins.any(isinstance(v, float) for v in vals)
    dt = dtype or (mstype.float32 if is_float else mstype.int64)
    arr = (vals[0] + np.arange(n, dtype=np.float64 if is_float else np.int64) * vals[2])
    return _const(arr.astype(dt.np))


def arange(start=0, end=None, step=1, *, dtype=None):
    """[start, end) by step: Int64 for ints, Float32 when any bound is a float."""
    if end is None:
        start, end = 0, start
    return _range_values("arange", start, end, step, None if dtype is None else F._dtype_arg("arange", dtype))


def range(start, end, step, maxlen=1000000):
    return _range_values("range", start, end, step, None)


def eye(n, m=None, dtype=None):
    n = _int("Eye", "n", n)
    m = n if m is None else _int("Eye", "m", m)
    dt = F._dtype_arg("Eye", dtype) if dtype is not None else mstype.float32
    return _const(np.eye(n, m, dtype=dt.np))


def meshgrid(*inputs, indexing="xy"):
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise OpValueError(f"For 'Meshgrid', 'indexing' must be 'xy' or 'ij', but got {indexing!r}")
    sizes = []
    for x in inputs:
        t = F._tensor_type("Meshgrid", x)
        if t.ndim != 1:
            raise OpValueError(f"For 'Meshgrid', each input must be 1-D, but got shape {list(t.shape)}")
        sizes.append(t.shape[0])
    out_shape = list(sizes)
    if indexing == "xy" and len(sizes) >= 2:
        out_shape[0], out_shape[1] = out_shape[1], out_shape[0]
    outs = []
    for k, x in enumerate(inputs):
        pos = k if indexing == "ij" or len(sizes) < 2 else {0: 1, 1: 0}.get(k, k)
        view = [1] * len(sizes)
        view[pos] = sizes[k]
        outs.append(F.broadcast_to(F.reshape(x, tuple(view)), tuple(out_shape)))
    return tuple(outs)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """on_value where the index equals the position along the new axis, off_value elsewhere
    (indices out of [0, depth) give a row of off_value). The dtype is that of on / off: Int64 for
    the default Python ints."""
    t = F._tensor_type("OneHot", indices, "indices")
    if t.dtype.kind not in "iu":
        raise OpTypeError(f"For 'OneHot', 'indices' must be an int32 or int64 Tensor, but got {t}")
    depth = _int("OneHot", "depth", depth)
    if depth < 0:
        raise OpValueError(f"For 'OneHot', 'depth' must be >= 0, but got {depth}")
    ax = norm_axis("OneHot", axis, t.ndim + 1)
    positions = np.arange(depth, dtype=np.int64).reshape((depth,) + (1,) * (t.ndim - ax))
    hot = F.equal(F.expand_dims(indices, ax), _const(positions))
    return F.select(hot, on_value, off_value)


# ---- triangles, flips, slices, repeats ----------------------------------------------------------------
def _triangle(name: str, x, diagonal, upper: bool):
    t = F._tensor_type(name, x)
    if t.ndim < 2:
        raise OpValueError(f"For '{name}', the input must be at least 2-D, but got shape {list(t.shape)}")
    k = _int(name, "diagonal", diagonal)
    rows, cols = t.shape[-2:]
    keep = np.triu(np.ones((rows, cols), bool), k) if upper else np.tril(np.ones((rows, cols), bool), k)
    return F.select(_const(keep), x, _const(np.zeros((), t.dtype.np)))


def triu(input, diagonal=0):
    return _triangle("Triu", input, diagonal, True)


def tril(input, diagonal=0):
    return _triangle("Tril", input, diagonal, False)


def matrix_band_part(x, lower, upper):
    """The band of each matrix of x (its last two axes): elements with i - j <= lower and
    j - i <= upper kept, the rest zero; a negative bound keeps the whole triangle (MindSpore's
    MatrixBandPart). A bound is an int, or an int32 / int64 tensor broadcast over x's matrices
    (one bound per matrix: what vmap over the bounds hands it)."""
    t = F._tensor_type("MatrixBandPart", x, "x")
    if t.ndim < 2:
        raise OpValueError(f"For 'MatrixBandPart', 'x' must be at least 2-D, but got shape {list(t.shape)}")
    rows, cols = t.shape[-2:]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    if isinstance(lower, (Symbolic, _tensor_cls())) or isinstance(upper, (Symbolic, _tensor_cls())):
        return _band_by_tensors(x, t, i - j, lower, upper)
    lower, upper = _int("MatrixBandPart", "lower", lower), _int("MatrixBandPart", "upper", upper)
    keep = ((i - j <= lower) | (lower < 0)) & ((j - i <= upper) | (upper < 0))
    return F.select(_const(keep), x, _const(np.zeros((), t.dtype.np)))


def _band_bound(what: str, v, batch: tuple):
    if isinstance(v, (Symbolic, _tensor_cls())):
        bt = F._tensor_type("MatrixBandPart", v, what)
        if bt.dtype not in (mstype.int32, mstype.int64):
            raise OpTypeError(f"For 'MatrixBandPart', the type of '{what}' should be int32 or int64, but got "
                              f"{bt.dtype}")
        if bt.ndim > len(batch) or np.broadcast_shapes(tuple(bt.shape), batch) != batch:
            raise OpValueError(f"For 'MatrixBandPart', the shape of '{what}' {list(bt.shape)} must broadcast to "
                               f"x's batch shape {list(batch)}")
        return F.reshape(F.cast(v, mstype.int64), tuple(bt.shape) + (1, 1))
    return _const(np.array(_int("MatrixBandPart", what, v), np.int64))


def _band_by_tensors(x, t, diff, lower, upper):
    """matrix_band_part with tensor bounds: the kept mask computed from them (i - j a constant)."""
    lo, up = _band_bound("lower", lower, t.shape[:-2]), _band_bound("upper", upper, t.shape[:-2])
    d, zero = _const(diff.astype(np.int64)), _const(np.zeros((), np.int64))
    keep = F.logical_and(F.logical_or(d <= lo, lo < zero), F.logical_or(-d <= up, up < zero))
    return F.select(keep, x, _const(np.zeros((), t.dtype.np)))


def flip(input, dims):
    """The elements in reverse order along each axis of `dims` (a StridedSlice with step -1)."""
    t = F._tensor_type("ReverseV2", input)
    dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    axes = {norm_axis("ReverseV2", d, t.ndim) for d in dims}
    if len(axes) != len(dims):
        raise OpValueError(f"For 'ReverseV2', 'axis' must not repeat an axis, but got {list(dims)}")
    if not axes or t.size == 0 or builtins.all(t.shape[a] <= 1 for a in axes):
        return input
    begin = tuple(n - 1 if d in axes else 0 for d, n in enumerate(t.shape))
    end = tuple(-1 if d in axes else n for d, n in enumerate(t.shape))
    strides = tuple(-1 if d in axes else 1 for d in builtins.range(t.ndim))
    return apply(P.StridedSlice, [input], {"begin": begin, "end": end, "strides": strides})


def slice(input_x, begin, size):
    """The Slice primitive: `size[d]` elements from `begin[d]` (-1: to the end)."""
    t = F._tensor_type("Slice", input_x, "input_x")
    begin, size = F._int_tuple("Slice", "begin", begin), F._int_tuple("Slice", "size", size)
    if len(begin) != t.ndim or len(size) != t.ndim:
        raise OpValueError(f"For 'Slice', 'begin' and 'size' must have {t.ndim} entries, but got {list(begin)} "
                           f"and {list(size)}")
    key = []
    for b, s, n in zip(begin, size, t.shape):
        stop = n if s == -1 else b + s
        if not (0 <= b <= n and 0 <= stop <= n and (s >= 0 or s == -1)):
            raise OpValueError(f"For 'Slice', the slice [{b}, {stop}) is out of range for a dimension of size {n} "
                               f"(shape {list(t.shape)}, begin {list(begin)}, size {list(size)})")
        key.append(builtins.slice(b, stop))
    return F.getitem(input_x, tuple(key))


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0):
    """The StridedSlice primitive: bit i of a mask applies to entry i of begin / end / strides
    (begin_mask / end_mask: from the start / to the end; shrink_axis_mask: index begin[i] and
    drop the axis; new_axis_mask: a new axis of size 1; ellipsis_mask: '...'). It is the
    Python subscript those entries spell."""
    begin, end = F._int_tuple("StridedSlice", "begin", begin), F._int_tuple("StridedSlice", "end", end)
    strides = F._int_tuple("StridedSlice", "strides", strides)
    if not len(begin) == len(end) == len(strides):
        raise OpValueError(f"For 'StridedSlice', 'begin', 'end' and 'strides' must have the same length, but got "
                           f"{list(begin)}, {list(end)} and {list(strides)}")
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(b)
        else:
            if s == 0:
                raise OpValueError("For 'StridedSlice', the 'strides' cannot contain 0")
            key.append(builtins.slice(None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return F.getitem(input_x, tuple(key))


def repeat_elements(x, rep, axis=0):
    """Each element repeated `rep` times along axis: [a, b] -> [a, a, b, b]."""
    t = F._tensor_type("repeat_elements", x)
    rep = _int("repeat_elements", "rep", rep)
    if rep <= 0:
        raise OpValueError(f"For 'repeat_elements', 'rep' must be positive, but got {rep}")
    ax = norm_axis("repeat_elements", axis, t.ndim)
    if rep == 1:
        return x
    shape = t.shape
    y = F.broadcast_to(F.reshape(x, shape[:ax + 1] + (1,) + shape[ax + 1:]),
                       shape[:ax + 1] + (rep,) + shape[ax + 1:])
    return F.reshape(y, shape[:ax] + (shape[ax] * rep,) + shape[ax + 1:])


def repeat_interleave(input, repeats, axis=None):
    """repeat_elements with an int `repeats`; axis None repeats the flattened tensor."""
    if isinstance(repeats, (tuple, list)) and len(repeats) == 1:
        repeats = repeats[0]
    if not isinstance(repeats, (int, np.integer)) or isinstance(repeats, builtins.bool):
        raise OpTypeError("For 'repeat_interleave', only an int 'repeats' is supported (per-element repeats give a "
                          "shape that depends on the data)")
    if axis is None:
        input = F.reshape(input, (-1,))
        axis = 0
    return repeat_elements(input, repeats, axis)


def padding(x, pad_dim_size=8):
    """MindSpore's Padding: x of shape (..., 1) as (..., pad_dim_size), its value first and zeros after."""
    t = F._tensor_type("Padding", x, "x")
    if isinstance(pad_dim_size, builtins.bool) or not isinstance(pad_dim_size, (int, np.integer)):
        raise OpTypeError(f"For 'Padding', 'pad_dim_size' must be an int, but got {pad_dim_size!r}")
    if pad_dim_size < 1:
        raise OpValueError(f"For 'Padding', 'pad_dim_size' must be positive, but got {pad_dim_size}")
    if t.ndim < 1 or t.shape[-1] != 1:
        raise OpValueError(f"For 'Padding', the last dimension of 'x' must be 1, but got shape {list(t.shape)}")
    if pad_dim_size == 1:
        return F.tensor_move(x)
    return F.concat((x, F.zeros(tuple(t.shape[:-1]) + (int(pad_dim_size) - 1,), t.dtype)), -1)


def batch_to_space_nd(input_x, block_shape, crops):
    """MindSpore's BatchToSpaceND: the batch split into blocks of `block_shape` (an int: the same
    for the last two axes) moved into the last len(block_shape) axes, then `crops` [[begin, end],
    ...] cut from each of them. x of shape (n * prod(block), ..., s_0, s_1) gives
    (n, ..., s_0 * b_0 - crops, s_1 * b_1 - crops)."""
    t = F._tensor_type("BatchToSpaceND", input_x, "input_x")
    block = [block_shape, block_shape] if isinstance(block_shape, (int, np.integer)) else list(block_shape)
    if not block or any(isinstance(b, builtins.bool) or not isinstance(b, (int, np.integer)) or b < 1 for b in block):
        raise OpValueError(f"For 'BatchToSpaceND', 'block_shape' must be positive ints, but got {block_shape!r}")
    m = len(block)
    crops = [list(c) for c in crops]
    if len(crops) != m or any(len(c) != 2 or min(c) < 0 for c in crops):
        raise OpValueError(f"For 'BatchToSpaceND', 'crops' must be {m} pairs of non-negative ints, but got {crops}")
    if t.ndim < m + 1:
        raise OpValueError(f"For 'BatchToSpaceND', 'input_x' must have more than {m} dimensions, but got {t.ndim}")
    prod = math.prod(block)
    if t.shape[0] % prod:
        raise OpValueError(f"For 'BatchToSpaceND', the batch {t.shape[0]} must be divisible by the product of "
                           f"'block_shape' {prod}")
    n, rest, spatial = t.shape[0] // prod, tuple(t.shape[1:t.ndim - m]), tuple(t.shape[t.ndim - m:])
    x = F.reshape(input_x, tuple(block) + (n,) + rest + spatial)
    r = len(rest)
    perm = (m,) + tuple(m + 1 + i for i in builtins.range(r))
    for i in builtins.range(m):
        perm += (m + 1 + r + i, i)
    x = F.reshape(F.transpose(x, perm), (n,) + rest + tuple(s * b for s, b in zip(spatial, block)))
    full = tuple(s * b for s, b in zip(spatial, block))
    if any(c[0] + c[1] > f for c, f in zip(crops, full)):
        raise OpValueError(f"For 'BatchToSpaceND', 'crops' {crops} cut more than the output's size {list(full)}")
    if any(c[0] or c[1] for c in crops):
        begin = (0,) * (1 + r) + tuple(c[0] for c in crops)
        size = (n,) + rest + tuple(f - c[0] - c[1] for f, c in zip(full, crops))
        x = slice(x, begin, size)
    return x


def _block_arg(name: str, x, block_size):
    t = F._tensor_type(name, x, "x")
    if isinstance(block_size, builtins.bool) or not isinstance(block_size, (int, np.integer)) or block_size < 2:
        raise OpValueError(f"For '{name}', 'block_size' must be an int >= 2, but got {block_size!r}")
    if t.ndim != 4:
        raise OpValueError(f"For '{name}', 'x' must be a 4-D (N, C, H, W) Tensor, but got shape {list(t.shape)}")
    return t, int(block_size)


def depth_to_space(x, block_size):
    """MindSpore's DepthToSpace (NCHW, depth-column-row order): (N, C * b * b, H, W) to (N, C, H * b, W * b)."""
    t, b = _block_arg("DepthToSpace", x, block_size)
    n, c, h, w = t.shape
    if c % (b * b):
        raise OpValueError(f"For 'DepthToSpace', the channels {c} must be divisible by block_size^2 = {b * b}")
    y = F.transpose(F.reshape(x, (n, b, b, c // (b * b), h, w)), (0, 3, 4, 1, 5, 2))
    return F.reshape(y, (n, c // (b * b), h * b, w * b))


def space_to_depth(x, block_size):
    """MindSpore's SpaceToDepth (NCHW): (N, C, H * b, W * b) to (N, b * b * C, H, W), the inverse of DepthToSpace."""
    t, b = _block_arg("SpaceToDepth", x, block_size)
    n, c, h, w = t.shape
    if h % b or w % b:
        raise OpValueError(f"For 'SpaceToDepth', the height {h} and width {w} must be divisible by block_size {b}")
    y = F.transpose(F.reshape(x, (n, c, h // b, b, w // b, b)), (0, 3, 5, 1, 2, 4))
    return F.reshape(y, (n, b * b * c, h // b, w // b))


def expand_as(input, other):
    return F.broadcast_to(input, F._tensor_type("expand_as", other, "other").shape)


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == __name__
           and n not in ("split_equal",)]
