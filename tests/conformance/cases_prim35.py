"""The conformance table: MindSpore 2.10 names that were missing (src/pycompile/ops/entries/prim35.py,
prim35b.py): CountNonZero, DepthwiseConv2dNative, ExtractImagePatches, HistogramFixedWidth, Quantile,
LogSoftmaxExt, SpaceToBatch / BatchToSpace / BatchToSpaceNDV2, ScatterNonAliasingAdd, AccumulateNV2 /
accumulate_n, ResizeNearestNeighborV2, MaxPool3DWithArgmax, NonMaxSuppressionV3, MultilabelMarginLoss /
multilabel_margin_loss, Dilation2D, conv3d_transpose, erfinv_, scatter_nd_update.

Most of these have no CPU kernel in the wheel: their value cases record that (and are skipped), the
argument checks the wheel makes before it looks for a kernel are recorded as error cases, and the
values are checked against NumPy in tests/ops/test_prim35.py. Part of the table loaded after cases.py."""
group("prim35")


# ---- CountNonZero -------------------------------------------------------------------------------------
@case("ops.CountNonZero", inputs=[np.array([[0, 0, 1], [1, 1, 2], [0, 0, 1]], np.int64)],
      oracle_bug="the wheel's CountNonZero Primitive cannot be called as documented: 'the inputs number should be 2 "
                 "but got 1' (tests/ops/test_prim35.py checks the documented [1 3 1])")
def count_nonzero_prim_doc(x):
    return ops.CountNonZero(dims=[1])(x), ops.CountNonZero()(x)


@case("ops.CountNonZero", inputs=[rnd(2, 3)], error=True)
def count_nonzero_prim_dims_str(x):
    return ops.CountNonZero(dims="a")(x)


@case("ops.CountNonZero", inputs=[rnd(2, 3)], error=True)
def count_nonzero_prim_dims_float(x):
    return ops.CountNonZero(dims=[1.5])(x)


# ---- DepthwiseConv2dNative ----------------------------------------------------------------------------
@case("ops.DepthwiseConv2dNative", inputs=[rnd(2, 3, 6, 5), rnd(1, 3, 3, 3)])
def depthwise_conv2d_native_forms(x, w):
    return (ops.DepthwiseConv2dNative(1, 3)(x, w), ops.DepthwiseConv2dNative(1, 3, pad_mode="same")(x, w),
            ops.DepthwiseConv2dNative(1, 3, pad_mode="pad", pad=1, stride=2)(x, w))


@case("ops.DepthwiseConv2dNative", inputs=[rnd(2, 3, 6, 5), rnd(2, 3, 3, 3)], error=True)
def depthwise_conv2d_native_weight_batch(x, w):
    return ops.DepthwiseConv2dNative(channel_multiplier=2, kernel_size=3)(x, w)


@case("ops.DepthwiseConv2dNative", inputs=[rnd(2, 3, 6, 5), rnd(1, 2, 3, 3)], error=True)
def depthwise_conv2d_native_channels(x, w):
    return ops.DepthwiseConv2dNative(1, 3)(x, w)


@case("ops.DepthwiseConv2dNative", inputs=[rnd(2, 3, 6, 5), rnd(1, 3, 3, 3)], error=True)
def depthwise_conv2d_native_kernel_size(x, w):
    return ops.DepthwiseConv2dNative(1, 2)(x, w)


@case("ops.DepthwiseConv2dNative", inputs=[rnd(3, 6, 5), rnd(1, 3, 3, 3)], error=True)
def depthwise_conv2d_native_rank(x, w):
    return ops.DepthwiseConv2dNative(1, 3)(x, w)


@case("ops.DepthwiseConv2dNative", inputs=[rnd(2, 3, 6, 5), rnd(1, 3, 3, 3)], error=True)
def depthwise_conv2d_native_pad_mode(x, w):
    return ops.DepthwiseConv2dNative(1, 3, pad_mode="bad")(x, w)


