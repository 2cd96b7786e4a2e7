"""The everyday surface compiled inside `@jit`, against its eager results and NumPy: GatherD /
GatherNd / the scatters (partial index shapes, negative and repeated indices, float16
accumulation, indices out of range at run time), CumSum / CumProd (every axis position - the
contiguous-row and the blocked last-axis loops - exclusive, reverse, large shapes that run
threaded), Argsort / TopKIndices (the merge sort and the top-k selection, ties, NaN, both
directions), Argmin, and the compositions of function_array / function_index / function_math
(split, one_hot, triangles, flips, masks, norms, products, einsum, item assignment)."""
from __future__ import annotations

import numpy as np
import pytest

from opcheck import F16, F32, F64, I32, I64, TOL_REDUCE, Check, Group, op_specs, params

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.ops import function_index as X
from pycompile.ops import prims as P
from pycompile.ops._table import apply


def _a(dtype, *shape, seed=0, domain="any"):
    return op_specs.sample(dtype, shape, domain, seed=seed)


def _stable(x, axis, descending):
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    return np.flip(n - 1 - np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)


def _topk_idx(x, k, axis, largest):
    return np.take(_stable(x, axis, largest), np.arange(k), axis=axis).astype(I32)


def _take_d(x, axis, idx):
    cut = x[tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(idx.shape))]
    return np.take_along_axis(cut, np.where(idx < 0, idx + x.shape[axis], idx).astype(np.int64), axis)


def _scatter(x, idx, upd, add):
    out = x.copy()
    m = idx.shape[-1]
    for row, u in zip(idx.reshape(-1, m), upd.reshape((-1,) + x.shape[m:])):
        out[tuple(row)] = out[tuple(row)] + u if add else u
    return out


def _scatter_max(x, idx, upd):
    out = x.copy()
    m = idx.shape[-1]
    for row, u in zip(idx.reshape(-1, m), upd.reshape((-1,) + x.shape[m:])):
        out[tuple(row)] = np.where(out[tuple(row)] < u, u, out[tuple(row)])
    return out


def _scatter_el(x, idx, upd, axis, add):
    out = x.copy()
    n = x.shape[axis]
    for pos in np.ndindex(*idx.shape):
        i = int(idx[pos])
        if -n <= i < n:
            dst = list(pos)
            dst[axis] = i % n
            out[tuple(dst)] = out[tuple(dst)] + upd[pos] if add else upd[pos]
    return out


def index_checks(dtype) -> list:
    x = _a(dtype, 4, 5, 3)
    i_d = np.array([[[0], [-1], [2]], [[4], [4], [-5]]], I32)          # (2, 3, 1): partial dims, negative
    nd2 = np.array([[3, 4], [0, 0], [3, 4]], I64)                        # repeated rows
    upd_rows = _a(dtype, 3, 3, seed=1)
    add_ok = np.dtype(dtype).kind != "b"
    c = [
        Check("GatherD axis 1", ("GatherD",), lambda v, i: ops.gather_elements(v, 1, i), (x, i_d),
              lambda v, i: _take_d(v, 1, i)),
        Check("GatherD axis -1", ("GatherD",), lambda v, i: ops.gather_d(v, -1, i),
              (x, np.array([[[2, 0, 1, 1]]] * 4, I64).reshape(4, 1, 4)[:, :, :3].copy()),
              lambda v, i: _take_d(v, 2, i)),
        Check("GatherNd rows", ("GatherNd",), ops.gather_nd, (x, nd2), lambda v, i: v[tuple(i.T)]),
        Check("GatherNd elements", ("GatherNd",), ops.gather_nd, (x, np.array([[1, 2, 0], [3, 4, 2]], I32)),
              lambda v, i: v[tuple(i.T)]),
        Check("GatherNd empty index", ("GatherNd",), ops.gather_nd, (x, np.zeros((0, 1), I32)),
              lambda v, i: v[i[:, 0]]),
        Check("TensorScatterUpdate rows", ("TensorScatterUpdate",), ops.tensor_scatter_update,
              (x, np.array([[1, 2], [3, 0], [0, 4]], I32), upd_rows), lambda v, i, u: _scatter(v, i, u, False)),
        Check("TensorScatterElements axis 1", ("TensorScatterElements",),
              lambda v, i, u: ops.tensor_scatter_elements(v, i, u, 1),
              (x, np.array([[[0, 1, 2], [4, -1, 9]]] * 4, I64), _a(dtype, 4, 2, 3, seed=2)),
              lambda v, i, u: _scatter_el(v, i, u, 1, False)),
    ]
    if add_ok:
        c += [
            Check("TensorScatterAdd repeated", ("TensorScatterAdd",), ops.tensor_scatter_add,
                  (x, nd2, upd_rows), lambda v, i, u: _scatter(v, i, u, True)),
            # the arithmetic scatters' core row itself (the rows above become it before rendering)
            Check("TensorScatterCombine max repeated", ("TensorScatterCombine",),
                  lambda v, i, u: apply(P.TensorScatterCombine, [v, i, u],
                                        {"combine": "max", "op_name": "TensorScatterMax"}),
                  (x, nd2, upd_rows), lambda v, i, u: _scatter_max(v, i, u)),
            Check("scatter_nd", ("TensorScatterAdd",), lambda i, u: ops.scatter_nd(i, u, (4, 5, 3)),
                  (nd2, upd_rows), lambda i, u: _scatter(np.zeros((4, 5, 3), dtype), i, u, True)),
            Check("TensorScatterElements add axis 0", ("TensorScatterElements",),
                  lambda v, i, u: ops.tensor_scatter_elements(v, i, u, 0, "add"),
                  (x, np.array([[[0, 3, 3]] * 5] * 2, I32), _a(dtype, 2, 5, 3, seed=3)),
                  lambda v, i, u: _scatter_el(v, i, u, 0, True)),
        ]
    return c


