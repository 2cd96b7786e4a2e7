"""Primitive classes MindSpore 2.10 has over functions pycompile has: each is `ops.<Name>(attrs)(inputs)`
with MindSpore's constructor and call arguments, defined by the function it applies (Qr, Svd,
Lstsq, SearchSorted, Bucketize, LowerBound / UpperBound, NonZero, UniqueConsecutive, Pdist,
ChannelShuffle, TrilIndices / TriuIndices, the window classes, LogSpace, CumulativeLogsumexp,
Diag / DiagPart, Expand, EuclideanNorm, GLU, HShrink, IsClose, NanToNum, Real / Imag /
Conj, Pack / Unpack, SplitV, SoftMarginLoss, NLLLoss, Dense, Gelu / FastGelu, StopGradient,
ReduceStd, MatrixPower, MatrixBandPart, MatrixTriangularSolve, LerpScalar, Fills, FillV2,
TensorShape, IdentityN, InvertPermutation, NthElement). Values recorded from the wheel in
tests/conformance/cases_33b.py."""
import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.entries import linalg_33b as L
from pycompile.ops.entries import select_33b as S
from pycompile.ops.entry import Arg, op_entry


def _prim(name, args, doc):
    """Declare the Primitive `name` (no functional form) from the decorated definition."""
    def declare(fn):
        fn.__doc__ = doc
        return op_entry(f"prim33b_{name}", primitive=name, functional=False, args=args)(fn)
    return declare


def _v(name, default=None, init=True):
    return Arg(name, "value", default=default, init=init)


def _known(t, what, op):
    """A tensor argument whose values set a shape: known in PyNative, or a constant in graph code."""
    if isinstance(t, TensorMethods):
        if isinstance(t, Symbolic) or not hasattr(t, "asnumpy"):
            raise OpValueError(f"For '{op}', '{what}' sets the output's shape, so it must be known when the graph is "
                               f"compiled (a Python value or a constant Tensor).")
        return t.asnumpy()
    return np.asarray(t)


# ---- linear algebra and search -----------------------------------------------------------------
@_prim("Qr", [Arg("x"), _v("full_matrices", False)], "(Q, R) of x (full_matrices: Q square).")
def _qr(x, full_matrices=False):
    return L.qr(x, "complete" if full_matrices else "reduced")


@_prim("Svd", [Arg("input"), _v("full_matrices", False), _v("compute_uv", True)], "(s, u, v) of the input.")
def _svd(input, full_matrices=False, compute_uv=True):
    out = L.svd(input, full_matrices, compute_uv)
    return out if compute_uv else (out, ops.zeros((0,), input.dtype), ops.zeros((0,), input.dtype))


@_prim("Lstsq", [Arg("matrix"), Arg("rhs"), _v("fast", True), _v("l2_regularizer", 0.0)],
       "The least-squares solution of matrix X = rhs (MindSpore 2.10 accepts only l2_regularizer=0.0).")
def _lstsq(matrix, rhs, fast=True, l2_regularizer=0.0):
    if l2_regularizer != 0.0:
        raise OpTypeError(f"For 'Lstsq', the 'l2_regularizer' should be 0.0, but got '{l2_regularizer}'.")
    return L.lstsq(matrix, rhs)


@_prim("MatrixTriangularSolve", [Arg("matrix"), Arg("rhs"), _v("lower", True), _v("adjoint", False)],
       "x with T x = rhs, T the lower (or upper) triangle of matrix, transposed when adjoint.")
def _triangular_solve(matrix, rhs, lower=True, adjoint=False):
    t = ops.tril(matrix) if lower else ops.triu(matrix)
    return apply(P.MatrixSolve, [t, rhs], {"adjoint": bool(adjoint)})


@_prim("SearchSorted", [Arg("sorted_sequence"), Arg("values"), Arg("sorter", "value", default=None),
                        _v("dtype", mstype.int64), _v("right", False)],
       "ops.searchsorted's class form (the output dtype set by `dtype`).")
