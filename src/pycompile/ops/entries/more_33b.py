"""The rest of ops33b's tail as compositions: bit shifts (bitwise_left_shift / bitwise_right_shift,
LeftShift / RightShift: as the wheel's x86 kernels, the value shifted as a 32-bit int by the count
modulo 32, then wrapped to its dtype; up to 32-bit integers, computed in Int64), Tensor.select, Tensor.masked_scatter / MaskedScatter,
Tensor.index_put, and the Householder form of QR: geqrf, orgqr, ormqr (LAPACK's conventions:
the reflectors' vectors below R's diagonal with an implicit leading 1, tau = 2 / v.v). Values
recorded from the wheel in tests/conformance/cases_33b.py."""
import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry, tensor_alias

_WIDTH = {mstype.int8: 8, mstype.int16: 16, mstype.int32: 32, mstype.uint8: 8, mstype.uint16: 16, mstype.uint32: 32}
_SIGNED = {mstype.int8, mstype.int16, mstype.int32}


def _shift_inputs(x, s, op):
    if not isinstance(x, TensorMethods) or x.dtype not in _WIDTH:
        what = x.dtype if isinstance(x, TensorMethods) else type(x).__name__
        raise OpTypeError(f"For '{op}', the input must be an integer Tensor of at most 32 bits (pycompile does not "
                          f"shift 64-bit integers yet), but got {what}.")
    bits = _WIDTH[x.dtype]
    s64 = F.cast(s, mstype.int64) if isinstance(s, TensorMethods) else F.fill(mstype.int64, (), int(s))
    return F.cast(x, mstype.int64), ops.remainder(s64, 32), bits


def _wrap(v, dtype, bits):
    """An Int64 value reduced to the dtype's width, as two's complement."""
    v = ops.remainder(v, 1 << bits)
    if dtype in _SIGNED:
        v = ops.where(F.greater_equal(v, 1 << (bits - 1)), v - (1 << bits), v)
    return F.cast(v, dtype)


@op_entry("bitwise_left_shift", tensor_method=True, args=[Arg("input", "tensor|number"), Arg("other", "tensor|number")])
def bitwise_left_shift(input, other):
    """input << (other mod 32), wrapped around to the dtype."""
    x, s, bits = _shift_inputs(input, other, "LeftShift")
    return _wrap(x * F.pow(F.fill(mstype.int64, (), 2), s), input.dtype, bits)


@op_entry("bitwise_right_shift", tensor_method=True, args=[Arg("input", "tensor|number"), Arg("other", "tensor|number")])
def bitwise_right_shift(input, other):
    """input >> (other mod 32): arithmetic (floor) for signed dtypes."""
    x, s, bits = _shift_inputs(input, other, "RightShift")
    return F.cast(ops.floor_divide(x, F.pow(F.fill(mstype.int64, (), 2), s)), input.dtype)


@op_entry("left_shift_prim", primitive="LeftShift", functional=False, args=[Arg("x1"), Arg("x2")])
def _left_shift(x1, x2):
    """ops.LeftShift()(x1, x2)."""
    return bitwise_left_shift(x1, x2)


@op_entry("right_shift_prim", primitive="RightShift", functional=False, args=[Arg("input_x"), Arg("input_y")])
def _right_shift(input_x, input_y):
    """ops.RightShift()(input_x, input_y)."""
    return bitwise_right_shift(input_x, input_y)


@tensor_alias("select")
def _select(self, dim, index):
    """`x.select(dim, index)`: the slice at `index` along `dim` (that axis removed)."""
    nd = self.ndim
    if not -nd <= dim < nd:
        raise OpValueError(f"For 'Tensor.select', 'dim' must be in [{-nd}, {nd}), but got {dim}.")
    d = dim % nd
    n = self.shape[d]
    if not -n <= index < n:
        raise OpValueError(f"For 'Tensor.select', 'index' must be in [{-n}, {n}), but got {index}.")
    return ops.squeeze(ops.narrow(self, d, index % n, 1), d)


