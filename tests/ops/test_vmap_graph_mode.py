"""ops.vmap of graph code called from Python compiles, as MindSpore compiles it: a GRAPH_MODE Cell or a
@jit function vmapped at the top level runs as one compiled call (one compile for its signature, on
the `compiles` log channel), with the batched graph's result - the result of the same vmap inside @jit,
bit for bit."""
import logging

import numpy as np

import pycompile as ms
from pycompile import Tensor, nn, ops


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([[0.5, -1.0, 2.0]], np.float32).T), name="w")

    def construct(self, x):
        return ops.log_softmax(ops.matmul(x, self.w) * x, axis=0)


def _compiles(caplog, fn):
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="pycompile"):
        ms.set_context(log="compiles")
        try:
            out = fn()
        finally:
            ms.set_context(log="")
    return out, [r.getMessage() for r in caplog.records if "compiled" in r.getMessage()]


def test_a_graph_mode_cell_vmapped_from_python_is_compiled(caplog):
    x = Tensor(np.random.default_rng(0).standard_normal((4, 5, 3)).astype(np.float32))
    net = _Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        batched = ops.vmap(net, in_axes=0, out_axes=0)
        first, logged = _compiles(caplog, lambda: batched(x).asnumpy())
        second, again = _compiles(caplog, lambda: batched(x).asnumpy())
        inside = ms.jit(lambda v: ops.vmap(net, in_axes=0, out_axes=0)(v))(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert len(logged) == 1 and "vmap(_Net)" in logged[0] and again == []
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, inside)
    eager, none = _compiles(caplog, lambda: ops.vmap(net, in_axes=0, out_axes=0)(x).asnumpy())   # PyNative
    assert none == []
    np.testing.assert_allclose(eager, first, rtol=1e-6, atol=1e-6)
