"""mindspore.Layout and mindspore.shard (also mindspore.parallel's).

A Layout names the axes of a device matrix; called with one axis name (or a tuple of them, or "None")
per tensor dimension, it gives a Layout holding the tensor map (an axis index counted from the last,
-1 for "None"); `to_dict()` gives MindSpore's dictionary (recorded from the wheel:
tests/conformance/cases_layout_shard.py). pycompile runs on one device per process (data parallel
across processes: docs/guide/distributed.md), so a layout describes, it does not distribute.

`shard(fn, in_strategy, ...)` returns fn's calls unchanged: outside semi-auto / auto parallel (the
only modes MindSpore shards in) the wheel runs the function as it is, and pycompile, which has no
operator-level model parallelism, does so in every mode - the values are those of the unsharded
computation, which sharding does not change. Like the wheel, it checks none of its arguments when
called outside those modes.
"""
from __future__ import annotations

import copy
import functools
import math

_INTERLEAVED = "interleaved_parallel"


class Layout:
    """A device matrix with named axes (see the module's doc)."""

    def __init__(self, device_matrix, alias_name, rank_list=None):
        if not isinstance(device_matrix, tuple):
            raise TypeError(f"device_matrix must be tuple type, but got:{type(device_matrix)}")
        if not isinstance(alias_name, tuple):
            raise TypeError(f"alias_name must be tuple type, but got:{type(alias_name)}")
        if len(device_matrix) != len(alias_name):
            raise ValueError("device_matrix length should be equal to alias_name length")
        for d in device_matrix:
            if not isinstance(d, int):
                raise TypeError(f"The element of device_matrix must be int type, but got:{type(d)}")
        for a in alias_name:
            if not isinstance(a, str):
                raise TypeError(f"The element of alias_name must be str type, but got:{type(a)}")
            if not a:
                raise ValueError("The element of alias_name can not be empty.")
            if a == "None":
                raise ValueError("The element of alias_name can not set 'None', because 'None' means no sharding.")
        if len(set(alias_name)) != len(alias_name):
            raise ValueError(f"Each element of alias_name {alias_name} should be different")
        if _INTERLEAVED in alias_name and alias_name.index(_INTERLEAVED) != len(alias_name) - 1:
            raise ValueError(f"When alias_name {alias_name} contains keyword '{_INTERLEAVED}', it should be at the "
                             f"last dim of alias_name, which means the virtual sharding.")
        if rank_list is not None:
            if not isinstance(rank_list, list):
                raise TypeError(f"The rank_list should be a list, but got {type(rank_list).__name__}.")
            for r in rank_list:
                if not isinstance(r, int):
                    raise TypeError(f"The element of rank_list should be int, but got {type(r).__name__}.")
        self._device_shape = device_matrix
        self._alias_name = alias_name
        self._rank_list = list(rank_list) if rank_list is not None else list(range(math.prod(device_matrix)))
        self._tensor_map = None

    def _axis(self, name, used: list) -> int:
        if name == "None":
            return -1
        if name not in self._alias_name:
            raise ValueError(f"The axis {name} is not found in {self._alias_name}")
        if name in used:
            raise ValueError(f"The axis {name} has been set more than one in {self._alias_name}")
        used.append(name)
        return len(self._alias_name) - 1 - self._alias_name.index(name)

    def __call__(self, *tensor_map):
        used: list = []
        mapped = tuple(tuple(self._axis(a, used) for a in d) if isinstance(d, tuple) else self._axis(d, used)
                       for d in tensor_map)
        self._tensor_map = mapped         # MindSpore's call sets the map on the layout itself too
        return copy.deepcopy(self)

    def to_dict(self) -> dict:
        """{'device_matrix', 'tensor_map', 'interleaved_parallel', 'alias_name', 'rank_list'}."""
        if self._tensor_map is None:
            raise ValueError("The tensor_map of layout is None")
        return {"device_matrix": self._device_shape, "tensor_map": self._tensor_map,
                "interleaved_parallel": _INTERLEAVED in self._alias_name, "alias_name": self._alias_name,
                "rank_list": list(self._rank_list)}


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None):
    """fn, called as it is (see the module's doc): `in_strategy` / `out_strategy` (tuples of
    per-input strategies or Layouts) and `parameter_plan` are kept on the result, not applied."""
    @functools.wraps(fn if not hasattr(fn, "construct") else type(fn).construct)
    def sharded(*args, **kwargs):
        return fn(*args, **kwargs)
    sharded.in_strategy, sharded.out_strategy, sharded.parameter_plan = in_strategy, out_strategy, parameter_plan
    return sharded


__all__ = ["Layout", "shard"]
