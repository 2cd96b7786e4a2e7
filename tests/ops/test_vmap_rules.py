"""vmap's batch rules for the rows that used to batch by looping (ops/batch_rules_cnn.py,
ops/batch_rules_index.py): every CNN-family case of tests/ops/cnn_refs.py and the indexed
reads / writes, batched over each operand (in_axes 0, 1 or None, out_axes 0 or 1), against the
NumPy reference applied example by example; vmap(conv2d) compiled to C whose size does not
grow with the batch; gradients through vmap (grad of vmap, vmap of grad) against finite
differences."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops, vmap
from pycompile.ops import OPS

from tests.ops import cnn_refs as R

B = 2


def _examples(arrays, seed):
    """B examples of each operand: the case's arrays, then arrays of the same shape and kind."""
    rng = np.random.default_rng(seed)
    out = []
    for a in arrays:
        if a.dtype.kind == "f":
            more = [rng.uniform(-1, 1, a.shape).astype(a.dtype) for _ in range(B - 1)]
        else:
            more = [rng.permutation(a.ravel()).reshape(a.shape) for _ in range(B - 1)]
        out.append([a] + more)
    return out


def _patterns(n):
    """in_axes to try: every operand batched, each one alone, the first on its axis 1."""
    pats = [(0,) * n]
    if n > 1:
        pats += [tuple(0 if i == k else None for i in range(n)) for k in range(n)]
    pats.append((1,) + (0,) * (n - 1))
    return pats


def check_vmap(fn, ref, arrays, seed=0, rtol=1e-5, atol=1e-5, out_axes=0):
    ex = _examples(arrays, seed)
    for axes in _patterns(len(arrays)):
        args, per_example = [], [[] for _ in range(B)]
        for k, ax in enumerate(axes):
            if ax is None:
                args.append(Tensor(ex[k][0]))
                for j in range(B):
                    per_example[j].append(ex[k][0])
            else:
                args.append(Tensor(np.stack(ex[k], axis=ax)))
                for j in range(B):
                    per_example[j].append(ex[k][j])
        got = vmap(fn, in_axes=axes, out_axes=out_axes)(*args)
        want = np.stack([np.asarray(ref(*e)) for e in per_example], axis=out_axes)
        got = got.asnumpy()
        assert got.shape == want.shape, (axes, got.shape, want.shape)
        if want.dtype.kind in "iu":
            np.testing.assert_array_equal(got, want, err_msg=str(axes))
        else:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=str(axes))


CNN = R.conv_cases() + R.pool_cases() + R.misc_cases()


@pytest.mark.parametrize("case", CNN, ids=[c[0] for c in CNN])
def test_cnn_rules_match_the_reference_per_example(case):
    name, opname, fn, ref, arrays = case
    assert OPS[opname].batch != "loop", f"{opname} batches by looping"
    check_vmap(fn, ref, arrays, seed=len(name), out_axes=len(name) % 2)


