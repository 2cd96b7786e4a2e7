"""The C of the DFT row (ops/defs/fft.py): a direct transform of each line along the axis, the
twiddles cos / sin(2 pi m / n) computed once per call in double, the sums in double."""
from __future__ import annotations

import math

from pycompile.ops._table import norm_axis
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.templates import template


@template("dft")
def _dft(ctx, w, n):
    x = n.inputs[0]
    shape = x.type.shape
    ax = norm_axis("DFT", n.attrs.get("axis", -1), len(shape))
    N = shape[ax]
    A, B = math.prod(shape[:ax]), math.prod(shape[ax + 1:])
    out, src = ctx.out(n), ctx.ptr(x)
    st = C.storage(n.type.dtype)
    part = st.split()[0]
    sign = "" if n.attrs.get("inverse") else "-"
    scale = repr(float(n.attrs.get("scale", 1.0)))
    if A * N * B == 0:
        return
    w.line("{")
    w.line(f"double *pc_tw = (double *)malloc(sizeof(double) * 2 * {N}L);")
    w.line("if (!pc_tw) abort();")
    with w.block(f"for (long m = 0; m < {N}L; ++m)"):
        w.line(f"const double t = 6.283185307179586 * (double)m / (double){N}L;")
        w.line(f"pc_tw[2 * m] = cos(t); pc_tw[2 * m + 1] = {sign}sin(t);")
    with w.block(f"for (long a = 0; a < {A}L; ++a)"):
        with w.block(f"for (long b = 0; b < {B}L; ++b)"):
            with w.block(f"for (long k = 0; k < {N}L; ++k)"):
                w.line("double re = 0, im = 0; long m = 0;")
                with w.block(f"for (long j = 0; j < {N}L; ++j)"):
                    w.line(f"const {st} v = {src}[(a * {N}L + j) * {B}L + b];")
                    w.line(f"const double vr = __builtin_creal{'f' if part == 'float' else ''}(v), "
                           f"vi = __builtin_cimag{'f' if part == 'float' else ''}(v);")
                    w.line("const double c = pc_tw[2 * m], s = pc_tw[2 * m + 1];")
                    w.line("re += vr * c - vi * s; im += vr * s + vi * c;")
                    w.line(f"m += k; if (m >= {N}L) m -= {N}L;")
                w.line(f"{out}[(a * {N}L + k) * {B}L + b] = __builtin_complex(({part})(re * {scale}), "
                       f"({part})(im * {scale}));")
    w.line("free(pc_tw);")
    w.line("}")
