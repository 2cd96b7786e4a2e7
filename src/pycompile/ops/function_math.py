"""The everyday math of model code, as MindSpore 2.10 spells it: the elementwise functions of
ops/defs/math.py, NaN handling and clipping, reductions with MindSpore's dtype rules and index
outputs (prod, max / min with indices, argmin, reduce_*), cumulative sums and products, sorting
and top-k, norms, and the small products (outer, inner, mv, tensor_dot, baddbmm, einsum).

Index dtypes follow MindSpore: sort / argsort / topk give Int32 indices, argmin Int32, ops.max /
ops.min (values, Int64 indices) - always a pair, even over the whole tensor.
"""
from __future__ import annotations

import builtins

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType, type_of
from pycompile.ops import prims as P
from pycompile.ops import _mixed
from pycompile.ops import functional as F
from pycompile.ops._table import OPS, OpTypeError, OpValueError, apply, norm_axes, norm_axis


def _u(name):
    """The functional form of a one-input op of the table."""
    op = OPS[name]

    def fn(input):
        return apply(op, [input])
    return fn


# ---- elementwise -------------------------------------------------------------------------------------
log1p, expm1, erfc, log2 = _u("Log1p"), _u("Expm1"), _u("Erfc"), _u("Log2")
tan, asin, acos, atan = _u("Tan"), _u("Asin"), _u("ACos"), _u("Atan")
sinh, cosh, asinh, acosh, atanh = _u("Sinh"), _u("Cosh"), _u("Asinh"), _u("Acosh"), _u("Atanh")
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
isnan, isinf, trunc, sign = _u("IsNan"), _u("IsInf"), _u("Trunc"), _u("Sign")
for _f, _n in ((log1p, "log1p"), (expm1, "expm1"), (erfc, "erfc"), (log2, "log2"), (tan, "tan"), (asin, "asin"),
               (acos, "acos"), (atan, "atan"), (sinh, "sinh"), (cosh, "cosh"), (asinh, "asinh"), (acosh, "acosh"),
               (atanh, "atanh"), (isnan, "isnan"), (isinf, "isinf"), (trunc, "trunc"), (sign, "sign")):
    _f.__name__ = _f.__qualname__ = _n
    _f.__module__ = __name__


def atan2(input, other):
    return apply(P.Atan2, [input, other])


arctan2 = atan2


def fmod(input, other):
    """The truncated remainder (C's fmod; the Mod primitive): -4 fmod 3 is -1."""
    return apply(P.Mod, [input, other])


def round(input, *, decimals=0):
    """Round half to even; MindSpore's CPU kernel takes only decimals=0."""
    if decimals != 0:
        raise OpValueError(f"For 'Round', only 'decimals' 0 is supported on CPU, but got {decimals}")
    return apply(P.Round, [input])


_INV_INTS = ("Int16", "Int32", "Int64")


def inv(x):
    """1 / x. On int16 / int32 / int64 tensors the integer reciprocal MindSpore's CPU kernel
    computes: 1 / 1 = 1, 1 / -1 = -1, 1 / 0 = the dtype's lowest value, 0 elsewhere."""
    t = F._tensor_type("Inv", x, "x")
    if not t.dtype.is_int:
        return F.reciprocal(x)
    if t.dtype.name not in _INV_INTS:
        raise OpTypeError(f"For primitive[Inv], the input argument[x] must be a type of {{Tensor[Float16], "
                          f"Tensor[Float32], Tensor[Float64], Tensor[Int16], Tensor[Int32], Tensor[Int64]}}, "
                          f"but got {t}.")
    zero = F.zeros_like(x)
    out = F.select(F.equal(x, 1), F.ones_like(x), zero)
    out = F.select(F.equal(x, -1), F.neg(F.ones_like(x)), out)
    return F.select(F.equal(x, 0), F.add(zero, int(np.iinfo(t.dtype.np).min)), out)