@case("ops.DepthwiseConv2dNative", inputs=[rnd(2, 3, 6, 5), rnd(1, 3, 3, 3)], error=True)
def depthwise_conv2d_native_mode(x, w):
    return ops.DepthwiseConv2dNative(1, 3, mode=1)(x, w)


# ---- ExtractImagePatches ------------------------------------------------------------------------------
@case("ops.ExtractImagePatches", inputs=[rnd(2, 3, 6, 5)])
def extract_image_patches_forms(x):
    return (ops.ExtractImagePatches([1, 1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")(x),
            ops.ExtractImagePatches([1, 1, 3, 2], [1, 1, 2, 2], [1, 1, 1, 2], "SAME")(x))


@case("ops.ExtractImagePatches", inputs=[rnd(3, 6, 5)], error=True)
def extract_image_patches_rank(x):
    return ops.ExtractImagePatches([1, 1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")(x)


@case("ops.ExtractImagePatches", inputs=[rnd(2, 3, 6, 5)], error=True)
def extract_image_patches_window_too_big(x):
    return ops.ExtractImagePatches([1, 1, 7, 2], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")(x)


# ---- HistogramFixedWidth ------------------------------------------------------------------------------
@case("ops.HistogramFixedWidth", inputs=[np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], np.float32),
                                         np.array([0.0, 5.0], np.float32)])
def histogram_fixed_width_doc(x, r):
    return ops.HistogramFixedWidth(5)(x, r)


@case("ops.HistogramFixedWidth", inputs=[rnd(6), rnd(2)], error=True)
def histogram_fixed_width_nbins_zero(x, r):
    return ops.HistogramFixedWidth(0)(x, r)


@case("ops.HistogramFixedWidth", inputs=[rnd(6), rnd(2)], error=True)
def histogram_fixed_width_dtype(x, r):
    return ops.HistogramFixedWidth(3, dtype="int64")(x, r)


@case("ops.HistogramFixedWidth", inputs=[rnd(6), rnd(2)], error=True)
def histogram_fixed_width_nbins_float(x, r):
    return ops.HistogramFixedWidth(3.0)(x, r)


@case("ops.HistogramFixedWidth", inputs=[rnd(6), rnd(3)], error=True)
def histogram_fixed_width_range_shape(x, r):
    return ops.HistogramFixedWidth(3)(x, r)


# ---- Quantile -----------------------------------------------------------------------------------------
@case("ops.Quantile", inputs=[rnd(3, 4), np.array([0.1, 0.5], np.float32)])
def quantile_prim_forms(x, q):
    return ops.Quantile()(x, q), ops.Quantile(dim=1, keep_dims=True)(x, q)


@case("ops.Quantile", inputs=[rnd(3, 4), np.array([0.5], np.float32)], error=True)
def quantile_prim_dim_range(x, q):
    return ops.Quantile(dim=3)(x, q)


@case("ops.Quantile", inputs=[ints(3, 4), np.array([0.5], np.float32)], error=True)
def quantile_prim_int_input(x, q):
    return ops.Quantile()(x, q)


@case("ops.Quantile", inputs=[rnd(3, 4), np.array([0.5], np.float64)], error=True)
def quantile_prim_q_dtype(x, q):
    return ops.Quantile()(x, q)


@case("ops.Quantile", inputs=[rnd(3, 4), rnd(1, 2, lo=0.0, hi=1.0)], error=True)
def quantile_prim_q_2d(x, q):
    return ops.Quantile()(x, q)


@case("ops.Quantile", inputs=[rnd(3, 4), np.array([0.5], np.float32)], error=True)
def quantile_prim_dim_float(x, q):
    return ops.Quantile(dim=1.0)(x, q)


# ---- LogSoftmaxExt ------------------------------------------------------------------------------------
@case("ops.LogSoftmaxExt", inputs=[rnd(3, 4)])
def log_softmax_ext_forms(x):
    return ops.LogSoftmaxExt()(x), ops.LogSoftmaxExt()(x, 0)


_LSE_NOTE = ("the wheel's GRAPH_MODE LogSoftmaxExt (its only mode with a kernel) carries float32 rounding "
             "(~1e-6 absolute), also for Float64")


def _lse_sum(x):
    return (ops.LogSoftmaxExt()(x, 0) * Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))).sum()


@case("ops.LogSoftmaxExt", "ops.grad", inputs=[rnd(3, 4)], tol={"Float32": (1e-5, 1e-5)},
      note=_LSE_NOTE)
def log_softmax_ext_grad(x):
    return ops.grad(_lse_sum)(x)


@case("ops.LogSoftmaxExt", inputs=[rnd(2, 3, 2, 2), rnd(5, dtype="float64")],
      tol={"Float32": (1e-5, 1e-5), "Float64": (1e-5, 1e-5)},
      note=_LSE_NOTE)
def log_softmax_ext_dims(x, y):
    return (ops.LogSoftmaxExt()(x), ops.LogSoftmaxExt()(x, -1), ops.LogSoftmaxExt()(y),
            ops.LogSoftmaxExt()(x, 2, ms.float64))


@case("ops.LogSoftmaxExt", inputs=[rnd(3, 4)], error=True)
def log_softmax_ext_dim_range(x):
    return ops.LogSoftmaxExt()(x, 2)


# ---- SpaceToBatch / BatchToSpace / BatchToSpaceNDV2 ---------------------------------------------------
@case("ops.SpaceToBatch", "ops.BatchToSpace", inputs=[rnd(1, 2, 4, 2), rnd(4, 2, 1, 1)])
def space_batch_forms(x, y):
    return ops.SpaceToBatch(2, [[0, 0], [0, 0]])(x), ops.BatchToSpace(2, [[0, 0], [0, 0]])(y)


@case("ops.SpaceToBatch", inputs=[rnd(1, 2, 2, 2)], error=True)
def space_to_batch_block_one(x):
    return ops.SpaceToBatch(1, [[0, 0], [0, 0]])(x)


@case("ops.SpaceToBatch", inputs=[rnd(1, 2, 2, 2)], error=True)
def space_to_batch_negative_pad(x):
    return ops.SpaceToBatch(2, [[0, -1], [0, 0]])(x)


@case("ops.SpaceToBatch", inputs=[rnd(1, 2, 3, 2)], error=True)
def space_to_batch_not_divisible(x):
    return ops.SpaceToBatch(2, [[0, 0], [0, 0]])(x)


@case("ops.SpaceToBatch", inputs=[rnd(2, 2, 2)], error=True)
def space_to_batch_rank(x):
    return ops.SpaceToBatch(2, [[0, 0], [0, 0]])(x)


@case("ops.BatchToSpace", inputs=[rnd(4, 2, 1, 1)], error=True)
def batch_to_space_block_one(x):
    return ops.BatchToSpace(1, [[0, 0], [0, 0]])(x)


@case("ops.BatchToSpace", inputs=[rnd(4, 2, 1, 1)], error=True)
def batch_to_space_negative_crop(x):
    return ops.BatchToSpace(2, [[0, 0], [0, -1]])(x)


@case("ops.BatchToSpace", inputs=[rnd(3, 2, 1, 1)], error=True)
def batch_to_space_batch_not_divisible(x):
    return ops.BatchToSpace(2, [[0, 0], [0, 0]])(x)


@case("ops.BatchToSpaceNDV2", inputs=[rnd(4, 2, 1, 1), np.array([2, 2], np.int64), np.zeros((2, 2), np.int64)])
def batch_to_space_nd_v2_forms(x, b, c):
    return ops.BatchToSpaceNDV2()(x, b, c)


@case("ops.BatchToSpaceNDV2", inputs=[rnd(4, 2, 1, 1)], error=True)
def batch_to_space_nd_v2_tuple_block(x):
    return ops.BatchToSpaceNDV2()(x, (2, 2), ((0, 0), (0, 0)))


@case("ops.BatchToSpaceNDV2", inputs=[bools(4, 2, 1, 1), np.array([2, 2], np.int64), np.zeros((2, 2), np.int64)],
      error=True)
def batch_to_space_nd_v2_bool(x, b, c):
    return ops.BatchToSpaceNDV2()(x, b, c)


# ---- ScatterNonAliasingAdd ----------------------------------------------------------------------------
@case("ops.ScatterNonAliasingAdd", graph=False, reason="the case creates its Parameter (not in graph code)",
      inputs=[rnd(8), np.array([[2], [4], [1], [7]], np.int32), rnd(4)])
def scatter_non_aliasing_add_doc(x, i, u):
    p = Parameter(x, name="p")
    return ops.ScatterNonAliasingAdd()(p, i, u) + 0, p + 0


@case("ops.ScatterNonAliasingAdd", graph=False, reason="the case creates its Parameter (not in graph code)",
      inputs=[rnd(8), np.array([[2]], np.float32), rnd(1)], error=True)
def scatter_non_aliasing_add_float_indices(x, i, u):
    return ops.ScatterNonAliasingAdd()(Parameter(x, name="p"), i, u)


@case("ops.ScatterNonAliasingAdd", graph=False, reason="the case creates its Parameter (not in graph code)",
      inputs=[rnd(8), np.array([[2], [3]], np.int32), rnd(1)], error=True)
def scatter_non_aliasing_add_updates_shape(x, i, u):
    return ops.ScatterNonAliasingAdd()(Parameter(x, name="p"), i, u)


# ---- AccumulateNV2 / accumulate_n ---------------------------------------------------------------------
@case("ops.AccumulateNV2", "ops.accumulate_n", inputs=[rnd(3), rnd(3), rnd(3)])
def accumulate_n_forms(a, b, c):
    return ops.AccumulateNV2()((a, b, c)), ops.accumulate_n([a, b])


@case("ops.accumulate_n", "ops.functional", inputs=[rnd(2, 3), ints(4)])
def accumulate_n_one(a, b):
    return ops.accumulate_n([a]), ops.functional.accumulate_n((b,)), ops.accumulate_n([b])


@case("ops.AccumulateNV2", inputs=[rnd(3)])
def accumulate_nv2_one(a):
    return ops.AccumulateNV2()([a])


@case("ops.accumulate_n", inputs=[ints(2), rnd(2)], error=True)
def accumulate_n_mixed_dtypes(a, b):
    return ops.accumulate_n([a, b])


@case("ops.accumulate_n", inputs=[rnd(2), rnd(3)], error=True)
def accumulate_n_shapes(a, b):
    return ops.accumulate_n([a, b])


@case("ops.AccumulateNV2", inputs=[rnd(2)], error=True)
def accumulate_nv2_empty(a):
    return ops.AccumulateNV2()([])


# ---- ResizeNearestNeighborV2 --------------------------------------------------------------------------
_RNN_SIZES = ((5, 7), (2, 3), (3, 4), (6, 2), (1, 1))


@case("ops.ResizeNearestNeighborV2", inputs=[rnd(2, 3, 3, 4)])
def resize_nearest_neighbor_v2_modes(x):
    out = []
    for ac, hp in ((False, False), (True, False), (False, True)):
        for sz in _RNN_SIZES:
            out.append(ops.ResizeNearestNeighborV2(ac, hp)(x, Tensor(np.array(sz, np.int32))))
    return tuple(out)


@case("ops.ResizeNearestNeighborV2", inputs=[rnd(1, 2, 7, 5, dtype="float16"), ints(1, 1, 4, 6, hi=200, dtype="uint8"),
                                             rnd(1, 1, 3, 3, dtype="float64")])
def resize_nearest_neighbor_v2_dtypes(a, b, c):
    return (ops.ResizeNearestNeighborV2()(a, Tensor(np.array([3, 9], np.int64))),
            ops.ResizeNearestNeighborV2(half_pixel_centers=True)(b, Tensor(np.array([7, 4], np.int32))),
            ops.ResizeNearestNeighborV2(align_corners=True)(c, Tensor(np.array([5, 2], np.int32))))


@case("ops.ResizeNearestNeighborV2", graph=False, reason="size is a Tensor argument that sets the shape",
      inputs=[rnd(1, 2, 4, 5), np.array([6, 3], np.int32)])
def resize_nearest_neighbor_v2_size_arg(x, size):
    return ops.ResizeNearestNeighborV2()(x, size)


def _rnn_sum(x):
    return (ops.ResizeNearestNeighborV2()(x, Tensor(np.array([5, 7], np.int32))) *
            Tensor(np.arange(70, dtype=np.float32).reshape(1, 2, 5, 7))).sum()


@case("ops.ResizeNearestNeighborV2", "ops.grad", inputs=[rnd(1, 2, 3, 4)])
def resize_nearest_neighbor_v2_grad(x):
    return ops.grad(_rnn_sum)(x)


@case("ops.ResizeNearestNeighborV2", inputs=[rnd(1, 1, 3, 4)], error=True)
def resize_nearest_neighbor_v2_both_modes(x):
    return ops.ResizeNearestNeighborV2(True, True)(x, Tensor(np.array([2, 3], np.int32)))


@case("ops.ResizeNearestNeighborV2", inputs=[rnd(3, 4)], error=True)
def resize_nearest_neighbor_v2_rank(x):
    return ops.ResizeNearestNeighborV2()(x, Tensor(np.array([2, 3], np.int32)))


@case("ops.ResizeNearestNeighborV2", inputs=[rnd(1, 1, 3, 4)], error=True)
def resize_nearest_neighbor_v2_size_len(x):
    return ops.ResizeNearestNeighborV2()(x, Tensor(np.array([2, 3, 4], np.int32)))


@case("ops.ResizeNearestNeighborV2", inputs=[rnd(1, 1, 3, 4)], error=True)
def resize_nearest_neighbor_v2_size_zero(x):
    return ops.ResizeNearestNeighborV2()(x, Tensor(np.array([0, 3], np.int32)))


# ---- MaxPool3DWithArgmax ------------------------------------------------------------------------------
@case("ops.MaxPool3DWithArgmax", inputs=[rnd(1, 2, 4, 5, 5)])
def max_pool3d_with_argmax_forms(x):
    return (ops.MaxPool3DWithArgmax(ksize=2, strides=2, pads=0)(x),
            ops.MaxPool3DWithArgmax(ksize=3, strides=2, pads=1)(x),
            ops.MaxPool3DWithArgmax(ksize=2, strides=2, pads=0, ceil_mode=True)(x),
            ops.MaxPool3DWithArgmax(ksize=2, strides=1, pads=0, dilation=2)(x),
            ops.MaxPool3DWithArgmax(ksize=(1, 2, 2), strides=(1, 2, 1), pads=(0, 1, 0), argmax_type=ms.int32)(x))


@case("ops.MaxPool3DWithArgmax", inputs=[rnd(2, 1, 3, 4, 4, dtype="float16"), rnd(1, 2, 3, 3, 3, dtype="float64"),
                                         ints(1, 2, 2, 4, 4, hi=9)])
def max_pool3d_with_argmax_dtypes(a, b, c):
    return (ops.MaxPool3DWithArgmax(2, 1, 0)(a), ops.MaxPool3DWithArgmax((3, 2, 2), 1, (1, 1, 0))(b),
            ops.MaxPool3DWithArgmax(2, 2, 0)(c))


def _mp3_sum(x):
    out, _ = ops.MaxPool3DWithArgmax(ksize=2, strides=1, pads=0)(x)
    return (out * out).sum()


@case("ops.MaxPool3DWithArgmax", "ops.grad", inputs=[rnd(1, 2, 3, 4, 4)])
def max_pool3d_with_argmax_grad(x):
    return ops.grad(_mp3_sum)(x)


@case("ops.MaxPool3DWithArgmax", inputs=[rnd(1, 2, 2, 2)], error=True)
def max_pool3d_with_argmax_rank(x):
    return ops.MaxPool3DWithArgmax(ksize=2, strides=2, pads=0)(x)


@case("ops.MaxPool3DWithArgmax", inputs=[rnd(1, 2, 4, 5, 5)], error=True)
def max_pool3d_with_argmax_pads_big(x):
    return ops.MaxPool3DWithArgmax(ksize=2, strides=2, pads=2)(x)


@case("ops.MaxPool3DWithArgmax", inputs=[rnd(1, 2, 4, 5, 5)], error=True)
def max_pool3d_with_argmax_format(x):
    return ops.MaxPool3DWithArgmax(ksize=2, strides=2, pads=0, data_format="NDHWC")(x)


@case("ops.MaxPool3DWithArgmax", inputs=[rnd(1, 2, 4, 5, 5)], error=True)
def max_pool3d_with_argmax_argmax_type(x):
    return ops.MaxPool3DWithArgmax(ksize=2, strides=2, pads=0, argmax_type=ms.float32)(x)


@case("ops.MaxPool3DWithArgmax", inputs=[rnd(1, 2, 4, 5, 5)], error=True)
def max_pool3d_with_argmax_ksize5(x):
    return ops.MaxPool3DWithArgmax(ksize=(1, 1, 2, 2, 2), strides=2, pads=0)(x)


# ---- NonMaxSuppressionV3 ------------------------------------------------------------------------------
_NMS_BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                       [0, 100, 1, 101]], np.float32)
_NMS_SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)


