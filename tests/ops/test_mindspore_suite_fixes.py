"""Fixes found by MindSpore's own CPU op tests (tools/mindspore_suite.py): the Tensor methods and
primitives they call, checked against NumPy (or MindSpore's recorded answers) here so the default
suite keeps them."""
import json
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.ops import operations as P


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int64])
def test_tensor_bitwise_methods(name, dtype):
    x = np.array([0, 1, 5, 7, 100, 3]).astype(dtype)
    y = np.array([3, 1, 0, 2, 27, 1]).astype(dtype)
    out = getattr(Tensor(x), name)(Tensor(y))
    want = getattr(np, name)(x, y)
    assert out.dtype == ms.common.dtype.to_dtype(want.dtype) and np.array_equal(out.asnumpy(), want)


def test_identity_returns_a_new_tensor_in_pynative():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    out = P.Identity()(x)
    assert out is not x and np.array_equal(out.asnumpy(), x.asnumpy())


class _IdentityNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = P.Identity()

    def construct(self, x):
        return self.op(x) * 2


@pytest.mark.cc
def test_identity_in_a_graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(np.arange(4, dtype=np.int32))
    assert np.array_equal(_IdentityNet()(x).asnumpy(), np.arange(4) * 2)


class _Scan(nn.Cell):
    def __init__(self, op, axis):
        super().__init__()
        self.op, self.axis = op, axis

    def construct(self, x):
        return self.op(x, self.axis)


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", pytest.param("GRAPH_MODE", marks=pytest.mark.cc)])
@pytest.mark.parametrize("name, ref", [("CumSum", np.cumsum), ("CumProd", np.cumprod)])
def test_float16_scans_round_every_step(mode, name, ref):
    """MindSpore's CPU CumSum / CumProd on float16 round the running value to float16 at each
    step, as NumPy's float16 accumulate does (a float32 accumulator differs by 2 ulp here)."""
    ms.set_context(mode=getattr(ms, mode))
    x = (np.random.default_rng(0).random((2, 30, 3)) + 0.5).astype(np.float16)
    for axis in (0, 1, 2):
        out = _Scan(getattr(P, name)(), axis)(Tensor(x)).asnumpy()
        assert out.dtype == np.float16 and np.array_equal(out, ref(x, axis=axis))


_ORACLE = os.path.join(os.path.dirname(__file__), "..", "oracle", "data", "suite_fixes.json")


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", pytest.param("GRAPH_MODE", marks=pytest.mark.cc)])
@pytest.mark.parametrize("name", ["minimum", "maximum"])
def test_extremum_gradients_as_mindspore(mode, name):
    """A tie gives each input half of the gradient, a NaN on either side gives both all of it
    (MindSpore's MinimumGrad / MaximumGrad; recorded in data/suite_fixes.json)."""
    with open(_ORACLE) as f:
        data = json.load(f)["extremum_grad"]
    ms.set_context(mode=getattr(ms, mode))
    x, y, s = (Tensor(np.array(data["inputs"][k], np.float32)) for k in ("x", "y", "sens"))
    gx, gy = ops.GradOperation(get_all=True, sens_param=True)(getattr(ops, name))(x, y, s)
    want = data[f"{name}/{mode}"]
    np.testing.assert_array_equal(gx.asnumpy(), np.array(want[0], np.float32))
    np.testing.assert_array_equal(gy.asnumpy(), np.array(want[1], np.float32))


def test_float16_elementwise_eager_equals_compiled():
    """PyNative computes a float16 elementwise op in float32 and rounds once, as the generated C
    does (Mish's body rounded at each NumPy step was 1 ulp off in 28 % of MindSpore's mish cases)."""
    x = (np.random.default_rng(1).random(400) * 8 - 4).astype(np.float16)
    x32 = x.astype(np.float32)
    want = (x32 * np.tanh(np.log1p(np.exp(x32)))).astype(np.float16)
    assert np.array_equal(ops.mish(Tensor(x)).asnumpy(), want)


def _topk_unsorted(x):
    return ops.topk(x, 3, sorted=False), ops.TopK(False)(x, 5), x.topk(5, sorted=False)


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", pytest.param("GRAPH_MODE", marks=pytest.mark.cc)])
def test_topk_unsorted_keeps_index_order(mode):
    """sorted=False: the k elements in the order of their indices, so k = the whole axis gives
    the input back (MindSpore's test_topk_op.py checks exactly that)."""
    x = np.array([[0.3, 0.9, 0.1, 0.5, 0.7], [5, 1, 4, 2, 3]], np.float32)
    fn = ms.jit(_topk_unsorted) if mode == "GRAPH_MODE" else _topk_unsorted
    (v3, i3), (v5, i5), (t5, _) = fn(Tensor(x))
    np.testing.assert_array_equal(i3.asnumpy(), [[1, 3, 4], [0, 2, 4]])
    np.testing.assert_array_equal(v3.asnumpy(), np.take_along_axis(x, i3.asnumpy(), 1))
    np.testing.assert_array_equal(v5.asnumpy(), x)
    np.testing.assert_array_equal(t5.asnumpy(), x)
    np.testing.assert_array_equal(i5.asnumpy(), np.tile(np.arange(5), (2, 1)))


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", pytest.param("GRAPH_MODE", marks=pytest.mark.cc)])
def test_prelu_of_a_0d_input_is_0d(mode):
    """PReLU's output has x's shape; a one-element weight does not make a 0-d x 1-D, and its
    gradient keeps the weight's shape (test_prelu_op.py::test_prelu_single_weight_scalar)."""
    ms.set_context(mode=getattr(ms, mode))
    x, w = Tensor(np.array(-0.8, np.float32)), Tensor(np.array([0.6], np.float32))
    out = _PReLU()(x, w)
    dx, dw = ops.GradOperation(get_all=True)(_PReLU())(x, w)
    assert out.shape == () and dx.shape == () and dw.shape == (1,)
    np.testing.assert_allclose([out.asnumpy(), dx.asnumpy(), dw.asnumpy()[0]], [-0.48, 0.6, -0.8], rtol=1e-6)


