"""Text forms of tensors, matching MindSpore 2.10:

* `print(t)`: NumPy's str of the array (`[1 2 3]`, a 0-d float as `21.0`);
* `repr(t)`: `Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])`, floats as `%.8e`
  (`%.4e` for float16), comma separated, multi-dimensional values on the next line;
* graph-mode Print (`print_form`): the same with spaces instead of commas and no space after
  `value=`; a 0-d tensor prints as its bare value (bools as 0 / 1).
"""
from __future__ import annotations

import numpy as np

_EDGE = 3
_THRESHOLD = 1000


def _float_fmt(dt: np.dtype):
    digits = 4 if dt == np.float16 else 8
    return lambda v: f"{float(v): .{digits}e}"


def _array_text(arr: np.ndarray, sep: str) -> str:
    fmt = {}
    if arr.dtype.kind == "f":
        fmt = {"float_kind": _float_fmt(arr.dtype)}
    elif arr.dtype.kind == "b":
        fmt = {"bool": lambda v: " True" if v else "False"}
    return np.array2string(arr, separator=sep, formatter=fmt, threshold=_THRESHOLD,
                           edgeitems=_EDGE, max_line_width=10**9)


def tensor_repr(arr: np.ndarray, dtype_name: str, sep: str = ", ", graph: bool = False) -> str:
    shape = "[" + ", ".join(str(d) for d in arr.shape) + "]"
    head = f"Tensor(shape={shape}, dtype={dtype_name}, value="
    if arr.ndim == 0:
        return head + " " + str(arr) + ")"
    if arr.size == 0 and arr.ndim > 1:
        return head + "\n)"
    body = _array_text(arr, sep)
    if arr.ndim > 1:
        return head + "\n" + body + ")"
    return head + ("" if graph else " ") + body + ")"


def print_form(arr: np.ndarray, dtype_name: str) -> str:
    """How graph-mode Print shows a tensor."""
    if arr.ndim == 0:
        return str(int(arr.item())) if arr.dtype.kind == "b" else str(arr)
    return tensor_repr(arr, dtype_name, sep=" ", graph=True)


def tensor_str(arr: np.ndarray) -> str:
    return str(arr)