@case("ops.NonMaxSuppressionV3", inputs=[_NMS_BOXES, _NMS_SCORES])
def non_max_suppression_v3_doc(b, s):
    return ops.NonMaxSuppressionV3()(b, s, Tensor(3, ms.int32), Tensor(0.5, ms.float32), Tensor(0.0, ms.float32))


@case("ops.NonMaxSuppressionV3", inputs=[rnd(5, 3), rnd(5)], error=True)
def non_max_suppression_v3_boxes_shape(b, s):
    return ops.NonMaxSuppressionV3()(b, s, Tensor(3, ms.int32), Tensor(0.5, ms.float32), Tensor(0.0, ms.float32))


@case("ops.NonMaxSuppressionV3", inputs=[rnd(5, 4), rnd(4)], error=True)
def non_max_suppression_v3_scores_length(b, s):
    return ops.NonMaxSuppressionV3()(b, s, Tensor(3, ms.int32), Tensor(0.5, ms.float32), Tensor(0.0, ms.float32))


@case("ops.NonMaxSuppressionV3", inputs=[rnd(5, 4), rnd(5)], error=True)
def non_max_suppression_v3_max_output_float(b, s):
    return ops.NonMaxSuppressionV3()(b, s, Tensor(3.0, ms.float32), Tensor(0.5, ms.float32), Tensor(0.0, ms.float32))


