"""ops.ROIAlign: Mask R-CNN's region-of-interest pooling, MindSpore 2.10's CPU kernel's rule, as a
decomposition into gathers and elementwise ops (so PyNative, graph code and the gradient are one
definition, and the gradient for the features is the gathers' scatter-add).

    y = ops.ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1)(x, rois)

x (N, C, H, W); rois (R, 5) rows of (batch index, x1, y1, x2, y2); y (R, C, pooled_height,
pooled_width). Each output bin averages a sample_num x sample_num grid of bilinear samples
(MindSpore's kernel, facts of its source): a ROI spans [x1 * s, (x2 + roi_end_mode) * s] (with
roi_end_mode 0 at least 1 wide and high); a sample at (y, x) outside [-1, H] x [-1, W] counts as 0
(and still counts in the average); otherwise y, x below 0 are 0, a low corner at or past the last
row / column is that row / column with weight 1; the batch index is rounded and must lie in
[0, N - 1] (a RuntimeError otherwise; in graph code when it runs). With sample_num <= 0 each ROI's
grid is floor(its height / pooled_height) x floor(its width / pooled_width): sized by the data, so
it runs in PyNative only (a ROI smaller than a bin then averages nothing: NaN, as the wheel's).

The gradient flows to x only; the ROIs get none, as MindSpore's ROIAlign bprop gives zeros.

Differs from the wheel, on purpose: its kernel skips a ROI whose x1 and x2 are both within 0.001
of 0 and leaves that output row uninitialized (whatever the memory held); it is computed here
like any other ROI (tests/ops/test_roi_align.py does not compare that row).
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic, type_of
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError, apply
from pycompile.ops.primitive import Primitive

_EPS = 0.00007


def _check_int(name, v):
    if not isinstance(v, int) or isinstance(v, bool):
        raise OpTypeError(f"For 'ROIAlign', the type of '{name}' should be 'int', but got type '{type(v).__name__}'.")
    return v


def _axis(coord, size: int):
    """(low index, high index, low weight, high weight, inside) of sample coordinates along an
    axis of `size` pixels (the kernel's bilinear_interpolate, one axis)."""
    f32 = mstype.float32
    inside = F.logical_and(F.greater_equal(coord, -1.0), F.less_equal(coord, float(size)))
    c = F.select(F.less_equal(coord, 0.0), F.zeros_like(coord), coord)
    low = F.select(F.less_equal(c, _EPS), F.zeros_like(c), F.floor(c))
    last = F.greater_equal(low, float(size - 1))
    low = F.select(last, F.fill(f32, low.shape, float(size - 1)), low)
    c = F.select(last, low, c)
    high = F.select(last, low, low + 1.0)
    frac = c - low
    return F.cast(low, mstype.int32), F.cast(high, mstype.int32), 1.0 - frac, frac, inside


def _samples(start, bin_size, bins: int, grid: int):
    """The sample coordinates of every bin of each ROI: start + bin * size + (k + .5) * size / grid,
    (R, bins * grid), bin-major (the kernel's arithmetic, in its order)."""
    k = np.arange(bins * grid)
    whole = Tensor._wrap((k // grid).astype(np.float32))
    part = Tensor._wrap((k % grid + 0.5).astype(np.float32))
    size = F.expand_dims(bin_size, 1)
    return F.expand_dims(start, 1) + whole * size + part * size / float(grid)


class ROIAlign(Primitive):
    """MindSpore's `ops.ROIAlign` (see the module docstring)."""

    def __init__(self, pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1):
        super().__init__("ROIAlign")
        self.pooled_height = _check_int("pooled_height", pooled_height)
        self.pooled_width = _check_int("pooled_width", pooled_width)
        if not isinstance(spatial_scale, float):
            raise OpTypeError(f"For 'ROIAlign', the type of 'spatial_scale' should be 'float', but got type "
                              f"'{type(spatial_scale).__name__}'.")
        self.spatial_scale = spatial_scale
        self.sample_num = _check_int("sample_num", sample_num)
        self.roi_end_mode = _check_int("roi_end_mode", roi_end_mode)
        if roi_end_mode not in (0, 1):
            raise OpValueError(f"For 'ROIAlign', the 'roi_end_mode' must be in [0, 1], but got {roi_end_mode}.")
        self.add_prim_attrs(pooled_height=pooled_height, pooled_width=pooled_width, spatial_scale=spatial_scale,
                            sample_num=sample_num, roi_end_mode=roi_end_mode)

    def __call__(self, features, rois):
        tx, tr = type_of(features), type_of(rois)
        for name, t in (("feature", tx), ("rois", tr)):
            if t.dtype not in (mstype.float16, mstype.float32):
                raise OpTypeError(f"For primitive[ROIAlign], the input argument[{name}] must be a type of "
                                  f"{{Tensor[Float16], Tensor[Float32]}}, but got Tensor[{t.dtype}].")
        if len(tx.shape) != 4:
            raise OpValueError(f"For 'ROIAlign', the dimension of 'features' must be 4, but got {len(tx.shape)}.")
        if len(tr.shape) != 2:
            raise OpValueError(f"For 'ROIAlign', the dimension of 'rois' must be equal to 2, but got "
                               f"{len(tr.shape)}.")
        if tr.shape[1] != 5:
            raise OpValueError(f"The argument[second dim of rois shape] must be equal to 5, but got {tr.shape[1]}.")
        n = tx.shape[0]
        r = F.stop_gradient(F.cast(rois, mstype.float32))
        index = F.floor(r[:, 0] + (_EPS + 0.5))
        if isinstance(rois, Symbolic):
            ok = F.all(F.logical_and(F.greater_equal(index, 0.0), F.less_equal(index, float(n - 1))))
            flag = F.select(ok, F.scalar_to_tensor(0.0, mstype.float32), F.scalar_to_tensor(np.inf, mstype.float32))
            flag = apply(P.CheckFinite, [flag], {"message": f"image_index must be a number in [0,{n - 1}]"})
            index = F.depend(index, flag)
        else:
            values = r.asnumpy()[:, 0]
            bad = (values < 0) | (values > n - 1)
            if bad.any():
                raise OpRuntimeError(f"image_index {values[bad][0]:g} must be a number in [0,{n - 1}]")
        if self.sample_num > 0:
            return self._align(features, r, index, self.sample_num, self.sample_num)
        if isinstance(rois, Symbolic) or isinstance(features, Symbolic):
            raise OpValueError("For 'ROIAlign', a sample_num <= 0 sizes each ROI's sampling grid by its data: it "
                               "runs in PyNative only; give a positive sample_num in graph code")
        return self._adaptive(features, r, index)

    def _bounds(self, r):
        s, mode = self.spatial_scale, float(self.roi_end_mode)
        x1, y1 = r[:, 1] * s, r[:, 2] * s
        width = (r[:, 3] + mode) * s - x1
        height = (r[:, 4] + mode) * s - y1
        if self.roi_end_mode == 0:
            width, height = F.maximum(width, 1.0), F.maximum(height, 1.0)
        return x1, y1, width, height

    def _align(self, features, r, index, grid_h: int, grid_w: int):
        n, c, h, w = type_of(features).shape
        ph, pw = self.pooled_height, self.pooled_width
        x1, y1, width, height = self._bounds(r)
        ys = _samples(y1, height / float(ph), ph, grid_h)             # (R, ph * grid_h)
        xs = _samples(x1, width / float(pw), pw, grid_w)              # (R, pw * grid_w)
        y_lo, y_hi, wy_lo, wy_hi, y_in = _axis(ys, h)
        x_lo, x_hi, wx_lo, wx_hi, x_in = _axis(xs, w)
        dtype = type_of(features).dtype
        rows = F.reshape(F.transpose(F.cast(features, mstype.float32), (0, 2, 3, 1)), (n * h * w, c))
        base = F.expand_dims(F.expand_dims(F.cast(index, mstype.int32) * (h * w), 1), 2)
        inside = F.cast(F.logical_and(F.expand_dims(y_in, 2), F.expand_dims(x_in, 1)), mstype.float32)

        def corner(yi, xi, wy, wx):
            at = base + F.expand_dims(yi * w, 2) + F.expand_dims(xi, 1)          # (R, KY, KX)
            weight = F.expand_dims(F.expand_dims(wy, 2) * F.expand_dims(wx, 1) * inside, 3)
            return weight * F.gather(rows, at, 0)                               # (R, KY, KX, C)

        val = corner(y_lo, x_lo, wy_lo, wx_lo) + corner(y_lo, x_hi, wy_lo, wx_hi) + \
            corner(y_hi, x_lo, wy_hi, wx_lo) + corner(y_hi, x_hi, wy_hi, wx_hi)
        rr = type_of(r).shape[0]
        val = F.reshape(val, (rr, ph, grid_h, pw, grid_w, c))
        out = F.reduce_sum(val, (2, 4)) / float(grid_h * grid_w)                # (R, ph, pw, C)
        return F.cast(F.transpose(out, (0, 3, 1, 2)), dtype)

    def _adaptive(self, features, r, index):
        """sample_num <= 0, PyNative: each ROI on its own grid (floor of its bins' size)."""
        _, _, width, height = self._bounds(r)
        grid_h = np.floor(height.asnumpy() / np.float32(self.pooled_height)).astype(int)
        grid_w = np.floor(width.asnumpy() / np.float32(self.pooled_width)).astype(int)
        outs = []
        for k in range(type_of(r).shape[0]):
            row = r[k:k + 1]
            if grid_h[k] <= 0 or grid_w[k] <= 0:          # no sample in a bin: 0 / 0, as the wheel's
                shape = (1, type_of(features).shape[1], self.pooled_height, self.pooled_width)
                outs.append(F.cast(F.fill(mstype.float32, shape, float("nan")), type_of(features).dtype))
                continue
            outs.append(self._align(features, row, index[k:k + 1], int(grid_h[k]), int(grid_w[k])))
        return F.concat(outs, 0)
