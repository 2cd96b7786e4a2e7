"""Box regression targets (the R-CNN parametrization, MindSpore 2.10's CPU kernels): BoundingBoxEncode
/ ops.bounding_box_encode and BoundingBoxDecode / ops.bounding_box_decode, as decompositions.
Boxes are (x1, y1, x2, y2) rows of pixel coordinates, widths counted inclusively (x2 - x1 + 1).
Values recorded from the wheel in tests/conformance/cases_prim33.py."""
import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry

_F16_32 = frozenset({mstype.float16, mstype.float32})


def _four(what):
    def check(v, op_name):
        if not isinstance(v, (tuple, list)) or len(v) != 4:
            raise OpValueError(f"For '{op_name}', the length of '{what}' must be 4, but got {v}.")
        for e in v:
            if isinstance(e, bool) or not isinstance(e, (int, float)):
                raise OpTypeError(f"For '{op_name}', the elements of '{what}' must be float, but got {v}.")
    return check


def _check_boxes(op_name, a, b, names):
    for n, t in zip(names, (a, b)):
        if len(t.shape) != 2 or t.shape[1] != 4:
            raise OpValueError(f"For '{op_name}', '{n}' must be of shape (n, 4), but got {list(t.shape)}.")
    if a.shape[0] != b.shape[0]:
        raise OpValueError(f"For '{op_name}', '{names[0]}' and '{names[1]}' must have the same number of boxes, "
                           f"but got {a.shape[0]} and {b.shape[0]}.")


def _columns(boxes):
    return [F.getitem(boxes, (slice(None), i)) for i in range(4)]


def _centre_size(boxes):
    x1, y1, x2, y2 = _columns(boxes)
    return (x1 + x2) * 0.5, (y1 + y2) * 0.5, x2 - x1 + 1.0, y2 - y1 + 1.0


def _const(values, dt):
    from pycompile.common.tensor import Tensor
    return Tensor._wrap(np.array(values, dtype=dt.np))


@op_entry("bounding_box_encode", primitive="BoundingBoxEncode",
          args=[Arg("anchor_box", dtypes=_F16_32), Arg("groundtruth_box", dtypes=_F16_32),
                Arg("means", "value", default=(0.0, 0.0, 0.0, 0.0), init=True, check=_four("means")),
                Arg("stds", "value", default=(1.0, 1.0, 1.0, 1.0), init=True, check=_four("stds"))])
def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """Per box: ((gx - px) / pw, (gy - py) / ph, log(gw / pw), log(gh / ph)), minus `means`, over `stds`."""
    _check_boxes("BoundingBoxEncode", anchor_box, groundtruth_box, ("anchor_box", "groundtruth_box"))
    px, py, pw, ph = _centre_size(anchor_box)
    gx, gy, gw, gh = _centre_size(groundtruth_box)
    deltas = F.stack([(gx - px) / pw, (gy - py) / ph, F.log(gw / pw), F.log(gh / ph)], -1)
    dt = anchor_box.dtype
    return (deltas - _const(means, dt)) / _const(stds, dt)


def _check_max_shape(v, op_name):
    if not isinstance(v, (tuple, list)) or len(v) != 2:
        raise OpValueError(f"For '{op_name}', the length of 'max_shape' must be 2, but got {v}.")


def _check_clip(v, op_name):
    if isinstance(v, bool) or not isinstance(v, float):
        raise OpTypeError(f"For '{op_name}', the 'wh_ratio_clip' must be float, but got {type(v).__name__}.")


_DECODE_ARGS = [Arg("means", "value", default=(0.0, 0.0, 0.0, 0.0), init=True, check=_four("means")),
                Arg("stds", "value", default=(1.0, 1.0, 1.0, 1.0), init=True, check=_four("stds")),
                Arg("wh_ratio_clip", "value", default=0.016, init=True, check=_check_clip)]


def _decode(anchor_box, deltas, max_shape, means, stds, wh_ratio_clip):
    _check_boxes("BoundingBoxDecode", anchor_box, deltas, ("anchor_box", "deltas"))
    dt = anchor_box.dtype
    d = deltas * _const(stds, dt) + _const(means, dt)
    dx, dy, dw, dh = _columns(d)
    limit = abs(math.log(wh_ratio_clip))
    dw, dh = F.clamp(dw, -limit, limit), F.clamp(dh, -limit, limit)
    px, py, pw, ph = _centre_size(anchor_box)
    gx, gy = px + pw * dx, py + ph * dy
    gw, gh = pw * F.exp(dw), ph * F.exp(dh)
    h, w = max_shape
    x1 = F.clamp(gx - gw * 0.5 + 0.5, 0, w)
    y1 = F.clamp(gy - gh * 0.5 + 0.5, 0, h)
    x2 = F.clamp(gx + gw * 0.5 - 0.5, 0, w)
    y2 = F.clamp(gy + gh * 0.5 - 0.5, 0, h)
    return F.stack([x1, y1, x2, y2], -1)


@op_entry("bounding_box_decode_primitive", primitive="BoundingBoxDecode", functional=False,
          args=[Arg("anchor_box", dtypes=_F16_32), Arg("deltas", dtypes=_F16_32),
                Arg("max_shape", "value", init=True, check=_check_max_shape)] + _DECODE_ARGS)
def bounding_box_decode_primitive(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0),
                                  stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    """The Primitive form (its constructor takes max_shape first)."""
    return _decode(anchor_box, deltas, max_shape, means, stds, wh_ratio_clip)


@op_entry("bounding_box_decode", prim_name="BoundingBoxDecode",
          args=[Arg("anchor_box", dtypes=_F16_32), Arg("deltas", dtypes=_F16_32),
                Arg("max_shape", "value", check=_check_max_shape)] + [
              Arg(a.name, "value", default=a.default, check=a.check) for a in _DECODE_ARGS])
def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip=0.016):
    """Boxes from anchors and deltas (the inverse of bounding_box_encode): the width / height log-ratios
    clipped to |log(wh_ratio_clip)|, the corners clipped to [0, w] and [0, h] for max_shape (h, w) (MindSpore 2.10: not w - 1)."""
    return _decode(anchor_box, deltas, max_shape, means, stds, wh_ratio_clip)