# ---- MultilabelMarginLoss -----------------------------------------------------------------------------
_MLML_T = np.array([[1, 2, 0, 3], [2, 3, -1, 1]], np.int32)


@case("ops.MultilabelMarginLoss", "ops.multilabel_margin_loss",
      inputs=[np.array([[0.1, 0.2, 0.4, 0.8], [0.2, 0.3, 0.5, 0.7]], np.float32), _MLML_T])
def multilabel_margin_loss_doc(x, t):
    return ops.MultilabelMarginLoss()(x, t), ops.multilabel_margin_loss(x, t, reduction="none")


@case("ops.MultilabelMarginLoss", inputs=[rnd(2, 4), _MLML_T.astype(np.int64)], error=True)
def multilabel_margin_loss_target_int64(x, t):
    return ops.MultilabelMarginLoss()(x, t)


@case("ops.MultilabelMarginLoss", inputs=[rnd(2, 4), _MLML_T[:, :3]], error=True)
def multilabel_margin_loss_shapes(x, t):
    return ops.MultilabelMarginLoss()(x, t)


@case("ops.MultilabelMarginLoss", inputs=[rnd(2, 2, 4), np.zeros((2, 2, 4), np.int32)], error=True)
def multilabel_margin_loss_rank(x, t):
    return ops.MultilabelMarginLoss()(x, t)


