"""mindspore.numpy's products and the functions built on them: dot / matmul / outer / inner /
kron / tensordot / multi_dot / cross, polynomials (polyadd ... polyval), cov / corrcoef and
convolve / correlate. Compositions of MatMul, broadcasting and slicing."""
from __future__ import annotations

import builtins

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.numpy._utils import NotSupported, const, finish, ndim, norm_axis, shape, to_float, to_tensor, ttype
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError


def dot(a, b):
    """The sum product over a's last axis and b's second-to-last (its only, when 1-D)."""
    a, b = to_tensor(a), to_tensor(b)
    if ndim(a) == 0 or ndim(b) == 0:
        return F.mul(a, b)
    if ndim(b) == 1:
        return F.reduce_sum(F.mul(a, b), (ndim(a) - 1,))
    if ndim(a) == 1 and ndim(b) == 2:
        return F.squeeze(F.matmul(F.expand_dims(a, 0), b), 0)
    if ndim(b) == 2:
        return F.matmul(a, b)
    return tensordot(a, b, ((ndim(a) - 1,), (ndim(b) - 2,)))


def matmul(x1, x2, dtype=None):
    return finish(F.matmul(to_tensor(x1), to_tensor(x2)), dtype)


def outer(a, b):
    a, b = F.reshape(to_tensor(a), (-1, 1)), F.reshape(to_tensor(b), (1, -1))
    return F.mul(a, b)


def inner(a, b):
    a, b = to_tensor(a), to_tensor(b)
    if ndim(a) == 0 or ndim(b) == 0:
        return F.mul(a, b)
    return tensordot(a, b, ((ndim(a) - 1,), (ndim(b) - 1,)))


def kron(a, b):
    a, b = to_tensor(a), to_tensor(b)
    nd = builtins.max(ndim(a), ndim(b))
    a = F.reshape(a, (1,) * (nd - ndim(a)) + shape(a))
    b = F.reshape(b, (1,) * (nd - ndim(b)) + shape(b))
    ai = F.reshape(a, builtins.sum(((n, 1) for n in shape(a)), ()))
    bi = F.reshape(b, builtins.sum(((1, n) for n in shape(b)), ()))
    return F.reshape(F.mul(ai, bi), tuple(p * q for p, q in zip(shape(a), shape(b))))


