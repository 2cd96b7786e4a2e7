"""The conformance table: MindSpore 2.10 Primitives that were missing, second batch (src/pycompile/ops/
entries/prim34b.py, prim34b_random.py): SegmentSum / Max / Min / Mean / Prod, NuclearNorm, MatrixSolveLs,
CheckNumerics, Betainc, Eig / ops.eig / ops.eigvals, ComputeAccidentalHits, RaggedRange,
NonMaxSuppressionWithOverlaps, EditDistance, and the random LogNormalReverse, RandomPoisson,
NonDeterministicInts, Cauchy and Bernoulli. Part of the table loaded after cases.py."""
group("prim34b")

_SEG_IDS = np.array([0, 0, 2, 2, 2, 5], np.int32)
_SEG_NAMES = ("ops.SegmentSum", "ops.SegmentMax", "ops.SegmentMin", "ops.SegmentMean", "ops.SegmentProd")


def _segments(x, ids):
    return tuple(new(ops, n.split(".")[1])(x, ids) for n in _SEG_NAMES)


# ---- Segment* -----------------------------------------------------------------------------------------
@case(*_SEG_NAMES, inputs=[rnd(6, 2, 3), _SEG_IDS])
def p34b_segment_float32(x, ids):
    return _segments(x, ids)


@case(*_SEG_NAMES, inputs=[ints(5, 3, lo=-9, hi=9), np.array([1, 1, 2, 4, 4], np.int64)])
def p34b_segment_int32(x, ids):
    return _segments(x, ids)


@case(*_SEG_NAMES, inputs=[rnd(4, lo=-2.0, hi=2.0, dtype="float64"), np.array([0, 1, 1, 1], np.int64),
                           rnd(3, 2, dtype="float16"), np.array([2, 2, 3], np.int32)])
def p34b_segment_f64_f16(x, ids, h, hids):
    return _segments(x, ids) + _segments(h, hids)


@case(*_SEG_NAMES, inputs=[np.array([1.0, np.nan, 2.0, 3.0, -np.inf, 4.0], np.float32),
                           np.array([0, 0, 1, 1, 3, 3], np.int64)])
def p34b_segment_nonfinite(x, ids):
    return _segments(x, ids)


@case("ops.SegmentSum", "ops.SegmentMean", "ops.SegmentProd",
      inputs=[np.array([1 + 2j, -0.5j, 3.0, 2 - 1j, 0.25 + 0.5j], np.complex64), np.array([0, 0, 2, 2, 3], np.int64)],
      graph=False, reason="pycompile's graph mode does not compile a scatter of complex values (TensorScatterCombine)")
def p34b_segment_complex(x, ids):
    return ops.SegmentSum()(x, ids), ops.SegmentMean()(x, ids), ops.SegmentProd()(x, ids)


@case("ops.SegmentMean", inputs=[np.array([-3, -2, 4, 7, -7], np.int32), np.array([0, 0, 1, 1, 1], np.int32)])
def p34b_segment_mean_int_trunc(x, ids):
    return ops.SegmentMean()(x, ids)


@case("ops.SegmentSum", "ops.SegmentProd", inputs=[rnd(3, 2)])
def p34b_segment_const_ids(x):
    ids = Tensor(np.array([1, 3, 3], np.int64))
    return ops.SegmentSum()(x, ids), ops.SegmentProd()(x, ids)


@case("ops.SegmentSum", inputs=[rnd(6, 2), np.array([1, 0, 2, 2, 2, 5], np.int32)], error=True)
def p34b_segment_unsorted(x, ids):
    return ops.SegmentSum()(x, ids)


@case("ops.SegmentMax", inputs=[rnd(3, 2), np.array([-1, 0, 2], np.int64)], error=True)
def p34b_segment_negative(x, ids):
    return ops.SegmentMax()(x, ids)


@case("ops.SegmentMin", inputs=[rnd(6, 2), np.array([0, 0, 2, 2, 5], np.int64)], error=True)
def p34b_segment_length_wrong(x, ids):
    return ops.SegmentMin()(x, ids)


@case("ops.SegmentMean", inputs=[rnd(6, 2), np.array([[0, 0, 2], [2, 2, 5]], np.int64)], error=True)
def p34b_segment_ids_2d(x, ids):
    return ops.SegmentMean()(x, ids)


@case("ops.SegmentProd", inputs=[rnd(6, 2), rnd(6)], error=True)
def p34b_segment_ids_float(x, ids):
    return ops.SegmentProd()(x, ids)


@case("ops.SegmentSum", inputs=[np.array(3.0, np.float32), np.array([0], np.int32)], error=True)
def p34b_segment_scalar_x(x, ids):
    return ops.SegmentSum()(x, ids)


# ---- NuclearNorm --------------------------------------------------------------------------------------
@case("ops.NuclearNorm", inputs=[rnd(4, 3), rnd(2, 3, 4), rnd(3, 5, dtype="float64")])
def p34b_nuclear_norm(m, t, d):
    return (ops.NuclearNorm()(m), ops.NuclearNorm(dim=[0, 2])(t), ops.NuclearNorm(dim=[0, 2], keepdim=True)(t),
            ops.NuclearNorm(dim=[1, -1])(t), ops.NuclearNorm(dim=(2, 0), keepdim=True)(t), ops.NuclearNorm()(d),
            ops.NuclearNorm(dim=[0, 1], keepdim=True)(d))


