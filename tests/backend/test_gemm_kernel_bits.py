"""The runtime's small-product kernel (csrc/gemm.c on AVX-512; gemm_avx2.c, the AVX2 form, where
PYCOMPILE_SMALL_GEMM=avx2 asks for it) computes every C[i][j] as the k-ordered chain of fused
multiply-adds from zero, then adds the bias, then the residual, then ReLU, each rounded as its own
pass. Checked bit for bit against that chain computed exactly in NumPy (fma emulated below), over
row tails of its tiles (6 rows with AVX2, 7 with AVX-512), column tails of its 64-column panels and
16-column slices, narrow outputs (8-16 columns), both layouts of B, strided A / C / R, kept
packings (tb & 4, refreshed after a Parameter write) and a caller's packing (tb & 8). The AVX2 form
is checked in a subprocess with the knob on every CPU with AVX2 and FMA, the runtime's default
kernel in this process where there is one (AVX-512): since both equal the chain, a product gives
the same bits on either CPU."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

# (M, N, K, tb): rows around 6 and 7, columns around 8, 16 and 64, K short and long
CASES = [(1, 64, 8, 0), (5, 70, 13, 1), (6, 16, 31, 1), (7, 10, 40, 0), (13, 128, 9, 1), (14, 100, 33, 0),
         (19, 8, 17, 1), (20, 200, 130, 1), (12, 47, 20, 0), (43, 64, 300, 1), (3, 13, 65, 0), (9, 130, 7, 1),
         (7, 200, 800, 1), (8, 130, 1700, 0)]


def fma32(a, b, c):
    """fmaf(a, b, c) for float32 arrays, exactly: a * b is exact in float64, the float64 sum s and
    its error e (TwoSum) hold the exact a * b + c = s + e, and rounding s + e to float32 differs
    from rounding s only where s is halfway between two float32 values (then e says which way)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c64 = c.astype(np.float64)
    s = p + c64
    bb = s - p
    e = (p - (s - bb)) + (c64 - bb)
    r = s.astype(np.float32)
    # the float32 neighbour on the other side of s, and whether s is exactly between the two
    other = np.nextafter(r, np.where(s > r.astype(np.float64), np.float32(np.inf), np.float32(-np.inf)))
    tie = (r.astype(np.float64) + other.astype(np.float64) == 2.0 * s) & (s != r.astype(np.float64)) & (e != 0)
    up = np.maximum(r, other)
    down = np.minimum(r, other)
    return np.where(tie, np.where(e > 0, up, down), r)


def chain(a, opb, bias=None, res=None, relu=False):
    """act(res + ((sum over k in order of fma) + bias)), each step rounded to float32."""
    acc = np.zeros((a.shape[0], opb.shape[1]), np.float32)
    for k in range(a.shape[1]):
        acc = fma32(a[:, k:k + 1], opb[k:k + 1, :], acc)
    if bias is not None:
        acc = acc + bias
    if res is not None:
        acc = res + acc
    if relu:
        acc = np.where(acc > 0, acc, np.float32(0))
    return acc


def test_fma32_is_exact_where_rounding_the_double_sum_is_not():
    """Two sums whose float64 rounding lands on a float32 tie that rounds to even the wrong way."""
    f32 = lambda v: np.array([v], np.float32)      # noqa: E731
    # (1 + 2^-12)(2^-24 (1 - 2^-12 + 2^-24)) = 2^-24 + 2^-60; + 1: above the tie 1 + 2^-24, so up
    a, b, one = f32(1 + 2.0 ** -12), f32(2.0 ** -24 * (1 - 2.0 ** -12 + 2.0 ** -24)), f32(1.0)
    assert (a.astype(np.float64) * b + one).astype(np.float32)[0] == 1.0          # the naive rounding
    assert fma32(a, b, one)[0] == np.float32(1 + 2.0 ** -23)
    # (1 + 2^-23)(2^-24 (1 - 2^-23)) = 2^-24 - 2^-70; + (1 + 2^-23): below the tie, so down
    a, b, c = f32(1 + 2.0 ** -23), f32(2.0 ** -24 * (1 - 2.0 ** -23)), f32(1 + 2.0 ** -23)
    assert (a.astype(np.float64) * b + c).astype(np.float32)[0] == np.float32(1 + 2.0 ** -22)
    assert fma32(a, b, c)[0] == c[0]
    # away from ties it is the float32 rounding of the exact value
    x, y, z = (np.random.default_rng(1).standard_normal(1000).astype(np.float32) for _ in range(3))
    np.testing.assert_array_equal(fma32(x, y, z), (x.astype(np.float64) * y + z).astype(np.float32))