# ---- indexed reads and writes, linear algebra, the rest ---------------------------------------------
def _f(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def _i(values):
    return np.array(values, np.int64)


def _c(*shape, seed=0):
    return (_f(*shape, seed=seed) + 1j * _f(*shape, seed=seed + 1)).astype(np.complex64)


def _ref_gather_grad(dy, idx, shape, axis):
    out = np.zeros(shape, dy.dtype)
    moved = np.moveaxis(out, axis, 0)
    np.add.at(moved, idx % shape[axis], np.moveaxis(dy, tuple(range(axis, axis + idx.ndim)),
                                                     tuple(range(idx.ndim))))
    return out


def _ref_scatter(combine):
    def ref(x, idx, upd):
        out = x.copy()
        for k, row in enumerate(idx.reshape(-1, idx.shape[-1])):
            out[tuple(row)] = combine(out[tuple(row)], upd.reshape((-1,) + x.shape[idx.shape[-1]:])[k])
        return out
    return ref


def _ref_scatter_elements(x, idx, upd, add):
    out = x.copy()
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            k = idx[i, j] % x.shape[1]
            out[i, k] = out[i, k] + upd[i, j] if add else upd[i, j]
    return out


def _ref_cummax_index(x):
    out = np.zeros(x.shape, np.int64)
    for i in range(x.shape[0]):
        best = 0
        for j in range(x.shape[1]):
            if x[i, j] >= x[i, best]:
                best = j
            out[i, j] = best
    return out


def _ref_layernorm(x, g, b):
    m = x.mean(-1, keepdims=True)
    return (x - m) / np.sqrt(x.var(-1, keepdims=True) + 1e-7) * g + b


SOLVABLE = np.eye(3, dtype=np.float32) * 3 + _f(3, 3, seed=5)
OTHER = [
    ("AddN", lambda a, b: ops.addn((a, b)), lambda a, b: a + b, (_f(3, 4), _f(3, 4, seed=1))),
    ("GatherD", R.op("GatherD", axis=1), lambda x, i: np.take_along_axis(x, i % 5, 1),
     (_f(3, 5), _i([[0, 4, -1], [2, 2, 1], [-5, 3, 0]]))),
    ("GatherNd", R.op("GatherNd"), lambda x, i: x[tuple(np.moveaxis(i, -1, 0))],
     (_f(4, 4, 2), _i([[0, 1], [3, 2], [1, 1]]))),
    ("TensorScatterUpdate", R.op("TensorScatterUpdate"), _ref_scatter(lambda a, u: u),
     (_f(4, 3), _i([[1], [3]]), _f(2, 3, seed=2))),
    ("TensorScatterAdd", R.op("TensorScatterAdd"), _ref_scatter(np.add),
     (_f(4, 3), _i([[1], [1], [0]]), _f(3, 3, seed=2))),
    ("TensorScatterMax", R.op("TensorScatterMax"), _ref_scatter(np.maximum),
     (_f(4, 4, 2), _i([[2, 1], [0, 3]]), _f(2, 2, seed=2))),
    ("TensorScatterElements", R.op("TensorScatterElements", axis=1),
     lambda x, i, u: _ref_scatter_elements(x, i, u, False), (_f(3, 4), _i([[0, 3], [-1, 1], [2, 0]]), _f(3, 2))),
    ("TensorScatterElements add", R.op("TensorScatterElements", axis=1, reduction="add"),
     lambda x, i, u: _ref_scatter_elements(x, i, u, True), (_f(3, 4), _i([[0, 0], [-1, 1], [2, 0]]), _f(3, 2))),
    ("Gather", R.op("Gather", axis=1), lambda x, i: np.take(x, i % 5, axis=1),
     (_f(3, 5, 2), _i([[0, 4, -2], [1, 1, 3]]))),
    ("Gather scalar index", R.op("Gather", axis=0), lambda x, i: x[int(i)], (_f(5, 2), _i(3))),
    ("GatherGrad", R.op("GatherGrad", shape=(3, 5, 2), axis=1), lambda g, i: _ref_gather_grad(g, i, (3, 5, 2), 1),
     (_f(3, 2, 3, 2), _i([[0, 4, -2], [1, 1, 3]]))),
    ("StridedSliceGrad", R.op("StridedSliceGrad", shape=(4, 6), begin=(1, 0), end=(4, 6), strides=(2, 3)),
     lambda g: _slice_back(g), (_f(2, 2),)),
    ("CumMinMax", R.op("CumMinMax", axis=-1, rule="max", part="values"), lambda x: np.maximum.accumulate(x, -1),
     (_f(3, 5),)),
    ("CumMinMax indices", R.op("CumMinMax", axis=1, rule="max", part="indices"), _ref_cummax_index, (_f(3, 5),)),
    ("Svd", R.op("Svd", part="s"), lambda x: np.linalg.svd(x.astype(np.float64), compute_uv=False), (_f(4, 3),)),
    ("MatrixSolve", R.op("MatrixSolve"), lambda a, b: np.linalg.solve(a.astype(np.float64), b),
     (SOLVABLE, _f(3, 2))),
    ("CheckFinite", R.op("CheckFinite", message="not finite"), lambda x: x, (_f(3, 4),)),
    ("TensorMove", R.op("TensorMove"), lambda x: x, (_f(3, 4),)),
    ("DFT", R.op("DFT", axis=0), lambda x: np.fft.fft(x, axis=0).astype(np.complex64), (_c(4, 3),)),
    ("DFT inverse", R.op("DFT", axis=-1, inverse=True, scale=0.25),
     lambda x: (np.fft.ifft(x, axis=-1, norm="forward") * 0.25).astype(np.complex64), (_c(3, 4),)),
    ("LayerNorm", R.op("LayerNorm", begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-7), _ref_layernorm,
     (_f(3, 4), _f(4, seed=3), _f(4, seed=4))),
]


def _slice_back(g):
    out = np.zeros((4, 6), g.dtype)
    out[1:4:2, 0:6:3] = g
    return out


@pytest.mark.parametrize("case", OTHER, ids=[c[0] for c in OTHER])
def test_index_and_leading_rules_match_the_reference_per_example(case):
    name, fn, ref, arrays = case
    op = OPS[name.split()[0]]
    assert op.batch != "loop", f"{op.name} batches by looping"
    check_vmap(fn, ref, arrays, seed=len(name), out_axes=len(name) % 2, rtol=1e-4, atol=1e-5)


# ---- compiled: one convolution whatever the batch ---------------------------------------------------
def _conv(x, w):
    return ops.conv2d(x, w, pad_mode="pad", padding=1, groups=2)


def _two_ways(x, w, ws):
    """x batched against shared weights (the batch joins the images) and against per-example
    weights (a grouped convolution)."""
    return vmap(_conv, in_axes=(0, None))(x, w) + vmap(_conv, in_axes=(1, 0), out_axes=0)(x.swapaxes(0, 1), ws)


def test_vmap_conv2d_compiles_to_c_that_does_not_grow_with_the_batch():
    f = ms.jit(_two_ways)
    w = R._a(6, 2, 3, 3, seed=1)
    sizes = []
    for b in (2, 8):
        x, ws = R._a(b, 1, 4, 5, 6, seed=b), R._a(b, 6, 2, 3, 3, seed=b + 1)
        rep = ms.inspect(f, Tensor(x), Tensor(w), Tensor(ws))
        sizes.append(rep.c_source.count("\n"))
        assert rep.ir_before.count("Conv2D(") == 2, rep.ir_before
        want = np.stack([R.ref_conv(x[j], w, (1, 1), (1, 1), (1, 1, 1, 1), 2) +
                         R.ref_conv(x[j], ws[j], (1, 1), (1, 1), (1, 1, 1, 1), 2) for j in range(b)])
        np.testing.assert_allclose(f(Tensor(x), Tensor(w), Tensor(ws)).asnumpy(), want, rtol=1e-5, atol=1e-5)
    assert sizes[0] == sizes[1], f"C lines at batch 2 / 8: {sizes}"


def _once(ir, *names):
    """Each op once for the whole batch (a loop applies it per example and Stacks the results)."""
    for name in names:
        assert ir.count(f"= {name}(") == 1, name
    assert "= Stack(" not in ir


def _mixed(x, idx, upd, gamma):
    """One example through pooling, GatherNd, a scatter, Gather with the example's indices and
    a LayerNorm with the example's parameters."""
    p = ops.max_pool2d(x, 2, 2) + ops.avg_pool2d(x, 2, 2)                    # (1, 2, 2, 3)
    rows = ops.gather_nd(p[0], idx)                                          # (3, 3)
    s = ops.tensor_scatter_add(p[0, 0], idx[:2, 1:], upd)                     # (2, 3)
    g = ops.gather(p[0, 1], idx[:, 0], 0)                                    # (3, 3)
    return ops.layer_norm(rows * g, gamma, gamma * 0.5).sum() + s.sum()


def test_compiled_rules_equal_the_eager_ones():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 1, 2, 4, 6)).astype(np.float32)
    idx = np.array([[[0, 1], [1, 0], [1, 1]], [[1, 1], [0, 0], [0, 1]], [[0, 0], [1, 1], [1, 0]]], np.int64)
    upd = rng.standard_normal((3, 2, 3)).astype(np.float32)
    gamma = rng.standard_normal((3, 3)).astype(np.float32)
    args = [Tensor(a) for a in (x, idx, upd, gamma)]
    eager = vmap(_mixed)(*args).asnumpy()
    want = np.stack([_mixed(*[Tensor(a[j]) for a in (x, idx, upd, gamma)]).asnumpy() for j in range(3)])
    np.testing.assert_allclose(eager, want, rtol=1e-5, atol=1e-5)
    f = ms.jit(vmap(_mixed))
    _once(ms.inspect(f, *args).ir_before, "MaxPool", "AvgPool", "GatherNd", "TensorScatterAdd", "LayerNorm")
    np.testing.assert_allclose(f(*args).asnumpy(), eager, rtol=1e-5, atol=1e-5)


