"""What a compiled function returns when it computes with ms.mutable numbers, against MindSpore
2.10's records (tests/oracle/record_mutable_numbers.py -> data/mutable_numbers.json): Python
operators and int() / float() / bool() / min() / max() on mutable numbers give Python numbers
(computed as MindSpore does, a float in float32), through loops and branches too; ops.* functions,
Tensor(...) and anything mixed with a Tensor give Tensors."""
import json
import math
import os
import sys

import pytest

import pycompile as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))

from mutable_number_cases import cases, describe  # noqa: E402

with open(os.path.join(HERE, "..", "oracle", "data", "mutable_numbers.json")) as f:
    RECORDED = json.load(f)

CASES = {name: (fn, args) for name, fn, args in cases(ms)}


def _same(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert got["type"] == want["type"], (got, want)
    if want["type"] == "Tensor":
        assert got["dtype"] == want["dtype"] and got["shape"] == want["shape"], (got, want)
    g, w = got["value"], want["value"]
    if isinstance(w, float) and math.isinf(w):
        assert g == w
    else:
        assert g == pytest.approx(w, rel=1e-7), (got, want)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_compiled_result_is_what_mindspore_returns(name):
    fn, args = CASES[name]
    _same(describe(ms.jit(fn)(*args())), RECORDED[name])


def test_a_new_value_reuses_the_executable_and_still_returns_a_number():
    fn, _ = CASES["arith_float"]
    f = ms.jit(fn)
    first = f(ms.mutable(0.1), ms.mutable(0.2))
    again = f(ms.mutable(1.5), ms.mutable(0.5))
    assert [type(v) for v in again] == [float] * 6 and [type(v) for v in first] == [float] * 6
    assert again[0] == 2.0 and again[3] == 3.0 and again[5] == 2.25


def test_pynative_keeps_python_arithmetic():
    """Uncompiled, a mutable number is the Python number itself (float64 arithmetic), as in
    MindSpore's PyNative mode; only the compiled values are float32."""
    fn, args = CASES["arith_float"]
    assert fn(*args())[0] == 0.1 + 0.2
