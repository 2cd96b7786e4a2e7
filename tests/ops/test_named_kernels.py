"""MindSpore's CPU kernels registered by name only (`Shift`, `Rolling`): a user PrimitiveWithInfer
subclass of that name runs them, in PyNative and graph mode, as in MindSpore's test_shift_op.py /
test_rolling_op.py (2,897 of the suite's MindSpore-passing tests). Values recorded from the wheel
(tests/oracle/record_named_kernels.py -> data/named_kernels.json)."""
import json
import os
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))
import named_kernel_cases as C  # noqa: E402

with open(os.path.join(HERE, "..", "oracle", "data", "named_kernels.json")) as _f:
    DATA = json.load(_f)
Shift, Rolling = C.make_classes(ops)


class _Net(nn.Cell):
    def __init__(self, prim):
        super().__init__()
        self.prim = prim

    def construct(self, *args):
        return self.prim(*args)


def _want(rec):
    v = rec["out"]
    return np.array([np.nan if d is None else d for d in v["data"]], v["dtype"]).reshape(v["shape"])


def _check(got, rec, rtol):
    want = _want(rec)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=1e-30)


def test_rolling_matches_the_wheel_eagerly():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for rec in DATA["rolling"]:
        w, mp, c, ax, cl, m, dt = rec["case"]
        got = Rolling(w, mp, c, ax, cl, m)(Tensor(C.rolling_input(dt))).asnumpy()
        _check(got, rec, 1e-5 if dt == "float32" else 1e-12)


def test_shift_matches_the_wheel_eagerly():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for rec in DATA["shift"]:
        p, ax, dt, fill = rec["case"]
        if "error" in rec:      # the wheel's memcpy fails on a bool (3, 8) shift: not a behaviour to copy
            continue
        got = Shift(p, ax)(Tensor(C.shift_input(dt)), fill).asnumpy()
        _check(got, rec, 1e-6)   # the wheel rounds float64 through float32 here


@pytest.mark.cc
@pytest.mark.parametrize("i", [3, 14, 28, 70, 95])
def test_rolling_in_graph_mode(i):
    rec = DATA["rolling"][i]
    w, mp, c, ax, cl, m, dt = rec["case"]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = _Net(Rolling(w, mp, c, ax, cl, m))(Tensor(C.rolling_input(dt))).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _check(got, rec, 1e-5 if dt == "float32" else 1e-12)


@pytest.mark.cc
def test_shift_in_graph_mode():
    rec = DATA["shift"][0]
    p, ax, dt, fill = rec["case"]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = _Net(Shift(p, ax))(Tensor(C.shift_input(dt)), fill).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _check(got, rec, 1e-6)


def test_a_primitive_with_no_kernel_of_its_name_still_says_so():
    class NoSuchKernel(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self):
            pass

    with pytest.raises(NotImplementedError, match="NoSuchKernel"):
        NoSuchKernel()(Tensor(np.ones(2, np.float32)))
