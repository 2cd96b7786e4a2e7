"""Random, sampler and CTC ops of MindSpore's CPU suite (issue 33, rand33): the seeded streams
MindSpore's kernels draw (recorded from the wheel: tests/oracle/record_rand33.py), CTC losses
against a brute-force sum over alignments and finite differences, CTCGreedyDecoder in graph
code, vmap of Multinomial, and the module paths the suite imports."""
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.ops import operations as P

STREAMS = json.loads((Path(__file__).parents[1] / "oracle" / "data" / "rand33_streams.json").read_text())


class _Categorical(nn.Cell):
    def __init__(self):
        super().__init__()
        self.rc = P.RandomCategorical(ms.int64)

    def construct(self, x, n, seed):
        return self.rc(x, n, seed)


@pytest.fixture(params=["graph", "pynative"])
def mode(request):
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=old)


def test_seeded_streams_are_mindspores(mode):
    rec = STREAMS[mode]
    x = Tensor(np.array([[1, 2, 3, 4, 5], [0.5, 0.1, 3.0, -1.0, 0.0]], np.float32))
    net = _Categorical()
    assert [net(x, 10, s).asnumpy().tolist() for s in STREAMS["seeds"]] == rec["random_categorical"]
    mask = Tensor(np.array([1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1], np.bool_))
    p = P.RandomChoiceWithMask(4, 9)
    assert [[a.asnumpy().tolist() for a in p(mask)] for _ in range(2)] == rec["choice_with_mask"]
    s = P.UniformCandidateSampler(1, 3, True, 10, seed=3)
    t = Tensor(np.array([[1], [2]], np.int32))
    got = [[a.asnumpy().tolist() for a in s(t)] for _ in range(2)]
    for g, want in zip(got, rec["uniform_candidate_sampler"]):
        assert g[0] == want[0]
        np.testing.assert_allclose(g[1], want[1], rtol=1e-6)
        np.testing.assert_allclose(g[2], want[2], rtol=1e-6)
    lu = P.LogUniformCandidateSampler(1, 4, True, 30, seed=7)
    t64 = Tensor(np.array([[1], [20]], np.int64))
    for want in rec["log_uniform_candidate_sampler"]:
        got = [a.asnumpy().astype(np.float64) for a in lu(t64)]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, np.asarray(w), rtol=1e-6)


def _brute_ctc(logp, target, blank):
    """-log of the summed probability of every path of length T collapsing to target."""
    t_max, c = logp.shape
    total = 0.0
    for path in itertools.product(range(c), repeat=t_max):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or k != path[i - 1])]
        if collapsed == list(target):
            total += np.exp(sum(logp[i, k] for i, k in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


def test_ctc_loss_v2_brute_force_and_gradient():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(5, 2, 3))
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    targets = np.array([[1, 2, 0], [2, 2, 0]], np.int64)
    in_len, tl = np.array([5, 4], np.int64), np.array([2, 2], np.int64)
    loss, alphas = ops.ctc_loss(Tensor(logp), Tensor(targets), Tensor(in_len), Tensor(tl), reduction="none")
    want = [_brute_ctc(logp[:in_len[b], b], targets[b, :tl[b]], 0) for b in range(2)]
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-10)
    assert alphas.shape == (2, 5, 7)

    def total(v):
        return ops.ctc_loss(v, Tensor(targets), Tensor(in_len), Tensor(tl), reduction="sum")[0]
    g = ops.grad(total)(Tensor(logp)).asnumpy()
    eps = 1e-6
    for idx in [(0, 0, 1), (2, 1, 2), (4, 0, 0), (3, 1, 1)]:
        d = np.zeros_like(logp)
        d[idx] = eps
        fd = (total(Tensor(logp + d)).asnumpy() - total(Tensor(logp - d)).asnumpy()) / (2 * eps)
        np.testing.assert_allclose(g[idx], fd, rtol=1e-5, atol=1e-8)
    assert g[4, 1].tolist() == [0.0, 0.0, 0.0]          # past input_lengths[1]


