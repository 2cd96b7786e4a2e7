"""MindSpore's CPU suite files of pool33 (issue 33): pooling with argmax and its gradients,
fractional pooling, Conv3DTranspose / Conv2DBackpropFilter, PadV3 / PadV3Grad, and graph code
compiling an argument by value when an op needs it. Each test fails on the main before it; the
expected values are the suite's own expectations or MindSpore 2.10's (recorded in
tests/conformance/cases_pool33.py and the comments below)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.ops.operations import _grad_ops as G
from pycompile.ops.operations import nn_ops


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_max_pool_with_argmax_indexes_each_sample_c_h_w():
    """The argmax counts over a sample's (C, H, W), TensorFlow's convention (the suite's
    test_maxpool_with_argmax_tensorflow: channel 1's indices start at 9)."""
    x = np.array([[[[80., 70., -19.], [14., 46., -67.], [15., -41., -80.]],
                   [[-80., 62., 85.], [-3., -68., 35.], [84., 54., 32.]]]], np.float32)
    out, arg = ops.MaxPoolWithArgmax(kernel_size=2, strides=1)(Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), [[[[80, 70], [46, 46]], [[62, 85], [84, 54]]]])
    np.testing.assert_array_equal(arg.asnumpy(), [[[[0, 1], [4, 4]], [[10, 11], [15, 16]]]])
    assert arg.dtype == ms.int32
    # the gradient routes through that index; the second-order one reads through it
    g = G.MaxPoolGradWithArgmax(kernel_size=2, strides=1)(Tensor(x), Tensor(np.ones((1, 2, 2, 2), np.float32)), arg)
    np.testing.assert_array_equal(g.asnumpy()[0, 1], [[0, 1, 1], [0, 0, 0], [1, 1, 0]])
    gg = G.MaxPoolGradGradWithArgmax(kernel_size=2, strides=1)(Tensor(x), Tensor(x * 10), arg)
    np.testing.assert_array_equal(gg.asnumpy(), out.asnumpy() * 10)


def test_max_pool_with_argmax_same_windows_are_the_wheels():
    """'same' windows start max(0, (k - s) // 2) before the input: the wheel gives row 0 of this
    6 x 5 input's kernel-3, stride-2 pooling the indices [5, 9, 9] (MaxPool's padding would read
    column 0 twice: [5, 12, 9])."""
    x = np.random.default_rng(0).uniform(-2, 2, (1, 2, 6, 5)).astype(np.float32)
    _, arg = ops.MaxPoolWithArgmax(kernel_size=3, strides=2, pad_mode="same")(Tensor(x))
    np.testing.assert_array_equal(arg.asnumpy()[0, 0], [[5, 9, 9], [16, 12, 14], [26, 27, 29]])


