"""The wrong values issue 33 found through MindSpore's own CPU op tests, checked against the wheel's
recorded answers (tests/oracle/record_fix33.py -> tests/oracle/data/fix33.json):

* nn.LSTM: MindSpore's weight layout (the ParameterTuples w_ih_list / w_hh_list / b_ih_list /
  b_hh_list, which a user may replace), its initial draws from NumPy's generator, forward and
  gradients in both modes (test_lstm_op.py);
* ApplyAdagradV2 on Float64 / Float16 Parameters computes in float32 (test_apply_adagrad_v2_op.py);
* SparseToDense keeps the last of repeated indices, and Bool values get GatherNd gradients
  (test_sparse_to_dense_op.py);
* Mish on float16 equals the wheel bit for bit in PyNative (test_mish_op.py's float16 failure is
  its NumPy-2 benchmark, see docs/RELIABILITY.md).
"""
import json
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, ParameterTuple, Tensor, nn, ops
from pycompile.ops import composite as C
from pycompile.ops import functional as F
from pycompile.ops import operations as P

DATA = json.load(open(os.path.join(os.path.dirname(__file__), "..", "oracle", "data", "fix33.json")))
MODES = ["PYNATIVE_MODE", pytest.param("GRAPH_MODE", marks=pytest.mark.cc)]


def _f32(v):
    return np.array(v, np.float32)


class _LSTMNet(nn.Cell):
    def __init__(self, c):
        super().__init__()
        self.lstm = nn.LSTM(c["input_size"], c["hidden_size"], num_layers=c["num_layers"], has_bias=True,
                            batch_first=False, bidirectional=c["bidirectional"], dropout=0.0)

    def construct(self, inp, h, c):
        return self.lstm(inp, (h, c))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(DATA["lstm"]))