# ---- gradients through vmap against finite differences ---------------------------------------------
def _net(x, w):
    """One example: a convolution, ReLU, 2 x 2 max pooling, a weighted sum."""
    y = ops.relu(ops.conv2d(x, w, pad_mode="pad", padding=1))
    return (ops.max_pool2d(y, 2, 2) * ops.avg_pool2d(y, 2, 2)).sum()


def _net_np(x, w):
    y = np.maximum(R.ref_conv(x, w, (1, 1), (1, 1), (1, 1, 1, 1), 1), 0)
    n, c, h, v = y.shape
    win = y.reshape(n, c, h // 2, 2, v // 2, 2)
    return float((win.max(axis=(3, 5)) * win.mean(axis=(3, 5))).sum())


def _fd(f, arrays, k, eps=1e-6):
    g = np.zeros_like(arrays[k])
    for i in np.ndindex(g.shape):
        hi, lo = [a.copy() for a in arrays], [a.copy() for a in arrays]
        hi[k][i] += eps
        lo[k][i] -= eps
        g[i] = (f(*hi) - f(*lo)) / (2 * eps)
    return g


GRAD_OPS = ("Conv2D", "MaxPool", "MaxPoolGrad", "AvgPoolGrad", "Conv2DBackpropInput", "Conv2DBackpropFilter")
X64 = np.random.default_rng(5).uniform(-1, 1, (2, 1, 2, 4, 4))
W64 = np.random.default_rng(6).uniform(-0.5, 0.5, (2, 3, 2, 3, 3))


@functools.lru_cache(maxsize=None)
def _fd_example(j, wj):
    """Finite-difference gradients of example j's loss with weights W64[wj], in x and in w."""
    return tuple(_fd(_net_np, [X64[j], W64[wj]], k) for k in (0, 1))


@pytest.mark.parametrize("shared", [True, False], ids=["shared weights", "per-example weights"])
def test_vmap_of_grad_gives_per_example_gradients(shared):
    w = W64[0] if shared else W64
    in_axes = (0, None) if shared else (0, 0)
    per_example = vmap(ms.grad(_net, (0, 1)), in_axes=in_axes)
    want_x, want_w = (np.stack([_fd_example(j, 0 if shared else j)[k] for j in range(2)]) for k in (0, 1))
    compiled = ms.jit(per_example)
    _once(ms.inspect(compiled, Tensor(X64), Tensor(w)).ir_before, *GRAD_OPS)
    for fn in (per_example, compiled):
        gx, gw = fn(Tensor(X64), Tensor(w))
        np.testing.assert_allclose(gx.asnumpy(), want_x, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gw.asnumpy(), want_w, rtol=1e-6, atol=1e-8)


def test_grad_of_vmap():
    def loss(x, w):
        return vmap(_net, in_axes=(0, 0))(x, w).sum()

    # the loss sums the examples: its gradient is every example's own
    want = [np.stack([_fd_example(j, j)[k] for j in range(2)]) for k in (0, 1)]
    g = ms.grad(loss, (0, 1))
    compiled = ms.jit(g)
    _once(ms.inspect(compiled, Tensor(X64), Tensor(W64)).ir_before, *GRAD_OPS)
    for fn in (g, compiled):
        gx, gw = fn(Tensor(X64), Tensor(W64))
        np.testing.assert_allclose(gx.asnumpy(), want[0], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gw.asnumpy(), want[1], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn", [lambda x: ops.cumsum(x, 0), lambda x: ops.cummax(x, -1)[0],
                                lambda x: ops.cummin(x, 0)[1]], ids=["cumsum", "cummax", "cummin index"])