@pytest.mark.cc
def test_max_pool_grad_grad_and_v2_in_graph_mode(graph_mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.gg = G.MaxPoolGradGrad(kernel_size=3, strides=1, pad_mode="SAME")
            self.v2 = ops.MaxPoolWithArgmaxV2(kernel_size=2, strides=2)

        def construct(self, x, out, g):
            return self.gg(x, out, g), self.v2(x)

    data = np.arange(50, dtype=np.float32).reshape(2, 1, 5, 5)
    gg, (vals, arg) = Net()(Tensor(data), Tensor(data), Tensor(data / 10))
    # the suite's test_maxpool2d_grad_grad_fp32: each window's max is its bottom-right element
    expect = np.minimum(np.arange(5)[:, None] + 1, 4) * 5 + np.minimum(np.arange(5) + 1, 4)
    np.testing.assert_allclose(gg.asnumpy(), np.stack([expect, expect + 25])[:, None] / 10, rtol=1e-6)
    np.testing.assert_array_equal(arg.asnumpy()[0, 0], [[6, 8], [16, 18]])
    assert arg.dtype == ms.int64 and vals.shape == (2, 1, 2, 2)


def test_fractional_pooling_sequences_and_gradients():
    """The suite's test_fractionalmaxpool / avgpool expectations (a ratio that divides: no draw)."""
    x = Tensor(np.arange(1, 17, dtype=np.float32).reshape(1, 4, 4, 1))
    y, rows, cols = nn_ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0], overlapping=True)(x)
    np.testing.assert_array_equal(y.asnumpy().ravel(), [11, 12, 15, 16])
    np.testing.assert_array_equal(rows.asnumpy(), [0, 2, 4])
    g = G.FractionalMaxPoolGrad(overlapping=True)(x, y, ops.ones((1, 2, 2, 1), ms.float32), rows, cols)
    np.testing.assert_array_equal(g.asnumpy()[0, :, :, 0], [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
    a, _, _ = nn_ops.FractionalAvgPool([1.0, 1.5, 1.5, 1.0], overlapping=True)(Tensor(x.asnumpy().astype(np.int32)))
    np.testing.assert_array_equal(a.asnumpy().ravel(), [6, 7, 12, 13])      # int means truncate (6, 7.5, 12, 13.5)
    ga = G.FractionalAvgPoolGrad(overlapping=True)(Tensor(np.array([1, 4, 4, 1], np.int64)),
                                                   ops.ones((1, 2, 2, 1), ms.float32), rows, cols)
    np.testing.assert_allclose(ga.asnumpy()[0, 0, :, 0], [1 / 9, 1 / 9, 1 / 9 + 1 / 6, 1 / 6], rtol=1e-6)


def test_fractional_pooling_draws_valid_sequences():
    """A ratio that does not divide draws steps of k and k + 1 (seeded by seed / seed2)."""
    x = Tensor(np.random.default_rng(1).uniform(size=(1, 10, 7, 2)).astype(np.float32))
    for pseudo in (False, True):
        y, rows, cols = nn_ops.FractionalMaxPool([1.0, 1.4, 1.6, 1.0], pseudo_random=pseudo, seed=3)(x)
        assert y.shape == (1, 7, 4, 2)
        for seq, n in ((rows.asnumpy(), 10), (cols.asnumpy(), 7)):
            assert seq[0] == 0 and seq[-1] == n and set(np.diff(seq)) <= {n // (len(seq) - 1), n // (len(seq) - 1) + 1}


def test_conv3d_transpose_and_conv2d_backprop_filter():
    x = Tensor(np.arange(54, dtype=np.float32).reshape(1, 2, 3, 3, 3))
    out = ops.Conv3DTranspose(2, 2, 2, pad_mode="pad", pad=1)(x, Tensor(np.ones((2, 2, 2, 2, 2), np.float32)))
    assert out.shape == (1, 2, 2, 2, 2)
    assert out.asnumpy()[0, 0, 0, 0].tolist() == [320, 336]          # the suite's test_conv3d_transpose
    dy = np.array([[[[-5, -4, 0, 8], [-10, -2, 2, 3], [0, -2, -4, -7], [-3, -2, -3, -16]]]], np.float32)
    xx = np.array([[[[3, 0, 1, 2, 7, 4], [1, 5, 8, 9, 3, 1], [2, 7, 2, 5, 1, 3], [0, 1, 3, 1, 7, 8],
                     [4, 2, 1, 6, 2, 8], [2, 4, 5, 2, 3, 9]]]], np.float32)
    dw = G.Conv2DBackpropFilter(4, 1)(Tensor(dy), Tensor(xx), (1, 1, 3, 3))
    np.testing.assert_array_equal(dw.asnumpy()[0, 0], [[-60, -142, -265], [-104, -211, -322], [-102, -144, -248]])


def test_pad_circular_crops_before_it_wraps():
    """MindSpore 2.10: ops.pad / PadV3 'circular' with (1, -1) of [0, 1, 2, 3, 4] is [3, 0, 1, 2, 3]."""
    x = Tensor(np.arange(5, dtype=np.float32).reshape(1, 1, 5))
    np.testing.assert_array_equal(ops.pad(x, (1, -1), mode="circular").asnumpy().ravel(), [3, 0, 1, 2, 3])
    p = Tensor(np.array([1, -1], np.int64))
    np.testing.assert_array_equal(nn_ops.PadV3("circular")(x, p).asnumpy().ravel(), [3, 0, 1, 2, 3])


class _PadGrad(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = G.PadV3Grad("circular")

    def construct(self, x, paddings):
        return self.op(x, paddings)


class _PadGradComputed(_PadGrad):
    def construct(self, x, paddings):
        return self.op(x, paddings + 1)


@pytest.mark.cc
def test_graph_compiles_an_argument_by_value_when_an_op_needs_it(graph_mode):
    """PadV3Grad's paddings as a Tensor argument of graph code: compiled with its value (one
    specialization per value), as the suite's test_padv3grad_circular_* call it."""
    net = _PadGrad()
    x = Tensor(np.arange(18, dtype=np.float32).reshape(1, 1, 3, 6))
    out = net(x, Tensor(np.array([1, 2, 1, 0], np.int64)))
    np.testing.assert_array_equal(out.asnumpy(), [[[[17, 19, 15], [34, 38, 30]]]])
    out = net(x, Tensor(np.array([1, 1, 0, 1], np.int64)))          # another value: another graph
    np.testing.assert_array_equal(out.asnumpy(), [[[[36, 16, 18, 32], [18, 8, 9, 16]]]])    # the wheel's
    p = Tensor(np.array([1, 2, 1, 0], np.int64))                   # the first one again
    np.testing.assert_array_equal(net(x, p).asnumpy(), [[[[17, 19, 15], [34, 38, 30]]]])
    p.assign_value(Tensor(np.array([1, 1, 0, 1], np.int64)))        # changed in place: its new value counts
    np.testing.assert_array_equal(net(x, p).asnumpy(), [[[[36, 16, 18, 32], [18, 8, 9, 16]]]])
    np.testing.assert_array_equal(net(x, Tensor(np.array([1, 2, 1, 0], np.int64))).asnumpy(),
                                  [[[[17, 19, 15], [34, 38, 30]]]])


@pytest.mark.cc
def test_a_value_computed_in_the_graph_is_an_error_at_the_users_line(graph_mode):
    with pytest.raises(ValueError, match=r"test_pool33_suite.py:\d+:\d+: For 'PadV3Grad', the values of 'paddings' "
                                         r"must be known when the graph is compiled"):
        _PadGradComputed()(Tensor(np.ones((1, 1, 3, 6), np.float32)), Tensor(np.array([0, 1, 0, 0], np.int64)))