@case("ops.MultilabelMarginLoss", inputs=[ints(2, 4), _MLML_T], error=True)
def multilabel_margin_loss_int_input(x, t):
    return ops.MultilabelMarginLoss()(x, t)


@case("ops.MultilabelMarginLoss", inputs=[rnd(2, 4), _MLML_T], error=True)
def multilabel_margin_loss_reduction(x, t):
    return ops.MultilabelMarginLoss(reduction="bad")(x, t)


@case("ops.multilabel_margin_loss", "ops.functional", inputs=[rnd(2, 4), _MLML_T], error=True)
def multilabel_margin_loss_fn_reduction(x, t):
    return ops.functional.multilabel_margin_loss(x, t, reduction="bad")


# ---- Dilation2D ---------------------------------------------------------------------------------------
@case("ops.Dilation2D", inputs=[rnd(1, 2, 5, 4), rnd(2, 2, 2)],
      oracle_bug="the wheel's Dilation2D call fails inside ('Cast failed, original value: SAME, type: StringImm') "
                 "for every pad_mode; tests/ops/test_prim35.py checks the documented max-plus values")
def dilation2d_forms(x, f):
    return ops.Dilation2D(stride=1, dilation=1)(x, f), ops.Dilation2D(1, 1, pad_mode="VALID")(x, f)


