"""What the conformance table (tests/conformance/cases_prim35.py) cannot check for the names of
src/pycompile/ops/entries/prim35.py and prim35b.py, against NumPy references written from the
documentation, in PyNative and compiled code: the ops the 2.10 wheel has no CPU kernel for
(DepthwiseConv2dNative, ExtractImagePatches, HistogramFixedWidth, Quantile, LogSoftmaxExt's eager
call, SpaceToBatch / BatchToSpace / BatchToSpaceNDV2, ScatterNonAliasingAdd, AccumulateNV2,
NonMaxSuppressionV3, MultilabelMarginLoss, erfinv_), and those whose wheel call is broken
(CountNonZero, Dilation2D). Gradients of the differentiable ones against central differences."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops

MODES = ["pynative", "graph"]


def _run(fn, mode):
    return ms.jit(fn) if mode == "graph" else fn


def _rand(*shape, seed=0, lo=-2.0, hi=2.0):
    return np.random.RandomState(seed).uniform(lo, hi, shape).astype(np.float32)


def _numeric_grad(f, x, eps=1e-3):
    """Central differences of the scalar f (NumPy float64 in, float out) at x."""
    g = np.zeros_like(x, np.float64)
    for i in np.ndindex(x.shape):
        up, down = x.astype(np.float64).copy(), x.astype(np.float64).copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


def _check_grad(op_fn, x, tol=2e-2):
    """ops.grad of sum(op(x) * w) against central differences through the same op (float64 input)."""
    w = _rand(*op_fn(Tensor(x)).shape, seed=7)
    loss = lambda t: (op_fn(t) * Tensor(w)).sum()            # noqa: E731
    got = ops.grad(loss)(Tensor(x)).asnumpy()
    want = _numeric_grad(lambda a: float((op_fn(Tensor(a)).asnumpy() * w).sum()), x)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# ---- CountNonZero -------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_count_nonzero_primitive(mode):
    x = np.array([[0, 0, 1], [1, 1, 2], [0, 0, 1]], np.int64)
    run = _run(lambda t: (ops.CountNonZero(dims=[1])(t), ops.CountNonZero()(t), ops.CountNonZero(-2)(t)), mode)
    a, b, c = run(Tensor(x))
    assert a.dtype == ms.int64 and a.asnumpy().tolist() == [1, 3, 1]          # the documented example
    assert b.shape == () and int(b.asnumpy()) == 5
    assert c.asnumpy().tolist() == [1, 1, 3]
    f = _rand(2, 3, 4)
    f[f < 0] = 0
    got = _run(lambda t: ops.CountNonZero((0, 2))(t), mode)(Tensor(f))
    np.testing.assert_array_equal(got.asnumpy(), np.count_nonzero(f, axis=(0, 2)))


def test_count_nonzero_primitive_checks():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError):
        ops.CountNonZero(dims=2)(x)
    with pytest.raises(ValueError, match="duplicates"):
        ops.CountNonZero(dims=(1, -1))(x)
    with pytest.raises(TypeError):
        ops.CountNonZero(dims="a")


# ---- DepthwiseConv2dNative ----------------------------------------------------------------------------
def _depthwise_reference(x, w, stride, pads, dilation=(1, 1)):
    """x (N, C, H, W), w (1, C, kh, kw), pads (top, bottom, left, right)."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), pads[:2], pads[2:]))
    oh = (xp.shape[2] - (kh - 1) * dilation[0] - 1) // stride + 1
    ow = (xp.shape[3] - (kw - 1) * dilation[1] - 1) // stride + 1
    out = np.zeros((n, c, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    r, q = i * stride + a * dilation[0], j * stride + b * dilation[1]
                    out[:, :, i, j] += xp[:, :, r, q] * w[0, :, a, b]
    return out


@pytest.mark.parametrize("mode", MODES)
def test_depthwise_conv2d_native_against_numpy(mode):
    x, w = _rand(2, 3, 6, 5), _rand(1, 3, 3, 3, seed=1)
    run = _run(lambda a, b: (ops.DepthwiseConv2dNative(1, 3)(a, b),
                             ops.DepthwiseConv2dNative(1, 3, pad_mode="same")(a, b),
                             ops.DepthwiseConv2dNative(1, 3, pad_mode="pad", pad=(1, 0, 2, 1), stride=2)(a, b),
                             ops.DepthwiseConv2dNative(1, 3, pad_mode="pad", pad=2, dilation=2)(a, b)), mode)
    valid, same, padded, dil = run(Tensor(x), Tensor(w))
    np.testing.assert_allclose(valid.asnumpy(), _depthwise_reference(x, w, 1, (0, 0, 0, 0)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(same.asnumpy(), _depthwise_reference(x, w, 1, (1, 1, 1, 1)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(padded.asnumpy(), _depthwise_reference(x, w, 2, (1, 0, 2, 1)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dil.asnumpy(), _depthwise_reference(x, w, 1, (2, 2, 2, 2), (2, 2)), rtol=1e-5,
                               atol=1e-5)


def test_depthwise_conv2d_native_grad():
    w = Tensor(_rand(1, 2, 2, 2, seed=3))
    _check_grad(lambda t: ops.DepthwiseConv2dNative(1, 2, pad_mode="same")(t, ops.cast(w, t.dtype)), _rand(1, 2, 4, 3))


# ---- ExtractImagePatches ------------------------------------------------------------------------------
def _patches_reference(x, k, s, r, padding):
    n, c, h, w = x.shape
    span = [(k[i] - 1) * r[i] + 1 for i in range(2)]
    if padding == "VALID":
        out = [(size - span[i]) // s[i] + 1 for i, size in enumerate((h, w))]
        xp = x
    else:
        out = [-(-size // s[i]) for i, size in enumerate((h, w))]
        need = [max((out[i] - 1) * s[i] + span[i] - size, 0) for i, size in enumerate((h, w))]
        xp = np.pad(x, ((0, 0), (0, 0), (need[0] // 2, need[0] - need[0] // 2), (need[1] // 2, need[1] - need[1] // 2)))
    res = np.zeros((n, k[0] * k[1] * c, out[0], out[1]), x.dtype)
    for i in range(out[0]):
        for j in range(out[1]):
            for a in range(k[0]):
                for b in range(k[1]):
                    for ch in range(c):
                        res[:, (a * k[1] + b) * c + ch, i, j] = xp[:, ch, i * s[0] + a * r[0], j * s[1] + b * r[1]]
    return res


@pytest.mark.parametrize("mode", MODES)
def test_extract_image_patches_against_numpy(mode):
    x = _rand(2, 3, 6, 5)
    run = _run(lambda t: (ops.ExtractImagePatches([1, 1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")(t),
                          ops.ExtractImagePatches([1, 1, 3, 2], [1, 1, 2, 2], [1, 1, 1, 2], "SAME")(t)), mode)
    a, b = run(Tensor(x))
    np.testing.assert_array_equal(a.asnumpy(), _patches_reference(x, (2, 2), (1, 1), (1, 1), "VALID"))
    np.testing.assert_array_equal(b.asnumpy(), _patches_reference(x, (3, 2), (2, 2), (1, 2), "SAME"))


def test_extract_image_patches_grad():
    _check_grad(lambda t: ops.ExtractImagePatches([1, 1, 2, 2], [1, 1, 2, 1], [1, 1, 1, 1], "SAME")(t),
                _rand(1, 2, 4, 3))


# ---- HistogramFixedWidth ------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_histogram_fixed_width_against_numpy(mode):
    run = _run(lambda a, r: ops.HistogramFixedWidth(5)(a, r), mode)
    doc = run(Tensor(np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], np.float32)), Tensor(np.array([0.0, 5.0], np.float32)))
    assert doc.dtype == ms.int32 and doc.asnumpy().tolist() == [2, 1, 1, 0, 2]       # the documented example
    x = np.random.RandomState(3).randint(-5, 25, 40).astype(np.int32)
    got = _run(lambda a, r: ops.HistogramFixedWidth(4)(a, r), mode)(Tensor(x), Tensor(np.array([0, 20], np.int32)))
    want = np.bincount(np.clip(np.floor((x - 0) / 20 * 4), 0, 3).astype(int), minlength=4)
    np.testing.assert_array_equal(got.asnumpy(), want)


# ---- Quantile -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_quantile_primitive_against_numpy(mode):
    x = _rand(3, 5).astype(np.float64)
    x_nan = x.copy()
    x_nan[1, 2] = np.nan
    q = np.array([0.1, 0.5, 0.9])
    run = _run(lambda a, b, c: (ops.Quantile()(a, b), ops.Quantile(dim=1, keep_dims=True)(a, b),
                                ops.Quantile(dim=0, ignore_nan=True)(c, b)), mode)
    flat, rows, nan = run(Tensor(x), Tensor(q), Tensor(x_nan))
    np.testing.assert_allclose(flat.asnumpy(), np.quantile(x, q), rtol=1e-12)
    np.testing.assert_allclose(rows.asnumpy(), np.quantile(x, q, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(nan.asnumpy(), np.nanquantile(x_nan, q, axis=0), rtol=1e-12)


# ---- LogSoftmaxExt ------------------------------------------------------------------------------------
def _log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


@pytest.mark.parametrize("mode", MODES)
def test_log_softmax_ext_against_numpy(mode):
    x2, x4 = _rand(3, 4), _rand(2, 3, 2, 2, seed=2)
    run = _run(lambda a, b: (ops.LogSoftmaxExt()(a), ops.LogSoftmaxExt()(b), ops.LogSoftmaxExt()(a, -1, ms.float64)),
               mode)
    a, b, c = run(Tensor(x2), Tensor(x4))
    np.testing.assert_allclose(a.asnumpy(), _log_softmax(x2, 1), rtol=1e-5, atol=1e-6)   # dim None: 1 for 2-D
    np.testing.assert_allclose(b.asnumpy(), _log_softmax(x4, 1), rtol=1e-5, atol=1e-6)   # and for 4-D
    assert c.dtype == ms.float64
    np.testing.assert_allclose(c.asnumpy(), _log_softmax(x2.astype(np.float64), 1), rtol=1e-12)


def test_log_softmax_ext_grad():
    _check_grad(lambda t: ops.LogSoftmaxExt()(t, 0), _rand(3, 4))


# ---- SpaceToBatch / BatchToSpace / BatchToSpaceNDV2 ---------------------------------------------------
def _space_to_batch(x, b, pads):
    xp = np.pad(x, ((0, 0), (0, 0), pads[0], pads[1]))
    n, c, h, w = xp.shape
    y = xp.reshape(n, c, h // b, b, w // b, b).transpose(3, 5, 0, 1, 2, 4)
    return y.reshape(b * b * n, c, h // b, w // b)


def _batch_to_space(x, b, crops):
    nb, c, h, w = x.shape
    n = nb // (b * b)
    y = x.reshape(b, b, n, c, h, w).transpose(2, 3, 4, 0, 5, 1).reshape(n, c, h * b, w * b)
    return y[:, :, crops[0][0]:h * b - crops[0][1], crops[1][0]:w * b - crops[1][1]]


@pytest.mark.parametrize("mode", MODES)
def test_space_batch_against_numpy(mode):
    x, y = _rand(2, 3, 4, 2), _rand(8, 2, 2, 3, seed=1)
    run = _run(lambda a, b, bs, cr: (ops.SpaceToBatch(2, [[1, 1], [0, 2]])(a), ops.BatchToSpace(2, [[0, 1], [1, 0]])(b),
                                     ops.BatchToSpaceNDV2()(b, bs, cr)), mode)
    s2b, b2s, v2 = run(Tensor(x), Tensor(y), Tensor(np.array([2, 2], np.int64)),
                       Tensor(np.array([[0, 1], [2, 0]], np.int32)))
    np.testing.assert_array_equal(s2b.asnumpy(), _space_to_batch(x, 2, ((1, 1), (0, 2))))
    np.testing.assert_array_equal(b2s.asnumpy(), _batch_to_space(y, 2, ((0, 1), (1, 0))))
    np.testing.assert_array_equal(v2.asnumpy(), _batch_to_space(y, 2, ((0, 1), (2, 0))))
    # the documented example: a 2x2 image split into 4 batches
    doc = ops.SpaceToBatch(2, [[0, 0], [0, 0]])(Tensor(np.array([[[[1, 2], [3, 4]]]], np.float32)))
    assert doc.asnumpy().reshape(-1).tolist() == [1, 2, 3, 4] and doc.shape == (4, 1, 1, 1)


# ---- ScatterNonAliasingAdd ----------------------------------------------------------------------------
class _NonAliasingNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.arange(8, dtype=np.float32)), name="p")
        self.op = ops.ScatterNonAliasingAdd()

    def construct(self, i, u):
        self.op(self.p, i, u)
        return self.p + 0


def test_scatter_non_aliasing_add_both_modes():
    i, u = np.array([[2], [4], [1], [7]], np.int32), np.array([6, 7, 8, 9], np.float32)
    want = np.arange(8, dtype=np.float32)
    np.add.at(want, i[:, 0], u)
    p = Parameter(Tensor(np.arange(8, dtype=np.float32)), name="p")
    out = ops.ScatterNonAliasingAdd()(p, Tensor(i), Tensor(u))
    np.testing.assert_array_equal(out.asnumpy(), want)                      # the documented example
    np.testing.assert_array_equal(p.asnumpy(), want)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _NonAliasingNet()
        np.testing.assert_array_equal(net(Tensor(i), Tensor(u)).asnumpy(), want)
        np.testing.assert_array_equal(net.p.asnumpy(), want)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


# ---- AccumulateNV2 / accumulate_n ---------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_accumulate_n_against_numpy(mode):
    a, b, c = _rand(2, 3), _rand(2, 3, seed=1), _rand(2, 3, seed=2)
    run = _run(lambda x, y, z: (ops.AccumulateNV2()((x, y, z)), ops.accumulate_n([x, y]),
                                ops.functional.accumulate_n((z,))), mode)
    three, two, one = run(Tensor(a), Tensor(b), Tensor(c))
    np.testing.assert_allclose(three.asnumpy(), a + b + c, rtol=1e-6)
    np.testing.assert_allclose(two.asnumpy(), a + b, rtol=1e-6)
    np.testing.assert_array_equal(one.asnumpy(), c)
    ints = _run(lambda x, y: ops.accumulate_n([x, y]), mode)(Tensor(np.array([1, 2], np.int32)),
                                                           Tensor(np.array([3, 4], np.int32)))
    assert ints.dtype == ms.int32 and ints.asnumpy().tolist() == [4, 6]


# ---- NonMaxSuppressionV3 ------------------------------------------------------------------------------
def _nms_reference(boxes, scores, limit, iou_t, score_t):
    def iou(a, b):
        ya0, ya1, xa0, xa1 = min(a[0], a[2]), max(a[0], a[2]), min(a[1], a[3]), max(a[1], a[3])
        yb0, yb1, xb0, xb1 = min(b[0], b[2]), max(b[0], b[2]), min(b[1], b[3]), max(b[1], b[3])
        aa, ab = (ya1 - ya0) * (xa1 - xa0), (yb1 - yb0) * (xb1 - xb0)
        if aa <= 0 or ab <= 0:
            return 0.0
        inter = max(min(ya1, yb1) - max(ya0, yb0), 0) * max(min(xa1, xb1) - max(xa0, xb0), 0)
        return inter / (aa + ab - inter)
    kept = []
    for i in sorted(range(len(scores)), key=lambda k: (-scores[k], k)):
        if len(kept) < limit and scores[i] > score_t and all(iou(boxes[i], boxes[k]) < iou_t for k in kept):
            kept.append(i)
    return kept


@pytest.mark.parametrize("mode", MODES)
def test_non_max_suppression_v3_against_numpy(mode):
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                      [0, 100, 1, 101]], np.float32)
    scores = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)
    run = _run(lambda b, s: ops.NonMaxSuppressionV3()(b, s, Tensor(3, ms.int32), Tensor(0.5, ms.float32),
                                                      Tensor(0.0, ms.float32)), mode)
    got = run(Tensor(boxes), Tensor(scores))
    assert got.dtype == ms.int32 and got.asnumpy().tolist() == [3, 0, 5]     # TensorFlow's documented example
    rs = np.random.RandomState(5)
    corners = rs.uniform(0, 10, (30, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + rs.uniform(0.5, 4, (30, 2)).astype(np.float32)], 1)
    scores = rs.uniform(0, 1, 30).astype(np.float32)
    got = ops.NonMaxSuppressionV3()(Tensor(boxes), Tensor(scores), Tensor(20, ms.int32), Tensor(0.3, ms.float32),
                                    Tensor(0.2, ms.float32))
    assert got.asnumpy().tolist() == _nms_reference(boxes, scores, 20, 0.3, 0.2)


# ---- MultilabelMarginLoss -----------------------------------------------------------------------------
def _multilabel_reference(x, t):
    x, t = np.atleast_2d(x).astype(np.float64), np.atleast_2d(t)
    losses, marks = [], np.zeros_like(x)
    for xi, ti, mi in zip(x, t, marks):
        labels = []
        for v in ti:
            if v == -1:
                break
            labels.append(v)
        mi[labels] = 1
        losses.append(sum(max(0.0, 1 - (xi[j] - xi[k])) for j in labels for k in range(len(xi)) if mi[k] == 0)
                      / len(xi))
    return np.array(losses), marks


@pytest.mark.parametrize("mode", MODES)
def test_multilabel_margin_loss_against_numpy(mode):
    x = np.array([[0.1, 0.2, 0.4, 0.8], [0.2, 0.3, 0.5, 0.7]], np.float32)
    t = np.array([[1, 2, 0, 3], [2, 3, -1, 1]], np.int32)
    run = _run(lambda a, b: (ops.MultilabelMarginLoss()(a, b), ops.MultilabelMarginLoss("none")(a, b),
                             ops.multilabel_margin_loss(a, b, "sum"), ops.multilabel_margin_loss(a[1], b[1], "none")),
               mode)
    (mean, mark), (none, _), total, one = run(Tensor(x), Tensor(t))
    want, want_mark = _multilabel_reference(x, t)
    assert abs(float(mean.asnumpy()) - 0.325) < 1e-6                         # the documented example
    np.testing.assert_allclose(none.asnumpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(mark.asnumpy(), want_mark)
    assert mark.dtype == ms.float32
    np.testing.assert_allclose(total.asnumpy(), want.sum(), rtol=1e-6)
    assert one.shape == () and abs(float(one.asnumpy()) - want[1]) < 1e-6
    xr = _rand(3, 6, seed=4)
    tr = np.array([[5, 0, -1, 2, 2, 2], [1, 1, 3, 4, 0, -1], [-1, 0, 1, 2, 3, 4]], np.int32)
    got = ops.MultilabelMarginLoss("none")(Tensor(xr), Tensor(tr))[0]
    np.testing.assert_allclose(got.asnumpy(), _multilabel_reference(xr, tr)[0], rtol=1e-5, atol=1e-6)


def test_multilabel_margin_loss_grad():
    t = Tensor(np.array([[1, 2, -1, 0], [3, -1, 0, 0]], np.int32))
    _check_grad(lambda a: ops.MultilabelMarginLoss("none")(a, t)[0], _rand(2, 4, lo=-0.3, hi=0.3))


# ---- Dilation2D ---------------------------------------------------------------------------------------
def _dilation_reference(x, f, s, d, same):
    n, c, h, w = x.shape
    kh, kw = f.shape[1:]
    span = ((kh - 1) * d[0] + 1, (kw - 1) * d[1] + 1)
    if same:
        out = [-(-h // s[0]), -(-w // s[1])]
        top = max((out[0] - 1) * s[0] + span[0] - h, 0) // 2
        left = max((out[1] - 1) * s[1] + span[1] - w, 0) // 2
    else:
        out, top, left = [(h - span[0]) // s[0] + 1, (w - span[1]) // s[1] + 1], 0, 0
    res = np.full((n, c, out[0], out[1]), -np.inf, np.float64)
    for i in range(out[0]):
        for j in range(out[1]):
            for a in range(kh):
                for b in range(kw):
                    r, q = i * s[0] + a * d[0] - top, j * s[1] + b * d[1] - left
                    if 0 <= r < h and 0 <= q < w:
                        res[:, :, i, j] = np.maximum(res[:, :, i, j], x[:, :, r, q] + f[:, a, b])
    return res


@pytest.mark.parametrize("mode", MODES)
def test_dilation2d_against_numpy(mode):
    x, f = _rand(1, 2, 5, 4), _rand(2, 2, 3, seed=1)
    run = _run(lambda a, b: (ops.Dilation2D(stride=1, dilation=1)(a, b),
                             ops.Dilation2D(stride=(2, 1), dilation=(1, 2), pad_mode="VALID")(a, b[:, :, :2]),
                             ops.Dilation2D(stride=2, dilation=(1, 1, 2, 1), pad_mode="same")(a, b)), mode)
    same, valid, strided = run(Tensor(x), Tensor(f))
    np.testing.assert_allclose(same.asnumpy(), _dilation_reference(x, f, (1, 1), (1, 1), True), rtol=1e-6)
    np.testing.assert_allclose(valid.asnumpy(), _dilation_reference(x, f[:, :, :2], (2, 1), (1, 2), False), rtol=1e-6)
    np.testing.assert_allclose(strided.asnumpy(), _dilation_reference(x, f, (2, 2), (2, 1), True), rtol=1e-6)


def test_dilation2d_grad():
    f = Tensor(_rand(2, 2, 2, seed=1))
    _check_grad(lambda t: ops.Dilation2D(stride=1, dilation=1)(t, ops.cast(f, t.dtype)), _rand(1, 2, 4, 3, seed=6))


# ---- erfinv_ ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_erfinv_inplace(mode):
    x = np.array([0.1, -0.5, 0.9, 0.0], np.float32)
    run = _run(lambda t: ops.erfinv_(t) * 1, mode)
    got = run(Tensor(x)).asnumpy()
    np.testing.assert_allclose([math.erf(v) for v in got], x, rtol=1e-5, atol=1e-6)
    t = Tensor(x)
    r = ops.functional.erfinv_(t)
    np.testing.assert_array_equal(t.asnumpy(), r.asnumpy())                  # written into the argument
    np.testing.assert_allclose(t.asnumpy(), got, rtol=1e-6)