def test_ops_along_an_axis_of_0_d_examples(fn):
    """A scalar example has one axis position (axis 0 or -1): the batched call must not shift it
    past the batch axis."""
    x = np.array([3.0, -1.0, 2.0], np.float32)
    want = np.stack([fn(Tensor(v)).asnumpy() for v in x])
    np.testing.assert_array_equal(vmap(fn)(Tensor(x)).asnumpy(), want)


def _lookup_loss(table, idx):
    return (ops.gather(table, idx, 0) ** 2).sum()


def test_per_example_gradients_of_an_embedding_lookup():
    """vmap of grad with the indices batched and the table shared: Gather with batched indices,
    then GatherGrad with batched indices (each example's rows added into its own gradient)."""
    table = np.random.default_rng(8).uniform(-1, 1, (5, 3))
    idx = np.array([[0, 4, 4], [-1, 2, 0]], np.int64)
    want = np.zeros((2, 5, 3))
    for j in range(2):
        np.add.at(want[j], idx[j] % 5, 2 * table[idx[j]])
    f = vmap(ms.grad(_lookup_loss), in_axes=(None, 0))
    compiled = ms.jit(f)
    _once(ms.inspect(compiled, Tensor(table), Tensor(idx)).ir_before, "Gather", "GatherGrad")
    for fn in (f, compiled):
        np.testing.assert_allclose(fn(Tensor(table), Tensor(idx)).asnumpy(), want, rtol=1e-12)


