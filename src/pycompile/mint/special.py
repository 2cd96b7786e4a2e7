"""`mindspore.mint.special`: special functions, each the pycompile op that computes it."""
from __future__ import annotations

from pycompile import ops as _ops
from pycompile.mint.nn.functional import log_softmax  # noqa: F401  (input, dim=None, *, dtype=None)

erfc, exp2, expm1, log1p, sinc = _ops.erfc, _ops.exp2, _ops.expm1, _ops.log1p, _ops.sinc


def round(input):
    """Round half to even, as mint.special.round (no `decimals`)."""
    return _ops.round(input)


__all__ = ["erfc", "exp2", "expm1", "log1p", "log_softmax", "round", "sinc"]
