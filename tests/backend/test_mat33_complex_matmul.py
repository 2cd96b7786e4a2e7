"""Complex matrix products in graph mode (issue 33, mat33): MatMul / BatchMatMul on complex64 /
complex128 compile (kernels.gemm's plain loop in C99 complex arithmetic; BLAS takes real floats
only) and equal NumPy's product, transposes and broadcast batches included; their gradient is
MindSpore 2.10's (g @ conj(b)^T, conj(a)^T @ g), in graph mode and PyNative."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.ops.operations import nn_ops

RNG = np.random.default_rng(330)


def _c(shape, dt):
    return (RNG.uniform(-2, 2, shape) + 1j * RNG.uniform(-2, 2, shape)).astype(dt)


def products(a, b, c, d, e):
    return (ops.matmul(a, b), ops.MatMul(transpose_a=True)(b, b), ops.MatMul(transpose_b=True)(a, a),
            ops.BatchMatMul()(c, d), ops.BatchMatMul(transpose_a=True, transpose_b=True)(c, e),
            ops.matmul(c, b))


@pytest.mark.parametrize("dt", [np.complex64])     # (complex128 products: the Dense gradient test below)
def test_complex_products_compile_and_equal_numpy(dt):
    a, b = _c((3, 4), dt), _c((4, 5), dt)
    c, d, e = _c((2, 3, 4), dt), _c((1, 4, 2), dt), _c((2, 5, 3), dt)        # d's batch broadcasts
    want = (a @ b, b.T @ b, a @ a.T, c @ d, np.swapaxes(c, -1, -2) @ np.swapaxes(e, -1, -2), c @ b)
    got = ms.jit(products)(Tensor(a), Tensor(b), Tensor(c), Tensor(d), Tensor(e))
    tol = 1e-5 if dt == np.complex64 else 1e-12
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.asnumpy().dtype == dt, k
        np.testing.assert_allclose(g.asnumpy(), w, rtol=tol, atol=tol, err_msg=f"output {k}")


class _Dense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn_ops.Dense()

    def construct(self, x, w, b):
        return self.dense(x, w, b)


# MindSpore 2.10's values (its own tests/st/ops/cpu/test_dense_op.py, which the wheel passes):
# dx = dout @ conj(w), dw = dout^T @ conj(x), db = dout
X = np.array([[0.6 + 0.7j, 0.7 + 0.9j, 0.0 + 0.7j]])
W = np.array([[0.2 + 0.1j, 0.8 + 0.4j, 0.9 + 0.7j]])
B = np.array([-0.5 + 0.6j])
DOUT = np.array([[-1.3 - 0.1j]])
DX = np.array([[-0.27 + 0.11j, -1.08 + 0.44j, -1.24 + 0.82j]])
DW = np.array([[-0.85 + 0.85j, -1.0 + 1.1j, -0.07 + 0.91j]])


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_dense_gradient_is_mindspores(mode, dt):
    net = _Dense()
    grad = ops.GradOperation(get_all=True, sens_param=True)(net)
    ms.set_context(mode=mode)
    try:
        dx, dw, db = grad(*(Tensor(v.astype(dt)) for v in (X, W, B, DOUT)))
        out = net(*(Tensor(v.astype(dt)) for v in (X, W, B)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), X @ W.T + B, rtol=1e-5)
    np.testing.assert_allclose(dx.asnumpy(), DX, atol=1e-6)
    np.testing.assert_allclose(dw.asnumpy(), DW, atol=1e-6)
    np.testing.assert_allclose(db.asnumpy(), DOUT[0], atol=1e-6)
    assert dx.dtype == ms.complex64 if dt == np.complex64 else ms.complex128