@case("ops.NuclearNorm", inputs=[rnd(2, 3, 4)], error=True)
def p34b_nuclear_norm_3d_no_dim(t):
    return ops.NuclearNorm()(t)


@case("ops.NuclearNorm", inputs=[rnd(2, 3, 4)], error=True)
def p34b_nuclear_norm_same_dims(t):
    return ops.NuclearNorm(dim=[1, 1])(t)


@case("ops.NuclearNorm", inputs=[rnd(2, 3, 4)], error=True)
def p34b_nuclear_norm_one_dim(t):
    return ops.NuclearNorm(dim=[1])(t)


@case("ops.NuclearNorm", inputs=[rnd(2, 3, 4)], error=True)
def p34b_nuclear_norm_dim_range(t):
    return ops.NuclearNorm(dim=[1, 3])(t)


@case("ops.NuclearNorm", inputs=[rnd(4)], error=True)
def p34b_nuclear_norm_1d(t):
    return ops.NuclearNorm()(t)


@case("ops.NuclearNorm", inputs=[rnd(3, 3, dtype="float16")], error=True)
def p34b_nuclear_norm_f16(t):
    return ops.NuclearNorm()(t)


# ---- MatrixSolveLs ------------------------------------------------------------------------------------
_L2 = np.array(0.5, np.float64)
_L0 = np.array(0.0, np.float64)


@case("ops.MatrixSolveLs", inputs=[rnd(5, 3), rnd(5, 2), _L2, _L0], tol={"Float32": (1e-4, 1e-5)},
      note="the normal equations in float32 (the kernel's Cholesky, pycompile's LU)")
def p34b_matrix_solve_ls_tall(a, b, l2, l0):
    return ops.MatrixSolveLs()(a, b, l2), ops.MatrixSolveLs()(a, b, l0), ops.MatrixSolveLs(fast=False)(a, b, l2)


@case("ops.MatrixSolveLs", inputs=[rnd(3, 5, dtype="float64"), rnd(3, 2, dtype="float64"), _L2, _L0])
def p34b_matrix_solve_ls_wide(a, b, l2, l0):
    return ops.MatrixSolveLs()(a, b, l2), ops.MatrixSolveLs(True)(a, b, l0), ops.MatrixSolveLs(fast=False)(a, b, l2)


@case("ops.MatrixSolveLs", inputs=[rnd(2, 4, 4, dtype="float64"), rnd(2, 4, 3, dtype="float64"), _L2])
def p34b_matrix_solve_ls_batch(a, b, l2):
    return ops.MatrixSolveLs()(a, b, l2), ops.MatrixSolveLs(fast=False)(a, b, l2)


@case("ops.MatrixSolveLs", inputs=[rnd(4, 3), rnd(4, 2), np.array(0.5, np.float32)], error=True)
def p34b_matrix_solve_ls_l2_f32(a, b, l2):
    return ops.MatrixSolveLs()(a, b, l2)


@case("ops.MatrixSolveLs", inputs=[rnd(4, 3), rnd(3, 2), _L2], error=True)
def p34b_matrix_solve_ls_rows_differ(a, b, l2):
    return ops.MatrixSolveLs()(a, b, l2)


@case("ops.MatrixSolveLs", inputs=[rnd(4, 3), rnd(4, 2, dtype="float64"), _L2], error=True)
def p34b_matrix_solve_ls_dtypes_differ(a, b, l2):
    return ops.MatrixSolveLs()(a, b, l2)


@case("ops.MatrixSolveLs", inputs=[rnd(4, 3), rnd(4), _L2], error=True)
def p34b_matrix_solve_ls_rhs_1d(a, b, l2):
    return ops.MatrixSolveLs()(a, b, l2)


@case("ops.MatrixSolveLs", inputs=[rnd(4, 3), rnd(4, 2), np.array([0.5], np.float64)], error=True)
def p34b_matrix_solve_ls_l2_1d(a, b, l2):
    return ops.MatrixSolveLs()(a, b, l2)


@case("ops.MatrixSolveLs", inputs=[rnd(4, 3), rnd(4, 2), _L2], error=True, graph=False,
      reason="the constructor's argument checks")
def p34b_matrix_solve_ls_fast_int(a, b, l2):
    return ops.MatrixSolveLs(fast=1)(a, b, l2)


@case("ops.MatrixSolveLs", inputs=[rnd(4, 3, dtype="float16"), rnd(4, 2, dtype="float16"), _L2], error=True)
def p34b_matrix_solve_ls_f16(a, b, l2):
    return ops.MatrixSolveLs()(a, b, l2)


