"""Text forms of tensors, matching MindSpore 2.10:

* `print(t)`: NumPy's str of the array (`[1 2 3]`, a 0-d float as `21.0`) as NumPy 1.x prints it,
  which MindSpore 2.10 runs on (NumPy 2 would print a float32 `1234567.0` as `1.234567e+06`);
* `repr(t)`: `Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])`. MindSpore renders the values
  itself (not with NumPy), and this module follows its rules:
  - a 0-d value prints as C++ streams print it: floats like `%g` (`21`, `0.333333`), bools as
    `True` / `False`;
  - complex values as `%g` of the real part then the imaginary part with its sign (`1+0.5j`,
    `-0-3e-05j`), unpadded;
  - floats as `%.8e` right-aligned in 15 columns (`%.4e` in 11 for float16), bools right-aligned
    in 5, integers and bfloat16 values (as `%g`) right-aligned to the widest one shown;
  - a dimension longer than 6 (1000 for a 1-D tensor) shows its first and last 3 entries around
    `...`; a 1-D tensor starts a new line after every 12 floats / bools or 24 integers / bfloat16s;
  - multi-dimensional values start on the next line; an empty tensor shows no value at all;
* `repr` of a tensor that wraps NumPy memory (the rows a dataset iterator yields, like MindSpore's
  `Tensor.from_numpy`): NumPy's `array2string` with `, ` between entries (`[1., 1.]`,
  `value= 3.`), as MindSpore prints those (`host_tensor_repr`);
* `print(t)` of bfloat16: each value as `%f` (`[1.500000 -3.093750]`), NumPy's layout otherwise;
* graph-mode Print (`print_form`): the same with spaces instead of commas and no space after
  `value=`; a 0-d tensor prints as its bare value (bools as 0 / 1, complex values as `(1,2)`).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

_BF16 = np.dtype(ml_dtypes.bfloat16)   # kind 'V' to NumPy: the forms below treat it as a float
_EDGE = 3            # entries shown at each end of a summarized dimension
_SUMMARIZE = 6       # a dimension longer than this is summarized ...
_SUMMARIZE_1D = 1000  # ... or longer than this for a 1-D tensor


def _complex_text(value) -> str:
    value = complex(value)
    return f"{value.real:g}{value.imag:+g}j"


def _scalar_text(value, kind: str) -> str:
    if kind == "c":
        return _complex_text(value)
    if kind == "f":
        return format(float(value), "g")
    if kind == "b":
        return "True" if value else "False"
    return str(int(value))


def _visible(n: int, bottom: bool, ndim: int) -> list:
    """Indices of a dimension of size n that are printed."""
    limit = _SUMMARIZE_1D if ndim == 1 else _SUMMARIZE
    if n > limit or (not bottom and n > _SUMMARIZE):
        return list(range(_EDGE)) + list(range(n - _EDGE, n))
    return list(range(n))


def _kind(arr: np.ndarray) -> str:
    return "f" if arr.dtype == _BF16 else arr.dtype.kind


def _g(v) -> str:
    return format(float(v), "g")


def _item_formatter(arr: np.ndarray):
    kind = arr.dtype.kind
    if arr.dtype == _BF16:
        shown = arr[np.ix_(*[_visible(n, d == arr.ndim - 1, arr.ndim) for d, n in enumerate(arr.shape)])]
        width = max(len(_g(v)) for v in shown.flat)
        return lambda v: f"{_g(v):>{width}}"
    if kind == "f":
        width, digits = (11, 4) if arr.dtype == np.float16 else (15, 8)
        return lambda v: f"{float(v):>{width}.{digits}e}"
    if kind == "b":
        return lambda v: f"{'True' if v else 'False':>5}"
    if kind == "c":
        return _complex_text
    shown = arr[np.ix_(*[_visible(n, d == arr.ndim - 1, arr.ndim) for d, n in enumerate(arr.shape)])]
    width = max(len(str(int(v))) for v in shown.flat)
    return lambda v: f"{int(v):>{width}}"


def _values_text(arr: np.ndarray, comma: bool) -> str:
    """The bracketed values of a tensor with at least one dimension and one element."""
    fmt = _item_formatter(arr)
    sep = ", " if comma else " "
    wrap = 24 if arr.dtype.kind in "iu" or arr.dtype == _BF16 else 12

    def row(vec) -> str:
        n = len(vec)
        if n > (_SUMMARIZE_1D if arr.ndim == 1 else _SUMMARIZE):
            head = sep.join(fmt(v) for v in vec[:_EDGE])
            tail = sep.join(fmt(v) for v in vec[n - _EDGE:])
            return f"[{head} ... {tail}]"
        parts = []
        for i, v in enumerate(vec):
            parts.append(fmt(v))
            if i != n - 1:
                parts.append(sep)
            if arr.ndim == 1 and n > _EDGE and (i + 1) % wrap == 0:
                parts.append("\n ")
        return "[" + "".join(parts) + "]"

    def block(sub, depth: int) -> str:
        if depth == arr.ndim - 1:
            return row(sub)
        n = len(sub)
        newline = "\n" + " " * (depth + 1)
        joint = ("," if comma else "") + newline
        if n > _SUMMARIZE:
            head = joint.join(block(sub[i], depth + 1) for i in range(_EDGE))
            tail = joint.join(block(sub[i], depth + 1) for i in range(n - _EDGE, n))
            return f"[{head}{joint}...{newline}{tail}]"
        return "[" + joint.join(block(sub[i], depth + 1) for i in range(n)) + "]"

    return block(arr, 0)


def tensor_repr(arr: np.ndarray, dtype_name: str, sep: str = ", ", graph: bool = False) -> str:
    shape = "[" + ", ".join(str(d) for d in arr.shape) + "]"
    head = f"Tensor(shape={shape}, dtype={dtype_name}, value="
    if arr.ndim == 0:
        return head + " " + _scalar_text(arr.item(), _kind(arr)) + ")"
    body = "" if arr.size == 0 else _values_text(arr, comma=sep.startswith(","))
    if arr.ndim > 1:
        return head + "\n" + body + ")"
    return head + ("" if graph else " ") + body + ")"


def host_tensor_repr(arr: np.ndarray, dtype_name: str) -> str:
    """repr of a tensor over NumPy memory: MindSpore prints its values as NumPy does."""
    shape = "[" + ", ".join(str(d) for d in arr.shape) + "]"
    with np.printoptions(**_NUMPY1_PRINT):
        body = np.array2string(arr, separator=", ")
    return f"Tensor(shape={shape}, dtype={dtype_name}, value={chr(10) if arr.ndim > 1 else ' '}{body})"


def print_form(arr: np.ndarray, dtype_name: str) -> str:
    """How graph-mode Print shows a tensor."""
    if arr.ndim == 0:
        if arr.dtype.kind == "c":       # C++'s std::complex stream form, as MindSpore 2.10 prints it
            z = complex(arr.item())
            return f"({z.real:g},{z.imag:g})"
        return str(int(arr.item())) if arr.dtype.kind == "b" else _scalar_text(arr.item(), _kind(arr))
    return tensor_repr(arr, dtype_name, sep=" ", graph=True)


_NUMPY1_PRINT = {"legacy": "1.25"} if int(np.__version__.split(".")[0]) >= 2 else {}


def tensor_str(arr: np.ndarray) -> str:
    if arr.dtype == _BF16:
        return np.array2string(arr.astype(np.float32), formatter={"all": lambda v: "%f" % v})
    with np.printoptions(**_NUMPY1_PRINT):
        return str(arr)
