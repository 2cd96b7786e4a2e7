"""`ms.Generator` and `ms.default_generator`: random-number generators with their own state.

A Generator's state is an int64 Parameter (seed, offset, seeded flag) like the default one
(function_random.RNG_STATE, which `default_generator` wraps). Random ops draw from a Generator
inside `with generator.drawing():` (the in-place random Tensor methods do so for `generator=`):
each draw reads that state and advances its offset, eagerly and in graph code alike, so two
Generators seeded alike draw the same numbers and neither disturbs the default stream.

`get_state()` is MindSpore's 16-byte UInt8 tensor (seed and offset as little-endian int64);
`set_state` takes it back. The numbers drawn are pycompile's counter-based generator's
(ops/defs/random.py), not MindSpore's.
"""
from __future__ import annotations

import itertools
from contextlib import contextmanager

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.ops import function_random as FR
from pycompile.ops.defs import random as R

_IDS = itertools.count()


class Generator:
    """A random-number generator: `manual_seed(seed)` (returns itself), `seed()` (a fresh seed
    from the operating system, returned), `initial_seed()`, `get_state()` / `set_state(state)`."""

    def __init__(self, _state: Parameter | None = None):
        if _state is None:
            _state = Parameter(Tensor(np.array([R._entropy_seed(), 0, 0], np.int64)),
                               name=f"pycompile_generator_{next(_IDS)}", requires_grad=False)
        self._state = _state

    def manual_seed(self, seed):
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError("Seed must be an integer.")
        self._state.set_data(np.array([int(seed), 0, 1], np.int64))
        return self

    def seed(self):
        s = int(R._entropy_seed())
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return int(self._state.asnumpy()[0])

    def get_state(self):
        seed, offset, _ = self._state.asnumpy()
        return Tensor(np.array([seed, offset], "<i8").view(np.uint8).copy(), mstype.uint8)

    def set_state(self, state):
        arr = state.asnumpy() if isinstance(state, Tensor) else None
        if arr is None or arr.dtype != np.uint8 or arr.shape != (16,):
            raise TypeError("For 'Generator.set_state', the state must be the UInt8 Tensor of shape (16,) that "
                            f"get_state returns, but got {state!r}.")
        seed, offset = np.ascontiguousarray(arr).view("<i8")
        self._state.set_data(np.array([seed, offset, 1], np.int64))
        return self

    @contextmanager
    def drawing(self):
        """Random ops inside this block draw from this generator."""
        token = FR._DRAWING_FROM.set(self._state)
        try:
            yield self
        finally:
            FR._DRAWING_FROM.reset(token)


default_generator = Generator(FR.RNG_STATE)


def manual_seed(seed):
    """Seed the random ops' default generator (not the weight initializers: `ms.set_seed` seeds
    both). Returns the default generator (`ms.default_generator`), as MindSpore does."""
    FR.reseed(seed)
    return default_generator