@op_entry("masked_scatter", primitive="MaskedScatter", functional=False, tensor_method=True,
          args=[Arg("input"), Arg("mask"), Arg("updates")])
def masked_scatter(input, mask, updates):
    """input with the positions where mask holds (mask broadcast to input) filled, in row-major
    order, by updates' first elements."""
    m = ops.broadcast_to(F.cast(mask, mstype.bool_), tuple(input.shape))
    flat = ops.reshape(F.cast(m, mstype.int32), (-1,))
    pos = ops.cumsum(flat, 0) - 1
    src = ops.reshape(updates, (-1,))
    pos = ops.clamp(pos, 0, max(src.shape[0] - 1, 0))
    picked = ops.reshape(ops.gather(src, pos, 0), tuple(input.shape))
    return ops.where(m, F.cast(picked, input.dtype), input)


@tensor_alias("index_put")
def _index_put(self, indices, values, accumulate=False):
    """`x.index_put(indices, values, accumulate=False)`: x with x[indices] = values (or += with
    accumulate); indices a tuple of 1-D integer Tensors, one per leading axis."""
    if not isinstance(indices, (list, tuple)) or not indices:
        raise OpValueError("For 'Tensor.index_put', 'indices' must be a non-empty tuple of 1-D integer Tensors.")
    n = max(int(i.shape[0]) for i in indices)
    idx = ops.stack([ops.broadcast_to(F.cast(i, mstype.int32), (n,)) for i in indices], 1)
    k = len(indices)
    vals = ops.broadcast_to(F.cast(values, self.dtype), (n,) + tuple(self.shape[k:]))
    return (ops.tensor_scatter_add if accumulate else ops.tensor_scatter_update)(self, idx, vals)


# ---- QR in LAPACK's Householder form --------------------------------------------------------------
def _householder(a):
    """(packed (B, m, n), tau (B, k)): LAPACK geqrf's output for a batch of matrices."""
    bsz, m, n = a.shape
    k = min(m, n)
    rows = Tensor(np.arange(m, dtype=np.int32))
    r, vs, taus = a, [], []
    for j in range(k):
        col = ops.squeeze(ops.narrow(r, 2, j, 1), 2)
        x = ops.where(F.less(rows, j), F.zeros_like(col), col)
        alpha = ops.squeeze(ops.narrow(x, 1, j, 1), 1)
        below = ops.sum(F.square(ops.where(F.greater(rows, j), x, F.zeros_like(x))), 1)
        norm = F.sqrt(F.square(alpha) + below)
        s = ops.where(F.less(alpha, 0), -F.ones_like(alpha), F.ones_like(alpha))
        lead = alpha + s * norm                                   # v's j-th entry before scaling to 1
        none = F.equal(below, 0)                                  # nothing to reflect: tau 0 (LAPACK)
        safe = ops.where(none, F.ones_like(lead), lead)
        v = ops.where(F.greater(rows, j), x / ops.expand_dims(safe, 1), F.zeros_like(x))
        v = v + Tensor(np.eye(m, dtype=a.dtype.np)[j])
        tau = ops.where(none, F.zeros_like(alpha), 2.0 / ops.sum(F.square(v), 1))
        ve = ops.expand_dims(v, 2)
        r = r - ops.expand_dims(ops.expand_dims(tau, 1), 2) * ops.matmul(ve, ops.matmul(ops.swapaxes(ve, 1, 2), r))
        vs.append(v)
        taus.append(tau)
    packed = ops.triu(r)
    for j, v in enumerate(vs):
        below = ops.where(F.greater(rows, j), v, F.zeros_like(v))
        packed = packed + ops.expand_dims(below, 2) * Tensor(np.eye(n, dtype=a.dtype.np)[j])
    return packed, ops.stack(taus, 1) if taus else ops.zeros((bsz, 0), a.dtype)


def _batch(x):
    lead = tuple(x.shape[:-2])
    return ops.reshape(x, (int(np.prod(lead, dtype=np.int64)),) + tuple(x.shape[-2:])), lead


