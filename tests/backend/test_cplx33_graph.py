"""complex64 / complex128 in graph mode (issue 33, cplx33): every complex C expression renders,
builds and loads (a misspelt GCC builtin would compile as an unknown function and fail only at
load), equals the PyNative result; data movement, sums and a threaded row reduction work; ops the
renderer has no complex code for are a CompileError at the user's line, never a crash."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

# the rows the compiled checks below run (tests/compiler/test_op_lowerings.py counts them)
COMPILED_OPS = {"Real", "Imag", "Conj", "ComplexAbs", "Angle", "Complex", "DFT"}

RNG = np.random.default_rng(33)
Z = (RNG.uniform(-2, 2, (3, 5)) + 1j * RNG.uniform(-2, 2, (3, 5))).astype(np.complex64)
W = (RNG.uniform(-2, 2, (3, 5)) + 1j * RNG.uniform(-2, 2, (3, 5))).astype(np.complex64)
F = RNG.uniform(0.5, 2, (3, 5)).astype(np.float32)


def every_complex_expression(z, w, f):
    c = ops.Complex()(f, f * 2)
    return (ops.exp(z), ops.log(z), ops.sqrt(z), ops.rsqrt(z), ops.sin(z), ops.cos(z), ops.tanh(z),
            ops.reciprocal(z), ops.sigmoid(z), ops.abs(z), ops.tan(z), ops.sinh(z), ops.cosh(z), ops.asin(z),
            ops.acos(z), ops.atan(z), ops.asinh(z), ops.acosh(z), ops.atanh(z), ops.log1p(z), ops.expm1(z),
            ops.log2(z), ops.real(z), ops.imag(z), ops.conj(z), ops.angle(z), ops.ComplexAbs()(z),
            ops.pow(z, w), z + w, z - w, z * w, z / w, -z, ops.square(z), z == w, ops.logical_not(z),
            ops.where(f > 1, z, w), ops.cast(z, ms.float32), ops.cast(z, ms.bool_), ops.cast(z, ms.int32),
            ops.cast(z, ms.float16), ops.cast(z, ms.complex128), ops.cast(f, ms.complex64), c,
            ops.sum(z * w, 1), ops.mean(z), ops.prod(z, 0), ops.addn([z, w, z]), ops.fft(z), ops.ifft2(w, norm="ortho"))


def _close(a, b, what):
    a, b = a.asnumpy(), b.asnumpy()
    assert a.dtype == b.dtype and a.shape == b.shape, what
    tol = 1e-3 if a.dtype == np.float16 else 1e-5
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=what)


def test_every_complex_expression_compiles_and_equals_pynative():
    args = (Tensor(Z), Tensor(W), Tensor(F))
    eager = every_complex_expression(*args)
    compiled = ms.jit(every_complex_expression)(*args)
    for k, (e, c) in enumerate(zip(eager, compiled)):
        _close(c, e, f"output {k}")


def movement(z):
    t = ops.transpose(z, (1, 0))
    return (ops.concat((z, z * 2), 1), ops.gather(z, Tensor(np.array([2, 0], np.int32)), 0), t[1:, ::2],
            ops.broadcast_to(z[:1], (4, 5)), ops.stack((z, z)), ops.pad(z, (1, 2)),
            ops.matrix_band_part(z, 0, 1), ops.reshape(t, (-1,)), ops.tile(z, (2, 1)))


def test_data_movement_complex128():
    z = Tensor(Z.astype(np.complex128) * (1 + 1e-9j))
    for e, c in zip(movement(z), ms.jit(movement)(z)):
        np.testing.assert_array_equal(c.asnumpy(), e.asnumpy())
        assert c.dtype == ms.complex128


def row_sums(z):
    return ops.sum(z * z + 1, 1, keepdim=True) - z


def test_threaded_row_reduction_with_complex_accumulator():
    # 64 rows run on the thread pool: the outlined loop captures `double _Complex *` pointers
    z = Tensor((np.arange(64 * 600).reshape(64, 600) % 5 * (0.5 - 0.25j)).astype(np.complex128))
    np.testing.assert_allclose(ms.jit(row_sums)(z).asnumpy(), row_sums(z).asnumpy(), rtol=1e-12)


def complex_cumsum(z):
    return ops.cumsum(z, 0)


def test_unrendered_complex_op_is_a_compile_error_at_the_users_line():
    # (matrix products render since mat33: tests/backend/test_mat33_complex_matmul.py)
    with pytest.raises(ms.CompileError) as info:
        ms.jit(complex_cumsum)(Tensor(Z))
    text = str(info.value)
    assert "test_cplx33_graph.py" in text and "return ops.cumsum(z, 0)" in text
    assert "'CumSum' on Complex64 tensors cannot be compiled" in text
    # PyNative computes it
    np.testing.assert_allclose(complex_cumsum(Tensor(Z)).asnumpy(), np.cumsum(Z, 0), rtol=1e-5)


def test_padding_cell_in_graph_mode():
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.padding = ops.Padding(4)

        def construct(self, x):
            return self.padding(x)

    x = Z[:, :1].copy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Net()(Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(out.asnumpy(), np.pad(x, ((0, 0), (0, 3))))


def print_complex(x):
    ops.Print()("x:", x, x[0])
    return x * 2


def test_graph_print_of_complex(capsys):
    # MindSpore 2.10 prints (recorded): the tensor as repr without commas, a 0-d value as C++'s
    # std::complex stream form
    ms.jit(print_complex)(Tensor(np.array([1 + 2j, -0.5j], np.complex64)))
    out = capsys.readouterr().out
    assert "x:\nTensor(shape=[2], dtype=Complex64, value=[1+2j -0-0.5j])\n(1,2)\n" in out
