"""The arithmetic scatters and the unsorted segment reductions (MindSpore 2.10 names), each a
composition of the TensorScatter* rows of the op table (pycompile/ops/defs/index.py):

* `tensor_scatter_sub / mul / div / max / min`: a new tensor, the rows addressed by the index
  tuples of `indices` combined with `updates` in index order (a repeated index combines again);
* `scatter_nd_add / sub / mul / div / max / min`: the same written into the Parameter
  `input_x` (MindSpore's ScatterNd* update their first input in place and return it);
* `scatter_add / sub / mul / div / max / min / update`: rows of the first axis addressed by an
  index tensor of any shape (`updates` shaped indices.shape + input_x.shape[1:]), written into
  the Parameter;
* `unsorted_segment_sum / max / min / prod`: (num_segments,) + x.shape[ids.ndim:] rows, each the
  combination of the rows of x whose segment id is its number, starting from the rule's identity
  (0, the dtype's lowest / largest finite value, 1), as MindSpore's CPU kernel does. An id out of
  [0, num_segments) raises RuntimeError, as MindSpore 2.10 does.
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import RefType, Symbolic, TensorType
from pycompile.ops import prims as P
from pycompile.ops import functional as F
from pycompile.ops._table import OPS, OpRuntimeError, OpTypeError, OpValueError, apply


def _tensor_scatter(name: str):
    op = OPS[name]

    def fn(input_x, indices, updates):
        if name == "TensorScatterDiv" and F._tensor_type(name, input_x, "input_x").dtype.np.name in ("int8", "uint8"):
            raise OpTypeError(f"For '{name}', 'input_x' must not be an Int8 or UInt8 Tensor (MindSpore's kernel "
                              f"refuses them), but got {F._tensor_type(name, input_x, 'input_x')}")
        return apply(op, [input_x, indices, updates])
    fn.__name__ = fn.__qualname__ = "tensor_scatter_" + name[len("TensorScatter"):].lower()
    fn.__doc__ = (f"input_x with the rows addressed by the index tuples of `indices` combined with `updates` "
                  f"({name}; a new tensor).")
    return fn


tensor_scatter_sub = _tensor_scatter("TensorScatterSub")
tensor_scatter_mul = _tensor_scatter("TensorScatterMul")
tensor_scatter_div = _tensor_scatter("TensorScatterDiv")
tensor_scatter_max = _tensor_scatter("TensorScatterMax")
tensor_scatter_min = _tensor_scatter("TensorScatterMin")

_BY_RULE = {"add": "TensorScatterAdd", "sub": "TensorScatterSub", "mul": "TensorScatterMul",
            "div": "TensorScatterDiv", "max": "TensorScatterMax", "min": "TensorScatterMin",
            "update": "TensorScatterUpdate"}


def _scatter_nd_inplace(rule: str):
    op = OPS[_BY_RULE[rule]]

    def fn(input_x, indices, updates, use_locking=False):
        return F.assign(input_x, apply(op, [input_x, indices, updates]))
    fn.__name__ = fn.__qualname__ = f"scatter_nd_{rule}"
    fn.__doc__ = (f"Writes into the Parameter `input_x` its rows addressed by the index tuples of `indices` "
                  f"combined with `updates` ({rule}); returns the Parameter.")
    return fn


scatter_nd_add = _scatter_nd_inplace("add")
scatter_nd_sub = _scatter_nd_inplace("sub")
scatter_nd_mul = _scatter_nd_inplace("mul")
scatter_nd_div = _scatter_nd_inplace("div")
scatter_nd_max = _scatter_nd_inplace("max")
scatter_nd_min = _scatter_nd_inplace("min")


def _scatter_rows(rule: str):
    op = OPS[_BY_RULE[rule]]
    cls = "Scatter" + rule.capitalize()

    def fn(input_x, indices, updates, use_locking=False):
        xt = F._tensor_type(cls, input_x, "input_x")
        it = F._tensor_type(cls, indices, "indices")
        ut = F._tensor_type(cls, updates, "updates")
        if it.dtype.np.name not in ("int32", "int64"):
            raise OpTypeError(f"For '{cls}', 'indices' must be an int32 or int64 Tensor, but got {it}")
        if xt.ndim == 0:
            raise OpValueError(f"For '{cls}', 'input_x' must have at least one dimension")
        want = tuple(it.shape) + tuple(xt.shape[1:])
        if tuple(ut.shape) != want:
            raise OpValueError(f"For '{cls}', 'updates' must have shape indices.shape + input_x.shape[1:] = "
                               f"{list(want)}, but got {list(ut.shape)}")
        return F.assign(input_x, apply(op, [input_x, F.expand_dims(indices, -1), updates]))
    fn.__name__ = fn.__qualname__ = f"scatter_{rule}"
    fn.__doc__ = (f"Writes into the Parameter `input_x` its first-axis rows `indices` (any shape) combined with "
                  f"`updates` ({rule}); returns the Parameter.")
    return fn


scatter_add = _scatter_rows("add")
scatter_sub = _scatter_rows("sub")
scatter_mul = _scatter_rows("mul")
scatter_div = _scatter_rows("div")
scatter_max = _scatter_rows("max")
scatter_min = _scatter_rows("min")
scatter_update = _scatter_rows("update")


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """x with the slices y[..., i, ...] (along `axis`) added to x's slices indices[i] (a repeated
    index adds each time), written into x when it is a Parameter (or a PyNative Tensor, which
    MindSpore updates in place); returns the result. An index out of range raises RuntimeError."""
    xt = F._tensor_type("IndexAdd", x, "x")
    it = F._tensor_type("IndexAdd", indices, "indices")
    yt = F._tensor_type("IndexAdd", y, "y")
    if it.dtype.np.name != "int32" or it.ndim != 1:
        raise OpTypeError(f"For 'IndexAdd', 'indices' must be a 1-D Int32 Tensor, but got {it}")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -xt.ndim <= axis < max(xt.ndim, 1):
        raise OpValueError(f"For 'IndexAdd', 'axis' must be an int in [{-xt.ndim}, {xt.ndim}), but got {axis!r}")
    ax = int(axis) % xt.ndim
    want = tuple(xt.shape[:ax]) + (it.shape[0],) + tuple(xt.shape[ax + 1:])
    if tuple(yt.shape) != want or yt.dtype is not xt.dtype:
        raise OpValueError(f"For 'IndexAdd', 'y' must be a {xt.dtype} Tensor of shape {list(want)}, but got {yt}")
    perm = (ax,) + tuple(d for d in range(xt.ndim) if d != ax)
    back = tuple(int(i) for i in np.argsort(perm))
    moved = apply(P.TensorScatterAdd, [F.transpose(x, perm), F.expand_dims(indices, -1), F.transpose(y, perm)])
    out = F.transpose(moved, back)
    if isinstance(getattr(x, "_abstract", None), RefType) or hasattr(x, "_data"):
        # the value returned is the sum itself (ordered after the write): its gradient reaches x and y
        return F.depend(out, F.assign(x, out))
    return out


def inplace_index_add(var, indices, updates, axis):
    """index_add under its other MindSpore name (var updated in place where it can be)."""
    return index_add(var, indices, updates, axis)


def _num_segments(name: str, n) -> int:
    if isinstance(n, Symbolic):
        raise OpTypeError(f"For '{name}', 'num_segments' must be known when the graph is compiled")
    if isinstance(getattr(n, "_abstract", None), TensorType):
        n = n.asnumpy().reshape(-1)[0] if n.size == 1 else n
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise OpTypeError(f"For '{name}', 'num_segments' must be an int, but got {n!r}")
    if int(n) <= 0:
        raise OpValueError(f"For '{name}', 'num_segments' must be positive, but got {int(n)}")
    return int(n)


def _identity(rule: str, dtype) -> float | int:
    if rule == "add":
        return 0
    if rule == "mul":
        return 1
    info = np.iinfo(dtype.np) if dtype.kind in "iu" else mstype.finfo(dtype.np)
    v = info.min if rule == "max" else info.max
    return int(v) if dtype.kind in "iu" else float(v)


def _unsorted_segment(rule: str, name: str):
    op = OPS[_BY_RULE[rule]]

    def fn(input_x, segment_ids, num_segments):
        xt = F._tensor_type(name, input_x, "input_x")
        st = F._tensor_type(name, segment_ids, "segment_ids")
        if st.dtype.np.name not in ("int32", "int64"):
            raise OpTypeError(f"For '{name}', 'segment_ids' must be an int32 or int64 Tensor, but got {st}")
        if tuple(xt.shape[:st.ndim]) != tuple(st.shape):
            raise OpValueError(f"For '{name}', the shape of 'segment_ids' must be a prefix of the shape of "
                               f"'input_x', but got {list(st.shape)} and {list(xt.shape)}")
        n = _num_segments(name, num_segments)
        if not isinstance(segment_ids, Symbolic) and hasattr(segment_ids, "asnumpy"):
            ids = segment_ids.asnumpy()
            if ids.size and (ids.min() < 0 or ids.max() >= n):      # graph code: the scatter's own check
                raise OpRuntimeError(f"For '{name}', segment_ids value should be [0, {n}), but got "
                                     f"{int(ids.min() if ids.min() < 0 else ids.max())}")
        init = F.fill(xt.dtype, (n,) + tuple(xt.shape[st.ndim:]), _identity(rule, xt.dtype))
        return apply(op, [init, F.expand_dims(segment_ids, -1), input_x])
    fn.__name__ = fn.__qualname__ = "unsorted_segment_" + {"add": "sum", "mul": "prod"}.get(rule, rule)
    fn.__doc__ = (f"{name}: num_segments rows, each the {rule} of the rows of input_x with that segment id "
                  f"(starting from the rule's identity).")
    return fn


unsorted_segment_sum = _unsorted_segment("add", "UnsortedSegmentSum")
unsorted_segment_max = _unsorted_segment("max", "UnsortedSegmentMax")
unsorted_segment_min = _unsorted_segment("min", "UnsortedSegmentMin")
unsorted_segment_prod = _unsorted_segment("mul", "UnsortedSegmentProd")

__all__ = [n for n in list(globals()) if n.startswith(("tensor_scatter_", "scatter_", "unsorted_segment_"))] + \
    ["index_add", "inplace_index_add"]
