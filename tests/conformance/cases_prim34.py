"""The conformance table: MindSpore 2.10 Primitives that were missing (src/pycompile/ops/entries/
prim34.py): 3-D adaptive poolings, MaxUnpool2D / 3D, Im2Col, Bincount, Histogram, UnravelIndex,
ScatterAddWithAxis, IndexPut, InplaceIndexAdd, UpsampleNearest3D / UpsampleTrilinear3D,
TridiagonalMatMul, MatrixSolve, DataFormatVecPermute, CompareAndBitpack. Part of the table loaded
after cases.py."""
group("prim34")


# ---- 3-D adaptive poolings ---------------------------------------------------------------------------
@case("ops.AdaptiveAvgPool3D", "ops.adaptive_avg_pool3d", inputs=[rnd(2, 3, 5, 4, 7)])
def adaptive_avg_pool3d_forms(x):
    return (ops.AdaptiveAvgPool3D((2, 3, 3))(x), ops.AdaptiveAvgPool3D(2)(x), ops.AdaptiveAvgPool3D((None, 2, 5))(x),
            ops.adaptive_avg_pool3d(x, (1, 1, 1)), ops.adaptive_avg_pool3d(x[0], (3, 4, 2)))


@case("ops.AdaptiveAvgPool3D", inputs=[rnd(1, 2, 4, 4, 4, dtype="float16")])
def adaptive_avg_pool3d_f16(x):
    return ops.AdaptiveAvgPool3D((2, 3, 2))(x)


@case("ops.AdaptiveAvgPool3D", inputs=[rnd(2, 4, 4)], error=True)
def adaptive_avg_pool3d_rank_wrong(x):
    return ops.AdaptiveAvgPool3D(2)(x)


@case("ops.adaptive_max_pool3d", inputs=[rnd(2, 2, 5, 6, 4)])
def adaptive_max_pool3d_forms(x):
    out, idx = ops.adaptive_max_pool3d(x, (2, 3, 2), True)
    return out, idx, ops.adaptive_max_pool3d(x, 2), ops.adaptive_max_pool3d(x[1], (5, 1, 3), True)


@case("ops.AdaptiveMaxPool3D", graph=False, reason="output_size is a Tensor that sets the shape (a PyNative value)",
      inputs=[rnd(1, 3, 4, 5, 6), np.array([2, 2, 3], np.int32)])
def adaptive_max_pool3d_primitive(x, size):
    return ops.AdaptiveMaxPool3D()(x, size)


@case("ops.AdaptiveMaxPool3D", "ops.operations", inputs=[rnd(2, 2, 3, 4, 4)])
def adaptive_max_pool3d_const_size(x):
    return ops.operations.AdaptiveMaxPool3D()(x, Tensor(np.array([3, 2, 1], np.int32)))


# ---- max unpooling ------------------------------------------------------------------------------------
_ARGMAX2 = np.array([[[[0, 3], [9, 14]], [[5, 2], [12, 15]]]], np.int64)


@case("ops.MaxUnpool2D", inputs=[rnd(1, 2, 2, 2), _ARGMAX2])
def max_unpool2d_forms(x, idx):
    return (ops.MaxUnpool2D(ksize=2, strides=2)(x, idx), ops.MaxUnpool2D(2)(x, idx),
            ops.MaxUnpool2D(ksize=2, strides=2, output_shape=(1, 2, 5, 5))(x, idx))


@case("ops.MaxUnpool2D", inputs=[rnd(1, 2, 2, 2), np.array([[[[0, 4], [6, 8]], [[2, 1], [7, 5]]]], np.int32)])
def max_unpool2d_pads_int32(x, idx):
    return ops.MaxUnpool2D(ksize=3, strides=2, pads=1)(x, idx), ops.MaxUnpool2D(ksize=(2, 2), strides=(2, 2))(x, idx)


@case("ops.MaxUnpool2D", inputs=[rnd(1, 2, 2, 2), _ARGMAX2.astype(np.int32)], graph=False, error=True,
      reason="an index past the output is found when the kernel runs (graph mode: a run-time error)")
def max_unpool2d_index_past_output(x, idx):
    return ops.MaxUnpool2D(ksize=3, strides=2, pads=1)(x, idx)