def invert(x):
    """Bitwise NOT of an integer tensor (MindSpore's Invert): x XOR all-ones."""
    t = F._tensor_type("Invert", x, "x")
    if not t.dtype.is_int:
        raise OpTypeError(f"For primitive[Invert], the input argument[x] must be a type of {{Tensor[Int16], "
                          f"Tensor[Int32], Tensor[Int64], Tensor[Int8], Tensor[UInt16], Tensor[UInt32], "
                          f"Tensor[UInt64], Tensor[UInt8]}}, but got {t}.")
    return F.bitwise_xor(x, F.sub(F.zeros_like(x), 1))   # 0 - 1 wraps to all ones, signed or not


def tensor_pow(input, exponent):
    return F.pow(input, exponent)


def tensor_mul(input, other):
    return F.mul(input, other)


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """NaN -> nan (0.0), +inf -> posinf (the dtype's largest value), -inf -> neginf (its lowest)."""
    t = F._tensor_type("NanToNum", input)
    if not t.dtype.is_float:
        raise OpTypeError(f"Select CPU operator[NanToNum] fail! Unsupported data type! ({t})")
    info = mstype.finfo(t.dtype.np)
    nan = 0.0 if nan is None else float(nan)
    posinf = float(info.max) if posinf is None else float(posinf)
    neginf = float(info.min) if neginf is None else float(neginf)
    out = F.select(F.equal(input, float("inf")), posinf, input)
    out = F.select(F.equal(input, float("-inf")), neginf, out)
    return F.select(isnan(input), nan, out)


def _axis_or_all(axis):
    return None if isinstance(axis, tuple) and not axis else F._axis_attr(axis)


def reduce_sum(x, axis=()):
    """The ReduceSum primitive: the input dtype is kept."""
    return apply(P.ReduceSum, [x], {"axis": _axis_or_all(axis), "keep_dims": False})


def reduce_mean(x, axis=()):
    return F.mean(x, _axis_or_all(axis))


def reduce_max(x, axis=()):
    return F.amax(x, _axis_or_all(axis))


def reduce_min(x, axis=()):
    return F.amin(x, _axis_or_all(axis))


def reduce_prod_keep(x, axis=None, keep_dims=False):
    """The ReduceProd primitive: the input dtype is kept."""
    return apply(P.ReduceProd, [x], {"axis": _axis_or_all(axis), "keep_dims": builtins.bool(keep_dims)})


def _widen_int(x, dtype):
    """MindSpore's prod / cumprod: bool and integers narrower than int64 compute in int64."""
    if dtype is not None:
        return F.cast(x, dtype)
    t = F._tensor_type("prod", x)
    if t.dtype.kind in "biu" and t.dtype is not mstype.int64:
        return F.cast(x, mstype.int64)
    return x


@_mixed.amp_class("full")       # amp_level='auto' (ops/amp_auto.py)
def prod(input, axis=None, keep_dims=False, dtype=None):
    return reduce_prod_keep(_widen_int(input, dtype), axis, keep_dims)


def _max_min(name: str, input, axis, keepdims, initial, where, values, indices, cmp):
    """MindSpore's ops.max / ops.min: over the whole tensor (axis None) the index is always 0
    (MindSpore returns Tensor(0) there); `initial` joins every element through `cmp`, and
    `where` (with `initial`) replaces the masked-out elements by it first."""
    t = F._tensor_type(name, input)
    zero = _tensor_cls()(0, mstype.int64)
    if not t.shape:
        return input, zero
    if axis is None:
        return values(input), zero
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, builtins.bool):
        raise OpTypeError(f"For '{name}', 'axis' must be int, but got {type(axis)}")
    if initial is not None:
        init = F.full_like(input, initial)
        input = cmp(input, init)
        if where is not None:
            input = F.select(F.broadcast_to(where, t.shape), input, init)
    elif where is not None:
        raise OpValueError("initial value must be provided for where masks")
    keep = builtins.bool(keepdims)
    return values(input, axis, keep), indices(input, axis, keep)