def _search_sorted(sorted_sequence, values, sorter=None, dtype=mstype.int64, right=False):
    return S.searchsorted(sorted_sequence, values, out_int32=dtype == mstype.int32, right=right, sorter=sorter)


def _bound(sorted_x, values, right, out_type):
    return F.cast(S.searchsorted(sorted_x, values, right=right), out_type)


@_prim("LowerBound", [Arg("sorted_x"), Arg("values"), _v("out_type", mstype.int32)],
       "For each row, the first index where sorted_x[i] >= value.")
def _lower_bound(sorted_x, values, out_type=mstype.int32):
    return _bound(sorted_x, values, False, out_type)


@_prim("UpperBound", [Arg("sorted_x"), Arg("values"), _v("out_type", mstype.int32)],
       "For each row, the first index where sorted_x[i] > value.")
def _upper_bound(sorted_x, values, out_type=mstype.int32):
    return _bound(sorted_x, values, True, out_type)


@_prim("Bucketize", [Arg("input"), _v("boundaries")],
       "The bucket of each element: the count of boundaries <= x (ops.bucketize with right=True, as the wheel).")
def _bucketize(input, boundaries):
    return S.bucketize(input, list(boundaries), right=True)


@_prim("NonZero", [Arg("input")], "ops.nonzero's class form (PyNative only).")
def _non_zero(input):
    return S.nonzero(input)


@_prim("UniqueConsecutive", [Arg("input"), _v("return_inverse", False), _v("return_counts", False), _v("dim", None)],
       "ops.unique_consecutive's class form (PyNative only): always (output, inverse, counts); the parts not "
       "asked for are 0-d zeros (MindSpore leaves them unset).")
def _unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    out, inverse, counts = S.unique_consecutive(input, True, True, dim)
    zero = Tensor(np.zeros((), np.int64))
    return out, inverse if return_inverse else zero, counts if return_counts else zero


# ---- array and creation ------------------------------------------------------------------------
@_prim("Pdist", [Arg("x"), _v("p", 2.0)], "ops.pdist's class form.")
def _pdist(x, p=2.0):
    return ops.pdist(x, p)


@_prim("ChannelShuffle", [Arg("x"), _v("group")], "ops.channel_shuffle's class form.")
def _channel_shuffle(x, group):
    return ops.channel_shuffle(x, group)


@_prim("TrilIndices", [_v("row"), _v("col"), _v("offset", 0), _v("dtype", mstype.int32)],
       "ops.tril_indices' class form (Int32 by default).")
def _tril_indices(row, col, offset=0, dtype=mstype.int32):
    return ops.tril_indices(row, col, offset, dtype=dtype)


@_prim("TriuIndices", [_v("row"), _v("col"), _v("offset", 0), _v("dtype", mstype.int32)],
       "ops.triu_indices' class form (Int32 by default).")
def _triu_indices(row, col, offset=0, dtype=mstype.int32):
    return ops.triu_indices(row, col, offset, dtype=dtype)


def _length(t, op):
    return int(_known(t, "window_length", op).reshape(-1)[0])


@_prim("HammingWindow", [Arg("length"), _v("periodic", True), _v("alpha", 0.54), _v("beta", 0.46),
                         _v("dtype", mstype.float32)], "ops.hamming_window's class form (a 1-element length Tensor).")
def _hamming(length, periodic=True, alpha=0.54, beta=0.46, dtype=mstype.float32):
    return ops.hamming_window(_length(length, "HammingWindow"), periodic, alpha, beta, dtype=dtype)


@_prim("BartlettWindow", [Arg("window_length"), _v("periodic", True), _v("dtype", mstype.float32)],
       "ops.bartlett_window's class form.")
def _bartlett(window_length, periodic=True, dtype=mstype.float32):
    return ops.bartlett_window(_length(window_length, "BartlettWindow"), periodic, dtype=dtype)