@case("ops.MaxUnpool3D", inputs=[rnd(1, 1, 1, 2, 2), np.array([[[[[0, 3], [8, 15]]]]], np.int64)])
def max_unpool3d_forms(x, idx):
    return ops.MaxUnpool3D(ksize=2, strides=2)(x, idx), ops.MaxUnpool3D(ksize=(1, 2, 2), strides=(1, 2, 2))(x, idx)


@case("ops.MaxUnpool2D", inputs=[rnd(2, 2, 2), _ARGMAX2[0]], error=True)
def max_unpool2d_rank_wrong(x, idx):
    return ops.MaxUnpool2D(ksize=2, strides=2)(x, idx)


# ---- Im2Col -------------------------------------------------------------------------------------------
@case("ops.Im2Col", inputs=[rnd(2, 3, 6, 5)])
def im2col_forms(x):
    return (ops.Im2Col(ksizes=2)(x), ops.Im2Col(ksizes=(3, 2), strides=2)(x), ops.Im2Col(3, dilations=2, pads=1)(x),
            ops.Im2Col(ksizes=(2, 3), strides=(1, 2), dilations=(2, 1), pads=(1, 0))(x))


@case("ops.Im2Col", inputs=[rnd(3, 6, 5)], error=True)
def im2col_rank_wrong(x):
    return ops.Im2Col(ksizes=2)(x)


# ---- counting -----------------------------------------------------------------------------------------
@case("ops.Bincount", graph=False, reason="size is a Tensor that sets the shape (a PyNative value)",
      inputs=[np.array([1, 2, 2, 3, 3, 3, 4, 4, 7, 0], np.int32), np.array(6, np.int32),
              rnd(10, lo=0.0, hi=2.0)])
def bincount_weights(a, size, w):
    return ops.Bincount()(a, size, w), ops.Bincount()(a, size, Tensor(np.arange(10, dtype=np.int64)))


@case("ops.Bincount", graph=False, reason="size is a Tensor that sets the shape (a PyNative value)",
      inputs=[np.array([[0, 1], [1, 4]], np.int32), np.array(3, np.int32), np.zeros(0, np.float64)])
def bincount_empty_weights(a, size, w):
    return ops.Bincount()(a, size, w)


@case("ops.Bincount", inputs=[np.array([1, 2, 2, 0], np.int32), rnd(4)])
def bincount_const_size(a, w):
    return ops.Bincount()(a, Tensor(np.array(4, np.int32)), w)


@case("ops.Bincount", graph=False, reason="size is a Tensor that sets the shape (a PyNative value)", error=True,
      inputs=[np.array([1, 2], np.int64), np.array(3, np.int32), rnd(2)])
def bincount_array_int64(a, size, w):
    return ops.Bincount()(a, size, w)


@case("ops.Histogram", inputs=[rnd(40, lo=-1.0, hi=4.0), np.array([1, 5, 2, 2, 9, -3, 5], np.int32),
                               rnd(12, dtype="float16")])
def histogram_forms(x, xi, xh):
    return (ops.Histogram(bins=5, min=0.0, max=3.0)(x), ops.Histogram(bins=4)(x), ops.Histogram()(x),
            ops.Histogram(bins=3, min=0.0, max=6.0)(xi), ops.Histogram(bins=4, min=-1.0, max=1.0)(xh))


@case("ops.Histogram", inputs=[rnd(5)], error=True)
def histogram_min_above_max(x):
    return ops.Histogram(bins=5, min=3.0, max=1.0)(x)


@case("ops.Histogram", inputs=[rnd(5)], graph=False, reason="the constructor's argument checks", error=True)
def histogram_bins_zero(x):
    return ops.Histogram(bins=0)(x)


@case("ops.UnravelIndex", inputs=[np.array([22, 41, 37, 0], np.int32), np.array([7, 6], np.int32),
                                  np.array([5, 0, 59], np.int64), np.array([3, 4, 5], np.int64)])
def unravel_index_forms(i, d, i64, d64):
    return ops.UnravelIndex()(i, d), ops.UnravelIndex()(i64, d64), ops.UnravelIndex()(i64[2], d64)


@case("ops.UnravelIndex", inputs=[np.array([2, 5], np.int32), np.array([3, 3], np.int64)], error=True)
def unravel_index_dtypes_differ(i, d):
    return ops.UnravelIndex()(i, d)


