"""More of MindSpore 2.10's tail as compositions: gcd / lcm (Euclid's algorithm, unrolled to the
dtype's worst case), population_count (the bits read off by division), fill_diagonal,
reverse_sequence, lu_unpack, intopk, iou, check_valid,
their Primitive classes (Gcd, Lcm, PopulationCount, FillDiagonal, ReverseSequence, LuUnpack,
LuSolve, InTopK, TripletMarginLoss, IOU, CheckValid) and Tensor
forms (gcd, lcm, fill_diagonal, reverse_sequence, qr). Values recorded from the wheel in
tests/conformance/cases_33b.py."""
import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entries import linalg_33b as L
from pycompile.ops.entry import Arg, op_entry, tensor_alias

_SIGNED = frozenset({mstype.int8, mstype.int16, mstype.int32, mstype.int64})
# the most steps Euclid's algorithm takes on the dtype's values (consecutive Fibonacci numbers)
_EUCLID_STEPS = {mstype.int8: 12, mstype.int16: 24, mstype.int32: 46, mstype.int64: 92}


def _euclid(a, b):
    a, b = F.abs(a), F.abs(b)
    for _ in range(_EUCLID_STEPS[a.dtype]):
        zero = F.equal(b, 0)
        safe = ops.where(zero, F.ones_like(b), b)
        a, b = ops.where(zero, a, b), ops.where(zero, b, ops.remainder(a, safe))
    return a


def _same_int(op, x, y):
    if x.dtype not in _SIGNED or y.dtype != x.dtype:
        raise OpTypeError(f"For '{op}', 'input' and 'other' must be signed integer Tensors of one dtype, but got "
                          f"{x.dtype} and {y.dtype}.")
    shape = tuple(np.broadcast_shapes(tuple(x.shape), tuple(y.shape)))
    return ops.broadcast_to(x, shape), ops.broadcast_to(y, shape)


@op_entry("gcd", primitive="Gcd", tensor_method=True, args=[Arg("input"), Arg("other")])
def gcd(input, other):
    """The greatest common divisor of |input| and |other| (gcd(0, 0) = 0)."""
    return _euclid(*_same_int("Gcd", input, other))


@op_entry("lcm", primitive="Lcm", tensor_method=True, args=[Arg("input"), Arg("other")])
def lcm(input, other):
    """The least common multiple of |input| and |other| (0 when either is 0)."""
    x, y = _same_int("Lcm", input, other)
    g = _euclid(x, y)
    safe = ops.where(F.equal(g, 0), F.ones_like(g), g)
    return F.abs(ops.floor_divide(x, safe) * y)


_POP_DTYPES = {mstype.int8: 8, mstype.uint8: 8, mstype.int16: 16, mstype.uint16: 16, mstype.int32: 32,
               mstype.uint32: 32, mstype.int64: 64}


@op_entry("population_count", primitive="PopulationCount", args=[Arg("input_x")])
def population_count(input_x):
    """The number of set bits of each element's two's-complement representation, as UInt8."""
    bits = _POP_DTYPES.get(input_x.dtype)
    if bits is None:
        raise OpTypeError(f"For 'PopulationCount', the input must be an integer Tensor, but got {input_x.dtype}.")
    if bits == 64:
        x = input_x
        neg = F.less(x, 0)
        # two's complement: the bits of -1 - x flipped; count x's low 63 bits, then the sign bit
        x = ops.where(neg, -1 - x, x)
        count = F.zeros_like(x)
        for _ in range(63):
            count = count + ops.remainder(x, 2)
            x = ops.floor_divide(x, 2)
        count = ops.where(neg, 64 - count, count)
        return F.cast(count, mstype.uint8)
    x = F.cast(input_x, mstype.int64)
    x = ops.where(F.less(x, 0), x + (1 << bits), x)                  # the unsigned value of the same bits
    count = F.zeros_like(x)
    for _ in range(bits):
        count = count + ops.remainder(x, 2)
        x = ops.floor_divide(x, 2)
    return F.cast(count, mstype.uint8)


def _fill_value(v, op):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise OpTypeError(f"For '{op}', 'fill_value' must be a number, but got {type(v).__name__}.")


@op_entry("fill_diagonal", primitive="FillDiagonal", functional=False, tensor_method=True,
          args=[Arg("input"), Arg("fill_value", "value", init=True, check=_fill_value),
                Arg("wrap", "value", default=False, init=True)])
