"""Issue 33 (surface33): the Tensor methods built from ops compile (ms.jit) and equal PyNative."""
import numpy as np

import pycompile as ms
from pycompile import Tensor


def methods(x, idx, src, A, b, v):
    y = x.new_full((2, 2), 3.0)
    s = x.scatter_add(1, idx, src)
    sol, _ = b.triangular_solve(A, upper=False, transpose=True)
    u = x.inplace_update(v, (2, 0))
    e = x * 0.1
    e.erfinv_()
    return y, s, sol, u, e


def test_tensor_methods_compile_and_equal_pynative():
    rng = np.random.default_rng(1)
    args = (Tensor(rng.random((3, 4)).astype(np.float32)), Tensor(np.array([[0, 1], [3, 3], [2, 0]], np.int64)),
            Tensor(rng.random((3, 2)).astype(np.float32)),
            Tensor((np.tril(rng.random((3, 3))) + 2 * np.eye(3)).astype(np.float32)),
            Tensor(rng.random((3, 2)).astype(np.float32)), Tensor(rng.random((2, 4)).astype(np.float32)))
    eager = methods(*args)
    compiled = ms.jit(methods)(*args)
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(c.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)