# ---- CheckNumerics ------------------------------------------------------------------------------------
@case("ops.CheckNumerics", inputs=[rnd(3, 4), rnd(5, dtype="float16"), rnd(2, 2, dtype="float64")])
def p34b_check_numerics_finite(x, h, d):
    return ops.CheckNumerics()(x), ops.CheckNumerics()(h), ops.CheckNumerics()(d) * 2


@case("ops.CheckNumerics", inputs=[np.array([1.0, np.nan, 3.0], np.float32)], error=True)
def p34b_check_numerics_nan(x):
    return ops.CheckNumerics()(x)


@case("ops.CheckNumerics", inputs=[np.array([[1.0, 2.0], [np.inf, 0.0]], np.float64)], error=True)
def p34b_check_numerics_inf(x):
    return ops.CheckNumerics()(x)


@case("ops.CheckNumerics", inputs=[np.array([0.5, -np.inf, np.nan], np.float32)], error=True)
def p34b_check_numerics_inf_first(x):
    return ops.CheckNumerics()(x)


@case("ops.CheckNumerics", inputs=[np.array([np.nan, -np.inf], np.float16)], error=True)
def p34b_check_numerics_nan_first(x):
    return ops.CheckNumerics()(x)


@case("ops.CheckNumerics", inputs=[np.array([1, 2], np.int32)], error=True)
def p34b_check_numerics_int(x):
    return ops.CheckNumerics()(x)


# ---- Betainc ------------------------------------------------------------------------------------------
@case("ops.Betainc", inputs=[rnd(3, 4, lo=0.2, hi=6.0), rnd(3, 4, lo=0.2, hi=6.0), rnd(3, 4, lo=0.0, hi=1.0)])
def p34b_betainc_f32(a, b, x):
    return ops.Betainc()(a, b, x)


@case("ops.Betainc", inputs=[rnd(20, lo=0.05, hi=30.0, dtype="float64"), rnd(20, lo=0.05, hi=30.0, dtype="float64"),
                             rnd(20, lo=0.0, hi=1.0, dtype="float64")])
def p34b_betainc_f64(a, b, x):
    return ops.Betainc()(a, b, x)


@case("ops.Betainc", inputs=[np.array([1.0, 2.0, 50.0, 200.0, -1.0, 0.0, 1.0, 2.0, np.nan, 3.0], np.float64),
                             np.array([1.0, 2.0, 30.0, 0.01, 1.0, 2.0, 0.0, 1.0, 1.0, 3.0], np.float64),
                             np.array([0.0, 1.0, 0.6, 0.999, 0.5, 0.5, 0.5, -0.1, 0.5, 1.5], np.float64)])
def p34b_betainc_edges(a, b, x):
    return ops.Betainc()(a, b, x)


@case("ops.Betainc", inputs=[rnd(2), rnd(2, dtype="float64"), rnd(2)], error=True)
def p34b_betainc_dtypes_differ(a, b, x):
    return ops.Betainc()(a, b, x)


@case("ops.Betainc", inputs=[rnd(2, lo=0.5), rnd(1, lo=0.5), rnd(2, lo=0.1, hi=0.9)], error=True)
def p34b_betainc_shapes_differ(a, b, x):
    return ops.Betainc()(a, b, x)


@case("ops.Betainc", inputs=[rnd(2, lo=0.5, dtype="float16"), rnd(2, lo=0.5, dtype="float16"),
                             rnd(2, lo=0.1, hi=0.9, dtype="float16")], error=True)
def p34b_betainc_f16(a, b, x):
    return ops.Betainc()(a, b, x)


# ---- Eig ----------------------------------------------------------------------------------------------
# Eigenvalues of one modulus (a complex-conjugate pair) come in the solver's own order, and each
# eigenvector has its own phase: the first cases use matrices whose eigenvalues are real, of distinct
# moduli (ascending modulus is the wheel's order), and compare the eigenvectors' moduli; the others
# sort on the host and fix each eigenvector's phase (its largest component made real and positive).
_EIG_M = np.array([[4.0, 1.0, 0.5], [0.0, -2.0, 0.3], [0.2, 0.1, 1.0]], np.float32)


@case("ops.Eig", "ops.eig", "ops.eigvals", inputs=[_EIG_M, _EIG_M.astype(np.float64)],
      tol={"Float32": (1e-4, 1e-5)}, note="the eigen solvers differ (Eigen's, LAPACK's)")
def p34b_eig_real_spectrum(a, d):
    w, v = ops.Eig(compute_v=True)(a)
    w2, z = ops.Eig()(d)
    w3, v3 = ops.eig(d)
    return w, ops.abs(v), w2, z.shape, z.dtype, w3, ops.abs(v3), ops.eigvals(a)   # z: no eigenvectors (0-D)


def _eig_sorted(w, v=None):
    w = w.asnumpy()
    order = np.lexsort((np.round(w.imag, 4), np.round(np.abs(w), 4)), axis=-1)
    ws = np.take_along_axis(w, order, -1)
    if v is None:
        return ws
    v = np.take_along_axis(v.asnumpy(), order[..., None, :], -1)
    big = np.take_along_axis(v, np.abs(v).argmax(-2)[..., None, :], -2)
    return ws, v * (np.abs(big) / big)


