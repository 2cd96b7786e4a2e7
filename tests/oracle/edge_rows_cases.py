"""Edge values through the op table's rows that are not elementwise (issue 32's differential over
every op; the elementwise rows are swept by edge_ops.py). Each case is one public call written
for both frameworks - `ops`, `ms` and `Tensor` bound to MindSpore's or pycompile's, `x0, x1, ...`
to the inputs - on NaN, +-inf, +-0, denormals, the largest finite values, integer extremes and
float16 rounding, and names the table rows it reaches. Shared by the recorder
(record_edge_rows.py, run in the MindSpore venv) and tests/compiler/test_core32c_edge_rows.py.
Imports neither framework.
"""
from __future__ import annotations

import numpy as np


def _f(dtype: str) -> list:
    """Float edge values, 16 of them: +-0, +-the smallest denormal, the smallest normal, small
    values, +-the largest finite, +-inf, NaN."""
    fi = np.finfo(dtype)
    dmin = float(np.nextafter(np.array(0, dtype), np.array(1, dtype)))
    return [0.0, -0.0, dmin, -dmin, float(fi.tiny), 1.0, -1.0, 0.5, -2.5, 3.0, 100.0, -100.0,
            float(fi.max), -float(fi.max), float("inf"), float("nan")]


def _fin(dtype: str) -> list:
    """The finite edge values only (16): where an op's result at inf / NaN is the NaN rule alone."""
    fi = np.finfo(dtype)
    dmin = float(np.nextafter(np.array(0, dtype), np.array(1, dtype)))
    return [0.0, -0.0, dmin, -dmin, float(fi.tiny), 1.0, -1.0, 0.5, -2.5, 3.0, 100.0, -100.0,
            float(fi.max) / 4, -float(fi.max) / 4, 7.0, -0.25]


def _i(dtype: str) -> list:
    ii = np.iinfo(dtype)
    return [0, 1, -1, 2, -2, 7, int(ii.min), int(ii.min) + 1, int(ii.max) - 1, int(ii.max), 3, -3, 5, -5, 9, -9]


def _a(values, dtype, shape=None):
    v = np.array(values, dtype=dtype)
    if shape is not None:
        v = v.reshape(shape)
    return {"dtype": dtype, "value": v.tolist(), "shape": list(v.shape)}


