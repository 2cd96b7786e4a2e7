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


def _mint_switches(x):
    F = ms.mint.nn.functional
    y = F.relu(x, inplace=False)                # a new tensor: x is kept
    for _ in range(2):
        F.hardtanh(x, -1.0, 0.25, inplace=True)
    F.threshold(x, -0.9, 5.0, inplace=True)
    F.silu(x, inplace=True)
    return x, y


def test_mint_functional_inplace_switch_writes_into_the_input():
    """mint.nn.functional's relu / relu6 / silu / elu / hardtanh / threshold / dropout(2d) with
    inplace=True write the result into the input (MindSpore documents it; its CPU wheel has no
    kernel: "The kernel InplaceReLU unregistered"); inplace=False leaves it. PyNative updates the
    caller's tensor; graph code rebinds the name, in loops too."""
    F = ms.mint.nn.functional
    x = Tensor(A.copy())
    assert F.relu(x, inplace=True) is x
    np.testing.assert_array_equal(x.asnumpy(), np.maximum(A, 0))
    x = Tensor(A.copy())
    assert F.elu(x, 0.5, inplace=True) is x and F.dropout(x, 0.5, training=False, inplace=True) is x
    np.testing.assert_allclose(x.asnumpy(), np.where(A > 0, A, 0.5 * np.expm1(A)), rtol=1e-6)
    clipped = np.clip(A, -1.0, 0.25)
    silu = lambda v: v / (1 + np.exp(-v))                       # noqa: E731
    want = silu(np.where(clipped > -0.9, clipped, 5.0))
    for run in (_mint_switches, ms.jit(_mint_switches)):
        x = Tensor(A.copy())
        got, kept = run(x)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
        np.testing.assert_array_equal(kept.asnumpy(), np.maximum(A, 0))
    x = Tensor(A.copy())
    assert ms.mint.nn.Threshold(0.0, 7.0, inplace=True)(x) is x
    np.testing.assert_array_equal(x.asnumpy(), np.where(A > 0, A, 7.0))
    x = Tensor(A.copy())
    ms.mint.nn.ReLU6()(x)                                       # inplace=False: untouched
    np.testing.assert_array_equal(x.asnumpy(), A)