@case("ops.Eig", "ops.eig", "ops.eigvals", inputs=[rnd(4, 4), rnd(2, 3, 3, dtype="float64")], graph=False,
      tol={"Float32": (1e-4, 1e-5)}, note="the eigen solvers differ (Eigen's, LAPACK's)",
      reason="the eigenvalues are sorted and the eigenvectors' phases fixed on the host (NumPy)")
def p34b_eig_complex_spectrum(a, b):
    return (_eig_sorted(*ops.Eig(True)(a)), _eig_sorted(ops.eigvals(b)), _eig_sorted(*ops.eig(b)),
            _eig_sorted(ops.Eig()(a)[0]))


@case("ops.Eig", inputs=[np.array([[1.0 + 0.5j, 2.0j, 0.3], [-2.0, 1.0, 0.1j], [0.5, -1.0j, 2.0]], np.complex64)],
      graph=False,
      tol={"Float32": (1e-4, 1e-5)}, note="the eigen solvers differ (Eigen's, LAPACK's)",
      reason="the eigenvalues are sorted and the eigenvectors' phases fixed on the host (NumPy)")
def p34b_eig_complex_input(a):
    return _eig_sorted(*ops.Eig(True)(a))


@case("ops.Eig", inputs=[rnd(3, 4)], error=True)
def p34b_eig_not_square(a):
    return ops.Eig()(a)


@case("ops.Eig", inputs=[ints(3, 3)], error=True)
def p34b_eig_int(a):
    return ops.Eig()(a)


@case("ops.Eig", inputs=[rnd(3, 3)], error=True, graph=False, reason="the constructor's argument checks")
def p34b_eig_compute_v_int(a):
    return ops.Eig(compute_v=1)(a)


# ---- ComputeAccidentalHits ----------------------------------------------------------------------------
@case("ops.ComputeAccidentalHits", inputs=[np.array([[1, 2], [0, 4], [3, 3]], np.int64), np.array([0, 1, 2, 3, 4])])
def p34b_accidental_hits(t, s):
    return ops.ComputeAccidentalHits(2)(t, s)


@case("ops.ComputeAccidentalHits", inputs=[np.array([[1, 2], [0, 4]], np.int32), np.array([0, 1, 2], np.int64)],
      error=True)
def p34b_accidental_hits_int32(t, s):
    return ops.ComputeAccidentalHits(2)(t, s)


@case("ops.ComputeAccidentalHits", inputs=[np.array([[1, 2], [0, 4]], np.int64), np.array([0, 1, 2], np.int64)],
      error=True)
def p34b_accidental_hits_num_true(t, s):
    return ops.ComputeAccidentalHits(1)(t, s)


# ---- RaggedRange --------------------------------------------------------------------------------------
@case("ops.RaggedRange", inputs=[np.array([2, 5, 8], np.int32), np.array([3, 5, 12], np.int32),
                                 np.array([1, 1, 1], np.int32), np.array([0.0, 5.0, 8.0], np.float32),
                                 np.array([3.0, -1.0, 12.0], np.float32), np.array([1.5, -2.0, 3.0], np.float32)])
def p34b_ragged_range(s, l, d, fs, fl, fd):
    return ops.RaggedRange(ms.int64)(s, l, d), ops.RaggedRange(ms.int32)(fs, fl, fd)


@case("ops.RaggedRange", inputs=[np.array([2, 3, -4, 0], np.int64), np.array([3, 1, -2, 4], np.int64),
                                 np.array([2.0, 3.0, 0.5, 1.0]), np.array([2.5, 7, -9, 10], np.float64),
                                 np.array([0.1, 1.0, -2.5, 0.75])])
def p34b_ragged_range_more(i, di, f, fl, fd):
    return ops.RaggedRange(ms.int32)(i, i + 7, di), ops.RaggedRange(ms.int64)(f, fl, fd)


@case("ops.RaggedRange", inputs=[np.array(2, np.int64), np.array(6, np.int64), np.array(2, np.int64)])
def p34b_ragged_range_scalars(s, l, d):
    return ops.RaggedRange(ms.int32)(s, l, d)


@case("ops.RaggedRange", inputs=[rnd(3)])
def p34b_ragged_range_const(x):
    splits, values = ops.RaggedRange(ms.int64)(Tensor(np.array([0, 4], np.int32)), Tensor(np.array([3, 10], np.int32)),
                                               Tensor(np.array([1, 3], np.int32)))
    return splits, values, x * 2


@case("ops.RaggedRange", inputs=[np.array([2, 3], np.int64), np.array([6, 7], np.int64), np.array([0, 1], np.int64)],
      error=True)
def p34b_ragged_range_zero_delta(s, l, d):
    return ops.RaggedRange(ms.int32)(s, l, d)


@case("ops.RaggedRange", inputs=[np.array([2, 3], np.int64), np.array([6, 7], np.int32), np.array([1, 1], np.int64)],
      error=True)
def p34b_ragged_range_dtypes_differ(s, l, d):
    return ops.RaggedRange(ms.int32)(s, l, d)


