"""What the conformance table (tests/conformance/cases_prim34.py) cannot check for the Primitives of
src/pycompile/ops/entries/prim34.py: CompareAndBitpack on bool inputs, where pycompile follows the
documentation (x > threshold, the first element the highest bit: NumPy's packbits) and the wheel
does not, and the error graph code gives for a Tensor size whose value it cannot know."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_compare_and_bitpack_packs_bools_as_documented(mode):
    x = np.random.default_rng(3).random((3, 4, 16)) > 0.5
    fn = lambda a, t: ops.CompareAndBitpack()(a, t)        # noqa: E731
    run = ms.jit(fn) if mode == "graph" else fn
    got = run(Tensor(x), Tensor(np.array(False))).asnumpy()
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, np.packbits(x, axis=-1))
    # threshold True: no bool is above it
    np.testing.assert_array_equal(run(Tensor(x), Tensor(np.array(True))).asnumpy(), np.zeros((3, 4, 2), np.uint8))


def test_a_size_tensor_known_only_at_run_time_is_refused_in_graph_code():
    x = Tensor(np.ones((1, 2, 4, 4, 4), np.float32))
    size = Tensor(np.array([2, 2, 2], np.int32))
    with pytest.raises(ValueError, match="'output_size' sets the output's shape"):
        ms.jit(lambda a, s: ops.AdaptiveMaxPool3D()(a, s))(x, size)
    out, idx = ops.AdaptiveMaxPool3D()(x, size)                       # PyNative: the value is known
    assert out.shape == (1, 2, 2, 2, 2) and idx.dtype == ms.int32
