"""ops.operations._rl_inner_ops.GRUV2 (src/pycompile/nn/gru_primitive.py) against MindSpore 2.10's
CPU kernel: outputs of tests/oracle/gru_primitive_cases.py's cases recorded from the wheel
(tests/oracle/data/gru_primitive.json), in both modes; its argument errors word for word; and the
gradients (the wheel has none for it) against finite differences."""
import json
import os
import sys

import numpy as np
import pytest

import pycompile as ms
import pycompile.ops.operations._rl_inner_ops as rl_ops
from pycompile import Tensor, nn, ops

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))
import gru_primitive_cases as C  # noqa: E402

with open(os.path.join(HERE, "..", "oracle", "data", "gru_primitive.json")) as _f:
    REC = json.load(_f)


class _Net(nn.Cell):
    def __init__(self, prim):
        super().__init__()
        self.prim = prim

    def construct(self, x, h, w, lengths):
        return self.prim(x, h, w, lengths)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("k", range(len(C.CASES)))
def test_outputs_are_the_wheel_s(k, mode):
    ms.set_context(mode=mode)
    case, rec = C.CASES[k], REC["cases"][k]
    assert rec["case"] == list(case)
    args = [Tensor(a) for a in C.inputs(case, k)]
    y, hn, reserve, state = _Net(rl_ops.GRUV2(*case[:5], 0.0))(*args)
    assert [str(t.dtype) for t in (y, hn, reserve, state)] == rec["dtypes"]
    np.testing.assert_allclose(y.asnumpy(), rec["y"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hn.asnumpy(), rec["hn"], rtol=1e-5, atol=1e-6)
    assert reserve.shape == state.shape == (1, 1)


def _raise(name):
    x, h0, w, lengths = (Tensor(a) for a in C.inputs(C.CASES[0], 0))
    net = rl_ops.GRUV2(3, 2, 1, True, False, 0.0)
    base = dict(input_size=3, hidden_size=2, num_layers=1, has_bias=True, bidirectional=False, dropout=0.0)
    changes = {"input_size_zero": {"input_size": 0}, "hidden_size_float": {"hidden_size": 2.0},
               "dropout_int": {"dropout": 1}, "dropout_range": {"dropout": 1.5}, "has_bias_int": {"has_bias": 1},
               "bidirectional_none": {"bidirectional": None}}
    if name in changes:
        return lambda: rl_ops.GRUV2(**{**base, **changes[name]})
    return {"seq_lengths_int64": lambda: net(x, h0, w, Tensor(np.array([4, 4], np.int64))),
            "x_width": lambda: net(Tensor(np.ones((4, 2, 5), np.float32)), h0, w, lengths),
            "x_float64": lambda: net(Tensor(x.asnumpy().astype(np.float64)), h0, w, lengths)}[name]


@pytest.mark.parametrize("name", sorted(REC["errors"]))
def test_argument_errors_are_the_wheel_s(name):
    kind, message = REC["errors"][name]
    with pytest.raises(Exception) as info:
        _raise(name)()
    assert type(info.value).__name__ == kind
    assert str(info.value).splitlines()[0] == message


def test_a_short_weight_is_refused_not_read_past():
    x, h0, w, lengths = (Tensor(a) for a in C.inputs(C.CASES[0], 0))
    need = C.weight_count(C.CASES[0])
    with pytest.raises(ValueError, match=f"must hold {need} elements"):
        rl_ops.GRUV2(3, 2, 1, True, False, 0.0)(x, h0, w[:need - 1], lengths)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_gradients_match_finite_differences(mode):
    ms.set_context(mode=mode)
    case = C.CASES[1]                               # bidirectional, with bias
    x, h0, w, lengths = C.inputs(case, 1)
    prim = rl_ops.GRUV2(*case[:5], 0.0)
    probe = np.random.default_rng(7).standard_normal((case[5], case[6], 2 * case[1])).astype(np.float32)

    class Loss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.prim = prim

        def construct(self, a, b, c, s):
            y, hn, _, _ = self.prim(a, b, c, s)
            return (y * Tensor(probe)).sum() + (hn * hn).sum()

    loss = Loss()
    grads = ops.GradOperation(get_all=True)(loss)(Tensor(x), Tensor(h0), Tensor(w), Tensor(lengths))

    def f(a, b, c):
        return float(loss(Tensor(a), Tensor(b), Tensor(c), Tensor(lengths)).asnumpy())

    rng = np.random.default_rng(3)
    for pos, base in enumerate((x, h0, w)):
        for idx in [tuple(rng.integers(0, s) for s in base.shape) for _ in range(6)]:
            eps = 1e-2
            up, down = base.copy(), base.copy()
            up[idx] += eps
            down[idx] -= eps
            args_up = [up if j == pos else a for j, a in enumerate((x, h0, w))]
            args_down = [down if j == pos else a for j, a in enumerate((x, h0, w))]
            fd = (f(*args_up) - f(*args_down)) / (2 * eps)
            np.testing.assert_allclose(grads[pos].asnumpy()[idx], fd, rtol=2e-2, atol=2e-3, err_msg=f"{pos} {idx}")