@_prim("BlackmanWindow", [Arg("window_length"), _v("periodic", True), _v("dtype", mstype.float32)],
       "ops.blackman_window's class form.")
def _blackman(window_length, periodic=True, dtype=mstype.float32):
    return ops.blackman_window(_length(window_length, "BlackmanWindow"), periodic, dtype=dtype)


@_prim("LogSpace", [Arg("start"), Arg("end"), _v("steps", 10), _v("base", 10), _v("dtype", mstype.float32)],
       "ops.logspace's class form (start and end 0-d Tensors).")
def _logspace(start, end, steps=10, base=10, dtype=mstype.float32):
    return ops.logspace(start, end, steps, base, dtype=dtype)


@_prim("CumulativeLogsumexp", [Arg("x"), Arg("axis", "value"), _v("exclusive", False), _v("reverse", False)],
       "log(cumsum(exp(x))) along axis; exclusive: each element left out of its own sum; reverse: from the end.")
def _cumulative_logsumexp(x, axis, exclusive=False, reverse=False):
    ax = int(_known(axis, "axis", "CumulativeLogsumexp").reshape(-1)[0]) if isinstance(axis, TensorMethods) else axis
    ax = ax % x.ndim
    y = ops.flip(x, (ax,)) if reverse else x
    if exclusive:
        # shifted by one; the empty sum is the dtype's lowest finite value, as the wheel's kernel gives
        n = y.shape[ax]
        pad = F.fill(y.dtype, tuple(1 if i == ax else s for i, s in enumerate(y.shape)), -float(mstype.finfo(y.dtype.np).max))
        out = ops.concat((pad, ops.logcumsumexp(ops.narrow(y, ax, 0, n - 1), ax)), ax) if n > 1 else pad
    else:
        out = ops.logcumsumexp(y, ax)
    return ops.flip(out, (ax,)) if reverse else out


@_prim("Diag", [Arg("input")], "ops.diag's class form.")
def _diag(input):
    return ops.diag(input)


@_prim("DiagPart", [Arg("input_x")], "The diagonal of a (d1..dk, d1..dk) tensor, shaped (d1..dk).")
def _diag_part(input_x):
    k = input_x.ndim // 2
    if input_x.ndim % 2 or tuple(input_x.shape[:k]) != tuple(input_x.shape[k:]):
        raise OpValueError(f"For 'DiagPart', the input's shape must be (d1..dk, d1..dk), but got {tuple(input_x.shape)}.")
    n = math.prod(input_x.shape[:k])
    return ops.reshape(ops.diagonal(ops.reshape(input_x, (n, n))), tuple(input_x.shape[:k]))


@_prim("Expand", [Arg("x"), Arg("shape", "value")], "ops.expand's class form.")
def _expand(x, shape):
    return ops.expand(x, shape)


@_prim("EuclideanNorm", [Arg("x"), Arg("axes", "value"), _v("keep_dims", False)],
       "sqrt(sum(x ** 2)) over axes (a Tensor or tuple of ints).")
def _euclidean_norm(x, axes, keep_dims=False):
    ax = tuple(int(a) for a in _known(axes, "axes", "EuclideanNorm").reshape(-1))
    return F.sqrt(ops.sum(F.square(x), ax, keep_dims))


@_prim("GLU", [Arg("x"), _v("axis", -1)], "ops.glu's class form.")
def _glu(x, axis=-1):
    return ops.glu(x, axis)


@_prim("HShrink", [Arg("input"), _v("lambd", 0.5)], "ops.hardshrink's class form.")
def _hshrink(input, lambd=0.5):
    return ops.hardshrink(input, lambd)


@_prim("IsClose", [Arg("input"), Arg("other"), _v("rtol", 1e-05), _v("atol", 1e-08), _v("equal_nan", False)],
       "ops.isclose's class form.")
def _isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return ops.isclose(input, other, rtol, atol, equal_nan)


