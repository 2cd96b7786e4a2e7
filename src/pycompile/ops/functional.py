"""Functional ops (`pycompile.ops.add`, `ops.select`, `ops.stack`, ...): thin views of the op
table. Each argument that must be known at compile time (an axis, a shape, a dtype) becomes an
attribute; the rest are inputs. Everything here runs eagerly on Tensors and builds IR when
given graph tracers (see `_table.apply`).
"""
from __future__ import annotations

import builtins

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, Symbolic, TensorType, type_of
from pycompile.common.tensor import Tensor
from pycompile.ops import _mixed
from pycompile.ops._table import OPS, OpRuntimeError, OpTypeError, OpValueError, apply, norm_axis
from pycompile.ops.stacked import stacked_whole
from pycompile.ops.tracing import needs_value
from pycompile.ops import prims as _P    # the rows, as objects (private: MindSpore's ops.functional.P is another module)


def _t(name):
    return OPS[name]


def _tensor_type(name: str, x, what: str = "input") -> TensorType:
    """The TensorType of a Tensor (or tracer) argument, or a TypeError naming the op."""
    t = getattr(x, "_abstract", None)
    if not isinstance(t, TensorType):
        raise OpTypeError(f"For '{name}', '{what}' must be a Tensor, but got {type(x).__name__}")
    return t


def _dtype_arg(name: str, dtype) -> mstype.DType:
    try:
        return mstype.to_dtype(dtype)
    except TypeError:
        raise OpTypeError(f"For '{name}', 'dtype' must be a pycompile dtype such as pycompile.float32, "
                          f"but got {dtype!r}") from None


def _tensor_seq(name: str, tensors) -> tuple:
    if not isinstance(tensors, (tuple, list)):
        raise OpTypeError(f"For '{name}', the input must be a tuple or list of Tensors, "
                          f"but got {type(tensors).__name__}")
    return tuple(tensors)


def _known_ints(value):
    """The values of an integer Tensor that sets a shape or a slice (MindSpore's value-depend
    inputs), or None: a Tensor (under the autodiff tape too), a constant in graph code, or a
    Tensor argument of the compiled call, which then raises errors.InputValueNeeded and is
    compiled once per value of it (pycompile.api)."""
    inner = value
    while isinstance(inner, Symbolic) and hasattr(inner, "primal"):      # autodiff / vmap wrappers
        inner = inner.primal
    ask = getattr(inner, "value_for_shape", None)
    data = ask("a shape") if ask is not None else getattr(inner, "_data", None)
    if isinstance(data, np.ndarray) and data.ndim <= 1 and data.dtype.kind in "iu":
        return tuple(int(v) for v in data.reshape(-1))
    return None


def _int_tuple(name: str, what: str, value) -> tuple:
    if isinstance(value, (tuple, list)) and builtins.all(
            isinstance(v, (int, np.integer)) and not isinstance(v, builtins.bool) for v in value):
        return tuple(int(v) for v in value)
    data = getattr(value, "_data", None)     # a 1-D integer Tensor with known values (MindSpore takes it)
    if isinstance(data, np.ndarray) and data.ndim == 1 and data.dtype.kind in "iu":
        return tuple(int(v) for v in data)
    known = _known_ints(value) if isinstance(value, Symbolic) and getattr(value, "ndim", 0) == 1 else None
    if known is not None:
        return known
    raise OpTypeError(f"For '{name}', '{what}' must be a tuple of ints, but got {value!r}")


# ---- arithmetic ----------------------------------------------------------------------------------
def add(input, other):
    """MindSpore's ops.add refuses bool + bool (the `+` operator on bool tensors is an or)."""
    if _promoted_is_bool(input, other):
        raise OpTypeError(f"For primitive[Add], the input argument[x] must be a type of {{Tensor[Float16], "
                          f"Tensor[Float32], Tensor[Float64], Tensor[Int8] ... Tensor[UInt64]}}, but got "
                          f"{type_of(input)} and {type_of(other)}.")
    return apply(_P.Add, [input, other])


def _promoted_is_bool(*xs) -> builtins.bool:
    from pycompile.ops._table import result_dtype
    for x in xs:
        if isinstance(x, Tensor) and x._data.dtype.kind != "b":
            return False    # a non-bool Tensor: nothing promotes it back to bool (the common case)
    try:
        dt = result_dtype([type_of(x) for x in xs])
    except (TypeError, mstype.PromotionError):
        return False        # the op's own type check names the problem
    return dt == "bool" or dt is mstype.bool_


