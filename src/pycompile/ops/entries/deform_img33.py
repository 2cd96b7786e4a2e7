"""Deformable convolution (issue 33, img33): nn_ops.DeformableOffsets, its gradient
_grad_ops.DeformableOffsetsGrad, and ops.deformable_conv2d, as decompositions.

DeformableOffsets(strides, pads, ksize, dilations, data_format, deformable_groups, modulated)
(x, offsets) samples, for every output place (oh, ow) and kernel tap (i, j), the input at
    y = oh * stride_h - pad_top + i * dilation_h + dy,   x = ow * stride_w - pad_left + j * dilation_w + dx
bilinearly (a corner outside the image reads 0; a place at or beyond one pixel outside reads 0),
times the tap's mask. offsets (N, 3 * G * kh * kw, OH, OW) holds, in this order, the x offsets,
the y offsets and the masks, each G * kh * kw channels (group-major, then the taps row by row);
channel group g of x (C / G channels) uses group g's offsets. The result (N, C, OH * kh, OW * kw)
puts tap (i, j) of place (oh, ow) at (oh * kh + i, ow * kw + j), so deformable_conv2d is a
convolution of it with stride (kh, kw). Layout and edge rules recorded from the wheel
(tests/conformance/cases_img33.py). The gradient also takes NHWC (the same values channels-last);
MindSpore's forward refuses it. float16 is computed in float32, as MindSpore's kernels do. The
gradient takes the output places from the offsets' (OH, OW), as MindSpore's does.

The samples are GatherD reads of the flattened image at the four corners, so the gradient of the
decomposition is a scatter-add back to the corners; DeformableOffsetsGrad writes that gradient
directly: d x scattered with TensorScatterElements, d offsets from the bilinear weights' slopes.
"""
import numpy as np

from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry

_F16_32 = frozenset({mstype.float16, mstype.float32})


def _const(v):
    from pycompile.common.tensor import Tensor
    return Tensor._wrap(np.array(v, order="C"))


def _ints(what, n, positive=True):
    def check(v, op_name):
        if not isinstance(v, (tuple, list)) or len(v) != n or \
                any(not isinstance(d, int) or isinstance(d, bool) for d in v):
            raise OpTypeError(f"For '{op_name}', the '{what}' must be a tuple of {n} int, but got {v}.")
        if any(d < (1 if positive else 0) for d in v):
            raise OpValueError(f"For '{op_name}', the '{what}' must be {'positive' if positive else 'non-negative'}, "
                               f"but got {v}.")
    return check


def _check_format(v, op_name):
    if v not in ("NCHW", "NHWC"):
        raise OpValueError(f"For '{op_name}', the 'data_format' must be 'NCHW' or 'NHWC', but got {v}.")


def _check_groups(v, op_name):
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise OpValueError(f"For '{op_name}', the 'deformable_groups' must be a positive int, but got {v}.")


def _check_modulated(v, op_name):
    if v is not True:
        raise OpValueError(f"For '{op_name}', only 'modulated' True is supported on the CPU, but got {v}.")


def _attrs(kernel_name):
    return [Arg("strides", "value", init=True, check=_ints("strides", 4)),
            Arg("pads", "value", init=True, check=_ints("pads", 4, positive=False)),
            Arg(kernel_name, "value", init=True, check=_ints(kernel_name, 2)),
            Arg("dilations", "value", default=(1, 1, 1, 1), init=True, check=_ints("dilations", 4)),
            Arg("data_format", "value", default="NCHW", init=True, check=_check_format),
            Arg("deformable_groups", "value", default=1, init=True, check=_check_groups),
            Arg("modulated", "value", default=True, init=True, check=_check_modulated)]