def _tensor_cls():
    from pycompile.common.tensor import Tensor
    return Tensor


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, Int64 indices of the first maximum) along axis."""
    return _max_min("max", input, axis, keepdims, initial, where, F.amax, F.argmax, F.maximum)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    return _max_min("min", input, axis, keepdims, initial, where, F.amin, argmin_int64, F.minimum)


def argmin_int64(input, axis=None, keepdims=False):
    return apply(P.Argmin, [input], {"axis": axis, "keep_dims": builtins.bool(keepdims)})


def argmin(input, axis=None, keepdims=False):
    """The index of the first minimum (Int32, as MindSpore's argmin); axis None: flat."""
    return F.cast(argmin_int64(input, axis, keepdims), mstype.int32)


# ---- scans, sorting ---------------------------------------------------------------------------------
def scan(name: str, x, axis, exclusive=False, reverse=False):
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, builtins.bool):
        raise OpTypeError(f"For '{name}', 'axis' must be an int, but got {axis!r}")
    return apply(OPS[name], [x], {"axis": int(axis), "exclusive": builtins.bool(exclusive),
                                  "reverse": builtins.bool(reverse)})


def cumsum(x, axis, dtype=None):
    """Running sums along axis, in x's dtype (Int32 stays Int32) unless `dtype` is given."""
    return scan("CumSum", x if dtype is None else F.cast(x, dtype), axis)


def cumprod(input, dim, dtype=None):
    """Running products along dim; integers narrower than int64 compute in int64."""
    return scan("CumProd", _widen_int(input, dtype), dim)


def argsort(input, axis=-1, descending=False):
    """The stable ordering of `input` along axis, as Int32 indices."""
    return apply(P.Argsort, [input], {"axis": axis, "descending": builtins.bool(descending)})


def _axis_of(x, axis) -> int:
    t = F._tensor_type("sort", x)
    return norm_axis("Sort", axis, builtins.max(t.ndim, 1))


def sort(input_x, axis=-1, descending=False):
    """(sorted values, Int32 indices) along axis; stable, NaN last ascending."""
    idx = argsort(input_x, axis, descending)
    if not F._tensor_type("Sort", input_x).ndim:
        return input_x, idx
    return apply(P.GatherD, [input_x, idx], {"axis": _axis_of(input_x, axis)}), idx


def topk(input, k, dim=None, largest=True, sorted=True):
    """(the k largest - or smallest - values along dim (default: the last axis), Int32 indices),
    in order; with sorted=False in the order of their indices (so k = the whole axis gives the
    input back, as MindSpore's does; below that MindSpore's order is its heap's)."""
    axis = -1 if dim is None else dim
    idx = apply(P.TopKIndices, [input], {"k": k, "axis": axis, "largest": builtins.bool(largest)})
    if not F._tensor_type("TopK", input).ndim:
        return input, idx
    if not sorted:
        ax = _axis_of(input, axis)
        idx = apply(P.GatherD, [idx, argsort(idx, ax, False)], {"axis": ax})
    return apply(P.GatherD, [input, idx], {"axis": _axis_of(input, axis)}), idx


# ---- norms ----------------------------------------------------------------------------------------
def _vector_norm(x, p, axes, keepdim):
    ax = axes if axes else None
    if p == 2:
        return F.sqrt(F.sum(F.square(x), ax, keepdim))
    if p == float("inf"):
        return F.amax(F.abs(x), ax, keepdim)
    if p == float("-inf"):
        return F.amin(F.abs(x), ax, keepdim)
    if p == 0:
        return F.sum(F.cast(F.ne(x, 0), type_of(x).dtype), ax, keepdim)
    if p == 1:
        return F.sum(F.abs(x), ax, keepdim)
    return F.pow(F.sum(F.pow(F.abs(x), float(p)), ax, keepdim), 1.0 / p)


def _matrix_norm(x, ord, axes, keepdim):
    r, c = axes
    if ord == "fro":
        return F.sqrt(F.sum(F.square(x), (r, c), keepdim))
    if ord in (1, -1):
        sums = F.sum(F.abs(x), r, True)
        out = (F.amax if ord == 1 else F.amin)(sums, c, True)
    elif ord in (float("inf"), float("-inf")):
        sums = F.sum(F.abs(x), c, True)
        out = (F.amax if ord > 0 else F.amin)(sums, r, True)
    elif ord in (2, -2, "nuc"):
        return _singular_norm(x, ord, r, c, keepdim)
    else:
        raise OpValueError("For norm, the ord mode must be in [2, -2, 1, -1, float('inf'), -float('inf'), 'fro', "
                           f"'nuc', None] for matrices, but got {ord}.")
    return out if keepdim else F.squeeze(out, (r, c))


