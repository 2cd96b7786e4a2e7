"""The functional forms of in-place methods (ops.clamp_, tanh_, zero_, put_, inplace_sigmoid,
uniform_, normal_, exponential_, random_, bernoulli_): MindSpore 2.10 documents them as the
methods (its CPU wheel has no kernels for them: "The kernel InplaceClampScalar unregistered"), so
they are checked against NumPy: the input updated in place and returned in PyNative; in graph code
the name passed first rebound, through loops too; random fills keep shape, dtype and range."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

A = np.array([[-2.0, 0.5, 3.0], [0.25, -0.75, 1.5]], np.float32)


def _det(x):
    ops.clamp_(x, -1.0, 1.0)
    ops.tanh_(x)
    ops.put_(x, Tensor(np.array([0, 4], np.int64)), Tensor(np.array([9.0, -9.0], np.float32)))
    ops.inplace_sigmoid(x)
    return x


def _want():
    w = np.tanh(np.clip(A, -1, 1)).reshape(-1)
    w[[0, 4]] = [9.0, -9.0]
    return (1 / (1 + np.exp(-w))).reshape(A.shape)


def test_pynative_updates_the_input():
    x = Tensor(A.copy())
    assert ops.clamp_(x, -1.0, 1.0) is x
    np.testing.assert_array_equal(x.asnumpy(), np.clip(A, -1, 1))
    x = Tensor(A.copy())
    assert _det(x) is x
    np.testing.assert_allclose(x.asnumpy(), _want(), rtol=1e-6)
    assert ops.zero_(x) is x and not x.asnumpy().any()


def test_graph_code_rebinds_the_name_through_a_loop():
    @ms.jit
    def f(x):
        for _ in range(2):
            ops.tanh_(x)
        return _det(x)

    want = np.tanh(np.tanh(A))
    got = f(Tensor(A.copy())).asnumpy()
    w = np.tanh(np.clip(want, -1, 1)).reshape(-1)
    w[[0, 4]] = [9.0, -9.0]
    np.testing.assert_allclose(got, (1 / (1 + np.exp(-w))).reshape(A.shape), rtol=1e-6)


def test_random_fills():
    x = Tensor(np.zeros((200,), np.float32))
    assert ops.uniform_(x, 2.0, 3.0) is x
    v = x.asnumpy()
    assert v.min() >= 2.0 and v.max() < 3.0 and len(np.unique(v)) > 100
    ops.normal_(x, 5.0, 0.1)
    assert abs(x.asnumpy().mean() - 5.0) < 0.1
    ops.exponential_(x, 2.0)
    assert x.asnumpy().min() >= 0
    ops.bernoulli_(x, 0.5)
    assert set(np.unique(x.asnumpy())) == {0.0, 1.0}
    i = Tensor(np.zeros((100,), np.int32))
    ops.random_(i, 3, 7)
    assert set(np.unique(i.asnumpy())) <= {3, 4, 5, 6} and i.dtype == ms.int32


def test_an_attribute_receiver_in_graph_code_is_refused():
    class Holder:
        buf = Tensor(A.copy())

    h = Holder()

    @ms.jit
    def f(x):
        ops.tanh_(h.buf)
        return x

    with pytest.raises(Exception, match="cannot update it in graph code"):
        f(Tensor(A))
