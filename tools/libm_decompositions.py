"""Measure the honest decompositions of Log2 and the hyperbolic rows (Sinh, Cosh, Asinh, Acosh,
Atanh) into core rows against the C library call each row's C makes, and against MindSpore 2.10's
CPU results (docs/architecture.md, "The core": why these rows are core, not decomposed).

    python tools/libm_decompositions.py                     # libm vs the decompositions (needs cc)
    /work/ms-venv/bin/python tools/libm_decompositions.py --record-mindspore /tmp/ms.npz
    python tools/libm_decompositions.py --mindspore /tmp/ms.npz   # ... and both vs MindSpore

Each candidate uses only core rows (Exp, Expm1, Log, Log1p, Sqrt, Abs, + - * /, Select), in the
order a decomposition would write them, in C with the libm the compiled code calls (scalar
calls on both sides). Samples per dtype: float16 exhaustively (all 65,536 values, computed in
float32 and rounded once, as the rows' C does); float32 and float64: 10^6 values, half uniformly
random bit patterns (every magnitude, both signs, some NaN), half uniform in the function's
everyday range. Printed per row and dtype: how many results differ from the reference in any bit
(NaN equal to NaN), how many by more than 1 ulp, how many are inf / NaN where the reference is
finite. MindSpore's 10^6-value results are not kept in the repository (8 MB per row and dtype);
the summary is in docs/architecture.md.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import tempfile

import numpy as np

C = r"""
#include <math.h>
#define LN2R 1.44269504088896340736
#define DEFS(T, S) \
static T log2_d##S(T x) { return log##S(x) * (T)LN2R; } \
static T sinh_d##S(T x) { return (expm1##S(x) - expm1##S(-x)) * (T)0.5; } \
static T cosh_d##S(T x) { return (exp##S(x) + exp##S(-x)) * (T)0.5; } \
static T asinh_d##S(T x) { T a = fabs##S(x); T r = log1p##S(a + a * a / ((T)1 + sqrt##S((T)1 + a * a))); \
                           return x < 0 ? -r : r; } \
