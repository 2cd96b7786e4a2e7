"""The conformance table: the matrix / array Primitives MindSpore's CPU suite calls (issue 33,
mat33): MatrixDiagV3 / MatrixDiagPartV3 / MatrixSetDiagV3 and ops.matrix_diag / matrix_diag_part /
matrix_set_diag, ConjugateTranspose, ListDiff, ConcatOffsetV1, ParallelConcat, TensorCopySlices,
MatrixLogarithm; their values and the errors they raise. Shape-setting Tensor arguments (k,
num_rows, num_cols, axis) are graph inputs in the compiled runs. Part of the table loaded after
cases.py."""
group("mat33")


def _mat33_mod(name):
    return __import__(ops.__name__ + ".operations." + name, fromlist=[name])


_m33_i = lambda *v: np.array(v if len(v) != 1 else v[0], np.int32)      # noqa: E731  (an int32 array)
_m33_X = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
_m33_M = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
_m33_Z = np.array([[1 + 2j, 3 - 1j, 2j], [4 + 0j, 5 + 5j, -1j]], np.complex64)


# ---- MatrixDiagV3 / ops.matrix_diag -------------------------------------------------------------
@case("ops.MatrixDiagV3", inputs=[_m33_X, _m33_i(0, 1), _m33_i(-1), _m33_i(-1), np.float32(9)])
def matrix_diag_v3_aligns(x, k, rows, cols, pad):
    return tuple(ops.MatrixDiagV3(a)(x, k, rows, cols, pad) for a in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT",
                                                                        "RIGHT_RIGHT"))


@case("ops.MatrixDiagV3", inputs=[_m33_X, _m33_i(-1, 0), _m33_i(-1), _m33_i(-1), np.float32(0)])
def matrix_diag_v3_subdiagonals(x, k, rows, cols, pad):
    return ops.MatrixDiagV3("LEFT_LEFT")(x, k, rows, cols, pad), ops.MatrixDiagV3("RIGHT_RIGHT")(x, k, rows, cols, pad)


@case("ops.MatrixDiagV3", inputs=[rnd(2, 2, 3), _m33_i(0), _m33_i(5), _m33_i(-1), _m33_i(1), _m33_i(6)])
def matrix_diag_v3_rows_cols(x, k, five, minus1, one, six):
    pad = ops.zeros((), x.dtype)
    op = ops.MatrixDiagV3()
    return op(x, k, five, minus1, pad), op(x, one, minus1, six, pad), op(x[0], one, minus1, minus1, pad)


@case("ops.matrix_diag", inputs=[_m33_X, ints(4, 3, lo=0, hi=9, dtype="int64")])
def matrix_diag_functional(x, xi):
    return (ops.matrix_diag(x, 1, -1, -1, 9.0), ops.matrix_diag(x), ops.matrix_diag(xi, -1, 5, -1, 7),
            ops.matrix_diag(x, 0, -1, -1, 3))


@case("ops.MatrixDiagV3", inputs=[_m33_X, _m33_i(1, 0)], error=True)
def matrix_diag_v3_k_order(x, k):
    return ops.MatrixDiagV3()(x, k, Tensor(-1, ms.int32), Tensor(-1, ms.int32), Tensor(0, ms.float32))


@case("ops.MatrixDiagV3", inputs=[_m33_X], error=True)
def matrix_diag_v3_rows_small(x):
    return ops.matrix_diag(x, 0, 2, -1, 0.0)


@case("ops.MatrixDiagV3", inputs=[_m33_X], error=True)
def matrix_diag_v3_cols_small(x):
    return ops.matrix_diag(x, 0, -1, 2, 0.0)


@case("ops.MatrixDiagV3", inputs=[_m33_X], error=True)
def matrix_diag_v3_rows_cols_inconsistent(x):
    return ops.matrix_diag(x, 0, 5, 5, 0.0)


@case("ops.MatrixDiagV3", inputs=[_m33_X, _m33_i(0, 2)], error=True)
def matrix_diag_v3_k_pair_mismatch(x, k):
    return ops.MatrixDiagV3()(x, k, Tensor(-1, ms.int32), Tensor(-1, ms.int32), Tensor(0, ms.float32))


