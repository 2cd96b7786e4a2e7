"""The view Primitives and in-place helpers (src/pycompile/ops/entries/view_ops.py) where the CPU wheel
cannot be the oracle (tests/conformance/cases_view_ops.py records the rest): SelectView and
CopyWithSlice in graph code (the wheel's graph mode has no evaluator for them), DumpGradient's file
(the wheel's CPU build writes none; its documentation says the gradient is saved), and
stop_gradient_ (no CPU kernel in the wheel) by its documented example, in both modes."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def test_views_in_graph_code():
    @ms.jit
    def f(x, d):
        return (ops.SelectView()(x, 2, 1), ops.SelectView()(x, 1, -1), ops.TransposeExtView()(x, 0, -1),
                ops.CopyWithSlice()(d, x[0]) + 1)
    a, b, c, d = f(Tensor(X), Tensor(np.zeros((3, 4), np.float32)))
    np.testing.assert_array_equal(a.asnumpy(), X[:, 2])
    np.testing.assert_array_equal(b.asnumpy(), X[..., 1])
    np.testing.assert_array_equal(c.asnumpy(), X.transpose(2, 1, 0))
    np.testing.assert_array_equal(d.asnumpy(), X[0] + 1)


def test_copy_with_slice_writes_into_its_destination():
    dst = Tensor(np.zeros((2, 3), np.float32))
    out = ops.CopyWithSlice()(dst, Tensor(np.ones(3, np.float32)))
    assert out is dst and dst.asnumpy().tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("compiled", [False, True])
def test_dump_gradient_saves_the_gradient(tmp_path, compiled):
    path = str(tmp_path / "x_dout.npy")
    dg = ops.DumpGradient()

    def f(x, y):
        return (dg(path, x * 2, "out") * y).sum()
    g = ms.grad(f, (0, 1))
    x, y = np.array([1.0, 3.0], np.float32), np.array([2.0, 5.0], np.float32)
    gx, gy = (ms.jit(g) if compiled else g)(Tensor(x), Tensor(y))
    np.testing.assert_array_equal(gx.asnumpy(), 2 * y)
    np.testing.assert_array_equal(gy.asnumpy(), 2 * x)
    np.testing.assert_array_equal(np.load(path), y)          # the gradient reaching x * 2
    with pytest.raises(ValueError, match="'in' or 'out'"):
        dg(path, Tensor(x), "both")


@pytest.mark.parametrize("compiled", [False, True])
def test_stop_gradient_in_place_the_documented_example(compiled):
    x = Tensor([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], dtype=ms.float32)
    y = Tensor([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], dtype=ms.float32)

    def net(a, b):
        out1 = ops.MatMul()(a, b)
        out2 = ops.MatMul()(a, b)
        ops.stop_gradient_(out2)
        return out1, out2
    g = ops.grad(net)
    got = (ms.jit(g) if compiled else g)(x, y).asnumpy()
    np.testing.assert_allclose(got, [[1.4100001, 1.6, 6.5999994]] * 2, rtol=1e-6)   # MindSpore's docstring
    assert ops.stop_gradient_(x) is None
    with pytest.raises(TypeError, match="must be a Tensor"):
        ops.stop_gradient_(1.0)
