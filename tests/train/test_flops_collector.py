"""FlopsUtilizationCollector and ms.flops_collection against MindSpore 2.10's CPU wheel: the FLOPs
line it prints for tests/oracle/flops_cases.py's networks trained by Model.train in GRAPH_MODE
(recorded: tests/oracle/data/flops.json), the step lines' form and cadence, its argument errors,
PyNative's refusal; and the two places pycompile counts differently, by their formulas."""
import contextlib
import io
import json
import os
import re
import sys

import numpy as np
import pytest

import pycompile as ms
import pycompile.dataset as ds
from pycompile import Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))
import flops_cases as C  # noqa: E402

with open(os.path.join(HERE, "..", "oracle", "data", "flops.json")) as _f:
    REC = json.load(_f)

STEP_LINE = re.compile(r"^Train per step time: +\d+\.\d{3} ms mfu:\d+\.\d{2}% hfu:\d+\.\d{2}%$")


def _train(name, epochs=1, data_size=2, batches=1):
    ms.set_context(mode=ms.GRAPH_MODE)
    build, sx, sy = C.networks(ms)[name]
    ms.set_seed(0)
    net = build()
    x, y = C.data((sx[0] * batches,) + sx[1:], (sy[0] * batches,) + sy[1:])
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(sx[0])
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.train(epochs, data, callbacks=[ms.train.FlopsUtilizationCollector(data_size, computility=1e9)],
                    dataset_sink_mode=False)
    return buf.getvalue().splitlines()


@pytest.mark.parametrize("name", ["mlp", "conv", "bmm", "frozen_first"])
def test_the_flops_line_is_the_wheel_s(name):
    lines = _train(name)
    assert lines[0] == REC["printed"][name][0]
    assert STEP_LINE.match(lines[1]) and STEP_LINE.match(REC["printed"][name][1])


def test_a_grouped_convolution_counts_its_own_multiply_adds():
    """MindSpore counts conv2 (4 -> 6 channels, 2 groups, 3x3, output 2 x 6 x 3 x 3) as ungrouped:
    its record equals the group=1 network's. pycompile counts input channels / groups: the three
    conv2 products (forward, input and filter gradients) at half the ungrouped cost."""
    conv2_ungrouped = 2 * (2 * 6 * 3 * 3) * (4 * 3 * 3)
    assert REC["printed"]["conv_grouped"][0] == REC["printed"]["conv"][0]
    full = float(re.search(r"Full model flops is ([\d.]+),", REC["printed"]["conv"][0]).group(1))
    want = full - 3 * conv2_ungrouped / 2
    assert _train("conv_grouped")[0].startswith(f"Full model flops is {want}, ")


def test_a_recurrent_loop_counts_every_step():
    """nn.RNN(4, 3) over 5 steps of a batch of 2, then Dense(3, 2): every step's two products and
    their gradients (the input one's data gradient not needed), as the wheel counts its unrolled
    loop - except the gradient flowing into the zero initial state, which the wheel drops and
    pycompile's backward loop computes (a 2 x 3 x 3 product: 36 FLOPs more)."""
    per_step_fwd, per_step_bwd = 2 * 2 * 4 * 3 + 2 * 2 * 3 * 3, (2 * 2 * 4 * 3) + 2 * (2 * 2 * 3 * 3)
    dense = 2 * 2 * 3 * 2
    ours = 5 * per_step_fwd + dense + 2 * dense + 5 * per_step_bwd
    assert _train("rnn")[0].startswith(f"Full model flops is {float(ours)}, ")
    assert REC["printed"]["rnn"][0].startswith(f"Full model flops is {float(ours - 2 * 2 * 3 * 3)}, ")


def test_step_lines_follow_mindspore_s_cadence():
    """A line after every step whose number data_size does not divide (MindSpore's rule)."""
    lines = _train("mlp", epochs=2, data_size=3, batches=4)       # steps 1..8: lines at 1, 2, 4, 5, 7, 8
    assert len(lines) == 1 + 6 and all(STEP_LINE.match(ln) for ln in lines[1:])


@pytest.mark.parametrize("name", sorted(REC["errors"]))
def test_argument_errors_are_the_wheel_s(name):
    kwargs = {"data_size_zero": {"data_size": 0}, "data_size_float": {"data_size": 1.5},
              "full_flops_int": {"data_size": 1, "full_flops": 1},
              "ma_str": {"data_size": 1, "enable_ma_collector": "no"}}[name]
    kind, message = REC["errors"][name]
    with pytest.raises(Exception) as info:
        ms.train.FlopsUtilizationCollector(**kwargs)
    assert type(info.value).__name__ == kind and str(info.value).splitlines()[0] == message


def test_pynative_is_refused_at_the_first_step():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = nn.Dense(3, 2)
    data = ds.NumpySlicesDataset({"x": np.ones((4, 3), np.float32), "y": np.ones((4, 2), np.float32)}).batch(2)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    with pytest.raises(ValueError, match="FlopsUtilizationCollector now only support graph mode."):
        model.train(1, data, callbacks=[ms.train.FlopsUtilizationCollector(1)], dataset_sink_mode=False)


def test_flops_collection_names_a_compiled_graph():
    """The wheel: a compiled Dense(2, 3) on one row answers 2 x 1 x 2 x 3 = 12 in all four places."""
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.Dense(2, 3)
    assert net.phase == "train" and not net.compiled
    with pytest.raises(AttributeError):
        net.current_phase
    net(Tensor(np.ones((1, 2), np.float32)))
    assert net.compiled
    assert ms.flops_collection(net.current_phase) == (12.0, 12.0, 12.0, 12.0, False)
    with pytest.raises(RuntimeError, match=r"The pointer\[graph\] is null."):
        ms.flops_collection("train.no-such-graph")
    assert net.set_train(False).phase == "predict"


def test_flash_attention_counts_its_two_products():
    """flash_attention_score is a decomposition here: its FLOPs are its two batched products, 2 x (2 B N S1
    S2 D) - MindSpore's count for FlashAttentionScore without a sparse mode."""
    ms.set_context(mode=ms.GRAPH_MODE)

    class Net(nn.Cell):
        def construct(self, q, k, v):
            return ms.ops.flash_attention_score(q, k, v, 2, scalar_value=0.3)
    net = Net()
    q, kv = Tensor(np.ones((1, 4, 16), np.float32)), Tensor(np.ones((1, 6, 16), np.float32))
    net(q, kv, kv)
    b, n, s1, s2, d = 1, 2, 4, 6, 8
    assert ms.flops_collection(net.current_phase)[0] == 2 * (2 * b * n * s1 * s2 * d)
