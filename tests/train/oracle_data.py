"""Reading tests/oracle/data/*.json (recorded from MindSpore 2.10; the encoding is described in
tests/oracle/README.md) and comparing pycompile's values with it."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent.parent / "oracle" / "data"
NP_DTYPES = {"Float16": np.float16, "Float32": np.float32, "Float64": np.float64, "Int8": np.int8,
             "Int16": np.int16, "Int32": np.int32, "Int64": np.int64, "UInt8": np.uint8, "Bool": np.bool_}


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def array(enc: dict) -> np.ndarray:
    t = enc["tensor"]
    return np.array(t["value"], dtype=NP_DTYPES[t["dtype"]]).reshape(t["shape"])


def decode(enc):
    """Tensors as NumPy arrays, tuples / lists / dicts as Python containers."""
    if "tensor" in enc:
        return array(enc)
    if "tuple" in enc:
        return tuple(decode(x) for x in enc["tuple"])
    if "list" in enc:
        return [decode(x) for x in enc["list"]]
    if "dict" in enc:
        return {k: decode(v) for k, v in enc["dict"]}
    if "scalar" in enc:
        return enc["scalar"]
    if "none" in enc:
        return None
    raise ValueError(f"cannot decode {enc}")


def assert_tensor(got, enc: dict, what: str, rtol=1e-5, atol=1e-6) -> None:
    want = array(enc)
    got_arr = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    assert str(got.dtype) == enc["tensor"]["dtype"], f"{what}: dtype {got.dtype}, MindSpore {enc['tensor']['dtype']}"
    assert got_arr.shape == want.shape, f"{what}: shape {got_arr.shape}, MindSpore {want.shape}"
    np.testing.assert_allclose(got_arr.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                               err_msg=what)