# the rows that still batch example by example, and why: none computes on tensor data that a
# rule could batch (tools/vmap_report.py lists them; docs/architecture.md, vmap)
LOOPING = {
    # effects and ordering: a write, a read of a Parameter, printing, the float-status register
    "Assign", "Load", "UpdateState", "MakeTuple", "Print",
    "NPUAllocFloatStatus", "NPUClearFloatStatus", "NPUGetFloatStatus",
    # collectives
    "AllGather", "AllReduce", "AllReduceStart", "AllReduceWait", "Broadcast", "ReduceScatter",
    # random draws (one draw per example, as the loop makes them)
    "Bernoulli", "Multinomial", "RandomInt", "RandomNormal", "RandomUniform", "Randperm",
    # graph-only stacks of differentiated loops, made after vmap ran
    "StackNew", "StackPush", "StackGet", "StackLen", "StackFree",
    # no tensor inputs (Fill), made by the optimizer after vmap (FusedConv), a user's bprop or
    # hook, written for one example, sees one example (CustomGrad)
    "Fill", "FusedConv", "CustomGrad",
    # ops.Custom's Python function, written for one example's arrays
    "CustomPyFunc",
}


def test_only_effects_collectives_and_random_draws_batch_by_looping():
    looping = {n for n, op in OPS.items() if op.batch == "loop"}
    new = sorted(looping - LOOPING)
    assert not new, (f"{new} batch by looping (one op per example, C growing with the batch): give each a batch "
                     f"rule (ops/batch_rules_*.py) or add it to LOOPING with the reason")


def _fft_rows(x):
    return ops.fft(x)


def test_vmap_of_an_fft_is_one_dft_compiled():
    x = Tensor(_c(5, 3, 8))
    f = ms.jit(vmap(_fft_rows, in_axes=1))
    _once(ms.inspect(f, x).ir_before, "DFT")
    want = np.fft.fft(_c(5, 3, 8).swapaxes(0, 1), axis=-1)
    np.testing.assert_allclose(f(x).asnumpy(), want, rtol=1e-5, atol=1e-5)
