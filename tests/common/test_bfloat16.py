"""bfloat16 (ms.bfloat16): a storage type whose ops compute in float32 and round once
(src/pycompile/ops/_bf16.py), in PyNative and GRAPH_MODE alike.

References are NumPy: the float32 computation on the bfloat16 inputs' values, rounded to bfloat16
by ml_dtypes (round to nearest even). What MindSpore 2.10's CPU wheel itself runs on bfloat16
(Cast, Add, Mul, Div, Neg, the copies, the text forms, the optimizers' refusals) is in the
conformance table (tests/conformance/cases_bf16.py)."""
import hashlib
import json
import os
import re

import ml_dtypes
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops

BF = np.dtype(ml_dtypes.bfloat16)
ULP = 2.0 ** -7          # one bfloat16 ulp, relative (8 significant bits)
HERE = os.path.dirname(os.path.abspath(__file__))
CKPT = os.path.join(HERE, "..", "oracle", "data", "ckpt")


def bf(a):
    """float32 values rounded to bfloat16, as float32 (the reference's rounding)."""
    return np.asarray(a, np.float32).astype(BF).astype(np.float32)


def f32(t):
    return t.asnumpy().astype(np.float32)


def both_modes(fn, *args):
    """fn's result eagerly and compiled (@jit), each as a tuple."""
    eager = fn(*args)
    compiled = ms.jit(fn)(*args)
    wrap = (lambda r: r if isinstance(r, tuple) else (r,))
    return wrap(eager), wrap(compiled)


# ---- the conversions the C backend does itself: pc_f2bf / pc_bf2f against ml_dtypes -------------
def test_float32_to_bfloat16_bit_for_bit():
    rng = np.random.default_rng(0)
    bits = np.concatenate([
        rng.integers(0, 2 ** 32, 1 << 18, dtype=np.uint64).astype(np.uint32),
        # ties and their neighbours, around every exponent; NaNs with payloads; infinities; subnormals
        ((np.arange(256, dtype=np.uint32) << 23)[:, None] + np.array([0x8000, 0x18000, 0x7fff, 0x8001, 0x7f8000,
                                                                       0x7fffff], np.uint32)).ravel(),
        np.array([0x7f800001, 0xffc00001, 0x7fc00000, 0x7f800000, 0xff800000, 0x7f7fffff, 0x7f7f8000, 1, 0x80000001],
                 np.uint32)]).ravel()
    x = bits.view(np.float32)
    with np.errstate(invalid="ignore"):       # NumPy warns converting NaN
        want = x.astype(BF).view(np.uint16)
    got = ms.jit(lambda t: t.astype(ms.bfloat16))(Tensor(x)).asnumpy().view(np.uint16)
    np.testing.assert_array_equal(got, want)


def test_every_bfloat16_widens_exactly():
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(BF)
    got = ms.jit(lambda t: t.astype(ms.float32))(Tensor(every)).asnumpy().view(np.uint32)
    np.testing.assert_array_equal(got, every.view(np.uint16).astype(np.uint32) << 16)


def test_conversions_to_integers_agree_between_modes():
    x = Tensor(np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.5, -2.5, 255.0, 256.0, -1.0], np.float32), ms.bfloat16)
    for dt in (ms.int32, ms.int64, ms.uint8, ms.int8, ms.bool_, ms.float16, ms.float64):
        eager, compiled = both_modes(lambda t: ops.cast(t, dt), x)
        np.testing.assert_array_equal(eager[0].asnumpy(), compiled[0].asnumpy(), err_msg=str(dt))
        assert eager[0].dtype == compiled[0].dtype == dt


# ---- ops MindSpore's CPU wheel refuses on bfloat16: float32 and one rounding -------------------
X = np.array([[0.7, -1.3, 2.9, 0.05], [-0.4, 1.1, -2.2, 3.7], [0.3, 0.9, -0.6, 1.5]], np.float32)
W = np.array([[0.5, -0.25, 1.0], [0.125, 0.75, -1.5], [-0.5, 2.0, 0.3], [1.25, -0.7, 0.6]], np.float32)


def _softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


