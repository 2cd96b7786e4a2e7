"""The C compiler vectorizes the loops generated kernels mean to be vectorized.

Every elementwise tile loop (`for (long j = 0; j < n; ++j)` inside a `*_tile` function) must be
reported by `-fopt-info-vec` as vectorized. This caught a case where GCC unrolled a short loop
over tiles into two inner loops and then refused to vectorize the nest, silently running GEMM
epilogues scalar (5x slower)."""
import re
import subprocess

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.backend import toolchain


def _vectorized_lines(source: str, tmp_path) -> set:
    c = tmp_path / "kernel.c"
    c.write_text(source)
    inc = [f"-I{d}" for d in toolchain.include_dirs()] + [f"-I{toolchain.blas_paths()[0]}"]
    flags = [f for f in toolchain.BASE_FLAGS if f not in ("-shared", "-w") and not f.startswith("-Wl,")]
    proc = subprocess.run([toolchain.find_cc(), *flags, *inc, "-fopt-info-vec-optimized", "-c", str(c),
                           "-o", str(tmp_path / "kernel.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # a loop is vectorized as a loop, or - fully unrolled for a constant trip count - as
    # straight-line code (SLP: "basic block part vectorized", reported at its body's lines)
    return {int(m.group(1)) for m in re.finditer(r"kernel\.c:(\d+):\d+: optimized: .*vectorized", proc.stderr)}


def _tile_loops(source: str) -> list:
    lines, inside, out = source.splitlines(), False, []
    for no, line in enumerate(lines, 1):
        if re.match(r"static .*void k\w+_tile\(", line):
            inside = True
        elif re.match(r"(static |int )", line):
            inside = False
        elif inside and "for (long j = 0; j < n; ++j)" in line:
            indent = len(line) - len(line.lstrip())
            end = next(k for k in range(no, len(lines) + 1)
                       if lines[k - 1].startswith(" " * indent + "}") and len(lines[k - 1]) - len(lines[k - 1].lstrip()) == indent)
            body = [b.strip() for b in lines[no:end - 1]]
            if len(body) == 1 and re.fullmatch(r"\w+\[j\] = \w+\[j\];", body[0]):
                continue                  # a plain copy: the compiler makes it a memcpy
            out.append((no, end))
    return out


def w1(x, y):
    out = x
    for _ in range(200):
        out = x + x * y + out
    return out


def dense_relu(x, w, b, r):
    return ops.relu(ops.MatMul(transpose_b=True)(x, w) + b) + r, ops.sigmoid(x[:, :5]) * 2


def broadcast(x, b):
    return ops.select(x > b, x * b, ops.exp(x - b)), ops.gelu(x, "tanh") + ops.sigmoid(b)


def libm_calls(x, y):
    """Every libm function generated C calls beyond exp / log / tanh: each loop vectorizes through
    glibc's libmvec (csrc/pycompile_kernels.h declares them; undeclared, erfc, atan, sinh ... ran
    scalar, 7-27x slower)."""
    return (ops.gelu(x), ops.erfc(x), ops.atan(x), ops.asin(x), ops.acos(x), ops.sinh(x), ops.cosh(x),
            ops.asinh(x), ops.acosh(y), ops.atanh(x), ops.tan(x), ops.log2(y), ops.atan2(x, y))


def rounding(x):
    """float32 floor / ceil / trunc (csrc/pycompile_kernels.h pc_floorf ...: floorf itself
    vectorizes only with -fno-trapping-math)."""
    return ops.floor(x * 3), ops.ceil(x * 3), ops.trunc(x * 3)


CASES = [
    (w1, lambda: (np.ones(1000, np.float32), np.ones(1000, np.float32))),
    (dense_relu, lambda: (np.ones((64, 32), np.float32), np.ones((512, 32), np.float32),
                          np.ones(512, np.float32), np.ones((64, 512), np.float32))),
    (broadcast, lambda: (np.ones((33, 70), np.float32), np.ones((70,), np.float32))),
    # float16 storage is read and written through integer bit conversions (GCC 12 has no vector
    # _Float16 conversion without AVX512-FP16), so float16 kernels vectorize too
    (broadcast, lambda: (np.ones((33, 70), np.float16), np.ones((70,), np.float16))),
    (w1, lambda: (np.ones(1000, np.float16), np.ones(1000, np.float16))),
    (libm_calls, lambda: (np.full(1000, 0.5, np.float32), np.full(1000, 1.5, np.float32))),
    (rounding, lambda: (np.full(1000, 0.5, np.float32),)),
    (libm_calls, lambda: (np.full(1000, 0.5, np.float64), np.full(1000, 1.5, np.float64))),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}-{c[1]()[0].dtype}" for c in CASES])
def test_every_tile_loop_is_vectorized(fn, args, tmp_path):
    report = ms.inspect(fn, *[Tensor(a) for a in args()])
    loops = _tile_loops(report.c_source)
    assert loops, "expected elementwise kernels in the generated C"
    vectorized = _vectorized_lines(report.c_source, tmp_path)
    missed = [start for start, end in loops if not any(start <= v <= end for v in vectorized)]
    src = report.c_source.splitlines()
    assert not missed, "not vectorized:\n" + "\n".join(f"{n}: {src[n - 1]}" for n in missed)


def _simd_loops(source: str) -> list:
    """(first, last line) of every loop the templates mark `#pragma omp simd` (reductions,
    softmax, LayerNorm), including those reading a fused prologue through a `k*_at` function."""
    lines, out = source.splitlines(), []
    for no, line in enumerate(lines, 1):
        if line.strip().startswith("#pragma omp simd") and lines[no].strip().startswith("for ("):
            indent = len(lines[no]) - len(lines[no].lstrip())
            end = next(k for k in range(no + 1, len(lines) + 1)
                       if lines[k - 1].startswith(" " * indent + "}") and len(lines[k - 1]) - len(lines[k - 1].lstrip()) == indent)
            out.append((no, end))         # GCC may report the loop at its pragma's line
    return out


def row_reductions(a, b, g, be):
    x = a * b
    return (x - ops.mean(x, -1, True), ops.softmax(a * 0.5 + b) * b, ops.log_softmax(a - b),
            ops.layer_norm(a + b, g, be) * 2, ops.sum(ops.abs(a - b), -1), ops.amax(a * b, -1, True) + a)


@pytest.mark.parametrize("dtype,cols", [(np.float32, 70), (np.float64, 70), (np.float16, 70),
                                        # rows longer than kernels.SUM_BLOCK: float sums add blocks
                                        (np.float32, 600), (np.float16, 600)])
def test_reduction_template_loops_are_vectorized(dtype, cols, tmp_path):
    args = [np.ones((48, cols), dtype), np.ones((48, cols), dtype), np.ones(cols, dtype), np.ones(cols, dtype)]
    report = ms.inspect(row_reductions, *[Tensor(a) for a in args])
    loops = _simd_loops(report.c_source)
    assert len(loops) >= 8, "expected the templates' simd loops in the generated C"
    vectorized = _vectorized_lines(report.c_source, tmp_path)
    missed = [start for start, end in loops if not any(start <= v <= end for v in vectorized)]
    src = report.c_source.splitlines()
    assert not missed, "not vectorized:\n" + "\n".join(f"{n}: {src[n - 1]}" for n in missed)


def scans(x, h):
    return ops.cumsum(x, 0), ops.cumsum(x, 1), ops.cumprod(x, 0), ops.CumSum(True, True)(h, 1), ops.cumsum(h, 0)


def test_scan_template_loops_are_vectorized(tmp_path):
    """CumSum / CumProd vectorize across the axes they do not scan: rows of accumulators after
    the axis, blocks of rows over the last axis (float32 and float16 storage)."""
    args = [np.ones((48, 70), np.float32), np.ones((48, 70), np.float16)]
    report = ms.inspect(scans, *[Tensor(a) for a in args])
    loops = _simd_loops(report.c_source)
    assert len(loops) >= 3, "expected the scan template's simd loops in the generated C"
    vectorized = _vectorized_lines(report.c_source, tmp_path)
    missed = [start for start, end in loops if not any(start <= v <= end for v in vectorized)]
    src = report.c_source.splitlines()
    assert not missed, "not vectorized:\n" + "\n".join(f"{n}: {src[n - 1]}" for n in missed)


def cnn_kernels(x, w, dw, b):
    """Both direct convolution kernels with epilogues, pooling rows (stride 1 and 2, a fused
    ReLU prologue), batch statistics and a resize."""
    y = ops.relu(ops.conv2d(x, w, b, pad_mode="pad", padding=1))           # register tiles
    d = ops.conv2d(x, dw, pad_mode="same", groups=16) * 2.0                 # rows (depthwise)
    p = ops.max_pool2d(ops.relu(x - 0.5), 3, 2, 1)
    q = ops.avg_pool2d(x, 2, 1)
    s = ops.batch_norm(x, Tensor(np.zeros(16, np.float32)), Tensor(np.ones(16, np.float32)),
                       Tensor(np.ones(16, np.float32)), Tensor(np.zeros(16, np.float32)), training=True)
    r = ops.interpolate(x, size=(24, 80), mode="bilinear")
    return y, d, p, q, s, r


def test_cnn_template_loops_are_vectorized(tmp_path):
    args = [np.ones((2, 16, 12, 40), np.float32), np.ones((32, 16, 3, 3), np.float32),
            np.ones((16, 1, 3, 3), np.float32), np.ones(32, np.float32)]
    report = ms.inspect(cnn_kernels, *[Tensor(a) for a in args])
    loops = _simd_loops(report.c_source)
    assert len(loops) >= 8, "expected the CNN templates' simd loops in the generated C"
    vectorized = _vectorized_lines(report.c_source, tmp_path)
    missed = [start for start, end in loops if not any(start <= v <= end for v in vectorized)]
    src = report.c_source.splitlines()
    assert not missed, "not vectorized:\n" + "\n".join(f"{n}: {src[n - 1]}" for n in missed)
    # the register-tile microkernels are written with vector types: they must compile to FMAs
    c = tmp_path / "conv.c"
    c.write_text(report.c_source)
    inc = [f"-I{d}" for d in toolchain.include_dirs()] + [f"-I{toolchain.blas_paths()[0]}"]
    flags = [f for f in toolchain.BASE_FLAGS if f not in ("-shared", "-w") and not f.startswith("-Wl,")]
    asm = subprocess.run([toolchain.find_cc(), *flags, *inc, "-S", str(c), "-o", "-"], capture_output=True,
                         text=True, check=True).stdout
    assert re.search(r"vfmadd\w*ps", asm), "the convolution microkernel has no vector FMA"


def test_float16_gemm_conversion_loops_are_vectorized(tmp_path):
    """A float16 product runs through sgemm (kernels._half_gemm): its widening and rounding loops
    are on the product's path once per unit and must vectorize."""
    a, b = np.ones((64, 96), np.float16), np.ones((96, 80), np.float16)
    report = ms.inspect(lambda x, y: ops.matmul(x, y) * 2, Tensor(a), Tensor(b))
    src = report.c_source.splitlines()
    loops = [no for no, line in enumerate(src, 1) if "for (long t = 0; t <" in line and "f[t]" in line]
    assert len(loops) == 3, "expected _half_gemm's three conversion loops"
    vectorized = _vectorized_lines(report.c_source, tmp_path)
    missed = [no for no in loops if no not in vectorized]
    assert not missed, "not vectorized:\n" + "\n".join(f"{n}: {src[n - 1]}" for n in missed)


def _floor_ceil_trunc(x):
    return ops.floor(x), ops.ceil(x), ops.trunc(x)


def test_float32_floor_ceil_trunc_equal_numpys_bit_for_bit():
    """pc_floorf / pc_ceilf / pc_truncf (an int32 conversion, so the loops vectorize) against
    NumPy's on random bit patterns - every exponent, NaNs with payloads, denormals - and the edges
    of the conversion (2^23 and its neighbours, -0, +-0.5, +-inf): the same bits, signs of zero and
    NaN payloads included (all 2^32 floats were checked once in C)."""
    bits = np.random.default_rng(3).integers(0, 2 ** 32, 1 << 16, dtype=np.uint64).astype(np.uint32)
    edges = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 8388607.5, -8388607.5, 8388608.0, -8388608.0, 8388609.0,
                      4194303.75, 1e-45, -1e-45, 3.4e38, -3.4e38, np.inf, -np.inf, np.nan], np.float32)
    x = np.concatenate([bits.view(np.float32), edges])
    got = ms.jit(_floor_ceil_trunc)(Tensor(x))
    with np.errstate(invalid="ignore"):          # NumPy flags the signaling NaNs it quiets
        for g, ref in zip(got, (np.floor, np.ceil, np.trunc)):
            assert np.array_equal(g.asnumpy().view(np.uint32), ref(x).view(np.uint32))
