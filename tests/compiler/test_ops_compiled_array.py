"""Layout, indexing, creation and matrix-product ops compiled inside `@jit`, against their eager
results and NumPy: reshape / transpose / expand_dims / squeeze / flatten, broadcast_to, tile,
StridedSlice through indexing (steps, negative steps, None, Ellipsis), gather (and an
out-of-range index: RuntimeError at run time), concat / stack (mixed dtypes), matmul / bmm /
dense (transposes, 1-D operands, batch broadcasting, int / float16 / float64), zeros / ones /
fill / *_like, AddN, depend."""
from __future__ import annotations

import numpy as np
import pytest

from opcheck import BOOL, DTYPES, F16, F32, F64, I32, I64, Check, Group, dtname, op_specs, params

import pycompile as ms
from pycompile import Tensor, ops


def _a(dtype, *shape, seed=0, domain="any"):
    return op_specs.sample(dtype, shape, domain, seed=seed)


def _index(key):
    """x[key] as a check function (the same subscript runs in the graph and on NumPy)."""
    return (lambda x: x[key]), (lambda x: x[key])


INDEXING = [
    ("[1:, ::-2]", (slice(1, None), slice(None, None, -2))),
    ("[::-1]", slice(None, None, -1)),
    ("[None, ..., 1]", (None, Ellipsis, 1)),
    ("[..., ::3]", (Ellipsis, slice(None, None, 3))),
    ("[-1]", -1),
    ("[:, None, 2:0:-1]", (slice(None), None, slice(2, 0, -1))),
    ("[1, 2]", (1, 2)),
    ("[5:] empty", slice(5, None)),
    ("[..., None]", (Ellipsis, None)),
    ("[0, 1, 2] 0-d", (0, 1, 2)),
    ("[:, -1:-4:-1]", (slice(None), slice(-1, -4, -1))),
    ("[1:3, 1::2, ::-1]", (slice(1, 3), slice(1, None, 2), slice(None, None, -1))),
    ("[::-2, ::-1, ::-3]", (slice(None, None, -2), slice(None, None, -1), slice(None, None, -3))),
    ("[-4::-3] empty", slice(-4, None, -3)),       # starts "before index 0": empty
    ("[1, 5:0:-1, -9:]", (1, slice(5, 0, -1), slice(-9, None))),
]