@_prim("NanToNum", [Arg("x"), _v("nan", 0.0), _v("posinf", None), _v("neginf", None)], "ops.nan_to_num's class form.")
def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return ops.nan_to_num(x, 0.0 if nan is None else nan, posinf, neginf)


@_prim("Real", [Arg("input")], "The real part (the tensor itself for real dtypes).")
def _real(input):
    return ops.real(input)


@_prim("Imag", [Arg("input")], "The imaginary part (zeros for real dtypes).")
def _imag(input):
    return ops.imag(input)


@_prim("Conj", [Arg("input")], "The complex conjugate (the tensor itself for real dtypes).")
def _conj(input):
    return ops.conj(input)


@_prim("Pack", [Arg("x", "value"), _v("axis", 0)], "The deprecated name of ops.Stack.")
def _pack(x, axis=0):
    return ops.stack(x, axis)


@_prim("Unpack", [Arg("x"), _v("axis", 0)], "The deprecated name of ops.Unstack.")
def _unpack(x, axis=0):
    return ops.unstack(x, axis)


@_prim("SplitV", [Arg("input_x"), _v("size_splits"), _v("split_dim"), _v("num_split")],
       "input_x split along split_dim into pieces of size_splits (one -1: the rest).")
def _split_v(input_x, size_splits, split_dim, num_split):
    sizes = list(size_splits)
    if len(sizes) != num_split:
        raise OpValueError(f"For 'SplitV', 'size_splits' must have num_split = {num_split} elements, but got {sizes}.")
    n = input_x.shape[split_dim]
    if -1 in sizes:
        sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
    return ops.split(input_x, sizes, split_dim)


@_prim("TensorShape", [Arg("input_x")], "The shape as a 1-D Int64 Tensor.")
def _tensor_shape(input_x):
    if getattr(input_x, "run_time_length", False):       # Unique's / masked_select's values in graph code
        from pycompile.ops.dynamic_length import shape_tensor
        return shape_tensor(input_x)
    return Tensor(np.array(input_x.shape, np.int64))


@_prim("IdentityN", [Arg("x", "value")], "The tensors of a list or tuple, unchanged.")
def _identity_n(x):
    if not isinstance(x, (list, tuple)) or not all(isinstance(t, TensorMethods) for t in x):
        raise OpValueError("For 'IdentityN', the input must be a list or tuple of Tensors.")
    return tuple(ops.identity(t) for t in x)


@_prim("InvertPermutation", [Arg("input_x", "value")], "The inverse permutation of a list or tuple of ints.")
def _invert_permutation(input_x):
    perm = [int(v) for v in input_x]
    if sorted(perm) != list(range(len(perm))):
        raise OpValueError(f"For 'InvertPermutation', the input must be a permutation of 0..n-1, but got {perm}.")
    out = [0] * len(perm)
    for i, p in enumerate(perm):
        out[p] = i
    return tuple(out)


@_prim("NthElement", [Arg("input"), Arg("n", "value"), _v("reverse", False)],
       "The n-th smallest (reverse: largest) element of each last-axis vector.")
def _nth_element(input, n, reverse=False):
    k = int(_known(n, "n", "NthElement").reshape(-1)[0]) if isinstance(n, TensorMethods) else int(n)
    if not 0 <= k < input.shape[-1]:
        raise OpValueError(f"For 'NthElement', 'n' must be in [0, {input.shape[-1]}), but got {k}.")
    srt, _ = ops.sort(input, -1, reverse)
    return ops.squeeze(ops.narrow(srt, input.ndim - 1, k, 1), -1)


# ---- losses and layers -------------------------------------------------------------------------
@_prim("SoftMarginLoss", [Arg("input"), Arg("target"), _v("reduction", "mean")], "ops.soft_margin_loss' class form.")
def _soft_margin_loss(input, target, reduction="mean"):
    return ops.soft_margin_loss(input, target, reduction)