@case("ops.MatrixDiagV3", inputs=[_m33_X, np.float32(0)], error=True)
def matrix_diag_v3_k_float(x, k):
    return ops.MatrixDiagV3()(x, k, Tensor(-1, ms.int32), Tensor(-1, ms.int32), Tensor(0, ms.float32))


@case("ops.MatrixDiagV3", inputs=[_m33_X, np.int64(0)], error=True)
def matrix_diag_v3_k_int64(x, k):
    return ops.MatrixDiagV3()(x, k, Tensor(-1, ms.int32), Tensor(-1, ms.int32), Tensor(0, ms.float32))


@case("ops.MatrixDiagV3", inputs=[_m33_X, _m33_i(0, 1, 2)], error=True)
def matrix_diag_v3_k_three(x, k):
    return ops.MatrixDiagV3()(x, k, Tensor(-1, ms.int32), Tensor(-1, ms.int32), Tensor(0, ms.float32))


@case("ops.MatrixDiagV3", inputs=[_m33_X, np.int32(0)], error=True)
def matrix_diag_v3_padding_dtype(x, pad):
    return ops.MatrixDiagV3()(x, Tensor(0, ms.int32), Tensor(-1, ms.int32), Tensor(-1, ms.int32), pad)


@case("ops.MatrixDiagV3", inputs=[np.array([True, False])], error=True)
def matrix_diag_v3_bool(x):
    return ops.MatrixDiagV3()(x, Tensor(0, ms.int32), Tensor(-1, ms.int32), Tensor(-1, ms.int32), Tensor(False))


@case("ops.MatrixDiagV3", inputs=[np.float32(1)], error=True)
def matrix_diag_v3_scalar(x):
    return ops.MatrixDiagV3()(x, Tensor(0, ms.int32), Tensor(-1, ms.int32), Tensor(-1, ms.int32), Tensor(0.0))


@case("ops.MatrixDiagV3", graph=False, reason="the constructor's argument checks", error=True)
def matrix_diag_v3_align_value():
    return ops.MatrixDiagV3("LEFT")


@case("ops.MatrixDiagV3", graph=False, reason="the constructor's argument checks", error=True)
def matrix_diag_v3_align_type():
    return ops.MatrixDiagV3(1)


# ---- MatrixDiagPartV3 / ops.matrix_diag_part ----------------------------------------------------
@case("ops.MatrixDiagPartV3", inputs=[_m33_M, _m33_i(-1, 1), np.float32(9)])
def matrix_diag_part_v3_aligns(x, k, pad):
    return tuple(ops.MatrixDiagPartV3(a)(x, k, pad) for a in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"))


@case("ops.matrix_diag_part", inputs=[_m33_M, _m33_i(1), _m33_i(-2, -1), np.float32(0)])
def matrix_diag_part_functional(x, k1, k2, pad):
    return ops.matrix_diag_part(x, k1, pad), ops.matrix_diag_part(x[0].T, k2, pad, align="LEFT_RIGHT")


@case("ops.MatrixDiagPartV3", inputs=[_m33_M, _m33_i(-3, 1)], error=True)
def matrix_diag_part_v3_k_range(x, k):
    return ops.MatrixDiagPartV3()(x, k, Tensor(0, ms.float32))


@case("ops.MatrixDiagPartV3", inputs=[_m33_M, _m33_i(1, -1)], error=True)
def matrix_diag_part_v3_k_order(x, k):
    return ops.MatrixDiagPartV3()(x, k, Tensor(0, ms.float32))


@case("ops.MatrixDiagPartV3", inputs=[np.array([1, 2], np.float32)], error=True)
def matrix_diag_part_v3_rank(x):
    return ops.MatrixDiagPartV3()(x, Tensor(0, ms.int32), Tensor(0, ms.float32))


@case("ops.MatrixDiagPartV3", inputs=[_m33_M, np.array([0], np.float32)], error=True)
def matrix_diag_part_v3_padding_rank(x, pad):
    return ops.MatrixDiagPartV3()(x, Tensor(0, ms.int32), pad)


# ---- MatrixSetDiagV3 / ops.matrix_set_diag ------------------------------------------------------
@case("ops.MatrixSetDiagV3", inputs=[_m33_M[0], rnd(3, 3), _m33_i(-1, 1)])
def matrix_set_diag_v3_aligns(x, diagonal, k):
    return tuple(ops.MatrixSetDiagV3(a)(x, diagonal, k) for a in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT",
                                                                   "RIGHT_RIGHT"))


