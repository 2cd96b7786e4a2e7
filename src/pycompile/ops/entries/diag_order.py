"""Diagonals (diag, diagonal, diagflat), cross, logcumsumexp, matrix_power and median, composed
from the table's ops. Values recorded from the wheel in tests/conformance/cases_entries.py."""
import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.entries.layout_extra import narrow
from pycompile.ops.entry import Arg, op_entry


def _offset_mask(rows, cols, offset):
    r = ops.reshape(ops.arange(0, rows, 1, dtype=mstype.int32), (rows, 1))
    c = ops.reshape(ops.arange(0, cols, 1, dtype=mstype.int32), (1, cols))
    return F.equal(c - r, offset)


@op_entry("diag", tensor_method=True, args=[Arg("input")])
def diag(input):
    """A tensor of rank 2k holding the rank-k input on its diagonal: out[i, j, ..., i, j, ...] =
    input[i, j, ...] (MindSpore's Diag: a 2-D input gives a 4-D result, not its diagonal)."""
    n = input.size
    flat = ops.reshape(input, (1, n))
    square = ops.where(_offset_mask(n, n, 0), ops.broadcast_to(flat, (n, n)), F.zeros_like(ops.broadcast_to(flat, (n, n))))
    return ops.reshape(square, tuple(input.shape) * 2)


@op_entry("diagonal", tensor_method=True,
          args=[Arg("input"), Arg("offset", "value", default=0), Arg("dim1", "value", default=0),
                Arg("dim2", "value", default=1)])
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes, `offset` above (> 0) or below the main one, as the
    last axis after the remaining ones."""
    nd = input.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise OpValueError(f"For 'diagonal', 'dim1' and 'dim2' must differ, but got {dim1} and {dim2}.")
    rest = [a for a in range(nd) if a not in (d1, d2)]
    x = ops.transpose(input, tuple(rest) + (d1, d2))
    rows, cols = input.shape[d1], input.shape[d2]
    picked = ops.sum(ops.where(_offset_mask(rows, cols, offset), x, F.zeros_like(x)), -1)
    start = max(0, -offset)
    length = max(0, min(rows, cols - offset) - start)
    out = narrow(picked, -1, start, length)
    return out if out.dtype == input.dtype else F.cast(out, input.dtype)


@op_entry("diagflat", tensor_method=True, args=[Arg("input"), Arg("offset", "value", default=0)])
def diagflat(input, offset=0):
    """The flattened input on the `offset` diagonal of a square 2-D tensor."""
    n, k = input.size, abs(offset)
    m = diag(ops.reshape(input, (n,)))
    if offset > 0:
        m = ops.concat((ops.zeros((n, k), input.dtype), m), 1)
        m = ops.concat((m, ops.zeros((k, n + k), input.dtype)), 0)
    elif offset < 0:
        m = ops.concat((ops.zeros((k, n), input.dtype), m), 0)
        m = ops.concat((m, ops.zeros((n + k, k), input.dtype)), 1)
    return m


@op_entry("cross", primitive="Cross", tensor_method=True, amp="promote",
          args=[Arg("input"), Arg("other"), Arg("dim", "value", default=None, init=True)])
def cross(input, other, dim=None):
    """The cross product of 3-vectors along `dim` (default: the first axis of size 3)."""
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise OpValueError(f"For 'cross', no dimension of the input has size 3: {tuple(input.shape)}.")
    if input.shape[dim] != 3:
        raise OpValueError(f"For 'cross', the size of dimension {dim} must be 3, but got {input.shape[dim]}.")
    a = [narrow(input, dim, i, 1) for i in range(3)]
    b = [narrow(other, dim, i, 1) for i in range(3)]
    return ops.concat((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]), dim)


@op_entry("logcumsumexp", tensor_method=True, args=[Arg("input"), Arg("axis", "value")])
def logcumsumexp(input, axis):
    """log(cumsum(exp(input), axis)), around the slice's maximum and in float64 for float32 /
    float16 inputs, so early terms far below the maximum keep their value instead of reaching
    log(0)."""
    wide = input.dtype in (mstype.float16, mstype.float32)
    x = F.cast(input, mstype.float64) if wide else input
    m = ops.amax(x, axis, True)
    m = ops.where(F.isinf(m), F.zeros_like(m), m)
    out = F.log(ops.cumsum(F.exp(x - m), axis)) + m
    return F.cast(out, input.dtype) if wide else out


@op_entry("matrix_power", tensor_method=True, args=[Arg("input"), Arg("n", "value")])
def matrix_power(input, n):
    """The n-th power of square matrices (the last two axes) by repeated squaring; n >= 0 (a
    negative power, which needs the inverse, is not supported yet)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise OpValueError(f"For 'MatrixPower', the 'n' must be an int, but got {type(n).__name__}.")
    if n < 0:
        raise OpValueError("For 'MatrixPower', a negative 'n' (the inverse) is not supported by pycompile yet.")
    size = input.shape[-1]
    result, base = None, input
    while n:
        if n & 1:
            result = base if result is None else ops.matmul(result, base)
        n >>= 1
        if n:
            base = ops.matmul(base, base)
    if result is None:
        eye = F.cast(ops.eye(size, size, mstype.float32), input.dtype)
        return ops.broadcast_to(eye, tuple(input.shape))
    return result


@op_entry("median", tensor_method=True,
          args=[Arg("input"), Arg("axis", "value", default=-1), Arg("keepdims", "value", default=False)])
def median(input, axis=-1, keepdims=False):
    """(values, Int64 indices) of the median along `axis`: the lower of the two middle values for
    an even count, as MindSpore."""
    values, indices = ops.sort(input, axis)
    k = (input.shape[axis] - 1) // 2
    v, i = narrow(values, axis, k, 1), F.cast(narrow(indices, axis, k, 1), mstype.int64)
    if not keepdims:
        v, i = ops.squeeze(v, axis), ops.squeeze(i, axis)
    return v, i
