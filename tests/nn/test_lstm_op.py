"""ops.LSTM, the primitive with one flat weight (nn/lstm_primitive.py): outputs and the gradients
of a weighted sum of them for x, h_0, c_0 and w equal MindSpore 2.10's (recorded by
tests/oracle/record_lstm_op.py on tests/oracle/lstm_op_cases.py's cases) in PyNative and graph
mode, the compiled results equal PyNative's, and its argument errors are the wheel's."""
import json
import os
import re
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops

ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle")
sys.path.insert(0, ORACLE)
import lstm_op_cases as C  # noqa: E402

with open(os.path.join(ORACLE, "data", "lstm_op.json")) as _f:
    RECORDED = json.load(_f)["cases"]


class Forward(nn.Cell):
    def __init__(self, case):
        super().__init__()
        i, h, layers, bias, bi, proj = case
        self.lstm = ops.LSTM(i, h, layers, bias, bi, 0.0, proj)

    def construct(self, x, h, c, w):
        return self.lstm(x, h, c, w)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("rec", RECORDED, ids=lambda r: "-".join(map(str, r["case"])))
def test_values_and_gradients_are_mindsporess(rec, mode):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    case = tuple(rec["case"])
    args = [Tensor(a) for a in C.inputs(case, rec["seed"])]
    y, hn, cn, reserve, state = Forward(case)(*args[:4])
    for got, key in ((y, "y"), (hn, "hn"), (cn, "cn")):
        np.testing.assert_allclose(got.asnumpy(), np.array(rec[key], np.float32), rtol=2e-5, atol=2e-6)
    assert reserve.shape == (1, 1) and state.shape == (1, 1)          # oneDNN's workspace there
    grads = ms.grad(C.loss_cell(ms, case), grad_position=(0, 1, 2, 3))(*args)
    for got, want in zip(grads, rec["grads"]):
        np.testing.assert_allclose(got.asnumpy().ravel(), np.array(want, np.float32), rtol=1e-4, atol=2e-5)


def test_compiled_equals_pynative_and_the_loop_is_one_loop():
    case = (4, 4, 1, True, True, 2)
    args = [Tensor(a) for a in C.inputs(case, 7)]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = Forward(case)(*args[:4])
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Forward(case)
    compiled = net(*args[:4])
    for a, b in zip(eager[:3], compiled[:3]):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-6)
    # each direction is one C loop over time (the two directions: two), not one copy per step
    assert len(re.findall(r"for \(int64_t \w+ = INT64_C\(", ms.inspect(net, *args[:4]).c_source)) == 2


@pytest.mark.parametrize("make, cls, msg", [
    (lambda t: ops.LSTM(3, 4, 1, True, False, 0.0)(t(3, 2, 3), t(2, 2, 4), t(1, 2, 4), t(112, 1, 1)), ValueError,
     "For primitive[LSTM], the h_shape: [2,2,4,] must be equal to [1,2,4,]"),
    (lambda t: ops.LSTM(3, 4, 1, True, False, 0.0)(t(3, 3), t(1, 2, 4), t(1, 2, 4), t(112, 1, 1)), ValueError,
     "For primitive[LSTM], the x_shape.size() must be equal to 3, but got 2."),
    (lambda t: ops.LSTM(3, 4, 1, True, False, 0.0)(t(3, 2, 5), t(1, 2, 4), t(1, 2, 4), t(112, 1, 1)), ValueError,
     "For primitive[LSTM], the x_shape[2] must be equal to 3, but got 5."),
    (lambda t: ops.LSTM(3, 4, 1, True, False, 0.0, 4), ValueError,
     "For 'LSTM', the 'proj_size' must be in range of [0, 4), but got 4 with type 'int'."),
    (lambda t: ops.LSTM(3, 0, 1, True, False, 0.0), ValueError,
     "For 'LSTM', the 'hidden_size' must be int and must > 0, but got '0' with type 'int'."),
    (lambda t: ops.LSTM(3, 4, 1, True, False, 1.5), ValueError,
     "For 'LSTM', the 'dropout' must be in range of [0, 1], but got 1.5 with type 'float'."),
    (lambda t: ops.LSTM(3, 4, 1, 1, False, 0.0), TypeError,
     "For 'LSTM', the type of 'has_bias' should be 'bool', but got type 'int'."),
    # the wheel reads past the end of a short w; here it is refused
    (lambda t: ops.LSTM(3, 4, 1, True, False, 0.0)(t(3, 2, 3), t(1, 2, 4), t(1, 2, 4), t(100, 1, 1)), ValueError,
     "the w must hold 128 elements"),
])
def test_errors(make, cls, msg):
    def t(*shape):
        return Tensor(np.zeros(shape, np.float32))
    with pytest.raises(cls) as info:
        make(t)
    assert msg in str(info.value)


def test_every_path_is_the_primitive():
    from pycompile.ops.operations.nn_ops import LSTM
    assert ms.ops.LSTM is LSTM is ms.ops.operations.LSTM