@case("ops.RaggedRange", inputs=[np.array(2, np.int64), np.array([3, 7, 12], np.int64), np.array(2, np.int64)],
      error=True)
def p34b_ragged_range_shapes_differ(s, l, d):
    return ops.RaggedRange(ms.int32)(s, l, d)


@case("ops.RaggedRange", inputs=[np.array([[2, 3]], np.int64), np.array([[6, 7]], np.int64),
                                 np.array([[1, 1]], np.int64)], error=True)
def p34b_ragged_range_2d(s, l, d):
    return ops.RaggedRange(ms.int32)(s, l, d)


@case("ops.RaggedRange", inputs=[np.array([2, 3], np.int16), np.array([6, 7], np.int16), np.array([1, 1], np.int16)],
      error=True)
def p34b_ragged_range_int16(s, l, d):
    return ops.RaggedRange(ms.int32)(s, l, d)


@case("ops.RaggedRange", inputs=[np.array([2], np.int64)], error=True, graph=False,
      reason="the constructor's argument checks")
def p34b_ragged_range_tsplits_float(s):
    return ops.RaggedRange(ms.float32)(s, s + 3, s - 1)


# ---- NonMaxSuppressionWithOverlaps --------------------------------------------------------------------
_OV = np.array([[0.0, 0.6, 0.1, 0.7], [0.6, 0.0, 0.2, 0.1], [0.1, 0.2, 0.0, 0.5], [0.7, 0.1, 0.5, 0.0]], np.float32)
_SC = np.array([0.9, 0.8, 0.7, 0.95], np.float32)
_NMS_T = np.array([0.5, 0.0], np.float32)


def _nms(ov, sc, n, t):
    """NonMaxSuppressionWithOverlaps with max_output_size n (0-D int32) and thresholds t (2,) float32."""
    return ops.NonMaxSuppressionWithOverlaps()(ov, sc, n, t[0], t[1])


# max_output_size and the thresholds set the output's length: in graph code constants, or arguments of the
# compiled call (compiled once per value), not values computed from them
@case("ops.NonMaxSuppressionWithOverlaps",
      inputs=[_OV, _SC] + [np.array(v, np.int32) for v in (4, 1, 0, 3)] +
             [np.array(v, np.float32) for v in (0.5, 0.55, 0.6, 0.05, 0.9, 0.0, 0.85, 0.75)])
def p34b_nms_overlaps(ov, sc, i4, i1, i0, i3, f50, f55, f60, f05, f90, f00, f85, f75):
    nms = ops.NonMaxSuppressionWithOverlaps()
    return (nms(ov, sc, i4, f50, f00), nms(ov, sc, i1, f50, f00), nms(ov, sc, i4, f55, f85), nms(ov, sc, i4, f60, f00),
            nms(ov, sc, i0, f60, f00), nms(ov, sc, i4, f05, f00), nms(ov, sc, i3, f90, f75))


@case("ops.NonMaxSuppressionWithOverlaps", inputs=[rnd(12, 12, lo=0.0, hi=1.0), rnd(12, lo=0.0, hi=1.0),
                                                   np.array(12, np.int32), np.array(0.5, np.float32),
                                                   np.array(0.1, np.float32)])
def p34b_nms_overlaps_random(ov, sc, n, ot, st):
    nms = ops.NonMaxSuppressionWithOverlaps()
    return (nms(ov, sc, n, ot, st),
            nms(ov, sc, Tensor(np.array(5, np.int32)), Tensor(np.array(0.8, np.float32)),
                Tensor(np.array(0.3, np.float32))),
            nms(ov, sc, n, Tensor(np.array(0.3, np.float32)), Tensor(np.array(0.0, np.float32))))


@case("ops.NonMaxSuppressionWithOverlaps", inputs=[_OV.astype(np.float16), _SC.astype(np.float16),
                                                   np.array(4, np.int32), np.array(0.6, np.float16),
                                                   np.array(0.0, np.float16)])
def p34b_nms_overlaps_f16(ov, sc, n, ot, st):
    return ops.NonMaxSuppressionWithOverlaps()(ov, sc, n, ot, st)


@case("ops.NonMaxSuppressionWithOverlaps", inputs=[_OV, _SC, np.array(-1, np.int32), _NMS_T], error=True)
def p34b_nms_overlaps_negative_size(ov, sc, n, t):
    return _nms(ov, sc, n, t)


@case("ops.NonMaxSuppressionWithOverlaps", inputs=[_OV, _SC[:3], np.array(2, np.int32), _NMS_T], error=True)
def p34b_nms_overlaps_scores_short(ov, sc, n, t):
    return _nms(ov, sc, n, t)


@case("ops.NonMaxSuppressionWithOverlaps", inputs=[_OV[:3], _SC, np.array(2, np.int32), _NMS_T], error=True)
def p34b_nms_overlaps_not_square(ov, sc, n, t):
    return _nms(ov, sc, n, t)


@case("ops.NonMaxSuppressionWithOverlaps", inputs=[_OV, _SC, np.array(2, np.int64), _NMS_T], error=True)
def p34b_nms_overlaps_size_int64(ov, sc, n, t):
    return _nms(ov, sc, n, t)


