"""The conformance table: sparse ops whose output's shape is a value of an input - in graph code the
function compiles once per such value (MindSpore's value-dependent inputs): SparseSegmentMeanWithNumSegments
(num_segments), SparseTensorToCSRSparseMatrix (the dense shape), SparseTensorDenseMatmul with its shape
as a Tensor argument, sparse_segment_mean with two segment_ids values. Ids start with ``spval_``."""
group("sparse_values")

_SPV_OPS = ms.ops.operations.sparse_ops
_SPV_X = np.array([[0, 2, 0, 0], [0, 1, 1, 0], [2, 0, 2, 0]], np.float32)


@case("ops.operations.sparse_ops.SparseSegmentMeanWithNumSegments",
      inputs=[_SPV_X, np.array([0, 2, 1], np.int32), np.array([0, 0, 2], np.int32), np.array([4], np.int32)])
def spval_segment_mean_num_segments(x, i, s, n):
    return new(_SPV_OPS, "SparseSegmentMeanWithNumSegments")(x, i, s, n)


@case("ops.operations.sparse_ops.SparseSegmentMeanWithNumSegments",
      inputs=[rnd(5, 2, 3, dtype="float64"), np.array([4, 0, 1, 1, 3], np.int64), np.array([0, 1, 1, 3, 3], np.int64),
              np.array(5, np.int64)])
def spval_segment_mean_num_segments_f64(x, i, s, n):
    return new(_SPV_OPS, "SparseSegmentMeanWithNumSegments")(x, i, s, n)


_SPV_CSR_I = np.array([[0, 0, 1], [0, 1, 2], [0, 1, 3], [1, 0, 1], [1, 1, 2], [1, 1, 3]], np.int64)


@case("ops.operations.sparse_ops.SparseTensorToCSRSparseMatrix",
      inputs=[_SPV_CSR_I, np.array([1, 4, 3, 1, 4, 3], np.float32), np.array([2, 2, 4], np.int64)])
def spval_to_csr_batched(i, v, shape):
    return new(_SPV_OPS, "SparseTensorToCSRSparseMatrix")(i, v, shape)


@case("ops.operations.sparse_ops.SparseTensorToCSRSparseMatrix",
      inputs=[np.array([[0, 1], [2, 0], [2, 3], [3, 3]], np.int32), np.array([1.5, -2.0, 3.0, 0.5], np.float64),
              np.array([4, 5], np.int32)])
def spval_to_csr_2d(i, v, shape):
    return new(_SPV_OPS, "SparseTensorToCSRSparseMatrix")(i, v, shape)


@case("ops.operations.sparse_ops.SparseTensorToCSRSparseMatrix",
      inputs=[np.array([[1, 1, 0], [0, 2, 1], [0, 0, 0]], np.int64), np.array([1.0, 2.0, 3.0], np.float32),
              np.array([2, 3, 2], np.int64)])
def spval_to_csr_unsorted(i, v, shape):
    return new(_SPV_OPS, "SparseTensorToCSRSparseMatrix")(i, v, shape)


@case("ops.SparseTensorDenseMatmul",
      inputs=[np.array([[0, 1], [1, 2], [2, 0]], np.int64), np.array([1.0, 2.0, 3.0], np.float32),
              np.array([3, 4], np.int64), rnd(4, 2)])
def spval_dense_matmul_shape_argument(i, v, shape, d):
    return ops.SparseTensorDenseMatmul()(i, v, shape, d)


@case("ops.sparse_segment_mean", inputs=[rnd(6, 2), np.array([0, 5, 2, 3, 1], np.int32), np.array([1, 1, 4, 6, 6], np.int32)])
def spval_segment_mean_gaps(x, i, s):
    return ops.sparse_segment_mean(x, i, s)
