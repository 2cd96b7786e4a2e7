"""MindSpore's band-diagonal ops, TensorFlow's V3 forms (issue 33, mat33): MatrixDiagV3 /
ops.matrix_diag (diagonals -> a batch of matrices), MatrixDiagPartV3 / ops.matrix_diag_part
(matrices -> their diagonals k[0]..k[1]) and MatrixSetDiagV3 / ops.matrix_set_diag.

`k` (one diagonal or a (low, high) pair), `num_rows` and `num_cols` set the result's shape, so
they are read when compiling: Python ints, or int32 Tensors (graph inputs compile once per value,
tracing.needs_value). Each op is then a gather with a constant index map and a `where` with a
constant mask (the padding value, or the input matrix, outside the band): its gradient and its
batch rule are those ops'. `align` says where a diagonal shorter than the longest one sits in its
row: "RIGHT_LEFT" puts superdiagonals (and the main one) at the right and subdiagonals at the left.
Values and errors recorded from the wheel in tests/conformance/cases_mat33.py."""
import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import REAL, Arg, op_entry
from pycompile.ops.tracing import needs_value

_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")
_X_TYPES = "{" + ", ".join(f"Tensor[{n}]" for n in ("BFloat16", "Float16", "Float32", "Float64", "Int16", "Int32",
                                                     "Int64", "Int8", "UInt16", "UInt32", "UInt64", "UInt8")) + "}"


def _check_align(align, op):
    if not isinstance(align, str):
        raise OpTypeError(f"For '{op}', the type of 'align' should be 'str', but got type '{type(align).__name__}'.")
    if align not in _ALIGNS:
        raise OpValueError(f"For '{op}', the 'align' must be str and must be in '{list(_ALIGNS)}', but got '{align}'.")


def _check_x(x, op, what="x"):
    if not isinstance(x, TensorMethods):
        raise OpTypeError(f"For primitive[{op}], the input[{what}] should be a Tensor, but got {type(x).__name__}.")
    if x.dtype not in REAL:
        raise OpTypeError(f"For primitive[{op}], the input argument[{what}] must be a type of {_X_TYPES}, "
                          f"but got Tensor[{x.dtype}].")


def known_ints(v, what, op, ranks=(0, 1)):
    """The values of an argument that sets a shape: a Python int (or ints), or an int32 Tensor's
    values (in graph code, a graph input compiles once per value: tracing.needs_value)."""
    if isinstance(v, TensorMethods):
        if v.dtype is not mstype.int32:
            raise OpTypeError(f"For primitive[{op}], the input argument[{what}] must be a type of "
                              f"{{Tensor[Int32]}}, but got Tensor[{v.dtype}].")
        c = v
        while isinstance(c, Symbolic):
            c = getattr(c, "primal", None)
        if c is None:
            known = needs_value(v, f"'{what}' of '{op}', which sets the output's shape")
            if known is None:
                raise OpTypeError(f"For '{op}', '{what}' sets the output's shape, so it must be known when the graph "
                                  f"is compiled (a Python int, or a Tensor given to the graph or made outside it).")
            a = np.asarray(known)
        else:
            a = np.asarray(c.asnumpy())
        if a.ndim not in ranks:
            lo, hi = ranks[0], ranks[-1]
            want = f"equal to {lo}" if lo == hi else f"in [{lo},{hi}]"
            raise OpValueError(f"For primitive[{op}], the rank of '{what}' must be {want}, but got {a.ndim}.")
        return [int(i) for i in a.reshape(-1)]
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return [int(v)]
    if isinstance(v, (tuple, list)) and all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in v):
        return [int(i) for i in v]
    raise OpTypeError(f"For primitive[{op}], the input[{what}] should be a Tensor, but got {type(v).__name__}.")


def _k_pair(k, op, size_msg):
    ks = known_ints(k, "k", op)
    if not 1 <= len(ks) <= 2:
        raise OpValueError(size_msg.format(len(ks)))
    return ks[0], ks[-1]


def _padding(p, x, op):
    if isinstance(p, TensorMethods):
        if p.ndim != 0:
            raise OpValueError(f"For primitive[{op}], the rank of 'padding_value' must be equal to 0, but got {p.ndim}.")
        if p.dtype is not x.dtype:
            raise OpTypeError(f"For '{op}', the dtype of two args should be same, but the dtype of first arg "
                              f"Tensor[{x.dtype}] is not consistent with the dtype of second arg Tensor[{p.dtype}]")
        return p
    return F.cast(Tensor(np.asarray(p)), x.dtype)


