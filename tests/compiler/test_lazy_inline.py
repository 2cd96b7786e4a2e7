"""lazy_inline (issue 5): instances with equal cell_init_args share one compiled subgraph;
the spec's two usage limitations hold; results equal the inlined / PyNative ones."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, lazy_inline, nn, ops
from pycompile.common import lazy_inline as common_lazy_inline
from pycompile.compiler import ir


class Block(nn.Cell):
    @lazy_inline
    def __init__(self, d, scale=1.0):
        super().__init__()
        self.dense = nn.Dense(d, d)
        self.ln = nn.LayerNorm((d,))
        self.scale = scale
        self.x = 0

    def construct(self, h):
        if self.x == 0:
            return h + ops.relu(self.dense(self.ln(h))) * self.scale
        return h - self.dense(h)


class Stack(nn.Cell):
    def __init__(self, n, d, scales=None):
        super().__init__()
        scales = scales or [1.0] * n
        self.blocks = nn.CellList([Block(d, s) for s in scales])

    def construct(self, h):
        for b in self.blocks:
            h = b(h)
        return h


def _calls(report):
    return [n for n in ir.iter_nodes(report.graph_after.body) if n.op is ir.CALL]


def _run(net, x):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    out = net(x).asnumpy()
    return eager, out, ms.inspect(net, x)


def test_equal_init_args_share_one_subgraph_and_one_c_function():
    net = Stack(6, 8)
    x = Tensor(np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32))
    eager, out, report = _run(net, x)
    np.testing.assert_allclose(out, eager, rtol=1e-5, atol=1e-6)
    calls = _calls(report)
    assert len(calls) == 6
    assert len({id(c.attrs["graph"]) for c in calls}) == 1          # one subgraph
    assert report.c_source.count("static int sub") == 1              # one C function for the block
    assert "Call(" in report.ir_after and "subgraph @Block_construct(" in report.ir_after
    # each call passes its own instance's weights
    weights = {id(c.inputs[2]) for c in calls}
    assert len(weights) == 6


def test_node_counts_with_and_without(monkeypatch):
    x = Tensor(np.ones((2, 8), np.float32))
    shared = ms.inspect(Stack(8, 8), x)
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "0")
    inlined = ms.inspect(Stack(8, 8), x)
    assert not _calls(inlined)
    assert shared.nodes_before * 2 < inlined.nodes_before     # 8 copies vs one block + 8 calls
    assert shared.c_lines * 2 < inlined.c_lines


def test_different_init_args_get_different_subgraphs():
    net = Stack(4, 8, scales=[1.0, 2.0, 1.0, 2.0])
    x = Tensor(np.random.default_rng(1).standard_normal((2, 8)).astype(np.float32))
    eager, out, report = _run(net, x)
    np.testing.assert_allclose(out, eager, rtol=1e-5, atol=1e-6)
    calls = _calls(report)
    assert len(calls) == 4 and len({id(c.attrs["graph"]) for c in calls}) == 2
    assert net.blocks[0].cell_init_args == "Block(8, 1.0)"
    assert net.blocks[1].cell_init_args != net.blocks[0].cell_init_args


def test_limitation_attribute_changed_after_init_is_inlined_not_wrong():
    net = Stack(4, 8)
    net.blocks[0].x = 1                     # changes the structure of block 0 after __init__
    x = Tensor(np.random.default_rng(2).standard_normal((2, 8)).astype(np.float32))
    eager, out, report = _run(net, x)
    np.testing.assert_allclose(out, eager, rtol=1e-5, atol=1e-6)
    assert len(_calls(report)) == 3         # the other three still share the subgraph


@pytest.mark.parametrize("mode", [False, True])
def test_set_train_after_building_keeps_one_shared_block(mode):
    """set_train (either mode) is not an attribute change that breaks sharing: MindSpore keeps
    one subgraph; the blocks' mode is part of the subgraph's key."""
    net = Stack(4, 8)
    net.set_train(mode)
    x = Tensor(np.random.default_rng(4).standard_normal((2, 8)).astype(np.float32))
    eager, out, report = _run(net, x)
    np.testing.assert_allclose(out, eager, rtol=1e-5, atol=1e-6)
    calls = _calls(report)
    assert len(calls) == 4 and len({id(c.attrs["graph"]) for c in calls}) == 1
    assert report.c_source.count("static int sub") == 1


class Inner(nn.Cell):
    @common_lazy_inline
    def __init__(self, d):
        super().__init__()
        self.dense = nn.Dense(d, d)

    def construct(self, h):
        return ops.tanh(self.dense(h))


class Outer(nn.Cell):
    @lazy_inline(policy="front")
    def __init__(self, d):
        super().__init__()
        self.inner = nn.CellList([Inner(d) for _ in range(3)])

    def construct(self, h):
        for c in self.inner:
            h = c(h) + h
        return h


def test_limitation_only_the_outermost_is_a_subgraph():
    net = nn.SequentialCell([Outer(8) for _ in range(3)])
    x = Tensor(np.random.default_rng(3).standard_normal((2, 8)).astype(np.float32))
    eager, out, report = _run(net, x)
    np.testing.assert_allclose(out, eager, rtol=1e-5, atol=1e-6)
    calls = _calls(report)
    assert len(calls) == 3
    sub = calls[0].attrs["graph"]
    assert sub.name == "Outer_construct"
    assert not [n for n in ir.iter_nodes(sub.body) if n.op is ir.CALL]   # Inner is inlined there


def test_lazy_inline_checks_its_use():
    with pytest.raises(ValueError, match="policy"):
        lazy_inline(policy="back")
    with pytest.raises(TypeError, match="__init__"):
        lazy_inline(lambda self: None)


def test_parameters_updated_between_calls_are_seen():
    net = Stack(3, 4)
    x = Tensor(np.ones((1, 4), np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    before = net(x).asnumpy()
    net.blocks[1].dense.weight.set_data(Tensor(np.zeros((4, 4), np.float32)))
    after = net(x).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(after, net(x).asnumpy(), rtol=1e-5, atol=1e-6)
    assert not np.allclose(before, after)
