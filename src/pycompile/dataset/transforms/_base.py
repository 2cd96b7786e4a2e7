"""What every data transform is: a callable on NumPy arrays (or pycompile Tensors), usable
eagerly (`op(image)`) or in `Dataset.map`.

Random transforms implement `_apply_random(rng, *arrays)`. Inside a pipeline, `map` passes the
pipeline's seeded generator; called eagerly they draw from a generator seeded by
`dataset.config.get_seed()` (re-seeded when the seed changes), so both are reproducible.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.tensor import Tensor

_eager = {"seed": None, "rng": None}


def as_array(x) -> np.ndarray:
    if isinstance(x, Tensor):
        return x.asnumpy()
    return np.asarray(x)


def eager_rng() -> np.random.Generator:
    from pycompile.dataset import config
    seed = config.get_seed()
    if _eager["seed"] != seed:
        _eager["seed"], _eager["rng"] = seed, np.random.default_rng(seed)
    return _eager["rng"]


class TensorOperation:
    """Base of deterministic transforms: subclasses define `_apply(*arrays)`."""

    def __call__(self, *inputs):
        return self._apply(*(as_array(x) for x in inputs))

    def _apply(self, *arrays):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class RandomOperation(TensorOperation):
    """Base of random transforms: subclasses define `_apply_random(rng, *arrays)`."""

    def __call__(self, *inputs):
        return self._apply_random(eager_rng(), *(as_array(x) for x in inputs))

    def _apply_random(self, rng, *arrays):
        raise NotImplementedError


def not_random(function):
    """Mark a Python function used in `map` as deterministic (MindSpore's decorator: it sets
    `function.random = False`, which its pipeline cache reads); the function is returned as is."""
    function.random = False
    return function