UNARY = {   # name: (pycompile function, NumPy reference on float32, exact)
    "exp": (ops.exp, np.exp, False),
    "tanh": (ops.tanh, np.tanh, False),
    "sigmoid": (ops.sigmoid, lambda a: 1 / (1 + np.exp(-a)), False),
    "sqrt_abs": (lambda t: ops.sqrt(ops.abs(t)), lambda a: np.sqrt(np.abs(a)), False),
    "relu": (ops.relu, lambda a: np.maximum(a, 0), True),
    "square_sub": (lambda t: t * t - t, lambda a: bf(a * a) - a, False),
    "sum": (lambda t: t.sum(), lambda a: a.sum(), False),
    "mean_axis": (lambda t: t.mean(axis=1), lambda a: a.mean(axis=1), False),
    "max_axis": (lambda t: t.max(axis=0), lambda a: a.max(axis=0), True),
    "softmax": (lambda t: ops.softmax(t, -1), _softmax, False),
    "cumsum": (lambda t: ops.cumsum(t, 1), lambda a: np.cumsum(a, 1), False),
    "sort": (lambda t: ops.sort(t, -1)[0], lambda a: np.sort(a, -1), True),
    "transpose": (lambda t: t.T, lambda a: a.T, True),
    "gather": (lambda t: ops.gather(t, Tensor(np.array([2, 0], np.int32)), 0), lambda a: a[[2, 0]], True),
    "where": (lambda t: ops.where(t > 0, t, -t), np.abs, True),
    "floor": (ops.floor, np.floor, True),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_compute_in_float32_and_round(name):
    fn, ref, exact = UNARY[name]
    x = Tensor(X, ms.bfloat16)
    want = bf(ref(bf(X)))
    eager, compiled = both_modes(fn, x)
    for got, mode in ((eager[0], "pynative"), (compiled[0], "graph")):
        assert got.dtype == ms.bfloat16, mode
        if exact:
            np.testing.assert_array_equal(f32(got), want, err_msg=mode)
        else:       # the float32 result may differ from NumPy's in its last bit: one bfloat16 ulp
            np.testing.assert_allclose(f32(got), want, rtol=ULP, atol=1e-6, err_msg=mode)


def test_products_and_layers():
    x, w = Tensor(X, ms.bfloat16), Tensor(W, ms.bfloat16)
    want = bf(bf(X) @ bf(W))
    eager, compiled = both_modes(lambda a, b: (ops.matmul(a, b), ops.matmul(a, b) + 1.0), x, w)
    for got in eager + compiled:
        assert got.dtype == ms.bfloat16
    np.testing.assert_allclose(f32(eager[0]), want, rtol=ULP, atol=1e-6)
    np.testing.assert_array_equal(f32(eager[0]), f32(compiled[0]))
    np.testing.assert_array_equal(f32(eager[1]), bf(f32(eager[0]) + 1))
    img = Tensor(np.linspace(-1, 1, 2 * 3 * 6 * 6, dtype=np.float32).reshape(2, 3, 6, 6), ms.bfloat16)
    weight = Tensor(np.linspace(-0.5, 0.5, 4 * 3 * 3 * 3, dtype=np.float32).reshape(4, 3, 3, 3), ms.bfloat16)
    eager, compiled = both_modes(lambda a, k: ops.conv2d(a, k), img, weight)
    assert eager[0].dtype == compiled[0].dtype == ms.bfloat16
    f32_conv = ops.conv2d(Tensor(f32(img)), Tensor(f32(weight))).asnumpy()
    np.testing.assert_array_equal(f32(eager[0]), bf(f32_conv))
    np.testing.assert_allclose(f32(compiled[0]), bf(f32_conv), rtol=ULP, atol=1e-6)


def test_result_dtypes_follow_promotion():
    b = Tensor(X, ms.bfloat16)
    assert (b + Tensor(X, ms.float16)).dtype == ms.float32
    assert (b * Tensor(X)).dtype == ms.float32
    assert (b + Tensor(X, ms.float64)).dtype == ms.float64
    assert (b + Tensor(np.ones((3, 4), np.int32))).dtype == ms.bfloat16
    assert (b + 1.5).dtype == (2 * b).dtype == ms.bfloat16
    assert (b > 0).dtype == ms.bool_
    assert ops.argmax(b).dtype == ms.int64
    np.testing.assert_array_equal((b + Tensor(X)).asnumpy(), bf(X) + X)    # float32 arithmetic, no rounding


def test_fused_chain_rounds_each_op():
    """A compiled chain fused into one loop rounds after every op, as PyNative's ops do one by one:
    (x + 1/256) - x is 0 in bfloat16 for x = 1 (the sum rounds back to 1), 2^-8 in float32."""
    x = Tensor(np.array([1.0, 3.0, 0.5], np.float32), ms.bfloat16)
    eager, compiled = both_modes(lambda t: (t + 0.00390625) - t, x)
    np.testing.assert_array_equal(f32(eager[0]), [0.0, 0.0, 0.00390625])
    np.testing.assert_array_equal(f32(compiled[0]), [0.0, 0.0, 0.00390625])


# ---- gradients -----------------------------------------------------------------------------------
def test_gradients_are_bfloat16_and_match_finite_differences():
    def f(a, b):
        return (a * b + a * a * 0.5 - ops.sin(a)).sum()

    x, w = bf(X), bf(X[::-1] * 0.7)
    for grad in (ms.grad(f, grad_position=(0, 1)), ms.jit(ms.grad(f, grad_position=(0, 1)))):
        ga, gb = grad(Tensor(x, ms.bfloat16), Tensor(w, ms.bfloat16))
        assert ga.dtype == gb.dtype == ms.bfloat16
        # central differences of the same function in float64 at the bfloat16 points
        xd, wd, h = x.astype(np.float64), w.astype(np.float64), 1e-6

        def f64(a, b):
            return (a * b + a * a * 0.5 - np.sin(a)).sum()
        fd_a = np.zeros_like(xd)
        for i in np.ndindex(xd.shape):
            e = np.zeros_like(xd)
            e[i] = h
            fd_a[i] = (f64(xd + e, wd) - f64(xd - e, wd)) / (2 * h)
        np.testing.assert_allclose(f32(ga), fd_a, rtol=2 * ULP, atol=2 * ULP)
        np.testing.assert_array_equal(f32(gb), x)           # d/db = a, exactly


def test_amp_network_trains_in_bfloat16_both_modes():
    """to_float(bfloat16): the Dense layers compute in bfloat16 (inputs and weights cast), the
    float32 weights get float32 gradients and a float32 Momentum step, as amp's O2 does."""
    rng = np.random.default_rng(3)
    data, label = rng.standard_normal((16, 8)).astype(np.float32), rng.standard_normal((16, 2)).astype(np.float32)

    def train(mode, dtype):
        ms.set_context(mode=mode)
        ms.set_seed(5)
        net = nn.SequentialCell([nn.Dense(8, 16, weight_init="normal"), nn.ReLU(),
                                 nn.Dense(16, 2, weight_init="normal")])
        if dtype is not None:
            net.to_float(dtype)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.05, 0.9))
        losses = [float(step(Tensor(data), Tensor(label)).asnumpy().astype(np.float32)) for _ in range(6)]
        return losses, [p.dtype for p in net.trainable_params()], net(Tensor(data)).dtype

    eager, graph, full = train(ms.PYNATIVE_MODE, ms.bfloat16), train(ms.GRAPH_MODE, ms.bfloat16), \
        train(ms.PYNATIVE_MODE, None)
    assert eager[1] == graph[1] == [ms.float32] * 4
    assert eager[2] == graph[2] == ms.bfloat16
    assert eager[0][-1] < eager[0][0] and graph[0][-1] < graph[0][0]
    np.testing.assert_allclose(eager[0], graph[0], rtol=4 * ULP)
    np.testing.assert_allclose(eager[0], full[0], rtol=0.05)     # bfloat16's 3 digits against float32


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_optimizers_refuse_bfloat16_parameters(mode):
    ms.set_context(mode=mode)
    net = nn.Dense(4, 2, bias_init="zeros", dtype=ms.bfloat16)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Adam(net.trainable_params()))
    x = Tensor(np.ones((2, 4), np.float32), ms.bfloat16)
    with pytest.raises(TypeError, match=r"For primitive\[Adam\].*but got Tensor\[BFloat16\]"):
        step(x, x[:, :2])