# ---- scatters -----------------------------------------------------------------------------------------
@case("ops.ScatterAddWithAxis", inputs=[rnd(3, 4), np.array([[0, 1], [3, 3], [2, 0]], np.int32), rnd(3, 2),
                                        np.array([[2, 0, 2, 1]], np.int64), rnd(1, 4)])
def scatter_add_with_axis_forms(x, i, u, i0, u0):
    return ops.ScatterAddWithAxis(axis=1)(x, i, u), ops.ScatterAddWithAxis()(x, i0, u0), \
        ops.ScatterAddWithAxis(-1)(x, i, u)


@case("ops.IndexPut", inputs=[rnd(3, 4), rnd(1), rnd(4), np.array([0, 2, 0], np.int32), np.array([1, 3, 1], np.int32)])
def index_put_forms(x, v1, v4, r, c):
    return (ops.IndexPut()(x, v1, (r, c)), ops.IndexPut(1)(x, v1, [r, c]), ops.IndexPut(0)(x, v4, (r,)),
            ops.IndexPut(1)(x, v4, (Tensor(np.array([2, 2], np.int64)),)))


@case("ops.IndexPut", inputs=[np.arange(6, dtype=np.int32).reshape(2, 3), np.array([3], np.int32),
                              np.array([0, 1], np.int32)])
def index_put_ints(x, v, r):
    return ops.IndexPut(1)(x, v, (r, r))


@case("ops.IndexPut", inputs=[rnd(3, 4), rnd(4, dtype="float64"), np.array([0], np.int32)], error=True)
def index_put_dtypes_differ(x, v, r):
    return ops.IndexPut()(x, v, (r,))


@case("ops.IndexPut", inputs=[rnd(3, 4), rnd(4), np.array([0], np.int32)], graph=False,
      reason="the constructor's argument checks", error=True)
def index_put_accumulate_two(x, v, r):
    return ops.IndexPut(2)(x, v, (r,))


@case("ops.InplaceIndexAdd", graph=False, reason="the case creates its Parameter (not in graph code)",
      inputs=[rnd(4, 3), np.array([0, 3, 0], np.int32), rnd(3, 3), rnd(4, 2), rnd(4, 3)])
def inplace_index_add_forms(x, i, u, u1, y):
    p = Parameter(x, name="p")
    q = Parameter(y, name="q")
    r0 = ops.InplaceIndexAdd(0)(p, i, u)
    r1 = ops.InplaceIndexAdd(axis=1)(q, Tensor(np.array([2, 0], np.int32)), u1)
    return r0 + 0, p + 0, r1 + 0, q + 0


class _IndexAddNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.arange(12, dtype=np.float32).reshape(3, 4)), name="p")
        self.op = ops.InplaceIndexAdd(1)

    def construct(self, i, u):
        self.op(self.p, i, u)
        return self.p + 0


@cell("ops.InplaceIndexAdd", "nn.Cell", inputs=[np.array([3, 1, 3], np.int32), rnd(3, 3)])
def cls_inplace_index_add():
    return _IndexAddNet()


# ---- 3-D upsampling -----------------------------------------------------------------------------------
@case("ops.UpsampleNearest3D", inputs=[rnd(1, 2, 2, 3, 4), rnd(2, 1, 3, 2, 2, dtype="float64")])
def upsample_nearest3d_forms(x, y):
    op = ops.UpsampleNearest3D()
    return (op(x, [3, 4, 5], None), op(x, (4, 6, 8), None), op(x, None, [2.0, 1.5, 0.5]), op(y, [2, 5, 3], None),
            op(y, None, [1.7, 2.5, 1.0]))


@case("ops.UpsampleTrilinear3D", inputs=[rnd(1, 2, 2, 3, 4), rnd(1, 1, 3, 2, 2, dtype="float64")])
def upsample_trilinear3d_forms(x, y):
    op, oc = ops.UpsampleTrilinear3D(), ops.UpsampleTrilinear3D(align_corners=True)
    return (op(x, [3, 4, 5], None), oc(x, [3, 4, 5], None), op(x, None, [2.0, 1.5, 0.5]), oc(x, [1, 1, 1], None),
            op(y, [5, 3, 4], None), oc(y, (4, 4, 2), None), op(y, None, [1.7, 2.5, 1.0]))


@case("ops.UpsampleTrilinear3D", inputs=[rnd(1, 1, 2, 2, 2, dtype="float16")])
def upsample_trilinear3d_f16(x):
    return ops.UpsampleTrilinear3D()(x, [3, 3, 4], None), ops.UpsampleNearest3D()(x, [3, 3, 4], None)


