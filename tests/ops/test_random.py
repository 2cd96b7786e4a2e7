"""The counter-based generator: Philox-4x32-10 against Random123's known-answer vectors, draws
that depend only on (seed, offset, index), seeds (ms.set_seed, per-op seeds), the state each
call advances, and PyNative and compiled code drawing the same numbers - also for two dropouts
in one graph (different masks), in a loop (a new mask per iteration) and in parallel kernels."""
from __future__ import annotations

import numpy as np
import pytest

from cnn_refs import philox

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.ops.defs import random as R
from pycompile.ops.function_random import RNG_STATE

# Random123 1.09, kat_vectors: philox4x32 10 <ctr x4> <key x2> <expected x4>
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("ctr, key, want", KAT)
def test_philox_known_answers(ctr, key, want):
    assert tuple(philox(ctr, key)) == want
    block, offset = ctr[0] | (ctr[1] << 32), ctr[2] | (ctr[3] << 32)
    words = R.philox_words(4 * block + 4, key[0] | (key[1] << 32), offset)[-4:] if block < 4 else None
    if words is not None:
        assert tuple(int(w) for w in words) == want


def test_words_depend_on_index_only():
    """A range drawn on its own equals the same range of a longer draw (threads may draw any
    block range independently)."""
    long = R.philox_words(1000, 99, 5)
    assert np.array_equal(R.philox_words(37, 99, 5), long[:37])
    assert not np.array_equal(R.philox_words(37, 99, 6), long[:37])


def test_set_seed_reproduces_and_calls_advance():
    ms.set_seed(11)
    a, b = ops.rand(4), ops.rand(4)
    ms.set_seed(11)
    a2, b2 = ops.rand(4), ops.rand(4)
    assert np.array_equal(a.asnumpy(), a2.asnumpy()) and np.array_equal(b.asnumpy(), b2.asnumpy())
    assert not np.array_equal(a.asnumpy(), b.asnumpy())
    ms.set_seed(12)
    assert not np.array_equal(ops.rand(4).asnumpy(), a.asnumpy())


def test_op_seed_is_reproducible_and_differs_from_the_global_stream():
    ms.set_seed(3)
    x = ops.randn(5, seed=7)
    ms.set_seed(3)
    assert np.array_equal(ops.randn(5, seed=7).asnumpy(), x.asnumpy())
    ms.set_seed(3)
    assert not np.array_equal(ops.randn(5).asnumpy(), x.asnumpy())


def test_distributions():
    ms.set_seed(0)
    u = ops.uniform((20000,), Tensor(-1.0, ms.float32), Tensor(3.0, ms.float32)).asnumpy()
    n = ops.normal((20000,), Tensor(2.0, ms.float32), Tensor(0.5, ms.float32)).asnumpy()
    i = ops.randint(3, 8, (20000,)).asnumpy()
    assert u.min() >= -1 and u.max() < 3 and abs(u.mean() - 1) < 0.03
    assert abs(n.mean() - 2) < 0.02 and abs(n.std() - 0.5) < 0.02
    assert set(np.unique(i)) == {3, 4, 5, 6, 7} and i.dtype == np.int64
    b = ops.bernoulli(Tensor(np.zeros(20000, np.float32)), 0.3).asnumpy()
    assert abs(b.mean() - 0.3) < 0.02 and set(np.unique(b)) == {0.0, 1.0}
    m = ops.multinomial(Tensor(np.array([0.1, 0.0, 0.9], np.float32)), 2000).asnumpy()
    assert 1 not in m and abs((m == 2).mean() - 0.9) < 0.03


def _graph_draws(x):
    a = ops.dropout(x, 0.5)
    b = ops.dropout(x, 0.5)
    acc = x * 0
    for _ in range(3):
        acc = acc + ops.dropout(x, 0.5)
    return a, b, acc, ops.randn(3, 4), ops.rand(100003)


def test_compiled_and_eager_draw_the_same_numbers():
    x = Tensor(np.ones((40, 30), np.float32))
    ms.set_seed(21)
    eager = _graph_draws(x)
    ms.set_seed(21)
    f = ms.jit(_graph_draws)
    compiled = f(x)
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(c.asnumpy(), e.asnumpy(), rtol=1e-6, atol=1e-7)
    a, b = compiled[0].asnumpy(), compiled[1].asnumpy()
    assert not np.array_equal(a, b), "two dropouts in one graph drew the same mask"
    assert set(np.unique(a)) == {0.0, 2.0}
    assert not np.all(np.isin(compiled[2].asnumpy(), (0.0, 6.0))), "a loop drew the same mask each iteration"
    again = f(x)
    assert not np.array_equal(again[0].asnumpy(), a), "the state did not advance between calls"
    assert int(RNG_STATE.asnumpy()[1]) == 14


def test_dropout_layers_train_in_graph_mode():
    net = nn.Dropout(p=0.25)
    net.set_train()
    x = Tensor(np.ones((64, 64), np.float32))
    ms.set_seed(5)
    eager = net(x).asnumpy()
    ms.set_seed(5)
    got = ms.jit(net.construct)(x).asnumpy()
    np.testing.assert_array_equal(got, eager)
    assert set(np.unique(got)) == {0.0, np.float32(1 / 0.75)} and 0.2 < (got == 0).mean() < 0.3
    d2 = nn.Dropout2d(p=0.5)
    d2.set_train()
    y = ms.jit(d2.construct)(Tensor(np.ones((4, 16, 3, 3), np.float32))).asnumpy()
    per_channel = y.reshape(4, 16, 9)
    assert np.all(per_channel.min(-1) == per_channel.max(-1)), "Dropout2d drops whole channels"
    net.set_train(False)
    assert np.array_equal(net(x).asnumpy(), x.asnumpy())