def _float(x, op):
    if x.dtype not in (mstype.float32, mstype.float64):
        raise OpTypeError(f"For '{op}', the input must be a Float32 or Float64 Tensor, but got {x.dtype}.")


@op_entry("geqrf", primitive="Geqrf", tensor_method=True, args=[Arg("input")])
def geqrf(input):
    """(y, tau): R on and above y's diagonal, the Householder vectors below it (leading 1
    implied), their factors tau; Q = H_1 ... H_k with H_i = I - tau_i v_i v_i^T."""
    _float(input, "Geqrf")
    a, lead = _batch(input)
    packed, tau = _householder(a)
    return ops.reshape(packed, lead + tuple(packed.shape[1:])), ops.reshape(tau, lead + tuple(tau.shape[1:]))


def _reflectors(y, tau):
    """The reflectors' (v (B, m), tau (B,)) of a packed (B, m, n) factorization."""
    bsz, m, n = y.shape
    rows = Tensor(np.arange(m, dtype=np.int32))
    out = []
    for j in range(tau.shape[-1]):
        col = ops.squeeze(ops.narrow(y, 2, j, 1), 2)
        v = ops.where(F.greater(rows, j), col, F.zeros_like(col)) + Tensor(np.eye(m, dtype=y.dtype.np)[j])
        out.append((v, ops.squeeze(ops.narrow(tau, 1, j, 1), 1)))
    return out


def _apply_h(mat, v, t, left):
    """H mat (left) or mat H, H = I - t v v^T."""
    ve = ops.expand_dims(v, 2)
    tt = ops.expand_dims(ops.expand_dims(t, 1), 2)
    if left:
        return mat - tt * ops.matmul(ve, ops.matmul(ops.swapaxes(ve, 1, 2), mat))
    return mat - tt * ops.matmul(ops.matmul(mat, ve), ops.swapaxes(ve, 1, 2))


@op_entry("orgqr", primitive="Orgqr", tensor_method=True, args=[Arg("input"), Arg("input2")])
def orgqr(input, input2):
    """The first n columns of Q = H_1 ... H_k from geqrf's (input, tau = input2)."""
    _float(input, "Orgqr")
    y, lead = _batch(input)
    tau = ops.reshape(input2, (y.shape[0], -1))
    bsz, m, n = y.shape
    q = ops.broadcast_to(Tensor(np.eye(m, n, dtype=y.dtype.np)), (bsz, m, n))
    for v, t in reversed(_reflectors(y, tau)):
        q = _apply_h(q, v, t, True)
    return ops.reshape(q, lead + (m, n))


@op_entry("ormqr", tensor_method=True, args=[Arg("input"), Arg("tau"), Arg("other"), Arg("left", "value", default=True),
                                              Arg("transpose", "value", default=False)])
def ormqr(input, tau, other, left=True, transpose=False):
    """op(Q) other (left) or other op(Q), Q from geqrf's (input, tau), op the transpose when asked."""
    _float(input, "Ormqr")
    y, lead = _batch(input)
    c = ops.reshape(other, (y.shape[0],) + tuple(other.shape[-2:]))
    refl = _reflectors(y, ops.reshape(tau, (y.shape[0], -1)))
    # Q = H_1 ... H_k: Q C applies H_k first; Q^T C applies H_1 first; C Q applies H_1 first
    order = refl if (left == transpose) else list(reversed(refl))
    for v, t in order:
        c = _apply_h(c, v, t, left)
    return ops.reshape(c, lead + tuple(other.shape[-2:]))


@op_entry("ormqr_prim", primitive="Ormqr", functional=False,
          args=[Arg("x"), Arg("tau"), Arg("other"), Arg("left", "value", default=True, init=True),
                Arg("transpose", "value", default=False, init=True)])
def _ormqr_prim(x, tau, other, left=True, transpose=False):
    """ops.Ormqr(left, transpose)(x, tau, other)."""
    return ormqr(x, tau, other, left, transpose)
