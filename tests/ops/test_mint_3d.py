"""mint's 3-D convolution, pooling and batch norm (mint.nn.functional.conv3d / avg_pool3d,
mint.nn.Conv3d / BatchNorm3d): MindSpore 2.10's CPU wheel has no kernel for them ("conv3d only
supports Ascend", "The kernel AvgPool3DExt unregistered", "The kernel BatchNormExt unregistered":
their conformance cases in tests/conformance/cases_mint.py are skipped with that reason), so each is
checked against NumPy in PyNative and compiled, following the PyTorch-style semantics MindSpore
documents."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, mint

F = mint.nn.functional
RNG = np.random.default_rng(11)
X = RNG.standard_normal((2, 2, 4, 5, 5)).astype(np.float32)
W = RNG.standard_normal((3, 2, 2, 3, 3)).astype(np.float32)
B = RNG.standard_normal(3).astype(np.float32)


def _conv3d(x, w, b, stride=(1, 1, 1), pad=(0, 0, 0)):
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(p, p) for p in pad])
    n, c, d, h, wd = x.shape
    o, _, kd, kh, kw = w.shape
    od, oh, ow = ((d - kd) // stride[0] + 1, (h - kh) // stride[1] + 1, (wd - kw) // stride[2] + 1)
    out = np.zeros((n, o, od, oh, ow))
    for i in range(od):
        for j in range(oh):
            for k in range(ow):
                patch = x[:, :, i * stride[0]:i * stride[0] + kd, j * stride[1]:j * stride[1] + kh,
                          k * stride[2]:k * stride[2] + kw]
                out[:, :, i, j, k] = np.einsum("ncdhw,ocdhw->no", patch, w)
    return out + (0 if b is None else b.reshape(1, -1, 1, 1, 1))


def _avg_pool3d(x, k, s):
    n, c, d, h, w = x.shape
    od, oh, ow = (d - k) // s + 1, (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, c, od, oh, ow))
    for i in range(od):
        for j in range(oh):
            for m in range(ow):
                out[:, :, i, j, m] = x[:, :, i * s:i * s + k, j * s:j * s + k, m * s:m * s + k].mean((2, 3, 4))
    return out


CASES = {
    "conv3d": (lambda x: F.conv3d(x, Tensor(W), Tensor(B)), lambda x: _conv3d(x, W, B)),
    "conv3d_padded_strided": (lambda x: F.conv3d(x, Tensor(W), None, (1, 2, 1), 1),
                              lambda x: _conv3d(x, W, None, (1, 2, 1), (1, 1, 1))),
    "conv3d_same": (lambda x: F.conv3d(x, Tensor(W[:, :, :1]), Tensor(B), 1, "same"),
                    lambda x: _conv3d(x, W[:, :, :1], B, pad=(0, 1, 1))),
    "avg_pool3d": (lambda x: F.avg_pool3d(x, 2), lambda x: _avg_pool3d(x.astype(np.float64), 2, 2)),
    "avg_pool3d_stride1": (lambda x: F.avg_pool3d(x, 2, 1), lambda x: _avg_pool3d(x.astype(np.float64), 2, 1)),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "compiled"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_functions_against_numpy(name, compiled):
    call, ref = CASES[name]
    fn = ms.jit(call) if compiled else call
    got = fn(Tensor(X)).asnumpy()
    want = ref(X)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_conv3d_layer_parameters_and_padding_modes(mode):
    ms.set_context(mode=mode)
    net = mint.nn.Conv3d(2, 3, (2, 3, 3), padding=(0, 1, 1), padding_mode="reflect")
    assert net.weight.shape == (3, 2, 2, 3, 3) and net.bias.shape == (3,)
    assert [p.name for p in net.get_parameters()] == ["weight", "bias"]
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    bound = 1 / np.sqrt(2 * 2 * 3 * 3)          # HeUniform(sqrt(5)) and the bias' 1 / sqrt(fan_in)
    assert np.abs(w).max() <= bound + 1e-6 and np.abs(b).max() <= bound + 1e-6
    padded = np.pad(X, [(0, 0), (0, 0), (0, 0), (1, 1), (1, 1)], mode="reflect")
    np.testing.assert_allclose(net(Tensor(X)).asnumpy(), _conv3d(padded, w, b), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_batchnorm3d_trains_and_evaluates_with_pytorchs_momentum(mode):
    ms.set_context(mode=mode)
    net = mint.nn.BatchNorm3d(2, momentum=0.25)
    net.set_train(True)
    y = net(Tensor(X)).asnumpy()
    x64 = X.astype(np.float64)
    mean, var = x64.mean((0, 2, 3, 4)), x64.var((0, 2, 3, 4))
    want = (x64 - mean.reshape(1, -1, 1, 1, 1)) / np.sqrt(var.reshape(1, -1, 1, 1, 1) + 1e-5)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    count = X.size // 2
    np.testing.assert_allclose(net.running_mean.asnumpy(), 0.25 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.running_var.asnumpy(), 0.75 + 0.25 * var * count / (count - 1), rtol=1e-5)
    assert int(net.num_batches_tracked.asnumpy()) == 1
    net.set_train(False)
    rm, rv = net.running_mean.asnumpy(), net.running_var.asnumpy()
    want = (x64 - rm.reshape(1, -1, 1, 1, 1)) / np.sqrt(rv.reshape(1, -1, 1, 1, 1) + 1e-5)
    np.testing.assert_allclose(net(Tensor(X)).asnumpy(), want, rtol=1e-4, atol=1e-5)


def _adaptive_avg_3d(x, out):
    """PyTorch's adaptive windows, [floor(i L / o), ceil((i + 1) L / o)) along each of the last 3 axes."""
    import math
    res = np.zeros(x.shape[:-3] + tuple(out))
    sizes = x.shape[-3:]
    for idx in np.ndindex(*out):
        win = tuple(slice(math.floor(i * n / o), math.ceil((i + 1) * n / o)) for i, n, o in zip(idx, sizes, out))
        res[(...,) + idx] = x[(...,) + win].astype(np.float64).mean((-3, -2, -1))
    return res


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "compiled"])
def test_adaptive_avg_pool3d_function_and_layer(compiled):
    # (the wheel: "The kernel AdaptiveAvgPool3DExt unregistered")
    f = ms.jit(lambda x: F.adaptive_avg_pool3d(x, (3, 2, 4))) if compiled else \
        (lambda x: F.adaptive_avg_pool3d(x, (3, 2, 4)))
    np.testing.assert_allclose(f(Tensor(X)).asnumpy(), _adaptive_avg_3d(X, (3, 2, 4)), rtol=1e-5, atol=1e-6)
    layer = mint.nn.AdaptiveAvgPool3d((2, 3, 3))
    fn = ms.jit(layer.construct) if compiled else layer
    np.testing.assert_allclose(fn(Tensor(X)).asnumpy(), _adaptive_avg_3d(X, (2, 3, 3)), rtol=1e-5, atol=1e-6)
