"""mindspore.common.initializer: weight initializers, `set_seed`, and `initializer()`.

The initializers themselves live in `_initializers` (below Tensor, which uses them for
`Tensor(init=...)`); this module adds `initializer()`, which returns a Tensor.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common._initializers import (Constant, HeNormal, HeUniform, Initializer, Normal, One,  # noqa: F401
                                            TruncatedNormal, Uniform, XavierUniform, Zero, get_seed, init_array,
                                            resolve, rng, set_seed)
from pycompile.common.tensor import Tensor


def initializer(init, shape, dtype=mstype.float32) -> Tensor:
    """A Tensor of `shape` filled by `init`: an Initializer, its name ('normal', 'zeros',
    'he_uniform' ...), a number, or a Tensor (whose shape must match: MindSpore then returns that
    Tensor itself, its dtype kept, whatever `dtype` says)."""
    if isinstance(init, Tensor):
        dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        if shape is not None and tuple(init.shape) != dims:
            raise ValueError(f"For 'initializer', the shape of the 'init' argument should be same as the argument "
                             f"'shape', but got the 'init' shape {list(init.shape)} and the 'shape' {list(dims)}.")
        return init
    init = resolve(init)
    t = Tensor._wrap(init_array(init, shape, dtype))
    t.__dict__["_pending_init"] = init      # MindSpore's `Tensor.init` (see Tensor.init_data)
    return t