def _cumsum_ref(x, axis, exclusive=False, reverse=False, prod=False):
    v = np.flip(x, axis) if reverse else x
    fn = np.cumprod if prod else np.cumsum
    out = fn(v, axis=axis, dtype=x.dtype)      # float16: rounded at every step, as MindSpore's kernel
    if exclusive:
        first = np.full_like(np.take(out, [0], axis), 1 if prod else 0)
        out = np.concatenate([first, np.delete(out, -1, axis)], axis)
    out = out.astype(x.dtype)
    return np.flip(out, axis) if reverse else out


def scan_checks(dtype) -> list:
    x = _a(dtype, 3, 37, 5)
    small = _a(dtype, 5, 4, domain="pos" if np.dtype(dtype).kind == "f" else "small", seed=2)
    c = []
    for axis in (0, 1, 2, -1):
        c.append(Check(f"CumSum axis {axis}", ("CumSum",), lambda v, a=axis: ops.cumsum(v, a), (x,),
                       lambda v, a=axis: _cumsum_ref(v, a), tol=TOL_REDUCE))
    c += [
        Check("CumSum exclusive reverse last", ("CumSum",), lambda v: ops.CumSum(True, True)(v, 2), (x,),
              lambda v: _cumsum_ref(v, 2, True, True), tol=TOL_REDUCE),
        Check("CumSum exclusive axis 1", ("CumSum",), lambda v: ops.CumSum(exclusive=True)(v, 1), (x,),
              lambda v: _cumsum_ref(v, 1, True), tol=TOL_REDUCE),
        Check("CumSum 1-D", ("CumSum",), lambda v: ops.cumsum(v, 0), (_a(dtype, 50, seed=3),),
              lambda v: _cumsum_ref(v, 0), tol=TOL_REDUCE),
        Check("CumProd axis 0", ("CumProd",), lambda v: ops.CumProd()(v, 0), (small,),
              lambda v: _cumsum_ref(v, 0, prod=True), tol=TOL_REDUCE),
        Check("CumProd reverse last", ("CumProd",), lambda v: ops.CumProd(reverse=True)(v, 1), (small,),
              lambda v: _cumsum_ref(v, 1, reverse=True, prod=True), tol=TOL_REDUCE),
    ]
    return c