def sub(input, other): return apply(_P.Sub, [input, other])
def mul(input, other): return apply(_P.Mul, [input, other])
def div(input, other, rounding_mode=None):
    if rounding_mode is None:
        return apply(_P.RealDiv, [input, other])
    if rounding_mode == "floor":
        return apply(_P.FloorDiv, [input, other])
    if rounding_mode == "trunc":
        q = apply(_P.RealDiv, [input, other])
        return cast(select(less(q, 0), neg(floor(neg(q))), floor(q)), _dtype_of(input, other))
    raise OpValueError(f"For 'div', rounding_mode must be None, 'floor' or 'trunc', but got {rounding_mode!r}")


def _dtype_of(*xs):
    from pycompile.ops._table import result_dtype
    dt = result_dtype([type_of(x) for x in xs])
    return ScalarDefault.get(dt, dt)


ScalarDefault = {"bool": mstype.bool_, "int": mstype.int64, "float": mstype.float32}

true_divide = div
def floor_divide(input, other): return apply(_P.FloorDiv, [input, other])
def floor_div(input, other): return apply(_P.FloorDiv, [input, other])
def remainder(input, other): return apply(_P.FloorMod, [input, other])
floor_mod = remainder
def pow(input, exponent): return apply(_P.Pow, [input, exponent])
def neg(input): return apply(_P.Neg, [input])
negative = neg
def abs(input): return apply(_P.Abs, [input])
absolute = abs
def square(input): return apply(_P.Square, [input])
def exp(input): return apply(_P.Exp, [input])
def log(input): return apply(_P.Log, [input])
def sqrt(input): return apply(_P.Sqrt, [input])
def rsqrt(input): return apply(_P.Rsqrt, [input])
def sin(input): return apply(_P.Sin, [input])
def cos(input): return apply(_P.Cos, [input])
def tanh(input): return apply(_P.Tanh, [input])
def erf(input): return apply(_P.Erf, [input])
def reciprocal(input): return apply(_P.Reciprocal, [input])
def floor(input): return apply(_P.Floor, [input])
def ceil(input): return apply(_P.Ceil, [input])
def sigmoid(input): return apply(_P.Sigmoid, [input])
def relu(input): return apply(_P.ReLU, [input])
def hardswish(x): return apply(_P.HSwish, [x])
hswish = hardswish
def hardsigmoid(input): return apply(_P.HSigmoid, [input])


def gelu(input_x, approximate="none"):
    """GeLU; approximate='none' (erf, MindSpore's default for ops.gelu) or 'tanh'."""
    if approximate == "tanh":
        return apply(_P.GeLU, [input_x])
    if approximate == "none":
        return apply(_P.GeLUErf, [input_x])
    raise OpValueError(f"For 'gelu', approximate must be 'none' or 'tanh', but got {approximate!r}")


def maximum(input, other): return apply(_P.Maximum, [input, other])
def minimum(input, other): return apply(_P.Minimum, [input, other])


def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise OpValueError("For 'clamp', at least one of min and max must be given")
    out = input
    if min is not None:
        out = maximum(out, min)
    if max is not None:
        out = minimum(out, max)
    return out


clip = clamp


# ---- comparison and logic ------------------------------------------------------------------------
def equal(input, other): return apply(_P.Equal, [input, other])
def ne(input, other): return apply(_P.NotEqual, [input, other])
not_equal = ne
def less(input, other): return apply(_P.Less, [input, other])
lt = less
def less_equal(input, other): return apply(_P.LessEqual, [input, other])
le = less_equal
def greater(input, other): return apply(_P.Greater, [input, other])
gt = greater
def greater_equal(input, other): return apply(_P.GreaterEqual, [input, other])
ge = greater_equal
def logical_and(input, other): return apply(_P.LogicalAnd, [input, other])
def logical_or(input, other): return apply(_P.LogicalOr, [input, other])
def logical_not(input): return apply(_P.LogicalNot, [input])
def isfinite(input): return apply(_P.IsFinite, [input])
def bitwise_and(input, other): return apply(_P.BitwiseAnd, [input, other])
def bitwise_or(input, other): return apply(_P.BitwiseOr, [input, other])
def bitwise_xor(input, other): return apply(_P.BitwiseXor, [input, other])


