"""A Cell's compiled calls are keyed by its own attribute version and its subtree's train / eval
modes and precisions (`Cell._graph_key`); the key is kept between calls while no Cell has changed
(cellbase.KEY_EPOCH). After every kind of change the kept key must be the walk's key, and compiled
calls must follow it. (A sub-Cell's plain attribute is not in the key: MindSpore 2.10 does not
recompile for it either - its compiled graph keeps the value it was built with.)"""
from __future__ import annotations

import numpy as np

import pycompile as ms
from pycompile import Tensor, nn


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 2.0

    def construct(self, x):
        return x * self.k if self.training else x


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.SequentialCell(Scale(), nn.ReLU())
        self.head = Scale()
        self.shift = 0.0

    def construct(self, x):
        return self.head(self.body(x)) + self.shift


def _walked(cell):
    """The key as the walk computes it (the kept one dropped)."""
    cell.__dict__.pop("_graph_key_kept", None)
    return cell._graph_key()


def _hook(cell, inputs):
    return None


def test_every_change_gives_the_walks_key():
    net = Net()
    # (change, whether the key moves)
    changes = [
        (lambda: net.body[0].set_train(True), True),
        (lambda: setattr(net.head, "k", 3.0), False),
        (lambda: setattr(net, "shift", 1.0), True),
        (lambda: net.body.insert_child_to_cell("extra", Scale()), True),
        (lambda: delattr(net.body, "extra"), True),
        (lambda: net.head.to_float(ms.float16), True),
        (lambda: net.body[1].register_forward_pre_hook(_hook), False),
        (lambda: net.set_train(False), True),
    ]
    before = net._graph_key()
    assert net._graph_key() == before
    assert "_graph_key_kept" in net.__dict__                # kept: no walk on the next call
    for i, (change, moves) in enumerate(changes):
        change()
        now = net._graph_key()
        assert now == _walked(net), f"change {i}"
        assert (now != before) == moves, f"change {i}"
        before = now


def test_compiled_calls_follow_the_key():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    x = Tensor(np.array([1.0, -1.0, 2.0], np.float32))
    np.testing.assert_array_equal(net(x).asnumpy(), [1.0, 0.0, 2.0])
    net.head.set_train(True)                               # a sub-Cell's mode: recompiles
    np.testing.assert_array_equal(net(x).asnumpy(), [2.0, 0.0, 4.0])
    net.shift = 1.0                                        # the called Cell's attribute: recompiles
    np.testing.assert_array_equal(net(x).asnumpy(), [3.0, 1.0, 5.0])
    net.body[0].set_train(True)
    np.testing.assert_array_equal(net(x).asnumpy(), [5.0, 1.0, 9.0])
    net.set_train(False)
    np.testing.assert_array_equal(net(x).asnumpy(), [2.0, 1.0, 3.0])
