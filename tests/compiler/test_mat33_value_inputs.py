"""A reduction's axis given as a Tensor (issue 33, mat33; MindSpore's suite: test_argmax_op,
test_addn_op, test_batch_matmul's dynamic-rank nets). PyNative reads its value; graph mode compiles
once per value of such a graph input (errors.InputValueNeeded, pycompile.api), and a second value never reuses
the first one's graph; an axis computed inside the graph is a CompileError at the user's line."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.ops import operations as P

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


class ReduceNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reduce_sum = P.ReduceSum(keep_dims=False)

    def construct(self, x, axis):
        return self.reduce_sum(x, axis) * 2


def _axis(*a):
    return Tensor(np.array(a, np.int64))


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_pynative_reads_the_axis_tensor():
    np.testing.assert_array_equal(ReduceNet()(Tensor(X), _axis(-1)).asnumpy(), X.sum(-1) * 2)
    np.testing.assert_array_equal(P.ReduceSum(keep_dims=True)(Tensor(X), _axis(0, 2)).asnumpy(),
                                  X.sum((0, 2), keepdims=True))
    np.testing.assert_array_equal(ops.ReduceMean()(Tensor(X), Tensor(np.array(1, np.int32))).asnumpy(), X.mean(1))
    # MindSpore 2.10: ops.sum(x, Tensor(1)) of arange(6).reshape(2, 3) is [3, 12] (recorded from the wheel)
    x6 = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(ops.sum(x6, Tensor(1)).asnumpy(), np.array([3.0, 12.0], np.float32))


def test_graph_compiles_per_axis_value(graph_mode):
    net = ReduceNet()
    for axis, want in (((-1,), X.sum(-1)), ((0, 1), X.sum((0, 1))), ((-1,), X.sum(-1)), ((1,), X.sum(1))):
        out = net(Tensor(X), _axis(*axis))
        np.testing.assert_array_equal(out.asnumpy(), want * 2, err_msg=str(axis))


def test_graph_with_a_dynamic_rank_signature(graph_mode):
    # the suite's pattern: set_inputs with a None dimension and an axis of unknown length
    net = ReduceNet()
    net.set_inputs(Tensor(shape=[2, None, 4], dtype=ms.float32), Tensor(shape=[None], dtype=ms.int64))
    np.testing.assert_array_equal(net(Tensor(X), _axis(-1)).asnumpy(), X.sum(-1) * 2)
    np.testing.assert_array_equal(net(Tensor(X[:, :2]), _axis(0)).asnumpy(), X[:, :2].sum(0) * 2)


@ms.jit
def jit_reduce(x, axis):
    return ops.ReduceMax()(x, axis)


def test_jit_function_is_not_served_a_stale_specialization():
    # the jit fast path (the last signature's guarded call) must not skip the value check
    for _ in range(2):
        np.testing.assert_array_equal(jit_reduce(Tensor(X), _axis(0)).asnumpy(), X.max(0))
        np.testing.assert_array_equal(jit_reduce(Tensor(X), _axis(2)).asnumpy(), X.max(2))


@ms.jit
def axis_computed_in_graph(x, a):
    return ops.ReduceSum()(x, a + 1)


def test_an_axis_computed_in_the_graph_is_the_users_error():
    with pytest.raises(ms.CompileError) as info:
        axis_computed_in_graph(Tensor(X), _axis(0))
    text = str(info.value)
    assert "test_mat33_value_inputs.py" in text and "known at compile time" in text
