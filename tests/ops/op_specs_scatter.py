"""NumPy-checked specs of the arithmetic scatters (TensorScatterSub / Mul / Div / Max / Min, the
ScatterNd* and Scatter* Parameter forms, UnsortedSegment*) and of Padding, LinSpace, std_mean /
var_mean / std and shuffle (MindSpore's CPU op tests, issue 33).

The references are plain Python loops over the index tuples written here, with MindSpore 2.10's
CPU rules as recorded from the wheel (tests/conformance/cases_scatter.py holds the recorded
cases): integer division truncates, and by zero gives the dtype's largest value for a positive
dividend, its smallest for a negative one, 0 for 0; max / min keep the row where the update is
NaN; an unsorted segment starts from 0, 1 or the dtype's lowest / largest finite value.
"""
from __future__ import annotations

import numpy as np

import pycompile as ms
from pycompile import Parameter, Tensor, ops
from op_specs import F16, F32, F64, I32, I64, Case, sample


def _a(*shape, dtype=F32, seed=0):
    return sample(dtype, shape, seed=seed)


def _int_div(a: int, b: int, info) -> int:
    if b == 0:
        return info.max if a > 0 else (info.min if a < 0 else 0)
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _combine(rule, a, b):
    """One element: the row's value a, the update b (NumPy scalars of the tensor's dtype)."""
    if rule == "sub":
        return a - b
    if rule == "mul":
        return a * b
    if rule == "div":
        if np.asarray(a).dtype.kind in "iu":
            return _int_div(int(a), int(b), np.iinfo(np.asarray(a).dtype))
        return a / b
    if rule == "max":
        return b if a < b else a
    if rule == "min":
        return b if b < a else a
    if rule == "add":
        return a + b
    return b


def _scatter(rule):
    def ref(x, idx, upd):
        out = x.copy()
        m = idx.shape[-1]
        flat_upd = upd.reshape((-1,) + x.shape[m:])
        with np.errstate(all="ignore"):
            for row, u in zip(idx.reshape(-1, m), flat_upd):
                target = out[tuple(row)]
                view = np.asarray(target).reshape(-1)
                new = [_combine(rule, a, b) for a, b in zip(view, np.asarray(u).reshape(-1))]
                out[tuple(row)] = np.array(new, x.dtype).reshape(np.shape(target))
        return out
    return ref


def _segments(rule, x, ids, n):
    dt = x.dtype
    start = {"add": 0, "mul": 1}.get(rule)
    if start is None:
        info = np.iinfo(dt) if dt.kind in "iu" else np.finfo(dt)
        start = info.min if rule == "max" else info.max
    out = np.full((n,) + x.shape[ids.ndim:], start, dt)
    rows = x.reshape((-1,) + x.shape[ids.ndim:])
    for seg, r in zip(ids.reshape(-1), rows):
        new = [_combine(rule, a, b) for a, b in zip(out[seg].reshape(-1), r.reshape(-1))]
        out[seg] = np.array(new, dt).reshape(out[seg].shape)
    return out


def _running(x, better):
    vals, idx = x.copy(), np.zeros(x.shape, np.int64)
    for r in range(x.shape[0]):
        acc, at = x[r, 0], 0
        for c in range(x.shape[1]):
            if better(x[r, c], acc):
                acc, at = x[r, c], c
            vals[r, c], idx[r, c] = acc, at
    return vals, idx


def _pdist(x, p):
    rows = []
    for i in range(x.shape[0]):
        for j in range(i + 1, x.shape[0]):
            d = np.abs(x[i].astype(F64) - x[j])
            rows.append((d != 0).sum() if p == 0 else d.max() if p == float("inf") else (d ** p).sum() ** (1 / p))
    return np.array(rows, F32)


def _index_add(x, idx, y):
    out = x.copy()
    for j, i in enumerate(idx):
        out[:, i] += y[:, j]
    return out


def _on_param(cls, x, i, u):
    p = Parameter(Tensor(x), name="p")
    cls()(p, i, u)
    return p


XI = np.array([[-2, 5, 3], [4, 7, -3]], I32)
IDX = np.array([[0, 0], [1, 1], [0, 2], [1, 2], [0, 0]], I32)
UI = np.array([3, 0, -2, 2, -1], I32)
XF = _a(4, 3)
IDXF = np.array([[1], [3], [1]], I64)
UF = np.array([[0.5, np.nan, -2.0], [4.0, 0.0, 1.5], [-1.0, 3.0, np.nan]], F32)
SEG = np.array([[0, 2], [2, 3]], I32)

