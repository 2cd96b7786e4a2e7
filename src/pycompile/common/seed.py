"""`set_seed` / `get_seed` (mindspore.common.seed): one call seeds weight initializers and the
data pipeline, as in MindSpore.

The data pipeline registers itself here when it is imported (common/ must not import it) and
reads a seed set before that import through get_seed().
"""
from __future__ import annotations

import numpy as np

from pycompile.common import initializer

_listeners = []


def set_seed(seed: int) -> None:
    initializer.set_seed(seed)
    # MindSpore's set_seed seeds NumPy's global generator too: layers that draw their initial
    # weights from it (nn.LSTM / GRU / RNN, as MindSpore's do) start from the same values
    np.random.seed(seed)
    for listener in _listeners:
        listener(seed)


def get_seed():
    return initializer.get_seed()


def add_seed_listener(listener) -> None:
    """`listener(seed)` runs on every later set_seed."""
    _listeners.append(listener)
