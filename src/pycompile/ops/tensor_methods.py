"""Tensor operators and methods, attached to `TensorMethods` (pycompile.common.tensor) from here.

Every one is an op of the table (`pycompile.ops.functional`), so the same method means the same
thing on a PyNative Tensor, on the compiler's graph tracer and on vmap's batch tracer, which all
derive from TensorMethods. They are defined on a plain class below and copied onto TensorMethods
when this module is imported (by `pycompile.ops`): the op table sits above common/, so Tensor
cannot import it.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.ops import prims as P
from pycompile.ops import functional as F
from pycompile.ops._table import apply


def _varargs(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


class _TensorOps:
    """The operators and methods every tensor-like value has."""

    # -- arithmetic ------------------------------------------------------------------------------
    # the operator accepts bool + bool (a logical or), MindSpore's ops.add does not
    def __add__(self, o): return apply(P.Add, [self, o])
    def __radd__(self, o): return apply(P.Add, [o, self])
    def __sub__(self, o): return F.sub(self, o)
    def __rsub__(self, o): return F.sub(o, self)
    def __mul__(self, o): return F.mul(self, o)
    def __rmul__(self, o): return F.mul(o, self)
    def __truediv__(self, o): return F.div(self, o)
    def __rtruediv__(self, o): return F.div(o, self)
    def __floordiv__(self, o): return F.floor_divide(self, o)
    def __rfloordiv__(self, o): return F.floor_divide(o, self)
    def __mod__(self, o): return F.remainder(self, o)
    def __rmod__(self, o): return F.remainder(o, self)
    def __pow__(self, o): return F.pow(self, o)
    def __rpow__(self, o): return F.pow(o, self)
    def __matmul__(self, o): return F.matmul(self, o)
    def __rmatmul__(self, o): return F.matmul(o, self)
    def __neg__(self): return F.neg(self)
    def __pos__(self): return self
    def __abs__(self): return F.abs(self)
    def __invert__(self): return F.logical_not(self) if self.dtype.is_bool else F.bitwise_not(self)
    def __and__(self, o): return F.bitwise_and(self, o)
    def __rand__(self, o): return F.bitwise_and(o, self)
    def __or__(self, o): return F.bitwise_or(self, o)
    def __ror__(self, o): return F.bitwise_or(o, self)
    def __xor__(self, o): return F.bitwise_xor(self, o)
    def __rxor__(self, o): return F.bitwise_xor(o, self)

    # -- comparisons -----------------------------------------------------------------------------
    # `t == None` is False (as in MindSpore), so `x in [None, ...]` and default checks work
    def __eq__(self, o): return False if o is None else F.equal(self, o)
    def __ne__(self, o): return True if o is None else F.ne(self, o)
    def __lt__(self, o): return F.less(self, o)
    def __le__(self, o): return F.less_equal(self, o)
    def __gt__(self, o): return F.greater(self, o)
    def __ge__(self, o): return F.greater_equal(self, o)

    # -- indexing ------------------------------------------------------------------------------
    def __getitem__(self, index): return F.getitem(self, index)

    # -- methods -------------------------------------------------------------------------------
    @property
    def T(self): return F.transpose(self, tuple(reversed(range(self.ndim))))
    def astype(self, dtype): return F.cast(self, dtype)
    def to(self, dtype): return F.cast(self, dtype)
    def float(self): return F.cast(self, mstype.float32)
    def int(self): return F.cast(self, mstype.int32)
    def bool(self): return F.cast(self, mstype.bool_)
    def reshape(self, *shape): return F.reshape(self, _varargs(shape))
    def view(self, *shape): return F.reshape(self, _varargs(shape))
    def flatten(self, start_dim=0, end_dim=-1): return F.flatten(self, start_dim=start_dim, end_dim=end_dim)
    def transpose(self, *perm): return F.transpose(self, _varargs(perm) if perm else None)
    def permute(self, *perm): return F.transpose(self, _varargs(perm))
    def swapaxes(self, a, b): return F.swapaxes(self, a, b)
    def expand_dims(self, axis): return F.expand_dims(self, axis)
    def unsqueeze(self, dim): return F.expand_dims(self, dim)
    def squeeze(self, axis=None): return F.squeeze(self, axis)
    def broadcast_to(self, shape): return F.broadcast_to(self, shape)
    def sum(self, axis=None, keepdims=False, dtype=None): return F._sum_public(self, axis, keepdims, dtype=dtype)
    def mean(self, axis=None, keep_dims=False): return F.mean(self, axis, keep_dims)
    def max(self, axis=None, keepdims=False): return F.amax(self, axis, keepdims)
    def min(self, axis=None, keepdims=False): return F.amin(self, axis, keepdims)
    def all(self, axis=None, keep_dims=False): return F.all(self, axis, keep_dims)
    def any(self, axis=None, keep_dims=False): return F.any(self, axis, keep_dims)
    def argmax(self, axis=None, keepdims=False): return F.argmax(self, axis, keepdims)
    def abs(self): return F.abs(self)
    def exp(self): return F.exp(self)
    def log(self): return F.log(self)
    def sqrt(self): return F.sqrt(self)
    def rsqrt(self): return F.rsqrt(self)
    def square(self): return F.square(self)
    def tanh(self): return F.tanh(self)
    def sigmoid(self): return F.sigmoid(self)
    def relu(self): return F.relu(self)
    def softmax(self, axis=-1): return F.softmax(self, axis)
    def clip(self, min=None, max=None): return F.clamp(self, min, max)
    def clamp(self, min=None, max=None): return F.clamp(self, min, max)
    def matmul(self, o): return F.matmul(self, o)
    def add(self, o): return F.add(self, o)
    def sub(self, o): return F.sub(self, o)
    def mul(self, o): return F.mul(self, o)
    def div(self, o, rounding_mode=None): return F.div(self, o, rounding_mode=rounding_mode)
    def pow(self, o): return F.pow(self, o)
    def neg(self): return F.neg(self)
    def maximum(self, o): return F.maximum(self, o)
    def minimum(self, o): return F.minimum(self, o)
    def isfinite(self): return F.isfinite(self)
    def gather(self, indices, axis): return F.gather(self, indices, axis)
    def tile(self, reps): return F.tile(self, reps)


# class-machinery attributes of _TensorOps that are not methods (defining __eq__ made its
# __hash__ None: tensors keep object identity hashing)
_NOT_METHODS = {"__module__", "__dict__", "__weakref__", "__doc__", "__qualname__", "__hash__"}


def attach() -> None:
    for name, value in vars(_TensorOps).items():
        if name not in _NOT_METHODS:
            setattr(TensorMethods, name, value)


attach()