def _run_cases():
    """Every case on the runtime's kernel against chain(); returns how many products were compared."""
    from pycompile._rt import ffi, lib
    ep = lib.pc_get_api().sgemm_ep
    rng = np.random.default_rng(37)
    f = lambda x: ffi.cast("float *", x.ctypes.data)         # noqa: E731
    done = 0
    for M, N, K, tb in CASES:
        lda, ldc, ldr = K + 3, N + 5, N + 2
        a = rng.standard_normal((M, lda)).astype(np.float32)
        b = rng.standard_normal((N, K) if tb else (K, N)).astype(np.float32)
        opb = b.T if tb else b
        bias = rng.standard_normal(N).astype(np.float32)
        res = rng.standard_normal((M, ldr)).astype(np.float32)
        for use_bias, use_res, relu in ((0, 0, 0), (1, 0, 0), (1, 1, 1), (0, 1, 0)):
            c = np.full((M, ldc), 7.0, np.float32)
            flags = tb | (16 if relu else 0)
            rc = ep(M, N, K, f(a), lda, f(b), N if not tb else K, flags, f(c), ldc,
                    f(bias) if use_bias else ffi.NULL, f(res) if use_res else ffi.NULL, ldr)
            assert rc == 0
            want = chain(a[:, :K], opb, bias if use_bias else None, res[:, :N] if use_res else None, bool(relu))
            assert np.array_equal(c[:, :N].view(np.uint32), want.view(np.uint32)), (M, N, K, tb, use_bias, use_res, relu)
            assert (c[:, N:] == 7.0).all(), "wrote beyond the row's N columns"
            done += 1
    return done


def _run_packings():
    """tb & 4 (kept between calls, refreshed after pc_params_written) and tb & 8 (the caller's panels)."""
    from pycompile._rt import ffi, lib
    nt = lib.pc_get_api().sgemm_nt
    rng = np.random.default_rng(38)
    f = lambda x: ffi.cast("float *", x.ctypes.data)         # noqa: E731
    for M, N, K in ((11, 100, 50), (8, 12, 30)):
        a = rng.standard_normal((M, K)).astype(np.float32)
        w = rng.standard_normal((N, K)).astype(np.float32)     # a Dense weight, B transposed
        c = np.zeros((M, N), np.float32)
        stats0 = ffi.new("long[2]")
        lib.pc_pack_stats(stats0, 2)
        for _ in range(2):
            assert nt(M, N, K, f(a), K, f(w), K, 1 | 4, f(c), N) == 0
            assert np.array_equal(c.view(np.uint32), chain(a, w.T).view(np.uint32))
        stats = ffi.new("long[2]")
        lib.pc_pack_stats(stats, 2)
        assert stats[0] > stats0[0], "the second call did not read the kept packing"
        w[:] = rng.standard_normal((N, K)).astype(np.float32)
        lib.pc_params_written()
        assert nt(M, N, K, f(a), K, f(w), K, 1 | 4, f(c), N) == 0
        assert np.array_equal(c.view(np.uint32), chain(a, w.T).view(np.uint32)), "a stale packing was read"
        # the caller's packing: ceil(N / 64) panels of K x 64, zero beyond N, 64-byte aligned
        panels = -(-N // 64)
        raw = np.zeros(panels * K * 64 + 16, np.float32)
        off = (-raw.ctypes.data % 64) // 4
        pk = raw[off:off + panels * K * 64].reshape(panels, K, 64)
        for p in range(panels):
            cols = w[64 * p:64 * p + 64]
            pk[p, :, :cols.shape[0]] = cols.T
        c[:] = 0
        assert nt(M, N, K, f(a), K, f(pk), 64, 8, f(c), N) == 0
        assert np.array_equal(c.view(np.uint32), chain(a, w.T).view(np.uint32))


@pytest.fixture(scope="module")
def kernel():
    from pycompile._rt import ffi, lib
    if lib.pc_get_api().sgemm_ep == ffi.NULL:
        pytest.skip("no product kernel in this process (a CPU without AVX-512, PYCOMPILE_SMALL_GEMM unset): "
                    "the AVX2 form is checked in a subprocess below")


def test_every_tile_and_epilogue_is_the_fma_chain(kernel):
    assert _run_cases() == 4 * len(CASES)


def test_kept_and_caller_packings_give_the_chain(kernel):
    _run_packings()


def _cpu_flags():
    with open("/proc/cpuinfo") as f:
        return next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])


def _in_subprocess(knob: str, code: str) -> str:
    env = dict(os.environ, PYCOMPILE_SMALL_GEMM=knob)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                       cwd=os.path.dirname(os.path.abspath(__file__)))
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_the_avx2_kernel_is_the_chain_on_any_cpu_with_avx2():
    """PYCOMPILE_SMALL_GEMM=avx2: the AVX2 kernel, also where AVX-512 is there (so its bits are
    checked on the AVX-512 machines too); =blas: no kernel (generated code calls BLAS)."""
    flags = _cpu_flags()
    if not ("avx2" in flags and "fma" in flags):
        pytest.skip("no AVX2 + FMA on this CPU")
    out = _in_subprocess("avx2", "import test_gemm_kernel_bits as t; print(t._run_cases()); t._run_packings(); "
                                 "from pycompile._rt import ffi, lib; "
                                 "print(lib.pc_get_api().sgemm_nt != ffi.NULL)")
    assert out.splitlines() == [str(4 * len(CASES)), "True"]
    out = _in_subprocess("blas", "from pycompile._rt import ffi, lib; a = lib.pc_get_api(); "
                                 "print(a.sgemm_nt == ffi.NULL, a.sgemm_ep == ffi.NULL)")
    assert out.split() == ["True", "True"]