def test_parameter_updates_in_place_both_modes():
    v = np.array([1.5, -2.25, 0.1, 3.0], np.float32)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(v, ms.bfloat16), name="p")
            self.r = Parameter(Tensor(np.zeros((3, 4), np.float32), ms.bfloat16), name="r")

        def construct(self, x, idx):
            ops.assign_add(self.p, x)
            ops.scatter_add(self.r, idx, ops.stack((x, x)))
            i, y = 0, x
            while i < 3:
                y = y * 1.1
                i += 1
            return self.p + 0, self.r + 0, y

    x = np.array([0.25, 0.5, -1.0, 7.0], np.float32)
    outs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        outs.append(Net()(Tensor(x, ms.bfloat16), Tensor(np.array([0, 2], np.int32))))
    y = bf(x)
    for _ in range(3):
        y = bf(y * bf(np.float32(1.1)))
    for p, r, z in outs:
        assert p.dtype == r.dtype == z.dtype == ms.bfloat16
        np.testing.assert_array_equal(f32(p), bf(bf(v) + bf(x)))
        np.testing.assert_array_equal(f32(r), np.stack([bf(x), np.zeros(4), bf(x)]))
        np.testing.assert_array_equal(f32(z), y)


def test_vmap_and_graph_print(capfd):
    f = ms.vmap(lambda a: ops.exp(a).sum() * a)
    a = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    got = f(Tensor(a, ms.bfloat16))
    want = bf(bf(bf(np.exp(bf(a))).sum(1, keepdims=True)) * bf(a))
    assert got.dtype == ms.bfloat16
    np.testing.assert_allclose(f32(got), want, rtol=ULP)

    @ms.jit
    def show(t):
        ops.print_(t)
        return t

    show(Tensor(np.array([1.5, -2.25, 1e-3], np.float32), ms.bfloat16))
    # MindSpore 2.10's CPU Print has no bfloat16 kernel; pycompile prints as for the other dtypes: the
    # repr's values (%g, right-aligned to the widest) without commas
    assert "Tensor(shape=[3], dtype=BFloat16, value=[        1.5       -2.25 0.000999451])" in capfd.readouterr().out


