"""The C loop of Svd (pycompile/ops/defs/linalg.py): a one-sided Jacobi SVD per matrix.

Why Jacobi and not LAPACK: the OpenBLAS the runtime links (scipy-openblas32) does export
LAPACKE (as `scipy_LAPACKE_dgesdd`, a build-specific prefix), but the matrices whose norms
model code takes are small, and one-sided Jacobi (Hestenes) is short, needs no workspace query,
gives the smallest singular values to high relative accuracy (ord=-2 is the smallest one,
which a bidiagonalizing SVD gets only to an accuracy relative to the largest) and is
deterministic, so the factors the gradient asks for in a second call pair up with the values
of the first. It costs a few sweeps of O(m n^2) flops: at 256 x 256 it is slower than a
blocked LAPACK SVD, so a large-matrix user would want gesdd (measured: see the report in
tests/compiler/test_svd.py's module docstring).

Per matrix, in double precision: W is the matrix as columns (its transpose when it has more
columns than rows, so W is R x C with R >= C), V starts as the identity; each sweep rotates
every column pair (p, q) so they become orthogonal, applying the same rotation to V, until a
sweep rotates nothing. Then the singular values are the columns' norms, the left vectors the
normalized columns, the right vectors V's columns; they are ordered by decreasing value.
Matrices run in parallel, each thread with its own scratch.
"""
from __future__ import annotations

import math

from pycompile.ops.c import ctypes_ as C
from pycompile.ops.c.templates import template

MAX_SWEEPS = 60          # Jacobi converges quadratically; 6-10 sweeps is typical in double


@template("svd")
def _svd(ctx, w, n):
    x = n.inputs[0]
    xt = x.type
    out = ctx.out(n)
    m, cols = xt.shape[-2:]
    k = min(m, cols)
    batch = math.prod(xt.shape[:-2])
    if batch == 0 or k == 0:
        return
    R, Cc = max(m, cols), k
    part = n.attrs.get("part", "s")
    tall = m >= cols
    ct = C.compute(xt.dtype)
    xp = ctx.ptr(x)
    # which factor part 'u' / 'v' is: the normalized columns ("left") or V ("right")
    side = "s" if part == "s" else ("left" if (part == "u") == tall else "right")
    rows_out = m if part == "u" else cols
    w.line("{")
    with w.indent():
        w.line(f"#pragma omp parallel for schedule(static) num_threads(nt) if({batch} > 1)")
        w.line(f"for (long b = 0; b < {batch}L; ++b) {{")
        with w.indent():
            w.line(f"double *const W = (double *)malloc(sizeof(double) * ({R * Cc}L + {Cc * Cc}L + {Cc}L));")
            w.line(f"long *const order = (long *)malloc(sizeof(long) * {Cc}L);")
            w.line(f"double *const V = W + {R * Cc}L; double *const S = V + {Cc * Cc}L;")
            w.line(f"const {ct} *const A = {xp} + b * {m * cols}L;")
            # W column j, row i: A[i][j] (tall) or A[j][i] (wide: the transpose)
            w.line(f"for (long j = 0; j < {Cc}L; ++j) for (long i = 0; i < {R}L; ++i)")
            w.line(f"  W[j * {R}L + i] = (double)A[{'i * %dL + j' % cols if tall else 'j * %dL + i' % cols}];")
            w.line(f"for (long j = 0; j < {Cc}L; ++j) for (long i = 0; i < {Cc}L; ++i) V[j * {Cc}L + i] = i == j;")
            w.line(f"for (int sweep = 0; sweep < {MAX_SWEEPS}; ++sweep) {{")
            w.line("  int rotated = 0;")
            w.line(f"  for (long p = 0; p + 1 < {Cc}L; ++p) for (long q = p + 1; q < {Cc}L; ++q) {{")
            w.line(f"    double *const wp = W + p * {R}L, *const wq = W + q * {R}L;")
            w.line("    double a = 0.0, c2 = 0.0, g = 0.0;")
            w.line(f"    for (long i = 0; i < {R}L; ++i) {{ a += wp[i] * wp[i]; c2 += wq[i] * wq[i]; g += wp[i] * wq[i]; }}")
            w.line("    if (!(fabs(g) > 1e-15 * sqrt(a * c2))) continue;")
            w.line("    rotated = 1;")
            w.line("    const double zeta = (c2 - a) / (2.0 * g);")
            w.line("    const double t = (zeta >= 0.0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));")
            w.line("    const double cs = 1.0 / sqrt(1.0 + t * t), sn = cs * t;")
            w.line(f"    for (long i = 0; i < {R}L; ++i) {{ const double u0 = wp[i], u1 = wq[i]; "
                   "wp[i] = cs * u0 - sn * u1; wq[i] = sn * u0 + cs * u1; }")
            w.line(f"    double *const vp = V + p * {Cc}L, *const vq = V + q * {Cc}L;")
            w.line(f"    for (long i = 0; i < {Cc}L; ++i) {{ const double u0 = vp[i], u1 = vq[i]; "
                   "vp[i] = cs * u0 - sn * u1; vq[i] = sn * u0 + cs * u1; }")
            w.line("  }")
            w.line("  if (!rotated) break;")
            w.line("}")
            w.line(f"for (long j = 0; j < {Cc}L; ++j) {{")
            w.line("  double s2 = 0.0;")
            w.line(f"  for (long i = 0; i < {R}L; ++i) s2 += W[j * {R}L + i] * W[j * {R}L + i];")
            w.line("  S[j] = sqrt(s2); order[j] = j;")
            w.line("}")
            # decreasing values; equal values keep their column order
            w.line(f"for (long r = 1; r < {Cc}L; ++r) {{ const long o = order[r]; long j = r;")
            w.line("  while (j > 0 && S[order[j - 1]] < S[o]) { order[j] = order[j - 1]; --j; } order[j] = o; }")
            if side == "s":
                w.line(f"for (long r = 0; r < {Cc}L; ++r) {out}[b * {Cc}L + r] = ({ct})S[order[r]];")
            elif side == "left":
                w.line(f"for (long i = 0; i < {rows_out}L; ++i) for (long r = 0; r < {Cc}L; ++r) {{")
                w.line("  const double s = S[order[r]];")
                w.line(f"  {out}[b * {rows_out * Cc}L + i * {Cc}L + r] = "
                       f"({ct})(s > 0.0 ? W[order[r] * {R}L + i] / s : 0.0); }}")
            else:
                w.line(f"for (long i = 0; i < {rows_out}L; ++i) for (long r = 0; r < {Cc}L; ++r)")
                w.line(f"  {out}[b * {rows_out * Cc}L + i * {Cc}L + r] = ({ct})V[order[r] * {Cc}L + i];")
            w.line("free(order); free(W);")
        w.line("}")
    w.line("}")
