"""The C loops of Svd (pycompile/ops/defs/linalg.py): a one-sided Jacobi SVD per matrix for small
matrices, LAPACK's dgesdd (through the OpenBLAS the runtime links) for the others.

Measured (CPU time per call of a compiled `ops.norm(x, 2)` of an n x n float32 matrix, one
thread, load 5.5-6.5 on 2 cores, medians of 5-7 interleaved rounds [ranges]): Jacobi alone
against NumPy's `np.linalg.norm(x, 2)` (dgesdd, values only): n = 8: 0.008 ms (NumPy 0.026),
n = 32: 0.28 ms (0.07), n = 128: 15.4 ms (1.0), n = 256: 130 ms (5.3) - its sweeps of O(m n^2)
scalar rotations lose to a blocked bidiagonalization as n grows. Jacobi against dgesdd, both
compiled: n = 4: 1.7 us [1.7-2.0] / 3.9 [3.5-4.2]; n = 6: 4.4 [4.0-4.6] / 5.9 [5.1-7.4]; n = 8:
7.9 [7.7-8.8] / 7.5 [6.5-10.4]; n = 12: 24.6 [24.0-25.5] / 13.6 [11.4-17.6]; n = 16: 52.1 / 17.3.
So matrices with min(m, n) <= JACOBI_MAX = 8 use Jacobi (no workspace, no library call, the
smallest singular values to high relative accuracy), larger ones `scipy_LAPACKE_dgesdd` (the
scipy-openblas32 build exports LAPACKE with that prefix and 32-bit integers; column-major input
so LAPACKE transposes nothing; jobz 'N' when only the values are read); with it a compiled
ord=2 norm costs what NumPy's does (n = 128: 0.98 ms / 1.08; n = 256: 5.15 / 5.19). Both compute
in double. The batch of matrices runs in parallel with Jacobi and in order with LAPACK (its
BLAS calls are pinned to one thread by the module).

Jacobi, per matrix: W is the matrix as columns (its transpose when it has more columns than
rows, so W is R x C with R >= C), V starts as the identity; each sweep rotates every column
pair (p, q) so they become orthogonal, applying the same rotation to V, until a sweep rotates
nothing. Then the singular values are the columns' norms, the left vectors the normalized
columns, the right vectors V's columns; they are ordered by decreasing value.
"""
from __future__ import annotations

import math

from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.templates import template

MAX_SWEEPS = 60          # Jacobi converges quadratically; 6-10 sweeps is typical in double
JACOBI_MAX = 8           # the largest min(m, n) computed by Jacobi (see the measurements above)


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
    part = n.attrs.get("part", "s")
    if k > JACOBI_MAX:
        _gesdd(ctx, w, x, out, batch, m, cols, k, part)
        return
    R, Cc = max(m, cols), k
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


def _gesdd(ctx, w, x, out: str, batch: int, m: int, cols: int, k: int, part: str):
    """LAPACK's divide-and-conquer SVD per matrix: A copied column-major to double, the values
    (jobz 'N') or the reduced factors ('S'), written back row-major in the output dtype."""
    ctx.use_blas()
    ct = C.compute(x.type.dtype)
    jobz = "N" if part == "s" else "S"
    w.line("{")
    with w.indent():
        w.line("extern int32_t scipy_LAPACKE_dgesdd(int, char, int32_t, int32_t, double *, int32_t, double *, "
               "double *, int32_t, double *, int32_t);")
        w.line(f"double *const A = (double *)malloc(sizeof(double) * ({m * cols}L + {k}L + {m * k}L + {k * cols}L));")
        w.line(f"double *const S = A + {m * cols}L, *const U = S + {k}L, *const VT = U + {m * k}L;")
        w.line(f"for (long b = 0; b < {batch}L; ++b) {{")
        with w.indent():
            w.line(f"const {ct} *const X = {ctx.ptr(x)} + b * {m * cols}L;")
            w.line(f"for (long j = 0; j < {cols}L; ++j) for (long i = 0; i < {m}L; ++i) "
                   f"A[j * {m}L + i] = (double)X[i * {cols}L + j];")
            w.line(f"const int32_t info = scipy_LAPACKE_dgesdd(102, '{jobz}', {m}, {cols}, A, {m}, S, U, {m}, VT, {k});")
            w.line(f"if (info != 0) for (long r = 0; r < {k}L; ++r) S[r] = NAN;     /* did not converge */")
            if part == "s":
                w.line(f"for (long r = 0; r < {k}L; ++r) {out}[b * {k}L + r] = ({ct})S[r];")
            elif part == "u":
                w.line(f"for (long i = 0; i < {m}L; ++i) for (long r = 0; r < {k}L; ++r) "
                       f"{out}[b * {m * k}L + i * {k}L + r] = ({ct})(info ? NAN : U[r * {m}L + i]);")
            else:
                w.line(f"for (long j = 0; j < {cols * k}L; ++j) {out}[b * {cols * k}L + j] = ({ct})(info ? NAN : VT[j]);")
        w.line("}")
        w.line("free(A);")
    w.line("}")


@template("matrix_solve")
def _matrix_solve(ctx, w, n):
    """LAPACK's gesv per matrix (row-major LAPACKE, so only `adjoint` transposes while copying):
    float32 through sgesv as NumPy's float32 solve, float64 through dgesv, float16 in float32.
    A singular matrix gives NaN."""
    a, b = n.inputs
    at = a.type
    out = ctx.out(n)
    m, k = at.shape[-1], n.type.shape[-1]
    batch = math.prod(at.shape[:-2])
    if batch == 0 or m == 0 or k == 0:
        return
    ctx.use_blas()
    ct = C.compute(at.dtype)
    wt, fn = ("double", "dgesv") if ct == "double" else ("float", "sgesv")
    adjoint = bool(n.attrs.get("adjoint", False))
    w.line("{")
    with w.indent():
        w.line(f"extern int32_t scipy_LAPACKE_{fn}(int, int32_t, int32_t, {wt} *, int32_t, int32_t *, {wt} *, int32_t);")
        w.line(f"{wt} *const A = ({wt} *)malloc(sizeof({wt}) * ({m * m}L + {m * k}L));")
        w.line(f"{wt} *const B = A + {m * m}L;")
        w.line(f"int32_t *const piv = (int32_t *)malloc(sizeof(int32_t) * {m}L);")
        with w.block(f"for (long t = 0; t < {batch}L; ++t)"):
            src = f"t * {m * m}L + j * {m}L + i" if adjoint else f"t * {m * m}L + i * {m}L + j"
            w.line(f"for (long i = 0; i < {m}L; ++i) for (long j = 0; j < {m}L; ++j) "
                   f"A[i * {m}L + j] = ({wt}){C.load(ctx.ptr(a), src, at.dtype)};")
            w.line(f"for (long r = 0; r < {m * k}L; ++r) B[r] = ({wt}){C.load(ctx.ptr(b), f't * {m * k}L + r', at.dtype)};")
            w.line(f"const int32_t info = scipy_LAPACKE_{fn}(101, {m}, {k}, A, {m}, piv, B, {k});")
            w.line(f"for (long r = 0; r < {m * k}L; ++r) " +
                   C.store(out, f"t * {m * k}L + r", f"info ? NAN : B[r]", at.dtype))
        w.line("free(piv); free(A);")
    w.line("}")
