"""The convolution backprops' decompositions (docs/architecture.md, "The core"): the templates'
own algorithm (backend/c/ops/conv.py: im2col / col2im and one product per group) written with core
rows, so each product of the sum is one the template forms, and a NaN or inf reaches exactly
the positions it reaches there.

* ConvBackpropInput(dy, w): cols = W_g^T . dY_g (BatchMatMul over the groups, every image's
  output positions side by side), then col2im: one TensorScatterAdd of every column entry at the
  input position it came from (a table built from the geometry; entries that fall in the padding
  go to a spare slot that is dropped).
* ConvBackpropFilter(dy, x): im2col of x (GatherD of the flattened image with a zero appended,
  padding reading the zero), then dW_g = dY_g . cols_g^T (BatchMatMul with transpose_b).

The templates tile the positions and add the columns back tile by tile (and run stride-1 input
gradients directly): the two agree within the fuzzers' tolerance, not bit for bit.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from pycompile.common.abstract import type_of
from pycompile.common.tensor import Tensor


def _ops():
    from pycompile.ops.defs import array as A, elementwise as E, index as I
    return A, E, I


def _positions(in_sp, k_sp, out_sp, stride, dilation, pads):
    """(RS, P) flat input position of kernel offset r and output position q, -1 in the padding."""
    offs = list(itertools.product(*[range(k) for k in k_sp]))
    outs = list(itertools.product(*[range(o) for o in out_sp]))
    pos = np.full((len(offs), len(outs)), -1, np.int64)
    strides = [math.prod(in_sp[a + 1:]) for a in range(len(in_sp))]
    for r, j in enumerate(offs):
        for q, o in enumerate(outs):
            idx = [o[a] * stride[a] + j[a] * dilation[a] - pads[2 * a] for a in range(len(in_sp))]
            if all(0 <= i < n for i, n in zip(idx, in_sp)):
                pos[r, q] = sum(i * s for i, s in zip(idx, strides))
    return pos


def _geometry(size_x, size_w, stride, dilation, pads, dy_shape):
    sp = len(size_x) - 2
    stride, dilation = tuple(stride or (1,) * sp), tuple(dilation or (1,) * sp)
    pads = tuple(pads or (0,) * (2 * sp))
    return _positions(tuple(size_x[2:]), tuple(size_w[2:]), tuple(dy_shape[2:]), stride, dilation, pads)


def backprop_input_parts(dy, w, input_size=(), stride=None, dilation=None, pads=None, group=1):
    A, E, I = _ops()
    dt, wt = type_of(dy), type_of(w)
    size = tuple(input_size)
    n, c, s = size[0], size[1], math.prod(size[2:])
    k, cg = wt.shape[:2]
    kg, rs = k // group, math.prod(wt.shape[2:])
    pos = _geometry(size, wt.shape, stride, dilation, pads, dt.shape)       # (RS, P)
    p = pos.shape[1]
    wg = E.call(A.Reshape, w, shape=(group, kg, cg * rs))
    yg = E.call(A.Reshape, E.call(A.Transpose, E.call(A.Reshape, dy, shape=(n, group, kg, p)), perm=(1, 2, 0, 3)),
                shape=(group, kg, n * p))
    cols = E.call(A.BatchMatMul, wg, yg, transpose_a=True, transpose_b=False)   # (G, Cg * RS, N * P)
    # each entry (g, c', r, n, q) goes to image n, channel g * Cg + c', position pos[r, q]
    gi = np.arange(group).reshape(group, 1, 1, 1, 1)
    ci = np.arange(cg).reshape(1, cg, 1, 1, 1)
    ni = np.arange(n).reshape(1, 1, 1, n, 1)
    pq = pos.reshape(1, 1, rs, 1, p)
    flat = (ni * c + gi * cg + ci) * s + pq
    flat = np.where(pq < 0, n * c * s, flat).reshape(-1, 1)
    total = n * c * s
    zeros = E.call(A.Fill, shape=(total + 1,), value=0, dtype=dt.dtype)
    out = E.call(I.TensorScatterAdd, zeros, Tensor(flat), E.call(A.Reshape, cols, shape=(flat.shape[0],)))
    out = E.call(A.StridedSlice, out, begin=(0,), end=(total,), strides=(1,))
    return E.call(A.Reshape, out, shape=size)


def backprop_filter_parts(dy, x, filter_size=(), stride=None, dilation=None, pads=None, group=1):
    A, E, I = _ops()
    dt, xt = type_of(dy), type_of(x)
    size = tuple(filter_size)
    n, c, s = xt.shape[0], xt.shape[1], math.prod(xt.shape[2:])
    k, cg = size[:2]
    kg, rs = k // group, math.prod(size[2:])
    pos = _geometry(xt.shape, size, stride, dilation, pads, dt.shape)       # (RS, P)
    p = pos.shape[1]
    # im2col: x's images (N, C, S + 1) with a zero at S that the padding reads
    x3 = E.call(A.Reshape, x, shape=(n, c, s))
    x3 = E.call(A.Concat, (x3, E.call(A.Fill, shape=(n, c, 1), value=0, dtype=xt.dtype)), axis=2)
    table = np.where(pos < 0, s, pos).reshape(1, 1, rs * p)
    cols = E.call(I.GatherD, x3, E.call(A.BroadcastTo, Tensor(table), shape=(n, c, rs * p)), axis=2)
    # (N, G, Cg, RS, P) -> (G, Cg, RS, N, P) -> (G, Cg * RS, N * P)
    cols = E.call(A.Reshape, cols, shape=(n, group, cg, rs, p))
    cols = E.call(A.Reshape, E.call(A.Transpose, cols, perm=(1, 2, 3, 0, 4)), shape=(group, cg * rs, n * p))
    yg = E.call(A.Reshape, E.call(A.Transpose, E.call(A.Reshape, dy, shape=(n, group, kg, p)), perm=(1, 2, 0, 3)),
                shape=(group, kg, n * p))
    dw = E.call(A.BatchMatMul, yg, cols, transpose_a=False, transpose_b=True)     # (G, Kg, Cg * RS)
    return E.call(A.Reshape, dw, shape=size)
