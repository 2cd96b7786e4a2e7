"""ops.ROIAlign (ops/roi_align.py) against MindSpore 2.10's CPU kernel: outputs and the gradient
for the features of a weighted sum (ROIAlignGrad) recorded by tests/oracle/record_roi_align.py on
tests/oracle/roi_align_cases.py's cases, in PyNative and graph mode, and its errors. Row 3 of the
ROIs (x1 = x2 = 0) is not compared: the wheel's kernel skips it and leaves its output
uninitialized (documented in ops/roi_align.py)."""
import json
import os
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops

ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle")
sys.path.insert(0, ORACLE)
import roi_align_cases as C  # noqa: E402

with open(os.path.join(ORACLE, "data", "roi_align.json")) as _f:
    RECORDED = json.load(_f)
COMPARED = [0, 1, 2, 4, 5]


class Net(nn.Cell):
    def __init__(self, case, weights):
        super().__init__()
        ph, pw, scale, sample, mode, _ = case
        self.op = ops.ROIAlign(ph, pw, scale, sample, mode)
        self.weights = weights

    def construct(self, x, rois):
        return self.op(x, rois)


def _tol(dtype):
    return dict(rtol=2e-3, atol=2e-3) if dtype == "float16" else dict(rtol=1e-5, atol=1e-6)


# sample_num <= 0 sizes the grid by the data: PyNative only (its graph-mode error is tested below)
_RUNS = [(k, mode) for k in range(len(C.CASES)) for mode in ("pynative", "graph")
         if mode == "pynative" or C.CASES[k][3] > 0]


@pytest.mark.parametrize("k, mode", _RUNS, ids=lambda v: "-".join(map(str, C.CASES[v])) if isinstance(v, int) else v)
def test_values_and_feature_gradients_are_mindsporess(k, mode):
    case = C.CASES[k]
    rec = RECORDED["cases"][k]
    ph, pw, _, sample, _, dtype = case
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    x, rois, gw = C.inputs(k, dtype)
    weights = Tensor(gw[:, :, :ph, :pw].astype(dtype))
    net = Net(case, weights)
    y = net(Tensor(x), Tensor(rois)).asnumpy()
    want = np.array(rec["y"])
    np.testing.assert_allclose(y[COMPARED].astype(np.float64), want[COMPARED], **_tol(dtype))
    if sample <= 0:
        return

    if case[4] == 1:
        # MindSpore's ROIAlignGrad skips row 3 as its forward does: the gradient over the other rows
        rows = np.ascontiguousarray(rois[COMPARED])
        w = Tensor(np.ascontiguousarray(gw[COMPARED, :, :ph, :pw]).astype(dtype))
        grad = ms.grad(lambda a, r: (net(a, r) * w).sum())(Tensor(x), Tensor(rows)).asnumpy()
        np.testing.assert_allclose(grad.astype(np.float64), np.array(rec["grad"]), **_tol(dtype))
    else:
        # the wheel's ROIAlignGrad uses roi_end_mode 1's geometry whatever the mode (its kernel sets
        # roi_end_mode_ = 1), so it is not the forward's gradient; the forward is linear in x:
        # its gradient's directional derivatives are exact differences
        _check_directional_derivatives(net, x, rois, weights)


def _check_directional_derivatives(net, x, rois, weights):
    def f(a):
        return float((net(Tensor(a), Tensor(rois)) * weights).sum().asnumpy())
    grad = ms.grad(lambda a, r: (net(a, r) * weights).sum())(Tensor(x), Tensor(rois)).asnumpy()
    rng = np.random.default_rng(5)
    for _ in range(3):
        d = rng.standard_normal(x.shape).astype(np.float32)
        assert abs((f(x + d) - f(x - d)) / 2 - float((grad * d).sum())) < 1e-3


def test_the_rois_get_no_gradient():
    x, rois, _ = C.inputs(0, "float32")
    op = ops.ROIAlign(2, 2, 0.5)
    g = ms.grad(lambda a, r: op(a, r).sum(), grad_position=1)(Tensor(x), Tensor(rois))
    assert not g.asnumpy().any()


@pytest.mark.parametrize("name", sorted(RECORDED["errors"]))
def test_errors_are_mindsporess(name):
    calls = C.error_calls(ms)
    cls, msg = RECORDED["errors"][name]
    with pytest.raises(Exception) as info:
        calls[name]()
    assert type(info.value).__name__ == cls or cls in [c.__name__ for c in type(info.value).__mro__]
    assert str(info.value) == msg


def test_a_bad_batch_index_in_graph_code_is_an_error_when_it_runs():
    ms.set_context(mode=ms.GRAPH_MODE)
    x, _, _ = C.inputs(0, "float32")
    op = ops.ROIAlign(2, 2, 0.5)

    @ms.jit
    def f(a, r):
        return op(a, r)
    f(Tensor(x), Tensor(np.array([[1, 0, 0, 4, 4]], np.float32)))
    with pytest.raises(RuntimeError, match=r"image_index must be a number in \[0,1\]"):
        f(Tensor(x), Tensor(np.array([[2, 0, 0, 4, 4]], np.float32)))


def test_adaptive_grid_in_graph_code_says_pynative_only():
    x, rois, _ = C.inputs(0, "float32")
    op = ops.ROIAlign(2, 2, 0.5, 0)
    with pytest.raises(Exception, match="sample_num <= 0 .* PyNative only"):
        ms.jit(lambda a, r: op(a, r))(Tensor(x), Tensor(rois))
