"""Tensor methods whose functional forms exist already: `x.less(y)` is `ops.less(x, y)`, the
dtype conversions (`x.double()`), shape helpers (`x.reshape_as(y)`), and the matrix properties
`mT` / `mH`. Values recorded from the wheel in tests/conformance/cases_entries.py."""
import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import tensor_alias

_SAME = {"absolute": "abs", "bitwise_not": "bitwise_not", "bmm": "bmm", "mm": "mm", "eq": "equal",
         "equal": "equal", "ge": "greater_equal", "greater": "greater", "greater_equal": "greater_equal",
         "gt": "greater", "le": "less_equal", "less": "less", "less_equal": "less_equal", "lt": "less",
         "ne": "not_equal", "not_equal": "not_equal", "logical_and": "logical_and", "logical_not": "logical_not",
         "logical_or": "logical_or", "negative": "neg", "reciprocal": "reciprocal", "remainder": "remainder",
         "true_divide": "div", "floor_divide": "floor_divide",
         # MindSpore 2.10's Tensor.eigvals raises TypeError ("eigvals() missing 1 required positional
         # argument: 'A'"): its documentation's `ops.eigvals(x)` is what it runs here
         "eigvals": "eigvals"}


def _forward(method, functional):
    def fn(self, *args, **kwargs):
        return getattr(ops, functional)(self, *args, **kwargs)
    fn.__doc__ = f"`x.{method}(...)` is `ops.{functional}(x, ...)`."
    tensor_alias(method)(fn)


for _m, _f in _SAME.items():
    _forward(_m, _f)


@tensor_alias("pin_memory")
def _pin_memory(self):
    """A new Tensor holding a copy of the values. MindSpore copies them to page-locked host memory
    for a device to read; a CPU process has no other memory (MindSpore 2.10's CPU wheel raises
    RuntimeError here without the Ascend plugin)."""
    return F.identity(self)


def _cast(method, dtype):
    def fn(self):
        return F.cast(self, dtype)
    fn.__doc__ = f"The tensor as {dtype}."
    tensor_alias(method)(fn)


for _m, _d in (("double", mstype.float64), ("half", mstype.float16), ("long", mstype.int64),
               ("short", mstype.int16), ("byte", mstype.uint8), ("bfloat16", mstype.bfloat16)):
    _cast(_m, _d)


def _reduce_axes(axis, ndim):
    return tuple(range(ndim)) if axis is None else axis


def _no_initial(name, initial, where):
    if initial is not None or where is not None:
        raise OpValueError(f"For 'Tensor.{name}', 'initial' and 'where' are not supported by pycompile yet.")


@tensor_alias("amax")
def _amax(self, axis=None, keepdims=False, *, initial=None, where=None):
    """The maximum over `axis` (every axis by default)."""
    _no_initial("amax", initial, where)
    return ops.amax(self, _reduce_axes(axis, self.ndim), keepdims)


@tensor_alias("amin")
def _amin(self, axis=None, keepdims=False, *, initial=None, where=None):
    """The minimum over `axis` (every axis by default)."""
    _no_initial("amin", initial, where)
    return ops.amin(self, _reduce_axes(axis, self.ndim), keepdims)


@tensor_alias("ptp")
def _ptp(self, axis=None, keepdims=False):
    """max - min over `axis` (every axis by default)."""
    axes = _reduce_axes(axis, self.ndim)
    return ops.amax(self, axes, keepdims) - ops.amin(self, axes, keepdims)


@tensor_alias("aminmax")
def _aminmax(self, *, axis=0, keepdims=False):
    """(min, max) over one axis."""
    return ops.amin(self, axis, keepdims), ops.amax(self, axis, keepdims)


@tensor_alias("where")
def _where(self, condition, y):
    """`x.where(condition, y)`: x where condition holds, else y."""
    return ops.where(condition, self, y)


@tensor_alias("clone")
def _clone(self):
    """A copy of the tensor."""
    return F.tensor_move(self)


@tensor_alias("ndimension")
def _ndimension(self):
    """The number of axes."""
    return self.ndim


@tensor_alias("nelement")
def _nelement(self):
    """The number of elements."""
    return self.size


