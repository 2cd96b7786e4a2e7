"""One training step's per-Parameter gradients of small ShuffleNet-v2 and DenseNet networks
(channel shuffle, split, concat, depthwise and 1x1 / 3x3 convolutions, BatchNorm in training mode,
ReLU, max and average pooling) equal MindSpore 2.10's (tests/oracle/data/cnn_gradients.json,
recorded by tests/oracle/record_cnn_training.py gradients), in PyNative and compiled with ms.jit
(issue 31, item 7: a PyNative / graph difference is a defect whichever side MindSpore takes).
The nets and the recording are in tests/oracle/cnn_training_models.py (make_grad_nets); the
pieces there (one op kind each) bisect a difference in a whole net to an op."""
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
@pytest.mark.parametrize("name", ["shufflenet", "densenet", "shufflenet_stem", "densenet_stem"])
def test_one_step_gradients_compiled_equal_mindsporess(name):
    if name == "densenet_stem":
        pytest.xfail("issue 31 item 7, open: see test_densenet_stem_compiled_gradients_equal_mindsporess")
    _check(name, True)


@SOAK
@pytest.mark.parametrize("name", ["shufflenet_stem", "densenet_stem"])
def test_larger_nets_gradients_in_pynative_equal_mindsporess(name):
    _check(name, False)


@SOAK
@pytest.mark.xfail(strict=True, reason="issue 31 item 7, open: the compiled gradient of a dense layer "
                   "(bn-relu-1x1 conv-bn-relu-3x3 conv, concat) at 8x24x32x32 differs from PyNative's and "
                   "MindSpore's by up to 1.4e-3 of the largest gradient (not fusion: PYCOMPILE_OPT_LEVEL=1 "
                   "gives the same; not threads; not the concat; not at 16x16 or batch 2; dropping any one of bn1, the "
                   "1x1 conv or bn2 makes it agree)")
def test_densenet_stem_compiled_gradients_equal_mindsporess():
    _check("densenet_stem", True)
