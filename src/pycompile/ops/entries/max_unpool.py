"""max_unpool1d / 2d / 3d: the inverse of a max pooling with return_indices: each value written
at its index within its (N, C) plane of an output of size (in - 1) * stride - 2 * padding +
kernel_size per spatial axis (or `output_size`), zeros elsewhere. MindSpore 2.10's argument
forms; values recorded in tests/conformance/cases_layers.py."""
import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.entry import Arg, op_entry


def _tuple(v, nd, what, name):
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,) * nd
    v = tuple(v)
    if len(v) != nd:
        raise OpValueError(f"For '{name}', the length of '{what}' must be {nd}, but got {len(v)}.")
    return v


def _unpool(name, nd, x, indices, kernel_size, stride, padding, output_size):
    if x.ndim not in (nd + 1, nd + 2):
        raise OpValueError(f"For '{name}', the dimension of 'x' must be {nd + 1} or {nd + 2}, but got {x.ndim}.")
    if tuple(indices.shape) != tuple(x.shape):
        raise OpValueError(f"For '{name}', 'x' and 'indices' must have the same shape, but got {list(x.shape)} and "
                           f"{list(indices.shape)}.")
    k = _tuple(kernel_size, nd, "kernel_size", name)
    s = k if stride is None or stride == 0 else _tuple(stride, nd, "stride", name)
    p = _tuple(padding, nd, "padding", name)
    spatial = tuple((i - 1) * st - 2 * pd + kk for i, st, pd, kk in zip(x.shape[-nd:], s, p, k))
    if output_size:
        want = tuple(output_size)[-nd:]
        for w, d, st in zip(want, spatial, s):
            if not d - st < w < d + st:
                raise OpValueError(f"For '{name}', 'output_size' must be within ({d - st}, {d + st}) on each spatial "
                                   f"axis, but got {tuple(output_size)}.")
        spatial = want
    lead = tuple(x.shape[:-nd])
    planes = 1
    for d in lead:
        planes *= d
    size = 1
    for d in spatial:
        size *= d
    flat_x = F.reshape(x, (planes, -1))
    flat_i = F.reshape(F.cast(indices, mstype.int64), (planes, -1))
    out = ops.tensor_scatter_elements(F.zeros((planes, size), x.dtype), flat_i, flat_x, 1)
    return F.reshape(out, lead + spatial)


def _args():
    return [Arg("x"), Arg("indices"), Arg("kernel_size", "value"), Arg("stride", "value", default=None),
            Arg("padding", "value", default=0), Arg("output_size", "value", default=None)]


@op_entry("max_unpool1d", args=_args())
def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """1-D max unpooling of an (N, C, L) or (C, L) input."""
    return _unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding, output_size)


@op_entry("max_unpool2d", args=_args())
def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """2-D max unpooling of an (N, C, H, W) or (C, H, W) input."""
    return _unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding, output_size)


@op_entry("max_unpool3d", args=_args())
def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """3-D max unpooling of an (N, C, D, H, W) or (C, D, H, W) input."""
    return _unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding, output_size)