class _Plan:
    """Where each tap samples: corner indices into the flattened image and their weights."""

    def __init__(self, op, x_shape, offsets, strides, pads, ksize, dilations, groups, dt, from_offsets=False):
        n, c, h, w = x_shape
        kh, kw = ksize
        sh, sw, dh, dw = strides[2], strides[3], dilations[2], dilations[3]
        oh = (h + pads[0] + pads[1] - (dh * (kh - 1) + 1)) // sh + 1
        ow = (w + pads[2] + pads[3] - (dw * (kw - 1) + 1)) // sw + 1
        if from_offsets and offsets.ndim == 4:
            # MindSpore's gradient takes the output places from the offsets (test_deformable_offsets_grad
            # passes 1 x 1 offsets for a 4 x 4 image and a 3 x 3 kernel)
            oh, ow = tuple(offsets.shape)[2:]
        k = kh * kw
        if c % groups:
            raise OpValueError(f"For '{op}', the channels of 'x' ({c}) must be divisible by 'deformable_groups' "
                               f"({groups}).")
        if tuple(offsets.shape) != (n, 3 * groups * k, oh, ow):
            raise OpValueError(f"For '{op}', the shape of 'offsets' must be {[n, 3 * groups * k, oh, ow]}, but got "
                               f"{list(offsets.shape)}.")
        self.dims = (n, c, h, w, oh, ow, kh, kw, groups)
        off = F.reshape(offsets, (n, 3, groups, k, oh * ow))
        part = [F.reshape(F.getitem(off, (slice(None), slice(t, t + 1))), (n, groups, k, oh * ow)) for t in range(3)]
        self.mask = part[2]
        base_y = (np.arange(oh) * sh - pads[0])[None, :] + (np.arange(kh) * dh)[:, None]     # (kh, oh)
        base_x = (np.arange(ow) * sw - pads[2])[None, :] + (np.arange(kw) * dw)[:, None]     # (kw, ow)
        base_y = np.broadcast_to(base_y[:, None, :, None], (kh, kw, oh, ow)).reshape(k, oh * ow)
        base_x = np.broadcast_to(base_x[None, :, None, :], (kh, kw, oh, ow)).reshape(k, oh * ow)
        y = part[1] + _const(base_y.astype(dt.np))
        x = part[0] + _const(base_x.astype(dt.np))
        inside = F.logical_and(F.logical_and(y > -1.0, y < float(h)), F.logical_and(x > -1.0, x < float(w)))
        y0, x0 = F.floor(y), F.floor(x)
        self.ly, self.lx = y - y0, x - x0
        self.hy, self.hx = 1.0 - self.ly, 1.0 - self.lx
        self.inside = inside
        self.corners = []          # (flat index, weight, valid) of (y0, x0), (y0, x1), (y1, x0), (y1, x1)
        for cy, wy in ((y0, self.hy), (y0 + 1.0, self.ly)):
            for cx, wx in ((x0, self.hx), (x0 + 1.0, self.lx)):
                valid = F.logical_and(inside, F.logical_and(F.logical_and(cy >= 0.0, cy <= float(h - 1)),
                                                            F.logical_and(cx >= 0.0, cx <= float(w - 1))))
                yi = F.cast(F.clamp(cy, 0.0, float(h - 1)), mstype.int32)
                xi = F.cast(F.clamp(cx, 0.0, float(w - 1)), mstype.int32)
                self.corners.append((yi * w + xi, wy * wx, valid))

    def per_channel(self, v):
        """(N, G, K, L) -> (N, C, K * L): each group's values for each of its channels."""
        n, c, _, _, oh, ow, kh, kw, g = self.dims
        v = F.broadcast_to(F.expand_dims(v, 2), (n, g, c // g, kh * kw, oh * ow))
        return F.reshape(v, (n, c, kh * kw * oh * ow))

    def per_group(self, v):
        """(N, C, K * L) summed over each group's channels -> (N, G, K, L)."""
        n, c, _, _, oh, ow, kh, kw, g = self.dims
        return F.sum(F.reshape(v, (n, g, c // g, kh * kw, oh * ow)), 2)

    def read(self, flat, corner):
        index, _, valid = corner
        got = F.gather_elements(flat, 2, self.per_channel(index))
        return F.select(self.per_channel(valid), got, F.zeros_like(got))


def _up(x):
    """float16 is computed in float32 (MindSpore's kernel does: its float16 results are float32's,
    rounded once)."""
    return F.cast(x, mstype.float32) if x.dtype == mstype.float16 else x


def _nchw(x, data_format):
    return F.transpose(x, (0, 3, 1, 2)) if data_format == "NHWC" else x


def _back(x, data_format):
    return F.transpose(x, (0, 2, 3, 1)) if data_format == "NHWC" else x


def _same_dtype(op, **tensors):
    dts = {k: v.dtype for k, v in tensors.items()}
    if len(set(dts.values())) > 1:
        raise OpTypeError(f"For '{op}', the inputs must have the same dtype, but got {dts}.")


@op_entry("deformable_offsets_img33", primitive="DeformableOffsets", functional=False,
          args=[Arg("x", dtypes=_F16_32), Arg("offsets", dtypes=_F16_32)] + _attrs("ksize"))
def deformable_offsets(x, offsets, strides, pads, ksize, dilations=(1, 1, 1, 1), data_format="NCHW",
                       deformable_groups=1, modulated=True):
    """The sampled, masked taps of every output place: (N, C, OH * kh, OW * kw)."""
    op = "DeformableOffsets"
    _same_dtype(op, x=x, offsets=offsets)
    if data_format != "NCHW":
        # MindSpore 2.10's shape check reads x and offsets as NCHW whatever data_format says, so an
        # NHWC call fails there (recorded: deformable_offsets_nhwc); its gradient takes NHWC
        raise OpValueError(f"For '{op}', only the 'NCHW' data_format is supported, but got {data_format}.")
    if x.ndim != 4 or offsets.ndim != 4:
        raise OpValueError(f"For '{op}', 'x' and 'offsets' must be 4-D, but got {x.ndim}-D and {offsets.ndim}-D.")
    xs, offs = _nchw(_up(x), data_format), _nchw(_up(offsets), data_format)
    plan = _Plan(op, tuple(xs.shape), offs, strides, pads, ksize, dilations, deformable_groups, xs.dtype)
    n, c, h, w, oh, ow, kh, kw, _ = plan.dims
    flat = F.reshape(xs, (n, c, h * w))
    total = None
    for corner in plan.corners:
        term = plan.read(flat, corner) * plan.per_channel(corner[1])
        total = term if total is None else total + term
    out = total * plan.per_channel(plan.mask)
    out = F.transpose(F.reshape(out, (n, c, kh, kw, oh, ow)), (0, 1, 4, 2, 5, 3))
    return F.cast(_back(F.reshape(out, (n, c, oh * kh, ow * kw)), data_format), x.dtype)


@op_entry("deformable_offsets_grad_img33", primitive="DeformableOffsetsGrad", functional=False,
          args=[Arg("grad", dtypes=_F16_32), Arg("x", dtypes=_F16_32), Arg("offsets", dtypes=_F16_32)]
          + _attrs("kernel_size"))
def deformable_offsets_grad(grad, x, offsets, strides, pads, kernel_size, dilations=(1, 1, 1, 1),
                            data_format="NCHW", deformable_groups=1, modulated=True):
    """(d x, d offsets) of DeformableOffsets for the output gradient `grad`."""
    op = "DeformableOffsetsGrad"
    _same_dtype(op, grad=grad, x=x, offsets=offsets)
    xs, offs, g = _nchw(_up(x), data_format), _nchw(_up(offsets), data_format), _nchw(_up(grad), data_format)
    plan = _Plan(op, tuple(xs.shape), offs, strides, pads, kernel_size, dilations, deformable_groups, xs.dtype,
                 from_offsets=True)
    n, c, h, w, oh, ow, kh, kw, groups = plan.dims
    if tuple(g.shape) != (n, c, oh * kh, ow * kw):
        raise OpValueError(f"For '{op}', the shape of 'grad' must be {[n, c, oh * kh, ow * kw]}, but got "
                           f"{list(g.shape)}.")
    g = F.reshape(F.transpose(F.reshape(g, (n, c, oh, kh, ow, kw)), (0, 1, 3, 5, 2, 4)), (n, c, kh * kw * oh * ow))
    flat = F.reshape(xs, (n, c, h * w))
    values = [plan.read(flat, corner) for corner in plan.corners]           # v00, v01, v10, v11
    mask = plan.per_channel(plan.mask)
    gm = g * mask
    dx = F.zeros((n, c, h * w), xs.dtype)
    for (index, weight, valid), _ in zip(plan.corners, values):
        upd = F.select(plan.per_channel(valid), gm * plan.per_channel(weight), F.zeros_like(gm))
        dx = F.tensor_scatter_elements(dx, plan.per_channel(index), upd, 2, "add")
    hy, ly, hx, lx = (plan.per_channel(v) for v in (plan.hy, plan.ly, plan.hx, plan.lx))
    v00, v01, v10, v11 = values
    d_y = (v10 - v00) * hx + (v11 - v01) * lx
    d_x = (v01 - v00) * hy + (v11 - v10) * ly
    sample = v00 * hy * hx + v01 * hy * lx + v10 * ly * hx + v11 * ly * lx
    inside = plan.per_channel(plan.inside)
    zero = F.zeros_like(gm)
    d_off_x = plan.per_group(F.select(inside, gm * d_x, zero))
    d_off_y = plan.per_group(F.select(inside, gm * d_y, zero))
    d_mask = plan.per_group(g * sample)
    d_off = F.reshape(F.stack((d_off_x, d_off_y, d_mask), 1), (n, 3 * groups * kh * kw, oh, ow))
    return (F.cast(_back(F.reshape(dx, (n, c, h, w)), data_format), x.dtype),
            F.cast(_back(d_off, data_format), x.dtype))


def _pair(v, what, op):
    if isinstance(v, int) and not isinstance(v, bool):
        return (v, v)
    if isinstance(v, (tuple, list)) and len(v) == 2:
        return tuple(v)
    raise OpTypeError(f"For '{op}', the '{what}' must be an int or a tuple of two int, but got {v}.")


@op_entry("deformable_conv2d",
          args=[Arg("x", dtypes=_F16_32), Arg("weight", dtypes=_F16_32), Arg("offsets", dtypes=_F16_32),
                Arg("kernel_size", "value"), Arg("strides", "value"), Arg("padding", "value"),
                Arg("bias", "value", default=None), Arg("dilations", "value", default=(1, 1, 1, 1)),
                Arg("groups", "value", default=1), Arg("deformable_groups", "value", default=1),
                Arg("modulated", "value", default=True)])
def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None, dilations=(1, 1, 1, 1),
                      groups=1, deformable_groups=1, modulated=True):
    """Deformable convolution: DeformableOffsets' taps convolved with `weight` at stride kernel_size
    (+ bias per output channel)."""
    ksize = _pair(kernel_size, "kernel_size", "deformable_conv2d")
    taps = deformable_offsets(x, offsets, tuple(strides), tuple(padding), ksize, tuple(dilations), "NCHW",
                              deformable_groups, modulated)
    out = F.conv2d(taps, weight, None, ksize, "valid", 0, 1, groups)
    if bias is not None:
        out = F.bias_add(out, bias)
    return out