@case("ops.matrix_set_diag", inputs=[_m33_M, rnd(2, 3), rnd(2, 2)])
def matrix_set_diag_functional(x, d0, d2):
    return ops.matrix_set_diag(x, d0), ops.matrix_set_diag(x, d2, Tensor(2, ms.int32))


@case("ops.matrix_set_diag", inputs=[_m33_M[0], rnd(2)], error=True)
def matrix_set_diag_length(x, d):
    return ops.matrix_set_diag(x, d)


@case("ops.MatrixSetDiagV3", inputs=[_m33_M[0], rnd(2, 3), _m33_i(-1, 1)], error=True)
def matrix_set_diag_v3_num_diags(x, d, k):
    return ops.MatrixSetDiagV3()(x, d, k)


@case("ops.MatrixSetDiagV3", inputs=[_m33_M, rnd(3, 3)], error=True)
def matrix_set_diag_v3_batch(x, d):
    return ops.MatrixSetDiagV3()(x, d, Tensor(0, ms.int32))


# ---- ConjugateTranspose -------------------------------------------------------------------------
@case("ops.ConjugateTranspose", inputs=[_m33_Z, _m33_M],
      trust_graph="MindSpore 2.10's PyNative ConjugateTranspose leaves complex128 values unconjugated (its "
                  "complex64 and its GRAPH_MODE conjugate)")
def conjugate_transpose_values(z, x):
    op = ops.ConjugateTranspose()
    return op(z, (1, 0)), op(x, (2, 0, 1)), op(ops.cast(z, ms.complex128), (1, 0))


@case("ops.ConjugateTranspose", inputs=[_m33_Z], error=True)
def conjugate_transpose_perm_repeated(z):
    return ops.ConjugateTranspose()(z, (0, 0))


@case("ops.ConjugateTranspose", inputs=[_m33_Z], error=True)
def conjugate_transpose_perm_length(z):
    return ops.ConjugateTranspose()(z, (0,))


@case("ops.ConjugateTranspose", inputs=[_m33_Z], error=True)
def conjugate_transpose_perm_range(z):
    return ops.ConjugateTranspose()(z, (0, 2))


# ---- ListDiff -----------------------------------------------------------------------------------
@case("ops.ListDiff", inputs=[_m33_i(1, 2, 3, 4, 5, 6), _m33_i(1, 3, 5), np.array([1, 2, 2, 4], np.float32),
                                np.array([2], np.float32)])
def list_diff_values(x, y, xf, yf):
    A = _mat33_mod("array_ops")
    return A.ListDiff()(x, y), A.ListDiff(out_idx=ms.int64)(xf, yf), A.ListDiff()(x, x)


@case("ops.operations", inputs=[_m33_i(1, 2), np.array([1], np.int64)], error=True)
def list_diff_dtypes(x, y):
    return _mat33_mod("array_ops").ListDiff()(x, y)


@case("ops.operations", inputs=[_m33_i([[1, 2]]), _m33_i(1, 2)], error=True)
def list_diff_rank(x, y):
    return _mat33_mod("array_ops").ListDiff()(x, y)


@case("ops.operations", graph=False, reason="the constructor's argument checks", error=True)
def list_diff_out_idx():
    return _mat33_mod("array_ops").ListDiff(out_idx=ms.float32)


# ---- ConcatOffsetV1 -----------------------------------------------------------------------------
@case("ops.operations", inputs=[_m33_i(1), _m33_i(-2), _m33_i(1, 2, 3), _m33_i(1, 5, 3), _m33_i(1, 4, 3)])
def concat_offset_v1_values(axis, neg, a, b, c):
    op = _mat33_mod("array_ops").ConcatOffsetV1()
    return op(axis, (a, b, c)), op(neg, [a, b])


@case("ops.operations", inputs=[_m33_i(1), _m33_i(1, 2, 3), _m33_i(5, 3)], error=True)
def concat_offset_v1_ranks(axis, a, b):
    return _mat33_mod("array_ops").ConcatOffsetV1()(axis, (a, b))