def layout_checks(dtype) -> list:
    x = _a(dtype, 2, 3, 4)
    big = _a(dtype, 33, 40, seed=1)       # a 2-D transpose over partial 32x32 blocks
    c = [
        Check("reshape -1", ("Reshape",), lambda v: ops.reshape(v, (4, -1)), (x,), lambda v: v.reshape(4, -1)),
        Check("reshape to 0-d", ("Reshape",), lambda v: ops.reshape(v, ()), (_a(dtype, 1),), lambda v: v.reshape(())),
        Check("reshape empty", ("Reshape",), lambda v: ops.reshape(v, (3, 0)), (_a(dtype, 0, 3),),
              lambda v: v.reshape(3, 0)),
        Check("Reshape class then add", ("Reshape",), lambda v: ops.Reshape()(v, (6, 4)) == v.reshape((6, 4)), (x,),
              lambda v: np.ones((6, 4), bool)),
        Check("transpose (2,0,1)", ("Transpose",), lambda v: ops.transpose(v, (2, 0, 1)), (x,),
              lambda v: v.transpose(2, 0, 1)),
        Check("transpose (0,2,1)", ("Transpose",), lambda v: ops.transpose(v, (0, 2, 1)), (x,),
              lambda v: v.transpose(0, 2, 1)),
        Check("transpose (1,0,2)", ("Transpose",), lambda v: ops.transpose(v, (1, 0, 2)), (x,),
              lambda v: v.transpose(1, 0, 2)),
        Check("transpose 33x40", ("Transpose",), lambda v: ops.transpose(v, (1, 0)), (big,), lambda v: v.T),
        Check("Transpose class empty", ("Transpose",), lambda v: ops.Transpose()(v, (1, 0)), (_a(dtype, 0, 3),),
              lambda v: v.T),
        Check("transpose 1-D", ("Transpose",), lambda v: ops.transpose(v, (0,)), (_a(dtype, 5),), lambda v: v),
        Check("transpose 0-d", ("Transpose",), lambda v: ops.transpose(v, ()), (_a(dtype),), lambda v: v),
        Check("transpose (0,1) identity", ("Transpose",), lambda v: ops.transpose(v, (0, 1)), (big,), lambda v: v),
        Check("swapaxes", ("Transpose",), lambda v: ops.swapaxes(v, 0, -1), (x,), lambda v: np.swapaxes(v, 0, -1)),
        Check("expand_dims -1", ("Reshape",), lambda v: ops.expand_dims(v, -1), (x,), lambda v: v[..., None]),
        Check("ExpandDims class 0", ("Reshape",), lambda v: ops.ExpandDims()(v, 0), (x,), lambda v: v[None]),
        Check("squeeze", ("Reshape",), ops.squeeze, (_a(dtype, 1, 3, 1),), np.squeeze),
        Check("Squeeze class axis 2", ("Reshape",), ops.Squeeze(2), (_a(dtype, 1, 3, 1),), lambda v: np.squeeze(v, 2)),
        Check("flatten", ("Reshape",), ops.flatten, (x,), lambda v: v.reshape(2, -1)),
        Check("broadcast_to (4,2,3)", ("BroadcastTo",), lambda v: ops.broadcast_to(v, (4, 2, 3)), (_a(dtype, 2, 1),),
              lambda v: np.broadcast_to(v, (4, 2, 3))),
        Check("broadcast_to row", ("BroadcastTo",), lambda v: ops.broadcast_to(v, (2, 3)), (_a(dtype, 3),),
              lambda v: np.broadcast_to(v, (2, 3))),
        Check("BroadcastTo class -1", ("BroadcastTo",), ops.BroadcastTo((2, -1, 4)), (_a(dtype, 1, 3, 1),),
              lambda v: np.broadcast_to(v, (2, 3, 4))),
        Check("broadcast_to from 0-d", ("BroadcastTo",), lambda v: ops.broadcast_to(v, (2, 2)), (_a(dtype),),
              lambda v: np.broadcast_to(v, (2, 2))),
        Check("broadcast_to empty", ("BroadcastTo",), lambda v: ops.broadcast_to(v, (0, 3)), (_a(dtype, 1, 3),),
              lambda v: np.broadcast_to(v, (0, 3))),
        Check("tile (2,3)", ("BroadcastTo",), lambda v: ops.tile(v, (2, 3)), (_a(dtype, 2, 3),),
              lambda v: np.tile(v, (2, 3))),
        Check("Tile class (2,1,2)", ("BroadcastTo",), lambda v: ops.Tile()(v, (2, 1, 2)), (_a(dtype, 3, 2),),
              lambda v: np.tile(v, (2, 1, 2))),
        Check("tile short dims", ("BroadcastTo",), lambda v: ops.tile(v, (2,)), (_a(dtype, 2, 3),),
              lambda v: np.tile(v, (2,))),
    ]
    for name, key in INDEXING:
        fn, ref = _index(key)
        c.append(Check(f"x{name}", ("StridedSlice",) if "None, ..., 1" not in name else ("StridedSlice", "Reshape"),
                       fn, (x,), ref))
    return c + gather_checks(dtype) + concat_checks(dtype)


