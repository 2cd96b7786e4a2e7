"""Tensor arguments whose values set an output's shape in graph code (MindSpore's value-depend
inputs; errors.InputValueNeeded, pycompile.api): ResizeLinear1D's `size` passed to a Cell or a jit function is compiled once
per value of it, the other arguments staying graph inputs. Before, the call failed ("'size' sets
the output's shape, so it must be known when the graph is compiled"). Expected values: linear
resampling with align_corners, as MindSpore's suite (test_resize_linear_1d_grad_op.py) records."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import nn
from pycompile.ops import composite as C
from pycompile.ops.operations import ResizeLinear1D

X = np.array([[[1, 2, 3], [4, 5, 6]]], np.float32)


def _align_corners(x, n):
    src = np.arange(n) * (x.shape[-1] - 1) / (n - 1)
    return np.stack([np.interp(src, np.arange(x.shape[-1]), row) for row in x.reshape(-1, x.shape[-1])]) \
        .reshape(x.shape[:-1] + (n,))


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.resize = ResizeLinear1D()

    def construct(self, x, size):
        return self.resize(x, size) * 2.0


@pytest.fixture
def graph_mode():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=old)


def test_cell_compiles_per_size_value(graph_mode):
    net = _Net()
    for n in (6, 4, 6, 5):
        out = net(ms.Tensor(X + n), ms.Tensor(np.array([n], np.int64)))
        np.testing.assert_allclose(out.asnumpy(), 2 * _align_corners(X + n, n), rtol=1e-6)
    cache = net.__dict__["_pycompile_graph_cache"]
    assert cache.value_positions == (1,)                             # `size` is compiled by value
    assert len([k for k in cache if len(k) == 4]) == 3               # one executable per size value


def test_jit_function_and_gradient(graph_mode):
    resize = ResizeLinear1D()

    @ms.jit
    def f(x, size):
        return resize(x, size)

    np.testing.assert_allclose(f(ms.Tensor(X), ms.Tensor(np.array([5], np.int64))).asnumpy(), _align_corners(X, 5),
                               rtol=1e-6)
    grad = C.GradOperation(get_all=True, sens_param=True)
    dout = np.arange(12, dtype=np.float32).reshape(1, 2, 6)
    dx = grad(_Net())(ms.Tensor(X), ms.Tensor(np.array([6], np.int64)), ms.Tensor(dout))[0]
    # the transpose of the 3 -> 6 align_corners resampling, times the Cell's 2
    w = np.stack([_align_corners(np.eye(3, dtype=np.float32)[i], 6) for i in range(3)])      # (3, 6)
    np.testing.assert_allclose(dx.asnumpy(), 2 * dout @ w.T, rtol=1e-5)


def test_computed_size_is_still_an_error(graph_mode):
    class Computed(nn.Cell):
        def __init__(self):
            super().__init__()
            self.resize = ResizeLinear1D()

        def construct(self, x, size):
            return self.resize(x, size + 1)

    with pytest.raises(ValueError, match="must be known when the graph is compiled"):
        Computed()(ms.Tensor(X), ms.Tensor(np.array([5], np.int64)))


def test_asnumpy_in_user_code_is_still_a_compile_error(graph_mode):
    class Reads(nn.Cell):
        def construct(self, x, size):
            return x * float(size.asnumpy()[0])

    with pytest.raises(ms.CompileError if hasattr(ms, "CompileError") else Exception, match="asnumpy"):
        Reads()(ms.Tensor(X), ms.Tensor(np.array([5], np.int64)))


def test_slice_and_reshape_take_tensor_arguments(graph_mode):
    """MindSpore's test_dynamic_op.py: Slice(x, begin, size) and Reshape(x, shape) with Tensor
    arguments of the Cell, and the gradient through them (GradOperation)."""
    x = np.arange(18, dtype=np.float32).reshape(3, 2, 3)

    class SliceNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.slice = ms.ops.Slice()

        def construct(self, x, begin, size):
            return self.slice(x, begin, size)

    class ReshapeNet(nn.Cell):
        def construct(self, x, shape):
            return ms.ops.reshape(x, shape).sum(0)

    net = SliceNet()
    for begin, size in (([0, 1, 0], [2, 1, 2]), ([1, 0, 1], [2, 2, 2])):
        b, s = (ms.Tensor(np.array(v, np.int64)) for v in (begin, size))
        want = x[tuple(slice(i, i + n) for i, n in zip(begin, size))]
        np.testing.assert_array_equal(net(ms.Tensor(x), b, s).asnumpy(), want)
    g = C.GradOperation()(net)(ms.Tensor(x), ms.Tensor(np.array([0, 1, 0], np.int64)),
                                ms.Tensor(np.array([2, 1, 2], np.int64)))
    want = np.zeros_like(x)
    want[0:2, 1:2, 0:2] = 1
    np.testing.assert_array_equal(g.asnumpy(), want)
    for shape in ((6, 3), (2, 9)):
        got = ReshapeNet()(ms.Tensor(x), ms.Tensor(np.array(shape, np.int64)))
        np.testing.assert_array_equal(got.asnumpy(), x.reshape(shape).sum(0))


class _GradInGraph(nn.Cell):
    """GradOperation inside graph code: the forward sees `size` through a Reshape of the argument
    (MindSpore's test_resize_linear_1d_grad_op.py)."""

    def __init__(self):
        super().__init__()
        self.grad = C.GradOperation(get_all=True, sens_param=True)
        self.net = _Net()

    def construct(self, dout, x, size):
        return self.grad(self.net)(x, size, dout)


def test_gradient_operation_inside_graph_code(graph_mode):
    dout = np.arange(12, dtype=np.float32).reshape(1, 2, 6)
    dx = _GradInGraph()(ms.Tensor(dout), ms.Tensor(X), ms.Tensor(np.array([6], np.int64)))[0]
    w = np.stack([_align_corners(np.eye(3, dtype=np.float32)[i], 6) for i in range(3)])      # (3, 6)
    np.testing.assert_allclose(dx.asnumpy(), 2 * dout @ w.T, rtol=1e-5)


def test_a_keyword_argument_compiles_by_value(graph_mode):
    resize = ResizeLinear1D()

    @ms.jit
    def f(x, size=None):
        return resize(x, size)

    for n in (5, 4, 5):
        out = f(ms.Tensor(X), size=ms.Tensor(np.array([n], np.int64)))
        np.testing.assert_allclose(out.asnumpy(), _align_corners(X, n), rtol=1e-6)
