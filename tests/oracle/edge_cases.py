"""The edge values and the cases of the eager-vs-compiled differential (tests/compiler/edge_ops.py),
shared by the MindSpore recorder (record_edge_values.py) and pycompile's tests. Imports neither
framework: an expression below is evaluated with `ops`, `ms` and `Tensor` bound to one or the
other, and `x0, x1, ...` bound to the inputs.
"""
from __future__ import annotations

import numpy as np

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64")


def float_edges(dtype: str) -> np.ndarray:
    """±0, ± the smallest denormal, ± the smallest normal, small values, ±100 (exp over- and
    underflows in float16 / float32), ± the largest finite value, ±inf, NaN."""
    fi = np.finfo(dtype)
    dmin = np.nextafter(np.array(0, dtype), np.array(1, dtype))
    vals = [0.0, -0.0, dmin, -dmin, fi.tiny, -fi.tiny, 1.0, -1.0, 0.5, -2.5, 3.0, 100.0, -100.0,
            fi.max, -fi.max, np.inf, -np.inf, np.nan]
    return np.array(vals, dtype)


def int_edges(dtype: str) -> np.ndarray:
    if dtype == "bool":
        return np.array([False, True])
    ii = np.iinfo(dtype)
    if ii.min == 0:
        return np.array([0, 1, 2, 7, ii.max - 1, ii.max], dtype)
    return np.array([0, 1, -1, 2, -2, 7, ii.min, ii.min + 1, ii.max - 1, ii.max], dtype)


def edges(dtype: str) -> np.ndarray:
    return float_edges(dtype) if dtype.startswith("float") else int_edges(dtype)


def edge_grid(dtypes) -> list:
    """All combinations of the edge values of `dtypes` (one dtype per input), as flat arrays; a
    three-input op (Select) takes every other float edge value."""
    vals = [edges(d) for d in dtypes]
    if len(vals) == 3:
        vals = [v[::2] if v.dtype.kind == "f" else v for v in vals]
    grids = np.meshgrid(*[np.arange(len(v)) for v in vals], indexing="ij")
    return [v[g.reshape(-1)] for v, g in zip(vals, grids)]


# the MindSpore expression of an elementwise op of the table where MindSpore has no primitive of
# the op's name (otherwise: `ops.<Name>()(x0, ...)`; Cast: `ops.Cast()(x0, ms.<dtype>)`)
FUNCTIONAL = {
    "GeLUErf": "ops.gelu(x0, approximate='none')",
    "SiLU": "ops.silu(x0)",
    "LogSigmoid": "ops.logsigmoid(x0)",
    "Log2": "ops.log2(x0)",
    # ReLU's backward (dy, y): MindSpore's own backward primitive
    "ReLUGrad": "ops.operations._grad_ops.ReluGrad()(x0, x1)",
}


def elementwise_expr(op: str, n: int, cast_to: str | None = None) -> str:
    if cast_to is not None:
        return f"ops.Cast()(x0, ms.{'bool_' if cast_to == 'bool' else cast_to})"
    if op in FUNCTIONAL:
        return FUNCTIONAL[op]
    return f"ops.{op}()({', '.join(f'x{k}' for k in range(n))})"


def _a(values, dtype):
    return {"dtype": dtype, "value": values}


_NONFINITE_ROWS = [[1.0, float("nan"), 3.0], [float("-inf"), float("-inf"), float("-inf")],
                   [float("inf"), float("-inf"), 0.0], [3.4028234663852886e38, 3.4028234663852886e38, 0.0],
                   [-0.0, 0.0, -0.0], [float("nan"), float("inf"), float("nan")]]


# NOT recorded: MindSpore 2.10's float32 CPU softmax of a row holding inf or NaN (or all -inf)
# returns values left in memory by earlier calls (softmax([[-inf, -inf], [-inf, 0], [nan, 0]])
# gave [[0, 0], [-88, -100], [-200, 0]] right after a call on [-88, -100, -200]); its float16
# and float64 kernels give NaN for such rows, which is what x - max gives, and what pycompile
# gives in both modes (test_edge_values.py: test_softmax_of_non_finite_rows_is_nan).