class _PReLU(nn.Cell):
    def construct(self, x, w):
        return ops.prelu(x, w)


def test_strided_slice_takes_int_tensors_with_known_values():
    """begin / end / strides as 1-D int Tensors (MindSpore's test_stridedslice_op.py)."""
    x = np.arange(18, dtype=np.float32).reshape(3, 2, 3)
    out = ops.strided_slice(Tensor(x), Tensor(np.array([2, 0, 0], np.int32)), Tensor(np.array([3, 2, 3], np.int64)),
                            Tensor(np.array([1, 1, 2], np.int32)))
    np.testing.assert_array_equal(out.asnumpy(), x[2:3, 0:2, 0:3:2])


def _f16_draws(x, p):
    return ops.dropout(x, p=0.5), ops.multinomial(p, 64)


@pytest.mark.cc
def test_float16_random_probabilities_compiled_as_in_pynative():
    """Compiled Bernoulli / Multinomial read float16 probabilities as values, not as their bits
    (dropout of a float16 tensor in GRAPH_MODE kept every element, the same mask every call:
    test_dropout_op.py::test_net3). The compiled draws equal PyNative's for the same seed."""
    x = Tensor(np.ones((16, 32), np.float16))
    p = Tensor(np.array([[0.25, 0.75], [0.9, 0.1]], np.float16))
    ms.set_seed(7)
    want = [(d.asnumpy(), m.asnumpy()) for d, m in (_f16_draws(x, p), _f16_draws(x, p))]
    ms.set_seed(7)
    f = ms.jit(_f16_draws)
    got = [(d.asnumpy(), m.asnumpy()) for d, m in (f(x, p), f(x, p))]
    for (wd, wm), (gd, gm) in zip(want, got):
        np.testing.assert_array_equal(gd, wd)
        np.testing.assert_array_equal(gm, wm)
    assert 0.35 < (got[0][0] != 0).mean() < 0.65 and not np.array_equal(got[0][0], got[1][0])


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.int64])
def test_padding_and_nearest_resizing_of_int_and_bool_tensors(dtype):
    """Pad (constant, reflect, replicate, circular) and nearest resizing take int and bool
    tensors, as MindSpore's do (test_pad_op.py, test_mirror_pad.py, test_resize_nearest_neighbor_op.py)."""
    x = (np.arange(12).reshape(1, 1, 3, 4) % 5).astype(dtype)
    t = Tensor(x)
    np.testing.assert_array_equal(ops.Pad(((0, 0), (0, 0), (1, 0), (1, 1)))(t).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 0), (1, 1))))
    np.testing.assert_array_equal(ops.pad(t, (1, 2, 2, 1), mode="reflect").asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 2)), mode="reflect"))
    np.testing.assert_array_equal(ops.pad(t, (1, 1, 1, 1), mode="replicate").asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="edge"))
    np.testing.assert_array_equal(ops.pad(t, (1, 1, 0, 0), mode="circular").asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (0, 0), (1, 1)), mode="wrap"))
    if dtype is not np.bool_:
        out = ops.ResizeNearestNeighbor((6, 8))(t).asnumpy()
        np.testing.assert_array_equal(out, x.repeat(2, axis=2).repeat(2, axis=3))


class _MaskedSelect(nn.Cell):
    def construct(self, x, mask):
        return ops.masked_select(x, mask)


class _GradSens(nn.Cell):
    def __init__(self, net, sens_param):
        super().__init__()
        self.net, self.grad = net, ops.GradOperation(get_all=True, sens_param=sens_param)

    def construct(self, *args):
        return self.grad(self.net)(*args)


@pytest.mark.cc
def test_masked_select_gradient_in_graph_mode():
    """The gradient reaches the selected elements (it was silently zero in GRAPH_MODE: the
    masked_select result was not re-emitted with the forward; test_masked_select_op.py)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(np.array([1, 2, 3, 4], np.float32))
    mask = Tensor(np.array([[0], [1], [0], [1]], np.bool_))
    dy = Tensor(np.arange(8, dtype=np.float32))
    np.testing.assert_array_equal(_GradSens(_MaskedSelect(), True)(x, mask, dy)[0].asnumpy(), [4, 6, 8, 10])
    np.testing.assert_array_equal(_GradSens(_MaskedSelect(), False)(x, mask)[0].asnumpy(), [2, 2, 2, 2])