def test_lstm_seeded_forward_and_gradients(mode, name):
    c = DATA["lstm"][name]
    ms.set_context(mode=getattr(ms, mode))
    np.random.seed(c["seed"])
    net = _LSTMNet(c)
    assert [p.name for p in net.trainable_params()] == c["param_names"]
    for p in net.trainable_params():        # MindSpore's draws, in its order
        np.testing.assert_allclose(p.asnumpy().astype(np.float64).sum(), c["weights_sum"][p.name], rtol=1e-5)
    x, h0, c0 = (Tensor(_f32(c[k])) for k in ("x", "h0", "c0"))
    want = c[mode]
    y, (hy, cy) = net(x, h0, c0)
    for got, key in ((y, "out"), (hy, "hy"), (cy, "cy")):
        np.testing.assert_allclose(got.asnumpy(), _f32(want[key]), rtol=1e-4, atol=1e-5)
    grads = ops.GradOperation(get_all=True, get_by_list=True)(net, ParameterTuple(net.trainable_params()))(x, h0, c0)
    for got, exp in zip(grads[0], want["grad_inputs"]):
        np.testing.assert_allclose(got.asnumpy(), _f32(exp), rtol=1e-3, atol=1e-4)
    assert len(grads[1]) == len(want["grad_params"])
    for got, exp in zip(grads[1], want["grad_params"]):
        np.testing.assert_allclose(got.asnumpy(), _f32(exp), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("mode", MODES)
def test_lstm_weights_replaced_through_parameter_tuples(mode):
    """test_lstm_op.py assigns net.lstm.w_ih_list = ParameterTuple(...): the layer runs with them."""
    c = DATA["lstm"]["two_layers_bidirectional"]
    ms.set_context(mode=getattr(ms, mode))
    net = _LSTMNet(c)
    for k, arrays in c["replaced"].items():
        setattr(net.lstm, f"{k}_list",
                ParameterTuple([Parameter(Tensor(_f32(a)), name=f"{k}_{i}") for i, a in enumerate(arrays)]))
    y, (hy, cy) = net(*(Tensor(_f32(c[k])) for k in ("x", "h0", "c0")))
    for got, key in ((y, "out"), (hy, "hy"), (cy, "cy")):
        np.testing.assert_allclose(got.asnumpy(), _f32(c["replaced_out"][key]), rtol=1e-4, atol=1e-5)
    assert len(net.trainable_params()) == 4 * 4
    assert net.lstm.w_ih_0.shape == (16, 5)              # MindSpore's Cell reads a Parameter by name


class _Adagrad(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = P.ApplyAdagradV2(1e-6)

    def construct(self, var, accum, lr, grad):
        return self.op(var, accum, lr, grad)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("k", range(len(DATA["apply_adagrad_v2"]["cases"])))
def test_apply_adagrad_v2_computes_in_float32(mode, k):
    d = DATA["apply_adagrad_v2"]
    c = d["cases"][k]
    ms.set_context(mode=getattr(ms, mode))
    base = np.array(d["base"], c["var"])
    var, accum = Parameter(Tensor(base.copy()), name="var"), Parameter(Tensor(base.copy()), name="accum")
    args = (var, accum, Tensor(np.array(c["lr"], c["lr_dtype"])), Tensor(np.arange(9).reshape(3, 3).astype(c["grad_dtype"])))
    res = F.vmap(_Adagrad(), in_axes=(0, 0, 0, 0))(*args) if c["vmap"] else _Adagrad()(*args)
    want = c[mode]
    assert str(res[0].dtype) == want["dtype"]
    for got, key in ((res[0], "var"), (res[1], "accum")):
        # exact to float32 rounding: a float64 computation misses by ~1e-7 relative
        np.testing.assert_allclose(got.asnumpy().astype(np.float64), want[key], rtol=2e-8 if c["var"] != "float16" else 0,
                                   atol=0)


class _SparseToDense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = P.SparseToDense()

    def construct(self, i, v, s):
        return self.op(i, v, s)


class _Grad(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.grad = C.GradOperation(get_all=True, sens_param=True)
        self.net = net

    def construct(self, i, v, s, sens):
        return self.grad(self.net)(i, v, s, sens)


@pytest.mark.parametrize("mode, k", [("PYNATIVE_MODE", k) for k in range(len(DATA["sparse_to_dense"]["cases"]))] + [
    pytest.param("GRAPH_MODE", k, marks=pytest.mark.cc) for k in (0, 3, 6)])     # bool, int32, float32 compiled
def test_sparse_to_dense_last_value_and_gradients(mode, k):
    d = DATA["sparse_to_dense"]
    c = d["cases"][k]
    ms.set_context(mode=getattr(ms, mode))
    i = Tensor(np.array(d["indices"], np.int32))
    v = Tensor(np.array(d["values"]).astype(c["dtype"]))
    sens = Tensor(np.arange(9).reshape(3, 3).astype(c["dtype"]))
    dense = _SparseToDense()(i, v, tuple(d["shape"]))
    g = _Grad(_SparseToDense())(i, v, tuple(d["shape"]), sens)
    want = c[mode]
    assert str(dense.dtype) == want["dense_dtype"] and str(g[1].dtype) == want["grad_dtype"]
    assert dense.asnumpy().astype(np.float64).tolist() == want["dense"]
    assert g[1].asnumpy().astype(np.float64).tolist() == want["grad_values"]


class _Mish(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = P.Mish()

    def construct(self, x):
        return self.op(x)


@pytest.mark.parametrize("mode", MODES)
def test_mish_float16_is_the_wheels(mode):
    """Every float16 in (-1, 1): PyNative equals MindSpore bit for bit; compiled code (C's tanhf /
    log1pf against NumPy's) within one float16 ulp."""
    pos = np.arange(0, 0x3C00, dtype=np.uint16).view(np.float16)
    x = np.concatenate([pos, -pos[1:]])
    want = np.array(DATA["mish_float16"]["PYNATIVE_MODE"], np.uint16).view(np.float16)
    ms.set_context(mode=getattr(ms, mode))
    got = _Mish()(Tensor(x)).asnumpy()
    if mode == "PYNATIVE_MODE":
        assert np.array_equal(got.view(np.uint16), want.view(np.uint16))
    else:
        ulps = np.abs(got.view(np.uint16).astype(np.int32) - want.view(np.uint16).astype(np.int32))
        assert ulps.max() <= 1 and (ulps > 0).sum() <= 4