def bitwise_not(input):
    """`~x` for a bool tensor (a logical not). Integer inputs are refused: MindSpore's `~` on an
    int tensor is a logical not too, NumPy's a bitwise one, and pycompile will not guess."""
    t = _tensor_type("bitwise_not", input)
    if t.dtype.is_bool:
        return logical_not(input)
    raise OpTypeError(f"For 'bitwise_not', only bool tensors are supported (as a logical not), but got {t}")


def all_finite(*inputs):
    """True (a bool 0-d Tensor) when every element of every input is finite: the portable
    overflow check (the float-status ops need the Ascend device)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    result = None
    for x in inputs:
        ok = all(isfinite(x))
        result = ok if result is None else logical_and(result, ok)
    return result


def select(cond, x, y):
    """cond ? x : y, elementwise with broadcasting (MindSpore's ops.select)."""
    return apply(_P.Select, [cond, x, y])


def where(condition, x=None, y=None):
    if x is None or y is None:
        raise OpValueError("For 'where', x and y are required (the one-argument form has a data-dependent shape)")
    return apply(_P.Select, [condition, x, y])


def cast(input, dtype):
    return apply(_P.Cast, [input], {"dtype": _dtype_arg("Cast", dtype)})


_mixed.CAST[0] = cast       # the casts Cell.to_float inserts (ops/_mixed.py)


# ---- reductions ----------------------------------------------------------------------------------
def _axis_attr(axis):
    if axis is None:
        return None
    if isinstance(axis, list):
        return tuple(axis)
    if isinstance(axis, (Symbolic,)) or hasattr(axis, "_data"):
        # an axis given as an integer Tensor (MindSpore's reductions take one): its value; in graph
        # code a graph input's value, the graph compiling once per value (tracing.needs_value)
        v = axis
        while isinstance(v, Symbolic):
            v = getattr(v, "primal", None)
        if v is None:
            known = needs_value(axis, "the reduction's axis")
            if known is None:
                raise OpTypeError("'axis' must be an int or a tuple of ints known at compile time")
            a = np.asarray(known)
        else:
            a = np.asarray(v._data)
        if a.dtype.kind not in "iu":
            raise OpTypeError(f"'axis' must be an int or a tuple of ints, but got a Tensor of {axis.dtype}")
        return int(a) if a.ndim == 0 else (tuple(int(i) for i in a.reshape(-1)) or None)
    return axis


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """MindSpore's ops.sum: bool and integer inputs sum in int64 unless `dtype` says otherwise
    (the ReduceSum primitive itself keeps the input dtype)."""
    dt = getattr(input, "dtype", None)    # a Tensor's dtype without building its TensorType
    if dtype is not None:
        input = cast(input, dtype)
    elif isinstance(dt, mstype.DType) and dt.kind in "biu" and dt is not mstype.int64:
        input = cast(input, mstype.int64)
    return apply(_P.ReduceSum, [input], {"axis": _axis_attr(dim), "keep_dims": builtins.bool(keepdim)})


# ops.sum and Tensor.sum are the wheel's SumExt, on its amp 'auto' black list (float32); library
# code calls `sum` (the ReduceSum primitive, unlisted: ops.norm of float16 stays float16), as the
# wheel's own compositions do
_sum_public = _mixed.amp_class("full")(sum)


def mean(input, axis=None, keep_dims=False):
    return apply(_P.ReduceMean, [input], {"axis": _axis_attr(axis), "keep_dims": builtins.bool(keep_dims)})


def amax(input, axis=None, keepdims=False):
    return apply(_P.ReduceMax, [input], {"axis": _axis_attr(axis), "keep_dims": builtins.bool(keepdims)})


def amin(input, axis=None, keepdims=False):
    return apply(_P.ReduceMin, [input], {"axis": _axis_attr(axis), "keep_dims": builtins.bool(keepdims)})


def all(input, axis=None, keep_dims=False):
    return apply(_P.ReduceAll, [input], {"axis": _axis_attr(axis), "keep_dims": builtins.bool(keep_dims)})


def any(input, axis=None, keep_dims=False):
    return apply(_P.ReduceAny, [input], {"axis": _axis_attr(axis), "keep_dims": builtins.bool(keep_dims)})


def argmax(input, dim=None, keepdim=False):
    return apply(_P.Argmax, [input], {"axis": dim, "keep_dims": builtins.bool(keepdim)})


def softmax(input, axis=-1):
    return apply(_P.Softmax, [input], {"axis": tuple(axis) if isinstance(axis, list) else axis})


def log_softmax(logits, axis=-1):
    return apply(_P.LogSoftmax, [logits], {"axis": tuple(axis) if isinstance(axis, list) else axis})


def layer_norm(x, gamma, beta, begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-7):
    return apply(_P.LayerNorm, [x, gamma, beta],
                 {"begin_norm_axis": begin_norm_axis, "begin_params_axis": begin_params_axis, "epsilon": epsilon})


def addn(x):
    return apply(_P.AddN, [_tensor_seq("AddN", x)])


# ---- layout ------------------------------------------------------------------------------------
def _static_shape(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    if isinstance(shape, (Symbolic, Tensor)) and getattr(shape, "ndim", 0) == 1:
        known = _known_ints(shape)       # a shape Tensor (in graph code: compiled per value of it)
        if known is not None:
            return known
    if isinstance(shape, (tuple, list)):
        for d in shape:
            if not isinstance(d, (int, np.integer)) or isinstance(d, builtins.bool):
                raise OpTypeError(f"a shape must be a tuple of ints known at compile time, but got {shape!r}")
        return tuple(int(d) for d in shape)
    raise OpTypeError(f"a shape must be a tuple of ints known at compile time, but got {shape!r}")


def reshape(input, shape):
    shape = _static_shape(shape)
    if getattr(input, "run_time_length", False):    # Unique's / masked_select's values in graph code
        return input.reshape_static(shape)
    return apply(_P.Reshape, [input], {"shape": shape})


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """MindSpore's ops.flatten: keeps dims before start_dim (default 1: the batch)."""
    shape = _tensor_type("flatten", input).shape
    if not shape:
        return reshape(input, (1,))
    nd = len(shape)
    if nd == 1 and start_dim == 1 and end_dim == -1:
        return input      # MindSpore: the default start_dim of a 1-D tensor leaves it as it is
    s, e = norm_axis("flatten", start_dim, nd), norm_axis("flatten", end_dim, nd)
    if s > e:
        raise OpValueError(f"For 'flatten', start_dim {start_dim} must not be after end_dim {end_dim}")
    mid = 1
    for d in shape[s:e + 1]:
        mid *= d
    return reshape(input, shape[:s] + (mid,) + shape[e + 1:])


def transpose(input, input_perm=None):
    perm = _int_tuple("Transpose", "input_perm", input_perm) if input_perm is not None else None
    return apply(_P.Transpose, [input], {"perm": perm})


permute = transpose


def swapaxes(input, axis0, axis1):
    nd = _tensor_type("swapaxes", input).ndim
    perm = list(range(nd))
    a, b = norm_axis("swapaxes", axis0, nd), norm_axis("swapaxes", axis1, nd)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(input, tuple(perm))


def expand_dims(input_x, axis):
    shape = _tensor_type("ExpandDims", input_x, "input_x").shape
    ax = norm_axis("ExpandDims", axis, len(shape), extra=1)
    return reshape(input_x, shape[:ax] + (1,) + shape[ax:])


unsqueeze = expand_dims


def squeeze(input, axis=None):
    """The axes of size 1 removed (all of them, or those of `axis`); as in MindSpore 2.10, a listed
    axis whose size is not 1 is left as it is."""
    shape = _tensor_type("Squeeze", input).shape
    if axis is None:
        return reshape(input, tuple(d for d in shape if d != 1))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = {norm_axis("Squeeze", a, len(shape)) for a in axes}
    axes = {a for a in axes if shape[a] == 1}
    if not axes:
        return input
    return reshape(input, tuple(d for i, d in enumerate(shape) if i not in axes))


def broadcast_to(input, shape):
    return apply(_P.BroadcastTo, [input], {"shape": _static_shape(shape)})


def tile(input, dims):
    shape = _tensor_type("Tile", input).shape
    dims = _static_shape(dims)
    if builtins.any(d < 0 for d in dims):
        raise OpValueError(f"For 'Tile', 'dims' must not contain negative numbers, but got {list(dims)}")
    if len(dims) < len(shape):
        dims = (1,) * (len(shape) - len(dims)) + dims
    shape = (1,) * (len(dims) - len(shape)) + tuple(shape)
    x = reshape(input, tuple(v for d in shape for v in (1, d)))
    x = broadcast_to(x, tuple(v for r, d in zip(dims, shape) for v in (r, d)))
    return reshape(x, tuple(r * d for r, d in zip(dims, shape)))


def concat(tensors, axis=0):
    whole = stacked_whole(tensors)
    if whole is not None and _row_rank(whole) >= 1 and -_row_rank(whole) <= axis < _row_rank(whole):
        # rows a loop wrote into one buffer: their concatenation is that buffer, reshaped
        r = _row_rank(whole)
        a = axis % r
        shape = whole.shape[1:]
        moved = _move_first(whole, a)
        return reshape(moved, shape[:a] + (len(tensors) * shape[a],) + shape[a + 1:])
    return apply(_P.Concat, [_tensor_seq("Concat", tensors)], {"axis": axis})


cat = concat


def stack(tensors, axis=0):
    whole = stacked_whole(tensors)
    if whole is not None and -_row_rank(whole) - 1 <= axis <= _row_rank(whole):
        return _move_first(whole, axis % (_row_rank(whole) + 1))   # the loop's buffer is the stack
    return apply(_P.Stack, [_tensor_seq("Stack", tensors)], {"axis": axis})


def _row_rank(whole) -> int:
    return len(whole.shape) - 1


def _move_first(whole, a: int):
    """`whole` with its first axis moved to position a (its rows stacked along axis a)."""
    if a == 0:
        return whole
    perm = tuple(range(1, a + 1)) + (0,) + tuple(range(a + 1, len(whole.shape)))
    return transpose(whole, perm)


def gather(input_params, input_indices, axis, batch_dims=0):
    if batch_dims:
        raise OpValueError("For 'gather', batch_dims other than 0 is not supported")
    return apply(_P.Gather, [input_params, input_indices], {"axis": axis})


def matmul(input, other):
    """NumPy-style matmul: 1-D operands are promoted and the added axis removed, >2-D batch."""
    a, b = _tensor_type("matmul", input), _tensor_type("matmul", other, "other")
    for v in (input, other):
        if getattr(v, "run_time_length", False):    # its type's length is only a bound
            raise v.refused("MatMul")
    if a.ndim == 0 or b.ndim == 0:
        raise OpValueError(f"For 'matmul', inputs must not be 0-d; use mul (got shapes {list(a.shape)} "
                           f"and {list(b.shape)})")
    if a.dtype is not b.dtype:
        raise OpTypeError(f"For 'MatMulExt', the type of 'x2' should be same as 'x1', but got 'x1' with type "
                          f"Tensor[{a.dtype}] and 'x2' with type Tensor[{b.dtype}].")
    k2 = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if a.shape[-1] != k2:
        if a.ndim == 1 and b.ndim == 1:
            raise OpValueError(f"For 'MatMul' the input dimensions must be equal, but got 'x1_col': {a.shape[-1]} "
                               f"and 'x2_row': {k2}.")
        raise OpRuntimeError(f"For 'MatMulExt' op, shape1[-1] must be equal to shape2[-2], but got {a.shape[-1]} "
                             f"and {k2}.")
    x = reshape(input, (1,) + a.shape) if a.ndim == 1 else input
    y = reshape(other, b.shape + (1,)) if b.ndim == 1 else other
    xs, ys = type_of(x).shape, type_of(y).shape
    if len(xs) == 2 and len(ys) == 2:
        out = apply(_P.MatMul, [x, y])
    else:
        out = apply(_P.BatchMatMul, [x, y])
    shape = type_of(out).shape
    if a.ndim == 1:
        shape = shape[:-2] + shape[-1:]
    if b.ndim == 1:
        shape = shape[:-1]
    return reshape(out, shape) if shape != type_of(out).shape else out


def mm(input, mat2):
    return apply(_P.MatMul, [input, mat2])


def bmm(input_x, mat2):
    return apply(_P.BatchMatMul, [input_x, mat2])


@_mixed.amp_class("low")       # amp_level='auto' (ops/amp_auto.py)
def dense(input, weight, bias=None):
    """input @ weight.T + bias (MindSpore's ops.dense)."""
    shape = _tensor_type("dense", input).shape
    wshape = _tensor_type("dense", weight, "weight").shape
    if not shape or len(wshape) not in (1, 2):
        raise OpValueError(f"For 'dense', 'input' must be at least 1-D and 'weight' 1-D or 2-D, but got shapes "
                           f"{list(shape)} and {list(wshape)}")
    if len(wshape) == 1:        # one output unit, its axis dropped (MindSpore: (3,) . (3,) + b is 0-d)
        out = sum(mul(input, weight), -1)
        return add(out, bias) if bias is not None else out
    x2 = reshape(input, (-1, shape[-1])) if len(shape) != 2 else input
    out = apply(_P.MatMul, [x2, weight], {"transpose_a": False, "transpose_b": True})
    if bias is not None:
        out = add(out, bias)
    if len(shape) != 2:
        out = reshape(out, shape[:-1] + (wshape[0],))
    return out


# ---- creation ----------------------------------------------------------------------------------
def fill(type, shape, value):
    return apply(_P.Fill, [], {"shape": _static_shape(shape), "value": value, "dtype": _dtype_arg("Fill", type)})


def full(size, fill_value, *, dtype=None):
    """MindSpore 2.10's ops.full: without `dtype` the result is Int64 whatever the value
    (documented: full((2, 3), 1.2) is [[1, 1, 1], ...]; True gives ones)."""
    if not isinstance(fill_value, (builtins.bool, int, float, np.generic)):
        raise OpTypeError(f"For 'Fill', 'fill_value' must be a number, but got {fill_value!r}")
    return fill(mstype.int64 if dtype is None else dtype, size, fill_value)


def zeros(size, dtype=None):
    return fill(dtype or mstype.float32, size, 0)


def ones(size, dtype=None):
    return fill(dtype or mstype.float32, size, 1)


def zeros_like(input, *, dtype=None):
    t = _tensor_type("ZerosLike", input)
    return fill(dtype or t.dtype, t.shape, 0)


def ones_like(input, *, dtype=None):
    t = _tensor_type("OnesLike", input)
    return fill(dtype or t.dtype, t.shape, 1)


def full_like(input, fill_value, *, dtype=None):
    t = _tensor_type("full_like", input)
    return fill(dtype or t.dtype, t.shape, fill_value)


# ---- indexing ------------------------------------------------------------------------------------
def getitem(x, index):
    """x[index] for ints, slices, None, Ellipsis and (one) integer tensor or list (a gather)."""
    t = _tensor_type("getitem", x)
    if not isinstance(index, tuple):
        index = (index,)
    n_ellipsis = builtins.sum(1 for i in index if i is Ellipsis)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if consumed > t.ndim:
        raise IndexError(f"too many indices for a tensor of dimension {t.ndim}")
    expanded = []
    for i in index:
        if i is Ellipsis:
            expanded.extend([slice(None)] * (t.ndim - consumed))
        else:
            expanded.append(i)
    if not n_ellipsis:
        expanded.extend([slice(None)] * (t.ndim - consumed))

    begin, end, strides = [], [], []
    final_shape = []          # shape after the whole subscript
    gathers = []              # (axis in the sliced tensor, index value)
    dim = 0
    for i in expanded:
        if i is None:
            final_shape.append(1)
            continue
        size = t.shape[dim]
        if isinstance(i, slice):
            start, stop, step = _static_slice(i, size)
            begin.append(start), end.append(stop), strides.append(step)
            final_shape.append(len(range(start, stop, step)))
        elif _is_bool_index(i):
            raise IndexError("boolean mask indices are not supported: the result's shape would depend on the "
                             "data; use ops.select (or ops.where) to keep the shape")
        elif _is_index_tensor(i):
            idx = _as_tensor(i) if isinstance(i, list) else i
            gathers.append((dim, idx))
            if len(gathers) > 1 and builtins.any(getattr(type_of(g), "shape", ()) != () for _, g in gathers):
                raise IndexError("only one tensor index per subscript is supported (or several 0-d ones, "
                                 "such as loop indices)")
            begin.append(0), end.append(size), strides.append(1)
            final_shape.extend(getattr(type_of(idx), "shape", ()))
        else:
            k = _static_int(i)
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for axis {dim} with size {size}")
            k %= size
            begin.append(k), end.append(k + 1), strides.append(1)
        dim += 1

    out = x
    if (begin, end, strides) != ([0] * t.ndim, list(t.shape), [1] * t.ndim):
        out = apply(_P.StridedSlice, [x], {"begin": tuple(begin), "end": tuple(end), "strides": tuple(strides)})
    for axis, idx in reversed(gathers):       # from the last: each 0-d index removes its axis
        out = gather(out, idx, axis)
    if tuple(final_shape) != type_of(out).shape:
        out = reshape(out, tuple(final_shape))
    return out


def _as_tensor(v):
    from pycompile.common.tensor import Tensor
    return Tensor(v, mstype.int64)


def _is_bool_index(i) -> builtins.bool:
    t = getattr(i, "_abstract", None)
    if isinstance(t, TensorType):
        return t.dtype.is_bool
    return isinstance(i, list) and builtins.any(isinstance(v, (builtins.bool, np.bool_)) for v in i)


def _is_index_tensor(i) -> builtins.bool:
    if isinstance(i, list):
        return True
    if isinstance(i, (builtins.bool,)):
        return False
    t = getattr(i, "_abstract", None)
    if isinstance(i, Symbolic) and isinstance(t, ScalarType) and t.kind == "int":
        return True     # a runtime int (a loop index): a gather, so the loop stays a loop
    return isinstance(t, TensorType) and (t.ndim > 0 or isinstance(i, Symbolic))


def _static_int(i) -> int:
    if isinstance(i, (int, np.integer)) and not isinstance(i, builtins.bool):
        return int(i)
    t = getattr(i, "_abstract", None)
    if isinstance(t, TensorType) and t.ndim == 0 and hasattr(i, "_data"):
        return int(i._data)
    if isinstance(i, Symbolic):
        # a value known only at run time: the tracer says so (graph loops then unroll)
        return int(i.__index__())
    raise IndexError(f"tensor indices must be ints, slices, None, Ellipsis or integer tensors, got {i!r}")


def _static_slice(s: slice, size: int):
    bounds = []
    for v in (s.start, s.stop, s.step):
        if v is not None and not isinstance(v, (int, np.integer)):
            t = getattr(v, "_abstract", None)
            if isinstance(v, Symbolic) and isinstance(t, ScalarType) and t.kind == "int":
                # a runtime int (a loop index): the tracer says so, and a graph loop then unrolls
                # (nn.Unfold's patch loop in GRAPH_MODE)
                v = int(v.__index__())
            elif isinstance(t, TensorType) and t.ndim == 0 and t.dtype.is_int and hasattr(v, "_data"):
                v = int(v._data)     # a concrete 0-d integer Tensor (PyNative)
            else:
                raise IndexError(f"slice bounds must be ints known at compile time, got {s!r}")
        bounds.append(v)
    if bounds[2] == 0:
        raise IndexError("slice step cannot be zero")
    start, stop, step = slice(*bounds).indices(size)
    if not len(range(start, stop, step)):
        return 0, 0, 1          # empty: slice(-4, None, -3).indices(2) starts at -1, "before index 0"
    return start, stop, step


# ---- effects -----------------------------------------------------------------------------------
def assign(variable, value):
    """Write `value` into the Parameter `variable` (in place); returns the Parameter."""
    return apply(_P.Assign, [variable, value])


def depend(value, expr):
    """Returns `value`; in graphs, whatever consumes it runs after `expr`. `expr` may be a tuple
    or list (of tensors, nested): `value` then waits for each (as MindSpore's depend accepts any
    expression); Python numbers, bools and None order nothing."""
    if isinstance(expr, (tuple, list)):
        for e in expr:
            value = depend(value, e)
        return value
    if expr is None or isinstance(expr, (bool, str)):
        return value
    return apply(_P.Depend, [value, expr])


def tensor_move(x):
    return apply(_P.TensorMove, [x])


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == __name__]


BUILTIN_NAMED: dict = {}     # ops functions named like a Python builtin (slice, range, ...): ops/__init__.py


def __getattr__(name):
    if name in BUILTIN_NAMED:
        return BUILTIN_NAMED[name]
    from pycompile.common.missing import missing
    raise missing("ops.functional", __name__, name)