def fill_diagonal(input, fill_value, wrap=False):
    """input with its main diagonal (every axis equal) set to fill_value; for a tall matrix with
    wrap, the diagonal starts again every n + 1 rows."""
    if input.ndim < 2:
        raise OpValueError(f"For 'FillDiagonal', the input must have at least 2 dimensions, but got {input.ndim}.")
    if input.ndim > 2 and len(set(input.shape)) != 1:
        raise OpValueError(f"For 'FillDiagonal', all dimensions must be equal for an input of more than 2, but got "
                           f"{tuple(input.shape)}.")
    idx = np.indices(tuple(input.shape))
    if input.ndim == 2:
        rows, cols = input.shape
        period = cols + 1
        flat = idx[0] * cols + idx[1]
        mask = (flat % period == 0) & ((idx[0] < cols) | wrap)
    else:
        mask = np.all(idx == idx[0], axis=0)
    return ops.where(Tensor(mask), F.fill(input.dtype, (), fill_value), input)


@op_entry("reverse_sequence", args=[Arg("x"), Arg("seq_lengths"), Arg("seq_dim", "value"),
                                    Arg("batch_dim", "value", default=0)])
def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """For each b along batch_dim, the first seq_lengths[b] elements along seq_dim reversed."""
    nd = x.ndim
    sd, bd = seq_dim % nd, batch_dim % nd
    n = x.shape[sd]
    t = ops.reshape(ops.arange(0, n, 1, dtype=mstype.int64), tuple(n if i == sd else 1 for i in range(nd)))
    lens = ops.reshape(F.cast(seq_lengths, mstype.int64), tuple(-1 if i == bd else 1 for i in range(nd)))
    idx = ops.where(F.less(t, lens), lens - 1 - t, t)
    idx = ops.broadcast_to(F.cast(idx, mstype.int32), tuple(x.shape))
    return ops.gather_elements(x, sd, idx)


@op_entry("reverse_sequence_prim", primitive="ReverseSequence", functional=False,
          args=[Arg("x"), Arg("seq_lengths"), Arg("seq_dim", "value", init=True),
                Arg("batch_dim", "value", default=0, init=True)])
def _reverse_sequence_prim(x, seq_lengths, seq_dim, batch_dim=0):
    """ops.ReverseSequence(seq_dim, batch_dim)(x, seq_lengths)."""
    return reverse_sequence(x, seq_lengths, seq_dim, batch_dim)


@tensor_alias("reverse_sequence")
def _reverse_sequence_method(self, seq_lengths, seq_dim=0, batch_dim=0):
    """`x.reverse_sequence(seq_lengths, seq_dim=0, batch_dim=0)`."""
    return reverse_sequence(self, seq_lengths, seq_dim, batch_dim)


@tensor_alias("qr")
def _qr_method(self, some=True):
    """`x.qr(some=True)`: ops.qr in 'reduced' (some) or 'complete' mode."""
    return L.qr(self, "reduced" if some else "complete")


