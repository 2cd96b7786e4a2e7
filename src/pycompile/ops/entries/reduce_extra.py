"""Reductions MindSpore 2.10 composes from others: logsumexp, nansum / nanmean, var / std and
their (value, mean) pairs, count_nonzero, trace, vecdot, dot. Values recorded from the wheel in
tests/conformance/cases_entries.py."""
import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.entry import Arg, op_entry


def _axes(axis, ndim):
    if axis is None or axis == ():
        return tuple(range(ndim))
    return tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)


@op_entry("logsumexp", tensor_method=True,
          args=[Arg("input"), Arg("dim", "value"), Arg("keepdim", "value", default=False)])
def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input), dim)) computed around the maximum, so large inputs do not overflow."""
    m = ops.amax(input, dim, True)
    m = ops.where(F.isinf(m), F.zeros_like(m), m)        # an all -inf slice stays -inf, not nan
    out = F.log(ops.sum(F.exp(input - m), dim, True)) + m
    return out if keepdim else ops.squeeze(out, _axes(dim, input.ndim))


def _no_nan(x):
    return ops.where(F.isnan(x), F.zeros_like(x), x) if x.dtype.is_float else x


@op_entry("nansum", tensor_method=True,
          args=[Arg("input"), Arg("axis", "value", default=None), Arg("keepdims", "value", default=False),
                Arg("dtype", "value", default=None, keyword=True)])
def nansum(input, axis=None, keepdims=False, dtype=None):
    """The sum with nan taken as 0 (`dtype`: the input is cast first)."""
    x = _no_nan(input if dtype is None else F.cast(input, dtype))
    out = ops.sum(x, _axes(axis, x.ndim), keepdims)
    return out if out.dtype == x.dtype else F.cast(out, x.dtype)     # integers keep their dtype


@op_entry("nanmean", tensor_method=True,
          args=[Arg("input"), Arg("axis", "value", default=None), Arg("keepdims", "value", default=False),
                Arg("dtype", "value", default=None, keyword=True)])
def nanmean(input, axis=None, keepdims=False, dtype=None):
    """The mean of the values that are not nan (nan where a slice is all nan)."""
    x = input if dtype is None else F.cast(input, dtype)
    axes = _axes(axis, x.ndim)
    count = ops.sum(F.cast(F.logical_not(F.isnan(x)), x.dtype), axes, keepdims)
    return ops.sum(_no_nan(x), axes, keepdims) / count


def _var_mean(input, axis, ddof, keepdims):
    axes = _axes(axis, input.ndim)
    n = 1
    for a in axes:
        n *= input.shape[a]
    mean = ops.mean(input, axes, True)
    var = ops.sum(F.square(input - mean), axes, keepdims) / max(n - ddof, 0)
    return var, (mean if keepdims else ops.squeeze(mean, axes))


_VAR_ARGS = [Arg("input"), Arg("axis", "value", default=None), Arg("ddof", "value", default=0),
             Arg("keepdims", "value", default=False)]


@op_entry("var", args=_VAR_ARGS)
def var(input, axis=None, ddof=0, keepdims=False):
    """The variance over `axis` (all axes by default) with divisor n - ddof."""
    return _var_mean(input, axis, ddof, keepdims)[0]


@op_entry("std", tensor_method=True, args=_VAR_ARGS)
def std(input, axis=None, ddof=0, keepdims=False):
    """The standard deviation: sqrt(var)."""
    return F.sqrt(_var_mean(input, axis, ddof, keepdims)[0])


@op_entry("var_mean", args=_VAR_ARGS)
def var_mean(input, axis=None, ddof=0, keepdims=False):
    """(var, mean) over the same axes."""
    return _var_mean(input, axis, ddof, keepdims)


@op_entry("std_mean", args=_VAR_ARGS)
def std_mean(input, axis=None, ddof=0, keepdims=False):
    """(std, mean) over the same axes."""
    v, m = _var_mean(input, axis, ddof, keepdims)
    return F.sqrt(v), m


@op_entry("count_nonzero", tensor_method=True,
          args=[Arg("x"), Arg("axis", "value", default=()), Arg("keep_dims", "value", default=False),
                Arg("dtype", "value", default=mstype.int32)])
def count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32):
    """How many elements are not zero over `axis` (every axis when empty), as `dtype`."""
    return F.cast(ops.sum(F.cast(F.not_equal(x, 0), mstype.int32), _axes(axis, x.ndim), keep_dims), dtype)


@op_entry("trace", primitive="Trace", tensor_method=True, args=[Arg("input")])
def trace(input):
    """The sum of the main diagonal of a 2-D tensor (the input's dtype)."""
    if input.ndim != 2:
        raise OpValueError(f"For 'Trace', the dimension of 'input' must be 2, but got {input.ndim}.")
    r, c = input.shape
    out = ops.sum(input * F.cast(ops.eye(r, c, mstype.float32), input.dtype))
    return out if out.dtype == input.dtype else F.cast(out, input.dtype)


@op_entry("vecdot", args=[Arg("x"), Arg("y"), Arg("axis", "value", default=-1, keyword=True)])
def vecdot(x, y, axis=-1):
    """The dot product of x and y along `axis` (real tensors)."""
    return ops.sum(x * y, axis)


@op_entry("dot", tensor_method=True, args=[Arg("input"), Arg("other")])
def dot(input, other):
    """NumPy's dot: a matrix product for 1-D / 2-D inputs, else the sum over the last axis of
    input and the second-to-last of other."""
    if input.ndim <= 2 and other.ndim <= 2:
        return ops.matmul(input, other)
    return ops.tensor_dot(input, other, ((input.ndim - 1,), (max(other.ndim - 2, 0),)))
