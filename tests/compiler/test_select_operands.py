"""Select reads both operands whatever the condition (issue 31, items 2 and 3).

GCC 12.2 at -O3 vectorizes an element loop whose `cond ? x[j] : y` loads x only in one arm as a
masked load; where the loop runs once per short row (a driver over rows of 5 or 8 elements, as
a row-broadcast operand makes it) and GCC unrolls it, every unrolled copy used the FIRST row's
mask, so elements of later rows took the wrong operand. Forward selects, the gradient rules that
are selects (Elu, SeLU, ReLU, Abs, Select itself) and everything fused with them were silently
wrong: the compiled gradient of softmax(elu(a), 0) was 0 at some a > 0 (0.48 from finite
differences), that of abs(stack((select(ln(x) > 0, x, ln(x)), x), 2)) 1.9 off. The C renderer
of Select (pycompile/backend/c/ops/elementwise.py) now reads both operands into locals first.
Expected values come from NumPy formulas or central finite differences, never from pycompile."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.ops import prims as P
from pycompile.ops._table import apply


def _select_then_row_scale(c, x, y, w):
    return ops.select(c > 0, x, y + 1.0) * w


def test_select_of_rows_times_a_broadcast_row():
    rng = np.random.default_rng(1)
    for shape in ((6, 5), (5, 3), (3, 7), (2, 16), (4, 13)):
        c, x, y = (rng.standard_normal(shape) for _ in range(3))
        w = rng.standard_normal((1, shape[1]))
        got = ms.jit(_select_then_row_scale)(Tensor(c), Tensor(x), Tensor(y), Tensor(w)).asnumpy()
        np.testing.assert_allclose(got, np.where(c > 0, x, y + 1) * w, rtol=1e-15, atol=0, err_msg=str(shape))


def _finite_differences(f, a, r, h=1e-6):
    fd = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        ap, am = a.copy(), a.copy()
        ap[i] += h
        am[i] -= h
        fd[i] = (float(f(Tensor(ap), Tensor(r)).asnumpy()) - float(f(Tensor(am), Tensor(r)).asnumpy())) / (2 * h)
    return fd


def _softmax_axis0_of_elu(a, r):
    return (ops.expand_dims(ops.softmax(nn.ELU()(a), 0), -2) * r).sum()


def _softmax_axis0_of_selu(a, r):
    return (ops.expand_dims(ops.softmax(nn.SeLU()(a), 0), -2) * r).sum()


def _log_softmax_axis0_of_relu(a, r):
    return (ops.expand_dims(ops.log_softmax(apply(P.ReLU, [a]), 0), -2) * r).sum()


@pytest.mark.parametrize("f", [_softmax_axis0_of_elu, _softmax_axis0_of_selu, _log_softmax_axis0_of_relu])
def test_compiled_gradient_of_softmax_over_axis_0_of_an_activation(f):
    rng = np.random.default_rng(0)
    a = rng.uniform(-5, 5, (6, 5))
    r = rng.standard_normal((6, 3, 5))
    fd = _finite_differences(f, a, r)
    got = ms.jit(ms.grad(f, 0))(Tensor(a), Tensor(r)).asnumpy()
    np.testing.assert_allclose(got, fd, atol=1e-7)
    got32 = ms.jit(ms.grad(f, 0))(Tensor(a.astype(np.float32)), Tensor(r.astype(np.float32))).asnumpy()
    np.testing.assert_allclose(got32, fd, atol=2e-4)


def _abs_stack_select_layer_norm(x, r):
    y = nn.LayerNorm((x.shape[-1],))(x)
    return (ops.abs(ops.stack((ops.select(y > 0, x, y), x), 2)) * r).sum()


def test_compiled_gradient_of_a_select_between_an_input_and_its_layer_norm():
    rng = np.random.default_rng(0)
    x = rng.uniform(-5, 5, (8, 8))
    r = rng.standard_normal((8, 8, 2))
    fd = _finite_differences(_abs_stack_select_layer_norm, x, r)
    got = ms.jit(ms.grad(_abs_stack_select_layer_norm, 0))(Tensor(x), Tensor(r)).asnumpy()
    np.testing.assert_allclose(got, fd, atol=1e-7)
