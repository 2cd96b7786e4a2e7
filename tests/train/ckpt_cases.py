"""What the checkpoint fixtures hold, defined once with NumPy only.

Both sides read this module: `record_ckpt_fixtures.py` / `record_ckpt_roundtrip.py` under
MindSpore's venv and the pycompile tests. Builders take the framework's classes as arguments
(`Cell`, `Parameter`, `Tensor`), so the same spec makes the same network in either one.
"""
import numpy as np


def _ramp(shape, dtype, scale=1.0, offset=0.0):
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n, dtype=np.float64) * scale + offset).reshape(shape).astype(dtype)


def dtype_arrays() -> dict:
    """One array per dtype a checkpoint holds, 0-d and multi-d, with values that show rounding,
    signs, the top of unsigned ranges and every bool pattern."""
    return {
        "f32.matrix": _ramp((2, 3), np.float32, 0.25, -0.5),
        "f32.scalar": np.array(3.5, np.float32),
        "f32.one": np.array([1e-8], np.float32),
        "f16.vec": _ramp((5,), np.float16, 0.1, -0.2),
        "f64.cube": _ramp((2, 2, 2), np.float64, 1.0 / 3.0),
        "i8.vec": np.array([-128, -1, 0, 127], np.int8),
        "i16.vec": np.array([-32768, 7, 32767], np.int16),
        "i32.vec": np.array([-2147483648, -5, 0, 2147483647], np.int32),
        "i64.scalar": np.array(-(2 ** 62) - 3, np.int64),
        "i64.matrix": _ramp((3, 2), np.int64, 1e12, -7),
        "u8.img": _ramp((2, 2, 3), np.uint8, 21.0),
        "u16.vec": np.array([0, 65535], np.uint16),
        "u32.vec": np.array([0, 4294967295], np.uint32),
        "u64.vec": np.array([0, 18446744073709551615], np.uint64),
        "bool.vec": np.array([True, False, False, True, True], np.bool_),
        "bool.scalar": np.array(True, np.bool_),
    }


def append_values(Tensor) -> dict:
    """append_dict values of every kind MindSpore accepts (int, float, bool, str, Tensor)."""
    return {
        "epoch_num": 7,
        "lr": 0.125,
        "flag": True,
        "note": "hello, wörld ✓",
        "moment": Tensor(np.array([1.5, -2.0], np.float32)),
    }


# A network of nested Cells, named by dotted paths; shapes and dtypes per Parameter.
NET_SPEC = [
    ("fc1.weight", (3, 4), "float32"),
    ("fc1.bias", (3,), "float32"),
    ("head.fc2.weight", (2, 3), "float32"),
    ("head.fc2.bias", (2,), "float32"),
    ("step", (), "int32"),
]


def net_values(spec=NET_SPEC) -> dict:
    return {name: _ramp(shape, dtype, 0.5 + i, 3.0 - i) for i, (name, shape, dtype) in enumerate(spec)}


def build_net(Cell, Parameter, Tensor, spec=NET_SPEC, values=None):
    """A Cell tree holding one Parameter per dotted name in `spec` (sub-Cells made on the way)."""
    class Holder(Cell):
        def __init__(self):
            super().__init__()

        def construct(self, x):
            return x

    values = values if values is not None else net_values(spec)
    root = Holder()
    # Build leaves first so parameters are named by their full path once the tree is assembled.
    nodes = {"": root}
    for name, _, _ in spec:
        parts = name.split(".")
        for depth in range(1, len(parts)):
            path = ".".join(parts[:depth])
            if path not in nodes:
                nodes[path] = Holder()
    for name, _, _ in spec:
        parent, _, leaf = name.rpartition(".")
        setattr(nodes[parent], leaf, Parameter(Tensor(values[name]), name=leaf))
    for path in sorted((p for p in nodes if p), key=lambda p: -p.count(".")):
        parent, _, leaf = path.rpartition(".")
        setattr(nodes[parent], leaf, nodes[path])
    return root


# load_param_into_net cases: the network's Parameters, the dict's entries, strict_load.
LOAD_CASES = {
    "exact": (NET_SPEC, NET_SPEC, False),
    "missing_in_dict": (NET_SPEC, NET_SPEC[:2], False),
    "extra_in_dict": (NET_SPEC[:2], NET_SPEC, False),
    "prefixed_dict": (NET_SPEC, [("backbone." + n, s, d) for n, s, d in NET_SPEC], False),
    "prefixed_dict_strict": (NET_SPEC, [("backbone." + n, s, d) for n, s, d in NET_SPEC], True),
    "partly_prefixed": (NET_SPEC, [("net." + n, s, d) for n, s, d in NET_SPEC[:2]] + NET_SPEC[2:4], False),
    "dtype_f64_into_f32": (NET_SPEC[:2], [(n, s, "float64") for n, s, _ in NET_SPEC[:2]], False),
    "dtype_f64_into_f32_strict": (NET_SPEC[:2], [(n, s, "float64") for n, s, _ in NET_SPEC[:2]], True),
    "dtype_i64_into_i32": (NET_SPEC[4:], [(n, s, "int64") for n, s, _ in NET_SPEC[4:]], False),
    "dtype_f32_into_i32": (NET_SPEC[4:], [(n, s, "float32") for n, s, _ in NET_SPEC[4:]], False),
    "shape_mismatch": (NET_SPEC[:2], [("fc1.weight", (4, 3), "float32"), ("fc1.bias", (3,), "float32")], False),
    "trailing_ones": (NET_SPEC[:2], [("fc1.weight", (3, 4, 1, 1), "float32"), ("fc1.bias", (3,), "float32")], False),
}