# ---- checkpoints: MindSpore's own bfloat16 file ----------------------------------------------------
def test_checkpoint_bytes_and_values_are_mindspore_s(tmp_path):
    with open(os.path.join(CKPT, "checkpoints.json")) as f:
        rec = json.load(f)["files"]["bfloat16.ckpt"]
    loaded = ms.load_checkpoint(os.path.join(CKPT, "bfloat16.ckpt"))["bf"]
    assert loaded.dtype == ms.bfloat16
    np.testing.assert_array_equal(f32(loaded), rec["saved"]["bf"]["value"])
    path = tmp_path / "bf.ckpt"
    ms.save_checkpoint([{"name": "bf", "data": Tensor([1.0, -2.5, 3.25]).astype(ms.bfloat16)}], str(path))
    assert hashlib.sha256(path.read_bytes()).hexdigest() == rec["sha256"]


# ---- MindSpore's test_cast_op.py: Cast to bfloat16 from each dtype (tests/oracle/data/fix33_names.json) ---
FIX33 = os.path.join(HERE, "..", "oracle", "data", "fix33_names.json")


@pytest.mark.parametrize("src", ["bool", "float16", "float32", "float64", "int8", "int32", "uint8", "complex64"])
def test_cast_to_bfloat16_from_each_dtype_as_the_wheel(src):
    with open(FIX33) as f:
        rec = json.load(f)["bfloat16_cast"]
    xs = rec["x"]
    with np.errstate(all="ignore"):
        x = np.array(xs) > 0 if src == "bool" else np.array(xs[:6]).astype(src) if "int" in src \
            else np.array(xs).astype(src)
    eager, compiled = both_modes(lambda t: ops.Cast()(t, ms.bfloat16), Tensor(x))
    want = rec[f"{src}/PYNATIVE_MODE"]["as_float32"]
    for got in (eager[0], compiled[0]):
        assert str(got.dtype) == rec[f"{src}/PYNATIVE_MODE"]["dtype"] == "BFloat16"
        np.testing.assert_array_equal(f32(got), np.array(want, np.float32))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_amp_auto_computes_the_product_in_bfloat16(mode):
    """amp_level 'auto': MatMul is on the low-precision list (its operands cast to bfloat16, the
    product rounded to bfloat16), BiasAdd promotes with the float32 bias - as for float16."""
    ms.set_context(mode=mode)
    w = np.array([[0.3, -1.1, 0.7], [2.1, 0.45, -0.9]], np.float32)
    b = np.array([0.01, -0.2], np.float32)
    net = ms.amp.auto_mixed_precision(nn.Dense(3, 2, weight_init=Tensor(w), bias_init=Tensor(b)), "auto",
                                      dtype=ms.bfloat16)
    x = np.array([[1.3, -0.6, 2.2], [0.1, 0.2, -0.3]], np.float32)
    out = net(Tensor(x))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), bf(bf(x) @ bf(w).T) + b, rtol=1e-6, atol=1e-7)