def test_ctc_loss_v1_suite_value_and_gradient_output():
    # tests/st/ops/cpu/test_ctcloss_op.py's case: MindSpore's mean loss 9.083767
    probs = np.array([[[-4.4131, -4.6093, -3.4333, -3.9268, -2.8917, -3.4093, -4.2243, -1.1379, -7.1046, -0.6902],
                       [-2.5109, -3.3397, -4.9384, -1.2723, -1.1443, -2.4683, -2.6768, -4.1282, -2.7062, -3.1906],
                       [-2.5092, -1.6392, -2.0864, -4.0059, -1.5610, -2.3223, -2.4816, -2.9922, -3.1412, -2.3311]],
                      [[-2.1243, -3.5773, -3.1108, -4.4253, -2.7080, -1.9653, -2.0499, -2.4418, -1.8620, -1.5229],
                       [-2.2479, -3.5128, -1.4189, -2.8701, -1.8562, -2.2752, -2.7019, -2.1865, -2.5634, -2.9869],
                       [-3.2144, -1.3986, -3.1083, -3.9634, -3.5131, -3.2317, -2.6200, -1.7938, -1.8159, -1.7255]],
                      [[-3.1301, -2.1649, -0.9286, -2.9452, -2.5992, -2.0263, -2.9201, -3.2155, -2.8302, -3.3636],
                       [-1.4661, -3.6311, -2.4781, -4.6180, -2.7308, -1.7019, -1.5570, -2.6012, -4.0788, -2.3073],
                       [-2.6833, -1.5033, -3.6922, -2.6360, -2.6974, -2.6847, -2.7579, -2.1396, -1.4093, -2.9630]],
                      [[-2.0094, -2.3024, -3.3673, -1.0220, -2.8326, -2.2613, -3.0535, -2.9879, -3.7015, -2.4510],
                       [-1.9071, -3.2603, -2.3229, -2.0572, -4.3450, -2.1284, -2.6306, -1.3824, -2.9815, -2.5061],
                       [-2.7931, -3.7631, -3.2440, -4.3887, -1.0271, -3.8851, -1.2418, -4.5123, -2.2993, -2.4607]],
                      [[-1.5763, -2.7539, -3.6941, -3.8166, -1.2599, -2.6903, -2.5826, -4.8208, -2.9562, -1.6321],
                       [-3.3031, -3.0087, -1.9982, -1.9081, -3.8731, -2.8764, -2.2485, -2.3808, -1.4283, -2.1625],
                       [-2.4516, -3.2394, -4.2053, -4.3541, -2.5229, -4.0717, -1.4894, -2.3151, -1.1098, -2.3465]]],
                     np.float32)
    labels = np.array([3, 4, 6, 4, 7, 1, 4, 6, 6, 8], np.int32)
    indices = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [2, 0], [2, 1], [2, 2], [2, 3]], np.int64)
    loss, grad = P.CTCLoss()(Tensor(probs), Tensor(indices), Tensor(labels), Tensor(np.array([5, 5, 5], np.int32)))
    np.testing.assert_allclose(loss.asnumpy().mean(), 9.083767, rtol=1e-5)
    # d loss / d logits: softmax minus the posterior, so each frame's row sums to zero
    np.testing.assert_allclose(grad.asnumpy().sum(-1), 0.0, atol=1e-5)


class _Greedy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ctc = P.CTCGreedyDecoder()

    def construct(self, x, lengths):
        return self.ctc(x, lengths)


def test_ctc_greedy_decoder_in_both_modes(mode):
    # tests/st/ops/cpu/test_ctc_greedy_decoder_op.py's case and its expected values
    x = np.array([[[1.7640524, 0.4001572, 0.978738], [2.2408931, 1.867558, -0.9772779]],
                  [[0.95008844, -0.1513572, -0.10321885], [0.41059852, 0.14404356, 1.4542735]]], np.float32)
    out = _Greedy()(Tensor(x), Tensor(np.array([1, 1], np.int32)))
    assert out[0].asnumpy().tolist() == [[0, 0], [1, 0]]
    assert out[1].asnumpy().tolist() == [0, 0]
    assert out[2].asnumpy().tolist() == [2, 1]
    np.testing.assert_array_equal(out[3].asnumpy(), np.array([[-1.7640524], [-2.2408931]], np.float32))
    with pytest.raises(RuntimeError, match="should be less than"):
        _Greedy()(Tensor(x), Tensor(np.array([3, 3], np.int32)))


