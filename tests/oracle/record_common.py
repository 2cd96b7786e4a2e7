"""Shared helpers of the oracle recorders (run ONLY in the MindSpore venv).

Encoding of "output structures" (documented in README.md):

    {"tensor": {"dtype": "Float32", "shape": [2, 3], "value": [[...], [...]]}}
        a Tensor; value is the nested list of its elements (floats as float64 reprs,
        ints as ints, bools as bools).  A Parameter has in addition
        "class": "Parameter" and "name": its name.
    {"scalar": 3, "type": "int" | "float" | "bool" | "str"}
    {"none": null}
    {"tuple": [...]}   {"list": [...]}   {"dict": [[key, <encoded>], ...]}  (dict: keys in order)
    {"error": {"type": "ValueError", "message_first_line": "..."}}
    {"object": {"type": "ClassName", "repr": "..."}}   anything else

Non-finite floats are written as the bare JSON extensions NaN / Infinity / -Infinity,
which Python's json module reads back as float('nan') / float('inf').
"""
import json
import os
import platform
import re
import sys
import traceback

import numpy as np


def _ms():
    import mindspore
    return mindspore


def encode_array(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return a.astype(np.float64).tolist()
    if a.dtype.kind in "iu":
        return a.astype(np.int64).tolist()
    if a.dtype.kind == "b":
        return a.tolist()
    return a.tolist()


def tensor_numpy(t):
    ms = _ms()
    if t.dtype == ms.bfloat16:
        t = t.astype(ms.float32)
    return t.asnumpy()


def encode(obj):
    ms = _ms()
    if isinstance(obj, ms.Tensor):
        arr = tensor_numpy(obj)
        d = {"dtype": str(obj.dtype), "shape": list(obj.shape), "value": encode_array(arr)}
        if isinstance(obj, ms.Parameter):
            d["class"] = "Parameter"
            d["name"] = obj.name
        return {"tensor": d}
    if isinstance(obj, np.ndarray):
        return {"ndarray": {"dtype": str(obj.dtype), "shape": list(obj.shape),
                            "value": encode_array(obj)}}
    if isinstance(obj, bool) or isinstance(obj, np.bool_):
        return {"scalar": bool(obj), "type": "bool"}
    if isinstance(obj, (int, np.integer)):
        return {"scalar": int(obj), "type": "int"}
    if isinstance(obj, (float, np.floating)):
        return {"scalar": float(obj), "type": "float"}
    if isinstance(obj, str):
        return {"scalar": obj, "type": "str"}
    if obj is None:
        return {"none": None}
    if isinstance(obj, tuple):
        return {"tuple": [encode(e) for e in obj]}
    if isinstance(obj, list):
        return {"list": [encode(e) for e in obj]}
    if isinstance(obj, dict):
        return {"dict": [[str(k), encode(v)] for k, v in obj.items()]}
    return {"object": {"type": type(obj).__name__, "repr": repr(obj)[:200]}}


def first_line(msg):
    """First meaningful line of an error message, stripped: empty lines, separator lines
    ("-----") and MindSpore's section headers ("- Kernel select failed:") are skipped;
    memory addresses (which change from run to run) are replaced by 0xADDR."""
    for line in str(msg).splitlines():
        s = line.strip()
        if not s or re.fullmatch(r"[-=_*#\s]+", s) or re.fullmatch(r"- .*:", s):
            continue
        return re.sub(r"0x[0-9a-fA-F]{6,}", "0xADDR", s)
    return ""


def encode_error(e):
    return {"error": {"type": type(e).__name__, "message_first_line": first_line(e)}}


def capture(fn, *args, **kwargs):
    """Call fn; return (encoded result) or the encoded error."""
    try:
        return encode(fn(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 -- every failure is data
        if os.environ.get("ORACLE_TRACE"):
            traceback.print_exc()
        return encode_error(e)


def tensor_spec(arr, ms_dtype_name=None):
    """Encode an input array as the tensor that will be built from it."""
    arr = np.asarray(arr)
    return {"tensor": {"dtype": ms_dtype_name or _np_to_ms_name(arr.dtype),
                       "shape": list(arr.shape), "value": encode_array(arr)}}


def _np_to_ms_name(dt):
    return {"float16": "Float16", "float32": "Float32", "float64": "Float64",
            "int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64",
            "uint8": "UInt8", "bool": "Bool"}[np.dtype(dt).name]


def same(a, b, rtol=1e-6, atol=1e-6):
    """Structural equality of two encodings (floats with a tolerance)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return False
        return all(same(a[k], b[k], rtol, atol) for k in a if k != "message_first_line") and \
            ("message_first_line" not in a or a["message_first_line"] == b["message_first_line"])
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool):
            return a == b
        try:
            return bool(np.isclose(float(a), float(b), rtol=rtol, atol=atol, equal_nan=True))
        except (TypeError, ValueError):
            return False
    return a == b


def meta(script):
    ms = _ms()
    return {"recorded_with": {"mindspore": ms.__version__, "numpy": np.__version__,
                              "python": platform.python_version(), "device": "CPU",
                              "script": script},
            "encoding": "see tests/oracle/README.md (output structure encoding)"}


def _is_leafy(v):
    if isinstance(v, list):
        return all(_is_leafy(e) for e in v)
    return v is None or isinstance(v, (bool, int, float, str))


def dumps(v, ind=0):
    """json.dumps with indentation, but lists of plain values (array values, shapes)
    written on one line."""
    pad = " " * ind
    if isinstance(v, dict):
        if not v:
            return "{}"
        if all(_is_leafy(x) for x in v.values()):
            one = json.dumps(v, allow_nan=True)
            if len(one) <= 120:
                return one
        items = [f'{pad} {json.dumps(str(k))}: {dumps(x, ind + 1)}' for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list) and not _is_leafy(v):
        items = [f"{pad} {dumps(x, ind + 1)}" for x in v]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(v, allow_nan=True)


def write_json(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(dumps(data))
        f.write("\n")
    print(f"wrote {path} ({os.path.getsize(path)} bytes)", file=sys.stderr)


DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
