"""The compiled training step's shape (issue 15): TrainOneStepCell's `loss = network(x)` and the
forward inside `grad(network, weights)(x)` are one forward pass (their weight loads are one
value: no Assign between them), no Parameter is copied for the backward, and every update
(Parameters, momenta, global_step) is computed in its Parameter's own buffer. Loads separated by
an Assign to their Parameter stay apart."""
import numpy as np

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops


def _step():
    ms.set_seed(1)
    net = nn.SequentialCell(nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 4))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def _data():
    rng = np.random.default_rng(0)
    return Tensor(rng.standard_normal((5, 8)).astype(np.float32)), Tensor(rng.integers(0, 4, 5).astype(np.int32))


def test_train_one_step_cell_is_one_forward_with_updates_in_place():
    x, y = _data()
    net, step = _step()
    compiled = ms.jit(step.construct)
    report = compiled.compiled(x, y)
    assert report.copied_bytes == 0
    assert report.updates == (9, 9, 0)          # 4 weights, 4 momenta, global_step
    # forward: 2 products; backward: dW of both layers and dx of the second layer's input
    assert report.ir_after.count("MatMul(") == 5, report.ir_after
    got = [float(compiled(x, y).asnumpy()) for _ in range(3)]
    ref_net, ref = _step()
    want = [float(ref(x, y).asnumpy()) for _ in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for a, b in zip(net.trainable_params(), ref_net.trainable_params()):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-7)


class _Bump(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, x):
        before = x * self.w
        ops.assign(self.w, self.w + 1)
        after = x * self.w
        return before, after


def test_loads_with_an_assign_between_them_stay_apart():
    net = _Bump()
    before, after = ms.jit(net.construct)(Tensor(np.ones(2, np.float32)))
    np.testing.assert_array_equal(before.asnumpy(), [1, 2])
    np.testing.assert_array_equal(after.asnumpy(), [2, 3])
    np.testing.assert_array_equal(net.w.asnumpy(), [2, 3])