def _diag_len(rows, cols, d):
    """The length of diagonal d of a rows x cols matrix."""
    return min(rows + min(d, 0), cols - max(d, 0))


def _offset(align, d, length, max_len):
    """Where diagonal d (of `length` elements) starts in its row of `max_len`."""
    right = align.split("_")[0 if d >= 0 else 1] == "RIGHT"
    return max_len - length if right else 0


def _band_map(rows, cols, k0, k1, max_len, align):
    """For each (i, j) of a rows x cols matrix: its place in the (num_diags, max_len) diagonals
    array (flat) and whether (i, j) is on a diagonal k0..k1 (with a place in that array)."""
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    d = j - i
    place = np.zeros((rows, cols), np.int64)
    on = (d >= k0) & (d <= k1)
    for dd in range(k0, k1 + 1):
        sel = on & (d == dd)
        off = _offset(align, dd, _diag_len(rows, cols, dd), max_len)
        p = (i if dd >= 0 else j)[sel] + off
        ok = (p >= 0) & (p < max_len)
        idx = np.where(ok, (k1 - dd) * max_len + p, 0)
        place[sel] = idx
        on[sel] = ok
    return place, on


def _gather_map(src, n_inner, index, shape):
    """src (..., n_inner) gathered at the constant flat `index` (any shape), as (...,) + shape."""
    lead = tuple(src.shape[:-1])
    flat = ops.reshape(src, lead + (n_inner,))
    out = F.gather(flat, Tensor(np.ascontiguousarray(index.reshape(-1)).astype(np.int32)), len(lead))
    return ops.reshape(out, lead + tuple(shape))


def _where_const(mask, a, b):
    if mask.all():
        return a
    return ops.where(Tensor(mask), a, b)


@op_entry("matrix_diag", primitive="MatrixDiagV3",
          args=[Arg("x", "value"), Arg("k", "value", default=0), Arg("num_rows", "value", default=-1),
                Arg("num_cols", "value", default=-1), Arg("padding_value", "value", default=0),
                Arg("align", "value", default="RIGHT_LEFT", init=True, check=_check_align)])
