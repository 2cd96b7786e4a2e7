"""ms.Generator / ms.default_generator (ops/generator.py). Facts recorded from the MindSpore 2.10
wheel: manual_seed returns the generator (ms.manual_seed returns ms.default_generator), a freshly
seeded generator's get_state() is the UInt8 tensor [seed, 0 x 15], a non-int seed is
TypeError("Seed must be an integer."). The numbers drawn are pycompile's own generator's."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor


def _fill(g, n=6):
    return Tensor(np.zeros(n, np.float32)).uniform_(generator=g).asnumpy()


def test_generators_seeded_alike_draw_alike_and_leave_the_default_stream_alone():
    ms.manual_seed(42)
    before = ms.get_rng_state().asnumpy()
    a = _fill(ms.Generator().manual_seed(7))
    b = _fill(ms.Generator().manual_seed(7))
    c = _fill(ms.Generator().manual_seed(8))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    np.testing.assert_array_equal(ms.get_rng_state().asnumpy(), before)


def test_state_round_trip_and_mindspores_formats():
    g = ms.Generator()
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    state = g.get_state()
    assert state.dtype == ms.uint8 and state.asnumpy().tolist() == [5] + [0] * 15
    first = _fill(g)
    g.set_state(state)
    np.testing.assert_array_equal(_fill(g), first)
    assert ms.manual_seed(3) is ms.default_generator and ms.default_generator.initial_seed() == 3
    with pytest.raises(TypeError, match="Seed must be an integer."):
        g.manual_seed(1.5)
    with pytest.raises(TypeError, match="UInt8 Tensor of shape"):
        g.set_state(Tensor(np.zeros(3, np.int64)))
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s


def test_every_random_fill_takes_a_generator():
    g1, g2 = ms.Generator().manual_seed(1), ms.Generator().manual_seed(1)
    for name, args in (("normal_", ()), ("exponential_", (2.0,)), ("bernoulli_", (0.4,)), ("random_", (0, 9))):
        x = getattr(Tensor(np.zeros(8, np.float32)), name)(*args, generator=g1).asnumpy()
        y = getattr(Tensor(np.zeros(8, np.float32)), name)(*args, generator=g2).asnumpy()
        np.testing.assert_array_equal(x, y, err_msg=name)
    with pytest.raises(TypeError, match="'generator' must be a Generator"):
        Tensor(np.zeros(2, np.float32)).uniform_(generator=3)


_G = ms.Generator()


@ms.jit
def _compiled_fill(x):
    x.uniform_(generator=_G)
    return x


def test_compiled_draws_equal_eager_draws_and_advance_the_generator():
    _G.manual_seed(11)
    compiled = [_compiled_fill(Tensor(np.zeros(5, np.float32))).asnumpy() for _ in range(2)]
    _G.manual_seed(11)
    eager = [_fill(_G, 5) for _ in range(2)]
    np.testing.assert_array_equal(compiled, eager)
    assert not np.array_equal(compiled[0], compiled[1])