@op_entry("lu_unpack", args=[Arg("LU_data"), Arg("LU_pivots"), Arg("unpack_data", "value", default=True),
                             Arg("unpack_pivots", "value", default=True)])
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) of a packed LU factorization (LAPACK's getrf): A = P L U."""
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    lead = tuple(LU_data.shape[:-2])
    low = ops.narrow(ops.tril(LU_data, -1), LU_data.ndim - 1, 0, k) + ops.broadcast_to(
        Tensor(np.eye(m, k, dtype=LU_data.dtype.np)), lead + (m, k))
    up = ops.narrow(ops.triu(LU_data), LU_data.ndim - 2, 0, k)
    rows = Tensor(np.arange(m, dtype=np.int32))
    perm = ops.broadcast_to(rows, lead + (m,))
    piv = F.cast(LU_pivots, mstype.int32) - 1
    for i in range(piv.shape[-1]):
        p = ops.narrow(piv, piv.ndim - 1, i, 1)
        pi = ops.narrow(perm, perm.ndim - 1, i, 1)
        pp = ops.gather_elements(perm, perm.ndim - 1, p)
        swap = ops.where(F.equal(rows, i), pp, ops.where(F.equal(rows, p), pi, perm))
        perm = swap
    # row r of P L U is row perm[r] of the LU rows: P[perm[r], r] = 1
    pmat = F.cast(F.equal(ops.expand_dims(rows, -1), ops.expand_dims(perm, -2)), LU_data.dtype)
    return (pmat if unpack_pivots else ops.zeros((0,), LU_data.dtype),
            low if unpack_data else ops.zeros((0,), LU_data.dtype), up if unpack_data else ops.zeros((0,), LU_data.dtype))


@op_entry("lu_unpack_prim", primitive="LuUnpack", functional=False,
          args=[Arg("LU_data"), Arg("LU_pivots"), Arg("unpack_data", "value", default=True, init=True),
                Arg("unpack_pivots", "value", default=True, init=True)])
def _lu_unpack_prim(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """ops.LuUnpack(...)(LU_data, LU_pivots)."""
    return lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)


@op_entry("lu_solve_prim", primitive="LuSolve", functional=False, args=[Arg("x"), Arg("lu_data"), Arg("lu_pivots")])
def _lu_solve_prim(x, lu_data, lu_pivots):
    """ops.LuSolve()(b, LU_data, LU_pivots)."""
    return ops.lu_solve(x, lu_data, lu_pivots)


@op_entry("intopk", primitive="InTopK", args=[Arg("x1"), Arg("x2"), Arg("k", "value", init=True)])
def intopk(x1, x2, k):
    """Whether each row's target (x2) is among its k largest predictions (ties count in favour)."""
    target = ops.gather_elements(x1, 1, ops.expand_dims(F.cast(x2, mstype.int32), 1))
    above = ops.sum(F.cast(F.greater(x1, target), mstype.int32), 1)
    return F.less(above, k)


@op_entry("triplet_margin_loss_prim", primitive="TripletMarginLoss", functional=False,
          args=[Arg("x"), Arg("positive"), Arg("negative"), Arg("margin"), Arg("p", "value", default=2, init=True),
                Arg("swap", "value", default=False, init=True), Arg("eps", "value", default=1e-06, init=True),
                Arg("reduction", "value", default="mean", init=True)])
def _triplet_margin_loss_prim(x, positive, negative, margin, p=2, swap=False, eps=1e-06, reduction="mean"):
    """ops.TripletMarginLoss(p, swap, eps, reduction)(x, positive, negative, margin) (margin a 0-d Tensor)."""
    return ops.triplet_margin_loss(x, positive, negative, margin, p, eps, swap, reduction)


def _area(b):
    return (ops.narrow(b, 1, 2, 1) - ops.narrow(b, 1, 0, 1) + 1.0) * (ops.narrow(b, 1, 3, 1) - ops.narrow(b, 1, 1, 1) + 1.0)


@op_entry("iou", primitive="IOU", args=[Arg("anchor_boxes"), Arg("gt_boxes"), Arg("mode", "value", default="iou", init=True)])
def iou(anchor_boxes, gt_boxes, mode="iou"):
    """(M, N) overlaps of M ground-truth and N anchor boxes (x1, y1, x2, y2), pixel-inclusive (+1):
    intersection over union ('iou') or over the ground-truth box's area ('iof')."""
    if mode not in ("iou", "iof"):
        raise OpValueError(f"For 'IOU', 'mode' must be 'iou' or 'iof', but got {mode!r}.")
    a, g = anchor_boxes, gt_boxes
    ax1, ay1, ax2, ay2 = (ops.reshape(ops.narrow(a, 1, i, 1), (1, -1)) for i in range(4))
    gx1, gy1, gx2, gy2 = (ops.narrow(g, 1, i, 1) for i in range(4))
    w = ops.maximum(ops.minimum(ax2, gx2) - ops.maximum(ax1, gx1) + 1.0, F.zeros_like(ax1 + gx1))
    h = ops.maximum(ops.minimum(ay2, gy2) - ops.maximum(ay1, gy1) + 1.0, F.zeros_like(ay1 + gy1))
    inter = w * h
    ga = _area(g)
    if mode == "iof":
        return inter / ga
    return inter / (ops.reshape(_area(a), (1, -1)) + ga - inter)


@op_entry("check_valid", primitive="CheckValid", args=[Arg("bboxes"), Arg("img_metas")])
def check_valid(bboxes, img_metas):
    """Whether each box (x1, y1, x2, y2) lies in the image of img_metas (height, width, ratio)."""
    hgt = ops.narrow(img_metas, 0, 0, 1) * ops.narrow(img_metas, 0, 2, 1)
    wid = ops.narrow(img_metas, 0, 1, 1) * ops.narrow(img_metas, 0, 2, 1)
    x1, y1, x2, y2 = (ops.squeeze(ops.narrow(bboxes, 1, i, 1), 1) for i in range(4))
    ok = F.logical_and(F.greater_equal(x1, 0), F.greater_equal(y1, 0))
    ok = F.logical_and(ok, F.logical_and(F.less_equal(x2, wid - 1), F.less_equal(y2, hgt - 1)))
    return ok
