"""Position-sensitive ROI pooling (R-FCN): the PSROIPooling Primitive (`ops.operations.nn_ops`) and
its gradient PSROIPoolingGrad (`ops.operations._grad_ops`), as decompositions.

features (B, output_dim * group_size^2, H, W); rois (B, 5, R), each roi (batch index, x1, y1, x2, y2)
in image coordinates; the output (B * R, output_dim, group_size, group_size). Roi n is
rois[n // R, :, n % R]. Its box on the feature map is [round(x1 * scale), round(x2 * scale)) by
[round(y1 * scale), round(y2 * scale)) (C's round, half away from zero; at least 0.1 wide), cut
into group_size^2 bins: bin (i, j) spans floor(i * bin + start) to ceil((i + 1) * bin + start),
clipped to the map, and output channel c of bin (i, j) averages input channel
(c * group_size + i) * group_size + j over it (0 for an empty bin). The bounds are computed in
the rois' dtype, as MindSpore 2.10's CPU kernels do.

Two MindSpore 2.10 CPU facts followed (recorded: tests/conformance/cases_prim33.py): the forward
kernel clips a bin's end to H - 1 / W - 1 (the last row and column are never read) while the
gradient clips to H / W. Not followed: the forward kernel reads the rois buffer as (B * R, 5)
rows, right only for R = 1 (with R > 1 it reads other rois' coordinates as batch indices, and
out of bounds); here both use the documented (B, 5, R) layout, as the gradient kernel does.
"""
import numpy as np

from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError, apply
from pycompile.ops.entry import ENTRIES, Arg, op_entry

_FLOATS = frozenset({mstype.float16, mstype.float32, mstype.float64})


def _const(v):
    from pycompile.common.tensor import Tensor
    return Tensor._wrap(np.array(v, order="C"))


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _positive_int(what):
    def check(v, op_name):
        if isinstance(v, bool):
            raise OpTypeError(f"For '{op_name}', the '{what}' must be int and must > 0, but got '{v}' with type "
                              f"'bool'.")
        if not _is_int(v):
            raise OpTypeError(f"For '{op_name}', the '{what}' must be int, but got '{type(v).__name__}'")
        if v <= 0:
            raise OpValueError(f"For '{op_name}', the '{what}' must be int and must > 0, but got '{v}' with type "
                               f"'int'.")
    return check


def _check_scale(v, op_name):
    if not isinstance(v, float):
        raise OpTypeError(f"For '{op_name}', the 'spatial_scale' must be float, but got '{type(v).__name__}'")
    if not v > 0:
        raise OpValueError(f"For '{op_name}', the 'spatial_scale' must be float and must > 0, but got '{v}' with "
                           f"type 'float'.")


def _check_input_size(v, op_name):
    if _is_int(v):
        v = (v, v)
    elif not isinstance(v, tuple):
        raise OpTypeError(f"For '{op_name}', the type of 'input_size' should be one of '['int', 'tuple']', but got "
                          f"type '{type(v).__name__}'.")
    if len(v) != 2:
        raise OpValueError(f"For '{op_name}', 'input_size' must be an int or a tuple of 2 ints, but got {v}.")
    for i, d in enumerate(v):
        _positive_int(f"input_size[{i}]")(d, op_name)


_ATTRS = [Arg("spatial_scale", "value", init=True, check=_check_scale),
          Arg("group_size", "value", init=True, check=_positive_int("group_size")),
          Arg("output_dim", "value", init=True, check=_positive_int("output_dim"))]


def _round(v):
    """C's round: half away from zero."""
    return F.select(v < 0, F.neg(F.floor(F.neg(v) + 0.5)), F.floor(v + 0.5))


def _rois_rows(op_name, rois):
    s = tuple(rois.shape)
    if len(s) != 3:
        raise OpRuntimeError(f"For '{op_name}', the dimension of 'rois' should be equal 3, but got: {len(s)}")
    if s[1] != 5:
        raise OpRuntimeError(f"For '{op_name}', input[rois].shape[1] is expected to be 5, but got {s[1]}.")
    return F.reshape(F.transpose(rois, (0, 2, 1)), (s[0] * s[2], 5))


def _edges(lo, hi, group_size, size, dt):
    """Bin starts and ends (N, group_size), int32, clipped to [0, size]."""
    extent = F.maximum(hi - lo, _const(np.array(0.1, dt.np)))
    width = extent / float(group_size)
    k = _const(np.arange(group_size, dtype=dt.np))
    start = F.floor(F.expand_dims(width, 1) * k + F.expand_dims(lo, 1))
    end = F.ceil(F.expand_dims(width, 1) * (k + 1) + F.expand_dims(lo, 1))
    clip = (lambda t: F.cast(F.clamp(t, 0, size), mstype.int32))
    return clip(start), clip(end)


def _bins(rows, scale, group_size, h_max, w_max):
    """Per roi: its batch index (N,), the row and column masks of its bins (N, g, H) / (N, g, W)
    as the rows' dtype, and each bin's area (N, g, g)."""
    dt = rows.dtype
    field = [F.reshape(F.getitem(rows, (slice(None), slice(i, i + 1))), (rows.shape[0],)) for i in range(5)]
    batch = F.cast(field[0], mstype.int32)
    scale = _const(np.array(scale, dt.np))
    hs, he = _edges(_round(field[2] * scale), _round(field[4] * scale), group_size, h_max, dt)
    ws, we = _edges(_round(field[1] * scale), _round(field[3] * scale), group_size, w_max, dt)

    def mask(start, end, n):
        pos = _const(np.arange(n, dtype=np.int32))
        inside = F.logical_and(F.expand_dims(start, 2) <= pos, pos < F.expand_dims(end, 2))
        return F.cast(inside, dt)

    area = F.expand_dims(F.maximum(he - hs, 0), 2) * F.expand_dims(F.maximum(we - ws, 0), 1)
    return batch, mask, (hs, he), (ws, we), F.cast(area, dt)