def _singular_norm(x, ord, r, c, keepdim):
    """ord 2 / -2 / 'nuc': the largest / smallest / sum of the singular values of the matrices
    over axes (r, c) (the Svd op; float16 computes in float32). The result is Float32 whatever
    the input's float dtype, as MindSpore 2.10 returns it (float64 computes in float64 first)."""
    t = type_of(x)
    nd = t.ndim
    rest = tuple(d for d in builtins.range(nd) if d not in (r, c))
    y = F.transpose(x, rest + (r, c)) if rest + (r, c) != tuple(builtins.range(nd)) else x
    if t.dtype == mstype.float16:
        y = F.cast(y, mstype.float32)
    s = apply(P.Svd, [y], {"part": "s"})
    out = F.sum(s, -1) if ord == "nuc" else (F.amax if ord == 2 else F.amin)(s, -1)
    if t.dtype != mstype.float32:
        out = F.cast(out, mstype.float32)
    if keepdim:
        for d in sorted((r, c)):
            out = F.expand_dims(out, d)
    return out


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):
    """MindSpore's ops.matrix_norm: the matrix norm over the two axes `axis` ('fro', 'nuc', 1,
    -1, 2, -2, inf, -inf), batched over the others (2.10 spells them axis / keepdims here,
    dim / keepdim in ops.norm)."""
    dim, keepdim = axis, keepdims
    x = A if dtype is None else F.cast(A, dtype)
    t = F._tensor_type("matrix_norm", x, "A")
    if not t.dtype.is_float:
        raise OpTypeError(f"For 'matrix_norm', the input must be a float Tensor, but got {t}")
    if t.ndim < 2:
        raise OpValueError(f"For 'matrix_norm', the input must have at least 2 dimensions, but got shape "
                           f"{list(t.shape)}")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise OpValueError(f"For 'matrix_norm', 'axis' must be a tuple of two ints, but got {dim}")
    axes = tuple(norm_axis("matrix_norm", d, t.ndim) for d in dim)
    return _matrix_norm(x, ord, axes, keepdim)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """MindSpore's ops.norm (torch.linalg.norm's rules): with dim None and ord None the 2-norm of
    the flattened tensor; a vector norm over one dim; a matrix norm ('fro', 1, -1, inf, -inf)
    over two dims, or of a 2-D input when ord is given."""
    x = A if dtype is None else F.cast(A, dtype)
    t = F._tensor_type("norm", x, "A")
    if not t.dtype.is_float:
        raise OpTypeError(f"For 'norm', the input must be a float Tensor, but got {t}")
    if isinstance(dim, (int, np.integer)):
        dim = (int(dim),)
    if dim is None:
        if ord is None:
            return _vector_norm(x, 2, tuple(builtins.range(t.ndim)), keepdim)
        if t.ndim == 1:
            return _vector_norm(x, ord, (0,), keepdim)
        if t.ndim == 2:
            return _matrix_norm(x, ord, (0, 1), keepdim)
        raise OpValueError(f"For 'norm', an input of rank {t.ndim} needs 'dim' when 'ord' is given")
    axes = tuple(norm_axis("norm", d, t.ndim) for d in dim)
    if len(axes) == 1:
        if isinstance(ord, str):
            raise OpValueError(f"For 'norm', ord {ord!r} is a matrix norm, but 'dim' has one entry")
        return _vector_norm(x, 2 if ord is None else ord, axes, keepdim)
    if len(axes) == 2:
        return _matrix_norm(x, "fro" if ord is None else ord, axes, keepdim)
    raise OpValueError(f"For 'norm', 'dim' must have one or two entries, but got {dim}")


