"""Assigns computed in place (backend/c/memory.py Planner._inplace_assigns): an elementwise
update of a Parameter writes straight into its buffer, and load_elim's level 1 needs no copy of a
weight whose readers all come before its Assign. Every case is checked against PyNative; the
unsafe shapes of the pattern (the old value read after the kernel, the value read after a second
Assign, a transposed read) must still give PyNative's answer."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops


def _run_both(make, *args):
    outs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = make()
        out = net(*args)
        outs.append((out, {p.name: p.asnumpy().copy() for p in net.get_parameters()}, net))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return outs


def _assert_same(outs):
    (a, pa, _), (b, pb, _) = outs
    for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        np.testing.assert_allclose(y.asnumpy(), x.asnumpy(), rtol=1e-6)
    for k in pa:
        np.testing.assert_allclose(pb[k], pa[k], rtol=1e-6, err_msg=k)


W0 = np.arange(12, dtype=np.float32).reshape(3, 4) / 10


class Momentum(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(W0), name="w")
        self.m = Parameter(Tensor(np.ones((3, 4), np.float32)), name="m")

    def construct(self, x, g):
        y = ops.matmul(x, self.w)              # a reader of w that the update depends on
        m_new = self.m * 0.9 + g * ops.mean(y)
        w_new = self.w - 0.1 * m_new
        ops.assign(self.m, m_new)
        ops.assign(self.w, w_new)
        return y


def test_update_runs_in_place_and_matches_pynative():
    x = Tensor(np.ones((2, 3), np.float32))
    g = Tensor(np.full((3, 4), 0.5, np.float32))
    outs = _run_both(Momentum, x, g)
    _assert_same(outs)
    ms.set_context(mode=ms.GRAPH_MODE)
    report = ms.inspect(outs[1][2], x, g)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert "memcpy" not in report.c_source          # neither a load copy nor an Assign copy
    assert report.copied_bytes == 0


def test_a_reader_not_ordered_before_the_update_keeps_its_copy():
    # y does not feed the update: a schedule could run the matmul after the Assign, so level 1
    # keeps a copy of w (MindSpore's conservative default)
    class Net(Momentum):
        def construct(self, x, g):
            y = ops.matmul(x, self.w)
            ops.assign(self.w, self.w - 0.1 * g)
            return y

    x = Tensor(np.ones((2, 3), np.float32))
    g = Tensor(np.full((3, 4), 0.5, np.float32))
    outs = _run_both(Net, x, g)
    _assert_same(outs)
    ms.set_context(mode=ms.GRAPH_MODE)
    report = ms.inspect(outs[1][2], x, g)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert report.copied_bytes == W0.nbytes


class OldReadAfter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(W0), name="p")

    def construct(self, x):
        new = self.p * 2 + x
        later = ops.exp(new) + self.p          # reads the old p after the kernel computing new
        ops.assign(self.p, new)
        return later


class ValueAfterSecondAssign(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(W0), name="p")

    def construct(self, x):
        a = self.p + x
        ops.assign(self.p, a)
        ops.assign(self.p, a * 3)
        return a + 0


class TransposedRead(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.arange(16, dtype=np.float32).reshape(4, 4)), name="p")

    def construct(self, x):
        ops.assign(self.p, ops.transpose(self.p, (1, 0)) * x)
        return self.p + 0


class InLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(W0), name="p")

    def construct(self, x, n):
        for _ in range(n):
            ops.assign(self.p, self.p * 0.5 + x)
        return self.p * 1


class InBranch(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(W0), name="p")

    def construct(self, x):
        if x.sum() > 0:
            ops.assign(self.p, self.p - x)
        return self.p * 1


@pytest.mark.parametrize("make,args", [
    (OldReadAfter, (Tensor(np.ones((3, 4), np.float32)),)),
    (ValueAfterSecondAssign, (Tensor(np.ones((3, 4), np.float32)),)),
    (TransposedRead, (Tensor(np.full((4, 4), 2.0, np.float32)),)),
    (InLoop, (Tensor(np.ones((3, 4), np.float32)), 3)),
    (InBranch, (Tensor(np.ones((3, 4), np.float32)),)),
], ids=["old_read_after", "value_after_second_assign", "transposed_read", "in_loop", "in_branch"])
def test_unsafe_shapes_keep_pynative_results(make, args):
    _assert_same(_run_both(make, *args))