@case("ops.Dilation2D", inputs=[rnd(1, 2, 5, 4), rnd(2, 2, 2)], error=True)
def dilation2d_stride_zero(x, f):
    return ops.Dilation2D(stride=0, dilation=1)(x, f)


@case("ops.Dilation2D", inputs=[rnd(1, 2, 5, 4), rnd(2, 2, 2)], error=True)
def dilation2d_stride_float(x, f):
    return ops.Dilation2D(stride=1.5, dilation=1)(x, f)


@case("ops.Dilation2D", inputs=[rnd(1, 2, 5, 4), rnd(2, 2, 2)], error=True)
def dilation2d_dilation_triple(x, f):
    return ops.Dilation2D(stride=1, dilation=(1, 1, 1))(x, f)


@case("ops.Dilation2D", inputs=[rnd(1, 2, 5, 4), rnd(2, 2, 2)], error=True)
def dilation2d_pad_mode(x, f):
    return ops.Dilation2D(stride=1, dilation=1, pad_mode="bad")(x, f)


@case("ops.Dilation2D", inputs=[rnd(1, 2, 5, 4), rnd(2, 2, 2)], error=True)
def dilation2d_format(x, f):
    return ops.Dilation2D(stride=1, dilation=1, data_format="NHWC")(x, f)