def test_unique_with_pad_and_no_repeat_ngram_under_jit_and_vmap():
    x = Tensor(np.array([[5, 1, 5, 2], [7, 7, 7, 3]], np.int32))
    y, idx = ops.vmap(lambda v: P.UniqueWithPad()(v, -1))(x)
    assert y.asnumpy().tolist() == [[5, 1, 2, -1], [7, 3, -1, -1]]
    assert idx.asnumpy().tolist() == [[0, 1, 0, 2], [0, 0, 0, 1]]
    state = np.array([[1, 2, 1, 2, 5, 1, 2], [4, 8, 8, 4, 3, 4, 8]], np.int32)
    logp = np.random.default_rng(0).random((2, 10)).astype(np.float32)
    out = ms.jit(lambda s, lp: P.NoRepeatNGram(3)(s, lp))(Tensor(state), Tensor(logp)).asnumpy()
    want = logp.copy()
    for r in range(2):                   # every token that followed an earlier copy of the last 2 tokens
        for i in range(5):
            if list(state[r, i:i + 2]) == list(state[r, 5:]):
                want[r, state[r, i + 2]] = -3.4028235e+38
    np.testing.assert_array_equal(out, want)


def test_vmap_of_multinomial_is_the_batched_call():
    prob = Tensor(np.full((3, 2), 0.5, np.float32))
    batched = P.Multinomial(seed=5, seed2=6)(prob, 3)
    mapped = ops.vmap(lambda p, n: P.Multinomial(seed=5, seed2=6)(p, n), in_axes=(0, None))(prob, 3)
    assert batched.asnumpy().tolist() == mapped.asnumpy().tolist()


def test_module_paths_and_shape_errors():
    from pycompile.ops import composite as C
    assert P.random_ops.ParameterizedTruncatedNormal is P.ParameterizedTruncatedNormal
    assert C.multinomial is ops.multinomial
    z = P.random_ops.TruncatedNormal(seed=2)(Tensor(np.array([50, 4], np.int32)))
    assert z.shape == (50, 4) and (np.abs(z.asnumpy()) <= 2).all()

    class Net(nn.Cell):
        def construct(self, x):
            return P.RandomGamma()(x * 2, Tensor(np.array([1.0], np.float32)))
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ValueError, match="must be known at compile time"):
            Net()(Tensor(np.array([2], np.int32)))
    finally:
        ms.set_context(mode=old)


def test_multinomial_of_rows_gathered_by_unique_in_graph_code():
    # tests/st/ops/cpu/test_multinomial_op.py::test_multinomial_dynamic_shape: Unique's indices
    # (a run-time count) gather rows, Multinomial draws from each; graph code returns count rows
    class Net(nn.Cell):
        def construct(self, x, indices):
            unique_indices, _ = P.Unique()(indices)
            return P.Multinomial()(P.Gather()(x, unique_indices, 0), 2)
    x = Tensor(np.arange(1, 21).reshape(4, 5).astype(np.float32) / 10)
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for idx in ([2, 0, 2, 1, 1, 2], [3, 3, 3, 3, 3, 3]):
            out = Net()(x, Tensor(np.array(idx, np.int32))).asnumpy()
            assert out.shape == (len(set(idx)), 2) and ((out >= 0) & (out < 5)).all()
    finally:
        ms.set_context(mode=old)


def test_standard_laplace_of_a_run_time_shape():
    # tests/st/ops/cpu/test_standard_laplace.py::test_standard_laplace_dynamic_shape
    class Net(nn.Cell):
        def construct(self, x, indices):
            unique_indices, _ = ops.Unique()(indices)
            dshape = ops.TensorShape()(ops.Gather()(x, unique_indices, 0))
            return ops.StandardLaplace()(dshape), dshape
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out, dshape = Net()(Tensor(np.arange(10, dtype=np.int32)), Tensor(np.array([4, 1, 4, 7, 1], np.int32)))
        assert out.shape == (3,) and dshape.asnumpy().tolist() == [3]
    finally:
        ms.set_context(mode=old)
    # eagerly, a Tensor shape is its values
    assert ops.StandardLaplace(seed=1)(Tensor(np.array([2, 3], np.int64))).shape == (2, 3)
