"""PyNative on the compiled kernels for a test: the suite runs PyNative on the NumPy references
(tests/conftest.py), so a test of the kernels installs a kernel store and clears the cached plans,
and puts both back after."""
from __future__ import annotations

import contextlib

from pycompile.backend import eager
from pycompile.ops import _table


@contextlib.contextmanager
def kernels_installed(store=None):
    """Install `store` (the process's kernel store by default) as PyNative's; yield it."""
    saved = _table.EAGER_KERNELS[0]
    _table.EAGER_KERNELS[0] = eager.KERNELS if store is None else store
    _table._PLANS.clear()
    try:
        yield _table.EAGER_KERNELS[0]
    finally:
        _table.EAGER_KERNELS[0] = saved
        _table._PLANS.clear()