@case("ops.NonMaxSuppressionWithOverlaps", inputs=[_OV, _SC, np.array([2], np.int32), _NMS_T], error=True)
def p34b_nms_overlaps_size_1d(ov, sc, n, t):
    return _nms(ov, sc, n, t)


@case("ops.NonMaxSuppressionWithOverlaps", inputs=[_OV, _SC.astype(np.float64), np.array(2, np.int32), _NMS_T],
      error=True)
def p34b_nms_overlaps_dtypes_differ(ov, sc, n, t):
    return _nms(ov, sc, n, t)


# ---- EditDistance -------------------------------------------------------------------------------------
_HI = np.array([[0, 0, 0], [1, 0, 1], [1, 1, 1]], np.int64)
_TI = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1]], np.int64)
_HS, _TS = np.array([1, 2, 2], np.int64), np.array([2, 2, 2], np.int64)
_HI2 = np.array([[0, 0], [0, 1], [2, 0]], np.int64)
_TI2 = np.array([[0, 0], [1, 0], [1, 1]], np.int64)


@case("ops.EditDistance", inputs=[_HI, np.array([1, 2, 3], np.float32), _HS, _TI, np.array([1, 3, 2, 1], np.float32),
                                  _TS])
def p34b_edit_distance_docs(hi, hv, hs, ti, tv, ts):
    return (ops.EditDistance()(hi, hv, hs, ti, tv, ts), ops.EditDistance(False)(hi, hv, hs, ti, tv, ts),
            ops.EditDistance(normalize=False)(hi, ops.cast(hv, ms.int32), hs, ti, ops.cast(tv, ms.int32), ts))


@case("ops.EditDistance", inputs=[_HI2, np.array([5, 6, 7], np.int64), _TI2, np.array([5, 8, 9], np.int64)])
def p34b_edit_distance_2d(hi, hv, ti, tv):
    s32, s45 = Tensor(np.array([3, 2], np.int64)), Tensor(np.array([4, 5], np.int64))
    return (ops.EditDistance()(hi, hv, s32, ti, tv, s32), ops.EditDistance()(hi, hv, s32, ti, tv,
                                                                             Tensor(np.array([2, 2], np.int64))),
            ops.EditDistance()(hi, hv, s32, ti, tv, s45), ops.EditDistance(False)(hi, hv, s32, ti, tv, s45))


@case("ops.EditDistance", inputs=[np.array([[0, 1], [0, 0]], np.int64), np.array([1, 2], np.uint8),
                                  np.array([[0, 0], [0, 1], [0, 2]], np.int64), np.array([2, 1, 2], np.uint8),
                                  np.array([[0, 1], [0, 3]], np.int64), np.array([1, 2], np.float64)])
def p34b_edit_distance_order(hi, hv, ti, tv, hi3, hv3):
    s = Tensor(np.array([1, 2], np.int64))
    return (ops.EditDistance(False)(hi, hv, s, ti, tv, s), ops.EditDistance()(hi, hv, s, ti, tv, s),
            ops.EditDistance(False)(hi3, hv3, s, hi, ops.cast(Tensor(np.array([2, 1])), ms.float64), s))


@case("ops.EditDistance", inputs=[_HI2, np.array([5, 6, 7], np.int16), _TI2, np.array([5, 8, 9], np.int16)])
def p34b_edit_distance_const_shape(hi, hv, ti, tv):
    s = Tensor(np.array([3, 2], np.int64))
    return ops.EditDistance()(hi, hv, s, ti, tv, s)


@case("ops.EditDistance", inputs=[_HI, np.array([1, 2, 3], np.int32), _HS, _TI, np.array([1, 3, 2, 1], np.float32),
                                  _TS], error=True)
def p34b_edit_distance_dtypes_differ(hi, hv, hs, ti, tv, ts):
    return ops.EditDistance()(hi, hv, hs, ti, tv, ts)


@case("ops.EditDistance", inputs=[_HI.astype(np.int32), np.array([1, 2, 3], np.float32), _HS, _TI,
                                  np.array([1, 3, 2, 1], np.float32), _TS], error=True)
def p34b_edit_distance_indices_int32(hi, hv, hs, ti, tv, ts):
    return ops.EditDistance()(hi, hv, hs, ti, tv, ts)


@case("ops.EditDistance", inputs=[_HI[:, :2], np.array([1, 2, 3], np.float32), _HS[:2], _TI,
                                  np.array([1, 3, 2, 1], np.float32), _TS], error=True)
def p34b_edit_distance_ranks_differ(hi, hv, hs, ti, tv, ts):
    return ops.EditDistance()(hi, hv, hs, ti, tv, ts)


@case("ops.EditDistance", inputs=[_HI, np.array([1, 2], np.float32), _HS, _TI, np.array([1, 3, 2, 1], np.float32),
                                  _TS], error=True)
def p34b_edit_distance_values_short(hi, hv, hs, ti, tv, ts):
    return ops.EditDistance()(hi, hv, hs, ti, tv, ts)


