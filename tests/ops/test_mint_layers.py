"""mint.nn's layers with weights and the pooling layers: their Parameters as MindSpore 2.10 builds
them (names, shapes, dtypes, trainable: tests/oracle/data/mint_layers.json, recorded by
tests/oracle/record_mint_layers.py), and their values against NumPy in PyNative and compiled (the
wheel has no CPU kernel to run them: "The kernel Conv2DExt unregistered")."""
import json
import os
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, mint

ORACLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle")
sys.path.insert(0, ORACLE)
import mint_layer_cases  # noqa: E402

with open(os.path.join(ORACLE, "data", "mint_layers.json")) as _f:
    RECORDED = json.load(_f)["layers"]
RNG = np.random.default_rng(3)


@pytest.mark.parametrize("key", sorted(mint_layer_cases.LAYERS))
def test_parameters_are_mindsporess(key):
    layer = eval(mint_layer_cases.LAYERS[key])       # noqa: S307 - the recorded constructor calls
    got = [[p.name, list(p.shape), str(p.dtype), bool(p.requires_grad)] for p in layer.get_parameters()]
    assert got == RECORDED[key]


def _conv2d_ref(x, w, b, stride, pad, dilation, groups):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    n, c, h, wd = x.shape
    k, cg, kh, kw = w.shape
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, k, oh, ow))
    per = k // groups
    for o in range(k):
        g = o // per
        for i in range(kh):
            for j in range(kw):
                patch = x[:, g * cg:(g + 1) * cg, i * dilation[0]:i * dilation[0] + stride[0] * oh:stride[0],
                          j * dilation[1]:j * dilation[1] + stride[1] * ow:stride[1]]
                out[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j])
    return out + (0 if b is None else b[None, :, None, None])


def _run(cell, *args, compiled):
    ms.set_context(mode=ms.GRAPH_MODE if compiled else ms.PYNATIVE_MODE)
    try:
        return cell(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("kw", [dict(padding=1), dict(stride=2, groups=2, bias=False, dilation=(1, 2)),
                                dict(padding="same"), dict(padding=(2, 1), padding_mode="reflect")],
                         ids=["pad", "groups", "same", "reflect"])
def test_conv2d_against_numpy(kw, compiled):
    conv = mint.nn.Conv2d(4, 6, 3, **kw)
    x = RNG.uniform(-1, 1, (2, 4, 9, 8)).astype(np.float32)
    w, b = conv.weight.asnumpy(), None if conv.bias is None else conv.bias.asnumpy()
    got = _run(conv, Tensor(x), compiled=compiled).asnumpy()
    pad = kw.get("padding", 0)
    xr = x
    if kw.get("padding_mode") == "reflect":
        xr = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])), mode="reflect")
        pad = (0, 0)
    elif pad == "same":
        pad = (1, 1)
    elif isinstance(pad, int):
        pad = (pad, pad)
    d = kw.get("dilation", 1)
    d = (d, d) if isinstance(d, int) else d
    s = kw.get("stride", 1)
    want = _conv2d_ref(xr, w, b, (s, s), pad, d, kw.get("groups", 1))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("compiled", [False, True])
