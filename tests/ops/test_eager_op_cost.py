"""PyNative's per-op cost on small tensors (issue 32 item 4: <= 2.5 µs per elementwise op, bench WP).

Times are not tested (the machine is shared); what a steady-state call does is: the Python frames
it enters and the NumPy calls it makes. Each frame is ~0.1 µs of a ~2 µs op."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import ops
from pycompile.ops.defs.elementwise import EXP_FLUSH_F32


def _trace(fn):
    """(Python functions entered, C functions called) by one call of fn."""
    py, c = [], []

    def prof(frame, event, arg):
        if event == "call":
            py.append(frame.f_code.co_name)
        elif event == "c_call":
            c.append(getattr(arg, "__name__", repr(arg)))
    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return py, c


def test_add_of_two_tensors_is_three_frames():
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    y = ms.Tensor(np.ones(4, np.float32))
    x + y                                   # stores the plan
    py, _ = _trace(lambda: x + y)
    # Tensor.__add__ -> apply -> the plan's run (was 5: a nested compute and Tensor._wrap_array);
    # the lambda itself is the first frame
    assert py[1:] == ["__add__", "apply", "run"], py
    np.testing.assert_array_equal((x + y).asnumpy(), np.arange(4, dtype=np.float32) + 1)


def test_exp_float32_zeroes_in_place(monkeypatch):
    x = ms.Tensor(np.array([-88, -87, -86.9, 0, 1, np.nan, -np.inf, np.inf], np.float32))
    ops.exp(x)
    calls = []
    where = np.where
    monkeypatch.setattr(np, "where", lambda *a, **k: calls.append(1) or where(*a, **k))
    got = ops.exp(x).asnumpy()
    assert not calls                    # np.where's fresh copy was ~2 µs of a float32[4] exp
    assert got[0] == 0 and got[1] == 0 and got[2] > 0 and np.isnan(got[5]) and got[6] == 0


@pytest.mark.parametrize("dt", [np.float32, np.float16, np.float64])
def test_exp_values_bit_for_bit(dt):
    v = np.array([-1e4, -88, -87.0001, -87, -86.99, -20, 0, 1, 80, 89, np.nan, -np.inf, np.inf], dt)
    got = ops.exp(ms.Tensor(v)).asnumpy()
    with np.errstate(all="ignore"):
        if dt is np.float32:
            want = np.where(v <= EXP_FLUSH_F32, np.float32(0), np.exp(v))
        elif dt is np.float16:
            want = np.exp(v.astype(np.float32)).astype(np.float16)
        else:
            want = np.exp(v)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    # a 0-d tensor (NumPy's exp gives a scalar there, not a fresh array)
    s = ops.exp(ms.Tensor(v[3])).asnumpy()
    np.testing.assert_array_equal(np.asarray(s).reshape(1).view(np.uint8), want[3:4].view(np.uint8))


def test_full_sum_sets_the_error_state_once():
    x = ms.Tensor(np.array([1, 2, 3.5, 4], np.float32))
    x.sum()
    _, c = _trace(lambda: x.sum())
    # the NumPy scalar a full sum gives is of the result dtype already: no second errstate guard
    assert c.count("set") == 1, c
    s = x.sum()
    assert s.dtype == ms.float32 and s.shape == () and s.asnumpy() == np.float32(10.5)
    h = ms.Tensor(np.array([60000, 60000], np.float16)).sum()      # float16 overflow: inf, no warning
    assert h.dtype == ms.float16 and np.isinf(h.asnumpy())
