"""Tensor methods about storage and placement, as MindSpore 2.10's CPU build answers them
(recorded in tests/ops/test_tensor_misc.py): a pycompile Tensor is one C-contiguous buffer on the
CPU, so `contiguous()` is the tensor itself, `is_contiguous()` is True, `storage_offset()` is 0
and `stride()` counts elements; `move_to("CPU")` is a copy and any other target MindSpore's
RuntimeError; `new_empty` gives zeros (its values are unspecified in MindSpore); `resize` pads
with zeros or cuts the flattened data; `set_dtype` converts the tensor in place and returns the
new dtype (PyNative only: in graph code a tensor's dtype is fixed). `ops.move_to` / `ops.MoveTo`
(MindSpore documents them for Ascend and the CPU; its CPU wheel has no kernel, "Unsupported op
[MoveTo] on CPU") follow `Tensor.move_to`, a list or tuple first becoming a Tensor.)"""
import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError
from pycompile.ops.entry import Arg, op_entry, tensor_alias


@tensor_alias("contiguous")
def contiguous(self):
    """The tensor itself: its buffer is contiguous."""
    return self


@tensor_alias("is_contiguous")
def is_contiguous(self):
    """True: a pycompile tensor is one C-contiguous buffer."""
    return True


@tensor_alias("storage_offset")
def storage_offset(self):
    """0: a tensor starts at the beginning of its buffer."""
    return 0


@tensor_alias("stride")
def stride(self, dim=None):
    """The number of elements to step along each axis (a list), or along `dim`."""
    shape = tuple(self.shape)
    steps = [int(np.prod(shape[k + 1:])) for k in range(len(shape))]
    if dim is None:
        return steps
    if isinstance(dim, bool) or not isinstance(dim, int) or not -len(shape) <= dim < max(len(shape), 1):
        raise OpTypeError(f"For 'Tensor.stride', 'dim' must be an int in range [{-len(shape)}, {len(shape)}), "
                          f"but got {dim!r}.")
    return steps[dim]


@tensor_alias("new_empty")
def new_empty(self, size, *, dtype=None, device=None):
    """A new tensor of shape `size` and self's dtype (or `dtype`), filled with zeros."""
    size = (size,) if isinstance(size, int) else tuple(size)
    return ops.zeros(size, self.dtype if dtype is None else dtype)


@tensor_alias("resize")
def resize(self, *new_shape):
    """A new tensor of `new_shape` holding self's elements in order, cut or padded with zeros."""
    if len(new_shape) == 1 and isinstance(new_shape[0], (tuple, list)):
        new_shape = tuple(new_shape[0])
    n = int(np.prod(new_shape)) if new_shape else 1
    flat = F.reshape(self, (-1,))
    size = int(np.prod(self.shape)) if self.shape else 1
    flat = flat[:n] if n <= size else ops.concat((flat, ops.zeros((n - size,), self.dtype)))
    return F.reshape(flat, tuple(new_shape))


def _check_target(to, what):
    if not isinstance(to, str):
        raise OpTypeError(f"For '{what}', 'to' must be a str, but got {type(to).__name__}.")
    if to != "CPU":
        raise RuntimeError(f"The value of arg 'to' of method 'move_to' should be same with device target, bug got "
                           f"to:{to}, device target: CPU")


def _copy(x):
    return F.mul(x, 1) if not isinstance(x, Tensor) else Tensor(x.asnumpy())


@tensor_alias("move_to")
def move_to(self, to, blocking=True):
    """A copy on `to` ("CPU": MindSpore's device target here; any other is its RuntimeError)."""
    _check_target(to, "Tensor.move_to")
    return _copy(self)


@op_entry("move_to", primitive="MoveTo", args=[Arg("input", "value"), Arg("to", "value", default="CPU"),
                                               Arg("blocking", "value", default=True)])
def move_to_op(input, to="CPU", blocking=True):
    """A copy of `input` (a Tensor, or a list / tuple made a Tensor) on `to` ("CPU"; any other target
    is the RuntimeError Tensor.move_to raises)."""
    _check_target(to, "MoveTo")
    if isinstance(input, (list, tuple)):
        return Tensor(input)
    if not isinstance(input, TensorMethods):
        raise OpTypeError(f"For 'MoveTo', 'input' must be a Tensor, list or tuple, but got {type(input).__name__}.")
    return _copy(input)


@tensor_alias("set_dtype")
def set_dtype(self, dtype):
    """Convert the tensor to `dtype` in place; returns the new dtype."""
    if not isinstance(self, Tensor):
        raise OpTypeError("For 'Tensor.set_dtype', a tensor's dtype cannot change in graph code; use astype.")
    dt = mstype.to_dtype(dtype)
    self.set_data(self.asnumpy().astype(dt.np))
    return dt


def _device(self):
    """The device the tensor lives on: 'CPU'."""
    return "CPU"


def _has_init(self):
    """False: the data is there (a Parameter created with delayed initialization says otherwise)."""
    return False


TensorMethods.device = property(_device)
TensorMethods.has_init = property(_has_init)