def gather_checks(dtype) -> list:
    x = _a(dtype, 4, 5, 3)
    i32 = np.array([[3, 0], [-1, 2]], I32)
    i64 = np.array([4, -5, 0, 4], I64)
    return [
        Check("gather axis 0 int32 2-D", ("Gather",), lambda v, i: ops.gather(v, i, 0), (x, i32),
              lambda v, i: np.take(v, i, 0)),
        Check("gather axis 1 int64", ("Gather",), lambda v, i: ops.gather(v, i, 1), (x, i64),
              lambda v, i: np.take(v, i, 1)),
        Check("gather axis -1", ("Gather",), lambda v, i: ops.gather(v, i, -1), (x, np.array([2, 0], I32)),
              lambda v, i: np.take(v, i, -1)),
        Check("Gather class scalar index", ("Gather",), lambda v: ops.Gather()(v, -2, 0), (x,), lambda v: v[-2]),
        Check("gather 0-d index tensor", ("Gather",), lambda v, i: ops.gather(v, i, 1), (x, np.array(3, I64)),
              lambda v, i: np.take(v, i, 1)),
        Check("x[index tensor]", ("Gather",), lambda v, i: v[i], (x, i32), lambda v, i: v[i]),
        Check("x[:, index tensor]", ("Gather", ), lambda v, i: v[:, i], (x, i64), lambda v, i: v[:, i]),
        Check("x[1:, index list]", ("StridedSlice", "Gather"), lambda v: v[1:, [0, 2]], (x,), lambda v: v[1:, [0, 2]]),
        Check("gather empty index", ("Gather",), lambda v, i: ops.gather(v, i, 0), (x, np.zeros(0, I32)),
              lambda v, i: np.take(v, i, 0)),
    ]


def backprop_checks(dtype) -> list:
    """The ops gradients use to send a cotangent back: stop_gradient, and the scatters back from a
    strided slice and a gather (repeated indices accumulate)."""
    g = _a(dtype, 2, 3)
    idx = np.array([3, 0, -1, 3], I32)          # 3 and -1 both reach row 3
    gg = _a(dtype, 2, 4, 3, seed=1)

    def slice_grad(v):
        return ops.apply(ops.OPS["StridedSliceGrad"], [v], {"shape": (4, 7), "begin": (1, 6), "end": (4, -1),
                                                           "strides": (2, -3)})

    def slice_ref(v):
        z = np.zeros((4, 7), v.dtype)
        z[1:4:2, 6::-3] = v
        return z

    def gather_grad(v, i):
        return ops.apply(ops.OPS["GatherGrad"], [v, i], {"shape": (2, 4, 3), "axis": 1})

    def gather_ref(v, i):
        z = np.zeros((2, 4, 3), v.dtype)
        for a in range(2):
            for b in range(len(i)):
                z[a, int(i[b]) % 4] += v[a, b]
        return z

    checks = [
        Check("StridedSliceGrad", ("StridedSliceGrad",), slice_grad, (_a(dtype, 2, 3),), slice_ref),
        Check("stop_gradient", ("StopGradient",), lambda v: ops.stop_gradient(v)[1:], (g,), lambda v: v[1:]),
        # a user-given gradient's op (InsertGradientOf, a Cell's bprop): a view of its input
        Check("InsertGradientOf", ("CustomGrad",), lambda v: ops.InsertGradientOf(_same)(v)[1:], (g,),
              lambda v: v[1:]),
    ]
    if np.dtype(dtype).kind != "b":          # a bool scatter-add has no meaning
        checks.append(Check("GatherGrad", ("GatherGrad",), gather_grad, (gg, idx), gather_ref))
    return checks


