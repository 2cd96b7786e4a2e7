"""The rest of mint's names: the in-place activations (mint.nn.functional.relu_ / elu_ / hardtanh_ /
threshold_), max_unpool2d / MaxUnpool2d, ConvTranspose2d, triangular_solve, conv_tbc, the batch-norm
statistics functions (batch_norm_stats / _elemt / _gather_stats_with_counts), unique_consecutive and
SyncBatchNorm. MindSpore 2.10's CPU wheel has no kernel for most of them ("The kernel InplaceReLU
unregistered", "The kernel TriangularSolve unregistered": their conformance cases in
tests/conformance/cases_mint.py are skipped with that reason), so each is checked here against NumPy
in PyNative and compiled, following the PyTorch semantics MindSpore documents. (unique_consecutive and
SyncBatchNorm run on the wheel: their recorded cases are compared too; SyncBatchNorm over two MPI
ranks is checked in tests/distributed/syncbn_worker.py.)"""

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, mint, nn

F = mint.nn.functional
RNG = np.random.default_rng(23)
X = RNG.uniform(-2, 2, (2, 3, 4)).astype(np.float32)


# ---- in-place activations ----------------------------------------------------------------------------
INPLACE = {
    "relu_": ("relu_", (), lambda a: np.maximum(a, 0)),
    "elu_": ("elu_", (), lambda a: np.where(a > 0, a, np.expm1(a))),
    "elu_alpha": ("elu_", (0.5,), lambda a: np.where(a > 0, a, 0.5 * np.expm1(a))),
    "hardtanh_": ("hardtanh_", (), lambda a: np.clip(a, -1.0, 1.0)),
    "hardtanh_range": ("hardtanh_", (-0.5, 1.5), lambda a: np.clip(a, -0.5, 1.5)),
    "threshold_": ("threshold_", (0.3, -7.0), lambda a: np.where(a > 0.3, a, -7.0)),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_pynative_writes_into_the_input(name):
    fname, args, ref = INPLACE[name]
    x = Tensor(X.copy())
    alias = x
    out = getattr(F, fname)(x, *args)
    assert out is x
    np.testing.assert_allclose(x.asnumpy(), ref(X.astype(np.float64)), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(alias.asnumpy(), ref(X.astype(np.float64)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_graph_code_returns_the_result_and_rebinds_the_name(name):
    fname, args, ref = INPLACE[name]
    op = getattr(F, fname)

    def f(x):
        old = x
        r = op(x, *args)
        return r, x, old

    x = Tensor(X.copy())
    r, rebound, old = ms.jit(f)(x)
    want = ref(X.astype(np.float64))
    np.testing.assert_allclose(r.asnumpy(), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(rebound.asnumpy(), want, rtol=1e-6, atol=1e-6)
    # in graph code a tensor is a value: another name bound to it keeps the old one, and the
    # caller's tensor is not written
    np.testing.assert_array_equal(old.asnumpy(), X)
    np.testing.assert_array_equal(x.asnumpy(), X)


@ms.jit
def _inplace_loop(x, n):
    i = 0
    while i < n:
        F.threshold_(x, 0.5, 0.0)
        x = x + 0.25
        i += 1
    F.relu_(x)
    return x


def test_inplace_graph_code_carries_the_name_through_a_runtime_loop():
    a = X.astype(np.float64)
    for _ in range(3):
        a = np.where(a > 0.5, a, 0.0) + 0.25
    np.testing.assert_allclose(_inplace_loop(Tensor(X.copy()), Tensor(3)).asnumpy(), np.maximum(a, 0), rtol=1e-6)


class _ParamRelu(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(X.copy()), "p")

    def construct(self, y):
        F.hardtanh_(self.p, -0.5, 0.5)
        return self.p + y


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_inplace_on_a_parameter_assigns_it(mode):
    ms.set_context(mode=mode)
    try:
        net = _ParamRelu()
        out = net(Tensor(np.ones_like(X)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(net.p.asnumpy(), np.clip(X, -0.5, 0.5), rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), np.clip(X, -0.5, 0.5) + 1, rtol=1e-6)


def test_inplace_argument_checks():
    with pytest.raises(RuntimeError, match="elu_"):
        F.elu_(Tensor(np.array([1, -2], np.int32)))
    with pytest.raises(TypeError, match="alpha"):
        F.elu_(Tensor(X.copy()), "1")
    with pytest.raises(TypeError, match="input"):
        F.relu_(X)
    ints = Tensor(np.array([-3, 0, 4], np.int32))
    assert F.hardtanh_(ints, -1, 2) is ints
    np.testing.assert_array_equal(ints.asnumpy(), [-1, 0, 2])
    assert ints.dtype == ms.int32


# ---- max_unpool2d / MaxUnpool2d ----------------------------------------------------------------------
def _unpool_ref(x, idx, out_hw):
    lead = x.shape[:-2]
    planes = int(np.prod(lead))
    out = np.zeros((planes, out_hw[0] * out_hw[1]), x.dtype)
    xf, jf = x.reshape(planes, -1), idx.reshape(planes, -1)
    for p in range(planes):
        out[p, jf[p]] = xf[p]
    return out.reshape(lead + tuple(out_hw))


def _indices(shape, out_hw, seed):
    """Distinct flat positions within each plane of the output."""
    r = np.random.default_rng(seed)
    lead, k = shape[:-2], shape[-2] * shape[-1]
    rows = [r.choice(out_hw[0] * out_hw[1], k, replace=False) for _ in range(int(np.prod(lead)))]
    return np.stack(rows).reshape(shape).astype(np.int64)


UNPOOL = {
    # name: (input shape, kernel, stride, padding, output_size, the output's spatial size)
    "k2": ((2, 3, 2, 3), 2, None, 0, None, (4, 6)),
    "k3_s2_p1": ((1, 2, 3, 3), 3, 2, 1, None, (5, 5)),
    "tuple_args_unbatched": ((2, 3, 2), (2, 3), (1, 2), (0, 1), None, (4, 3)),
    "output_size": ((1, 2, 2, 2), 2, None, 0, (5, 5), (5, 5)),
    "output_size_nchw": ((1, 2, 2, 2), (2,), None, 0, (1, 2, 3, 4), (3, 4)),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "compiled"])
@pytest.mark.parametrize("name", sorted(UNPOOL))
def test_max_unpool2d_against_numpy(name, compiled):
    shape, k, s, p, size, hw = UNPOOL[name]
    x = RNG.standard_normal(shape).astype(np.float32)
    idx = _indices(shape, hw, len(name))
    want = _unpool_ref(x, idx, hw)

    def fn(x, i):
        return F.max_unpool2d(x, i, k, s, p, size)

    def layer(x, i):
        return mint.nn.MaxUnpool2d(k, s, p)(x, i, size)

    for f in (fn, layer):
        got = (ms.jit(f) if compiled else f)(Tensor(x), Tensor(idx)).asnumpy()
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_max_unpool2d_inverts_max_pool2d():
    x = RNG.standard_normal((2, 3, 6, 4)).astype(np.float32)
    v, i = F.max_pool2d(Tensor(x), 2, return_indices=True)
    got = F.max_unpool2d(v, i, 2).asnumpy()
    blocks = x.reshape(2, 3, 3, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 3, 2, 4)
    keep = blocks == blocks.max(-1, keepdims=True)
    want = np.where(keep, blocks, 0).reshape(2, 3, 3, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(x.shape)
    np.testing.assert_array_equal(got, want)


def test_max_unpool2d_output_size_out_of_range():
    x = Tensor(np.ones((1, 1, 2, 2), np.float32))
    with pytest.raises(ValueError, match="output_size"):
        F.max_unpool2d(x, Tensor(np.zeros((1, 1, 2, 2), np.int64)), 2, output_size=(6, 4))


# ---- ConvTranspose2d ---------------------------------------------------------------------------------
def _conv_transpose2d_ref(x, w, b, stride, padding, output_padding, groups, dilation):
    """Each input pixel scatters its weighted kernel, taps dilation apart, stride apart per pixel;
    the rows / columns `padding` from each end are cut and `output_padding` more added at the end."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, cin, h, wd = x.shape
    _, og, kh, kw = w.shape
    cout, ig = og * groups, cin // groups
    (s0, s1), (p0, p1), (q0, q1), (d0, d1) = stride, padding, output_padding, dilation
    full_h = (h - 1) * s0 + d0 * (kh - 1) + 1 + q0
    full_w = (wd - 1) * s1 + d1 * (kw - 1) + 1 + q1
    buf = np.zeros((n, cout, full_h + p0, full_w + p1))
    for g in range(groups):
        xs = x[:, g * ig:(g + 1) * ig]
        ws = w[g * ig:(g + 1) * ig]
        for i in range(h):
            for j in range(wd):
                for a in range(kh):
                    for c in range(kw):
                        buf[:, g * og:(g + 1) * og, i * s0 + a * d0, j * s1 + c * d1] += xs[:, :, i, j] @ ws[:, :, a, c]
    out_h = (h - 1) * s0 - 2 * p0 + d0 * (kh - 1) + q0 + 1
    out_w = (wd - 1) * s1 - 2 * p1 + d1 * (kw - 1) + q1 + 1
    out = buf[:, :, p0:p0 + out_h, p1:p1 + out_w]
    return out + (0 if b is None else b.reshape(1, -1, 1, 1))


def _p2(v):
    return (v, v) if isinstance(v, int) else tuple(v)


CONVT = {
    "plain": dict(),
    "stride_padding": dict(stride=2, padding=1),
    "output_padding": dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2)),
    "groups_dilation": dict(groups=2, dilation=(2, 1), padding=(2, 1), bias=False),
    "everything": dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2,
                       dilation=(2, 1)),
    "output_padding_past_padding": dict(stride=3, padding=0, output_padding=2),
}


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("name", sorted(CONVT))
def test_conv_transpose2d_layer_against_numpy(name, mode):
    kw = dict(CONVT[name])
    k = kw.pop("kernel_size", 3)
    layer = mint.nn.ConvTranspose2d(4, 6, k, **kw)
    x = RNG.uniform(-1, 1, (2, 4, 5, 4)).astype(np.float32)
    w, b = layer.weight.asnumpy(), None if layer.bias is None else layer.bias.asnumpy()
    want = _conv_transpose2d_ref(x, w, b, _p2(kw.get("stride", 1)), _p2(kw.get("padding", 0)),
                                 _p2(kw.get("output_padding", 0)), kw.get("groups", 1), _p2(kw.get("dilation", 1)))
    ms.set_context(mode=mode)
    try:
        got = layer(Tensor(x)).asnumpy()
        unbatched = layer(Tensor(x[1])).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(unbatched, want[1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_conv_transpose2d_output_size_picks_the_output_padding(mode):
    layer = mint.nn.ConvTranspose2d(3, 2, 3, stride=(2, 3), padding=1)
    x = RNG.uniform(-1, 1, (1, 3, 4, 4)).astype(np.float32)
    w, b = layer.weight.asnumpy(), layer.bias.asnumpy()
    ms.set_context(mode=mode)
    try:
        for size, extra in (((7, 10), (0, 0)), ((8, 12), (1, 2)), ((1, 2, 8, 11), (1, 1))):
            got = layer(Tensor(x), size).asnumpy()
            want = _conv_transpose2d_ref(x, w, b, (2, 3), (1, 1), extra, 1, (1, 1))
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="requested an output size"):
        layer(Tensor(x), (9, 10))


def test_conv_transpose2d_parameters():
    layer = mint.nn.ConvTranspose2d(8, 2, 3)
    assert [(p.name, p.shape, p.dtype) for p in layer.get_parameters()] == [
        ("weight", (8, 2, 3, 3), ms.float32), ("bias", (2,), ms.float32)]
    # HeUniform(sqrt(5)) over the weight's fan_in (out_channels / groups * kh * kw = 18), as the
    # bias' Uniform(1 / sqrt(fan_in)): the bound is 1 / sqrt(18) (with in_channels' 72: 0.118)
    bound = 1 / np.sqrt(18)
    w = np.abs(layer.weight.asnumpy())
    assert w.max() <= bound + 1e-7 and w.max() > 0.85 * bound
    assert np.abs(layer.bias.asnumpy()).max() <= bound + 1e-7
    grouped = mint.nn.ConvTranspose2d(4, 6, (3, 2), groups=2, bias=False, dtype=ms.float16)
    assert [(p.name, p.shape, p.dtype) for p in grouped.get_parameters()] == [("weight", (4, 3, 3, 2), ms.float16)]
    assert np.abs(grouped.weight.asnumpy()).max() <= 1 / np.sqrt(3 * 3 * 2) + 1e-3


def test_conv_transpose2d_argument_checks():
    with pytest.raises(ValueError, match="zeros"):
        mint.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="divisible by groups"):
        mint.nn.ConvTranspose2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="output_padding"):
        mint.nn.ConvTranspose2d(2, 2, 3, stride=2, output_padding=2)


# ---- triangular_solve --------------------------------------------------------------------------------
def _tri_ref(b, A, upper, transpose, unit):
    A = A.astype(np.float64)
    T = np.triu(A) if upper else np.tril(A)
    if unit:
        T = T - np.einsum("...ii->...i", T)[..., None] * np.eye(A.shape[-1]) + np.eye(A.shape[-1])
    if transpose:
        T = np.swapaxes(T, -1, -2)
    batch = np.broadcast_shapes(b.shape[:-2], A.shape[:-2])
    return np.linalg.solve(np.broadcast_to(T, batch + T.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:]))


A3 = RNG.uniform(-1, 1, (2, 4, 4)).astype(np.float32) + 3 * np.eye(4, dtype=np.float32)
B3 = RNG.uniform(-1, 1, (2, 4, 3)).astype(np.float32)
TRI = {
    "upper": (B3, A3, True, False, False),
    "lower": (B3, A3, False, False, False),
    "upper_transpose": (B3, A3, True, True, False),
    "lower_transpose_unit": (B3, A3, False, True, True),
    "upper_unit": (B3, A3, True, False, True),
    "batch_broadcast_A": (B3, A3[0], True, False, False),
    "batch_broadcast_b": (B3[0], A3, False, True, False),
    "matrix": (B3[1], A3[1], False, False, False),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "compiled"])
@pytest.mark.parametrize("name", sorted(TRI))
def test_triangular_solve_against_numpy(name, compiled):
    b, A, upper, transpose, unit = TRI[name]

    def fn(b, A):
        return mint.triangular_solve(b, A, upper, transpose, unit)

    X, copy = (ms.jit(fn) if compiled else fn)(Tensor(b), Tensor(A))
    want = _tri_ref(b, A, upper, transpose, unit)
    assert X.shape == want.shape and X.dtype == ms.float32
    np.testing.assert_allclose(X.asnumpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(copy.asnumpy(), np.broadcast_to(A, want.shape[:-2] + A.shape[-2:]))


def test_triangular_solve_defaults_float64_and_checks():
    b, A = B3.astype(np.float64), A3.astype(np.float64)
    X, _ = mint.triangular_solve(Tensor(b), Tensor(A))
    assert X.dtype == ms.float64
    np.testing.assert_allclose(X.asnumpy(), _tri_ref(b, A, True, False, False), rtol=1e-12)
    with pytest.raises(ValueError, match="rank"):
        mint.triangular_solve(Tensor(np.ones(3, np.float32)), Tensor(A3))
    with pytest.raises(ValueError, match="square"):
        mint.triangular_solve(Tensor(B3), Tensor(A3[:, :, :3]))


# ---- conv_tbc ----------------------------------------------------------------------------------------
def _conv_tbc_ref(x, w, b, pad):
    x = np.pad(x.astype(np.float64), ((pad, pad), (0, 0), (0, 0)))
    k = w.shape[0]
    t_out = x.shape[0] - k + 1
    out = np.zeros((t_out, x.shape[1], w.shape[2])) + b
    for t in range(t_out):
        for j in range(k):
            out[t] += x[t + j] @ w[j]
    return out


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "compiled"])
@pytest.mark.parametrize("pad", [0, 1, 3])
def test_conv_tbc_against_numpy(pad, compiled):
    x = RNG.standard_normal((7, 2, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 5)).astype(np.float32)
    b = RNG.standard_normal(5).astype(np.float32)

    def fn(x, w, b):
        return mint.conv_tbc(x, w, b, pad)

    got = (ms.jit(fn) if compiled else fn)(Tensor(x), Tensor(w), Tensor(b)).asnumpy()
    want = _conv_tbc_ref(x, w, b, pad)
    assert got.shape == (7 + 2 * pad - 3 + 1, 2, 5)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_conv_tbc_checks():
    x, w, b = Tensor(np.ones((4, 2, 3), np.float32)), Tensor(np.ones((2, 3, 5), np.float32)), \
        Tensor(np.ones(5, np.float32))
    with pytest.raises(ValueError, match="input channels"):
        mint.conv_tbc(x, Tensor(np.ones((2, 4, 5), np.float32)), b)
    with pytest.raises(ValueError, match="bias"):
        mint.conv_tbc(x, w, Tensor(np.ones(4, np.float32)))
    with pytest.raises(ValueError, match="3-D"):
        mint.conv_tbc(Tensor(np.ones((4, 3), np.float32)), w, b)


# ---- the batch-norm statistics functions -------------------------------------------------------------
XB = RNG.standard_normal((4, 3, 5, 2)).astype(np.float32) * 2 + 0.5


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "compiled"])
def test_batch_norm_stats_and_elemt_against_numpy(compiled):
    x64 = XB.astype(np.float64)
    mean, var = x64.mean((0, 2, 3)), x64.var((0, 2, 3))
    invstd = 1 / np.sqrt(var + 1e-3)
    w, b = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)

    def fn(x, w, b):
        m, s = mint.batch_norm_stats(x, 1e-3)
        return m, s, mint.batch_norm_elemt(x, w, b, m, s, 1e-3), mint.batch_norm_elemt(x, None, None, m, s)

    m, s, y, plain = (ms.jit(fn) if compiled else fn)(Tensor(XB), Tensor(w), Tensor(b))
    np.testing.assert_allclose(m.asnumpy(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s.asnumpy(), invstd, rtol=1e-5)
    norm = (x64 - mean[None, :, None, None]) * invstd[None, :, None, None]
    np.testing.assert_allclose(plain.asnumpy(), norm, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y.asnumpy(), norm * w[None, :, None, None] + b[None, :, None, None],
                               rtol=1e-4, atol=1e-5)


def test_batch_norm_stats_of_float16_are_float32():
    m, s = mint.batch_norm_stats(Tensor(XB.astype(np.float16)), 1e-5)
    assert m.dtype == ms.float32 and s.dtype == ms.float32
    np.testing.assert_allclose(m.asnumpy(), XB.astype(np.float16).astype(np.float64).mean((0, 2, 3)), rtol=1e-4)


def _gather_ref(means, invstds, counts, eps):
    """Welford's merge of the per-process statistics, one process at a time (PyTorch's kernel)."""
    n, avg, m2 = 0.0, np.zeros(means.shape[1]), np.zeros(means.shape[1])
    for mean, invstd, c in zip(means.astype(np.float64), invstds.astype(np.float64), counts):
        var = 1 / invstd ** 2 - eps
        total = n + c
        delta = mean - avg
        m2 = m2 + var * c + delta ** 2 * n * c / total
        avg = avg + delta * c / total
        n = total
    return avg, 1 / np.sqrt(m2 / n + eps), m2 / (n - 1)


def _local_stats(parts, eps):
    means = np.stack([p.astype(np.float64).mean((0, 2, 3)) for p in parts])
    invstds = np.stack([1 / np.sqrt(p.astype(np.float64).var((0, 2, 3)) + eps) for p in parts])
    counts = np.array([p.size // p.shape[1] for p in parts], np.float32)
    return means.astype(np.float32), invstds.astype(np.float32), counts


def test_batch_norm_gather_stats_with_counts_pynative_updates_the_running_stats():
    parts = [XB[:1], XB[1:4]]                       # unequal counts: 10 and 30 per channel
    means, invstds, counts = _local_stats(parts, 1e-5)
    rm = Tensor(np.full(3, 0.5, np.float32))
    rv = Parameter(Tensor(np.full(3, 2.0, np.float32)), "rv")
    gm, gi = mint.batch_norm_gather_stats_with_counts(Tensor(XB), Tensor(means), Tensor(invstds), rm, rv, 0.2, 1e-5,
                                                      Tensor(counts))
    avg, inv, unbiased = _gather_ref(means, invstds, counts, 1e-5)
    np.testing.assert_allclose(gm.asnumpy(), avg, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gi.asnumpy(), inv, rtol=1e-5)
    # the global statistics are those of the whole batch
    np.testing.assert_allclose(avg, XB.astype(np.float64).mean((0, 2, 3)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(unbiased, XB.astype(np.float64).var((0, 2, 3), ddof=1), rtol=1e-4)
    np.testing.assert_allclose(rm.asnumpy(), 0.8 * 0.5 + 0.2 * avg, rtol=1e-5)
    np.testing.assert_allclose(rv.asnumpy(), 0.8 * 2.0 + 0.2 * unbiased, rtol=1e-5)


def test_batch_norm_gather_stats_without_counts_counts_the_input():
    parts = [XB[:2], XB[2:]]
    means, invstds, _ = _local_stats(parts, 1e-5)
    gm, gi = mint.batch_norm_gather_stats_with_counts(Tensor(XB[:2]), Tensor(means), Tensor(invstds))
    avg, inv, _ = _gather_ref(means, invstds, [20.0, 20.0], 1e-5)
    np.testing.assert_allclose(gm.asnumpy(), avg, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gi.asnumpy(), inv, rtol=1e-5)


class _Gather(nn.Cell):
    def __init__(self):
        super().__init__()
        self.rm = Parameter(Tensor(np.zeros(3, np.float32)), "rm", requires_grad=False)
        self.rv = Parameter(Tensor(np.ones(3, np.float32)), "rv", requires_grad=False)

    def construct(self, x, means, invstds, counts):
        return mint.batch_norm_gather_stats_with_counts(x, means, invstds, self.rm, self.rv, 0.1, 1e-5, counts)


def test_batch_norm_gather_stats_graph_updates_parameters():
    parts = [XB[:3], XB[3:]]
    means, invstds, counts = _local_stats(parts, 1e-5)
    net = _Gather()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        gm, gi = net(Tensor(XB), Tensor(means), Tensor(invstds), Tensor(counts))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    avg, inv, unbiased = _gather_ref(means, invstds, counts, 1e-5)
    np.testing.assert_allclose(gm.asnumpy(), avg, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gi.asnumpy(), inv, rtol=1e-5)
    np.testing.assert_allclose(net.rm.asnumpy(), 0.1 * avg, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(net.rv.asnumpy(), 0.9 + 0.1 * unbiased, rtol=1e-5)

    # a plain tensor of graph code is a value: it cannot take the update
    @ms.jit
    def f(x, means, invstds, rm):
        return mint.batch_norm_gather_stats_with_counts(x, means, invstds, rm, None, 0.1, 1e-5, None)

    with pytest.raises(ValueError, match="Parameter"):
        f(Tensor(XB), Tensor(means), Tensor(invstds), Tensor(np.zeros(3, np.float32)))


# ---- unique_consecutive ------------------------------------------------------------------------------
def _unique_consecutive_ref(a, dim):
    if dim is None:
        flat = a.reshape(-1)
        change = np.concatenate([[True], flat[1:] != flat[:-1]])
        inverse = (np.cumsum(change) - 1).reshape(a.shape)
        starts = np.flatnonzero(change)
        return flat[change], inverse, np.diff(np.append(starts, flat.size))
    moved = np.moveaxis(a, dim, 0)
    change = np.concatenate([[True], np.any((moved[1:] != moved[:-1]).reshape(len(moved) - 1, -1), 1)])
    starts = np.flatnonzero(change)
    return np.moveaxis(moved[change], 0, dim), np.cumsum(change) - 1, np.diff(np.append(starts, len(moved)))


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_unique_consecutive_against_numpy(dim):
    a = np.array([[1, 1, 2], [1, 1, 2], [3, 3, 3], [1, 1, 2], [1, 1, 2]], np.int64)
    out, inverse, counts = mint.unique_consecutive(Tensor(a), True, True, dim)
    want = _unique_consecutive_ref(a, dim)
    for got, w in zip((out, inverse, counts), want):
        np.testing.assert_array_equal(got.asnumpy(), w)
    assert inverse.dtype == ms.int64 and counts.dtype == ms.int64
    only = mint.unique_consecutive(Tensor(a), dim=dim)
    np.testing.assert_array_equal(only.asnumpy(), want[0])


def test_unique_consecutive_is_pynative_only():
    with pytest.raises(ValueError, match="PyNative"):
        ms.jit(lambda x: mint.unique_consecutive(x))(Tensor(np.array([1, 1, 2], np.int32)))


# ---- SyncBatchNorm -----------------------------------------------------------------------------------
class _Step(nn.Cell):
    def __init__(self, bn):
        super().__init__()
        self.bn = bn

    def construct(self, x):
        return self.bn(x)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 2, 3, 2)], ids=["2d", "3d", "5d"])
def test_sync_batch_norm_in_one_process_is_batch_norm(shape, mode):
    x = RNG.standard_normal(shape).astype(np.float32) * 1.5 + 0.25
    axes = (0,) + tuple(range(2, len(shape)))
    view = (1, 3) + (1,) * (len(shape) - 2)
    bn = mint.nn.SyncBatchNorm(3, momentum=0.3)
    assert [p.name for p in bn.get_parameters()] == ["weight", "bias", "running_mean", "running_var",
                                                     "num_batches_tracked"]
    bn.weight.set_data(Tensor(np.array([1.5, -0.5, 2.0], np.float32)))
    bn.bias.set_data(Tensor(np.array([0.1, 0.2, -0.3], np.float32)))
    net = _Step(bn)
    net.set_train(True)
    ms.set_context(mode=mode)
    try:
        ys = [net(Tensor(x)).asnumpy(), net(Tensor(x * 2)).asnumpy()]
        net.set_train(False)
        y_eval = net(Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    g, b = np.array([1.5, -0.5, 2.0]).reshape(view), np.array([0.1, 0.2, -0.3]).reshape(view)
    rm, rv = np.zeros(3), np.ones(3)
    for y, xs in zip(ys, (x.astype(np.float64), x.astype(np.float64) * 2)):
        mean, var = xs.mean(axes), xs.var(axes)
        want = (xs - mean.reshape(view)) / np.sqrt(var.reshape(view) + 1e-5) * g + b
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
        rm, rv = 0.7 * rm + 0.3 * mean, 0.7 * rv + 0.3 * xs.var(axes, ddof=1)
    np.testing.assert_allclose(bn.running_mean.asnumpy(), rm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.asnumpy(), rv, rtol=1e-5)
    assert int(bn.num_batches_tracked.asnumpy()) == 2
    want = (x - rm.reshape(view)) / np.sqrt(rv.reshape(view) + 1e-5) * g + b
    np.testing.assert_allclose(y_eval, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_sync_batch_norm_momentum_none_is_the_cumulative_average(mode):
    bn = mint.nn.SyncBatchNorm(2, momentum=None, affine=False)
    net = _Step(bn)
    net.set_train(True)
    batches = [RNG.standard_normal((5, 2, 3)).astype(np.float32) + k for k in range(3)]
    ms.set_context(mode=mode)
    try:
        for xb in batches:
            net(Tensor(xb))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    means = [xb.astype(np.float64).mean((0, 2)) for xb in batches]
    variances = [xb.astype(np.float64).var((0, 2), ddof=1) for xb in batches]
    np.testing.assert_allclose(bn.running_mean.asnumpy(), np.mean(means, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.asnumpy(), np.mean(variances, 0), rtol=1e-5)


def test_sync_batch_norm_checks():
    with pytest.raises(ValueError, match="running mean or running var"):
        mint.nn.SyncBatchNorm(3, track_running_stats=False)(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="at least 2D"):
        mint.nn.SyncBatchNorm(3)(Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="non-zero"):
        mint.nn.SyncBatchNorm(3)(Tensor(np.ones((2, 0), np.float32)))


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "compiled"])
def test_clone_and_deepcopy_copy_the_data_in_both_modes(compiled):
    """mint.clone / ops.deepcopy in graph code raised "cannot pickle 'module' object" (copy.deepcopy
    of a traced value); now a copy there too, and PyNative's copy shares no buffer."""
    from pycompile import ops
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    fn = (lambda t: (mint.clone(t), ops.deepcopy(t) * 2))      # noqa: E731
    run = ms.jit(fn) if compiled else fn
    a, b = run(x)
    np.testing.assert_array_equal(a.asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(b.asnumpy(), 2 * x.asnumpy())
    if not compiled:
        a[0, 0] = 100.0
        assert x.asnumpy()[0, 0] == 0.0
