"""`mindspore.mint` functions MindSpore 2.10's CPU wheel has no kernel for ("The kernel SortExt
unregistered": their conformance cases in tests/conformance/cases_mint.py are skipped with that
reason): each against NumPy, in PyNative and compiled, following MindSpore's documentation of the
PyTorch-style signature (dim / keepdim / correction, argument order)."""
import math

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, mint

F = mint.nn.functional
RNG = np.random.default_rng(5)
X = RNG.uniform(-2, 2, (3, 5)).astype(np.float32)
Y = RNG.uniform(-2, 2, (3, 5)).astype(np.float32)
LABELS = np.array([0, 4, 2], np.int32)
EYE5 = Tensor(np.eye(5, dtype=np.float32))


def _softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _sig(v):
    return 1 / (1 + np.exp(-v.astype(np.float64)))


def _erf(v):
    return np.vectorize(math.erf)(v)


# name -> (the call on Tensors, the NumPy reference on arrays)
CASES = {
    "argmax": (lambda x: mint.argmax(x, 1, keepdim=True), lambda x: x.argmax(1)[:, None]),
    "argmax_all": (lambda x: mint.argmax(x), lambda x: np.array(x.argmax())),
    "argmin": (lambda x: mint.argmin(x, 0), lambda x: x.argmin(0)),
    "argsort": (lambda x: mint.argsort(x, 1, descending=True), lambda x: np.argsort(-x, 1, kind="stable")),
    "sort": (lambda x: mint.sort(x, dim=0)[0], lambda x: np.sort(x, 0)),
    "topk": (lambda x: mint.topk(x, 2, dim=1, largest=False)[0], lambda x: np.sort(x, 1)[:, :2]),
    "cumsum": (lambda x: mint.cumsum(x, 1), lambda x: np.cumsum(x, 1)),
    "logsumexp": (lambda x: mint.logsumexp(x, 1, keepdim=True),
                  lambda x: np.log(np.exp(x.astype(np.float64)).sum(1, keepdims=True))),
    "std": (lambda x: mint.std(x, 1), lambda x: x.astype(np.float64).std(1, ddof=1)),
    "std_correction0": (lambda x: mint.std(x, 0, correction=0, keepdim=True),
                        lambda x: x.astype(np.float64).std(0, ddof=0, keepdims=True)),
    "var": (lambda x: mint.var(x), lambda x: np.array(x.astype(np.float64).var(ddof=1))),
    "tril": (lambda x: mint.tril(x, 1), lambda x: np.tril(x, 1)),
    "mm": (lambda x: mint.mm(x, mint.transpose(x, 0, 1)), lambda x: x @ x.T),
    "index_select": (lambda x: mint.index_select(x, 1, Tensor(np.array([4, 0, 4], np.int32))),
                     lambda x: x[:, [4, 0, 4]]),
    "zeros_like": (lambda x: mint.zeros_like(x, dtype=ms.float16), lambda x: np.zeros_like(x, np.float16)),
    "ones_like": (lambda x: mint.ones_like(x), lambda x: np.ones_like(x)),
    "full_like": (lambda x: mint.full_like(x, 2.5), lambda x: np.full_like(x, 2.5)),
    "full": (lambda x: mint.full((2, 3), 1.5) + x[0, 0] * 0, lambda x: np.full((2, 3), 1.5, np.float32)),
    "gelu": (lambda x: F.gelu(x), lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"),
                  lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    "gelu_layer": (lambda x: mint.nn.GELU()(x), lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    "leaky_relu": (lambda x: F.leaky_relu(x), lambda x: np.where(x > 0, x, 0.01 * x)),
    "elu": (lambda x: F.elu(x), lambda x: np.where(x > 0, x, np.expm1(x))),
    "softplus": (lambda x: F.softplus(x), lambda x: np.log1p(np.exp(x))),
    "log_softmax": (lambda x: F.log_softmax(x, dim=0), lambda x: np.log(_softmax(x.astype(np.float64), 0))),
    "log_softmax_default": (lambda x: F.log_softmax(x), lambda x: np.log(_softmax(x.astype(np.float64), -1))),
    "layer_norm": (lambda x: F.layer_norm(x, (5,)),
                   lambda x: (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)),
    "layer_norm_layer": (lambda x: mint.nn.LayerNorm(5, eps=1e-3)(x),
                         lambda x: (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-3)),
    "mse_loss": (lambda x: F.mse_loss(x, Tensor(Y)), lambda x: np.array(((x - Y) ** 2).mean())),
    "l1_loss": (lambda x: F.l1_loss(x, Tensor(Y), reduction="sum"), lambda x: np.array(np.abs(x - Y).sum())),
    "cross_entropy": (lambda x: F.cross_entropy(x, Tensor(LABELS)),
                      lambda x: np.array(-np.log(_softmax(x.astype(np.float64), 1))[np.arange(3), LABELS].mean())),
    "linspace": (lambda x: mint.linspace(0.0, 1.0, 5) + x[0, 0] * 0, lambda x: np.linspace(0, 1, 5, dtype=np.float32)),
    "logaddexp": (lambda x: mint.logaddexp(x, Tensor(Y)), lambda x: np.logaddexp(x, Y)),
    "logaddexp2": (lambda x: mint.logaddexp2(x, Tensor(Y)), lambda x: np.logaddexp2(x, Y)),
    "median_dim": (lambda x: mint.median(x, 1)[0], lambda x: np.sort(x, 1)[:, 2]),
    "median_all": (lambda x: mint.median(x), lambda x: np.array(np.sort(x.ravel())[7])),
    "norm_fro": (lambda x: mint.norm(x), lambda x: np.array(np.sqrt((x.astype(np.float64) ** 2).sum()))),
    "norm_p1": (lambda x: mint.norm(x, 1, 1), lambda x: np.abs(x).sum(1)),
    "norm_p2_keep": (lambda x: mint.norm(x, 2.0, 0, True), lambda x: np.sqrt((x.astype(np.float64) ** 2).sum(0, keepdims=True))),
    "outer": (lambda x: mint.outer(x[0], x[1]), lambda x: np.outer(x[0], x[1])),
    "dot": (lambda x: mint.dot(x[0], x[1]), lambda x: np.array(np.dot(x[0].astype(np.float64), x[1]))),
    "fmod": (lambda x: mint.fmod(x, Tensor(np.abs(Y) + 0.5)), lambda x: np.fmod(x, np.abs(Y) + 0.5)),
    "remainder": (lambda x: mint.remainder(x, Tensor(np.abs(Y) + 0.5)), lambda x: np.remainder(x, np.abs(Y) + 0.5)),
    "repeat_interleave": (lambda x: mint.repeat_interleave(x, 2, 1), lambda x: np.repeat(x, 2, 1)),
    "searchsorted": (lambda x: mint.searchsorted(Tensor(np.sort(Y[0])), x, right=True),
                     lambda x: np.searchsorted(np.sort(Y[0]), x, side="right")),
    "stack": (lambda x: mint.stack([x, x * 2], 1), lambda x: np.stack([x, x * 2], 1)),
    "std_mean": (lambda x: mint.std_mean(x, 1)[0], lambda x: x.astype(np.float64).std(1, ddof=1)),
    "var_mean": (lambda x: mint.var_mean(x, 0, correction=0)[1], lambda x: x.mean(0)),
    "take": (lambda x: mint.take(x, Tensor(np.array([0, 14, 7], np.int64))), lambda x: x.ravel()[[0, 14, 7]]),
    "roll": (lambda x: mint.roll(x, 2, 1), lambda x: np.roll(x, 2, 1)),
    "addmm": (lambda x: mint.addmm(x, x, EYE5, beta=0.5, alpha=2), lambda x: 0.5 * x + 2 * x),
    "baddbmm": (lambda x: mint.baddbmm(x[None], x[None], EYE5[None], beta=0.5, alpha=2),
                lambda x: (0.5 * x + 2 * x)[None]),
    "bincount": (lambda x: mint.bincount(Tensor(np.array([0, 3, 3, 1], np.int32)), minlength=6) + 0 * x.shape[0],
                 lambda x: np.bincount([0, 3, 3, 1], minlength=6)),
    "bitwise": (lambda x: mint.bitwise_or(Tensor(np.array([1, 6, 12], np.int32)), Tensor(np.array([2, 3, 5], np.int32))),
                lambda x: np.array([3, 7, 13], np.int32)),
    "count_nonzero": (lambda x: mint.count_nonzero(x > 0, 1), lambda x: (x > 0).sum(1)),
    "mish": (lambda x: F.mish(x), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "logsigmoid": (lambda x: F.logsigmoid(x), lambda x: -np.log1p(np.exp(-x))),
    "max_pool2d": (lambda x: F.max_pool2d(mint.reshape(x, (1, 1, 3, 5)), 2, 1),
                   lambda x: np.max([x[:2, :4], x[1:, :4], x[:2, 1:], x[1:, 1:]], 0)[None, None]),
    "nll_loss": (lambda x: F.nll_loss(x, Tensor(LABELS)), lambda x: np.array(-x[np.arange(3), LABELS].mean())),
    "binary_cross_entropy": (lambda x: F.binary_cross_entropy(mint.sigmoid(x), mint.sigmoid(Tensor(Y))),
                             lambda x: np.array(-(_sig(Y) * np.log(_sig(x)) + (1 - _sig(Y)) * np.log(1 - _sig(x))).mean())),
    "relu6": (lambda x: F.relu6(x * 4), lambda x: np.clip(x * 4, 0, 6)),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    "tile": (lambda x: mint.tile(x, (2, 1)), lambda x: np.tile(x, (2, 1))),
    "diff2": (lambda x: mint.diff(x, 2, 1), lambda x: np.diff(x, 2, 1)),
    "diff_prepend": (lambda x: mint.diff(x, 1, 0, prepend=x[:1]), lambda x: np.diff(x, 1, 0, prepend=x[:1])),
    # mint.linalg / mint.special / the 1-D and flat forms (the wheel: "The kernel LinalgVectorNorm
    # unregistered", "The kernel Exp2 unregistered", "The kernel AdaptiveMaxPool1D unregistered")
    "linalg_vector_norm": (lambda x: mint.linalg.vector_norm(x, 1, 1, True), lambda x: np.abs(x).sum(1, keepdims=True)),
    "linalg_vector_norm_2": (lambda x: mint.linalg.vector_norm(x), lambda x: np.array(np.sqrt((x.astype(np.float64) ** 2).sum()))),
    "linalg_norm": (lambda x: mint.linalg.norm(x, 2, 1), lambda x: np.sqrt((x.astype(np.float64) ** 2).sum(1))),
    "linalg_matrix_norm": (lambda x: mint.linalg.matrix_norm(x), lambda x: np.array(np.linalg.norm(x.astype(np.float64)))),
    "linalg_inv": (lambda x: mint.linalg.inv(x[:, :3] + 4 * EYE5[:3, :3]),
                   lambda x: np.linalg.inv(x[:, :3].astype(np.float64) + 4 * np.eye(3))),
    "linalg_qr_r": (lambda x: mint.abs(mint.linalg.qr(x)[1]), lambda x: np.abs(np.linalg.qr(x.astype(np.float64))[1])),
    "special_erfc": (lambda x: mint.special.erfc(x), lambda x: 1 - _erf(x)),
    "special_exp2": (lambda x: mint.special.exp2(x), lambda x: np.exp2(x.astype(np.float64))),
    "special_expm1": (lambda x: mint.special.expm1(x), lambda x: np.expm1(x.astype(np.float64))),
    "special_log1p": (lambda x: mint.special.log1p(x + 2.5), lambda x: np.log1p(x.astype(np.float64) + 2.5)),
    "special_sinc": (lambda x: mint.special.sinc(x), lambda x: np.sinc(x.astype(np.float64))),
    "special_log_softmax": (lambda x: mint.special.log_softmax(x, 1), lambda x: np.log(_softmax(x.astype(np.float64), 1))),
    "special_round": (lambda x: mint.special.round(x * 3), lambda x: np.round(x * 3)),
    "f_flatten": (lambda x: F.flatten(x), lambda x: x.reshape(-1)),
    "f_cosine_embedding_loss": (lambda x: F.cosine_embedding_loss(x, Tensor(Y), Tensor(np.array([1, -1, 1], np.float32)), 0.1),
                                lambda x: np.array(_cosine_embedding(x, Y, np.array([1, -1, 1]), 0.1))),
    "f_adaptive_max_pool1d": (lambda x: F.adaptive_max_pool1d(mint.reshape(x, (1, 3, 5)), 2),
                              lambda x: np.stack([x[:, :3].max(1), x[:, 2:].max(1)], 1)[None]),
    "f_adaptive_max_pool1d_indices": (lambda x: F.adaptive_max_pool1d(mint.reshape(x, (1, 3, 5)), 2, True)[1],
                                      lambda x: np.stack([x[:, :3].argmax(1), 2 + x[:, 2:].argmax(1)], 1)[None]),
}


def _cosine_embedding(a, b, target, margin):
    """PyTorch's (MindSpore's documented) cosine embedding loss, mean reduction."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    return np.where(target == 1, 1 - cos, np.maximum(0, cos - margin)).mean()


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "compiled"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_numpy(name, compiled):
    call, ref = CASES[name]
    fn = ms.jit(call) if compiled else call
    got = fn(Tensor(X)).asnumpy()
    want = ref(X)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-5, atol=2e-6)


def test_mint_max_and_min_forms():
    x, y = Tensor(X), Tensor(Y)
    assert float(mint.max(x).asnumpy()) == X.max() and float(mint.min(x).asnumpy()) == X.min()
    values, indices = mint.max(x, 1)
    np.testing.assert_array_equal(values.asnumpy(), X.max(1))
    np.testing.assert_array_equal(indices.asnumpy(), X.argmax(1))
    np.testing.assert_array_equal(mint.min(x, y).asnumpy(), np.minimum(X, Y))


def test_mint_full_takes_its_dtype_from_the_fill_value():
    assert mint.full((2,), 1.5).dtype == ms.float32
    assert mint.full((2,), 2).dtype == ms.int64
    assert mint.full((2,), True).dtype == ms.bool_
    assert mint.full((2,), 1, dtype=ms.float16).dtype == ms.float16


def test_mint_linear_layer_parameters_and_default_init():
    layer = mint.nn.Linear(3, 4)
    names = [p.name for p in layer.get_parameters()]
    assert names == ["weight", "bias"] and layer.weight.shape == (4, 3) and layer.bias.shape == (4,)
    bound = 1 / math.sqrt(3)         # HeUniform(sqrt(5)) over fan_in 3, and the bias's Uniform(1 / sqrt(3))
    assert np.abs(layer.weight.asnumpy()).max() <= bound and np.abs(layer.bias.asnumpy()).max() <= bound
    assert mint.nn.Linear(3, 4, bias=False).bias is None


def test_functional_argument_order_is_mints():
    """Where mint's signature orders or names arguments unlike the ops (reduction before beta /
    pos_weight, ceil_mode before return_indices, `input=` keywords)."""
    x, y = Tensor(X), Tensor(Y)
    d = np.abs(X - Y)
    np.testing.assert_allclose(F.smooth_l1_loss(x, y).asnumpy(), np.where(d < 1, 0.5 * d * d, d - 0.5).mean(),
                               rtol=1e-6)
    np.testing.assert_allclose(F.smooth_l1_loss(x, y, "sum", 0.5).asnumpy(),
                               np.where(d < 0.5, 0.5 * d * d / 0.5, d - 0.25).sum(), rtol=1e-6)
    p = 1 / (1 + np.exp(-Y))
    pw = Tensor(np.full((5,), 2.0, np.float32))
    want = -(2.0 * p * np.log(1 / (1 + np.exp(-X))) + (1 - p) * np.log(1 - 1 / (1 + np.exp(-X)))).mean()
    np.testing.assert_allclose(F.binary_cross_entropy_with_logits(x, Tensor(p.astype(np.float32)), None, "mean", pw)
                               .asnumpy(), want, rtol=1e-5)
    logp = np.log(_softmax(X.astype(np.float64), 1))
    logq = np.log(_softmax(Y.astype(np.float64), 1))
    np.testing.assert_allclose(F.kl_div(Tensor(logp.astype(np.float32)), Tensor(logq.astype(np.float32)), "sum",
                                        log_target=True).asnumpy(), (np.exp(logq) * (logq - logp)).sum(), rtol=1e-5)
    img = Tensor(RNG.uniform(-1, 1, (1, 1, 5, 5)).astype(np.float32))
    out, idx = F.max_pool2d(img, 2, 2, 0, 1, True, True)
    assert out.shape == (1, 1, 3, 3) and idx.shape == (1, 1, 3, 3)
    np.testing.assert_array_equal(F.relu(input=x).asnumpy(), np.maximum(X, 0))


@pytest.mark.parametrize("diagonal", [0, 2, -1])
def test_diag_offsets(diagonal):
    v = RNG.uniform(-1, 1, 4).astype(np.float32)
    np.testing.assert_array_equal(mint.diag(Tensor(v), diagonal).asnumpy(), np.diag(v, diagonal))
    np.testing.assert_array_equal(mint.diag(Tensor(X), diagonal).asnumpy(), np.diag(X, diagonal))


def test_layers_with_mints_constructor_arguments():
    x, y = Tensor(X), Tensor(Y)
    np.testing.assert_allclose(mint.nn.ELU(0.5, inplace=True)(Tensor(X.copy())).asnumpy(),
                               np.where(X > 0, X, 0.5 * np.expm1(X)), rtol=1e-6)
    np.testing.assert_array_equal(mint.nn.Hardtanh(-0.5, 0.5)(x).asnumpy(), np.clip(X, -0.5, 0.5))
    np.testing.assert_array_equal(mint.nn.ReLU6(inplace=True)(x * 4).asnumpy(), np.clip(X * 4, 0, 6))
    np.testing.assert_allclose(mint.nn.SiLU()(x).asnumpy(), X / (1 + np.exp(-X)), rtol=1e-6)
    glu = mint.nn.GLU(dim=0)(Tensor(RNG.uniform(-1, 1, (4, 3)).astype(np.float32)))
    assert glu.shape == (2, 3)
    d = np.abs(X - Y)
    np.testing.assert_allclose(mint.nn.SmoothL1Loss()(x, y).asnumpy(), np.where(d < 1, 0.5 * d * d, d - 0.5).mean(),
                               rtol=1e-6)
    logp, q = np.log(_softmax(X, 1)), _softmax(Y, 1)
    np.testing.assert_allclose(mint.nn.KLDivLoss("sum")(Tensor(logp), Tensor(q)).asnumpy(),
                               (q * (np.log(q) - logp)).sum(), rtol=1e-5)
    p = 1 / (1 + np.exp(-Y))
    want = -(p * np.log(1 / (1 + np.exp(-X))) + (1 - p) * np.log(1 - 1 / (1 + np.exp(-X)))).mean()
    np.testing.assert_allclose(mint.nn.BCEWithLogitsLoss()(x, Tensor(p.astype(np.float32))).asnumpy(), want,
                               rtol=1e-5)


W1 = np.random.default_rng(11).uniform(-0.4, 0.4, (8, 5)).astype(np.float32)
W2 = np.random.default_rng(12).uniform(-0.4, 0.4, (5, 8)).astype(np.float32)


class _MintNet(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = mint.nn.Linear(5, 8, weight_init=Tensor(W1), bias_init="zeros")
        self.norm = mint.nn.LayerNorm(8)
        self.fc2 = mint.nn.Linear(8, 5, weight_init=Tensor(W2), bias_init="zeros")

    def construct(self, x, labels):
        h = F.gelu(self.norm(self.fc1(x)), approximate="tanh")
        return F.cross_entropy(self.fc2(h), labels)


def _train(mode):
    ms.set_context(mode=mode)
    net = _MintNet()
    opt = ms.nn.SGD(net.trainable_params(), 0.5)
    step = ms.nn.TrainOneStepCell(net, opt)
    return [float(step(Tensor(X), Tensor(LABELS)).asnumpy()) for _ in range(4)]


def test_a_mint_model_trains_alike_in_both_modes():
    """Gradients flow through the mint layers (they are the ops' own), and graph mode gives
    PyNative's losses; the loss falls."""
    eager = _train(ms.PYNATIVE_MODE)
    graph = _train(ms.GRAPH_MODE)
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    assert eager[-1] < eager[0]


def test_elementwise_layers():
    x = Tensor(X * 3)
    v = X.astype(np.float64) * 3
    np.testing.assert_allclose(mint.nn.Hardswish()(x).asnumpy(), v * np.clip(v + 3, 0, 6) / 6, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mint.nn.Hardsigmoid()(x).asnumpy(), np.clip(v / 6 + 0.5, 0, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(mint.nn.Hardshrink(1.0)(x).asnumpy(), np.where(np.abs(X * 3) > 1.0, X * 3, 0))
    np.testing.assert_allclose(mint.nn.Softshrink(1.0)(x).asnumpy(), np.sign(v) * np.maximum(np.abs(v) - 1, 0),
                               rtol=1e-5, atol=1e-6)
    selu = 1.0507009873554805 * np.where(v > 0, v, 1.6732632423543772 * np.expm1(v))
    np.testing.assert_allclose(mint.nn.SELU()(x).asnumpy(), selu, rtol=1e-5, atol=1e-6)


def _draws():
    return (mint.rand(2, 3), mint.randn((4,)), mint.randint(3, 9, (5,)), mint.randperm(6),
            mint.normal(1.0, 0.5, (3,)), mint.bernoulli(mint.full((4,), 0.5)))


def test_random_draws_shapes_dtypes_ranges_and_generators():
    ms.manual_seed(7)
    r, n, i, p, nm, b = _draws()
    assert r.shape == (2, 3) and r.dtype == ms.float32 and n.shape == (4,) and nm.shape == (3,)
    assert i.dtype == ms.int64 and ((i.asnumpy() >= 3) & (i.asnumpy() < 9)).all()
    assert sorted(p.asnumpy().tolist()) == list(range(6)) and p.dtype == ms.int64
    assert set(b.asnumpy().tolist()) <= {0.0, 1.0} and b.dtype == ms.float32
    big = mint.rand(20000).asnumpy()
    assert 0 <= big.min() and big.max() < 1 and abs(big.mean() - 0.5) < 0.01
    g = ms.Generator().manual_seed(11)
    first = mint.randn(5, generator=g).asnumpy()
    g.manual_seed(11)
    np.testing.assert_array_equal(mint.randn(5, generator=g).asnumpy(), first)
    assert mint.bernoulli(Tensor(np.array([0.0, 1.0], np.float32))).asnumpy().tolist() == [0.0, 1.0]
    assert mint.randint_like(Tensor(np.zeros(3, np.int32)), 4).dtype == ms.int32


def test_random_draws_are_the_same_eager_and_compiled():
    ms.manual_seed(5)
    eager = [t.asnumpy() for t in _draws()]
    ms.manual_seed(5)
    compiled = [t.asnumpy() for t in ms.jit(_draws)()]
    for a, b in zip(eager, compiled):
        np.testing.assert_array_equal(a, b)


def test_more_functions_against_numpy():
    x, y = Tensor(X), Tensor(Y)
    np.testing.assert_array_equal(mint.swapaxes(x, 0, 1).asnumpy(), X.T)
    np.testing.assert_array_equal(mint.t(x).asnumpy(), X.T)
    np.testing.assert_allclose(mint.trace(x[:, :3]).asnumpy(), np.trace(X[:, :3]), rtol=1e-6)
    pos = np.abs(Y) + 0.1
    want = np.where(X == 0, 0, X * np.log(pos))
    np.testing.assert_allclose(mint.xlogy(x, Tensor(pos)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mint.vdot(x[0], y[0]).asnumpy(), np.vdot(X[0], Y[0]), rtol=1e-5)
    withnan = X.copy()
    withnan[0, 1] = np.nan
    np.testing.assert_allclose(mint.nansum(Tensor(withnan), 1).asnumpy(), np.nansum(withnan, 1), rtol=1e-5)
    np.testing.assert_array_equal(mint.fix(x).asnumpy(), np.trunc(X))
    assert mint.allclose(x, x + 1e-9) is True and mint.allclose(x, y) is False
    np.testing.assert_array_equal(mint.select(x, 1, -1).asnumpy(), X[:, -1])
    idx = np.array([[0, 1, 0, 2, 2]], np.int64)
    src = np.ones((1, 5), np.float32)
    want = X.copy()
    np.add.at(want, (idx[0], np.arange(5)), 1)
    np.testing.assert_allclose(mint.scatter_add(x, 0, Tensor(idx), Tensor(src)).asnumpy(), want, rtol=1e-6)
    b1, b2 = RNG.uniform(-1, 1, (2, 3, 4)).astype(np.float32), RNG.uniform(-1, 1, (2, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(mint.addbmm(x, Tensor(b1), Tensor(b2), beta=0.5, alpha=2).asnumpy(),
                               0.5 * X + 2 * np.einsum("bij,bjk->ik", b1, b2), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mint.addmv(x[:, 0], x, y[0], alpha=3).asnumpy(), X[:, 0] + 3 * X @ Y[0],
                               rtol=1e-5, atol=1e-6)
    assert mint.item(x[1, 2]) == float(X[1, 2])


def test_index_add_kthvalue_unique_empty_addr():
    x = Tensor(X)
    src = RNG.uniform(-1, 1, (3, 2)).astype(np.float32)
    want = X.copy()
    np.add.at(want, (slice(None), [4, 4]), 2 * src)
    np.testing.assert_allclose(mint.index_add(x, 1, Tensor(np.array([4, 4], np.int32)), Tensor(src), alpha=2)
                               .asnumpy(), want, rtol=1e-6, atol=1e-6)
    values, indices = mint.kthvalue(x, 2, dim=1)
    np.testing.assert_array_equal(values.asnumpy(), np.sort(X, 1)[:, 1])
    np.testing.assert_array_equal(indices.asnumpy(), np.argsort(X, 1, kind="stable")[:, 1])
    assert mint.kthvalue(x, 1, 0, keepdim=True)[0].shape == (1, 5)
    ints = Tensor(np.array([3, 1, 3, 2, 1], np.int32))
    np.testing.assert_array_equal(mint.unique(ints).asnumpy(), [1, 2, 3])
    u, inv, cnt = mint.unique(ints, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(inv.asnumpy(), [2, 0, 2, 1, 0])
    np.testing.assert_array_equal(cnt.asnumpy(), [2, 1, 2])
    e = mint.empty(2, 3, dtype=ms.int32)
    assert e.shape == (2, 3) and e.dtype == ms.int32 and mint.empty_like(x).shape == (3, 5)
    np.testing.assert_allclose(mint.addr_(x[:, :2], x[:, 0], x[0, :2], 0.5, 2).asnumpy(),
                               0.5 * X[:, :2] + 2 * np.outer(X[:, 0], X[0, :2]), rtol=1e-6)
