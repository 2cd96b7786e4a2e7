"""One training step's per-Parameter gradients of small ShuffleNet-v2 and DenseNet networks
(channel shuffle, split, concat, depthwise and 1x1 / 3x3 convolutions, BatchNorm in training mode,
ReLU, max and average pooling) equal MindSpore 2.10's (tests/oracle/data/cnn_gradients.json,
recorded by tests/oracle/record_cnn_training.py gradients), in PyNative and compiled with ms.jit
(issue 31, item 7: a PyNative / graph difference is a defect whichever side MindSpore takes).
The nets and the recording are in tests/oracle/cnn_training_models.py (make_grad_nets); the
pieces there (one op kind each) bisect a difference in a whole net to an op.

The 32x32 DenseNet stem's compiled gradient differs from MindSpore's by 1.37e-3 of the largest
gradient, and it is float32 rounding at a ReLU's kink, not an op's backward (docs/RELIABILITY.md,
issue 31 item 7): the ReLU after body.10.bn1 sees, at one element fed by the average pooling's
output (4, 11, 5, 10), +6.3e-9 in float64; a float32 sum of the four pooled values lands 1 ulp
(7.5e-9) lower than the correctly rounded mean that NumPy (and MindSpore) compute, and the ReLU's
input becomes -2.1e-8, so that element's gradient is cut. With that one ulp given to PyNative
too, the two agree to 2e-5 (test_densenet_stem_compiled_gradients_are_mindsporess_across_one_kink)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import pycompile as ms
from pycompile.common import knobs

ORACLE = Path(__file__).resolve().parent.parent / "oracle"
sys.path.insert(0, str(ORACLE))
import cnn_training_models as M  # noqa: E402

RECORDED = json.loads((ORACLE / "data" / "cnn_gradients.json").read_text())["nets"]
NETS = M.make_grad_nets(ms)
# compiling these nets takes 10-150 s each: CI runs the PyNative checks, a soak
# (PYCOMPILE_FUZZ_EXAMPLES above its CI size of 300) the compiled ones and the larger nets too
SOAK = pytest.mark.skipif(knobs.get("PYCOMPILE_FUZZ_EXAMPLES") <= 300, reason="soak only: PYCOMPILE_FUZZ_EXAMPLES > 300")


def _check(name: str, compiled: bool, rtol: float = 2e-5):
    net, x, labels = NETS[name]
    want = RECORDED[name]
    loss, grads, gx = M.step_gradients(ms, net, x, labels, compiled)
    assert loss == pytest.approx(want["loss"], rel=1e-5)
    # errors are measured against the net's largest gradient: a BatchNorm beta followed by a conv
    # and a training-mode BatchNorm has a gradient of exactly 0 in exact arithmetic, rounding noise in both
    scale = max(max(abs(v) for v in h) for h in want["head"].values())
    for k, shape in want["shapes"].items():
        assert list(grads[k].shape) == shape, k
        if k in want["grads"]:
            np.testing.assert_allclose(grads[k].reshape(-1), want["grads"][k], rtol=0, atol=rtol * scale, err_msg=k)
        np.testing.assert_allclose(grads[k].reshape(-1)[:64], want["head"][k], rtol=0, atol=rtol * scale, err_msg=k)
        np.testing.assert_allclose(np.abs(grads[k]).astype(np.float64).sum(), want["l1"][k],
                                   rtol=rtol * 10, atol=rtol * scale, err_msg=k)
    np.testing.assert_allclose(np.abs(gx).astype(np.float64).sum(), want["x_grad_l1"], rtol=1e-5)


@pytest.mark.parametrize("name", ["shufflenet", "densenet"])
def test_one_step_gradients_in_pynative_equal_mindsporess(name):
    _check(name, False)


@SOAK
# densenet_stem has one ReLU input at its kink: test_densenet_stem_compiled_gradients_are_mindsporess_across_one_kink
@pytest.mark.parametrize("name", ["shufflenet", "densenet", "shufflenet_stem"])
def test_one_step_gradients_compiled_equal_mindsporess(name):
    _check(name, True)


@SOAK
@pytest.mark.parametrize("name", ["shufflenet_stem", "densenet_stem"])
def test_larger_nets_gradients_in_pynative_equal_mindsporess(name):
    _check(name, False)


# the DenseNet stem's average pooling output element whose ReLU input in body.10.bn1 is
# +6.3e-9 in float64 (and in MindSpore's and NumPy's float32), -2.1e-8 in the C kernels' float32
KINK = (4, 11, 5, 10)


def _one_ulp_down(ms_nn, pool):
    class OneUlpDown(ms_nn.Cell):
        """The pooling, then the KINK element moved 1 ulp down (as the C kernels round it): a
        constant added, so the gradient is the pooling's."""

        def __init__(self):
            super().__init__()
            self.pool = pool

        def construct(self, x):
            y = self.pool(x)
            v = y.asnumpy()
            d = np.zeros_like(v)
            d[KINK] = np.nextafter(v[KINK], -np.inf) - v[KINK]
            return y + ms.Tensor(d)
    return OneUlpDown()


def _gradients(net, name, compiled):
    _, x, labels = NETS[name]
    loss, grads, gx = M.step_gradients(ms, net, x, labels, compiled)
    return loss, {k: v.astype(np.float64) for k, v in grads.items()}, gx


@SOAK
def test_densenet_stem_compiled_gradients_are_mindsporess_across_one_kink():
    """Issue 31 item 7, settled as rounding: PyNative (the NumPy references, as MindSpore) with
    the one element 1 ulp lower moves MindSpore's gradient by 1.37e-3 of its largest value and
    then equals the compiled gradient to 2e-5, everywhere; and PyNative unchanged equals
    MindSpore (test_larger_nets_gradients_in_pynative_equal_mindsporess)."""
    name = "densenet_stem"
    want = RECORDED[name]
    scale = max(max(abs(v) for v in h) for h in want["head"].values())
    net = M.make_grad_nets(ms)[name][0]
    assert isinstance(net.body[7], ms.nn.AvgPool2d)
    _, compiled, cgx = _gradients(net, name, True)
    setattr(net.body, "7", _one_ulp_down(ms.nn, net.body[7]))
    _, moved, mgx = _gradients(net, name, False)
    for k, g in compiled.items():
        np.testing.assert_allclose(g, moved[k], rtol=0, atol=2e-5 * scale, err_msg=k)
    np.testing.assert_allclose(cgx, mgx, rtol=0, atol=2e-5 * np.abs(mgx).max())
    # that one ulp moves PyNative's gradient away from MindSpore's by 6.8e-4 of the scale
    # (body.0.conv2.weight's first 64 values; 1.37e-3 over the whole of body.6.weight), 30 times
    # the tolerance every other net passes with
    moved_by = max(np.abs(moved[k].reshape(-1)[:64] - np.array(h)).max() for k, h in want["head"].items()) / scale
    assert 5e-4 < moved_by < 2e-3, moved_by