def concat_checks(dtype) -> list:
    x, y = _a(dtype, 2, 3), _a(dtype, 2, 5, seed=1)
    z = _a(dtype, 2, 3, seed=2)
    other = {np.dtype(BOOL): I32, np.dtype(I32): F32, np.dtype(I64): BOOL,
             np.dtype(F16): F32, np.dtype(F32): I64, np.dtype(F64): F16}[np.dtype(dtype)]
    w = _a(other, 2, 2, seed=3)
    promoted = _promote(dtype, other)
    return [
        Check("concat axis 1", ("Concat",), lambda a, b: ops.concat((a, b), 1), (x, y),
              lambda a, b: np.concatenate((a, b), 1)),
        Check("concat axis 0 three", ("Concat",), lambda a, b, c: ops.cat([a, b, c]), (x, z, x),
              lambda a, b, c: np.concatenate((a, b, c))),
        Check("Concat class -1 with empty", ("Concat",), lambda a, b: ops.Concat(-1)((a, b)), (x, _a(dtype, 2, 0)),
              lambda a, b: np.concatenate((a, b), -1)),
        Check(f"concat with {dtname(other)}", ("Concat",), lambda a, b: ops.concat((a, b), 1), (x, w),
              lambda a, b: np.concatenate((a, b), 1).astype(promoted)),
        Check("stack axis 0", ("Stack",), lambda a, b: ops.stack((a, b)), (x, z), lambda a, b: np.stack((a, b))),
        Check("stack axis -1", ("Stack",), lambda a, b: ops.stack((a, b), -1), (x, z),
              lambda a, b: np.stack((a, b), -1)),
        Check("Stack class axis 1", ("Stack",), lambda a, b, c: ops.Stack(1)((a, b, c)), (x, z, x),
              lambda a, b, c: np.stack((a, b, c), 1)),
        Check(f"stack with {dtname(other)}", ("Stack",), lambda a, b: ops.stack((a, b)), (x[:, :2].copy(), w),
              lambda a, b: np.stack((a, b)).astype(promoted)),
        Check("depend", ("Depend",), lambda a, b: ops.depend(a, b), (x, y), lambda a, b: a),
        Check("concat one", ("Concat",), lambda a: ops.concat((a,), 1), (x,), lambda a: a),
        Check("stack 0-d", ("Stack",), lambda a, b: ops.stack((a, b)), (x[0, 0], z[1, 2]),
              lambda a, b: np.stack((a, b))),
        Check("stack one", ("Stack",), lambda a: ops.stack([a], 1), (x,), lambda a: a[:, None]),
        Check("x[...] 0-d", (), lambda a: a[...], (x[0, 0],), lambda a: a),
        Check("x[()] 0-d", (), lambda a: a[()], (x[0, 0],), lambda a: a),
    ]


def _promote(a, b):
    """MindSpore's tensor-tensor promotion for the pairs above (bool < int < float; wider wins)."""
    rank = {"b": 0, "i": 1, "f": 2}
    a, b = np.dtype(a), np.dtype(b)
    if rank[a.kind] != rank[b.kind]:
        return a if rank[a.kind] > rank[b.kind] else b
    return np.promote_types(a, b)


LAYOUT = [Group(f"layout_{dtname(dt)}", layout_checks(dt)) for dt in DTYPES]
BACKPROP = [Group(f"backprop_{dtname(dt)}", backprop_checks(dt)) for dt in DTYPES]


@pytest.mark.parametrize("group, name", params(BACKPROP))
def test_backprop_ops_compiled(group, name):
    group.run(name)


@pytest.mark.parametrize("group, name", params(LAYOUT))
def test_layout_compiled(group, name):
    group.run(name)


def test_gather_out_of_range_is_a_runtime_error_at_run_time():
    """MindSpore raises RuntimeError for an out-of-range Gather index; so do compiled code and eager."""
    @ms.jit
    def f(x, i):
        return ops.gather(x, i, 1) * 2

    x = Tensor(_a(F32, 2, 5))
    assert np.array_equal(f(x, Tensor(np.array([4, -5], I32))).asnumpy(), np.take(x.asnumpy(), [4, -5], 1) * 2)
    for bad in ([5], [0, -6]):
        with pytest.raises(RuntimeError, match="For 'Gather', the 'input_indices' should be in the range"):
            f(x, Tensor(np.array(bad, I32)))
        with pytest.raises(RuntimeError, match="For 'Gather'"):
            f.fn(x, Tensor(np.array(bad, I32)))            # eager agrees
    # the executable is still usable after the error
    assert np.array_equal(f(x, Tensor(np.array([0, 1], I32))).asnumpy(), x.asnumpy()[:, :2] * 2)


