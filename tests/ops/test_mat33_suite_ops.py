"""Ops MindSpore's CPU suite needed (issue 33, mat33), each against NumPy or the wheel's numbers:
a user PrimitiveWithInfer named 'QR' runs the wheel's QR kernel (test_qr_op); MatrixSolve on
complex tensors, `adjoint` the conjugate transpose (test_matrix_solve); Renorm on complex tensors
(test_renorm_op); Gather of a tensor's rows at Unique's run-time-length indices in graph mode,
then Lerp (test_lerp_op)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.ops import PrimitiveWithInfer, prim_attr_register
from pycompile.ops import operations as P
from pycompile.ops.operations.math_ops import Lerp


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


class QR(PrimitiveWithInfer):
    """As MindSpore's tests/st/ops/cpu/test_qr_op.py writes it."""

    @prim_attr_register
    def __init__(self, mode="full"):
        super().__init__(name="QR")
        self.mode = mode
        self.init_prim_io_names(inputs=["x"], outputs=["q", "r"])


class QRNet(nn.Cell):
    def __init__(self, mode):
        super().__init__()
        self.qr = QR(mode=mode)

    def construct(self, a):
        return self.qr(a)


@pytest.mark.parametrize("run_mode,qr_mode,np_mode", [(ms.PYNATIVE_MODE, "full", "complete"),
                                                      (ms.PYNATIVE_MODE, "economic", "reduced"),
                                                      (ms.GRAPH_MODE, "economic", "reduced")])
def test_user_qr_primitive_runs_the_wheels_kernel(run_mode, qr_mode, np_mode):
    a = np.random.default_rng(33).random((6, 4))
    ms.set_context(mode=run_mode)
    try:
        q, r = QRNet(qr_mode)(Tensor(a))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    want_q, want_r = np.linalg.qr(a, mode=np_mode)        # LAPACK's signs, as the wheel's (and scipy's)
    np.testing.assert_allclose(q.asnumpy(), want_q, atol=1e-10)
    np.testing.assert_allclose(r.asnumpy(), want_r, atol=1e-10)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_matrix_solve(dt):
    rng = np.random.default_rng(5)
    a = (rng.normal(size=(2, 4, 4)) + 1j * rng.normal(size=(2, 4, 4))).astype(dt)
    b = (rng.normal(size=(2, 4, 3)) + 1j * rng.normal(size=(2, 4, 3))).astype(dt)
    tol = 1e-4 if dt == np.complex64 else 1e-12
    x = ops.matrix_solve(Tensor(a), Tensor(b))
    assert x.dtype == (ms.complex64 if dt == np.complex64 else ms.complex128)
    np.testing.assert_allclose(x.asnumpy(), np.linalg.solve(a, b), rtol=tol, atol=tol)
    xa = ops.matrix_solve(Tensor(a), Tensor(b), True)
    np.testing.assert_allclose(xa.asnumpy(), np.linalg.solve(np.conj(np.swapaxes(a, -1, -2)), b), rtol=tol, atol=tol)


class ReNormNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.renorm = P.Renorm(2, 1, 5.0)

    def construct(self, x):
        return self.renorm(x)


def test_complex_renorm(mode):
    x = np.array([[1 + 2j, 2 + 3j], [3 + 4j, 4 + 5j]], np.complex64)
    # MindSpore 2.10's values (tests/st/ops/cpu/test_renorm_op.py, which the wheel passes)
    want = np.array([[0.91287088 + 1.82574177j, 1.36082768 + 2.04124165j],
                     [2.73861265 + 3.65148354j, 2.72165537 + 3.40206909j]], np.complex64)
    out = ReNormNet()(Tensor(x))
    assert out.dtype == ms.complex64
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)


class UniqueGatherLerp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.unique, self.gather, self.lerp = P.Unique(), P.Gather(), Lerp()

    def construct(self, start, end, weight, indices):
        u, _ = self.unique(indices)
        s, e = self.gather(start, u, 0), self.gather(end, u, 0)
        return s, self.lerp(s, e, weight)


def test_rows_gathered_at_unique_indices(mode):
    start = np.arange(4 * 3 * 2, dtype=np.float32).reshape(4, 3, 2)
    end = np.ones((4, 3, 2), np.float32)
    idx = np.array([3, 1, 3, 0], np.int32)
    rows, out = UniqueGatherLerp()(Tensor(start), Tensor(end), 0.25, Tensor(idx))
    np.testing.assert_array_equal(rows.asnumpy(), start[[3, 1, 0]])
    np.testing.assert_allclose(out.asnumpy(), start[[3, 1, 0]] + 0.25 * (end[[3, 1, 0]] - start[[3, 1, 0]]))
