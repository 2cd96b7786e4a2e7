"""Integer corner cases where C has undefined behaviour give NumPy's values (issue 20, defect 2).

`INT_MIN // -1` and `INT_MIN % -1` trap in C (SIGFPE on x86: the process dies); NumPy gives
INT_MIN and 0. Negation and abs of INT_MIN wrap. Converting NaN, infinities or out-of-range
floats to an integer type is undefined in C; NumPy (x86-64) gives MIN for int32 / int64 and the
low bits of that for narrower types. Expected values come from NumPy, computed here."""
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

INTS = [np.int8, np.int16, np.int32, np.int64]


def _np(fn, *a):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*a)


def int_ops(a, b):
    return a // b, a % b, -a, ops.abs(a), a // -1, a % -1, ops.floor_div(a, b), ops.floor_mod(a, b), a * a


def test_min_divided_by_minus_one_does_not_kill_the_process():
    # in a child process: before the fix this was SIGFPE, which would end the test run itself
    code = textwrap.dedent("""
        import numpy as np, pycompile as ms
        from tests.compiler.test_integer_corners import int_ops
        for dt in (np.int8, np.int16, np.int32, np.int64):
            a = ms.Tensor(np.array([np.iinfo(dt).min] * 3, dt)); b = ms.Tensor(np.array([-1, -1, 2], dt))
            print([o.asnumpy().tolist() for o in ms.jit(int_ops)(a, b)])
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(proc.stdout.splitlines()) == 4


@pytest.mark.parametrize("dt", INTS)
def test_integer_division_negation_and_abs_of_min(dt):
    lo, hi = np.iinfo(dt).min, np.iinfo(dt).max
    a = np.array([lo, lo, lo, -7, 7, hi, lo + 1, 0], dt)
    b = np.array([-1, 1, 2, 2, -2, -1, -1, 0], dt)
    got = ms.jit(int_ops)(Tensor(a), Tensor(b))
    eager = int_ops(Tensor(a), Tensor(b))
    floordiv = _np(lambda: np.where(b == 0, 0, np.floor_divide(a, np.where(b == 0, 1, b))).astype(dt))
    mod = _np(lambda: np.where((b == 0) | (b == -1), 0, np.mod(a, np.where(b == 0, 1, b))).astype(dt))
    want = [floordiv, mod, _np(np.negative, a), _np(np.abs, a), _np(np.floor_divide, a, dt(-1)),
            np.zeros_like(a), floordiv, mod, _np(np.multiply, a, a)]
    assert floordiv[0] == lo and mod[0] == 0           # what NumPy gives for MIN // -1, MIN % -1
    for k, (g, e, w) in enumerate(zip(got, eager, want)):
        np.testing.assert_array_equal(g.asnumpy(), w, err_msg=f"output {k}")
        np.testing.assert_array_equal(e.asnumpy(), w, err_msg=f"PyNative output {k}")


SPECIAL = [np.nan, np.inf, -np.inf, 1e10, -1e10, 300.7, -300.7, -1.5, -0.5, 0.5, 128.0, -129.0, 65536.5, 2.0 ** 31,
           -2.0 ** 31 - 1e3, -2.0 ** 31, 2.0 ** 31 - 1, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 4e9, 1.8e19, -0.0]
TARGETS = [ms.int8, ms.int16, ms.int32, ms.int64, ms.uint8, ms.uint16, ms.uint32, ms.uint64, ms.bool_]


def casts(x):
    return tuple(ops.cast(x, t) for t in TARGETS)


@pytest.mark.parametrize("src", [np.float16, np.float32, np.float64])
def test_float_to_int_casts_of_nan_inf_and_out_of_range_values(src):
    x = np.array(SPECIAL, src)
    got = ms.jit(casts)(Tensor(x))
    eager = casts(Tensor(x))
    for t, g, e in zip(TARGETS, got, eager):
        if t is ms.uint32:
            # NumPy's own result differs between its SIMD and scalar loops; both sides use the
            # scalar loop's (through int64)
            want = _np(lambda: x.astype(np.int64).astype(np.uint32))
        else:
            # NumPy's scalar loop: one element at a time
            want = np.array([_np(lambda v=v: np.array([v], src).astype(t.np)[0]) for v in x], t.np)
        np.testing.assert_array_equal(g.asnumpy(), want, err_msg=f"{src.__name__} -> {t}")
        np.testing.assert_array_equal(e.asnumpy(), want, err_msg=f"PyNative {src.__name__} -> {t}")


def test_cast_round_trip_keeps_the_sign_of_zero():
    # (float)(int32_t)x for x in (-1, 0) is +0.0 (GCC with -fno-trapping-math made it trunc(x),
    # -0.0, so 1 / t was -inf); out-of-range values give int32's MIN, as in NumPy
    def f(x):
        return 1 / ops.cast(ops.cast(x, ms.int32), ms.float32)
    x = np.array([-0.5, -0.2, 0.5, -0.0, 3e9, -1e10, np.nan, 7.9] * 3, np.float32)
    want = _np(lambda: 1 / x.astype(np.int32).astype(np.float32))
    np.testing.assert_array_equal(ms.jit(f)(Tensor(x)).asnumpy(), want)
    np.testing.assert_array_equal(f(Tensor(x)).asnumpy(), want)
