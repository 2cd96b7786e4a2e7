"""ops.conv_transpose2d with output_padding > 0 raised ValueError (its pads (p, p + op) failed the
shape check). The output_padding rows are the rows the bottom / right padding would crop (the
documented formula's, as torch and MindSpore's Ascend kernel compute it; the CPU wheel has no
kernel): checked against torch.nn.functional.conv_transpose2d's outputs recorded in
tests/ops/data/ (torch is not a dependency), eagerly and compiled. (nn.Conv2dTranspose keeps
MindSpore 2.10 CPU's own behaviour, zero rows appended: tests/conformance.)"""
import json
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

with open(os.path.join(os.path.dirname(__file__), "data", "conv_transpose2d_output_padding.json")) as _f:
    CASES = json.load(_f)["cases"]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_output_padding_equals_the_reference(k):
    c = CASES[k]
    x, w, want = (np.array(c[n], np.float32) for n in ("x", "w", "out"))

    def f(a, b):
        return ops.conv_transpose2d(a, b, stride=c["stride"], padding=c["padding"], output_padding=c["output_padding"],
                                    dilation=c["dilation"])
    for fn in (f, ms.jit(f)):
        got = fn(Tensor(x), Tensor(w)).asnumpy()
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
