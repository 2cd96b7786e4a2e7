"""Small Primitives MindSpore's CPU op tests use (issue 33, prim33): InplaceUpdateV2 and
Tensor.inplace_update (rows replaced, the rows given as a Tensor), DataFormatDimMap (an axis index
of one 4-letter layout mapped to another), EqualCount (the number of equal elements), EmbeddingLookup,
and the backward Primitives of ops.operations._grad_ops SoftplusGrad, LRNGrad and
ResizeNearestNeighborGrad. Values recorded from the wheel in tests/conformance/cases_prim33.py."""
import numpy as np

from pycompile.common import dtype as mstype
from pycompile.ops import function_index as X
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.entry import Arg, op_entry, tensor_alias

_INTS = frozenset({mstype.int32, mstype.int64})


@op_entry("inplace_update_v2_primitive", primitive="InplaceUpdateV2", functional=False,
          args=[Arg("x"), Arg("indices", "value"), Arg("v")])
def inplace_update_v2_primitive(x, indices, v):
    """x with its rows `indices` (an int, a tuple of ints or an int Tensor) replaced by v."""
    return X.inplace_update(x, v, indices)


@tensor_alias("inplace_update")
def _inplace_update(self, v, indices):
    """ops.inplace_update(self, v, indices): a new tensor (self is left as it was)."""
    return X.inplace_update(self, v, indices)


def _format(what):
    def check(v, op_name):
        if v not in ("NHWC", "NCHW"):
            raise OpValueError(f"For '{op_name}', the '{what}' must be str and must be in '['NHWC', 'NCHW']', but "
                               f"got '{v}'.")
    return check


@op_entry("data_format_dim_map_primitive", primitive="DataFormatDimMap", functional=False,
          args=[Arg("input_x", dtypes=_INTS),
                Arg("src_format", "value", default="NHWC", init=True, check=_format("src_format")),
                Arg("dst_format", "value", default="NCHW", init=True, check=_format("dst_format"))])
def data_format_dim_map_primitive(input_x, src_format="NHWC", dst_format="NCHW"):
    """Each axis index (in [-4, 4)) of dst_format's layout as the index of the same letter in src_format."""
    table = np.array([src_format.index(c) for c in dst_format], dtype=input_x.dtype.np)
    from pycompile.common.tensor import Tensor
    return F.gather(Tensor._wrap(table), F.remainder(input_x, 4), 0)


@op_entry("equal_count_primitive", primitive="EqualCount", functional=False, args=[Arg("x"), Arg("y")])
def equal_count_primitive(x, y):
    """[the number of places where x == y], shape (1,), in x's dtype."""
    n = F.sum(F.cast(F.equal(x, y), mstype.int32))
    return F.reshape(F.cast(n, x.dtype), (1,))


@op_entry("embedding_lookup_primitive", primitive="EmbeddingLookup", functional=False,
          args=[Arg("input_params"), Arg("input_indices", dtypes=_INTS), Arg("offset", "value")])
def embedding_lookup_primitive(input_params, input_indices, offset):
    """Rows input_indices - offset of input_params; an index outside the table reads zeros (the
    table is one shard of a bigger one: other shards own those rows)."""
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
        raise OpValueError(f"For 'EmbeddingLookup', 'offset' must be an int, but got {offset!r}.")
    n = input_params.shape[0]
    idx = input_indices - int(offset)
    inside = F.logical_and(idx >= 0, idx < n)
    rows = F.gather(input_params, F.select(inside, idx, F.zeros_like(idx)), 0)
    keep = F.reshape(inside, tuple(inside.shape) + (1,) * (len(input_params.shape) - 1))
    return F.select(keep, rows, F.zeros_like(rows))


@op_entry("softplus_grad_primitive", primitive="SoftplusGrad", functional=False,
          args=[Arg("gradients"), Arg("features")])
def softplus_grad_primitive(gradients, features):
    """Softplus's backward (ops.operations._grad_ops): gradients * sigmoid(features); its own gradient
    follows from the composition (the suite's grad of grad)."""
    return gradients * F.sigmoid(features)