def lp_norm(input, axis, p=2, keep_dims=False, epsilon=1e-12):
    """The LpNorm primitive: (sum |x|^p)^(1/p) over axis."""
    t = F._tensor_type("LpNorm", input)
    axes = norm_axes("LpNorm", tuple(axis) if isinstance(axis, (tuple, list)) else axis, t.ndim)
    return _vector_norm(input, p, axes, keep_dims)


def l2_normalize(x, axis=0, epsilon=1e-4):
    """The L2Normalize primitive: x / sqrt(max(sum(x^2), epsilon)) over axis."""
    t = F._tensor_type("L2Normalize", x)
    axes = norm_axes("L2Normalize", tuple(axis) if isinstance(axis, (tuple, list)) else axis, t.ndim)
    return F.div(x, F.sqrt(F.maximum(F.sum(F.square(x), axes, True), float(epsilon))))


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    num = F.sum(F.mul(x1, x2), dim)
    den = F.mul(norm(x1, dim=dim), norm(x2, dim=dim))
    return F.div(num, F.maximum(den, float(eps)))


# ---- small products ----------------------------------------------------------------------------------
def outer(input, vec2):
    a, b = F._tensor_type("outer", input), F._tensor_type("outer", vec2, "vec2")
    if a.ndim != 1 or b.ndim != 1:
        raise OpValueError(f"For 'outer', both inputs must be 1-D, but got shapes {list(a.shape)} and {list(b.shape)}")
    return F.mul(F.reshape(input, (a.shape[0], 1)), F.reshape(vec2, (1, b.shape[0])))


def ger(input, vec2):
    """MindSpore's Ger: the outer product of two 1-D float tensors of one dtype."""
    a, b = F._tensor_type("Ger", input, "x1"), F._tensor_type("Ger", vec2, "x2")
    for arg, t in (("x1", a), ("x2", b)):
        if not t.dtype.is_float:
            raise OpTypeError(f"For primitive[Ger], the input argument[{arg}] must be a type of {{Tensor[Float16], "
                              f"Tensor[Float32], Tensor[Float64]}}, but got {t}.")
    if a.dtype != b.dtype:
        raise OpTypeError(f"For 'Ger', the dtypes of 'x1' and 'x2' must be the same, but got {a.dtype} and {b.dtype}")
    return outer(input, vec2)


def inner(input, other):
    """Sum over the last axes: input (..., k), other (..., k) -> input.shape[:-1] + other.shape[:-1]."""
    a, b = F._tensor_type("inner", input), F._tensor_type("inner", other, "other")
    if a.ndim == 0 or b.ndim == 0:
        return F.mul(input, other)
    if a.shape[-1] != b.shape[-1]:
        raise OpValueError(f"For 'inner', the last dimensions must match, but got shapes {list(a.shape)} and "
                           f"{list(b.shape)}")
    return tensor_dot(input, other, ((a.ndim - 1,), (b.ndim - 1,)))


def mv(mat, vec):
    m, v = F._tensor_type("mv", mat, "mat"), F._tensor_type("mv", vec, "vec")
    if m.ndim != 2 or v.ndim != 1:
        raise OpValueError(f"For 'mv', 'mat' must be 2-D and 'vec' 1-D, but got shapes {list(m.shape)} and "
                           f"{list(v.shape)}")
    return F.matmul(mat, vec)


def _contract(a, b, ca: tuple, cb: tuple):
    """a and b contracted over their axes ca / cb (pairwise): the free axes of a, then of b."""
    ta, tb = type_of(a), type_of(b)
    fa = [d for d in builtins.range(ta.ndim) if d not in ca]
    fb = [d for d in builtins.range(tb.ndim) if d not in cb]
    for i, j in zip(ca, cb):
        if ta.shape[i] != tb.shape[j]:
            raise OpValueError(f"For 'tensor_dot', the contracted dimensions must match, but got shapes "
                               f"{list(ta.shape)} and {list(tb.shape)} over axes {list(ca)} and {list(cb)}")
    m = int(np.prod([ta.shape[d] for d in fa], dtype=np.int64))
    k = int(np.prod([ta.shape[d] for d in ca], dtype=np.int64))
    n = int(np.prod([tb.shape[d] for d in fb], dtype=np.int64))
    a2 = F.reshape(_permute(a, tuple(fa) + tuple(ca)), (m, k))
    b2 = F.reshape(_permute(b, tuple(cb) + tuple(fb)), (k, n))
    return F.reshape(F.matmul(a2, b2), tuple(ta.shape[d] for d in fa) + tuple(tb.shape[d] for d in fb))


