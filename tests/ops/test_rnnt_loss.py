"""ops.RNNTLoss (src/pycompile/ops/entries/rnnt_loss.py) against a NumPy transducer lattice computed
cell by cell (MindSpore's CPU wheel has no kernel; its argument checks are recorded in
tests/conformance/cases_rnnt.py): costs for examples of different lengths and blank labels, grads
against central differences of those costs, both modes, float16, and the costs' own gradient (the
training path) equal to grads."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

RNG = np.random.default_rng(31)


def lattice_costs(acts, labels, input_lengths, label_lengths, blank=0):
    """-log P(labels | acts) per example, float64, one lattice cell at a time."""
    shift = acts.max(-1, keepdims=True)
    logp = acts - shift - np.log(np.exp(acts - shift).sum(-1, keepdims=True))
    out = []
    for b in range(acts.shape[0]):
        t_len, u_len = input_lengths[b], label_lengths[b] + 1
        alpha = np.full((t_len, u_len), -np.inf)
        alpha[0, 0] = 0.0
        for t in range(t_len):
            for u in range(u_len):
                terms = []
                if t:
                    terms.append(alpha[t - 1, u] + logp[b, t - 1, u, blank])
                if u:
                    terms.append(alpha[t, u - 1] + logp[b, t, u - 1, labels[b, u - 1]])
                if terms:
                    alpha[t, u] = np.logaddexp.reduce(terms)
        out.append(-(alpha[-1, -1] + logp[b, t_len - 1, u_len - 1, blank]))
    return np.array(out)


def _case(blank=0):
    b, t, u, v = 3, 6, 4, 7
    acts = RNG.standard_normal((b, t, u, v)).astype(np.float32)
    labels = RNG.integers(0, v, (b, u - 1)).astype(np.int32)
    labels[labels == blank % v] = (blank + 1) % v           # labels are not the blank
    return acts, labels, np.array([6, 3, 5], np.int32), np.array([3, 1, 0], np.int32)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("blank", [0, 4])
def test_costs_and_grads(compiled, blank):
    acts, labels, il, ll = _case(blank)
    op = ops.RNNTLoss(blank_label=blank)

    def f(a, b, c, d):
        return op(a, b, c, d)
    costs, grads = (ms.jit(f) if compiled else f)(*(Tensor(x) for x in (acts, labels, il, ll)))
    assert costs.dtype == ms.float32 and costs.shape == (3,) and grads.shape == acts.shape
    wide = acts.astype(np.float64)
    np.testing.assert_allclose(costs.asnumpy(), lattice_costs(wide, labels, il, ll, blank), rtol=1e-5)
    fd = np.zeros_like(wide)
    for i in np.ndindex(wide.shape):
        hi, lo = wide.copy(), wide.copy()
        hi[i] += 1e-5
        lo[i] -= 1e-5
        fd[i] = (lattice_costs(hi, labels, il, ll, blank).sum() - lattice_costs(lo, labels, il, ll, blank).sum()) / 2e-5
    np.testing.assert_allclose(grads.asnumpy(), fd, rtol=1e-3, atol=1e-5)
    assert not grads.asnumpy()[1, 3:].any()          # past example 1's length nothing depends on acts


@pytest.mark.parametrize("compiled", [False, True])
def test_training_on_the_costs_uses_grads(compiled):
    acts, labels, il, ll = _case()
    op = ops.RNNTLoss()
    w = Tensor(np.array([1.0, 2.0, 0.5], np.float32))

    def loss(a):
        return (op(a, Tensor(labels), Tensor(il), Tensor(ll))[0] * w).sum()
    g = ms.grad(loss)
    got = (ms.jit(g) if compiled else g)(Tensor(acts)).asnumpy()
    grads = op(Tensor(acts), Tensor(labels), Tensor(il), Tensor(ll))[1].asnumpy()
    np.testing.assert_allclose(got, grads * np.array([1.0, 2.0, 0.5])[:, None, None, None], rtol=1e-6, atol=1e-7)


def test_float16_computes_in_float32():
    acts, labels, il, ll = _case()
    costs, grads = ops.RNNTLoss()(Tensor(acts).astype(ms.float16), Tensor(labels), Tensor(il), Tensor(ll))
    assert costs.dtype == grads.dtype == ms.float16
    want = lattice_costs(acts.astype(np.float16).astype(np.float64), labels, il, ll)
    np.testing.assert_allclose(costs.astype(ms.float32).asnumpy(), want, rtol=2e-3)


def test_errors():
    acts, labels, il, ll = (Tensor(x) for x in _case())
    with pytest.raises(TypeError, match="the type of 'blank_label' should be 'int'"):
        ops.RNNTLoss(1.5)
    with pytest.raises(TypeError, match="the element of 'labels' must be Tensor\\[Int32\\]"):
        ops.RNNTLoss()(acts, labels.astype(ms.int64), il, ll)
    with pytest.raises(ValueError, match="'acts_rank' must be int and must = 4"):
        ops.RNNTLoss()(acts[0], labels, il, ll)
    with pytest.raises(ValueError, match="'labels' must be"):
        ops.RNNTLoss()(acts, labels[:, :2], il, ll)
    with pytest.raises(ValueError, match="every value of 'input_lengths'"):
        ops.RNNTLoss()(acts, labels, Tensor(np.array([7, 3, 5], np.int32)), ll)
    with pytest.raises(ValueError, match="'blank_label' must be in"):
        ops.RNNTLoss(9)(acts, labels, il, ll)