@case("ops.UpsampleNearest3D", inputs=[rnd(1, 2, 3, 4)], error=True)
def upsample_nearest3d_rank_wrong(x):
    return ops.UpsampleNearest3D()(x, [3, 4, 5], None)


@case("ops.UpsampleTrilinear3D", inputs=[rnd(1, 1, 2, 2, 2)], error=True)
def upsample_trilinear3d_both_sizes(x):
    return ops.UpsampleTrilinear3D()(x, [3, 3, 3], [1.5, 1.5, 1.5])


# ---- linear algebra -----------------------------------------------------------------------------------
@case("ops.TridiagonalMatMul", inputs=[rnd(1, 4), rnd(1, 4), rnd(1, 4), rnd(4, 3),
                                       rnd(2, 1, 3, dtype="float64"), rnd(2, 1, 3, dtype="float64"),
                                       rnd(2, 1, 3, dtype="float64"), rnd(2, 3, 2, dtype="float64")])
def tridiagonal_mat_mul_forms(s, m, d, r, s2, m2, d2, r2):
    return ops.TridiagonalMatMul()(s, m, d, r), ops.TridiagonalMatMul()(s2, m2, d2, r2)


@case("ops.TridiagonalMatMul", inputs=[rnd(1, 4), rnd(1, 3), rnd(1, 4), rnd(4, 3)], error=True)
def tridiagonal_mat_mul_shape_wrong(s, m, d, r):
    return ops.TridiagonalMatMul()(s, m, d, r)


_RNG34 = np.random.default_rng(34)
_WELL_POSED = (_RNG34.uniform(-1, 1, (3, 3)).astype(np.float32) + 4 * np.eye(3, dtype=np.float32),
               _RNG34.uniform(-1, 1, (2, 4, 4)) + 5 * np.eye(4))


@case("ops.MatrixSolve", inputs=[_WELL_POSED[0], rnd(3, 2), _WELL_POSED[1], rnd(2, 4, 1, dtype="float64")])
def matrix_solve_primitive_forms(a, b, a2, b2):
    return ops.MatrixSolve()(a, b), ops.MatrixSolve(adjoint=True)(a, b), ops.MatrixSolve(True)(a2, b2)


# ---- layout and bits ----------------------------------------------------------------------------------
@case("ops.DataFormatVecPermute", inputs=[np.array([1, 2, 3, 4], np.int32), np.array([[1, 9], [2, 8], [3, 7], [4, 6]],
                                                                                      np.int64)])
def data_format_vec_permute_forms(v, m):
    return (ops.DataFormatVecPermute()(v), ops.DataFormatVecPermute("NCHW", "NHWC")(v),
            ops.DataFormatVecPermute()(m), ops.DataFormatVecPermute("NHWC", "NHWC")(m))


@case("ops.DataFormatVecPermute", inputs=[np.array([1, 2, 3], np.int32)], error=True)
def data_format_vec_permute_shape_wrong(v):
    return ops.DataFormatVecPermute()(v)


@case("ops.CompareAndBitpack", inputs=[rnd(3, 16), np.array(0.25, np.float32),
                                       np.array([1, 2, 3, 4, 5, 6, 7, 8], np.int32), np.array(6, np.int32),
                                       rnd(2, 8, dtype="float64"), np.array(-0.5, np.float64)])
def compare_and_bitpack_forms(x, t, xi, ti, xd, td):
    return ops.CompareAndBitpack()(x, t), ops.CompareAndBitpack()(xi, ti), ops.CompareAndBitpack()(xd, td)


@case("ops.CompareAndBitpack", inputs=[np.array([[1, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 1, 0, 0, 0, 1]], bool)],
      oracle_bug="for a bool x the wheel packs the first element into the lowest bit (every other dtype: the "
                 "highest, as documented) and ignores the threshold; pycompile packs x > threshold as documented "
                 "(tests/ops/test_prim34.py checks it against np.packbits)")
def compare_and_bitpack_bool(x):
    return ops.CompareAndBitpack()(x, Tensor(np.array(False)))


@case("ops.CompareAndBitpack", inputs=[rnd(3, 12), np.array(0.0, np.float32)], error=True)
def compare_and_bitpack_not_eight(x, t):
    return ops.CompareAndBitpack()(x, t)


