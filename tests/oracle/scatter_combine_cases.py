"""The arithmetic scatters on edge values (issue 32, branch rows32): TensorScatterUpdate / Add /
Sub / Mul / Div / Max / Min in float16 / float32 / float64 and int32, with a repeated index (row 1
three times: the updates combine one after the other, in index order), NaN, +-inf, +-0, a
denormal, division by zero and the integer extremes; and every op given a negative and an
out-of-range index (MindSpore's exception class, its message naming the op the user called).
Shared by the recorder (record_scatter_combine.py, run in the MindSpore venv) and
tests/ops/test_core32_scatters.py. Imports neither framework.
"""
from __future__ import annotations

import numpy as np

OPS = ("update", "add", "sub", "mul", "div", "max", "min")
DTYPES = ("float16", "float32", "float64", "int32")
INDEX = [[1], [3], [1], [0], [1]]           # row 1 three times


def _float(dtype: str):
    dmin = float(np.nextafter(np.array(0, dtype), np.array(1, dtype)))
    x = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 100.0, np.inf, -np.inf, np.nan, dmin]
    u = [2.0, -0.0, np.nan, np.inf, 0.0, -1.0, 0.5, -np.inf, 3.0, -3.0, 0.25, 7.0, -0.0, 4.0, np.nan]
    return np.array(x, dtype).reshape(4, 3), np.array(u, dtype).reshape(5, 3)


def _int():
    i = np.iinfo(np.int32)
    x = [0, 1, -1, 7, -7, 100, i.max, i.min, 2, -3, 5, 9]
    u = [2, 5, -1, 4, 3, -1, i.max, -2, 3, -3, 6, 7, 5, i.min, 1]     # (no 0: MindSpore's int32 div by 0 dies)
    return np.array(x, np.int32).reshape(4, 3), np.array(u, np.int32).reshape(5, 3)


def inputs(dtype: str):
    x, u = _int() if dtype == "int32" else _float(dtype)
    return x, np.array(INDEX, np.int32), u


def cases() -> dict:
    """name -> (op, dtype, x, indices, updates)."""
    out = {}
    for op in OPS:
        for dt in DTYPES:
            x, i, u = inputs(dt)
            out[f"{op} {dt}"] = (op, dt, x, i, u)
        x, _, u = inputs("float32")
        out[f"{op} negative index"] = (op, "float32", x, np.array([[0], [-1]], np.int32), u[:2])
        out[f"{op} index out of range"] = (op, "float32", x, np.array([[0], [4]], np.int64), u[:2])
    # a tuple of two indices, its second out of range (branch rows32b: MindSpore's message names the
    # tuple's position, its values and the dimensions it indexes)
    x, _, _ = inputs("float32")
    for op in ("add", "max"):
        out[f"{op} index tuple out of range"] = (op, "float32", x, np.array([[0, 0], [1, 5]], np.int32),
                                                 np.ones(2, np.float32))
    return out
