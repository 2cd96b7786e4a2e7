"""The cases of MindSpore's CPU kernels registered by name only (`Shift`, `Rolling`), shared by the
recorder (record_named_kernels.py, under MindSpore) and tests/ops/test_named_kernels.py. A user
subclass of PrimitiveWithInfer named like the kernel runs it, as MindSpore's own tests do."""
import numpy as np

X_FLOAT = np.round(np.linspace(-3.0, 4.0, 24).reshape(3, 8) ** 2 - 5.0, 3)
X_INT = (np.arange(24).reshape(3, 8) * 7 % 11).astype(np.int32)

# (window, min_periods, center, axis, closed, method, dtype)
ROLLING = [(w, mp, c, ax, cl, m, dt)
           for (w, mp, c, ax, cl) in [(3, 2, False, -1, "right"), (4, 1, True, 1, "both"),
                                      (3, 3, True, 0, "left"), (5, 2, False, 1, "neither")]
           for m in ("max", "min", "mean", "sum", "std", "var")
           for dt in ("float32", "int32", "float64", "int64")]

# (periods, axis, dtype, fill_value)
SHIFT = [(2, 1, "float32", float("nan")), (-3, 1, "float64", 5.5), (1, 0, "int32", -4),
         (-1, 0, "int64", 7), (9, 1, "float32", 0.0), (2, -1, "bool", True), (0, 1, "int32", 3),
         (-8, 1, "float64", -1.5)]


def rolling_input(dtype):
    return (X_FLOAT if dtype.startswith("float") else X_INT).astype(dtype)


def shift_input(dtype):
    if dtype == "bool":
        return X_INT % 2 == 0
    return (X_FLOAT if dtype.startswith("float") else X_INT).astype(dtype)


def make_classes(ops):
    """Shift / Rolling as MindSpore's tests declare them, over `ops` (mindspore.ops or pycompile.ops)."""
    class Shift(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self, periods=1, axis=-1):
            self.init_prim_io_names(inputs=["x", "fill_value"], outputs=["output"])

        def __infer__(self, x, fill_value):
            return {"shape": tuple(x["shape"]), "dtype": x["dtype"], "value": None}

    class Rolling(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self, window, min_periods, center, axis, closed, method):
            self.init_prim_io_names(inputs=["x"], outputs=["output"])

        def __infer__(self, x):
            return {"shape": tuple(x["shape"]), "dtype": x["dtype"], "value": None}

    return Shift, Rolling