@case("ops.EditDistance", inputs=[_HI2, np.array([5, 6, 7], np.int64), _TI2, np.array([5, 8, 9], np.int64)], error=True)
def p34b_edit_distance_index_past_shape(hi, hv, ti, tv):
    s = Tensor(np.array([2, 2], np.int64))
    return ops.EditDistance()(hi, hv, s, ti, tv, s)


@case("ops.EditDistance", inputs=[_HI, np.array([1, 2, 3], np.float32), _HS, _TI, np.array([1, 3, 2, 1], np.float32),
                                  _TS], error=True, graph=False, reason="the constructor's argument checks")
def p34b_edit_distance_normalize_int(hi, hv, hs, ti, tv, ts):
    return ops.EditDistance(1)(hi, hv, hs, ti, tv, ts)


# ---- random Primitives: shapes, dtypes and simple statistics ------------------------------------------
def _between(x, lo, hi):
    return ops.logical_and(x >= lo, x <= hi).all()


# The wheel's PyNative kernel cache keeps the mean and std of the first LogNormalReverse it ran for
# later instances (whatever their attributes), so the case checks what no attribute changes; the
# distribution's parameters are checked against NumPy in tests/ops/test_prim34b.py.
@case("ops.LogNormalReverse", inputs=[np.zeros((200, 50), np.float32), np.zeros((40, 50), np.float16),
                                      np.zeros((3, 4), np.float64)])
def p34b_log_normal_reverse(x, h, d):
    a = ops.LogNormalReverse()(x)
    b = ops.LogNormalReverse(0.0, 0.5)(h)
    c = ops.LogNormalReverse(mean=-1.0, std=0.25)(d)
    return (a.shape, a.dtype, (a > 0).all(), ops.isfinite(ops.log(a)).all(), b.shape, b.dtype, (b > 0).all(),
            c.shape, c.dtype, (c > 0).all())


@case("ops.LogNormalReverse", inputs=[ints(3, 4)], error=True)
def p34b_log_normal_reverse_int(x):
    return ops.LogNormalReverse()(x)


@case("ops.LogNormalReverse", inputs=[rnd(3, 4)], error=True, graph=False, reason="the constructor's argument checks")
def p34b_log_normal_reverse_int_mean(x):
    return ops.LogNormalReverse(1, 2)(x)


@case("ops.RandomPoisson", inputs=[np.array([400, 20], np.int32), np.array([1.0, 5.0, 20.0], np.float32),
                                   np.array([100, 20], np.int64)])
def p34b_random_poisson(shape, rate, shape64):
    a = ops.RandomPoisson()(shape, rate)
    b = ops.RandomPoisson(seed=1, seed2=2, dtype=ms.float32)(shape64, Tensor(np.array(3.0, np.float64)))
    c = ops.RandomPoisson(dtype=ms.int32)(shape64, Tensor(np.array(3, np.int32)))
    d = ops.RandomPoisson(dtype=ms.float64)(shape64, Tensor(np.array(-3.0, np.float16)))
    m = ops.cast(a, ms.float32).mean((0, 1))
    return (a.shape, a.dtype, (a >= 0).all(), ((m - rate).abs() < 0.1 * rate).all(), b.shape, b.dtype,
            (b == ops.round(b)).all(), _between(b.mean(), 2.7, 3.3), c.shape, c.dtype, (c >= 0).all(), d.shape,
            d.dtype, (d == 0).all())


@case("ops.RandomPoisson", inputs=[np.array([100, -20], np.int64), np.array(3.0, np.float32)], error=True)
def p34b_random_poisson_negative_shape(shape, rate):
    return ops.RandomPoisson()(shape, rate)


@case("ops.RandomPoisson", inputs=[np.array([[100, 20]], np.int64), np.array(3.0, np.float32)], error=True)
def p34b_random_poisson_shape_2d(shape, rate):
    return ops.RandomPoisson()(shape, rate)


@case("ops.RandomPoisson", inputs=[np.array([10, 20], np.float32), np.array(3.0, np.float32)], error=True)
def p34b_random_poisson_shape_float(shape, rate):
    return ops.RandomPoisson()(shape, rate)


@case("ops.RandomPoisson", inputs=[np.array([10, 20], np.int64), np.array(3.0, np.float32)], error=True, graph=False,
      reason="the constructor's argument checks")
def p34b_random_poisson_bool_dtype(shape, rate):
    return ops.RandomPoisson(dtype=ms.bool_)(shape, rate)


@case("ops.RandomPoisson", inputs=[np.array([10, 20], np.int64), np.array(3.0, np.float32)], error=True, graph=False,
      reason="the constructor's argument checks")
def p34b_random_poisson_float_seed(shape, rate):
    return ops.RandomPoisson(seed=1.5)(shape, rate)


@case("ops.NonDeterministicInts", inputs=[np.array([100, 20], np.int32), np.array([50, 2, 10], np.int64),
                                          np.array([200, 30], np.uint32)])