def tensordot(a, b, axes=2):
    a, b = to_tensor(a), to_tensor(b)
    if isinstance(axes, int):
        if axes < 0 or axes > builtins.min(ndim(a), ndim(b)):
            raise OpValueError(f"For 'tensordot', axes {axes} is out of range for inputs of ranks {ndim(a)} and "
                               f"{ndim(b)}")
        ax_a, ax_b = tuple(builtins.range(ndim(a) - axes, ndim(a))), tuple(builtins.range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = (ax_a,) if isinstance(ax_a, int) else tuple(ax_a)
        ax_b = (ax_b,) if isinstance(ax_b, int) else tuple(ax_b)
    ax_a = tuple(norm_axis(x, ndim(a), "tensordot") for x in ax_a)
    ax_b = tuple(norm_axis(x, ndim(b), "tensordot") for x in ax_b)
    if len(ax_a) != len(ax_b) or any(shape(a)[p] != shape(b)[q] for p, q in zip(ax_a, ax_b)):
        raise OpValueError(f"For 'tensordot', the contracted axes of shapes {shape(a)} and {shape(b)} differ: "
                           f"{ax_a} and {ax_b}")
    free_a = [d for d in builtins.range(ndim(a)) if d not in ax_a]
    free_b = [d for d in builtins.range(ndim(b)) if d not in ax_b]
    k = int(np.prod([shape(a)[d] for d in ax_a])) if ax_a else 1
    ma = F.reshape(F.transpose(a, tuple(free_a) + ax_a), (-1, k))
    mb = F.reshape(F.transpose(b, ax_b + tuple(free_b)), (k, -1))
    return F.reshape(F.matmul(ma, mb), tuple(shape(a)[d] for d in free_a) + tuple(shape(b)[d] for d in free_b))


def multi_dot(arrays):
    arrays = [to_tensor(x) for x in arrays]
    if len(arrays) < 2:
        raise OpValueError("For 'multi_dot', at least 2 arrays are needed")
    first_1d, last_1d = ndim(arrays[0]) == 1, ndim(arrays[-1]) == 1
    out = F.expand_dims(arrays[0], 0) if first_1d else arrays[0]
    for m in arrays[1:]:
        out = F.matmul(out, F.expand_dims(m, 1) if m is arrays[-1] and last_1d else m)
    if first_1d:
        out = F.squeeze(out, 0)
    if last_1d:
        out = F.squeeze(out, ndim(out) - 1)
    return out


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    a, b = to_tensor(a), to_tensor(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = F.moveaxis(a, norm_axis(axisa, ndim(a), "cross"), -1)
    b = F.moveaxis(b, norm_axis(axisb, ndim(b), "cross"), -1)
    na, nb = shape(a)[-1], shape(b)[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise OpValueError("For 'cross', the vectors must have 2 or 3 components")
    comp = [[_comp(x, i) for i in builtins.range(n)] for x, n in ((a, na), (b, nb))]
    (a0, a1, *ra), (b0, b1, *rb) = comp
    z = F.mul(a0, b1) - F.mul(a1, b0)
    if na == 2 and nb == 2:
        return z
    a2 = ra[0] if ra else None
    b2 = rb[0] if rb else None
    x = F.neg(F.mul(a2 if a2 is not None else 0, b1)) if b2 is None else \
        (F.sub(F.mul(a1, b2), F.mul(a2, b1)) if a2 is not None else F.mul(a1, b2))
    y = (F.sub(F.mul(a2, b0), F.mul(a0, b2)) if b2 is not None else F.mul(a2, b0)) if a2 is not None else \
        F.neg(F.mul(a0, b2))
    out = F.stack([x, y, z], -1)
    return F.moveaxis(out, -1, norm_axis(axisc, ndim(out), "cross"))


def _comp(x, i):
    return F.squeeze(F.strided_slice(x, (0,) * (ndim(x) - 1) + (i,), shape(x)[:-1] + (i + 1,), (1,) * ndim(x)),
                     ndim(x) - 1)


# ---- polynomials -------------------------------------------------------------------------------------------
def _poly(p):
    p = to_tensor(p)
    if ndim(p) != 1:
        raise OpValueError("a polynomial's coefficients must be a 1-D tensor")
    return p


def _pad_front(p, n):
    k = shape(p)[0]
    return p if k == n else F.concat([const(np.zeros(n - k, ttype(p).dtype.np)), p])


def polyadd(a1, a2):
    a, b = _poly(a1), _poly(a2)
    n = builtins.max(shape(a)[0], shape(b)[0])
    return F.add(_pad_front(a, n), _pad_front(b, n))


def polysub(a1, a2):
    a, b = _poly(a1), _poly(a2)
    n = builtins.max(shape(a)[0], shape(b)[0])
    return F.sub(_pad_front(a, n), _pad_front(b, n))


def polymul(a1, a2):
    return convolve(_poly(a1), _poly(a2))


def polyval(p, x):
    p, x = to_float(_poly(p)), to_float(to_tensor(x))
    out = F.zeros_like(x)
    for i in builtins.range(shape(p)[0]):
        out = F.add(F.mul(out, x), p[i])
    return out


def polyder(p, m=1):
    p = to_float(_poly(p))
    for _ in builtins.range(m):
        n = shape(p)[0]
        if n <= 1:
            return const(np.zeros(1, ttype(p).dtype.np)) if n == 1 else p
        p = F.mul(p[:n - 1], const(np.arange(n - 1, 0, -1).astype(ttype(p).dtype.np)))
    return p


def polyint(p, m=1, k=None):
    p = to_float(_poly(p))
    ks = [0.0] * m if k is None else ([float(k)] * m if isinstance(k, (int, float)) else [float(v) for v in k])
    for i in builtins.range(m):
        n = shape(p)[0]
        p = F.div(p, const(np.arange(n, 0, -1).astype(ttype(p).dtype.np)))
        p = F.concat([p, const(np.array([ks[i]], ttype(p).dtype.np))])
    return p


# ---- statistics of pairs -----------------------------------------------------------------------------------------
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    if fweights is not None or aweights is not None:
        raise NotSupported("mindspore.numpy.cov: fweights / aweights are not supported yet")
    m = to_float(to_tensor(m))
    if ndim(m) == 1:
        m = F.expand_dims(m, 0)
    if not rowvar and shape(m)[0] != 1:
        m = F.transpose(m, (1, 0))
    if y is not None:
        y = to_float(to_tensor(y))
        y = F.expand_dims(y, 0) if ndim(y) == 1 else (y if rowvar else F.transpose(y, (1, 0)))
        m = F.concat([m, y], 0)
    n = shape(m)[1]
    dd = (0 if bias else 1) if ddof is None else ddof
    c = F.sub(m, F.expand_dims(F.reduce_mean(m, (1,)), 1))
    out = F.div(F.matmul(c, F.transpose(c, (1, 0))), float(n - dd))
    if shape(out) == (1, 1):
        out = F.reshape(out, ())
    return finish(out, dtype)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    c = cov(x, y, rowvar)
    if ndim(c) == 0:
        return finish(F.div(c, c), dtype)
    d = F.sqrt(F.reduce_sum(F.mul(c, const(np.eye(shape(c)[0], dtype=ttype(c).dtype.np))), (1,)))
    out = F.div(F.div(c, F.expand_dims(d, 1)), F.expand_dims(d, 0))
    return finish(F.minimum(F.maximum(out, -1.0), 1.0), dtype)


def convolve(a, v, mode="full"):
    a, v = to_tensor(a), to_tensor(v)
    if ndim(a) != 1 or ndim(v) != 1:
        raise OpValueError("For 'convolve', both inputs must be 1-D")
    if shape(a)[0] < shape(v)[0]:
        a, v = v, a
    return _correlate(a, F.reverse(v, (0,)), mode)


def correlate(a, v, mode="valid"):
    a, v = to_tensor(a), to_tensor(v)
    if ndim(a) != 1 or ndim(v) != 1:
        raise OpValueError("For 'correlate', both inputs must be 1-D")
    if shape(a)[0] < shape(v)[0]:
        return F.reverse(_correlate(v, a, mode), (0,))
    return _correlate(a, v, mode)


def _correlate(a, v, mode):
    """out[k] = sum_j a[k + j - pad] * v[j], as one matmul against a constant Toeplitz gather."""
    n, m = shape(a)[0], shape(v)[0]
    if mode == "valid":
        pad, size = 0, n - m + 1
    elif mode == "same":
        pad, size = m // 2, n
    elif mode == "full":
        pad, size = m - 1, n + m - 1
    else:
        raise OpValueError(f"For 'correlate', mode must be 'valid', 'same' or 'full', but got {mode!r}")
    dt = mstype.promote(ttype(a).dtype, ttype(v).dtype)
    a, v = F.cast(a, dt), F.cast(v, dt)
    padded = F.concat([const(np.zeros(pad, dt.np)), a, const(np.zeros(m - 1, dt.np))]) if pad or m > 1 else a
    idx = np.arange(size)[:, None] + np.arange(m)[None, :]
    windows = F.gather(padded, const(idx.astype(np.int32)), 0)
    return F.reduce_sum(F.mul(windows, v), (1,))


__all__ = ["dot", "matmul", "outer", "inner", "kron", "tensordot", "multi_dot", "cross", "polyadd", "polysub",
           "polymul", "polyval", "polyder", "polyint", "cov", "corrcoef", "convolve", "correlate"]