static T acosh_d##S(T x) { return log##S(x + sqrt##S(x * x - (T)1)); } \
static T atanh_d##S(T x) { return (T)0.5 * log1p##S((T)2 * x / ((T)1 - x)); } \
static T (*const LIBM##S[])(T) = {log2##S, sinh##S, cosh##S, asinh##S, acosh##S, atanh##S}; \
static T (*const PARTS##S[])(T) = {log2_d##S, sinh_d##S, cosh_d##S, asinh_d##S, acosh_d##S, atanh_d##S}; \
void run##S(int fn, int parts, const T *x, T *y, long n) { \
    T (*f)(T) = parts ? PARTS##S[fn] : LIBM##S[fn]; \
    for (long i = 0; i < n; ++i) y[i] = f(x[i]); \
}
DEFS(float, f)
DEFS(double, )
"""

ROWS = ("Log2", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh")
FORMULA = {"Log2": "log(x) * (1 / ln 2)", "Sinh": "(expm1(x) - expm1(-x)) / 2", "Cosh": "(exp(x) + exp(-x)) / 2",
           "Asinh": "sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))", "Acosh": "log(x + sqrt(x^2 - 1))",
           "Atanh": "log1p(2x / (1 - x)) / 2"}
RANGE = {"Log2": (0.0, 100.0), "Sinh": (-10.0, 10.0), "Cosh": (-10.0, 10.0), "Asinh": (-10.0, 10.0),
         "Acosh": (1.0, 10.0), "Atanh": (-1.0, 1.0)}
N = 1_000_000


def inputs(row: str, dtype: str) -> np.ndarray:
    if dtype == "float16":
        return np.arange(65536, dtype=np.uint16).view(np.float16)
    rng = np.random.default_rng(ROWS.index(row))
    size = np.dtype(dtype).itemsize
    random_bits = rng.integers(0, 2 ** (8 * size), N // 2, dtype=f"u{size}").view(dtype)
    lo, hi = RANGE[row]
    return np.concatenate([random_bits, rng.uniform(lo, hi, N // 2).astype(dtype)])


def _library():
    d = tempfile.mkdtemp()
    src, so = os.path.join(d, "m.c"), os.path.join(d, "m.so")
    with open(src, "w") as f:
        f.write(C)
    subprocess.run(["cc", "-O2", "-fno-fast-math", "-shared", "-fPIC", src, "-o", so, "-lm"], check=True)
    return ctypes.CDLL(so)


def evaluate(lib, row: str, x: np.ndarray, parts: bool) -> np.ndarray:
    cd = np.float64 if x.dtype == np.float64 else np.float32      # float16 computed in float32, rounded once
    xc = np.ascontiguousarray(x.astype(cd))
    y = np.empty_like(xc)
    fn = lib.run if cd == np.float64 else lib.runf
    fn(ROWS.index(row), int(parts), xc.ctypes.data_as(ctypes.c_void_p), y.ctypes.data_as(ctypes.c_void_p),
       ctypes.c_long(xc.size))
    with np.errstate(over="ignore"):                            # (float16: inf where the value overflows)
        return y.astype(x.dtype)


def compare(got: np.ndarray, want: np.ndarray) -> str:
    bits = f"u{want.itemsize}"
    same = (got.view(bits) == want.view(bits)) | (np.isnan(got) & np.isnan(want))
    fin = np.isfinite(want)
    wrong_kind = fin & ~np.isfinite(got)
    with np.errstate(all="ignore"):
        w64, g64 = want.astype(np.float64), got.astype(np.float64)
        ulp = np.abs(np.nextafter(np.abs(want), np.array(np.inf, want.dtype)).astype(np.float64) - np.abs(w64))
        far = ~same & (wrong_kind | (fin & ~(np.abs(g64 - w64) <= ulp)) | (~fin & ~np.isnan(want)))
    n = want.size
    return (f"{int((~same).sum()):7d} differ ({100 * (~same).sum() / n:5.2f} %), {int(far.sum()):7d} by > 1 ulp, "
            f"{int(wrong_kind.sum()):6d} inf / NaN for a finite value")


def record_mindspore(path: str) -> None:
    """Run under MindSpore's venv: every row's MindSpore result on the same inputs."""
    import mindspore as ms
    from mindspore import Tensor, ops
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    fns = {"Log2": ops.log2, "Sinh": ops.Sinh(), "Cosh": ops.Cosh(), "Asinh": ops.Asinh(), "Acosh": ops.Acosh(),
           "Atanh": ops.Atanh()}
    out = {}
    for row in ROWS:
        for dtype in ("float16", "float32", "float64"):
            try:
                out[f"{row} {dtype}"] = fns[row](Tensor(inputs(row, dtype))).asnumpy()
            except Exception as e:  # noqa: BLE001 - a dtype MindSpore's CPU kernel refuses
                print(f"{row} {dtype}: MindSpore raises {type(e).__name__}")
    np.savez(path, **out)


def main(argv) -> None:
    if argv[:1] == ["--record-mindspore"]:
        record_mindspore(argv[1])
        return
    recorded = np.load(argv[1]) if argv[:1] == ["--mindspore"] else None
    lib = _library()
    for row in ROWS:
        for dtype in ("float16", "float32", "float64"):
            x = inputs(row, dtype)
            libm, parts = evaluate(lib, row, x, False), evaluate(lib, row, x, True)
            head = f"{row:5} {dtype:7} {x.size:7d} values"
            print(f"{head}  {FORMULA[row]} vs libm:  {compare(parts, libm)}")
            if recorded is not None and f"{row} {dtype}" in recorded.files:
                ms_out = recorded[f"{row} {dtype}"]
                print(f"{'':29}libm vs MindSpore:  {compare(libm, ms_out)}")
                print(f"{'':22}decomposition vs MindSpore:  {compare(parts, ms_out)}")


if __name__ == "__main__":
    main(sys.argv[1:])
