"""Bit-for-bit checks of float32 products that hold only where the runtime's product kernel runs.

The kernel (csrc/gemm.c) is AVX-512 code, or with PYCOMPILE_SMALL_GEMM=avx2 its AVX2 form
(csrc/gemm_avx2.c, the same bits): a product's sums are the same chain of fused multiply-adds
however rows and columns are cut over threads, so results are the same bits at any thread count
or team size (tests/backend/test_gemm_kernel_bits.py). Without it the products run on OpenBLAS,
whose edge kernels add a block's last rows and columns in another order, so the last bits depend
on the cut (on the 2-core AMD EPYC: 1-3 float32 ulps). There these checks compare within float32
rounding instead (docs/status.md, "CPUs without AVX-512")."""
from __future__ import annotations

import numpy as np


def kernel_runs() -> bool:
    """Whether the runtime hands generated code its product kernel (AVX-512, or AVX2 on request)."""
    from pycompile._rt import lib
    return bool(lib.pc_get_api().sgemm_nt)


def assert_same(got, want, err_msg: str = ""):
    """Bit for bit with the product kernel; without it, within the float32 rounding of sums of a
    few hundred terms, relative to the largest value (a sum that cancels keeps the absolute error
    of its terms: 3e-5 of the largest value covers the K = 784 products measured)."""
    got, want = np.asarray(got), np.asarray(want)
    if kernel_runs():
        np.testing.assert_array_equal(got, want, err_msg=err_msg)
    else:
        scale = float(np.abs(want).max(initial=0.0))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=3e-5 * max(scale, 1e-30), err_msg=err_msg)