SCATTER_CASES = [
    Case("tensor_scatter_sub int32 repeated", "TensorScatterSub", lambda x, i, u: ops.tensor_scatter_sub(x, i, u),
         _scatter("sub"), (XI, IDX, UI), (ops.tensor_scatter_sub,)),
    Case("TensorScatterMul class f32", "TensorScatterMul", lambda x, i, u: ops.TensorScatterMul()(x, i, u),
         _scatter("mul"), (XF, IDXF, UF), (ops.TensorScatterMul, ops.tensor_scatter_mul)),
    Case("tensor_scatter_div int32 by zero and negative", "TensorScatterDiv",
         lambda x, i, u: ops.tensor_scatter_div(x, i, u), _scatter("div"),
         (np.array([[-7, 7, 0], [9, -9, 5]], I32), np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]], I32),
          np.array([0, 0, 0, 2, 2, -3], I32)), (ops.tensor_scatter_div,)),
    Case("TensorScatterDiv class f64", "TensorScatterDiv", lambda x, i, u: ops.TensorScatterDiv()(x, i, u),
         _scatter("div"), (XF.astype(F64), IDXF, UF.astype(F64)), (ops.TensorScatterDiv,)),
    Case("TensorScatterMax class nan", "TensorScatterMax", lambda x, i, u: ops.TensorScatterMax()(x, i, u),
         _scatter("max"), (XF, IDXF, UF), (ops.TensorScatterMax, ops.tensor_scatter_max)),
    Case("TensorScatterMin class f16", "TensorScatterMin", lambda x, i, u: ops.TensorScatterMin()(x, i, u),
         _scatter("min"), (XF.astype(F16), IDXF, UF.astype(F16)), (ops.TensorScatterMin, ops.tensor_scatter_min)),
    Case("TensorScatterSub class", "TensorScatterSub", lambda x, i, u: ops.TensorScatterSub()(x, i, u),
         _scatter("sub"), (XF, IDXF, UF), (ops.TensorScatterSub,)),
]
for _rule in ("add", "sub", "mul", "div", "max", "min"):
    _cls = getattr(ops, "ScatterNd" + _rule.capitalize())
    SCATTER_CASES.append(Case(f"ScatterNd{_rule.capitalize()} Parameter", f"TensorScatter{_rule.capitalize()}",
                              lambda x, i, u, c=_cls: _on_param(c, x, i, u), _scatter(_rule), (XI, IDX, UI),
                              (_cls, getattr(ops, "scatter_nd_" + _rule))))
for _rule in ("add", "sub", "mul", "div", "max", "min", "update"):
    _cls = getattr(ops, "Scatter" + _rule.capitalize())
    _op = "TensorScatterUpdate" if _rule == "update" else f"TensorScatter{_rule.capitalize()}"
    SCATTER_CASES.append(Case(f"Scatter{_rule.capitalize()} Parameter rows", _op,
                              lambda x, i, u, c=_cls: _on_param(c, x, i, u),
                              lambda x, i, u, r=("" if _rule == "update" else _rule): _scatter(r)(x, i[..., None], u),
                              (XF, np.array([[1, 3], [0, 1]], I32), _a(2, 2, 3, seed=2)),
                              (_cls, getattr(ops, "scatter_" + _rule))))
for _name, _rule in (("Sum", "add"), ("Max", "max"), ("Min", "min"), ("Prod", "mul")):
    _cls = getattr(ops, "UnsortedSegment" + _name)
    for _dt in (F32, I32):
        SCATTER_CASES.append(Case(
            f"UnsortedSegment{_name} {np.dtype(_dt).name}", f"TensorScatter{ {'add': 'Add', 'mul': 'Mul'}.get(_rule, _name)}",
            lambda x, s, c=_cls: c()(x, s, 5), lambda x, s, r=_rule: _segments(r, x, s, 5),
            (_a(2, 2, 3, dtype=_dt, seed=3), SEG), (_cls, getattr(ops, "unsorted_segment_" + _name.lower()))))