@case("ops.operations", inputs=[np.int64(1), _m33_i(1, 2, 3), _m33_i(1, 5, 3)], error=True)
def concat_offset_v1_axis_int64(axis, a, b):
    return _mat33_mod("array_ops").ConcatOffsetV1()(axis, (a, b))


@case("ops.operations", inputs=[_m33_i(0), _m33_i(4, 2)], error=True)
def concat_offset_v1_one_input(axis, a):
    return _mat33_mod("array_ops").ConcatOffsetV1()(axis, (a,))


# ---- ParallelConcat -----------------------------------------------------------------------------
@case("ops.ParallelConcat", inputs=[rnd(1, 2, 4), rnd(1, 2, 4), rnd(1, 2, dtype="float64")])
def parallel_concat_values(a, b, c):
    op = ops.ParallelConcat()
    return op((a, b)), op([a, b, a]), op((c,))


@case("ops.ParallelConcat", inputs=[rnd(2, 2), rnd(2, 2)], error=True)
def parallel_concat_first_dim(a, b):
    return ops.ParallelConcat()((a, b))


@case("ops.ParallelConcat", inputs=[rnd(1, 2, 4), rnd(1, 2, 3)], error=True)
def parallel_concat_shapes(a, b):
    return ops.ParallelConcat()((a, b))


@case("ops.ParallelConcat", inputs=[rnd(1, 2), ints(1, 2)], error=True)
def parallel_concat_dtypes(a, b):
    return ops.ParallelConcat()((a, b))


# ---- TensorCopySlices ---------------------------------------------------------------------------
@case("ops.operations", inputs=[ints(5, 5, lo=0, hi=9), ints(2, 5, lo=10, hi=20), ints(5, lo=30, hi=40),
                                ints(3, 5, lo=50, hi=60)])
def tensor_copy_slices_values(x, v, row, big):
    op = _mat33_mod("_inner_ops").TensorCopySlices()
    return (op(x, v, (3, 0), (5, 5), (1, 1)), op(x, row, (1,), (2,), (1,)), op(x, v, (-2, 0), (5, 5), (1, 1)),
            op(x, v, [3, 0], [5, 5], [1, 1]), op(x, big, (3, 0), (5, 5), (1, 1)), op(x, row[:2], (2, 3), (3, 5), (1, 1)))


@case("ops.operations", inputs=[ints(5, 5), ints(2, 3)], error=True)
def tensor_copy_slices_stride(x, v):
    return _mat33_mod("_inner_ops").TensorCopySlices()(x, v, (0, 0), (3, 5), (2, 2))


@case("ops.operations", inputs=[ints(5, 5), ints(1)], error=True)
def tensor_copy_slices_not_contiguous(x, v):
    return _mat33_mod("_inner_ops").TensorCopySlices()(x, v, (1, 1), (3, 3), (1, 1))


@case("ops.operations", inputs=[ints(5, 5), ints(2, 5)], error=True)
def tensor_copy_slices_lengths(x, v):
    return _mat33_mod("_inner_ops").TensorCopySlices()(x, v, (3, 0), (5,), (1, 1))


# ---- MatrixLogarithm ----------------------------------------------------------------------------
@case("ops.MatrixLogarithm", inputs=[np.array([[1 + 2j, 2 + 1j], [4 + 1j, 5 + 2j]], np.complex128),
                                np.array([[[2, 1j], [0, 3]], [[1, 0], [0, 1]]], np.complex64),
                                np.array([[-1, 0], [0, -2]], np.complex128),
                                np.array([[2, 1], [0, 2]], np.complex128)])
def matrix_logarithm_values(a, b, neg, jordan):
    op = _mat33_mod("math_ops").MatrixLogarithm()
    return op(a), op(b), op(neg), op(jordan)


@case("ops.operations", inputs=[np.array([[0, 0], [0, 1]], np.complex128)])
def matrix_logarithm_singular(a):
    return _mat33_mod("math_ops").MatrixLogarithm()(a)


@case("ops.operations", inputs=[rnd(2, 2)], error=True)
def matrix_logarithm_real(x):
    return _mat33_mod("math_ops").MatrixLogarithm()(x)


@case("ops.operations", inputs=[np.ones((2, 3), np.complex64)], error=True)
def matrix_logarithm_not_square(x):
    return _mat33_mod("math_ops").MatrixLogarithm()(x)
