"""The transforms of a serialized `map`: each as MindSpore 2.10 writes it ({"tensor_op_name",
"tensor_op_params"}, float parameters rounded to float32 as its C++ operations hold them) and how
deserialize rebuilds it. One table row per transform: (pycompile class, MindSpore's name, params
writer, builder or None where the wheel's deserialize refuses it, e.g. Duplicate).

A Python callable is written {"python_module": ..., "tensor_op_name": its __name__}, as the wheel
does, and can not be read back (the wheel's error). Compose is written as its transforms in turn.
"""
from __future__ import annotations

import numpy as np

from pycompile.dataset import transforms as T
from pycompile.dataset import vision as V

_F32 = np.float32


def _f32(x) -> float:
    return float(_F32(x))


# pycompile's Inter -> MindSpore's InterpolationMode codes (its C++ enum: linear, nearest, cubic, area, pil cubic)
_INTER_CODE = {V.Inter.LINEAR: 0, V.Inter.NEAREST: 1, V.Inter.BICUBIC: 2, V.Inter.AREA: 3, V.Inter.PILCUBIC: 4}
_INTER_OF = {v: k for k, v in _INTER_CODE.items()}


def _resize_params(op):
    if op.interpolation not in _INTER_CODE:
        raise TypeError(f"serialize: pycompile cannot write Resize with {op.interpolation.name} yet.")
    size = [op.size] if isinstance(op.size, int) else list(op.size)
    return {"device_target": "CPU", "interpolation": _INTER_CODE[op.interpolation], "size": size}


def _decode_params(op):
    if op.to_pil:
        raise TypeError("serialize: pycompile cannot write Decode(to_pil=True) yet.")
    return {"device_target": "CPU", "rgb": True}


_TABLE = [
    (T.TypeCast, "TypeCast", lambda op: {"data_type": np.dtype(op._np).name},
     lambda p: T.TypeCast(np.dtype(p["data_type"]))),
    (T.OneHot, "OneHot", lambda op: {"num_classes": op.num_classes, "smoothing_rate": float(op.smoothing_rate)},
     lambda p: T.OneHot(p["num_classes"], p["smoothing_rate"])),
    (T.Duplicate, "Duplicate", lambda op: None, None),
    (V.Decode, "Decode", _decode_params, lambda p: V.Decode()),
    (V.Resize, "Resize", _resize_params,
     lambda p: V.Resize(p["size"][0] if len(p["size"]) == 1 else list(p["size"]), _INTER_OF[p["interpolation"]])),
    (V.Rescale, "Rescale", lambda op: {"rescale": _f32(op.rescale), "shift": _f32(op.shift)},
     lambda p: V.Rescale(p["rescale"], p["shift"])),
    (V.Normalize, "Normalize", lambda op: {"device_target": "CPU", "is_hwc": bool(op.is_hwc),
                                           "mean": [float(v) for v in op.mean], "std": [float(v) for v in op.std]},
     lambda p: V.Normalize(p["mean"], p["std"], p.get("is_hwc", True))),
    (V.HWC2CHW, "HwcToChw", lambda op: None, lambda p: V.HWC2CHW()),
    (V.CenterCrop, "CenterCrop", lambda op: {"size": list(op.size)}, lambda p: V.CenterCrop(list(p["size"]))),
    (V.RandomHorizontalFlip, "RandomHorizontalFlip", lambda op: {"prob": _f32(op.prob)},
     lambda p: V.RandomHorizontalFlip(p["prob"])),
    (V.RandomVerticalFlip, "RandomVerticalFlip", lambda op: {"prob": _f32(op.prob)},
     lambda p: V.RandomVerticalFlip(p["prob"])),
]
_BY_CLASS = {cls: (name, write) for cls, name, write, _ in _TABLE}
_BY_NAME = {name: build for _, name, _, build in _TABLE}
_PY_MODULE = "mindspore.dataset.transforms.py_transforms_util"


def _flat(ops):
    for op in ops:
        if isinstance(op, T.Compose):
            yield from _flat(op.transforms)
        else:
            yield op


def ops_to_json(operations) -> list:
    ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
    out = []
    for op in _flat(ops):
        if type(op) in _BY_CLASS:
            name, write = _BY_CLASS[type(op)]
            out.append({"tensor_op_name": name, "tensor_op_params": write(op)})
        elif isinstance(op, T.TensorOperation) or not hasattr(op, "__name__"):
            raise TypeError(f"serialize: pycompile cannot write the transform {type(op).__name__} yet.")
        else:                                                   # a Python function
            out.append({"python_module": _PY_MODULE, "tensor_op_name": op.__name__})
    return out


def op_from_json(d: dict):
    name = d.get("tensor_op_name")
    if "tensor_op_params" not in d and "python_module" in d:
        raise RuntimeError("Failed to find key 'tensor_op_params' in PyFuncOp' JSON file or input dict, check "
                           "input content of deserialize().")
    build = _BY_NAME.get(name)
    if build is None:
        raise RuntimeError(f"Invalid data, unsupported operation: {name}")
    return build(d.get("tensor_op_params") or {})
