"""The op tail MindSpore 2.10 composes from others, one entry each: aliases (tensor_add, eq,
floordiv, floormod, truncate_div / truncate_mod, reverse), bias_add, block_diag, cartesian_prod,
vander, channel / pixel shuffles, cov, dist, pdist, diag_embed, ldexp, trapz, sequence_mask,
linspace / logspace, tril / triu indices, the window functions, gaussian_nll_loss,
hinge_embedding_loss, is_tensor and the real-tensor conj / real / imag. Values recorded from the
wheel in tests/conformance/cases_entries.py (the tail_* cases)."""
import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic, type_of
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.entries.layout_extra import _move, narrow
from pycompile.ops.entries.shrink_loss import _reduce
from pycompile.ops.entry import Arg, op_entry

_TWO = [Arg("input", "tensor|number"), Arg("other", "tensor|number")]


@op_entry("tensor_add", args=_TWO)
def tensor_add(input, other):
    """ops.add's alias."""
    return F.add(input, other)


@op_entry("eq", args=_TWO)
def eq(input, other):
    """ops.equal's alias."""
    return F.equal(input, other)


@op_entry("floordiv", args=_TWO)
def floordiv(input, other):
    """ops.floor_divide's alias."""
    return F.floor_divide(input, other)


@op_entry("floormod", args=[Arg("x", "tensor|number"), Arg("y", "tensor|number")])
def floormod(x, y):
    """The floored remainder (ops.remainder)."""
    return F.remainder(x, y)


@op_entry("truncate_div", args=[Arg("x", "tensor|number"), Arg("y", "tensor|number")])
def truncate_div(x, y):
    """x / y rounded toward zero; integers stay integers. Two bool inputs are refused (TypeError),
    as MindSpore 2.10's kernel has no bool form."""
    if all(isinstance(v, bool) or (isinstance(v, TensorMethods) and v.dtype == mstype.bool_) for v in (x, y)):
        raise OpTypeError("For 'TruncateDiv', the inputs must not both be bool")
    q = ops.trunc(F.div(x, y))
    ref = x if isinstance(x, TensorMethods) else y
    return q if ref.dtype.is_float else F.cast(q, ref.dtype)


@op_entry("truncate_mod", args=[Arg("x", "tensor|number"), Arg("y", "tensor|number")])
def truncate_mod(x, y):
    """The remainder with the sign of x (C's fmod)."""
    return ops.fmod(x, y)


@op_entry("reverse", tensor_method=True, args=[Arg("x"), Arg("axis", "value")])
def reverse(x, axis):
    """ops.flip's alias."""
    return ops.flip(x, tuple(axis) if isinstance(axis, (list, tuple)) else (axis,))


@op_entry("bias_add", amp="promote", args=[Arg("input_x"), Arg("bias")])
def bias_add(input_x, bias):
    """input_x + bias along the channel axis (axis 1)."""
    if bias.ndim != 1 or input_x.ndim < 2 or bias.shape[0] != input_x.shape[1]:
        raise OpValueError(f"For 'BiasAdd', 'bias' must be 1-D of the size of the input's axis 1, but got "
                           f"bias {tuple(bias.shape)} for input {tuple(input_x.shape)}.")
    return input_x + ops.reshape(bias, (1, bias.shape[0]) + (1,) * (input_x.ndim - 2))


def _as_2d(t):
    return ops.reshape(t, (1, 1) if t.ndim == 0 else (1, t.shape[0])) if t.ndim < 2 else t


@op_entry("block_diag", args=[Arg("inputs", variadic=True)])
def block_diag(inputs):
    """The tensors (0-, 1- or 2-D) as the diagonal blocks of one 2-D tensor."""
    blocks = [_as_2d(t) for t in inputs]
    cols = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        parts = [p for p in (ops.zeros((b.shape[0], left), b.dtype) if left else None, b,
                             ops.zeros((b.shape[0], cols - left - b.shape[1]), b.dtype)
                             if cols - left - b.shape[1] else None) if p is not None]
        rows.append(ops.concat(parts, 1) if len(parts) > 1 else parts[0])
        left += b.shape[1]
    return ops.concat(rows, 0)