@case("ops.Dilation2D", inputs=[rnd(2, 5, 4), rnd(2, 2, 2)], error=True)
def dilation2d_rank(x, f):
    return ops.Dilation2D(stride=1, dilation=1)(x, f)


# ---- conv3d_transpose ---------------------------------------------------------------------------------
@case("ops.conv3d_transpose", "ops.functional", inputs=[rnd(1, 2, 3, 3, 3), rnd(2, 4, 2, 2, 2), rnd(2, 4, 3, 3, 3)])
def conv3d_transpose_forms(x, w, w3):
    return (ops.conv3d_transpose(x, w), ops.functional.conv3d_transpose(x, w, pad_mode="pad", padding=1, stride=2,
                                                                        output_padding=1),
            ops.conv3d_transpose(x, w3, pad_mode="same", stride=2), ops.conv3d_transpose(x, w, dilation=(1, 2, 2)))


@case("ops.conv3d_transpose", inputs=[rnd(1, 2, 3, 3, 3, dtype="float16"), rnd(2, 4, 2, 2, 2, dtype="float16"),
                                      rnd(1, 2, 3, 3, 3), rnd(2, 2, 2, 2, 2)], tol={"Float16": (2e-3, 2e-3)})
def conv3d_transpose_f16_group(x, w, x32, wg):
    return ops.conv3d_transpose(x, w), ops.conv3d_transpose(x32, wg, group=2)