# ---- nn.LARS ------------------------------------------------------------------------------------------
class _LarsStep(nn.Cell):
    """Two steps of a Dense layer trained through LARS around Momentum; the weights after them."""

    def __init__(self):
        super().__init__()
        self.net = nn.Dense(4, 3, weight_init=Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)),
                            bias_init=Tensor(np.array([0.1, -0.2, 0.3], np.float32)))
        opt = nn.Momentum(self.net.trainable_params(), 0.1, 0.9, weight_decay=0.01)
        self.step = nn.TrainOneStepCell(nn.WithLossCell(self.net, nn.MSELoss()), nn.LARS(opt, coefficient=0.02))

    def construct(self, x, y):
        self.step(x, y)
        self.step(x, y)
        return self.net.weight + 0, self.net.bias + 0


@cell("nn.LARS", "nn.Momentum", "nn.TrainOneStepCell", inputs=[rnd(5, 4), rnd(5, 3)])
def cls_lars_momentum_steps():
    return _LarsStep()


# ---- nn.SampledSoftmaxLoss ------------------------------------------------------------------------------
_SSL_W = np.random.default_rng(340).standard_normal((9, 6)).astype(np.float32)
_SSL_B = np.random.default_rng(341).standard_normal(9).astype(np.float32)


class _SampledLoss(nn.Cell):
    def __init__(self, **kw):
        super().__init__()
        self.loss = nn.SampledSoftmaxLoss(**kw)

    def construct(self, labels, logits):
        return self.loss(Tensor(_SSL_W), Tensor(_SSL_B), labels, logits)


@cell("nn.SampledSoftmaxLoss", "nn.Cell", inputs=[np.array([0, 3, 8, 3], np.int32), rnd(4, 6)])
def cls_sampled_softmax_loss_seeded():
    return _SampledLoss(num_sampled=4, num_classes=9, seed=5)


@cell("nn.SampledSoftmaxLoss", "nn.Cell", inputs=[np.array([[0, 1], [3, 8], [8, 2]], np.int64), rnd(3, 6)])
def cls_sampled_softmax_loss_two_true_keep_hits():
    return _SampledLoss(num_sampled=5, num_classes=9, num_true=2, seed=11, remove_accidental_hits=False)


@case("nn.SampledSoftmaxLoss", inputs=[np.array([0, 3, 8, 3], np.int32), rnd(4, 6)], graph=False,
      reason="two calls of one loss in one graph: MindSpore's graph mode gives each call its own copy of the "
             "sampler's stream (both draw the same classes), pycompile's graph code goes on with one stream, as "
             "PyNative and successive steps do")
def sampled_softmax_loss_stream_goes_on(labels, logits):
    loss = nn.SampledSoftmaxLoss(num_sampled=4, num_classes=9, seed=5)
    w, b = Tensor(_SSL_W), Tensor(_SSL_B)
    return loss(w, b, labels, logits), loss(w, b, labels, logits), loss(w, b, labels, logits)


@case("nn.SampledSoftmaxLoss", inputs=[np.array([[2], [5]], np.int32), rnd(2, 6), np.array([1, 4, 7], np.int32),
                                       np.array([[0.4], [0.6]], np.float32), np.array([0.3, 0.2, 0.25], np.float32)],
      graph=False, reason="the case builds the loss from its inputs (MindSpore's graph mode wants constants there)")
def sampled_softmax_loss_given_values(labels, logits, cand, q_true, q_sampled):
    loss = nn.SampledSoftmaxLoss(num_sampled=3, num_classes=9, sampled_values=(cand, q_true, q_sampled))
    return loss(Tensor(_SSL_W), Tensor(_SSL_B), labels, logits)


@case("nn.SampledSoftmaxLoss", graph=False, reason="the constructor's argument checks", error=True)
def sampled_softmax_loss_too_many_sampled():
    return nn.SampledSoftmaxLoss(num_sampled=10, num_classes=9)


@case("nn.SampledSoftmaxLoss", inputs=[np.array([0, 3], np.float32), rnd(2, 6)], error=True)
def sampled_softmax_loss_float_labels(labels, logits):
    return nn.SampledSoftmaxLoss(num_sampled=3, num_classes=9)(Tensor(_SSL_W), Tensor(_SSL_B), labels, logits)