# Hand-written cases: composite expressions (softmax and the like) where the sweep over the compiled
# checks found eager and compiled disagreeing, and the example of issue 31. name -> (expr, inputs)
CASES = {
    "log_softmax_of_underflow": ("ops.log(ops.softmax(x0))", [_a([0.0, -88.0, -100.0], "float32")]),
    "softmax_underflow_f32": ("ops.softmax(x0)", [_a([0.0, -86.0, -87.0, -87.5, -88.0, -100.0, -104.0], "float32")]),
    "softmax_underflow_f64": ("ops.softmax(x0)", [_a([0.0, -700.0, -708.0, -709.0, -745.0, -746.0], "float64")]),
    "softmax_underflow_f16": ("ops.softmax(x0)", [_a([0.0, -10.0, -15.0, -16.0, -17.0, -20.0], "float16")]),
    "log_softmax_underflow_f32": ("ops.log_softmax(x0)", [_a([0.0, -88.0, -100.0, -104.0, -200.0], "float32")]),
    "softmax_flush_threshold": ("ops.softmax(x0)", [_a([[0.0, -86.9, -87.0, -87.3, -87.4]], "float32")]),
    "softmax_axis0_keeps_denormals": ("ops.softmax(x0, axis=0)",
                                      [_a([[0.0, 1.0], [-87.0, -86.0], [-100.0, -200.0]], "float32")]),
    # the softmax axis followed only by size-1 axes: MindSpore flushes only over the last axis
    "softmax_axis0_trailing_one": ("ops.softmax(x0, axis=0)",
                                   [_a([[0.0], [-86.9], [-87.0], [-87.5], [-100.0]], "float32")]),
    "softmax_axis1_trailing_ones": ("ops.softmax(x0, axis=1)",
                                    [_a([[[0.0], [-86.9], [-87.0], [-87.5], [-100.0]]], "float32")]),
    "log_softmax_axis0": ("ops.log_softmax(x0, axis=0)", [_a([[0.0, 1.0], [-87.0, -86.0], [-100.0, -200.0]], "float32")]),
    "softmax_max": ("ops.softmax(x0)", [_a([[3.4028234663852886e38, -3.4028234663852886e38, 0.0]], "float32")]),
    # reductions with NaN, infinities and overflow
    "amax_nan": ("ops.amax(x0, 1)", [_a(_NONFINITE_ROWS, "float32")]),
    "amin_nan": ("ops.amin(x0, 1)", [_a(_NONFINITE_ROWS, "float32")]),
    "argmax_nan": ("ops.argmax(x0, 1)", [_a(_NONFINITE_ROWS, "float32")]),
    "argmin_nan": ("ops.argmin(x0, 1)", [_a(_NONFINITE_ROWS, "float32")]),
    "sum_nonfinite": ("ops.sum(x0, 1)", [_a(_NONFINITE_ROWS, "float32")]),
    "mean_nonfinite": ("ops.mean(x0, 1)", [_a(_NONFINITE_ROWS, "float32")]),
    "prod_nonfinite": ("ops.prod(x0, 1)", [_a(_NONFINITE_ROWS, "float32")]),
    "sum_overflow_f16": ("ops.sum(x0)", [_a([60000.0, 60000.0, -60000.0], "float16")]),
    "sum_int32_wraps": ("ops.sum(x0)", [_a([2147483647, 1], "int32")]),
    "sigmoid_wide": ("ops.sigmoid(x0)", [_a([-100.0, -88.0, -20.0, 0.0, 20.0, 88.0, 100.0], "float32")]),
    "exp_log_chain": ("ops.log(ops.exp(x0))", [_a([-100.0, -88.0, -87.0, 0.0, 88.0, 89.0], "float32")]),
}
