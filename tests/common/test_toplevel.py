"""`mindspore.*` utilities (dtype aliases and conversions, from_numpy, the random ops' generator
state, JitConfig, recompute, set_deterministic, synchronize, no_inline, run_check) against
MindSpore 2.10's values recorded in tests/oracle/data/toplevel.json (record_toplevel.py)."""
import json
from pathlib import Path

import numpy as np
import pytest

import pycompile as ms
from pycompile import nn, ops

REC = json.loads((Path(__file__).parents[1] / "oracle" / "data" / "toplevel.json").read_text())
DTS = {"Bool": ms.bool_, "Int8": ms.int8, "UInt8": ms.uint8, "Int32": ms.int32, "Int64": ms.int64,
       "Float16": ms.float16, "Float32": ms.float32, "Float64": ms.float64}


def test_dtype_aliases_and_conversions():
    assert {n: str(getattr(ms, n)) for n in REC["aliases"]} == REC["aliases"]
    # compared as NumPy dtypes: numpy 2 names bool_ 'bool'
    assert {k: np.dtype(ms.dtype_to_nptype(d)) for k, d in DTS.items()} == \
        {k: np.dtype(v) for k, v in REC["dtype_to_nptype"].items()}
    assert {k: ms.dtype_to_pytype(d).__name__ for k, d in DTS.items()} == REC["dtype_to_pytype"]
    got = {"int": ms.pytype_to_dtype(int), "float": ms.pytype_to_dtype(float), "bool": ms.pytype_to_dtype(bool),
           "np.float32": ms.pytype_to_dtype(np.float32), "np.int16": ms.pytype_to_dtype(np.int16)}
    assert {k: str(v) for k, v in got.items()} == REC["pytype_to_dtype"]
    assert {k: str(ms.get_py_obj_dtype(v)) for k, v in (("1", 1), ("1.0", 1.0), ("True", True))} == \
        REC["get_py_obj_dtype"]
    with pytest.raises(TypeError) as e:
        ms.pytype_to_dtype("x")
    assert str(e.value) == REC["pytype_to_dtype_error"]["message"]


def test_from_numpy():
    t = ms.from_numpy(np.ones((2, 3), np.int16))
    assert {"dtype": str(t.dtype), "shape": list(t.shape)} == REC["from_numpy"]
    with pytest.raises(TypeError, match=REC["from_numpy_error"]["message"]):
        ms.from_numpy([1, 2])


def test_rng_state_round_trip_and_seeds():
    ms.manual_seed(11)
    assert ms.initial_seed() == 11
    a = ops.rand(4).asnumpy()
    state = ms.get_rng_state()
    b = ops.rand(4).asnumpy()
    ms.set_rng_state(state)
    np.testing.assert_array_equal(ops.rand(4).asnumpy(), b)
    assert not np.array_equal(a, b)
    ms.manual_seed(11)
    np.testing.assert_array_equal(ops.rand(4).asnumpy(), a)
    s = ms.seed()
    assert ms.initial_seed() == s
    with pytest.raises(ValueError):
        ms.set_rng_state(ms.Tensor(np.zeros(2, np.int64)))


def test_jit_config_defaults():
    assert ms.JitConfig().jit_config_dict == REC["jit_config_default"]
    assert ms.JitConfig(jit_level="O1").jit_config_dict == REC["jit_config_O1"]
    with pytest.raises(ValueError):
        ms.JitConfig(jit_level="O9")


class _Twice(nn.Cell):
    def construct(self, x):
        return x * 2 + 1


def test_recompute_deterministic_synchronize_no_inline():
    assert float(ms.recompute(_Twice(), ms.Tensor(np.float32(3.0))).asnumpy()) == REC["recompute"]
    with pytest.raises(TypeError, match="only support block which inherited from Cell"):
        ms.recompute(lambda x: x, ms.Tensor(np.float32(3.0)))
    assert float(ms.recompute(lambda x: x - 1, ms.Tensor(np.float32(3.0)), use_reentrant=False).asnumpy()) == 2.0
    with pytest.raises(TypeError) as e:
        ms.set_deterministic(1)
    assert str(e.value) == REC["set_deterministic_error"]["message"]
    ms.set_deterministic(True)
    ms.set_deterministic(False)
    assert ms.synchronize() is None

    def f(x):
        return x
    assert ms.no_inline(f) is f and ms.no_inline()(f) is f


@pytest.mark.cc
def test_run_check_prints_success(capsys):
    ms.run_check()
    assert "installed on platform [CPU] successfully" in capsys.readouterr().out


def test_pytype_to_dtype_of_an_unknown_class():
    # MindSpore 2.10: NotImplementedError "The python type <class '...A'> cannot be converted to
    # MindSpore type." (checked with the wheel)
    class A:
        pass
    with pytest.raises(NotImplementedError, match="cannot be converted to MindSpore type"):
        ms.pytype_to_dtype(A)
