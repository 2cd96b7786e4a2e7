"""ops.ConfusionMatrix (src/pycompile/ops/entries/confusion_matrix.py) by MindSpore 2.10's documentation
(its CPU wheel has no kernel; the constructor's type errors are recorded in
tests/conformance/cases_no_kernel_prims.py): the docstring's example, weights, the dtype, graph mode, and
NumPy's count on random labels."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops


def _i32(v):
    return Tensor(np.array(v, np.int32))


def test_the_documented_example():
    out = ops.ConfusionMatrix(4)(_i32([0, 1, 1, 3]), _i32([1, 2, 1, 3]))
    assert out.dtype == ms.int32
    assert out.asnumpy().tolist() == [[0, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0], [0, 0, 0, 1]]


@pytest.mark.parametrize("compiled", [False, True])
def test_weighted_counts_against_numpy(compiled):
    rng = np.random.default_rng(4)
    lab, pred = rng.integers(0, 5, 200), rng.integers(0, 5, 200)
    w = rng.uniform(0, 2, 200)
    want = np.zeros((5, 5))
    np.add.at(want, (lab, pred), w)
    counts = np.zeros((5, 5), np.int64)
    np.add.at(counts, (lab, pred), 1)
    prim, prim64 = ops.ConfusionMatrix(5, "float64"), ops.ConfusionMatrix(5, "int64")

    def f(a, b, c):
        return prim(a, b, c), prim64(a, b)
    weighted, plain = (ms.jit(f) if compiled else f)(_i32(lab), Tensor(pred.astype(np.int64)), Tensor(w))
    assert weighted.dtype == ms.float64 and plain.dtype == ms.int64
    np.testing.assert_allclose(weighted.asnumpy(), want, rtol=1e-12)
    np.testing.assert_array_equal(plain.asnumpy(), counts)


def test_errors():
    with pytest.raises(TypeError, match="the type of 'num_classes' should be 'int', but got type 'float'"):
        ops.ConfusionMatrix(4.0)
    with pytest.raises(ValueError, match=r"every value of 'predictions' must be in \[0, 4\)"):
        ops.ConfusionMatrix(4)(_i32([0, 1]), _i32([1, 4]))
    with pytest.raises(ValueError, match="'num_classes' must be positive"):
        ops.ConfusionMatrix(0)(_i32([0]), _i32([0]))
    with pytest.raises(ValueError, match="must name a MindSpore dtype"):
        ops.ConfusionMatrix(2, "abc")(_i32([0]), _i32([0]))
    with pytest.raises(TypeError):
        ops.ConfusionMatrix(2)(Tensor(np.array([0.0], np.float32)), _i32([0]))