def _channel_window_sum(t, r):
    """sum over channels [c - r, c + r] of an (N, C, H, W) tensor (zeros past the edges)."""
    import pycompile.ops as ops
    c = t.shape[1]
    padded = ops.pad(t, (0, 0, 0, 0, r, r))
    return ops.addn([ops.narrow(padded, 1, k, c) for k in range(2 * r + 1)])


@op_entry("lrn_grad_primitive", primitive="LRNGrad", functional=False,
          args=[Arg("grads"), Arg("x"), Arg("y"), Arg("depth_radius", "value", default=5, init=True),
                Arg("bias", "value", default=1.0, init=True), Arg("alpha", "value", default=1.0, init=True),
                Arg("beta", "value", default=0.5, init=True)])
def lrn_grad_primitive(grads, x, y, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
    """LRN's backward (ops.operations._grad_ops): with n = bias + alpha * (window sum of x^2),
    dx = dy n^-beta - 2 alpha beta x * (window sum of dy x n^(-beta-1)); y is LRN's output."""
    if len(x.shape) != 4:
        raise OpValueError(f"For 'LRNGrad', the dimension of 'x' must be 4, but got {len(x.shape)}.")
    norm = bias + alpha * _channel_window_sum(F.square(x), depth_radius)
    scale = F.pow(norm, -beta)
    inner = _channel_window_sum(grads * x * scale / norm, depth_radius)
    return grads * scale - (2.0 * alpha * beta) * x * inner


def _nearest_source(out_n, in_n, align_corners):
    """The input index nearest-neighbour resizing reads for each output index (MindSpore's CPU rule)."""
    o = np.arange(out_n, dtype=np.float64)
    if align_corners:
        scale = (in_n - 1) / (out_n - 1) if out_n > 1 else 0.0
        src = np.floor(o * scale + 0.5)          # C round(): half away from zero
    else:
        src = np.floor(o * (in_n / out_n))
    return np.minimum(src, in_n - 1).astype(np.int64)


@op_entry("resize_nearest_neighbor_grad_primitive", primitive="ResizeNearestNeighborGrad", functional=False,
          args=[Arg("grads"), Arg("size", "value"), Arg("align_corners", "value", default=False, init=True)])
def resize_nearest_neighbor_grad_primitive(grads, size, align_corners=False):
    """ResizeNearestNeighbor's backward (ops.operations._grad_ops): each output pixel's gradient added
    to the input pixel it was read from; `size` is the input's (H, W)."""
    from pycompile.common.tensor import Tensor
    if len(grads.shape) != 4:
        raise OpValueError(f"For 'ResizeNearestNeighborGrad', 'grads' must be 4-D, but got {len(grads.shape)}-D.")
    n, c, oh, ow = grads.shape
    h, w = (int(v) for v in size)
    rows, cols = _nearest_source(oh, h, align_corners), _nearest_source(ow, w, align_corners)
    flat = (rows[:, None] * w + cols[None, :]).reshape(-1, 1)
    upd = F.transpose(F.reshape(grads, (n * c, oh * ow)), (1, 0))
    out = X.tensor_scatter_add(F.zeros((h * w, n * c), grads.dtype), Tensor._wrap(flat), upd)
    return F.reshape(F.transpose(out, (1, 0)), (n, c, h, w))


@op_entry("l2_normalize_grad_primitive", primitive="L2NormalizeGrad", functional=False,
          args=[Arg("input_x"), Arg("out"), Arg("dout"), Arg("axis", "value", default=0, init=True),
                Arg("epsilon", "value", default=1e-4, init=True)])
def l2_normalize_grad_primitive(input_x, out, dout, axis=0, epsilon=1e-4):
    """L2Normalize's backward (ops.operations._grad_ops): (dout - out * sum(out * dout)) / norm over
    `axis`, norm = max(sqrt(sum(x^2)), epsilon) (MindSpore 2.10's CPU kernel; recorded)."""
    axis = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    norm = F.maximum(F.sqrt(F.sum(F.square(input_x), axis, True)), epsilon)
    return (dout - out * F.sum(out * dout, axis, True)) / norm
