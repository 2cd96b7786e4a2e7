"""The runtime's small-product kernel (csrc/gemm.c, pc_api.sgemm_nt) against OpenBLAS's sgemm (the
library generated code falls back to), one thread each, in one process, rounds interleaved.

    python bench/gemm_kernel.py [--rounds 9] [--shapes 512x64x784T,64x512x512N]

A shape is MxNxK and T (op(B) = B^T, Dense's layout) or N (B as stored), and P where B is a
Parameter the module never writes (tb & 4: the kernel keeps its packing between calls, as it
does for a model's weights; OpenBLAS packs it every call). Each round times every
shape on the kernel, then on OpenBLAS, over enough repetitions for ~20 ms; the table gives each
one's median time, GFLOP/s and the median of the per-round ratios (kernel / OpenBLAS: below 1,
the kernel is faster). The kernel is the one the runtime hands out: AVX-512 where the CPU has it;
PYCOMPILE_SMALL_GEMM=avx2 asks for the AVX2 form (a CPU without AVX-512 has none without it).
Operands are in cache (the same ones every repetition); without P the kernel's packing is timed
too."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

# the products of W4 (B = 64, 1024), W6 L=12, W9, the Dense layers of W5 / W11, a narrow classifier
DEFAULT = ("512x64x784T,512x64x512N,1024x512x784TP,1024x512x512TP,1024x10x512TP,256x128x128TP,"
           "128x512x128TP,64x512x512N,120x64x400T,84x64x120T,512x784x64N,256x512x128TP,1024x512x784T")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--shapes", default=DEFAULT)
    args = ap.parse_args()
    import scipy_openblas32
    from pycompile._rt import ffi, lib

    kern = lib.pc_get_api().sgemm_nt
    if kern == ffi.NULL:
        print("the runtime hands out no product kernel here: a CPU without AVX-512 needs PYCOMPILE_SMALL_GEMM=avx2")
        return 1
    import cffi
    bffi = cffi.FFI()
    bffi.cdef("void scipy_cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,"
              " float, float *, int); void scipy_openblas_set_num_threads(int);")
    blas = bffi.dlopen(os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so"))
    blas.scipy_openblas_set_num_threads(1)
    rng = np.random.default_rng(0)
    cases = []
    for s in args.shapes.split(","):
        keep = s.endswith("P")
        M, N, K = (int(v) for v in s.rstrip("P")[:-1].split("x"))
        tb = s.rstrip("P")[-1] == "T"
        a = rng.standard_normal((M, K)).astype(np.float32)
        b = rng.standard_normal((N, K) if tb else (K, N)).astype(np.float32)
        c1, c2 = np.zeros((M, N), np.float32), np.zeros((M, N), np.float32)
        pa, pb = ffi.cast("float *", a.ctypes.data), ffi.cast("float *", b.ctypes.data)
        p1 = ffi.cast("float *", c1.ctypes.data)
        qa, qb, q2 = (bffi.cast("float *", x.ctypes.data) for x in (a, b, c2))
        ldb = K if tb else N

        def run_k(M=M, N=N, K=K, pa=pa, pb=pb, p1=p1, ldb=ldb, tb=int(tb) | (4 if keep else 0)):
            return kern(M, N, K, pa, K, pb, ldb, tb, p1, N)

        def run_b(M=M, N=N, K=K, qa=qa, qb=qb, q2=q2, ldb=ldb, tb=tb):
            blas.scipy_cblas_sgemm(101, 111, 112 if tb else 111, M, N, K, 1.0, qa, K, qb, ldb, 0.0, q2, N)

        if run_k():     # the AVX2 kernel declines N >= 512 with K >= 512 (gemm_avx2.c): BLAS runs those
            print(f"{s:>16} declined by the kernel: generated code calls OpenBLAS")
            continue
        run_b()
        np.testing.assert_allclose(c1, c2, rtol=1e-4, atol=1e-4 * np.sqrt(K), err_msg=s)     # unit normals
        reps = max(3, int(0.02 / max(2 * M * N * K / 60e9, 1e-7)))
        cases.append((s, 2 * M * N * K, reps, run_k, run_b, (a, b, c1, c2)))
    times = {s: ([], []) for s, *_ in cases}
    for _ in range(args.rounds):
        for s, _, reps, run_k, run_b, _keep in cases:   # noqa: B007
            for which, fn in ((0, run_k), (1, run_b)):
                t = time.perf_counter()
                for _ in range(reps):
                    fn()
                times[s][which].append((time.perf_counter() - t) / reps)
    print(f"{'shape':>16} {'kernel us':>10} {'GF/s':>6} {'OpenBLAS us':>12} {'GF/s':>6} {'ratio':>6}  (median of {args.rounds} interleaved rounds)")
    for s, flops, *_ in cases:
        tk, tbl = times[s]
        mk, mb = statistics.median(tk), statistics.median(tbl)
        ratio = statistics.median(x / y for x, y in zip(tk, tbl))
        print(f"{s:>16} {mk * 1e6:10.1f} {flops / mk / 1e9:6.1f} {mb * 1e6:12.1f} {flops / mb / 1e9:6.1f} {ratio:6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
