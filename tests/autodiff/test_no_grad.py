"""`ms._no_grad()` (MindSpore's PyNative context manager / decorator): ops inside it are not
recorded, so their results are constants to the gradient; a gradient taken inside raises
RuntimeError. The expected values and message are MindSpore 2.10's (run with the wheel: grad of
(2x)·x with 2x under _no_grad is 2x = [2, 4, 6]; with a decorated 3x it is [3, 6, 9])."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor

X = Tensor(np.array([1.0, 2.0, 3.0], np.float32))


def test_ops_inside_are_constants():
    def f(x):
        with ms._no_grad():
            y = x * 2
        return (y * x).sum()
    np.testing.assert_array_equal(ms.grad(f)(X).asnumpy(), [2, 4, 6])


def test_as_a_decorator_and_state_restored():
    @ms._no_grad()
    def h(x):
        return x * 3

    def k(x):
        return (h(x) * x).sum()
    np.testing.assert_array_equal(ms.grad(k)(X).asnumpy(), [3, 6, 9])
    np.testing.assert_array_equal(ms.grad(lambda x: (x * x).sum())(X).asnumpy(), [2, 4, 6])   # recorded again


def test_a_gradient_inside_raises():
    with ms._no_grad():
        with pytest.raises(RuntimeError, match="In no_grad context, you can not calculate gradient"):
            ms.grad(lambda x: (x * x).sum())(X)


def test_weights_read_inside_are_constants_too():
    w = ms.Parameter(Tensor(np.array([2.0, 2.0, 2.0], np.float32)), name="w")

    def f(x):
        with ms._no_grad():
            c = w * x
        return (c * w).sum()
    gx, gw = ms.grad(f, 0, [w])(X)
    np.testing.assert_array_equal(gx.asnumpy(), [0, 0, 0])
    np.testing.assert_array_equal(gw[0].asnumpy(), [2, 4, 6])       # d(c w)/dw with c constant = c