def p34b_non_deterministic_ints(s, s3, su):
    a = ops.NonDeterministicInts()(s)
    b = ops.NonDeterministicInts(dtype=ms.int32)(s3)
    c = ops.NonDeterministicInts(dtype=ms.uint32)(su)
    d = ops.NonDeterministicInts(dtype=ms.uint64)(s)
    fa, fb, fc = ops.cast(a, ms.float64), ops.cast(b, ms.float64), ops.cast(c, ms.float64)
    return (a.shape, a.dtype, (fa < -4e18).any(), (fa > 4e18).any(), b.shape, b.dtype, (fb < -1e9).any(),
            (fb > 1e9).any(), c.shape, c.dtype, (fc > 3e9).any(), (fc < 1e9).any(), d.shape, d.dtype)


@case("ops.NonDeterministicInts", inputs=[np.array([4], np.int64)], error=True)
def p34b_non_deterministic_ints_1_dim(s):
    return ops.NonDeterministicInts()(s)


@case("ops.NonDeterministicInts", inputs=[np.array([[4, 2]], np.int64)], error=True)
def p34b_non_deterministic_ints_shape_2d(s):
    return ops.NonDeterministicInts()(s)


@case("ops.NonDeterministicInts", inputs=[np.array([4, 2], np.float32)], error=True)
def p34b_non_deterministic_ints_shape_float(s):
    return ops.NonDeterministicInts()(s)


@case("ops.NonDeterministicInts", inputs=[np.array([4, 2], np.int64)], error=True, graph=False,
      reason="the constructor's argument checks")
def p34b_non_deterministic_ints_float_dtype(s):
    return ops.NonDeterministicInts(dtype=ms.float32)(s)


@case("ops.Cauchy")
def p34b_cauchy():
    a = ops.Cauchy([200, 50])()
    b = ops.Cauchy([100, 50], 2.0, 0.5)()
    c = ops.Cauchy([7], median=-1.0, sigma=3.0)()
    qa = ops.abs(a)
    return (a.shape, a.dtype, _between((qa < 1.0).astype(ms.float32).mean(), 0.45, 0.55), b.shape, b.dtype,
            _between((ops.abs(b - 2.0) < 0.5).astype(ms.float32).mean(), 0.44, 0.56), c.shape, c.dtype)


@case("ops.Cauchy", error=True, graph=False, reason="the constructor's argument checks")
def p34b_cauchy_size_tuple():
    return ops.Cauchy((100, 50), 2.0, 0.5)()


@case("ops.Cauchy", error=True, graph=False, reason="the constructor's argument checks")
def p34b_cauchy_int_median():
    return ops.Cauchy([100, 50], 2, 0.5)()


@case("ops.Cauchy", error=True, graph=False, reason="the constructor's argument checks")
def p34b_cauchy_negative_size():
    return ops.Cauchy([100, -50])()


@case("ops.Cauchy", error=True)
def p34b_cauchy_empty_size():
    return ops.Cauchy([])()


@case("ops.Bernoulli", inputs=[np.zeros((100, 50), np.float32), np.zeros((100, 50), np.int32),
                               np.full((100, 50), 0.8, np.float32), np.zeros((100, 50), np.bool_)])
def p34b_bernoulli(x, xi, p, xb):
    a = ops.Bernoulli()(x, Tensor(np.array(0.3, np.float32)))
    b = ops.Bernoulli(seed=3)(xi, Tensor(np.array(0.3, np.float64)))
    c = ops.Bernoulli()(x, p)
    d = ops.Bernoulli(seed=5, offset=2)(xb, 0.5)
    fb = ops.cast(b, ms.float32)
    return (a.shape, a.dtype, ((a == 0) | (a == 1)).all(), _between(a.mean(), 0.26, 0.34), b.shape, b.dtype,
            _between(fb.mean(), 0.26, 0.34), c.dtype, _between(c.mean(), 0.76, 0.84), d.shape, d.dtype,
            _between(ops.cast(d, ms.float32).mean(), 0.45, 0.55))


@case("ops.Bernoulli", inputs=[np.zeros((10, 5), np.float32), np.array(1.5, np.float32)], error=True, graph=False,
      reason="pycompile checks p's values when they are known (PyNative, or a constant): compiled code draws unchecked")
def p34b_bernoulli_p_above_1(x, p):
    return ops.Bernoulli()(x, p)


@case("ops.Bernoulli", inputs=[np.zeros((10, 5), np.float32), np.array([0.5, 0.2], np.float32)], error=True)
def p34b_bernoulli_p_shape(x, p):
    return ops.Bernoulli()(x, p)


@case("ops.Bernoulli", inputs=[np.zeros((10, 5), np.float32), np.array(1, np.int32)], error=True)
def p34b_bernoulli_p_int(x, p):
    return ops.Bernoulli()(x, p)


@case("ops.Bernoulli", inputs=[np.zeros((10, 5), np.float32), np.array(0.5, np.float32)], error=True, graph=False,
      reason="the constructor's argument checks")
def p34b_bernoulli_seed_negative(x, p):
    return ops.Bernoulli(seed=-2)(x, p)
