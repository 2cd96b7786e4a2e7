"""Parameter (a named, trainable Tensor whose buffer is shared by PyNative and compiled code)
and ParameterTuple."""
from __future__ import annotations

import itertools

import numpy as np

from pycompile.common import context
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor, _canonical_bools, _to_array, parameters_written


_unnamed = itertools.count(1)


class Parameter(Tensor):
    """A Tensor owned by a Cell. Its NumPy buffer is the one compiled executables read and
    `ops.assign` writes, in place: there is no copy-in / copy-out per call.

    Without `name` it is called 'Parameter#<n>' until assigned to a Cell attribute, whose name
    it then takes; Cells name it by its attribute path ("fc.weight"), as MindSpore does.
    As in MindSpore, a Python int gives an Int32 Parameter and a Python bool is refused."""

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        from pycompile.common.initializer import Initializer
        if isinstance(default_input, Initializer):
            raise TypeError("Parameter needs data; use initializer(init, shape, dtype)")
        if isinstance(default_input, bool):
            raise ValueError("Parameter data can not be `bool`")
        if isinstance(default_input, Tensor):
            data = default_input._data
        elif isinstance(default_input, int):
            data = Tensor(default_input, mstype.int32)._data
        elif isinstance(default_input, (float, list, tuple, np.ndarray, np.generic)):
            data = Tensor(default_input)._data
        else:
            raise TypeError(f"The type of the argument 'default_input' must be a Tensor, int, float, list or "
                            f"numpy.ndarray, but got {type(default_input).__name__}")
        self._data = _canonical_bools(np.array(data, copy=True, order="C"))
        parameters_written()        # the new buffer may sit where a freed Parameter's was
        self._explicit_name = name is not None
        self.name = name if name is not None else f"Parameter#{next(_unnamed)}"
        self.requires_grad = requires_grad

    @property
    def name(self) -> str:
        return self.__dict__["_name"]

    @name.setter
    def name(self, value) -> None:
        if not isinstance(value, str):
            raise ValueError(f"The type of the Parameter's name should be 'string', but got {type(value).__name__}")
        self.__dict__["_name"] = value

    def set_data(self, data, slice_shape=False) -> "Parameter":
        """Replace the value. Same shape and dtype: written into the existing buffer, so compiled
        code keeps reading the live value; otherwise the buffer is replaced."""
        arr = _canonical_bools(data._data) if isinstance(data, Tensor) else _to_array(data, None)
        if arr.shape == self._data.shape:
            with np.errstate(all="ignore"):
                self._data[...] = arr
        else:
            old_shape = self._data.shape
            self._data = np.array(arr, dtype=self._data.dtype, copy=True, order="C")
            # compiled graphs reading this Parameter were specialised on its old shape: running
            # one would read past the new buffer's end (MindSpore 2.10 does: garbage values, or
            # a crash). Re-specialise instead, as PyNative computes with the new shape
            context.specialization_changed(f"Parameter {self.name!r} changed shape {old_shape} -> {self._data.shape}")
        parameters_written()
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

    @property
    def init(self):
        """None: a Parameter's data is initialized when it is made (MindSpore's too, on the CPU)."""
        return None

    def init_data(self, layout=None, set_sliced=False):
        """The Parameter itself (its data is initialized; `layout` / `set_sliced` are parallel-training
        options, not used)."""
        return self

    def __reduce__(self):
        return (_rebuild_parameter, (self._data, self.name, self.requires_grad, self._explicit_name))

    def __deepcopy__(self, memo):
        return _rebuild_parameter(self._data.copy(), self.name, self.requires_grad, self._explicit_name)


def _rebuild_parameter(data, name, requires_grad, explicit_name=True):
    p = Parameter(Tensor._wrap(data), name=name, requires_grad=requires_grad)
    p._explicit_name = explicit_name
    return p


class ParameterTuple(tuple):
    """A tuple of Parameters (names must be unique)."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'ParameterTuple', every item must be a Parameter, but got {type(p).__name__}")
        seen = set()
        for p in items:
            if p.name in seen:
                raise ValueError(f"For 'ParameterTuple', the name {p.name!r} of {p!r} already exists; "
                                 f"Parameters in a ParameterTuple need unique names")
            seen.add(p.name)
        return super().__new__(cls, items)

    def clone(self, prefix: str, init="same") -> "ParameterTuple":
        out = []
        for p in self:
            q = p.clone(init)
            q.name = f"{prefix}.{p.name}"
            out.append(q)
        return ParameterTuple(out)