# ---- matrix products -------------------------------------------------------------------------------
def _mm_ref(dtype):
    """NumPy matmul in a wide type, rounded to `dtype` (float16 accumulates in float32 on both sides)."""
    def ref(a, b):
        wide = F64 if np.dtype(dtype).kind == "f" else I64
        return np.matmul(a.astype(wide), b.astype(wide)).astype(dtype)
    return ref


def matmul_checks(dtype) -> list:
    mm = _mm_ref(dtype)

    def a(*shape, seed=0):
        return _a(dtype, *shape, seed=seed)

    def t(v):
        return np.swapaxes(v, -1, -2)
    return [
        Check("matmul 2-D", ("MatMul",), ops.matmul, (a(2, 3), a(3, 5, seed=1)), mm),
        Check("MatMul class transpose_a", ("MatMul",), ops.MatMul(transpose_a=True), (a(3, 2), a(3, 5, seed=1)),
              lambda x, y: mm(x.T, y)),
        Check("MatMul class transpose_b", ("MatMul",), ops.MatMul(transpose_b=True), (a(2, 3), a(5, 3, seed=1)),
              lambda x, y: mm(x, y.T)),
        Check("MatMul class both", ("MatMul",), ops.MatMul(True, True), (a(3, 2), a(5, 3, seed=1)),
              lambda x, y: mm(x.T, y.T)),
        Check("matmul 1-D @ 2-D", ("MatMul",), ops.matmul, (a(3), a(3, 5, seed=1)), mm),
        Check("matmul 2-D @ 1-D", ("MatMul",), ops.matmul, (a(2, 3), a(3, seed=1)), mm),
        Check("matmul 1-D @ 1-D", ("MatMul",), ops.matmul, (a(7), a(7, seed=1)), mm),
        Check("matmul batch broadcast", ("BatchMatMul",), ops.matmul, (a(2, 1, 3, 4), a(5, 4, 2, seed=1)), mm),
        Check("matmul 3-D @ 2-D", ("BatchMatMul",), ops.matmul, (a(3, 2, 4), a(4, 5, seed=1)), mm),
        Check("matmul 2-D @ 3-D", ("BatchMatMul",), ops.matmul, (a(2, 4), a(3, 4, 5, seed=1)), mm),
        Check("matmul 1-D @ 3-D", ("BatchMatMul",), ops.matmul, (a(4), a(3, 4, 5, seed=1)), mm),
        Check("bmm", ("BatchMatMul",), ops.bmm, (a(3, 2, 4), a(3, 4, 5, seed=1)), mm),
        Check("BatchMatMul class transpose_a", ("BatchMatMul",), ops.BatchMatMul(transpose_a=True),
              (a(2, 4, 3), a(2, 4, 5, seed=1)), lambda x, y: mm(t(x), y)),
        Check("BatchMatMul class transpose_b broadcast", ("BatchMatMul",), ops.BatchMatMul(transpose_b=True),
              (a(2, 1, 2, 3), a(3, 4, 3, seed=1)), lambda x, y: mm(x, t(y))),
        Check("mm 33x17 @ 17x65", ("MatMul",), ops.mm, (a(33, 17), a(17, 65, seed=1)), mm),
        Check("matmul K=0", ("MatMul",), ops.matmul, (a(2, 0), a(0, 3, seed=1)), mm),
        Check("matmul M=0", ("MatMul",), ops.matmul, (a(0, 3), a(3, 2, seed=1)), mm),
        Check("bmm K=0", ("BatchMatMul",), ops.bmm, (a(2, 3, 0), a(2, 0, 4, seed=1)), mm),
        Check("dense with bias", ("MatMul", "Add"), ops.dense, (a(4, 3), a(2, 3, seed=1), a(2, seed=2)),
              lambda x, w, b: (mm(x, w.T).astype(F64) + b).astype(dtype)),
        Check("dense 3-D no bias", ("MatMul",), ops.dense, (a(2, 4, 3), a(5, 3, seed=1)), lambda x, w: mm(x, w.T)),
        Check("dense 1-D", ("MatMul",), ops.dense, (a(3), a(5, 3, seed=1)), lambda x, w: mm(x, w.T)),
    ]


