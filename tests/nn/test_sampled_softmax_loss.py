"""nn.SampledSoftmaxLoss's `reduction`: MindSpore 2.10 returns the per-example losses whatever it
says (its construct never reduces); pycompile reduces as documented ('mean' / 'sum': a scalar),
checked here against the unreduced losses of the same seeded draw, in both modes. The unreduced
values themselves are the wheel's (tests/conformance/cases_prim34.py)."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn

W = np.random.default_rng(3).standard_normal((9, 6)).astype(np.float32)
B = np.random.default_rng(4).standard_normal(9).astype(np.float32)
LABELS = np.array([0, 3, 8, 3], np.int32)
LOGITS = np.random.default_rng(5).standard_normal((4, 6)).astype(np.float32)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_reduction_applies_to_the_per_example_losses(mode, reduction):
    ms.set_context(mode=mode)
    args = (Tensor(W), Tensor(B), Tensor(LABELS), Tensor(LOGITS))
    per_example = nn.SampledSoftmaxLoss(num_sampled=4, num_classes=9, seed=5)(*args).asnumpy()
    reduced = nn.SampledSoftmaxLoss(num_sampled=4, num_classes=9, seed=5, reduction=reduction)(*args).asnumpy()
    assert per_example.shape == (4,) and reduced.shape == ()
    want = per_example.mean() if reduction == "mean" else per_example.sum()
    np.testing.assert_allclose(reduced, want, rtol=1e-6)
