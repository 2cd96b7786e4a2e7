"""A Parameter given another shape after a graph reading it was compiled (set_data,
load_param_into_net) re-specialises the graph instead of reading past the new buffer's end
(reliability issue 31, item 8). MindSpore 2.10 accepts both changes (recorded:
tests/oracle/record_robustness.py) and keeps its stale graph, which reads garbage; pycompile
accepts them too and then computes what PyNative computes with the new shape."""
import json
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn

ORACLE = os.path.join(os.path.dirname(__file__), "..", "oracle", "data", "robustness.json")


def _oracle():
    with open(ORACLE) as f:
        return json.load(f)["param_reshaped_after_compile"]


class Net(nn.Cell):
    def __init__(self, shape=(3, 4)):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(shape, np.float32)), name="w")

    def construct(self, x):
        return self.w * x


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


CHANGES = {
    "set_data_2x2": lambda net: net.w.set_data(Tensor(np.full((2, 2), 5, np.float32))),
    "load_param_into_net_3x4x1": lambda net: ms.load_param_into_net(
        net, {"w": Parameter(Tensor(np.full((3, 4, 1), 7, np.float32)), name="w")}),
}


@pytest.mark.parametrize("case", sorted(CHANGES))
def test_a_new_shape_the_graph_cannot_take_raises_pynatives_error(case, graph_mode):
    want = _oracle()[case]
    x = Tensor(np.array(_oracle()["x"], np.float32))
    net = Net()
    net(x)
    result = CHANGES[case](net)
    assert "error" not in want["change"]            # MindSpore accepts the new value
    if case.startswith("load"):
        assert [list(r) for r in result] == [[], []]
    assert list(net.w.shape) == want["shape_after"]
    err = want["pynative_after"]["error"]
    with pytest.raises(Exception) as info:
        net(x)
    assert type(info.value).__name__ == err["type"]
    # the op and the shapes MindSpore's PyNative names (its wording around them differs)
    msg = err["message_first_line"]
    assert msg.startswith("For 'Mul'") and "For 'Mul'" in str(info.value)
    assert msg.split("but got ")[1] in str(info.value)


@pytest.mark.parametrize("old, new", [((3, 4), (1, 4)), ((256, 256), (1, 1)), ((1, 1), (64, 64))])
def test_a_new_shape_the_graph_can_take_gives_the_new_values(old, new, graph_mode):
    x = Tensor(np.arange(np.prod(old), dtype=np.float32).reshape(old))
    net = Net(old)
    np.testing.assert_array_equal(net(x).asnumpy(), x.asnumpy())
    w = np.arange(1, np.prod(new) + 1, dtype=np.float32).reshape(new)
    net.w.set_data(Tensor(w))
    for _ in range(2):          # the second call takes the fast path
        got = net(x)
        np.testing.assert_array_equal(got.asnumpy(), w * x.asnumpy())


W = Parameter(Tensor(np.ones((64, 64), np.float32)), name="w_global")


@ms.jit
def scale(x):
    return W * x


def test_jit_function_reading_a_global_parameter():
    x = Tensor(np.full((64, 64), 3, np.float32))
    for _ in range(2):
        scale(x)
    W.set_data(Tensor(np.array([[2.0]], np.float32)))
    for _ in range(2):
        np.testing.assert_array_equal(scale(x).asnumpy(), np.full((64, 64), 6, np.float32))