def sort_checks(dtype) -> list:
    x = _a(dtype, 4, 70)                              # ties among the half-grid values; > 16: merges
    col = _a(dtype, 40, 3, seed=1)
    c = [
        Check("Argsort last", ("Argsort",), ops.argsort, (x,), lambda v: _stable(v, -1, False).astype(I32)),
        Check("Argsort desc axis 0", ("Argsort",), lambda v: ops.argsort(v, 0, True), (col,),
              lambda v: _stable(v, 0, True).astype(I32)),
        Check("Argsort short rows", ("Argsort",), lambda v: ops.argsort(v, 1, True), (_a(dtype, 6, 5, seed=4),),
              lambda v: _stable(v, 1, True).astype(I32)),
        Check("sort values", ("Argsort", "GatherD"), lambda v: ops.sort(v, 0)[0], (col,), lambda v: np.sort(v, 0)),
        Check("TopK select", ("TopKIndices",), lambda v: ops.topk(v, 5)[1], (x,),
              lambda v: _topk_idx(v, 5, -1, True)),
        Check("TopK smallest axis 0", ("TopKIndices",), lambda v: ops.topk(v, 3, 0, False)[1], (col,),
              lambda v: _topk_idx(v, 3, 0, False)),
        Check("TopK large k values", ("TopKIndices", "GatherD"), lambda v: ops.topk(v, 30)[0], (x,),
              lambda v: np.take_along_axis(v, _topk_idx(v, 30, -1, True).astype(np.int64), -1)),
        Check("Argmin", ("Argmin",), lambda v: ops.argmin(v, 1), (x,), lambda v: np.argmin(v, 1).astype(I32)),
        Check("Argmin flat keepdims", ("Argmin",), lambda v: ops.argmin(v, keepdims=True), (col,),
              lambda v: np.argmin(v, keepdims=True).astype(I32)),
    ]
    if np.dtype(dtype).kind == "f":
        nan = np.array([[1.0, np.nan, 3.0, 1.0, -np.inf, np.nan, 2.0]] * 2, dtype)
        c += [
            Check("Argsort NaN last", ("Argsort",), ops.argsort, (nan,), lambda v: _stable(v, -1, False).astype(I32)),
            Check("Argsort NaN first descending", ("Argsort",), lambda v: ops.argsort(v, descending=True), (nan,),
                  lambda v: _stable(v, -1, True).astype(I32)),
            Check("TopK NaN largest", ("TopKIndices",), lambda v: ops.topk(v, 3)[1], (nan,),
                  lambda v: _topk_idx(v, 3, -1, True)),
        ]
    return c


def _setitem(x, key, v):
    y = x.copy()
    y[key] = v
    return y


