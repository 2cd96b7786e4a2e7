"""MindSpore's dynamic-shape pattern in graph code, `gather(x, unique(i)[0], 0)`: rows of a static
tensor at indices of run-time length (ops/dynamic_length.py). The rows feed an optimizer update on a
Parameter of k rows (the count is checked when the graph runs), a TensorScatter* on the rows, or a
sparse optimizer update with the same rows of indices (the padding indices update nothing), as the
suite's test_apply_gradient_descent_op.py, test_momentum_op.py, test_tensor_scatter_arithmetic.py,
test_scatter_nd_arithmetic_op.py and test_sparse_apply_*_op.py do. Each failed on main (refused)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile.ops import operations as P

pytestmark = pytest.mark.cc

IDX = np.array([2, 0, 2, 1, 0, 1], np.int32)        # unique: [2, 0, 1] (first appearances)
ROWS = np.array([2, 0, 1])


class _GatherDescent(nn.Cell):
    def __init__(self, var):
        super().__init__()
        self.var = Parameter(Tensor(var), name="var")
        self.op = P.ApplyGradientDescent()

    def construct(self, alpha, delta, indices):
        u, _ = ops.unique(indices)
        return self.op(self.var, alpha, ops.gather(delta, u, 0))


def test_gathered_rows_update_a_parameter_of_as_many_rows():
    ms.set_context(mode=ms.GRAPH_MODE)
    var = np.arange(15, dtype=np.float32).reshape(3, 5) / 10
    delta = np.arange(20, 40, dtype=np.float32).reshape(4, 5)
    net = _GatherDescent(var)
    out = net(Tensor(np.float32(0.5)), Tensor(delta), Tensor(IDX))
    want = var - 0.5 * delta[ROWS]
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(net.var.asnumpy(), want, rtol=1e-6)
    # two distinct indices meet three rows: the shapes disagree when the graph runs
    with pytest.raises(RuntimeError, match=r"it must be 3 to combine it with a tensor of 3 rows"):
        net(Tensor(np.float32(0.5)), Tensor(delta), Tensor(np.array([1, 1, 0, 0, 1, 0], np.int32))).asnumpy()


def _rows_and_scatter(x, scatter_indices, updates, indices):
    u, _ = ops.unique(indices)
    rows = ops.gather(x, u, 0)
    return rows, ops.tensor_scatter_mul(rows, scatter_indices, updates)


def test_gathered_rows_returned_and_scattered_into():
    x = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    si = np.array([[0], [2]], np.int32)
    upd = np.full((2, 3, 2), 3.0, np.float32)
    rows, out = ms.jit(_rows_and_scatter)(Tensor(x), Tensor(si), Tensor(upd), Tensor(IDX))
    want = x[ROWS].copy()
    np.testing.assert_array_equal(rows.asnumpy(), want)
    want[[0, 2]] *= 3
    np.testing.assert_array_equal(out.asnumpy(), want)
    with pytest.raises(RuntimeError, match="TensorScatterMul.*an index is out of range"):
        ms.jit(_rows_and_scatter)(Tensor(x), Tensor(si), Tensor(upd), Tensor(np.array([1, 1, 0], np.int32)))[1].asnumpy()


class _SparseAdam(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = P.FusedSparseAdam()
        self.var = Parameter(Tensor(np.ones((3, 1, 2), np.float32)), name="var")
        self.m = Parameter(Tensor(np.ones((3, 1, 2), np.float32)), name="m")
        self.v = Parameter(Tensor(np.ones((3, 1, 2), np.float32)), name="v")

    def construct(self, grad, indices, picks):
        u, _ = ops.unique(picks)
        return self.op(self.var, self.m, self.v, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, ops.gather(grad, u, 0),
                       ops.gather(indices, u, 0))


def test_sparse_update_with_rows_of_run_time_length_equals_the_static_update():
    grad = np.array([[[0.1, 0.2]], [[0.3, 0.4]], [[0.5, 0.6]]], np.float32)
    indices = np.array([2, 0, 1], np.int32)
    picks = np.array([1, 1, 0], np.int32)                 # rows 1 and 0 of grad: indices 0 and 2
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _SparseAdam()
    net(Tensor(grad), Tensor(indices), Tensor(picks))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ref = _SparseAdam()
    ref.op(ref.var, ref.m, ref.v, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, Tensor(grad[[1, 0]]), Tensor(indices[[1, 0]]))
    for a, b in ((net.var, ref.var), (net.m, ref.m), (net.v, ref.v)):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    assert not np.allclose(net.var.asnumpy()[1], net.var.asnumpy()[0])   # row 1 (no index) moved less
