"""ops.FloatStatus against NumPy (MindSpore 2.10's CPU wheel has no kernel for it: "Unsupported op
[FloatStatus] on CPU"; its documentation: [1.] float32 when the input holds NaN / +-inf, else
[0.]), eager and compiled, and its dtype error."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops


@pytest.mark.parametrize("compiled", [False, True])
def test_float_status(compiled):
    fs = ops.FloatStatus()
    run = ms.jit(lambda x: fs(x)) if compiled else fs
    for a, want in ((np.array([1.0, 2.0], np.float32), 0.0), (np.array([1.0, np.inf], np.float32), 1.0),
                    (np.array([[np.nan]], np.float16), 1.0), (np.array([-np.inf, 0.0]), 1.0),
                    (np.array([65504.0], np.float16), 0.0)):
        out = run(Tensor(a))
        assert out.dtype == ms.float32 and out.shape == (1,)
        np.testing.assert_array_equal(out.asnumpy(), [want])


def test_float_status_rejects_integers():
    with pytest.raises(TypeError, match="FloatStatus"):
        ops.FloatStatus()(Tensor(np.array([1, 2], np.int32)))
