"""A user optimizer written as MindSpore's own tests write them (test_adam_weight_decay_op.py):
`self.map_reverse(F.partial(fn, ...), self.parameters, moments, gradients)` in construct, with the
mapping helpers MindSpore's Optimizer defines (map_, map_reverse, hyper_map, hyper_map_reverse)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn
from pycompile.nn.optim.optimizer import Optimizer
from pycompile.ops import composite as C
from pycompile.ops import functional as F
from pycompile.ops import operations as P


def _sgd(opt, lr, param, gradient):
    opt(param, lr, gradient)
    return True


class _MapSGD(Optimizer):
    def __init__(self, params, learning_rate):
        super().__init__(learning_rate, params)
        self.opt = P.ApplyGradientDescent()

    def construct(self, gradients):
        return self.map_reverse(F.partial(_sgd, self.opt, self.get_lr()), self.parameters, gradients)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")
        self.b = Parameter(Tensor(np.array([0.5], np.float32)), name="b")

    def construct(self, x):
        return (x * self.w).sum() + self.b.sum()


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", pytest.param("GRAPH_MODE", marks=pytest.mark.cc)])
def test_user_optimizer_with_map_reverse_trains(mode):
    ms.set_context(mode=getattr(ms, mode))
    net = _Net()
    step = nn.TrainOneStepCell(net, _MapSGD(net.trainable_params(), 0.1))
    x = Tensor(np.array([1.0, -2.0, 4.0], np.float32))
    for _ in range(2):
        step(x)
    # d/dw = x, d/db = 1: two steps of w -= 0.1 * grad
    np.testing.assert_allclose(net.w.asnumpy(), [1.0 - 0.2, 2.0 + 0.4, 3.0 - 0.8], rtol=1e-6)
    np.testing.assert_allclose(net.b.asnumpy(), [0.3], rtol=1e-6)


def test_map_reverse_calls_the_last_element_first():
    seen = []
    out = C.Map(None, True)(lambda a, b: seen.append(a) or a + b, (1, 2, 3), (10, 20, 30))
    assert out == (11, 22, 33) and seen == [3, 2, 1]
    opt = _MapSGD([Parameter(Tensor(np.ones(2, np.float32)), name="p")], 0.1)
    assert isinstance(opt.map_, C.Map) and opt.map_reverse.reverse and opt.hyper_map_reverse.reverse