@op_entry("cartesian_prod", args=[Arg("inputs", variadic=True)])
def cartesian_prod(inputs):
    """Every combination of the 1-D inputs' elements, one per row."""
    grids = ops.meshgrid(*inputs, indexing="ij")
    return ops.stack([ops.reshape(g, (-1,)) for g in grids], 1)


@op_entry("vander", args=[Arg("x"), Arg("N", "value", default=None)])
def vander(x, N=None):
    """The Vandermonde matrix: columns x**(N-1), ..., x, 1 (N defaults to len(x))."""
    n = x.shape[0] if N is None else N
    cols = [F.ones_like(x) if k == 0 else (x if k == 1 else F.pow(x, k)) for k in range(n - 1, -1, -1)]
    return ops.stack(cols, 1)


@op_entry("channel_shuffle", args=[Arg("x"), Arg("groups", "value")])
def channel_shuffle(x, groups):
    """Interleave the channels of `groups` groups: (N, g * k, ...) -> channel order k-major."""
    n, c = x.shape[0], x.shape[1]
    if c % groups:
        raise OpValueError(f"For 'ChannelShuffle', the number of channels {c} must be divisible by groups {groups}.")
    rest = tuple(x.shape[2:])
    y = ops.reshape(x, (n, groups, c // groups) + rest)
    y = ops.transpose(y, (0, 2, 1) + tuple(range(3, 3 + len(rest))))
    return ops.reshape(y, tuple(x.shape))


@op_entry("pixel_shuffle", args=[Arg("input"), Arg("upscale_factor", "value")])
def pixel_shuffle(input, upscale_factor):
    """(..., C * r * r, H, W) -> (..., C, H * r, W * r)."""
    r = upscale_factor
    *lead, c, h, w = input.shape
    k = len(lead)
    y = ops.reshape(input, tuple(lead) + (c // (r * r), r, r, h, w))
    y = ops.transpose(y, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return ops.reshape(y, tuple(lead) + (c // (r * r), h * r, w * r))


@op_entry("pixel_unshuffle", args=[Arg("input"), Arg("downscale_factor", "value")])
def pixel_unshuffle(input, downscale_factor):
    """(..., C, H * r, W * r) -> (..., C * r * r, H, W), pixel_shuffle's inverse."""
    r = downscale_factor
    *lead, c, h, w = input.shape
    k = len(lead)
    y = ops.reshape(input, tuple(lead) + (c, h // r, r, w // r, r))
    y = ops.transpose(y, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return ops.reshape(y, tuple(lead) + (c * r * r, h // r, w // r))


@op_entry("cov", tensor_method=True,
          args=[Arg("input"), Arg("correction", "value", default=1, keyword=True),
                Arg("fweights", "value", default=None, keyword=True), Arg("aweights", "value", default=None, keyword=True)])
def cov(input, correction=1, fweights=None, aweights=None):
    """The covariance of the rows (variables) over the columns (observations), divided by
    N - correction (fweights / aweights are not supported yet)."""
    if fweights is not None or aweights is not None:
        raise OpValueError("For 'cov', 'fweights' and 'aweights' are not supported by pycompile yet.")
    x = input if input.ndim == 2 else ops.reshape(input, (1, -1))
    centred = x - ops.mean(x, 1, True)
    return ops.matmul(centred, ops.transpose(centred, (1, 0))) / (x.shape[1] - correction)


def _p_norm(d, p, axes):
    if p == math.inf:
        return ops.amax(F.abs(d), axes)
    if p == 0:
        return ops.sum(F.cast(F.not_equal(d, 0), d.dtype), axes)
    if p == 1:
        return ops.sum(F.abs(d), axes)
    if p == 2:
        return F.sqrt(ops.sum(F.square(d), axes))
    return F.pow(ops.sum(F.pow(F.abs(d), p), axes), 1.0 / p)


@op_entry("dist", args=[Arg("input"), Arg("other"), Arg("p", "value", default=2)])
def dist(input, other, p=2):
    """The p-norm of input - other over every element."""
    d = input - other
    return _p_norm(d, p, tuple(range(d.ndim)))


@op_entry("pdist", amp="full", args=[Arg("input"), Arg("p", "value", default=2.0)])
def pdist(input, p=2.0):
    """The p-norm distance between every pair of rows i < j, in row-major order (only those
    pairs are formed, so no zero distance of a row to itself puts a nan in the gradient)."""
    n = input.shape[-2]
    first = np.array([i for i in range(n) for _ in range(i + 1, n)], np.int32)
    second = np.array([j for i in range(n) for j in range(i + 1, n)], np.int32)
    axis = input.ndim - 2
    d = ops.gather(input, Tensor(first), axis) - ops.gather(input, Tensor(second), axis)
    return _p_norm(d, p, (d.ndim - 1,))


@op_entry("diag_embed", args=[Arg("input"), Arg("offset", "value", default=0), Arg("dim1", "value", default=-2),
                              Arg("dim2", "value", default=-1)])
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Each last-axis vector on the `offset` diagonal of a new (dim1, dim2) plane."""
    n, k = input.shape[-1], abs(offset)
    size = n + k
    lead = tuple(input.shape[:-1])
    x = ops.broadcast_to(ops.expand_dims(input, -2), lead + (n, n))
    eye = ops.broadcast_to(ops.eye(n, n, mstype.bool_), lead + (n, n))
    m = ops.where(eye, x, F.zeros_like(x))
    if offset:
        zc = ops.zeros(lead + (n, k), input.dtype)
        m = ops.concat((zc, m) if offset > 0 else (m, zc), -1)
        zr = ops.zeros(lead + (k, size), input.dtype)
        m = ops.concat((m, zr) if offset > 0 else (zr, m), -2)
    nd = m.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    return m if (d1, d2) == (nd - 2, nd - 1) else _move(m, (nd - 2, nd - 1), (d1, d2))


@op_entry("ldexp", tensor_method=True, args=[Arg("x"), Arg("other")])
def ldexp(x, other):
    """x * 2 ** other."""
    xf = x if x.dtype.is_float else F.cast(x, mstype.float32)
    return xf * F.pow(2.0, F.cast(other, xf.dtype))


@op_entry("trapz", args=[Arg("y"), Arg("x", "value", default=None), Arg("dx", "value", default=1.0, keyword=True),
                         Arg("dim", "value", default=-1, keyword=True)])
def trapz(y, x=None, dx=1.0, dim=-1):
    """The trapezoid rule along `dim`, with sample points x (1-D or y's shape) or spacing dx."""
    n = y.shape[dim]
    mid = narrow(y, dim, 1, n - 1) + narrow(y, dim, 0, n - 1)
    if x is None:
        return ops.sum(mid, dim) * (dx / 2.0)
    if x.ndim == 1:
        shape = [1] * y.ndim
        shape[dim] = n
        x = ops.reshape(x, tuple(shape))
    step = narrow(x, dim, 1, n - 1) - narrow(x, dim, 0, n - 1)
    return ops.sum(step * mid, dim) / 2.0


@op_entry("sequence_mask", args=[Arg("lengths"), Arg("maxlen", "value", default=None)])
def sequence_mask(lengths, maxlen=None):
    """mask[..., j] = j < lengths[...] for j < maxlen (default: the largest length, PyNative only)."""
    if maxlen is None:
        if not hasattr(lengths, "asnumpy"):
            raise OpValueError("For 'sequence_mask', 'maxlen' must be given in graph code (it sets the output shape).")
        maxlen = int(lengths.asnumpy().max())
    steps = ops.arange(0, maxlen, 1, dtype=lengths.dtype)
    return F.less(steps, ops.expand_dims(lengths, -1))


@op_entry("linspace", primitive="LinSpace",
          args=[Arg("start", "tensor|number"), Arg("end", "tensor|number"), Arg("steps", "value")])
def linspace(start, end, steps):
    """`steps` values from start to end (both included): start + i (end - start) / (steps - 1), a
    composition, so 0-d Float32 / Float64 tensors known only at run time work (graph code, vmap).
    Python numbers give Float32."""
    steps = int(steps.asnumpy()) if hasattr(steps, "asnumpy") and not isinstance(steps, Symbolic) else steps
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"For 'LinSpace', 'steps' must be an int, but got {steps!r}")
    if steps <= 0:
        raise OpValueError(f"For 'LinSpace', the num must be greater than 0, but got {int(steps)}")
    ends = []
    for what, v in (("start", start), ("stop", end)):
        if isinstance(v, (int, float, np.number)):
            v = Tensor(np.array(float(v), np.float32))
        t = type_of(v)
        if t.dtype not in (mstype.float32, mstype.float64) or t.ndim != 0:
            raise TypeError(f"For 'LinSpace', '{what}' must be a 0-d Float32 or Float64 Tensor, but got {t}")
        ends.append(v)
    start, end = ends[0], F.cast(ends[1], type_of(ends[0]).dtype)
    i = Tensor(np.arange(int(steps), dtype=type_of(start).dtype.np))
    if steps == 1:
        return F.add(F.expand_dims(start, -1), F.mul(i, 0))
    step = F.div(F.sub(end, start), float(steps - 1))
    return F.add(F.expand_dims(start, -1), F.mul(F.expand_dims(step, -1), i))


@op_entry("logspace", args=[Arg("start", "value"), Arg("end", "value"), Arg("steps", "value"),
                            Arg("base", "value", default=10), Arg("dtype", "value", default=mstype.float32, keyword=True)])
def logspace(start, end, steps, base=10, dtype=mstype.float32):
    """base ** linspace(start, end, steps), as `dtype`."""
    return Tensor(np.power(float(base), np.linspace(float(start), float(end), int(steps))).astype(dtype.np))


def _indices(fn, row, col, offset, dtype):
    r, c = fn(row, offset, col)
    return Tensor(np.stack([r, c]).astype(dtype.np))


@op_entry("tril_indices", args=[Arg("row", "value"), Arg("col", "value"), Arg("offset", "value", default=0),
                                Arg("dtype", "value", default=mstype.int64, keyword=True)])
def tril_indices(row, col, offset=0, dtype=mstype.int64):
    """The (2, n) row and column indices of the lower triangle of a row x col matrix."""
    return _indices(np.tril_indices, row, col, offset, dtype)


@op_entry("triu_indices", args=[Arg("row", "value"), Arg("col", "value"), Arg("offset", "value", default=0),
                                Arg("dtype", "value", default=mstype.int64, keyword=True)])
def triu_indices(row, col, offset=0, dtype=mstype.int64):
    """The (2, n) row and column indices of the upper triangle of a row x col matrix."""
    return _indices(np.triu_indices, row, col, offset, dtype)


def _length(n):
    return int(n.asnumpy()) if hasattr(n, "asnumpy") else int(n)


def _window(n, periodic, fn, dtype):
    n = _length(n)
    if n <= 1:
        return Tensor(np.ones(max(n, 0), dtype.np))
    m = n if periodic else n - 1          # a periodic window is the symmetric one of n + 1 points, cut
    k = np.arange(n, dtype=np.float64)
    return Tensor(fn(k, m).astype(dtype.np))


_WIN = [Arg("window_length", "value"), Arg("periodic", "value", default=True)]


@op_entry("bartlett_window", args=_WIN + [Arg("dtype", "value", default=None, keyword=True)])
def bartlett_window(window_length, periodic=True, dtype=None):
    """The triangular window 1 - |2k / m - 1| (float32 by default)."""
    return _window(window_length, periodic, lambda k, m: 1 - np.abs(2 * k / m - 1), dtype or mstype.float32)


@op_entry("blackman_window", args=_WIN + [Arg("dtype", "value", default=None, keyword=True)])
def blackman_window(window_length, periodic=True, dtype=None):
    """0.42 - 0.5 cos(2 pi k / m) + 0.08 cos(4 pi k / m) (float32 by default)."""
    return _window(window_length, periodic, lambda k, m: 0.42 - 0.5 * np.cos(2 * np.pi * k / m)
                   + 0.08 * np.cos(4 * np.pi * k / m), dtype or mstype.float32)


@op_entry("hamming_window", args=_WIN + [Arg("alpha", "value", default=0.54), Arg("beta", "value", default=0.46),
                                         Arg("dtype", "value", default=None, keyword=True)])
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, dtype=None):
    """alpha - beta cos(2 pi k / m) (float32 by default)."""
    return _window(window_length, periodic, lambda k, m: alpha - beta * np.cos(2 * np.pi * k / m),
                   dtype or mstype.float32)


@op_entry("hann_window", args=_WIN + [Arg("dtype", "value", default=None, keyword=True)])
def hann_window(window_length, periodic=True, dtype=None):
    """0.5 - 0.5 cos(2 pi k / m); float64 by default, as MindSpore 2.10 returns."""
    return _window(window_length, periodic, lambda k, m: 0.5 - 0.5 * np.cos(2 * np.pi * k / m),
                   dtype or mstype.float64)


@op_entry("gaussian_nll_loss", args=[Arg("x"), Arg("target"), Arg("var", "tensor|number"),
                                     Arg("full", "value", default=False), Arg("eps", "value", default=1e-06),
                                     Arg("reduction", "value", default="mean")])
def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """0.5 (log(max(var, eps)) + (x - target)**2 / max(var, eps)), + 0.5 log(2 pi) if full."""
    v = ops.clamp(var, eps, None) if isinstance(var, TensorMethods) else max(float(var), eps)
    loss = 0.5 * (F.log(v) + F.square(x - target) / v) if isinstance(v, TensorMethods) else \
        0.5 * (math.log(v) + F.square(x - target) / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce("gaussian_nll_loss", loss, reduction)


@op_entry("hinge_embedding_loss", args=[Arg("inputs"), Arg("targets"), Arg("margin", "value", default=1.0),
                                        Arg("reduction", "value", default="mean")])
def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """inputs where targets is 1, max(0, margin - inputs) where it is -1."""
    zero = F.zeros_like(inputs)
    pos = ops.where(F.equal(targets, 1), inputs, zero)
    neg = ops.where(F.equal(targets, -1), ops.maximum(zero, margin - inputs), zero)
    return _reduce("hinge_embedding_loss", pos + neg, reduction)


@op_entry("is_tensor", args=[Arg("obj", "value")])
def is_tensor(obj):
    """Whether obj is a Tensor (a Python bool)."""
    return isinstance(obj, TensorMethods)


@op_entry("conj", args=[Arg("input")])
def conj(input):
    """The complex conjugate: a real tensor itself."""
    return apply(P.Conj, [input]) if input.dtype.is_complex else input


@op_entry("real", args=[Arg("input")])
def real(input):
    """The real part (float32 of complex64, float64 of complex128): a real tensor itself."""
    return apply(P.Real, [input]) if input.dtype.is_complex else input


@op_entry("imag", args=[Arg("input")])
def imag(input):
    """The imaginary part: zeros for a real tensor."""
    return apply(P.Imag, [input]) if input.dtype.is_complex else F.zeros_like(input)