def _permute(x, perm):
    return x if perm == tuple(builtins.range(len(perm))) else F.transpose(x, perm)


def tensor_dot(x1, x2, axes):
    """Contraction of the last `axes` axes of x1 with the first of x2, or of the listed pairs."""
    a, b = F._tensor_type("tensor_dot", x1, "x1"), F._tensor_type("tensor_dot", x2, "x2")
    if isinstance(axes, (int, np.integer)):
        ca, cb = tuple(builtins.range(a.ndim - axes, a.ndim)), tuple(builtins.range(axes))
    else:
        ca, cb = axes
        ca = (ca,) if isinstance(ca, (int, np.integer)) else tuple(ca)
        cb = (cb,) if isinstance(cb, (int, np.integer)) else tuple(cb)
    if len(ca) != len(cb):
        raise OpValueError(f"For 'tensor_dot', both inputs need as many contracted axes, but got {axes}")
    ca = tuple(norm_axis("tensor_dot", d, a.ndim) for d in ca)
    cb = tuple(norm_axis("tensor_dot", d, b.ndim) for d in cb)
    return _contract(x1, x2, ca, cb)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2)."""
    prod_ = F.bmm(batch1, batch2)
    if alpha != 1:
        prod_ = F.mul(prod_, alpha)
    if beta == 0:
        return prod_
    return F.add(input if beta == 1 else F.mul(input, beta), prod_)


def einsum(equation, *operands):
    """Einstein summation over one or more operands, with '...' and diagonals (a letter repeated
    within an operand): axes summed alone are reduced first, pairs are contracted with
    BatchMatMul (shared output axes as the batch), and the result is put in output order
    (pycompile/ops/_einsum.py)."""
    from pycompile.ops._einsum import einsum as _einsum
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    return _einsum(equation, list(operands))


def var(input, axis=None, ddof=0, keepdims=False):
    """Variance over axis (all axes by default) with `ddof` delta degrees of freedom."""
    t = F._tensor_type("var", input)
    axes = norm_axes("var", axis, t.ndim)
    count = int(np.prod([t.shape[a] for a in axes], dtype=np.int64))
    mean = F.mean(input, axes, True)
    dev = F.square(F.sub(input, mean))
    return F.div(F.sum(dev, axes, builtins.bool(keepdims)), float(builtins.max(count - ddof, 0)))


def _p_norm(name: str, d, p: float, axis):
    """The p-norm of d over axis: p 0 counts the nonzero entries, inf takes the largest |d|."""
    a = F.abs(d)
    if p == 0:
        return F.reduce_sum(F.cast(F.not_equal(d, 0), type_of(d).dtype), axis)
    if p == float("inf"):
        return F.amax(a, axis)
    if p == 1:
        return F.reduce_sum(a, axis)
    if p == 2:
        return F.sqrt(F.reduce_sum(F.square(a), axis))
    return F.pow(F.reduce_sum(F.pow(a, p), axis), 1.0 / p)


def size(input_x):
    """The number of elements of a tensor, as a Python int (known when the graph is compiled)."""
    return F._tensor_type("Size", input_x, "input_x").size


@_mixed.amp_class("full")       # amp_level='auto' (ops/amp_auto.py)
def cdist(x1, x2, p=2.0):
    """The p-norm distance between every row of x1 and every row of x2: (B, P, M), (B, R, M) to
    (B, P, R) (2-D inputs without the batch)."""
    a, b = F._tensor_type("Cdist", x1, "x1"), F._tensor_type("Cdist", x2, "x2")
    if not a.dtype.is_float or b.dtype is not a.dtype:
        raise OpTypeError(f"For 'Cdist', 'x1' and 'x2' must be float Tensors of one dtype, but got {a} and {b}")
    if a.ndim not in (2, 3) or b.ndim != a.ndim or a.shape[-1] != b.shape[-1] or a.shape[:-2] != b.shape[:-2]:
        raise OpValueError(f"For 'Cdist', 'x1' and 'x2' must be (B, P, M) and (B, R, M) (or 2-D), but got "
                           f"{list(a.shape)} and {list(b.shape)}")
    if isinstance(p, builtins.bool) or not isinstance(p, (int, float)) or p < 0:
        raise OpValueError(f"For 'Cdist', 'p' must be a non-negative number, but got {p!r}")
    d = F.sub(F.expand_dims(x1, -2), F.expand_dims(x2, -3))
    return _p_norm("Cdist", d, float(p), -1)


@_mixed.amp_class("full")       # amp_level='auto' (ops/amp_auto.py)
def renorm(input, p, axis, maxnorm):
    """Each slice along `axis` whose p-norm exceeds maxnorm scaled to norm maxnorm (by maxnorm / (norm + 1e-7))."""
    t = F._tensor_type("Renorm", input, "x")
    if isinstance(p, builtins.bool) or not isinstance(p, (int, float)) or p <= 0:
        raise OpValueError(f"For 'Renorm', 'p' must be a positive number, but got {p!r}")
    ax = norm_axis("Renorm", axis, builtins.max(t.ndim, 1))
    others = tuple(a for a in builtins.range(t.ndim) if a != ax)
    # complex: the norm of the moduli, the factor real and then applied in the input's dtype
    moduli = apply(P.ComplexAbs, [input]) if t.dtype.is_complex else input
    norm = _p_norm("Renorm", moduli, float(p), others)
    shape = tuple(t.shape[a] if a == ax else 1 for a in builtins.range(t.ndim))
    norm = F.reshape(norm, shape)
    factor = F.select(F.gt(norm, float(maxnorm)), F.div(float(maxnorm), F.add(norm, 1e-7)), F.ones_like(norm))
    return F.mul(input, F.cast(factor, t.dtype) if t.dtype.is_complex else factor)


def _cum_min_max(name: str, rule: str, input, axis):
    t = F._tensor_type(name, input)
    if isinstance(axis, builtins.bool) or not isinstance(axis, (int, np.integer)):
        raise OpTypeError(f"For '{name}', 'axis' must be an int, but got {axis!r}")
    attrs = {"axis": norm_axis(name, int(axis), builtins.max(t.ndim, 1)), "rule": rule}
    return (apply(P.CumMinMax, [input], {**attrs, "part": "values"}),
            apply(P.CumMinMax, [input], {**attrs, "part": "indices"}))


def cummax(input, axis):
    """(the running maximum along axis, the Int64 index where it was reached: the last of ties, NaN wins)."""
    return _cum_min_max("Cummax", "max", input, axis)


def cummin(input, axis):
    """(the running minimum along axis, the Int32 index where it was reached: the last of ties, NaN wins)."""
    return _cum_min_max("Cummin", "min", input, axis)


def matrix_solve(matrix, rhs, adjoint=False):
    """x with op(matrix) x = rhs for each matrix of the batch (op: the transpose when `adjoint`)."""
    if not isinstance(adjoint, builtins.bool):
        raise OpTypeError(f"For 'MatrixSolve', 'adjoint' must be a bool, but got {adjoint!r}")
    return apply(P.MatrixSolve, [matrix, rhs], {"adjoint": adjoint})



def _batch_dot_axes(s1, s2, axes) -> list:
    """MindSpore's batch_dot axes: one contracted axis of x1 and one of x2 (never the batch axis)."""
    n1, n2 = len(s1), len(s2)
    pre = "For 'batch_dot', the"
    if axes is None:
        return [n1 - 1, n2 - 1] if n2 == 2 else [n1 - 1, n2 - 2]
    if isinstance(axes, (list, tuple)):
        if 0 in axes:
            raise OpValueError(f"{pre} 'axes' cannot contain 0, but got axes: {axes}.")
        if len(axes) != 2:
            raise OpValueError(f"{pre} length of 'axes' must be equal to 2, but got {len(axes)}.")
        out = list(axes)
        for k, n in ((0, n1), (1, n2)):
            if not isinstance(out[k], builtins.int) or isinstance(out[k], builtins.bool):
                raise OpTypeError(f"For 'batch_dot', the type of 'axes[{k}]' should be 'int', but got "
                                  f"'{type(out[k]).__name__}'.")
            if out[k] < 0:
                out[k] += n
            if out[k] < 0:
                raise OpValueError(f"For 'batch_dot', the 'reversed axes[{k}]' must be a non-negative int, but "
                                   f"got {out[k]}.")
        if out[0] > n1 or out[1] > n2:
            raise OpValueError(f"{pre} axes[0] must be less than or equal to len(x1_shape), and axes[1] must be "
                               f"less than or equal to len(x2_shape).But got 'axes': {out}, 'x1_shape': {s1}, "
                               f"'x2_shape': {s2}.")
        return out
    if isinstance(axes, builtins.int) and not isinstance(axes, builtins.bool):
        if axes == 0:
            raise OpValueError(f"{pre} 'axes' should not be equal to 0, but got {axes}.")
        if axes > n1 or axes > n2:
            raise OpValueError(f"{pre} 'axes' cannot be greater than the length of 'x1_shape' and 'x2_shape', "
                               f"but got 'axes': {axes}, 'x1_shape': {s1}, 'x2_shape': {s2}.")
        return [axes + n1, axes + n2] if axes < 0 else [axes, axes]
    raise OpValueError(f"{pre} type of 'axes' must be one of those: int, tuple(int), list(int), but got "
                       f"{type(axes).__name__}.")