def surface_checks() -> list:
    x, y = _a(F32, 3, 4), _a(F32, 3, 4, seed=1)
    b = _a(np.bool_, 3, 4, seed=2)
    return [
        Check("split chunk unbind", ("StridedSlice",),
              lambda v: ops.split(v, [1, 3], 1) + ops.chunk(v, 2) + ops.unbind(v, 0), (x,),
              lambda v: (v[:, :1], v[:, 1:], v[:2], v[2:], v[0], v[1], v[2])),
        Check("one_hot", ("Equal", "Select"), lambda i: ops.one_hot(i, 5, 1.0, 0.0), (np.array([0, 4, -1, 7], I32),),
              lambda i: (i[:, None] == np.arange(5)).astype(F32)),
        Check("triu tril batched", ("Select",), lambda v: (ops.triu(v, 1), ops.tril(v, -1)), (_a(I64, 2, 3, 4),),
              lambda v: (np.triu(v, 1), np.tril(v, -1))),
        Check("flip repeat_elements", ("StridedSlice", "BroadcastTo"),
              lambda v: (ops.flip(v, (0, 1)), ops.repeat_elements(v, 2, 0)), (x,),
              lambda v: (v[::-1, ::-1], np.repeat(v, 2, 0))),
        Check("masked_fill nan_to_num clip", ("Select", "IsNan", "Maximum"),
              lambda v, m: (ops.masked_fill(v, m, -1.0), ops.nan_to_num(ops.log(v)), ops.clip_by_value(v, -0.5, 0.5)),
              (x, b), lambda v, m: (np.where(m, -1.0, v).astype(F32),
                                    np.nan_to_num(np.log(v), posinf=np.finfo(F32).max, neginf=np.finfo(F32).min),
                                    np.clip(v, -0.5, 0.5))),
        Check("norm l2normalize cosine", ("ReduceSum", "Sqrt"),
              lambda v, w: (ops.norm(v), ops.norm(v, 1, dim=0), ops.L2Normalize(1)(v), ops.cosine_similarity(v, w)),
              (x, y), lambda v, w: (np.linalg.norm(v).astype(F32), np.abs(v).sum(0),
                                    v / np.sqrt(np.maximum((v * v).sum(1, keepdims=True), 1e-4)),
                                    (v * w).sum(1) / (np.linalg.norm(v, axis=1) * np.linalg.norm(w, axis=1))),
              tol=TOL_REDUCE),
        Check("einsum tensor_dot baddbmm", ("BatchMatMul", "MatMul"),
              lambda q, k, m: (ops.einsum("bqd,bkd->bqk", q, k), ops.tensor_dot(q, m, 1),
                               ops.baddbmm(ops.zeros((2, 3, 5)), q, ops.transpose(k, (0, 2, 1)), alpha=0.5)),
              (_a(F32, 2, 3, 4), _a(F32, 2, 5, 4, seed=1), _a(F32, 4, 6, seed=2)),
              lambda q, k, m: (np.einsum("bqd,bkd->bqk", q, k), np.tensordot(q, m, 1),
                               0.5 * q @ np.transpose(k, (0, 2, 1))), tol=TOL_REDUCE),
        Check("max min with indices", ("ReduceMax", "Argmax", "Argmin"),
              lambda v: ops.max(v, 1) + ops.min(v, 0, keepdims=True), (x,),
              lambda v: (v.max(1), v.argmax(1), v.min(0, keepdims=True), v.argmin(0)[None])),
        Check("cumsum int32 cumprod int64", ("CumSum", "CumProd"),
              lambda i: (ops.cumsum(i, 1), ops.cumprod(i, 0)), (_a(I32, 3, 4, domain="small"),),
              lambda i: (np.cumsum(i, 1, dtype=I32), np.cumprod(i.astype(I64), 0))),
        Check("setitem slice and index tensor", ("TensorScatterUpdate",),
              lambda v, i: (X.setitem(v, (slice(None), slice(1, None)), 0.5), X.setitem(v, i, ops.ones((4,)))),
              (x, np.array([2, 0], I64)),
              lambda v, i: (_setitem(v, (slice(None), slice(1, None)), 0.5), _setitem(v, i, 1.0))),
        Check("setitem mask", ("Select",), lambda v, m: X.setitem(v, m, 2), (x, b), lambda v, m: np.where(m, 2, v)),
        Check("bool + bool operator", ("Add",), lambda p, q: p + q, (b, _a(np.bool_, 3, 4, seed=5)),
              lambda p, q: p | q),
        Check("einsum diagonal ellipsis", ("Mul", "ReduceSum", "BatchMatMul"),
              lambda a, c: (ops.einsum("ii->i", a), ops.einsum("ii", a), ops.einsum("...ij,...jk->...ik", c, a)),
              (_a(F32, 4, 4), _a(F32, 2, 3, 4, seed=2)),
              lambda a, c: (np.einsum("ii->i", a), np.einsum("ii", a), np.einsum("...ij,...jk->...ik", c, a)),
              tol=TOL_REDUCE),
        Check("clip_by_norm checked finite", ("CheckFinite",),
              lambda v: ops.clip_by_norm(v, 1.0, error_if_nonfinite=True), (_a(F32, 3, 4),),
              lambda v: (v * min(1.0, 1.0 / (np.sqrt((v.astype(np.float64) ** 2).sum()) + 1e-6))).astype(F32)),
    ]


INDEX = [Group(f"index_{np.dtype(dt).name}", index_checks(dt)) for dt in (F32, I64, F16, np.bool_)]
SCAN = [Group(f"scan_{np.dtype(dt).name}", scan_checks(dt)) for dt in (F32, I32, F16, F64)]
SORT = [Group(f"sort_{np.dtype(dt).name}", sort_checks(dt)) for dt in (F32, I64, F16)]
SURFACE = Group("surface", surface_checks())


