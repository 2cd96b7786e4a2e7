"""Parameter (a named, trainable Tensor whose buffer is shared by PyNative and compiled code)
and ParameterTuple."""
from __future__ import annotations

import numpy as np

from pycompile.common.tensor import Tensor


class Parameter(Tensor):
    """A Tensor owned by a Cell. Its NumPy buffer is the one compiled executables read and
    `ops.assign` writes, in place: there is no copy-in / copy-out per call.

    `name` defaults to None and is set from the attribute name when assigned to a Cell;
    Cells prefix it with their attribute path ("fc.weight")."""

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        from pycompile.common.initializer import Initializer, initializer
        if isinstance(default_input, Initializer):
            raise TypeError("Parameter needs data; use initializer(init, shape, dtype)")
        if isinstance(default_input, Tensor):
            data = default_input._data
        elif isinstance(default_input, (int, float, bool, list, tuple, np.ndarray, np.generic)):
            data = Tensor(default_input)._data
        else:
            raise TypeError(f"Parameter data must be a Tensor, number or array, got {type(default_input).__name__}")
        del initializer
        self._data = np.array(data, copy=True, order="C")
        self.name = name
        self.requires_grad = requires_grad
        self._explicit_name = name is not None

    def set_data(self, data, slice_shape=False) -> "Parameter":
        """Replace the value. Same shape and dtype: written into the existing buffer, so compiled
        code keeps reading the live value; otherwise the buffer is replaced."""
        arr = data._data if isinstance(data, Tensor) else np.asarray(data)
        if arr.shape == self._data.shape:
            self._data[...] = arr
        else:
            self._data = np.array(arr, dtype=self._data.dtype, copy=True, order="C")
        return self

    def clone(self, init="same") -> "Parameter":
        """A new Parameter with a copy of the data (or `init` applied) and the same name."""
        if init == "same":
            data = Tensor._wrap(self._data.copy())
        else:
            from pycompile.common.initializer import initializer
            data = initializer(init, self.shape, self.dtype)
        p = Parameter(data, name=self.name, requires_grad=self.requires_grad)
        return p

    @property
    def data(self) -> "Parameter":
        return self

    def value(self) -> Tensor:
        return Tensor._wrap(self._data.copy())

    def __repr__(self) -> str:
        return (f"Parameter (name={self.name}, shape={tuple(self.shape)}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__

    def __reduce__(self):
        return (_rebuild_parameter, (self._data, self.name, self.requires_grad))


def _rebuild_parameter(data, name, requires_grad):
    return Parameter(Tensor._wrap(data), name=name, requires_grad=requires_grad)


class ParameterTuple(tuple):
    """A tuple of Parameters (names must be unique)."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple holds Parameters, got {type(p).__name__}")
        names = [p.name for p in items if p.name is not None]
        if len(names) != len(set(names)):
            raise ValueError(f"ParameterTuple has duplicate names: {names}")
        return super().__new__(cls, items)

    def clone(self, prefix: str, init="same") -> "ParameterTuple":
        out = []
        for p in self:
            q = p.clone(init)
            q.name = f"{prefix}.{p.name}"
            out.append(q)
        return ParameterTuple(out)