F32, F16, F64 = _f("float32"), _f("float16"), _f("float64")
I32 = _i("int32")
# (4, 4) grids of edge values, the non-finite ones in different rows
G32 = _a(F32, "float32", (4, 4))
G16 = _a(F16, "float16", (4, 4))
G64 = _a(F64, "float64", (4, 4))
GI32 = _a(I32, "int32", (4, 4))
FIN32 = _a(_fin("float32"), "float32", (4, 4))
IDX = _a([[3, 0], [1, 1], [0, 2], [2, 3]], "int32")
# name -> (expression, inputs, table rows it reaches)
CASES = {
    # reductions
    "row_sum_f32": ("ops.sum(x0, 1)", [G32], ["ReduceSum"]),
    "row_sum_f16": ("ops.sum(x0, 0)", [G16], ["ReduceSum"]),
    "row_sum_i32": ("ops.sum(x0, 1)", [GI32], ["ReduceSum"]),
    "row_prod_f32": ("ops.prod(x0, 1)", [G32], ["ReduceProd"]),
    "row_prod_i32": ("ops.prod(x0, 0)", [GI32], ["ReduceProd"]),
    "row_mean_f64": ("ops.mean(x0, 1)", [G64], ["ReduceMean"]),
    "row_mean_f16": ("ops.mean(x0, 0)", [G16], ["ReduceMean"]),
    "row_amax_i32": ("ops.amax(x0, 1)", [GI32], ["ReduceMax"]),
    "row_amin_f16_finite": ("ops.amin(x0, 1)", [_a(_fin("float16"), "float16", (4, 4))], ["ReduceMin"]),
    "row_argmax_i32": ("ops.argmax(x0, 1)", [GI32], ["Argmax"]),
    "row_argmin_f32_finite": ("ops.argmin(x0, 0)", [_a(_fin("float32"), "float32", (4, 4))], ["Argmin"]),
    "all_f32": ("ops.all(x0, 1)", [G32], ["ReduceAll"]),
    "any_f32": ("ops.any(x0, 0)", [G32], ["ReduceAny"]),
    "all_i32": ("ops.all(x0, 0)", [GI32], ["ReduceAll"]),
    # scans
    "cumsum_f32": ("ops.cumsum(x0, 1)", [G32], ["CumSum"]),
    "cumsum_f16": ("ops.cumsum(x0, 0)", [G16], ["CumSum"]),
    "cumsum_i32": ("ops.cumsum(x0, 1)", [GI32], ["CumSum"]),
    "cumprod_f64": ("ops.cumprod(x0, 1)", [G64], ["CumProd"]),
    "cummax_f32_finite": ("ops.cummax(x0, 1)[0]", [_a(_fin("float32"), "float32", (4, 4))], ["CumMinMax"]),
    "cummin_i32": ("ops.cummin(x0, 0)[0]", [GI32], ["CumMinMax"]),
    # normalizations, softmax
    "softmax_f32_finite": ("ops.softmax(x0, -1)", [_a(_fin("float32"), "float32", (4, 4))], ["Softmax"]),
    "softmax_f64_finite": ("ops.softmax(x0, 0)", [_a(_fin("float64"), "float64", (4, 4))], ["Softmax"]),
    "log_softmax_f32_finite": ("ops.log_softmax(x0, -1)", [_a(_fin("float32"), "float32", (4, 4))],
                               ["LogSoftmax"]),
    "layer_norm_f32": ("ops.LayerNorm(1, 1, 1e-5)(x0, ops.ones(4, ms.float32), ops.zeros(4, ms.float32))[0]",
                       [_a([[1e30, -1e30, 0.0, 1.0], [1e-40, -1e-40, 0.0, -0.0], [3.0, 3.0, 3.0, 3.0],
                            [65504.0, -65504.0, 1.0, 2.0]], "float32")], ["LayerNorm"]),
    # layout, indexing
    "transpose_f32": ("ops.transpose(x0, (1, 0))", [G32], ["Transpose"]),
    "reshape_f16": ("ops.reshape(x0, (2, 8))", [G16], ["Reshape"]),
    "broadcast_f64": ("ops.broadcast_to(x0[0:1], (3, 4))", [G64], ["BroadcastTo", "StridedSlice"]),
    "slice_step_f32": ("x0[::2, ::-1]", [G32], ["StridedSlice"]),
    "concat_f16": ("ops.cat((x0, x0 * 2), 1)", [G16], ["Concat", "Mul"]),
    "stack_i32": ("ops.stack((x0, x0), 2)", [GI32], ["Stack"]),
    "addn_f16": ("ops.addn((x0, x0, x0))", [G16], ["AddN"]),
    "addn_i32": ("ops.addn((x0, x0))", [GI32], ["AddN"]),
    "gather_f32": ("ops.gather(x0, x1[:, 0], 0)", [G32, IDX], ["Gather"]),
    "gather_d_f16": ("ops.gather_elements(x0, 1, x1)", [G16, IDX], ["GatherD"]),
    "gather_nd_i32": ("ops.gather_nd(x0, x1)", [GI32, IDX], ["GatherNd"]),
    "scatter_update_f32": ("ops.tensor_scatter_update(x0, x1[:, 0:1], x0[0:4] * 0.5)", [G32, IDX],
                           ["TensorScatterUpdate", "Mul"]),
    "scatter_add_f16": ("ops.tensor_scatter_add(x0, x1[:, 0:1], x0)", [G16, IDX],
                        ["TensorScatterAdd", "TensorScatterCombine"]),
    "scatter_add_i32": ("ops.tensor_scatter_add(x0, x1[:, 0:1], x0)", [GI32, IDX],
                        ["TensorScatterAdd", "TensorScatterCombine"]),
    "scatter_sub_f32": ("ops.tensor_scatter_sub(x0, x1[:, 0:1], x0)", [G32, IDX],
                        ["TensorScatterSub", "TensorScatterCombine"]),
    "scatter_mul_f64": ("ops.tensor_scatter_mul(x0, x1[:, 0:1], x0)", [G64, IDX],
                        ["TensorScatterMul", "TensorScatterCombine"]),
    "scatter_div_f32": ("ops.tensor_scatter_div(x0, x1[:, 0:1], x0 + 1)", [G32, IDX],
                        ["TensorScatterDiv", "TensorScatterCombine"]),
    "scatter_max_i32": ("ops.tensor_scatter_max(x0, x1[:, 0:1], x0 * 3)", [GI32, IDX],
                        ["TensorScatterMax", "TensorScatterCombine"]),
    "scatter_min_f32_finite": ("ops.tensor_scatter_min(x0, x1[:, 0:1], x0 * 3)",
                               [_a(_fin("float32"), "float32", (4, 4)), IDX], ["TensorScatterMin", "TensorScatterCombine"]),
    "scatter_elements_f32": ("ops.tensor_scatter_elements(x0, x1, x0[:, 0:2], 1)", [G32, IDX],
                             ["TensorScatterElements"]),
    "sort_f32": ("ops.sort(x0, 1)[1]", [G32], ["Argsort"]),
    "argsort_i32_desc": ("ops.argsort(x0, 1, True)", [GI32], ["Argsort"]),
    "topk_f32_finite": ("ops.topk(x0, 2)[1]", [_a(_fin("float32"), "float32", (4, 4))], ["TopKIndices"]),
    "pad_f16": ("ops.pad(x0, (1, 2), 'reflect')", [G16], ["AxisResample"]),
    # products, convolution, pooling
    "matmul_f32": ("ops.matmul(x0, x0)", [G32], ["MatMul"]),
    "matmul_f16_finite": ("ops.matmul(x0, x0)", [_a([v / 64 for v in _fin("float16")], "float16", (4, 4))],
                          ["MatMul"]),
    "bmm_f64": ("ops.bmm(x0.reshape(2, 2, 4), x0.reshape(2, 4, 2))", [G64], ["BatchMatMul"]),
    "conv2d_f32": ("ops.conv2d(x0.reshape(1, 1, 4, 4), ops.ones((1, 1, 2, 2), ms.float32))", [G32], ["Conv2D"]),
    "max_pool_f32": ("ops.max_pool2d(x0.reshape(1, 1, 4, 4), 2, 2)", [G32], ["MaxPool"]),
    "max_pool_f32_finite": ("ops.max_pool2d(x0.reshape(1, 1, 4, 4), 2, 1)",
                            [_a(_fin("float32"), "float32", (4, 4))], ["MaxPool"]),
    "avg_pool_f32": ("ops.avg_pool2d(x0.reshape(1, 1, 4, 4), 2, 2)", [G32], ["AvgPool"]),
    "adaptive_avg_f64": ("ops.adaptive_avg_pool2d(x0.reshape(1, 1, 4, 4), (3, 3))", [G64], ["AdaptiveAvgPool"]),
    "adaptive_max_f32_finite": ("ops.adaptive_max_pool2d(x0.reshape(1, 1, 4, 4), (3, 3))",
                                [_a(_fin("float32"), "float32", (4, 4))], ["AdaptiveMaxPool"]),
    "conv3d_f32": ("ops.conv3d(x0.reshape(1, 1, 2, 2, 4), ops.ones((1, 1, 1, 2, 2), ms.float32))", [G32],
                   ["Conv3D"]),
    "batch_norm_train_f32": ("ops.batch_norm(x0.reshape(2, 2, 2, 2), ops.zeros(2, ms.float32), "
                             "ops.ones(2, ms.float32), ops.ones(2, ms.float32), ops.zeros(2, ms.float32), True)",
                             [_a(_fin("float32"), "float32", (4, 4))], ["BatchNormStats", "BatchNormApply"]),
    "fft_f32": ("ops.ComplexAbs()(ops.fft(ops.Complex()(x0, x0 * 0)))", [_a(_fin("float32"), "float32", (4, 4))],
                ["DFT", "Complex", "ComplexAbs"]),
    "max_pool_argmax_f32_finite": ("ops.max_pool2d(x0.reshape(1, 1, 4, 4), 2, 2, return_indices=True)[1]",
                                   [FIN32], ["MaxPoolArgmax"]),
    "adaptive_max_argmax_f32_finite": ("ops.adaptive_max_pool2d(x0.reshape(1, 1, 4, 4), (3, 3), True)[1]",
                                       [FIN32], ["AdaptiveMaxPoolArgmax"]),
    # gradients: the rows only a backward pass calls (finite values: where a NaN or inf goes in a
    # gradient is each framework's choice of order)
    "grad_max_pool_f32": ("ms.grad(lambda a: (ops.max_pool2d(a, 2, 1) * 3).sum())(x0.reshape(1, 1, 4, 4))",
                          [FIN32], ["MaxPoolGrad"]),
    "grad_avg_pool_f32": ("ms.grad(lambda a: (ops.avg_pool2d(a, 2, 1) * 3).sum())(x0.reshape(1, 1, 4, 4))",
                          [FIN32], ["AvgPoolGrad"]),
    "grad_adaptive_avg_f32": ("ms.grad(lambda a: ops.adaptive_avg_pool2d(a, (3, 3)).sum())(x0.reshape(1, 1, 4, 4))",
                              [FIN32], ["AdaptiveAvgPoolGrad"]),
    "grad_adaptive_max_f32": ("ms.grad(lambda a: ops.adaptive_max_pool2d(a, (3, 3)).sum())(x0.reshape(1, 1, 4, 4))",
                              [FIN32], ["AdaptiveMaxPoolGrad"]),
    "grad_conv2d_f32": ("ms.grad(lambda a, w: (ops.conv2d(a, w, stride=2, pad_mode='pad', padding=1) ** 2).sum(), "
                        "(0, 1))(x0.reshape(1, 1, 4, 4) / 1e38, x1)", [FIN32, _a([[[[1.0, -2.0], [0.5, 3.0]]]], "float32")],
                        ["Conv2DBackpropInput", "Conv2DBackpropFilter"]),
    "grad_conv3d_f32": ("ms.grad(lambda a, w: (ops.conv3d(a, w) * 2).sum(), (0, 1))(x0.reshape(1, 1, 2, 2, 4) / 1e38, "
                        "x1)", [FIN32, _a([[[[[1.0, -2.0]], [[0.5, 3.0]]]]], "float32")],
                        ["Conv3DBackpropInput", "Conv3DBackpropFilter"]),
    "grad_gather_f32": ("ms.grad(lambda a: (ops.gather(a, x1[:, 0], 0) * 2).sum())(x0)", [FIN32, IDX],
                        ["GatherGrad"]),
    "grad_slice_f32": ("ms.grad(lambda a: (a[1::2, 1:] * x1[0:2, 1:]).sum())(x0)", [FIN32, FIN32],
                       ["StridedSliceGrad"]),
    "grad_pad_f32": ("ms.grad(lambda a: (ops.pad(a, (1, 2), 'reflect') ** 2).sum())(x0)", [FIN32],
                     ["AxisResampleGrad"]),
    "real_f32": ("ops.real(ops.Complex()(x0, x0 * 2))", [G32], ["Complex", "Real"]),
    # linear algebra, complex numbers
    "solve_f64": ("ops.matrix_solve(x0, x1)", [_a([[2.0, 1e-300], [0.0, 1e300]], "float64"),
                                               _a([[1e308], [-0.0]], "float64")], ["MatrixSolve"]),
    "complex_abs_f32": ("ops.ComplexAbs()(ops.Complex()(x0, x0[::-1]))", [G32], ["Complex", "ComplexAbs", "StridedSlice"]),
    "angle_f64": ("ops.angle(ops.Complex()(x0, x0.T))", [G64], ["Complex", "Angle", "Transpose"]),
    "real_imag_conj_f32": ("ops.imag(ops.conj(ops.Complex()(x0, x0 * 2)))", [G32], ["Complex", "Conj", "Imag"]),
}
