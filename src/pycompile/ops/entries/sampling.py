"""Spatial-transformer sampling: affine_grid (AffineGrid) and grid_sample (GridSampler2D /
GridSampler3D), MindSpore 2.10's, as decompositions over gathers and elementwise ops, so they
run in both modes, differentiate with respect to the input and the grid, and batch under vmap.

grid_sample: input (N, C, H, W) with grid (N, Ho, Wo, 2), or (N, C, D, H, W) with grid
(N, Do, Ho, Wo, 3); grid[..., 0] is x (the width axis), [..., 1] y, [..., 2] z, in [-1, 1].
Coordinates are unnormalized as ((g + 1) / 2) (size - 1) with align_corners, else
((g + 1) size - 1) / 2; padding 'zeros' (taps outside read 0), 'border' (coordinates clipped),
'reflection' (coordinates reflected at the borders, at the pixel centres with align_corners,
else at the pixel edges, then clipped); mode 'bilinear' (trilinear for 5-D) weighs the 2^d
neighbours, 'nearest' rounds half to even. Values recorded from the wheel
(tests/conformance/cases_sampling.py)."""
from __future__ import annotations

import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry


# ---- affine_grid ------------------------------------------------------------------------------------
def _base(n, align_corners):
    """The n normalized pixel-centre coordinates of one axis."""
    if n <= 1:
        return np.zeros(max(n, 0), np.float64)
    if align_corners:
        return np.linspace(-1.0, 1.0, n)
    return (np.arange(n) * 2.0 + 1.0) / n - 1.0


def _check_size(size):
    if not isinstance(size, tuple):
        raise OpTypeError(f"For 'AffineGrid', the type of 'output_size' should be tuple, but got {type(size).__name__}")
    return size


@op_entry("affine_grid", primitive="AffineGrid",
          args=[Arg("theta", dtypes=frozenset({mstype.float16, mstype.float32})), Arg("size", "value", check=lambda v, o: _check_size(v)),
                Arg("align_corners", "value", default=False, init=True)])
def affine_grid(theta, size, align_corners=False):
    """The sampling grid of the affine maps theta (N, 2, 3) or (N, 3, 4) for an output of size
    (N, C, H, W) or (N, C, D, H, W)."""
    shape = tuple(theta.shape)
    if len(shape) != 3 or shape[1:] not in ((2, 3), (3, 4)):
        raise OpValueError(f"For 'AffineGrid', the shape of 'theta' must be (N, 2, 3) or (N, 3, 4), but got {shape}")
    spatial = shape[1]
    if len(size) != spatial + 2:
        raise OpValueError(f"For 'AffineGrid', the length of 'output_size' must be {spatial + 2} for a theta of shape "
                           f"{shape}, but got {len(size)}")
    if size[0] != shape[0]:
        raise OpValueError(f"For 'AffineGrid', the first element of 'output_size' ({size[0]}) must equal the batch of "
                           f"'theta' ({shape[0]})")
    dims = size[2:]                                    # (H, W) or (D, H, W)
    axes = [_base(d, align_corners) for d in dims]
    mesh = np.meshgrid(*axes, indexing="ij")           # each of shape dims
    coords = [m.reshape(-1) for m in reversed(mesh)]   # x (width) first
    base = np.stack(coords + [np.ones_like(coords[0])], axis=-1).astype(np.float32)   # (P, spatial + 1)
    base_t = F.cast(Tensor(base), theta.dtype)
    out = ops.matmul(F.broadcast_to(base_t, (shape[0],) + base.shape), ops.transpose(theta, (0, 2, 1)))
    return F.reshape(out, (shape[0],) + tuple(dims) + (spatial,))


# ---- grid_sample -------------------------------------------------------------------------------------
def _unnormalize(g, size, align_corners):
    if align_corners:
        return F.mul(F.add(g, 1.0), (size - 1) / 2.0)
    return F.div(F.sub(F.mul(F.add(g, 1.0), float(size)), 1.0), 2.0)


def _reflect(c, twice_low, twice_high):
    """Reflect c into [twice_low / 2, twice_high / 2] as often as needed."""
    if twice_low == twice_high:
        return F.zeros_like(c)
    low = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    c = F.abs(F.sub(c, low))
    extra = ops.fmod(c, span)
    flips = F.floor(F.div(c, span))
    even = F.equal(ops.fmod(flips, 2.0), 0.0)
    return F.select(even, F.add(extra, low), F.add(F.sub(span, extra), low))


def _source(g, size, padding_mode, align_corners):
    c = _unnormalize(g, size, align_corners)
    if padding_mode == "border":
        c = ops.clamp(c, 0.0, float(size - 1))
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = ops.clamp(c, 0.0, float(size - 1))
    return c


def _gather(flat, lin, channels):
    """flat (N, C, S)[n, :, lin[n, p]] -> (N, C, P)."""
    n, p = lin.shape
    index = F.broadcast_to(F.reshape(lin, (n, 1, p)), (n, channels, p))
    return ops.gather_elements(flat, 2, index)