class _SmallCNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid", weight_init="normal")
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2, 2)
        self.flat = nn.Flatten()
        self.dense = nn.Dense(4 * 7 * 7, 3, weight_init="normal")

    def construct(self, x):
        return self.dense(self.flat(self.pool(ops.relu(self.bn(self.conv(x))))))


class _SmallEncoder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        self.dense = nn.Dense(8, 3)

    def construct(self, x):
        return self.dense(self.layer(x).mean(1))


@pytest.mark.parametrize("cls,shape", [(_SmallCNN, (4, 1, 16, 16)), (_SmallEncoder, (4, 5, 8))])
def test_cnn_and_encoder_train_in_bfloat16_alike_in_both_modes(cls, shape):
    """Convolution, BatchNorm, pooling, attention, LayerNorm and softmax cross-entropy under
    to_float(bfloat16): PyNative and compiled steps give the same losses, within bfloat16's
    precision of the float32 network's."""
    rng = np.random.default_rng(0)
    data, label = rng.standard_normal(shape).astype(np.float32), np.array([0, 1, 2, 1], np.int32)

    def train(mode, dtype):
        ms.set_context(mode=mode)
        ms.set_seed(3)
        net = cls()
        if dtype is not None:
            net.to_float(dtype)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.05, 0.9))
        return [float(step(Tensor(data), Tensor(label)).asnumpy().astype(np.float32)) for _ in range(4)]

    eager, graph, full = train(ms.PYNATIVE_MODE, ms.bfloat16), train(ms.GRAPH_MODE, ms.bfloat16), \
        train(ms.PYNATIVE_MODE, None)
    np.testing.assert_allclose(eager, graph, rtol=2 * ULP)
    np.testing.assert_allclose(eager, full, rtol=0.02)
    assert eager[-1] < eager[0]


def test_the_bf16_cell_flag_runs_the_cell_in_bfloat16():
    """add_flags(bf16=True) sets MindSpore's mixed_precision_type BF16, and the Cell computes in
    bfloat16 as to_float(ms.bfloat16) makes it (it was recorded only)."""
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    net.add_flags(bf16=True)
    out = net(Tensor(np.array([[0.1, 0.2, 0.3]], np.float32)))
    assert str(net.mixed_precision_type) == "MixedPrecisionType.BF16" and out.dtype == ms.bfloat16
    np.testing.assert_array_equal(f32(out), bf(bf(0.1) + bf(0.2) + bf(0.3)) * np.ones((1, 2)))   # one rounding


@pytest.mark.parametrize("name,kernel", [("AdamWeightDecay", "AdamWeightDecay"), ("Rprop", "Sign"), ("ASGD", "Assign")])
def test_optimizers_without_a_bfloat16_kernel_refuse_in_the_wheel_s_words(name, kernel):
    """MindSpore 2.10 raises "Select CPU operator[<kernel>] fail! Unsupported data type!" for these
    (recorded with tests/conformance/record.py while they were cases; the table skips missing-kernel
    errors, so they are checked here)."""
    p = Parameter(Tensor(np.array([0.5, -0.25], np.float32), ms.bfloat16), name="w")
    opt = getattr(nn, name)([p], learning_rate=0.1)
    with pytest.raises(TypeError, match=re.escape(f"Select CPU operator[{kernel}] fail! Unsupported data type!")):
        opt((Tensor(np.array([0.3, -0.2], np.float32), ms.bfloat16),))
