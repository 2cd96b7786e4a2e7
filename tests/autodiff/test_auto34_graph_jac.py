"""Jacobians through a tensor `if` in graph code, and grad of grad through a `while` whose trip
count is a run-time value, against central finite differences in float64 (issue 34).

MindSpore 2.10 refuses the first in every mode (its vmap meets the `if`), so there is no
recorded value: finite differences decide."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops

RNG = np.random.default_rng(34)
X = RNG.uniform(0.5, 1.5, (2, 3))
Y = RNG.uniform(-1.0, 1.0, (2, 3))


def fn_if(x, y):
    if x.sum() > 3.0:
        z = x * x * y
    else:
        z = ops.sin(x) + y * x
    return z * 2.0


def _jacrev(x, y):
    return ops.jacrev(fn_if, grad_position=(0, 1))(x, y)


def _jacfwd(x, y):
    return ops.jacfwd(fn_if, grad_position=(0, 1))(x, y)


class Wrap(nn.Cell):
    def __init__(self, body):
        super().__init__()
        self.body = body

    def construct(self, *args):
        return self.body(*args)


def fd_jacobian(f, args, eps=1e-6):
    """jac[i]: f's output shape + input i's shape, by central differences (f one output)."""
    def out(a):
        return f(*[Tensor(b) for b in a]).asnumpy().astype(np.float64)
    base = out(args)
    jac = [np.zeros(base.shape + a.shape) for a in args]
    for i, a in enumerate(args):
        for idx in np.ndindex(a.shape):
            hi, lo = [b.copy() for b in args], [b.copy() for b in args]
            hi[i][idx] += eps
            lo[i][idx] -= eps
            jac[i][(...,) + idx] = (out(hi) - out(lo)) / (2 * eps)
    return jac


def _run(mode, body, *args):
    if mode == "graph_cell":
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            return Wrap(body)(*args)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    return ms.jit(body)(*args)


@pytest.mark.parametrize("mode", ["graph_jit", "graph_cell"])
@pytest.mark.parametrize("body", [_jacrev, _jacfwd], ids=["jacrev", "jacfwd"])
@pytest.mark.parametrize("scale", [1.0, 0.1], ids=["then", "else"])
def test_jacobian_through_a_tensor_if_in_graph_code(mode, body, scale):
    x = X * scale
    assert (x.sum() > 3.0) == (scale == 1.0)
    got = _run(mode, body, Tensor(x), Tensor(Y))
    want = fd_jacobian(fn_if, [x, Y])
    for i in range(2):
        np.testing.assert_allclose(got[i].asnumpy(), want[i], rtol=1e-6, atol=1e-8)
