"""The C compiler's flags give the answers NumPy gives (issue 20, defect 3): each case below
was a silent wrong result with GCC 12.2 (Debian 12's compiler) under the flags pycompile used.

* -fno-trapping-math let GCC rewrite (float)(int32_t)x as trunc(x): -0.0 for x in (-1, 0);
* the basic-block (SLP) vectorizer at -O3 (and -O2) dropped a constant-length loop's float64 ->
  float32 -> float64 round trip, so `x - cast(cast(x, float32), float64)` was 0 in some lanes;
* contraction of a product and a sum into one fused multiply-add (GNU C's default) rounded a
  value differently where it was recomputed: LayerNorm of a constant row of squares was not beta
  (the differential fuzzer, tests/compiler/fuzz_ops.py, found it).

The C snippets are built with exactly the flags generated code gets (toolchain.build_command)."""
import ctypes

import numpy as np

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.backend import toolchain

SNIPPETS = r"""
#include <stdint.h>
float round_trip_int32(float x) { return (float)(int32_t)x; }
void narrow_widen_2(const double *restrict x, double *restrict out) {
    for (long j = 0; j < 2; ++j) { const float f = (float)x[j]; out[j] = x[j] - (double)f; }
}
double multiply_add(double a, double b, double c) { return a * b + c; }
void narrow_widen_7(const double *restrict x, double *restrict out) {
    for (long j = 0; j < 7; ++j) { const float f = (float)x[j]; out[j] = x[j] - (double)f; }
}
"""


def _library(tmp_path):
    c, so = tmp_path / "snippets.c", tmp_path / "snippets.so"
    c.write_text(SNIPPETS)
    toolchain.compile_shared(str(c), str(so), False)
    lib = ctypes.CDLL(str(so))
    lib.round_trip_int32.restype = ctypes.c_float
    lib.round_trip_int32.argtypes = [ctypes.c_float]
    lib.multiply_add.restype = ctypes.c_double
    lib.multiply_add.argtypes = [ctypes.c_double] * 3
    return lib


def test_float_int_float_round_trip_keeps_positive_zero(tmp_path):
    lib = _library(tmp_path)
    for x in (-0.5, -0.25, -1e-30):
        got = lib.round_trip_int32(x)
        assert got == 0.0 and np.copysign(1.0, got) == 1.0, (x, got)   # +0.0, as (float)(int)x is


def test_float64_float32_float64_round_trip_is_not_folded_away(tmp_path):
    lib = _library(tmp_path)
    ptr = ctypes.POINTER(ctypes.c_double)
    for n, fn in ((2, lib.narrow_widen_2), (7, lib.narrow_widen_7)):
        x = np.array([0.1 * (k + 1) for k in range(n)])
        out = np.zeros(n)
        fn(x.ctypes.data_as(ptr), out.ctypes.data_as(ptr))
        np.testing.assert_array_equal(out, x - x.astype(np.float32).astype(np.float64), err_msg=f"n={n}")


def _residual(a):
    return a - ops.cast(ops.cast(a, ms.float32), ms.float64)


def test_compiled_float32_rounding_residual_matches_pynative_at_every_short_length():
    jf = ms.jit(_residual)
    rng = np.random.default_rng(0)
    for n in (2, 3, 6, 7, 10, 20, 23):
        a = Tensor(rng.standard_normal(n))
        np.testing.assert_array_equal(jf(a).asnumpy(), _residual(a).asnumpy(), err_msg=f"n={n}")


def test_product_and_sum_round_separately(tmp_path):
    a = 1 + 2.0 ** -27                       # a * a = 1 + 2^-26 + 2^-54: the 2^-54 rounds away
    assert _library(tmp_path).multiply_add(a, a, -(1 + 2.0 ** -26)) == 0.0     # a fused one keeps it


def _layer_norm_of_squares(x, g, b):
    return ops.layer_norm(ops.square(x * 1.5), g, b)


def test_layer_norm_of_a_constant_row_is_beta():
    x = Tensor(np.full((3, 4), 1 + 2.0 ** -27) * np.array([[1.0], [3.0], [0.7]]))
    g, b = Tensor(np.full(4, 1.5)), Tensor(np.full(4, 0.25))
    np.testing.assert_array_equal(ms.jit(_layer_norm_of_squares)(x, g, b).asnumpy(), np.full((3, 4), 0.25))
    np.testing.assert_array_equal(_layer_norm_of_squares(x, g, b).asnumpy(), np.full((3, 4), 0.25))