def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """A batch of matrices with diagonals k[0]..k[1] from x (..., num_diags, max_diag_len) (or
    (..., max_diag_len) for one diagonal), `padding_value` elsewhere."""
    op = "MatrixDiagV3"
    _check_x(x, op)
    if x.ndim < 1:
        raise OpValueError(f"For primitive[{op}], the rank of 'x' must be greater than or equal to 1, but got 0.")
    k0, k1 = _k_pair(k, op, "For primitive[MatrixDiagV3], the size of 'k' must be in [1,2], but got {}.")
    rows = known_ints(num_rows, "num_rows", op, (0,))[0]
    cols = known_ints(num_cols, "num_cols", op, (0,))[0]
    pad = _padding(padding_value, x, op)
    if k0 > k1:
        raise OpValueError(f"For MatrixDiagV3, k[0] must not be greater than k[1], but got k[0] is {k0}, "
                           f"k[1] is {k1}.")
    n_diags = k1 - k0 + 1
    if n_diags > 1 and (x.ndim < 2 or x.shape[-2] != n_diags):
        raise OpValueError("For MatrixDiagV3, the input x_shape[-2] doesn't match with k value.")
    max_len = x.shape[-1]
    min_rows, min_cols = max_len - min(k1, 0), max_len + max(k0, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows < min_rows:
        raise OpValueError("For MatrixDiagV3, the number of rows is too small.")
    if cols < min_cols:
        raise OpValueError("For MatrixDiagV3, the number of columns is too small.")
    if rows != min_rows and cols != min_cols:
        raise OpValueError("For MatrixDiagV3, the number of rows or columns is not consistent with the specified k "
                           "and x.")
    lead = tuple(x.shape[:-2] if n_diags > 1 else x.shape[:-1])
    place, on = _band_map(rows, cols, k0, k1, max_len, align)
    src = ops.reshape(x, lead + (n_diags * max_len,))
    return _where_const(on, _gather_map(src, n_diags * max_len, place, (rows, cols)), pad)


def _band_checks(x, k, op):
    _check_x(x, op)
    if x.ndim < 2:
        raise OpValueError(f"For primitive[{op}], the x rank must be greater than or equal to 2, but got {x.ndim}.")
    k0, k1 = _k_pair(k, op, f"For primitive[{op}], the k size must be in [1,2], but got {{}}.")
    rows, cols = x.shape[-2], x.shape[-1]
    for kk in (k0, k1):
        if not -rows < kk < cols:
            raise OpValueError(f"For {op}, the value of k must be in (-x.shape[-2], x.shape[-1]), meaning the value of "
                               f"k must be in ({-rows}, {cols}) in this case, but got {kk}.")
    if k0 > k1:
        raise OpValueError(f"For {op}, k[0] can not be greater than k[1].")
    return k0, k1, rows, cols, min(rows + min(k1, 0), cols + min(-k0, 0))


def _part_map(rows, cols, k0, k1, max_len, align):
    """For each (diagonal, position) of the (num_diags, max_len) result: its flat place in the
    rows x cols matrix and whether it holds an element (else padding)."""
    n = k1 - k0 + 1
    place = np.zeros((n, max_len), np.int64)
    on = np.zeros((n, max_len), bool)
    p = np.arange(max_len)
    for di in range(n):
        d = k1 - di
        length = _diag_len(rows, cols, d)
        q = p - _offset(align, d, length, max_len)
        ok = (q >= 0) & (q < length)
        i, j = (q, q + d) if d >= 0 else (q - d, q)
        place[di] = np.where(ok, i * cols + j, 0)
        on[di] = ok
    return place, on


@op_entry("matrix_diag_part", primitive="MatrixDiagPartV3",
          args=[Arg("x", "value"), Arg("k", "value"), Arg("padding_value", "value"),
                Arg("align", "value", default="RIGHT_LEFT", init=True, check=_check_align)])
def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """Diagonals k[0]..k[1] of each matrix of x (..., M, N): (..., num_diags, max_diag_len), or
    (..., max_diag_len) for one diagonal, short diagonals padded with `padding_value`."""
    op = "MatrixDiagPartV3"
    k0, k1, rows, cols, max_len = _band_checks(x, k, op)
    pad = _padding(padding_value, x, op)
    place, on = _part_map(rows, cols, k0, k1, max_len, align)
    shape = place.shape if k0 != k1 else (max_len,)
    src = ops.reshape(x, tuple(x.shape[:-2]) + (rows * cols,))
    return _where_const(on.reshape(shape), _gather_map(src, rows * cols, place, shape), pad)


@op_entry("matrix_set_diag", primitive="MatrixSetDiagV3",
          args=[Arg("x", "value"), Arg("diagonal", "value"), Arg("k", "value", default=0),
                Arg("align", "value", default="RIGHT_LEFT", init=True, check=_check_align)])
def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """x with its diagonals k[0]..k[1] replaced by `diagonal` (as matrix_diag_part returns them)."""
    op = "MatrixSetDiagV3"
    k0, k1, rows, cols, max_len = _band_checks(x, k, op)
    _check_x(diagonal, op, "diagonal")
    n_diags = k1 - k0 + 1
    if n_diags > 1 and (diagonal.ndim < 2 or diagonal.shape[-2] != n_diags):
        raise OpValueError(f"For MatrixSetDiagV3, diagonal.shape[-2] is not equal to num_diags calculated by k[1] - "
                           f"k[0] + 1, which value is {n_diags} in this case, but got diagonal.shape[-2]: "
                           f"{diagonal.shape[-2] if diagonal.ndim >= 2 else None} in this case.")
    if diagonal.shape[-1] != max_len:
        raise OpValueError(f"For MatrixSetDiagV3, diagonal.shape[-1] is not equal to max_diag_len calculated by "
                           f"min(x.shape[-2] + min(k[1], 0), x.shape[-1] + min(-k[0], 0)), which value is {max_len} "
                           f"in this case, but got diagonal.shape[-1]: {diagonal.shape[-1]} in this case.")
    lead = tuple(diagonal.shape[:-2] if n_diags > 1 else diagonal.shape[:-1])
    if lead != tuple(x.shape[:-2]):
        raise OpValueError("For MatrixSetDiagV3, diagonal shape value don't match with x shape value.")
    place, on = _band_map(rows, cols, k0, k1, max_len, align)
    src = ops.reshape(F.cast(diagonal, x.dtype), lead + (n_diags * max_len,))
    return _where_const(~on, x, _gather_map(src, n_diags * max_len, place, (rows, cols)))