def _tap(flat, idx, sizes, channels, dtype):
    """The values at the integer coordinates idx (per spatial axis, (N, P) int32), 0 outside."""
    valid = None
    lin = None
    stride = 1
    for i, size in zip(reversed(idx), reversed(sizes)):       # last axis first
        ok = F.logical_and(F.ge(i, 0), F.lt(i, size))
        valid = ok if valid is None else F.logical_and(valid, ok)
        part = F.mul(ops.clamp(i, 0, size - 1), stride)
        lin = part if lin is None else F.add(lin, part)
        stride *= size
    vals = _gather(flat, lin, channels)
    return F.mul(vals, F.expand_dims(F.cast(valid, dtype), 1))


def _grid_sample(name, input, grid, mode, padding_mode, align_corners):
    if mode not in ("bilinear", "nearest"):
        raise OpValueError(f"For '{name}', the 'mode' must be 'bilinear' or 'nearest' ('bicubic' is not supported "
                           f"yet), but got '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise OpValueError(f"For '{name}', the 'padding_mode' must be 'zeros', 'border' or 'reflection', but got "
                           f"'{padding_mode}'")
    nd = input.ndim - 2
    if input.ndim not in (4, 5) or grid.ndim != input.ndim or grid.shape[-1] != nd or grid.shape[0] != input.shape[0]:
        raise OpValueError(f"For '{name}', 'input' must be 4-D or 5-D and 'grid' (N, ..., {max(nd, 2)}) with the same "
                           f"rank and batch, but got input {tuple(input.shape)} and grid {tuple(grid.shape)}")
    n, channels = input.shape[0], input.shape[1]
    sizes = tuple(input.shape[2:])
    out_sp = tuple(grid.shape[1:-1])
    p = math.prod(out_sp)
    flat = F.reshape(input, (n, channels, math.prod(sizes)))
    g = F.reshape(grid, (n, p, nd))
    # coordinate of each spatial axis (in input-axis order: z, y, x), grid order is x, y, z
    coords = [_source(g[:, :, nd - 1 - a], sizes[a], padding_mode, align_corners) for a in range(nd)]
    if mode == "nearest":
        idx = [F.cast(ops.round(c), mstype.int32) for c in coords]
        out = _tap(flat, idx, sizes, channels, input.dtype)
    else:
        lows = [F.floor(c) for c in coords]
        fracs = [F.sub(c, lo) for c, lo in zip(coords, lows)]
        low_i = [F.cast(lo, mstype.int32) for lo in lows]
        out = None
        for corner in range(1 << nd):
            bits = [(corner >> (nd - 1 - a)) & 1 for a in range(nd)]
            weight = None
            idx = []
            for a, b in enumerate(bits):
                w = fracs[a] if b else F.sub(1.0, fracs[a])
                weight = w if weight is None else F.mul(weight, w)
                idx.append(F.add(low_i[a], b) if b else low_i[a])
            term = F.mul(_tap(flat, idx, sizes, channels, input.dtype), F.expand_dims(weight, 1))
            out = term if out is None else F.add(out, term)
    return F.reshape(out, (n, channels) + out_sp)


_FLOATS = frozenset({mstype.float16, mstype.float32, mstype.float64})


@op_entry("grid_sample", amp="promote", args=[Arg("input", dtypes=_FLOATS), Arg("grid", dtypes=_FLOATS),
                               Arg("mode", "value", default="bilinear"), Arg("padding_mode", "value", default="zeros"),
                               Arg("align_corners", "value", default=None)])
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input sampled at the normalized locations of grid (4-D: bilinear / nearest; 5-D: trilinear /
    nearest), with zeros / border / reflection padding."""
    name = "GridSampler2D" if input.ndim == 4 else "GridSampler3D"
    return _grid_sample(name, input, grid, mode, padding_mode, bool(align_corners))


def _sampler_primitive(nd):
    prim = f"GridSampler{nd}D"

    def impl(input_x, grid, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False):
        if input_x.ndim != nd + 2:
            raise OpValueError(f"For '{prim}', 'input_x' must be {nd + 2}-D, but got {input_x.ndim}-D")
        return _grid_sample(prim, input_x, grid, interpolation_mode, padding_mode, align_corners)
    impl.__doc__ = f"The Primitive form of grid_sample for {nd + 2}-D inputs."
    impl.__name__ = f"grid_sampler_{nd}d"
    args = [Arg("input_x", dtypes=_FLOATS), Arg("grid", dtypes=_FLOATS),
            Arg("interpolation_mode", "value", default="bilinear", init=True),
            Arg("padding_mode", "value", default="zeros", init=True),
            Arg("align_corners", "value", default=False, init=True)]
    op_entry(f"grid_sampler_{nd}d", primitive=prim, functional=False, amp="promote", args=args)(impl)


_sampler_primitive(2)
_sampler_primitive(3)
