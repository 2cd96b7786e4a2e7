"""C renderings of the backprop scatters (pycompile/ops/defs/backprop.py)."""
from __future__ import annotations

import math

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops import memops
from pycompile.backend.c.ops.templates import template


def _prod(xs) -> int:
    return math.prod(xs) if xs else 1


@template("slice_grad")
def _slice_grad(ctx, w, n):
    """out = zeros(shape); out[begin:end:strides] = dy (the positions StridedSlice read)."""
    out, g = ctx.out(n), ctx.input(n, 0)
    shape, gshape = tuple(n.attrs["shape"]), n.inputs[0].type.shape
    begin, strides = n.attrs["begin"], n.attrs["strides"]
    memops.zero(w, out, n.type.nbytes)
    if _prod(gshape) == 0:
        return
    nd = len(shape)
    in_strides = [_prod(shape[d + 1:]) for d in range(nd)]
    base = sum(b * s for b, s in zip(begin, in_strides))
    inner = gshape[-1] if nd else 1
    step = strides[-1] * in_strides[-1] if nd else 1
    with w.block(f"for (long o = 0; o < {_prod(gshape[:-1])}L; ++o)"):
        w.line(f"long rem = o, off = {base}L;")
        for d in range(nd - 2, -1, -1):
            w.line(f"off += (rem % {gshape[d]}L) * {strides[d] * in_strides[d]}L; rem /= {gshape[d]}L;")
        with w.block(f"for (long i = 0; i < {inner}L; ++i)"):
            w.line(f"{out}[off + i * {step}L] = {g}[o * {inner}L + i];")


@template("gather_grad")
def _gather_grad(ctx, w, n):
    """out = zeros(shape); out[.., idx[k], ..] += dy[.., k, ..] along `axis` (serial over k:
    repeated indices accumulate)."""
    out, g = ctx.out(n), ctx.input(n, 0)
    idx = n.inputs[1]
    shape = tuple(n.attrs["shape"])
    axis = n.attrs.get("axis", 0) % len(shape)
    outer, size, inner = _prod(shape[:axis]), shape[axis], _prod(shape[axis + 1:])
    m = _prod(idx.type.shape) if isinstance(idx.type, TensorType) else 1
    dt = n.type.dtype
    ct = C.compute(dt)
    memops.zero(w, out, n.type.nbytes)
    if outer * m * inner == 0:
        return
    ix = f"({ctx.scalar(idx)})" if isinstance(idx.type, ScalarType) else f"{ctx.ptr(idx)}[k]"
    with w.block(f"for (long o = 0; o < {outer}L; ++o)"):
        with w.block(f"for (long k = 0; k < {m}L; ++k)"):
            w.line(f"int64_t ix = (int64_t){ix}; if (ix < 0) ix += {size}L;")
            w.line(f"const long dst = (o * {size}L + ix) * {inner}L, src = (o * {m}L + k) * {inner}L;")
            with w.block(f"for (long i = 0; i < {inner}L; ++i)"):
                acc = f"({ct}){C.load(out, 'dst + i', dt)} + ({ct}){C.load(g, 'src + i', dt)}"
                w.line(C.store(out, "dst + i", acc, dt) if dt is mstype.float16 or dt.is_bool
                       else f"{out}[dst + i] += {g}[src + i];")