def _per_bin_masks(features_hw, rows, scale, group_size, clip_last):
    h, w = features_hw
    batch, mask, (hs, he), (ws, we), area = _bins(rows, scale, group_size, h - clip_last, w - clip_last)
    return batch, mask(hs, he, h), mask(ws, we, w), area


@op_entry("ps_roi_pooling_primitive", primitive="PSROIPooling", functional=False,
          args=[Arg("features", dtypes=_FLOATS), Arg("rois", dtypes=_FLOATS)] + _ATTRS)
def ps_roi_pooling_primitive(features, rois, spatial_scale, group_size, output_dim):
    """Each roi's bins averaged over their own channel group of the roi's image."""
    name = "PSROIPooling"
    if features.dtype != rois.dtype:
        raise OpTypeError(f"For '{name}', input[features] is expected to have the same type with input[rois], "
                          f"but got type (Tensor[{features.dtype}], Tensor[{rois.dtype}]).")
    fs = tuple(features.shape)
    if len(fs) != 4:
        raise OpRuntimeError(f"For '{name}', input 'features' shape must be 4d(NCHW), but got: {len(fs)}")
    g = group_size
    if fs[1] != g * g * output_dim:
        raise OpRuntimeError(f"For '{name}', the second dimension({fs[1]}) of the input 'features' is illegal, it is "
                             f"not equal to group_size({g}) * group_size({g}) * output_dim({output_dim}).")
    rows = _rois_rows(name, rois)
    if tuple(rois.shape)[0] != fs[0]:
        raise OpRuntimeError(f"For '{name}', the batch number of input 'features' and 'rois' must be equal, but "
                             f"got: {fs[0]} and {tuple(rois.shape)[0]}respectively.")
    n, (h, w) = tuple(rows.shape)[0], fs[2:]
    batch, hm, wm, area = _per_bin_masks((h, w), rows, spatial_scale, g, clip_last=1)
    x = F.reshape(F.gather(features, batch, 0), (n, output_dim, g, g, h, w))
    x = F.sum(x * F.reshape(wm, (n, 1, 1, g, 1, w)), -1)                 # (n, od, g, g, h)
    total = F.sum(x * F.reshape(hm, (n, 1, g, 1, h)), -1)                 # (n, od, g, g)
    area = F.reshape(area, (n, 1, g, g))
    return F.select(area > 0, total / F.maximum(area, 1.0), F.zeros_like(total))


@op_entry("ps_roi_pooling_grad_primitive", primitive="PSROIPoolingGrad", functional=False,
          args=[Arg("x", dtypes=frozenset({mstype.float32})), Arg("rois", dtypes=frozenset({mstype.float32})),
                Arg("input_size", "value", init=True, check=_check_input_size)] + _ATTRS)
def ps_roi_pooling_grad_primitive(x, rois, input_size, spatial_scale, group_size, output_dim):
    """PSROIPooling's gradient: each bin's gradient spread evenly over the bin, into the roi's image
    and the bin's channel group; (rois.shape[0], output_dim * group_size^2, *input_size)."""
    name = "PSROIPoolingGrad"
    h, w = (input_size, input_size) if _is_int(input_size) else tuple(input_size)
    g = group_size
    rows = _rois_rows(name, rois)
    n, ds = tuple(rows.shape)[0], tuple(x.shape)
    rs = tuple(rois.shape)
    if len(ds) != 4 or ds[0] != n:
        raise OpRuntimeError(f"For '{name}', input[0].shape[0]({ds[0] if ds else ds}) should be equal to "
                             f"input[1].shape[0]({rs[0]}) * input[1].shape[2]({rs[2]}), but it's not true.")
    if ds[1] != output_dim:
        raise OpValueError(f"For '{name}', the channel of input feature is invalid, got: {ds[1]}, must be equal to "
                           f"output_dim: {output_dim}.")
    for axis in (2, 3):
        if ds[axis] != g:
            raise OpRuntimeError(f"For '{name}', input[0].shape[{axis}]({ds[axis]}) should be equal to "
                                 f"group_size({g}), but it's not true.")
    batch, hm, wm, area = _per_bin_masks((h, w), rows, spatial_scale, g, clip_last=0)
    area = F.reshape(area, (n, 1, g, g))
    share = F.select(area > 0, x / F.maximum(area, 1.0), F.zeros_like(x))
    spread = F.reshape(share, (n, output_dim, g, g, 1, 1)) * F.reshape(hm, (n, 1, g, 1, h, 1)) \
        * F.reshape(wm, (n, 1, 1, g, 1, w))
    spread = F.reshape(spread, (n, output_dim * g * g, h, w))
    zeros = F.zeros((rs[0], output_dim * g * g, h, w), x.dtype)
    return apply(P.TensorScatterAdd, [zeros, F.reshape(batch, (n, 1)), spread])


def _exactly_two_inputs(cls):
    """MindSpore checks PSROIPoolingGrad's input count first, with a ValueError."""
    call = cls.__call__

    def __call__(self, *args, **kwargs):
        if len(args) + len(kwargs) != 2:
            raise OpValueError(f"For primitive[PSROIPoolingGrad], the input number must be equal to 2, but got "
                               f"{len(args) + len(kwargs)}.")
        return call(self, *args, **kwargs)

    cls.__call__ = __call__


_exactly_two_inputs(ENTRIES["ps_roi_pooling_grad_primitive"].primitive_cls)