@case("ops.conv3d_transpose", inputs=[rnd(1, 2, 3, 3, 3), rnd(2, 4, 2, 2, 2)], error=True)
def conv3d_transpose_dilation_depth(x, w):
    return ops.conv3d_transpose(x, w, dilation=2)


def _c3t_sum(x, w):
    return (ops.conv3d_transpose(x, w, stride=2) ** 2).sum()


@case("ops.conv3d_transpose", "ops.grad", inputs=[rnd(1, 2, 2, 3, 3), rnd(2, 3, 2, 2, 2)])
def conv3d_transpose_grad(x, w):
    return ops.grad(_c3t_sum, (0, 1))(x, w)


@case("ops.conv3d_transpose", inputs=[rnd(2, 3, 3, 3), rnd(2, 4, 2, 2, 2)], error=True)
def conv3d_transpose_rank(x, w):
    return ops.conv3d_transpose(x, w)


@case("ops.conv3d_transpose", inputs=[rnd(1, 2, 3, 3, 3), rnd(2, 4, 2, 2)], error=True)
def conv3d_transpose_weight_rank(x, w):
    return ops.conv3d_transpose(x, w)


@case("ops.conv3d_transpose", inputs=[rnd(1, 3, 3, 3, 3), rnd(2, 4, 2, 2, 2)], error=True)
def conv3d_transpose_channels(x, w):
    return ops.conv3d_transpose(x, w)


# ---- erfinv_ ------------------------------------------------------------------------------------------
@case("ops.erfinv_", "ops.functional", inputs=[rnd(5, lo=-0.9, hi=0.9)])
def erfinv_inplace(x):
    y = x + 0
    r = ops.erfinv_(y)
    return r + 0, ops.functional.erfinv_(x + 0)


@case("ops.erfinv_", "ops.functional", inputs=[rnd(2)], error=True)
def erfinv_inplace_not_tensor(x):
    return ops.functional.erfinv_(1.0)


# ---- scatter_nd_update --------------------------------------------------------------------------------
@case("ops.scatter_nd_update", graph=False, reason="the case creates its Parameter (not in graph code)",
      inputs=[rnd(4, 3), np.array([[1], [3]], np.int32), rnd(2, 3), np.array([[1, 2], [3, 0]], np.int64), rnd(2)])
def scatter_nd_update_forms(x, i, u, i2, u2):
    p = Parameter(x, name="p")
    r0 = ops.scatter_nd_update(p, i, u) + 0
    r1 = ops.functional.scatter_nd_update(p, i2, u2) + 0
    return r0, r1, p + 0


class _ScatterNdUpdateNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.arange(12, dtype=np.float32).reshape(4, 3)), name="p")

    def construct(self, i, u):
        ops.scatter_nd_update(self.p, i, u)
        return self.p + 0


@cell("ops.scatter_nd_update", inputs=[np.array([[2], [0]], np.int32), rnd(2, 3)])
def scatter_nd_update_cell():
    return _ScatterNdUpdateNet()


@case("ops.scatter_nd_update", graph=False, reason="the case creates its Parameter (not in graph code)",
      inputs=[rnd(4, 3), np.array([[1], [3]], np.int32), rnd(2, 2)], error=True)
def scatter_nd_update_updates_shape(x, i, u):
    return ops.scatter_nd_update(Parameter(x, name="p"), i, u)


@case("ops.scatter_nd_update", graph=False, reason="the case creates its Parameter (not in graph code)",
      inputs=[rnd(4, 3), np.array([[1], [3]], np.float32), rnd(2, 3)], error=True)
def scatter_nd_update_float_indices(x, i, u):
    return ops.scatter_nd_update(Parameter(x, name="p"), i, u)
