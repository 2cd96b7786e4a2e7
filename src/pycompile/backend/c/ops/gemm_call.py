"""The C call of one matrix product (kernels.gemm's units): OpenBLAS, or the runtime's own
float32 kernel (csrc/gemm.c) with BLAS behind it. The one place a product's call is written.

The kernel's `tb` argument carries flags beside the transpose (csrc/pycompile_rt.h): 2 prefetch
op(b), 4 keep its packing (CodeGen.weight_flags), 8 op(b) already packed, and GEMM_RELU (ABI 10):
the kernel applies ReLU to each finished value as it stores its tile, after the bias and the
residual - a Dense + ReLU layer's whole epilogue, with no pass over the output (issue 37: W4
B=1024 on one thread spent 0.1-0.4 ms per Dense + ReLU layer in that pass), and GEMM_TA (ABI 11): A
is stored transposed and read in place.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.writer import CWriter

GEMM_RELU = 16
GEMM_TA = 32            # ABI 11: A stored transposed, read in place (gemm_call.transposed_rows)
SWAP = [True]           # swap_operands's switch (one process compares both forms)


def product(w: CWriter, fn: str, small: bool, ta: bool, tb: bool, m: str, n: str, K: int, a: str, lda: int, b: str,
            ldb: int, c: str, ldc: int, beta: str = "0.0", bias: str | None = None, res: str | None = None,
            weights: int = 0, packed: str | None = None) -> None:
    """C statements for c = op(a) @ op(b) (+ beta * c) (m x n, inner K): BLAS, or - for a small
    product - the runtime's kernel (csrc/gemm.c) through the module's pointer pc_sgemm_nt (set from
    pc_api.sgemm_nt at load, codegen's module head), with BLAS when the pointer is NULL (a CPU
    without AVX-512, a C caller's table without it) or the kernel's panel buffer cannot be
    allocated. With `bias` (n floats) or `res` (m x n, row stride ldc; small products only) the
    kernel is pc_sgemm_ep: c = res + (product + bias), made as it stores; behind it, BLAS and then
    a pass making them. `weights` (2, 4, GEMM_RELU) goes into the kernel's `tb` beside the
    transpose; with GEMM_RELU the call goes through pc_sgemm_epr (pc_api.sgemm_ep from an ABI 10
    table: an older kernel would ignore the bit) and the pass behind it applies ReLU too."""
    relu = bool(weights & GEMM_RELU)
    blas = (f"{fn}(CblasRowMajor, {'CblasTrans' if ta else 'CblasNoTrans'}, {'CblasTrans' if tb else 'CblasNoTrans'}, "
            f"(int){m}, (int){n}, {K}, 1.0, {a}, {lda}, {b}, {ldb}, {beta}, {c}, {ldc});")
    assert small or not relu, "a fused ReLU for a product off the small kernel"
    if not small:
        w.line(blas)
        return
    flags = int(tb) | weights
    if packed is not None:
        # `packed`: a C pointer to op(b) already packed for the kernel (gemm's shared packing), or NULL
        assert not relu, "a fused ReLU with a shared packing"
        w.line(f"if (!pc_sgemm_nt || pc_sgemm_nt({m}, {n}, {K}L, {a}, {lda}L, {packed} ? {packed} : {b}, "
               f"{packed} ? 64L : {ldb}L, {flags} | ({packed} ? 8 : 0), {c}, {ldc}L))")
        w.line("    " + blas)
        return
    if bias is None and res is None and not relu:
        w.line(f"if (!pc_sgemm_nt || pc_sgemm_nt({m}, {n}, {K}L, {a}, {lda}L, {b}, {ldb}L, {flags}, {c}, {ldc}L))")
        w.line("    " + blas)
        return
    ep = "pc_sgemm_epr" if relu else "pc_sgemm_ep"
    with w.block(f"if (!{ep} || {ep}({m}, {n}, {K}L, {a}, {lda}L, {b}, {ldb}L, {flags}, {c}, {ldc}L, "
                 f"{bias or 0}, {res or 0}, {ldc}L))"):
        w.line(blas)
        with w.block(f"for (long i = 0; i < {m}; ++i)"):
            with w.block(f"for (long j = 0; j < {n}; ++j)"):
                w.line(f"float v = ({c})[i * {ldc}L + j];")
                folds(w, "v", bias, None if res is None else f"({res})[i * {ldc}L + j]", relu)
                w.line(f"({c})[i * {ldc}L + j] = v;")


def folds(w: CWriter, v: str, bias: str | None, res_at: str | None, relu: bool) -> None:
    """The additions and ReLU the kernel makes as it stores (pc_sgemm_ep), on the float `v` at
    column j, each rounded in turn as the kernel rounds them: v + bias[j], then res_at + v, then
    ReLU as the elementwise ReLU's C (backend/c/ops/elementwise.py): NaN and -0 give +0."""
    if bias is not None:
        w.line(f"{v} = {v} + ({bias})[j];")
    if res_at is not None:
        w.line(f"{v} = {res_at} + {v};")
    if relu:
        w.line(f"{v} = {v} > 0 ? {v} : 0;")


def transposed_rows(w, fn: str, tb: bool, N: int, K: int, lda: int, ldb: int, weights: int = 0) -> None:
    """One unit (rows r0..r1 of matrix bi, A transposed) of kernels._small_transposed's products:
    the small kernel reading A in place (tb & 32, through pc_sgemm_ntt: an ABI 11 table's kernel);
    where it declines (the AVX2 kernel) or the table is older, op(A)'s rows into a scratch block
    (16 of A's rows at a time, so its reads stream) and the kernel on it - the same sums either
    way; BLAS on A as stored where the block cannot be allocated, the table has no kernel (then no
    block is made: W5's weight gradients copied 256 KB a step for nothing on a CPU without it) or
    the kernel declines. `weights` (2, 4: CodeGen.weight_flags) goes into the kernel's `tb` beside
    the transpose: a Parameter's packing kept across calls (W4 B=64's last layer, 64 x 10 x 512
    from h^T: on OpenBLAS until it was passed)."""
    assert not weights & GEMM_RELU, "a fused ReLU for a product with A transposed"
    flags = int(tb) | weights
    w.line(f"const int in_place = pc_sgemm_ntt && !pc_sgemm_ntt(r1 - r0, {N}, {K}L, A + r0, {lda}L, B, {ldb}L, "
           f"{flags | GEMM_TA}, O + r0 * {N}L, {N}L);")
    with w.block("if (!in_place)"):
        w.line(f"float *const At = pc_sgemm_nt ? (float *)malloc(sizeof(float) * (r1 - r0) * {K}L) : 0;")
        with w.block("if (At)"):
            with w.block(f"for (long k0 = 0; k0 < {K}L; k0 += 16)"):
                w.line(f"const long k1 = k0 + 16 < {K}L ? k0 + 16 : {K}L;")
                with w.block("for (long i = r0; i < r1; ++i)"):
                    w.line(f"for (long k = k0; k < k1; ++k) At[(i - r0) * {K}L + k] = A[k * {lda}L + i];")
        w.line(f"if (!At || !pc_sgemm_nt || pc_sgemm_nt(r1 - r0, {N}, {K}L, At, {K}L, B, {ldb}L, {flags}, "
               f"O + r0 * {N}L, {N}L))")
        w.line(f"    {fn}(CblasRowMajor, CblasTrans, {'CblasTrans' if tb else 'CblasNoTrans'}, (int)(r1 - r0), {N}, "
               f"{K}, 1.0f, A + r0, {lda}, B, {ldb}, 0.0f, O + r0 * {N}L, {N});")
        w.line("free(At);")


def half_gemm(w, M, N, K, lda, ldb, a_mat, b_mat, ta, tb):
    """One unit (rows r0..r1 of matrix bi) of a float16 product through sgemm: op(A)'s rows (all
    of A when transposed) and B widened into one scratch block, the float32 result rounded into O."""
    f16 = mstype.float16
    a_len = f"{a_mat}L" if ta else f"(r1 - r0) * {lda}L"
    w.line(f"float *const Af = (float *)malloc(sizeof(float) * ({a_len} + {b_mat}L + (r1 - r0) * {N}L));")
    w.line(f"float *const Bf = Af + {a_len}, *const Of = Bf + {b_mat}L;")
    a_src = "t" if ta else f"r0 * {lda}L + t"
    w.line(f"for (long t = 0; t < {a_len}; ++t) Af[t] = {C.load('A', a_src, f16)};")
    w.line(f"for (long t = 0; t < {b_mat}L; ++t) Bf[t] = {C.load('B', 't', f16)};")
    w.line(f"scipy_cblas_sgemm(CblasRowMajor, {'CblasTrans' if ta else 'CblasNoTrans'}, "
           f"{'CblasTrans' if tb else 'CblasNoTrans'}, (int)(r1 - r0), {N}, {K}, 1.0f, {'Af + r0' if ta else 'Af'}, "
           f"{lda}, Bf, {ldb}, 0.0f, Of, {N});")
    w.line(f"for (long t = 0; t < (r1 - r0) * {N}L; ++t) {C.store('O', f'r0 * {N}L + t', 'Of[t]', f16)}")
    w.line("free(Af);")


def swap_operands(small: bool, nb: int, ta: bool, tb: bool, M: int, N: int, K: int, weights: int) -> bool:
    """Whether gemm() computes out = x W^T (x: M x K, W: N x K, a weight the small kernel would pack
    again on this call - not kept: written in the module, or not a Parameter) as its transpose
    W x^T: W is read in place as the kernel's A and only x is packed, M x K floats instead of N x K
    (W5's 64 x 512 x 784 forward product re-packed its weight every training step: 16 % of its
    time); the result comes back transposed, with the bias, residual and ReLU, in a second pass.
    Each sum is the same k-ordered chain of fused multiply-adds (a x b = b x a exactly): the
    values are the unswapped kernel's, bit for bit. For M a multiple of 64 (whole panels of x)
    and N at least 2M."""
    return (SWAP[0] and small and nb == 1 and not ta and tb and K > 0 and not weights & 4 and M % 64 == 0
            and 2 * M <= N)


def swapped(w: CWriter, fn: str, x: str, lda: int, wt: str, ldb: int, out: str, M: int, N: int, K: int,
            bias, residual, relu: bool, epilogue, parallel_for: str) -> None:
    """swap_operands's product into `out` through T (N x M, allocated by the caller): units of
    W's rows on the pool (each packs x^T itself: the caller takes this form for teams of up to
    4), then out's rows in blocks of 16 from T's columns, each finished as the kernel finishes a
    tile (+ bias, residual +, ReLU) and handed to the epilogue."""
    w.line(f"const long wr = ({N}L + nt - 1) / nt;")
    w.line(parallel_for)
    with w.block("for (long u = 0; u < (long)nt; ++u)"):
        w.line(f"const long j0 = u * wr, j1 = j0 + wr < {N}L ? j0 + wr : {N}L;")
        w.line("if (j0 >= j1) continue;")
        w.line(f"if (!pc_sgemm_nt || pc_sgemm_nt(j1 - j0, {M}, {K}L, {wt} + j0 * {ldb}L, {ldb}L, {x}, {lda}L, 1, "
               f"T + j0 * {M}L, {M}L))")
        w.line(f"    {fn}(CblasRowMajor, CblasNoTrans, CblasTrans, (int)(j1 - j0), {M}, {K}, 1.0f, {wt} + j0 * {ldb}L, "
               f"{ldb}, {x}, {lda}, 0.0f, T + j0 * {M}L, {M});")
    w.line(parallel_for)
    with w.block(f"for (long u = 0; u < {-(-M // 16)}L; ++u)"):
        w.line(f"const long r0 = u * 16L, r1 = r0 + 16L < {M}L ? r0 + 16L : {M}L;")
        with w.block(f"for (long j0 = 0; j0 < {N}L; j0 += 16L)"):
            w.line(f"const long j1 = j0 + 16L < {N}L ? j0 + 16L : {N}L;")
            with w.block("for (long i = r0; i < r1; ++i)"):
                with w.block("for (long j = j0; j < j1; ++j)"):
                    w.line(f"float v = T[j * {M}L + i];")
                    folds(w, "v", bias, None if residual is None else f"({residual})[i * {N}L + j]", relu)
                    w.line(f"({out})[i * {N}L + j] = v;")
        if epilogue is not None:
            w.line(epilogue("r0", "r1"))