_MM_TOL = {np.dtype(F16): (4e-3, 4e-3), np.dtype(F32): (1e-5, 1e-5), np.dtype(F64): (1e-12, 1e-12)}
MATMUL = [Group(f"matmul_{dtname(dt)}",
                [Check(c.name, c.ops, c.fn, c.args, c.ref, tol=_MM_TOL) for c in matmul_checks(dt)])
          for dt in (I32, I64, F16, F32, F64)]


@pytest.mark.parametrize("group, name", params(MATMUL))
def test_matmul_compiled(group, name):
    group.run(name)


# ---- creation, AddN --------------------------------------------------------------------------------
def creation_checks() -> list:
    x = _a(F32, 2, 3)
    xi = _a(I32, 2, 3)
    return [
        Check("zeros", (), lambda v: ops.zeros((2, 3)), (x,), lambda v: np.zeros((2, 3), F32)),
        Check("ones int32 + x", ("Add",), lambda v: ops.ones((2, 3), ms.int32) + v, (xi,), lambda v: v + 1),
        Check("fill float16", (), lambda v: ops.fill(ms.float16, (3,), 1.5), (x,), lambda v: np.full(3, 1.5, F16)),
        Check("Fill class bool", (), lambda v: ops.Fill()(ms.bool_, (2, 2), True), (x,),
              lambda v: np.ones((2, 2), bool)),
        Check("full int", (), lambda v: ops.full((2,), 3), (x,), lambda v: np.full(2, 3, I64)),
        Check("zeros_like", (), ops.zeros_like, (xi,), np.zeros_like),
        Check("ZerosLike class", (), ops.ZerosLike(), (x,), np.zeros_like),
        Check("ones_like dtype", (), lambda v: ops.ones_like(v, dtype=ms.float64), (xi,),
              lambda v: np.ones(v.shape, F64)),
        Check("OnesLike class * x", ("Mul",), lambda v: ops.OnesLike()(v) * v, (x,), lambda v: v),
        Check("full_like", (), lambda v: ops.full_like(v, 7), (xi,), lambda v: np.full(v.shape, 7, I32)),
        Check("zeros empty", (), lambda v: ops.zeros((0, 3), ms.int64), (x,), lambda v: np.zeros((0, 3), I64)),
        Check("Zeros class large", (), lambda v: ops.Zeros()((300, 301), ms.float32), (x,),
              lambda v: np.zeros((300, 301), F32)),
        Check("ones large + x", ("Add",), lambda v: ops.ones((300, 3)) + v[0], (x,),
              lambda v: np.ones((300, 3), F32) + v[0]),
        Check("addn", ("AddN",), lambda a, b, c: ops.addn([a, b, c]), (x, x * 2, x * 3),
              lambda a, b, c: a + b + c),
        Check("AddN class int32", ("AddN",), lambda a, b: ops.AddN()((a, b)), (xi, xi), lambda a, b: a + b),
        Check("addn float16", ("AddN",), lambda a, b: ops.addn((a, b)), (x.astype(F16), x.astype(F16)),
              lambda a, b: a + b),
        Check("addn bool", ("AddN",), lambda a, b: ops.addn((a, b)), (xi > 0, xi > 1), lambda a, b: a | b),
    ]


CREATION = Group("creation", creation_checks())


@pytest.mark.parametrize("group, name", params([CREATION]))
def test_creation_and_addn_compiled(group, name):
    group.run(name)


def _same(g):
    return g
