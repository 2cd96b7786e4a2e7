"""ops.coalesce beyond the recorded cases (tests/conformance/cases_coalesce.py): random COO parts with
many duplicates against a NumPy reference, eagerly and compiled, and the index range check when the
indices are known only as the compiled program runs."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops


def _reference(idx, val, shape):
    """The places in row-major order, each with the sum of its entries (float64 sums)."""
    sums = {}
    for k in range(idx.shape[1]):
        place = tuple(int(i) for i in idx[:, k])
        sums[place] = sums.get(place, 0.0) + float(val[k])
    places = sorted(sums)               # tuples sort in row-major order
    return np.array(places, np.int64).T.reshape(len(shape), -1), np.array([sums[p] for p in places])


@ms.jit
def _compiled(i, v, s):
    return ops.coalesce(i, v, s)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_random_duplicates_match_numpy(seed, mode):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 4))))
    n = int(rng.integers(1, 40))
    idx = np.stack([rng.integers(0, d, size=n) for d in shape]).astype(np.int64)
    val = rng.standard_normal(n).astype(np.float32)
    fn = ops.coalesce if mode == "eager" else _compiled
    yi, yv, ys = fn(Tensor(idx), Tensor(val), Tensor(np.array(shape, np.int64)))
    want_i, want_v = _reference(idx, val, shape)
    np.testing.assert_array_equal(yi.asnumpy(), want_i)
    np.testing.assert_allclose(yv.asnumpy(), want_v, rtol=1e-5, atol=1e-5)
    assert yv.dtype == ms.float32 and yi.dtype == ms.int64
    np.testing.assert_array_equal(ys.asnumpy(), shape)


def test_an_index_past_the_shape_raises_when_the_compiled_program_runs():
    @ms.jit
    def shifted(i, v, s):
        return ops.coalesce(i + 1, v, s)        # the indices are known only as the program runs

    i = Tensor(np.array([[0, 2], [1, 1]], np.int64))
    v = Tensor(np.array([1.0, 2.0], np.float32))
    s = Tensor(np.array([3, 3], np.int64))
    with pytest.raises(ValueError, match="can not exceed the limit set by x_shape") as err:     # the wheel's class
        shifted(i, v, s)
    assert "test_coalesce.py" in str(err.value)
    out = shifted(i - 1, v, s)[1].asnumpy()    # in range: the same program runs
    np.testing.assert_array_equal(out, [1.0, 2.0])