def _svals(x, axes=(-2, -1)):
    return np.linalg.svd(np.moveaxis(x.astype(np.float64), axes, (-2, -1)), compute_uv=False)


def _factors(x):
    """The Svd factors checked by what they must satisfy (their signs are the kernel's choice):
    u diag(s) v^T rebuilds x, u^T u and v^T v are the identity."""
    u, s, v = (apply(P.Svd, [x], {"part": p}) for p in "usv")
    vt = ops.transpose(v, (0, 2, 1))
    return (ops.matmul(u * ops.expand_dims(s, 1), vt), ops.matmul(ops.transpose(u, (0, 2, 1)), u),
            ops.matmul(vt, v))


def linalg_checks() -> list:
    eye = np.broadcast_to(np.eye(3), (2, 3, 3))
    near = np.diag([3.0, 1.0, 1.0 + 1e-9, 1e-7]).astype(F64) @ _a(F64, 4, 4, seed=3)     # repeated, tiny values
    return [
        Check("matrix norms float32", ("Svd",),
              lambda v: (ops.norm(v, 2), ops.norm(v, -2), ops.norm(v, "nuc"), ops.matrix_norm(v.T, 2, keepdims=True)),
              (_a(F32, 3, 4),),
              lambda v: (_svals(v).max().astype(F32), _svals(v).min().astype(F32), _svals(v).sum().astype(F32),
                         _svals(v).max().astype(F32).reshape(1, 1)), tol=TOL_REDUCE),
        Check("matrix norms float64 batched dims", ("Svd",),
              lambda v, z: (ops.matrix_norm(v, "nuc"), ops.norm(v, -2, dim=(2, 0)), ops.norm(z, 2), ops.norm(z, "nuc")),
              (_a(F64, 2, 6, 3), np.zeros((3, 3), F64)),
              lambda v, z: (_svals(v).sum(-1), _svals(v, (2, 0)).min(-1), np.float64(0), np.float64(0)),
              tol=TOL_REDUCE, out_dtype=F32),         # Float32 from Float64, as MindSpore 2.10 returns them
        Check("matrix norms float16 and ill-conditioned", ("Svd",),
              lambda h, m: (ops.norm(h, "nuc"), ops.norm(m, -2), ops.norm(m, 2)),
              (_a(F16, 3, 3), near),
              lambda h, m: (_svals(h).sum(), _svals(m).min(), _svals(m).max()), tol=TOL_REDUCE, out_dtype=F32),
        Check("singular vectors tall and wide", ("Svd",),
              lambda t, w: _factors(t) + _factors(w), (_a(F64, 2, 5, 3), _a(F64, 2, 3, 5, seed=1)),
              lambda t, w: (t, eye, eye, w, eye, eye), tol=TOL_REDUCE),
        # past JACOBI_MAX (8): LAPACK's dgesdd; the float64 3 x 5 .. 6 x 3 ones above run Jacobi
        Check("singular values and vectors by LAPACK", ("Svd",),
              lambda t, v: _factors(t) + (ops.norm(v, 2), ops.norm(v, -2), ops.norm(v, "nuc")),
              (_a(F64, 2, 30, 17), _a(F32, 20, 40, seed=1)),
              lambda t, v: (t, np.broadcast_to(np.eye(17), (2, 17, 17)), np.broadcast_to(np.eye(17), (2, 17, 17)),
                            _svals(v).max().astype(F32), _svals(v).min().astype(F32), _svals(v).sum().astype(F32)),
              tol=TOL_REDUCE),
    ]


LINALG = Group("linalg", linalg_checks())


def _scatter_with(x, idx, upd, fn):
    out = x.copy()
    for row, u in zip(idx.reshape(-1, idx.shape[-1]), upd.reshape((-1,) + x.shape[idx.shape[-1]:])):
        out[tuple(row)] = fn(out[tuple(row)], u)
    return out


def _cum(x, axis, pick, index_dtype):
    vals = pick.accumulate(x, axis=axis)
    pos = np.arange(x.shape[axis]).reshape([-1 if d == axis % x.ndim else 1 for d in range(x.ndim)])
    hit = np.where(x == vals, pos, -1)                 # the last position holding the running extreme
    return vals, np.maximum.accumulate(hit, axis=axis).astype(index_dtype)


