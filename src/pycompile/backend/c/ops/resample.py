"""C for the per-axis resampling behind padding and resizing (ops/defs/resample.py) and its
transpose. The index / weight tables are static arrays; with inner axes after the resampled
one, each output row is a vector loop over them (a resize along H moves whole rows of W)."""
from __future__ import annotations

import math

from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.conv import split_elements
from pycompile.backend.c.ops.templates import template
from pycompile.backend.c.ops.writer import scope


def _prod(xs) -> int:
    return math.prod(xs) if xs else 1


def _tables(w, name, index, weight, ct):
    for t, (idx, wt) in enumerate(zip(index, weight)):
        w.line(f"static const int32_t {name}i{t}[{len(idx)}] = {{{', '.join(str(i) for i in idx)}}};")
        w.line(f"static const {ct} {name}w{t}[{len(wt)}] = {{{', '.join(C.literal(v, ct) for v in wt)}}};")


@template("resample")
def _resample(ctx, w, n):
    x = n.inputs[0]
    shape = x.type.shape
    axis = n.attrs["axis"] % len(shape)
    index, weight = n.attrs["index"], n.attrs["weight"]
    out = ctx.out(n)
    if n.type.size == 0:
        return
    outer, n_in, inner = _prod(shape[:axis]), shape[axis], _prod(shape[axis + 1:])
    L = len(index[0])
    ct, st = C.compute(n.type.dtype), C.storage(n.type.dtype)
    xp = ctx.ptr(x)
    name = f"rs_{ctx.kernel_name(n)}"
    taps = range(len(index))
    with scope(w):
        _tables(w, name, index, weight, ct)
        w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_elements(n.type.size)})")
        if inner == 1:
            # the last axis: per row a gathering vector loop over the outputs
            with w.block(f"for (long o = 0; o < {outer}L; ++o)"):
                w.line(f"const {st} *const src = {xp} + o * {n_in}L; {st} *const dst = {out} + o * {L}L;")
                total = " + ".join(f"{name}w{t}[i] * src[{name}i{t}[i]]" for t in taps)
                w.line("#pragma omp simd")
                with w.block(f"for (long i = 0; i < {L}L; ++i)"):
                    w.line(f"dst[i] = ({st})({total});")
            return
        with w.block(f"for (long oi = 0; oi < {outer * L}L; ++oi)"):
            w.line(f"const long o = oi / {L}L, i = oi % {L}L;")
            w.line(f"{st} *const dst = {out} + oi * {inner}L;")
            for t in taps:
                w.line(f"const {st} *const s{t} = {xp} + (o * {n_in}L + {name}i{t}[i]) * {inner}L; "
                       f"const {ct} c{t} = {name}w{t}[i];")
            total = " + ".join(f"c{t} * s{t}[r]" for t in taps)
            w.line("#pragma omp simd")
            with w.block(f"for (long r = 0; r < {inner}L; ++r)"):
                w.line(f"dst[r] = ({st})({total});")


@template("resample_grad")
def _resample_grad(ctx, w, n):
    g = n.inputs[0]
    shape = g.type.shape
    axis = n.attrs["axis"] % len(shape)
    index, weight, size = n.attrs["index"], n.attrs["weight"], n.attrs["size"]
    out = ctx.out(n)
    if n.type.size == 0:
        return
    outer, L, inner = _prod(shape[:axis]), shape[axis], _prod(shape[axis + 1:])
    ct, st = C.compute(n.type.dtype), C.storage(n.type.dtype)
    gp = ctx.ptr(g)
    name = f"rg_{ctx.kernel_name(n)}"
    with scope(w):
        _tables(w, name, index, weight, ct)
        w.line(f"memset({out}, 0, sizeof({st}) * {n.type.size}L);")
        # each outer slice is written by one thread only
        w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_elements(g.type.size) if outer >= 2 else '0'})")
        with w.block(f"for (long o = 0; o < {outer}L; ++o)"):
            with w.block(f"for (long i = 0; i < {L}L; ++i)"):
                w.line(f"const {st} *const src = {gp} + (o * {L}L + i) * {inner}L;")
                for t in range(len(index)):
                    with scope(w):
                        w.line(f"{st} *const d = {out} + (o * {size}L + {name}i{t}[i]) * {inner}L; "
                               f"const {ct} c = {name}w{t}[i];")
                        if inner > 1:
                            w.line("#pragma omp simd")
                        with w.block(f"for (long r = 0; r < {inner}L; ++r)"):
                            w.line(f"d[r] += ({st})(c * src[r]);")