@_prim("NLLLoss", [Arg("logits"), Arg("labels"), Arg("weight"), _v("reduction", "mean"), _v("ignore_index", -100)],
       "(the negative log-likelihood loss, the total weight of the counted labels).")
def _nll_loss(logits, labels, weight, reduction="mean", ignore_index=-100):
    loss = ops.nll_loss(logits, labels, weight, ignore_index, reduction)
    keep = F.not_equal(labels, ignore_index)
    safe = ops.where(keep, labels, F.zeros_like(labels))
    total = ops.sum(ops.where(keep, ops.gather(weight, safe, 0), F.zeros_like(ops.gather(weight, safe, 0))))
    return loss, total


@_prim("Dense", [Arg("input"), Arg("weight"), Arg("bias", "value", default=None)], "ops.dense's class form.")
def _dense(input, weight, bias=None):
    return ops.dense(input, weight, bias)


@_prim("Gelu", [Arg("x")], "The deprecated name of ops.GeLU (the tanh approximation).")
def _gelu(x):
    return ops.gelu(x, approximate="tanh")


@_prim("FastGelu", [Arg("x")], "The deprecated name of ops.FastGeLU.")
def _fast_gelu(x):
    return ops.fast_gelu(x)


@_prim("StopGradient", [Arg("x")], "ops.stop_gradient's class form.")
def _stop_gradient(x):
    return ops.stop_gradient(x)


@_prim("ReduceStd", [Arg("x"), _v("axis", ()), _v("unbiased", True), _v("keep_dims", False)],
       "(std, mean) over axis (every axis when empty).")
def _reduce_std(x, axis=(), unbiased=True, keep_dims=False):
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    axes = axes or tuple(range(x.ndim))
    return ops.std_mean(x, axes, 1 if unbiased else 0, keep_dims)


@_prim("MatrixPower", [Arg("x"), _v("n")], "ops.matrix_power's class form.")
def _matrix_power(x, n):
    return ops.matrix_power(x, n)


@_prim("MatrixBandPart", [Arg("x"), Arg("lower", "value"), Arg("upper", "value")], "ops.matrix_band_part's class form.")
def _matrix_band_part(x, lower, upper):
    return ops.matrix_band_part(x, lower, upper)


@_prim("LerpScalar", [Arg("input"), Arg("end"), Arg("weight", "value")], "ops.lerp with a Python float weight.")
def _lerp_scalar(input, end, weight):
    return ops.lerp(input, end, weight)


@_prim("Fills", [Arg("x"), Arg("value", "value")], "A tensor of x's shape and dtype filled with value.")
def _fills(x, value):
    v = float(_known(value, "value", "Fills").reshape(-1)[0]) if isinstance(value, TensorMethods) else value
    return F.fill(x.dtype, tuple(x.shape), v)


@_prim("FillV2", [Arg("shape", "value"), Arg("value")], "A tensor of `shape` filled with the 0-d Tensor value.")
def _fill_v2(shape, value):
    dims = tuple(int(s) for s in _known(shape, "shape", "FillV2").reshape(-1))
    return ops.broadcast_to(ops.reshape(value, ()), dims)


def _float_eps(x, op):
    if isinstance(x, TensorMethods) and x.dtype not in (mstype.float16, mstype.float32, mstype.float64):
        raise OpTypeError(f"For '{op}', the input must be a float16, float32 or float64 Tensor, but got {x.dtype}.")


@op_entry("eps", primitive="Eps", args=[Arg("x", check=_float_eps)])
def eps(x):
    """A tensor of x's shape and dtype filled with the dtype's machine epsilon (2**-10, 2**-23, 2**-52)."""
    return F.fill(x.dtype, tuple(x.shape), float(mstype.finfo(x.dtype.np).eps))


@op_entry("fills", tensor_method=True, args=[Arg("x"), Arg("value", "value")])
def fills(x, value):
    """A tensor of x's shape and dtype filled with value (a number or a 0-d Tensor)."""
    return _fills(x, value)
