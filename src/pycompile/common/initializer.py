"""mindspore.common.initializer: weight initializers, `set_seed`, and `initializer()`.

The initializers themselves live in `_initializers` (below Tensor, which uses them for
`Tensor(init=...)`); this module adds `initializer()`, which returns a Tensor.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common._initializers import (Constant, HeNormal, HeUniform, Initializer, Normal, One,  # noqa: F401
                                            TruncatedNormal, Uniform, XavierUniform, Zero, get_seed, init_array,
                                            rng, set_seed)
from pycompile.common.tensor import Tensor


def initializer(init, shape, dtype=mstype.float32) -> Tensor:
    """A Tensor of `shape` filled by `init`: an Initializer, its name ('normal', 'zeros',
    'he_uniform' ...), a number, or a Tensor (whose shape must match)."""
    return Tensor._wrap(init_array(init, shape, dtype))