def test_conv1d_against_numpy(compiled):
    conv = mint.nn.Conv1d(3, 2, 3, padding=1)
    x = RNG.uniform(-1, 1, (2, 3, 7)).astype(np.float32)
    got = _run(conv, Tensor(x), compiled=compiled).asnumpy()
    want = _conv2d_ref(x[:, :, None], conv.weight.asnumpy()[:, :, None], conv.bias.asnumpy(), (1, 1), (0, 1),
                       (1, 1), 1)[:, :, 0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("compiled", [False, True])
def test_batchnorm2d_trains_and_evaluates_with_torchs_momentum(compiled):
    bn = mint.nn.BatchNorm2d(3, momentum=0.2)
    bn.set_train(True)
    x = RNG.uniform(-1, 3, (4, 3, 5, 5)).astype(np.float32)
    y = _run(bn, Tensor(x), compiled=compiled).asnumpy()
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    np.testing.assert_allclose(y, (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5),
                               rtol=1e-4, atol=1e-5)
    n = 4 * 5 * 5
    np.testing.assert_allclose(bn.running_mean.asnumpy(), 0.2 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.asnumpy(), 0.8 + 0.2 * var * n / (n - 1), rtol=1e-5)
    assert int(bn.num_batches_tracked.asnumpy()) == 1
    bn.set_train(False)
    z = _run(bn, Tensor(x), compiled=compiled).asnumpy()
    rm, rv = bn.running_mean.asnumpy(), bn.running_var.asnumpy()
    np.testing.assert_allclose(z, (x - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5),
                               rtol=1e-4, atol=1e-5)


def test_embedding_rows_and_padding_row():
    emb = mint.nn.Embedding(5, 3, padding_idx=1)
    w = emb.weight.asnumpy()
    assert (w[1] == 0).all() and w.std() > 0.3         # N(0, 1) rows, the padding row zero
    idx = np.array([[1, 4, 0]], np.int32)
    np.testing.assert_array_equal(emb(Tensor(idx)).asnumpy(), w[idx])


@pytest.mark.parametrize("compiled", [False, True])
def test_pooling_layers_against_numpy(compiled):
    x = RNG.uniform(-1, 1, (1, 2, 6, 6)).astype(np.float32)
    mx = _run(mint.nn.MaxPool2d(2), Tensor(x), compiled=compiled).asnumpy()
    np.testing.assert_array_equal(mx, x.reshape(1, 2, 3, 2, 3, 2).max((3, 5)))
    av = _run(mint.nn.AvgPool2d(2, 2), Tensor(x), compiled=compiled).asnumpy()
    np.testing.assert_allclose(av, x.reshape(1, 2, 3, 2, 3, 2).mean((3, 5)), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("compiled", [False, True])
def test_functional_conv_pool_normalize(compiled):
    F = mint.nn.functional
    x = RNG.uniform(-1, 1, (2, 4, 6, 5)).astype(np.float32)
    w = RNG.uniform(-1, 1, (6, 2, 3, 3)).astype(np.float32)

    def run(x, w):
        return (mint.conv2d(x, w, None, 1, (1, 0), 1, 2), F.conv2d(x, w, padding="same", groups=2),
                F.adaptive_avg_pool2d(x, (3, 1)), F.normalize(x, 2.0, 1), F.threshold(x, 0.1, -5.0),
                F.pixel_shuffle(x, 2)[0, :1], F.avg_pool1d(x[0], 2))
    got = [t.asnumpy() for t in (ms.jit(run) if compiled else run)(Tensor(x), Tensor(w))]
    np.testing.assert_allclose(got[0], _conv2d_ref(x, w, None, (1, 1), (1, 0), (1, 1), 2), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], _conv2d_ref(x, w, None, (1, 1), (1, 1), (1, 1), 2), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[2], x.reshape(2, 4, 3, 2, 5).mean((3, 4))[..., None], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[3], x / np.sqrt((x ** 2).sum(1, keepdims=True)), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[4], np.where(x > 0.1, x, -5.0))
    assert got[5].shape == (1, 12, 10)
    np.testing.assert_allclose(got[6], x[0, :, :, :4].reshape(4, 6, 2, 2).mean(3), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_more_layers_against_numpy(compiled):
    x = RNG.uniform(-1, 1, (2, 4, 4, 6)).astype(np.float32)
    seq = RNG.uniform(-1, 1, (2, 3, 8)).astype(np.float32)

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.gn, self.prelu = mint.nn.GroupNorm(2, 4), mint.nn.PReLU(4, 0.1)
            self.pad1, self.pad3 = mint.nn.ConstantPad1d((1, 2), 0.5), mint.nn.ZeroPad3d(1)
            self.up = mint.nn.UpsamplingNearest2d(scale_factor=2.0)
            self.avg1, self.amax1 = mint.nn.AvgPool1d(2), mint.nn.AdaptiveMaxPool1d(4)
            self.thr = mint.nn.Threshold(0.2, -1.0)

        def construct(self, x, seq):
            return (self.gn(x), self.prelu(x), self.pad1(seq), self.pad3(x), self.up(x), self.avg1(seq),
                    self.amax1(seq), self.thr(x))
    got = [t.asnumpy() for t in _run(Net(), Tensor(x), Tensor(seq), compiled=compiled)]
    g = x.reshape(2, 2, -1)
    gn = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(got[0], gn, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    np.testing.assert_array_equal(got[2], np.pad(seq, ((0, 0), (0, 0), (1, 2)), constant_values=0.5))
    np.testing.assert_array_equal(got[3], np.pad(x, ((0, 0), (1, 1), (1, 1), (1, 1))))
    np.testing.assert_array_equal(got[4], x.repeat(2, 2).repeat(2, 3))
    np.testing.assert_allclose(got[5], seq.reshape(2, 3, 4, 2).mean(3), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(got[6], seq.reshape(2, 3, 4, 2).max(3))
    np.testing.assert_array_equal(got[7], np.where(x > 0.2, x, -1.0))


def test_losses_unfold_fold_and_bilinear_upsampling():
    a, b = RNG.uniform(-1, 1, (3, 4)).astype(np.float32), RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
    t = np.array([1, -1, 1], np.float32)
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    want = np.where(t > 0, 1 - cos, np.maximum(0, cos - 0.1)).mean()
    np.testing.assert_allclose(mint.nn.CosineEmbeddingLoss(0.1)(Tensor(a), Tensor(b), Tensor(t)).asnumpy(), want,
                               rtol=1e-5)
    np.testing.assert_allclose(mint.nn.SoftMarginLoss()(Tensor(a), Tensor(np.sign(b))).asnumpy(),
                               np.log1p(np.exp(-np.sign(b) * a)).mean(), rtol=1e-5)
    img = RNG.uniform(-1, 1, (1, 2, 4, 4)).astype(np.float32)
    cols = mint.nn.Unfold(2, stride=2)(Tensor(img))
    assert cols.shape == (1, 8, 4)
    np.testing.assert_allclose(mint.nn.Fold((4, 4), 2, stride=2)(cols).asnumpy(), img, rtol=1e-6)
    up = mint.nn.UpsamplingBilinear2d(size=(7, 7))(Tensor(img)).asnumpy()
    np.testing.assert_allclose(up[..., ::2, ::2], img, rtol=1e-5, atol=1e-6)      # align_corners: corners kept