@tensor_alias("is_signed")
def _is_signed(self):
    """Whether the dtype is signed (the float and signed integer types)."""
    return self.dtype not in (mstype.bool_, mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64)


@tensor_alias("type_as")
def _type_as(self, other):
    """The tensor cast to other's dtype."""
    return F.cast(self, other.dtype)


@tensor_alias("reshape_as")
def _reshape_as(self, other):
    """The tensor reshaped to other's shape."""
    return ops.reshape(self, other.shape)


@tensor_alias("view_as")
def _view_as(self, other):
    """The tensor reshaped to other's shape."""
    return ops.reshape(self, other.shape)


def _size_args(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)


@tensor_alias("expand")
def _expand(self, *size):
    """Broadcast to `size` (-1 keeps an axis); `size` may be one 1-D int Tensor (ops.expand's form)."""
    if len(size) == 1 and isinstance(size[0], TensorMethods):
        return ops.expand(self, size[0])
    return ops.broadcast_to(self, _size_args(size))


@tensor_alias("sum_to_size")
def _sum_to_size(self, *size):
    """Sum the axes that `size` broadcasts, so that the result has shape `size`."""
    size = _size_args(size)
    lead = self.ndim - len(size)
    if lead < 0:
        raise OpValueError(f"For 'sum_to_size', the size {size} has more axes than the input {self.shape}.")
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and self.shape[lead + i] != 1)
    out = ops.sum(self, axes, True) if axes else self
    return ops.reshape(out, size)


@tensor_alias("soft_shrink")
def _soft_shrink(self, lambd=0.5):
    """ops.softshrink(x, lambd)."""
    return ops.softshrink(self, lambd)


@tensor_alias("top_k")
def _top_k(self, k, sorted=True):
    """(values, indices) of the k largest along the last axis."""
    return ops.topk(self, k, sorted=sorted)


@tensor_alias("approximate_equal")
def _approximate_equal(self, other, tolerance=1e-05):
    """|x - other| < tolerance."""
    if self.dtype != other.dtype:
        raise OpTypeError(f"For 'ApproximateEqual', the dtypes of 'x' and 'y' must be the same, but got "
                          f"{self.dtype} and {other.dtype}.")
    return F.less(F.abs(self - other), tolerance)


def _with_value(pick, name):
    def fn(self, axis=0, keep_dims=False):
        idx = F.cast(pick(self, axis, keep_dims), mstype.int64)
        values = (ops.amax if name == "argmax" else ops.amin)(self, axis, keep_dims)
        return values, idx
    fn.__doc__ = f"(value, index) of the {name[3:]}imum along `axis` (the index Int64, as MindSpore 2.10 returns)."
    tensor_alias(f"{name}_with_value")(fn)


_with_value(lambda x, a, k: ops.argmax(x, a, k), "argmax")
_with_value(lambda x, a, k: ops.argmin(x, a, k), "argmin")


def _mt(self):
    """The last two axes swapped."""
    if self.ndim < 2:
        raise OpValueError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return ops.swapaxes(self, -2, -1)


_mt.is_property = True
tensor_alias("mT")(_mt)
tensor_alias("mH")(_mt)       # the conjugate transpose: real tensors only here


@tensor_alias("adjoint")
def _adjoint(self):
    """The conjugate transpose of the last two axes (real tensors: the transpose)."""
    return ops.conj(ops.swapaxes(self, -2, -1))


for _m in ("renorm", "fold", "unfold", "real", "imag"):
    _forward(_m, _m)


@tensor_alias("type")
def _type(self, dtype=None):
    """The dtype's name ('Float32') without `dtype`; with it, the tensor cast to it."""
    return str(self.dtype) if dtype is None else F.cast(self, dtype)


def _h(self):
    """The conjugate transpose of a 2-D tensor (real tensors: the transpose)."""
    if self.ndim != 2:
        raise OpValueError(f"For 'Tensor.H', the tensor must be 2-D, but got {self.ndim}-D.")
    return ops.conj(ops.transpose(self, (1, 0)))


_h.is_property = True
tensor_alias("H")(_h)