MORE_CASES = [
    Case("Padding", ("Concat", "Fill"), lambda x: ops.Padding(4)(x),
         lambda x: np.pad(x, ((0, 0), (0, 3))), (_a(3, 1),), (ops.Padding, ops.padding)),
    Case("LinSpace", ("Mul", "Add", "Sub", "RealDiv"), lambda a, b: ops.LinSpace()(a, b, 7),
         lambda a, b: a + np.arange(7, dtype=F32) * ((b - a) / np.float32(6)),
         (np.array(-25.3, F32), np.array(-147.0, F32)), (ops.LinSpace, ops.linspace)),
    Case("std_mean axis", ("Sqrt", "ReduceMean"), lambda x: ops.concat(ops.std_mean(x, 1, True, True), 1),
         lambda x: np.concatenate([np.std(x, 1, ddof=1, keepdims=True), np.mean(x, 1, keepdims=True)], 1),
         (_a(3, 4),), (ops.std_mean,)),
    Case("var_mean / std", ("ReduceSum", "ReduceMean"), lambda x: ops.stack([*ops.var_mean(x), ops.std(x, (0, 1))]),
         lambda x: np.stack([np.var(x), np.mean(x), np.std(x)]), (_a(3, 4),), (ops.var_mean, ops.std)),
    Case("matrix_solve batched / adjoint", "MatrixSolve",
         lambda a, b: ops.concat([ops.matrix_solve(a, b), ops.matrix_solve(a, b, True)], -1),
         lambda a, b: np.concatenate([np.linalg.solve(a.astype(F64), b), np.linalg.solve(np.swapaxes(a, -1, -2).astype(F64), b)],
                                     -1).astype(F32),
         (_a(2, 3, 3) + 4 * np.eye(3, dtype=F32), _a(2, 3, 2, seed=1)), (ops.matrix_solve,)),
    Case("IndexAdd / index_add axis 1", "TensorScatterAdd",
         lambda x, i, y: ops.IndexAdd(1)(Parameter(Tensor(x), name="p"), i, y) * 1 + ops.index_add(x, i, y, 1) * 0,
         lambda x, i, y: _index_add(x, i, y), (_a(2, 4, 3), np.array([3, 0, 3], I32), _a(2, 3, 3, seed=1)),
         (ops.IndexAdd, ops.index_add)),
    Case("cummax / Cummin (ties: the last index)", "CumMinMax",
         lambda x: ops.concat([ops.cast(ops.cummax(x, 1)[1], ms.int32), ops.Cummin(1)(x)[1],
                               ops.cast(ops.cummax(x, 1)[0], ms.int32)], 1),
         lambda x: np.concatenate([_running(x, np.greater_equal)[1], _running(x, np.less_equal)[1],
                                   _running(x, np.greater_equal)[0]], 1).astype(I32),
         (np.array([[3, 1, 3, 2, 5, 5], [0, 0, -1, 4, 4, -2]], I32),), (ops.cummax, ops.Cummin, ops.Cummax, ops.cummin)),
    Case("BatchToSpaceND / batch_to_space_nd crops", "Transpose",
         lambda x: ops.BatchToSpaceND([2, 2], [[0, 1], [1, 0]])(x) + ops.batch_to_space_nd(x, 2, [[0, 1], [1, 0]]) * 0,
         lambda x: x.reshape(2, 2, 2, 1, 2, 3).transpose(2, 3, 4, 0, 5, 1).reshape(2, 1, 4, 6)[:, :, 0:3, 1:6],
         (_a(8, 1, 2, 3),), (ops.BatchToSpaceND, ops.batch_to_space_nd)),
    Case("DepthToSpace / SpaceToDepth round trip", "Transpose",
         lambda x: ops.SpaceToDepth(2)(ops.DepthToSpace(2)(x)) + ops.space_to_depth(ops.depth_to_space(x, 2), 2) * 0,
         lambda x: x, (_a(2, 8, 2, 3),), (ops.DepthToSpace, ops.SpaceToDepth, ops.depth_to_space, ops.space_to_depth)),
    Case("DepthToSpace order", "Transpose", lambda x: ops.DepthToSpace(2)(x),
         lambda x: x.reshape(1, 2, 2, 1, 1, 2).transpose(0, 3, 4, 1, 5, 2).reshape(1, 1, 2, 4), (_a(1, 4, 1, 2),), ()),
    Case("SquareSumAll", "ReduceSum", lambda x, y: ops.stack(ops.SquareSumAll()(x, y)),
         lambda x, y: np.stack([np.sum(x * x), np.sum(y * y)]), (_a(3, 4), _a(3, 4, seed=1)), (ops.SquareSumAll,)),
    Case("dot / logical_xor", ("MatMul", "NotEqual"),
         lambda a, b, p, q: ops.concat([ops.reshape(ops.dot(a, b), (-1,)),
                                       ops.cast(ops.logical_xor(p, q), ms.float32)]),
         lambda a, b, p, q: np.concatenate([np.dot(a, b).reshape(-1), (p != q).astype(F32)]),
         (_a(2, 3, 4), _a(5, 4, 2, seed=1), np.array([True, False, True, False]), np.array([True, True, False, False])),
         (ops.dot, ops.logical_xor)),
    Case("pdist p = 0, 1, 2, 3, inf", "Gather",
         lambda x: ops.stack([ops.pdist(x, p) for p in (0.0, 1.0, 2.0, 3.0, float("inf"))]),
         lambda x: np.stack([_pdist(x, p) for p in (0.0, 1.0, 2.0, 3.0, float("inf"))]), (_a(4, 3),), (ops.pdist,)),
    Case("Renorm / renorm", "Select", lambda x: ops.Renorm(1, 0, 3.0)(x) + ops.renorm(x, 2, 1, 1.5) * 0,
         lambda x: x * np.where(np.abs(x).sum((1, 2), keepdims=True) > 3.0,
                                3.0 / (np.abs(x).sum((1, 2), keepdims=True) + 1e-7), 1.0).astype(F32),
         (_a(3, 2, 4),), (ops.Renorm, ops.renorm)),
    Case("cdist / Cdist / size", ("Sub", "Sqrt"),
         lambda a, b: ops.Cdist(2.0)(a, b) + ops.cdist(a, b, 1.0) * 0 + ops.size(a) * 0,
         lambda a, b: np.sqrt(((a[:, :, None, :].astype(F64) - b[:, None, :, :]) ** 2).sum(-1)).astype(F32),
         (_a(2, 3, 4), _a(2, 5, 4, seed=1)), (ops.Cdist, ops.cdist, ops.size)),
    Case("shuffle keeps the rows", "Gather", lambda x: ops.sort(ops.shuffle(x, seed=3), 0)[0],
         lambda x: np.sort(x, 0), (_a(6),), (ops.shuffle,)),
]