def _suite_checks():
    """The rows MindSpore's CPU suite brought (issue 33), compiled: the arithmetic tensor scatters,
    MatrixSolve, cummax / cummin (distinct values, so the index is unambiguous; MindSpore 2.10's
    cummax gives Int64 indices, its cummin Int32)."""
    x, upd = _a(F32, 4, 3), _a(F32, 2, 3, seed=1, domain="pos")
    idx = np.array([[2], [0]], I32)
    scat = (("sub", np.subtract), ("mul", np.multiply), ("div", np.divide), ("max", np.maximum), ("min", np.minimum))
    a = _a(F64, 3, 3, seed=2) + 3 * np.eye(3)
    b = _a(F64, 3, 2, seed=3)
    c = np.random.default_rng(4).permutation(12).astype(F32).reshape(3, 4)
    return [Check(f"tensor_scatter_{n}", (f"TensorScatter{n.capitalize()}",),
                  lambda x, i, u, n=n: getattr(ops, f"tensor_scatter_{n}")(x, i, u), (x, idx, upd),
                  lambda x, i, u, f=f: _scatter_with(x, i, u, f)) for n, f in scat] + [
        Check("matrix_solve", ("MatrixSolve",), lambda a, b: ops.matrix_solve(a, b), (a, b),
              lambda a, b: np.linalg.solve(a, b), tol=TOL_REDUCE),
        Check("cummax cummin", ("CumMinMax",), lambda c: ops.cummax(c, 1) + ops.cummin(c, 0), (c,),
              lambda c: _cum(c, 1, np.maximum, I64) + _cum(c, 0, np.minimum, I32)),   # MindSpore's index dtypes
    ]


SUITE_ROWS = Group("suite rows", _suite_checks())
EVERYDAY = INDEX + SCAN + SORT + [SURFACE, LINALG, SUITE_ROWS]


@pytest.mark.parametrize("group, name", params(EVERYDAY))
def test_everyday_compiled(group, name):
    group.run(name)


def test_index_errors_at_run_time():
    """An index out of range raises MindSpore's class in compiled code as eagerly; the executable
    stays usable; TensorScatterElements skips such an update, as MindSpore does."""
    @ms.jit
    def f(x, i, j, u):
        return ops.gather_elements(x, 1, i), ops.tensor_scatter_update(x, j, u), ops.gather_nd(x, j)

    x, u = Tensor(_a(F32, 3, 4)), Tensor(_a(F32, 1, 4, seed=1))
    good_i, good_j = Tensor(np.array([[0], [3], [-4]], I32)), Tensor(np.array([[2]], I32))
    f(x, good_i, good_j, u)
    bad = [(Tensor(np.array([[0], [4], [0]], I32)), good_j, RuntimeError, "For 'GatherD'"),
           (good_i, Tensor(np.array([[3]], I32)), ValueError, "For 'TensorScatterUpdate'"),
           (good_i, Tensor(np.array([[-1]], I32)), ValueError, "For 'TensorScatterUpdate'")]
    for i, j, cls, msg in bad:
        with pytest.raises(cls, match=msg):
            f(x, i, j, u)
        with pytest.raises(cls, match=msg):
            f.fn(x, i, j, u)
    out = f(x, good_i, good_j, u)
    assert np.array_equal(out[2].asnumpy(), x.asnumpy()[2:3])


def test_large_scans_and_sorts_run_threaded():
    """Shapes past the parallel threshold: the threaded loops give the serial results."""
    x = _a(F32, 300, 257, seed=7)

    @ms.jit
    def f(v):
        return ops.cumsum(v, 1), ops.cumsum(v, 0), ops.argsort(v, 1), ops.topk(v, 4, 0)[1]

    a, b, s, t = f(Tensor(x))
    np.testing.assert_allclose(a.asnumpy(), np.cumsum(x.astype(F64), 1), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(b.asnumpy(), np.cumsum(x.astype(F64), 0), rtol=1e-4, atol=1e-3)
    assert np.array_equal(s.asnumpy(), _stable(x, 1, False))
    assert np.array_equal(t.asnumpy(), _topk_idx(x, 4, 0, True))