def batch_dot(x1, x2, axes=None):
    """MindSpore's (deprecated) batch dot product: per batch entry, x1 and x2 contracted over one
    axis each (`axes`; by default x1's last and x2's second to last, or its last when x2 is 2-D);
    the result is (batch, x1's free axes, x2's free axes). float32 only, as MindSpore's."""
    t1, t2 = type_of(x1), type_of(x2)
    s1, s2 = tuple(t1.shape), tuple(t2.shape)
    if len(s1) < 2 or len(s2) < 2:
        raise OpValueError(f"For 'batch_dot', the inputs x1, x2 should have 'dimension >= 2', but got "
                           f"'len(x1_shape)': ({len(s1)}) and 'len(x2_shape)': ({len(s2)}).")
    for name, t in (("x1", t1), ("x2", t2)):
        if t.dtype is not mstype.float32:
            raise OpTypeError(f"The '{name}' doesn't support '{t.dtype}' and expect to receive [mindspore.float32].")
    if s1[0] != s2[0]:
        raise OpValueError(f"For 'batch_dot', the inputs 'x1', 'x2' should have the same batch sizes, but got "
                           f"'x1_batch_size': {s1[0]} and 'x2_batch_size': {s2[0]}.")
    ax = _batch_dot_axes(s1, s2, axes)
    if len(s1) == 2:
        x1, ax[0], s1 = F.expand_dims(x1, 1), ax[0] + 1, (s1[0], 1, s1[1])
    if len(s2) == 2:
        x2, s2 = F.expand_dims(x2, 2), (s2[0], s2[1], 1)
    free1 = [i for i in range(1, len(s1)) if i != ax[0]]
    free2 = [i for i in range(1, len(s2)) if i != ax[1]]
    rows = builtins.int(np.prod([s1[i] for i in free1]))
    cols = builtins.int(np.prod([s2[i] for i in free2]))
    a = F.reshape(F.transpose(x1, (0, *free1, ax[0])), (s1[0], rows, s1[ax[0]]))
    b = F.reshape(F.transpose(x2, (0, ax[1], *free2)), (s2[0], s2[ax[1]], cols))
    out = F.reshape(F.bmm(a, b), (s1[0], *[s1[i] for i in free1], *[s2[i] for i in free2]))
    if len(t1.shape) == 2:
        return F.squeeze(out, 1)
    if len(t2.shape) == 2:
        return F.squeeze(out, -1)
    return out


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == __name__
           and n not in ("scan", "argmin_int64", "reduce_prod_keep", "lp_norm", "l2_normalize", "var")]
del TensorType
