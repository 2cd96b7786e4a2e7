"""ops.mixed_precision_cast: what MindSpore's mixed-precision wrappers apply to a network's inputs
and outputs (the loss cell of build_train_network, the O2 / O3 output wrapper)."""
from __future__ import annotations

from pycompile.ops import _mixed

__all__ = ["mixed_precision_cast"]


def mixed_precision_cast(dst_type, input_x):
    """input_x with its float tensors cast to dst_type. Tuples and lists are searched (and come
    back as tuples, as in MindSpore 2.10); integer tensors, numbers and dicts are returned as they
    are."""
    if isinstance(input_x, (tuple, list)):
        return tuple(mixed_precision_cast(dst_type, x) for x in input_x)
    if isinstance(input_x, dict):
        return input_x
    return _mixed.cast_value(input_x, dst_type)
