"""float16 in compiled elementwise kernels: storage is converted with integer bit operations
(csrc/pycompile_kernels.h: pc_h2f / pc_f2h / pc_round_h) so the loops vectorize. The results
must be bit-identical to NumPy's float16, which computes each op in float32 and rounds to
float16: every one of the 65536 float16 values, rounding ties, overflow, subnormals, NaN."""
import numpy as np

import pycompile as ms
from pycompile import Tensor, ops

ALL_HALVES = np.arange(1 << 16, dtype=np.uint16).view(np.float16)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    bits = np.uint16 if want.dtype == np.float16 else np.uint32
    np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits))   # signed zeros too


@ms.jit
def widen(x):
    return ops.cast(x, ms.float32) * 1.0


@ms.jit
def narrow(x):
    return ops.cast(x * 1.0, ms.float16)


def test_every_float16_value_widens_exactly():
    _same(widen(Tensor(ALL_HALVES)).asnumpy(), ALL_HALVES.astype(np.float32))


def test_float32_to_float16_rounds_like_numpy():
    rng = np.random.default_rng(0)
    scales = [1e-9, 1e-7, 6e-5, 1e-3, 1, 300, 3e4, 7e4]
    x = np.concatenate([rng.standard_normal(2000).astype(np.float32) * s for s in scales] + [
        rng.integers(0, 2 ** 32, 4000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        # ties at every scale: exactly halfway between two float16 values
        (ALL_HALVES[:0x7bff].astype(np.float32) + ALL_HALVES[1:0x7c00].astype(np.float32)) / 2,
        np.array([0, -0.0, np.inf, -np.inf, np.nan, 65504, 65519.99, 65520, 2 ** -24, 2 ** -25,
                  3 * 2 ** -26, 2 ** -14, 1e-45], np.float32)]).astype(np.float32)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16)
    _same(narrow(Tensor(x)).asnumpy(), want)


def test_float16_arithmetic_rounds_each_op_like_numpy():
    rng = np.random.default_rng(1)
    a = rng.choice(ALL_HALVES[np.isfinite(ALL_HALVES)], 20000)
    b = rng.choice(ALL_HALVES[np.isfinite(ALL_HALVES)], 20000)

    @ms.jit
    def f(a, b):
        return a * b + a, ops.relu(a - b) * 0.5, ops.maximum(a, b) / b, ops.floor(a) - ops.abs(b)

    with np.errstate(all="ignore"):
        want = (a * b + a, np.maximum(a - b, 0) * np.float16(0.5), np.maximum(a, b) / b, np.floor(a) - np.abs(b))
    for got, w in zip(f(Tensor(a), Tensor(b)), want):
        _same(got.asnumpy(), w)


def test_header_conversions_directly(tmp_path):
    """pc_f2h rounds on its own (kernels hand it values pc_round_h already rounded, so the
    tests above cannot see its rounding): check it, and pc_h2f, in a small C program."""
    import subprocess

    from pycompile.backend import toolchain
    src = tmp_path / "conv.c"
    src.write_text("""
        #include <stdio.h>
        #include "pycompile_kernels.h"
        int main(int argc, char **argv) {
            static float x[1 << 20], back[1 << 16]; static uint16_t h[1 << 20];
            FILE *f = fopen(argv[1], "rb"); long n = (long)fread(x, 4, 1 << 20, f); fclose(f);
            for (long i = 0; i < n; i++) h[i] = pc_f2h(x[i]);
            for (long i = 0; i < (1 << 16); i++) back[i] = pc_h2f((uint16_t)i);
            f = fopen(argv[2], "wb"); fwrite(h, 2, n, f); fwrite(back, 4, 1 << 16, f); fclose(f);
            return 0;
        }""")
    exe = tmp_path / "conv"
    inc = [f"-I{d}" for d in toolchain.include_dirs()]
    subprocess.run([toolchain.find_cc(), "-O2", "-std=gnu11", *inc, str(src), "-o", str(exe), "-lm"], check=True)
    rng = np.random.default_rng(2)
    finite = ALL_HALVES[np.isfinite(ALL_HALVES)].astype(np.float32)
    x = np.concatenate([rng.integers(0, 2 ** 32, 50000, dtype=np.uint64).astype(np.uint32).view(np.float32),
                        (finite[:-1] + finite[1:]) / 2,                    # ties
                        rng.standard_normal(20000).astype(np.float32) * 1e-6,
                        np.array([65519.99, 65520, np.inf, -np.inf, -0.0], np.float32)]).astype(np.float32)
    x.tofile(tmp_path / "in.bin")
    subprocess.run([str(exe), str(tmp_path / "in.bin"), str(tmp_path / "out.bin")], check=True)
    raw = (tmp_path / "out.bin").read_bytes()
    h = np.frombuffer(raw[:2 * x.size], np.uint16).view(np.float16)
    with np.errstate(over="ignore"):
        _same(h, x.astype(np.float16))
    _same(np.frombuffer(raw[2 * x.size:], np.float32), ALL_HALVES.astype(np.float32))


def test_float16_reduction_templates_match_float32_math():
    """Row reductions, softmax, log_softmax and LayerNorm on float16 read and write through the
    same bit conversions (their loops vectorize): each equals the float32 computation rounded
    to float16, within float16's rounding; masked (-inf) scores give exactly 0; NaN propagates."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((37, 70)) * 3).astype(np.float16)
    x[5, 10:] = -np.inf                    # a masked row tail
    x[7, 3] = np.nan
    g = (rng.standard_normal(70) * 0.5 + 1).astype(np.float16)
    b = rng.standard_normal(70).astype(np.float16)

    @ms.jit
    def f(x, g, b):
        return (ops.softmax(x), ops.log_softmax(x), ops.layer_norm(x, g, b), ops.sum(x, -1),
                ops.amax(x, -1), ops.mean(x, -1, True))

    xf, gf, bf = x.astype(np.float32), g.astype(np.float32), b.astype(np.float32)
    with np.errstate(invalid="ignore"):
        m = xf.max(-1, keepdims=True)
        e = np.exp(xf - m)
        s = e.sum(-1, keepdims=True)
        mean = xf.mean(-1, keepdims=True)
        var = ((xf - mean) ** 2).mean(-1, keepdims=True)
        want = (e / s, xf - m - np.log(s), (xf - mean) / np.sqrt(var + 1e-5) * gf + bf, xf.sum(-1), xf.max(-1), mean)
    got = f(Tensor(x), Tensor(g), Tensor(b))
    for k, (o, w) in enumerate(zip(got, want)):
        o = o.asnumpy()
        assert o.dtype == np.float16 and o.shape == w.shape, k
        np.testing.assert_array_equal(np.isnan(o), np.isnan(w), err_msg=str(k))
        ok = ~np.isnan(w)
        np.testing.assert_allclose(o[ok].astype(np.float32), w[ok], rtol=4e-3, atol=4e-3, err_msg=str(k))
    assert (got[0].asnumpy()[5, 10:] == 0).all()
