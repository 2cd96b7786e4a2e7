"""The conformance table: ops MindSpore's own CPU op tests need (issue 33, prim33): PSROIPooling and
PSROIPoolingGrad (ops.operations.nn_ops / _grad_ops), ... Part of the table loaded after cases.py."""
group("prim33")


def _ops_module(name):
    return __import__(ops.__name__ + ".operations." + name, fromlist=[name])


# rois (batch, 5, 1): (image, x1, y1, x2, y2); the second box reaches past the map's right and bottom
# edges (MindSpore's forward kernel never reads the last row and column, its gradient does)
_PS_ROIS = np.array([[[0.0], [20.3], [33.0], [100.2], [70.9]],
                     [[1.0], [4.6], [0.0], [140.0], [160.0]]], np.float32)


@case("ops.operations", inputs=[rnd(2, 18, 9, 7), _PS_ROIS])
def ps_roi_pooling_values(x, rois):
    nn_ops = _ops_module("nn_ops")
    return nn_ops.PSROIPooling(1.0 / 16, 3, 2)(x, rois), nn_ops.PSROIPooling(0.125, 1, 18)(x, rois)


@case("ops.operations", inputs=[rnd(2, 2, 3, 3), _PS_ROIS])
def ps_roi_pooling_grad_values(dy, rois):
    G = _ops_module("_grad_ops")
    return G.PSROIPoolingGrad((9, 7), 1.0 / 16, 3, 2)(dy, rois), G.PSROIPoolingGrad(8, 0.125, 3, 2)(dy, rois)


@case("ops.operations", inputs=[rnd(2, 17, 9, 7), _PS_ROIS], error=True)
def ps_roi_pooling_channels_wrong(x, rois):
    return _ops_module("nn_ops").PSROIPooling(1.0 / 16, 3, 2)(x, rois)


@case("ops.operations", inputs=[rnd(3, 2, 3, 3), _PS_ROIS], error=True)
def ps_roi_pooling_grad_rois_count_wrong(dy, rois):
    return _ops_module("_grad_ops").PSROIPoolingGrad((9, 7), 1.0 / 16, 3, 2)(dy, rois)


@case("ops.operations", graph=False, reason="the constructor's argument checks", error=True)
def ps_roi_pooling_group_size_float():
    return _ops_module("nn_ops").PSROIPooling(1.0 / 16, 2.5, 2)


@case("ops.operations", graph=False, reason="the constructor's argument checks", error=True)
def ps_roi_pooling_grad_input_size_list():
    return _ops_module("_grad_ops").PSROIPoolingGrad([9, 7], 1.0 / 16, 3, 2)


# ---- argument checks the suite makes (test_square_sum_all, test_truncate_div_op) -------------------------
@case("ops.SquareSumAll", inputs=[rnd(3, dtype="float16"), rnd(3, dtype="float16")])
def square_sum_all_f16(x, y):
    return ops.SquareSumAll()(x, y)


@case("ops.SquareSumAll", inputs=[rnd(3, dtype="float16"), rnd(3)], error=True)
def square_sum_all_dtypes_differ(x, y):
    return ops.SquareSumAll()(x, y)


@case("ops.SquareSumAll", inputs=[rnd(3, dtype="float64"), rnd(3, dtype="float64")], error=True)
def square_sum_all_float64(x, y):
    return ops.SquareSumAll()(x, y)


@case("ops.SquareSumAll", inputs=[rnd(3), rnd(2)], error=True)
def square_sum_all_shapes_differ(x, y):
    return ops.SquareSumAll()(x, y)


@case("ops.TruncateDiv", inputs=[np.array([True, False]), np.array([True])], error=True)
def truncate_div_bools(x, y):
    return ops.TruncateDiv()(x, y)


@case("ops.TruncateDiv", inputs=[np.array([1, 4, -3], np.int32), np.array([True])])
def truncate_div_int_by_bool(x, y):
    return ops.TruncateDiv()(x, y)


# ---- nn.Pad's checks (test_pad.py::test_pad_error_cases) ------------------------------------------------
@cell("nn.Pad", inputs=[rnd(3, 3)], error=True)
def pad_negative_constant():
    return nn.Pad(paddings=((0, 0), (-1, -1)), mode="CONSTANT")


@cell("nn.Pad", inputs=[rnd(3, 3)], error=True)
def pad_negative_reflect():
    return nn.Pad(paddings=((0, 0), (-1, 1)), mode="REFLECT")


@cell("nn.Pad", inputs=[rnd(1, 3, 3)], error=True)
def pad_rank_mismatch():
    return nn.Pad(paddings=((0, 0), (1, 0)), mode="CONSTANT")


@case("Tensor.expand", inputs=[rnd(3, 1)])
def tensor_expand_by_a_size_tensor(x):
    return x.expand(Tensor(np.array([3, 4], np.int32))), x.expand(Tensor(np.array([2, -1, 5], np.int64)))


@case("ops.fold", inputs=[rnd(16, 64, 4)], error=True)
def fold_negative_output_size(x):
    return ops.fold(x, Tensor(np.array([6, -1], np.int32)), [2, 2], [2, 2], [2, 2], [2, 2])


# ---- box regression targets ------------------------------------------------------------------------------
_ANCH = np.array([[4, 1, 6, 9], [2, 5, 5, 9], [0, 0, 30, 20], [10, 10, 11, 12]], np.float32)
_GT = np.array([[3, 2, 7, 7], [1, 5, 5, 8], [5, 2, 25, 30], [9, 8, 14, 12]], np.float32)
_DELTAS = np.array([[3, 1, 2, 2], [1, 2, 1, 4], [-0.5, 0.2, 5.0, -6.0], [0.1, -0.1, 0.3, 0.2]], np.float32)


@case("ops.bounding_box_encode", "ops.BoundingBoxEncode", inputs=[_ANCH, _GT])
def bounding_box_encode_values(a, g):
    return (ops.bounding_box_encode(a, g), ops.BoundingBoxEncode((0.1, 0.1, 0.2, 0.2), (2.0, 2.0, 3.0, 3.0))(a, g),
            ops.bounding_box_encode(ops.cast(a, ms.float16), ops.cast(g, ms.float16)))


@case("ops.bounding_box_decode", "ops.BoundingBoxDecode", inputs=[_ANCH, _DELTAS])
def bounding_box_decode_values(a, d):
    return (ops.bounding_box_decode(a, d, (768, 1280)),
            ops.BoundingBoxDecode((24, 16), (0.1, 0.1, 0.2, 0.2), (2.0, 2.0, 3.0, 3.0), 0.016)(a, d),
            ops.bounding_box_decode(a, d, max_shape=(30, 40), wh_ratio_clip=0.2))


# ---- InplaceUpdateV2 / Tensor.inplace_update, DataFormatDimMap, EqualCount ---------------------------------
@case("ops.InplaceUpdateV2", "Tensor.inplace_update", "ops.inplace_update",
      inputs=[rnd(4, 3), rnd(2, 3), np.array([3, -4], np.int32)])
def inplace_update_v2_rows(x, v, idx):
    return ops.InplaceUpdateV2()(x, idx, v), x.inplace_update(v, idx), ops.inplace_update(x, v, idx), x


@case("ops.DataFormatDimMap", inputs=[np.array([-4, -3, -2, -1, 0, 1, 2, 3], np.int32),
                                      np.array([[0, 1], [2, -1]], np.int64)])
def data_format_dim_map_layouts(x, y):
    return ops.DataFormatDimMap()(x), ops.DataFormatDimMap("NCHW", "NHWC")(x), ops.DataFormatDimMap("NHWC", "NHWC")(y)


@case("ops.DataFormatDimMap", inputs=[np.array([0, 1], np.int32)], error=True)
def data_format_dim_map_other_layout(x):
    return ops.DataFormatDimMap(dst_format="CHWN")(x)


@case("ops.EqualCount", inputs=[np.array([1, 20, 5, 7], np.int32), np.array([2, 20, 5, 7], np.int32),
                                np.array([0.5, 1.0, -2.0], np.float32), np.array([0.5, 1.5, -2.0], np.float32)])
def equal_count_dtypes(a, b, x, y):
    return ops.EqualCount()(a, b), ops.EqualCount()(x, y)


# ---- bilinear layers -------------------------------------------------------------------------------------
@case("ops.bidense", inputs=[rnd(5, 3), rnd(5, 4), rnd(2, 3, 4), rnd(2), rnd(2, 5, 3), rnd(2, 5, 4)])
def bidense_shapes(x1, x2, w, b, y1, y2):
    return (ops.bidense(x1, x2, w, b), ops.bidense(x1, x2, w), ops.bidense(y1, y2, w, b),
            ops.bidense(x1[0], x2[0], w, b))


@case("ops.bidense", inputs=[ints(2, lo=-20, hi=20, dtype="int8"), ints(3, lo=-20, hi=20, dtype="int8"),
                             ints(1, 2, 3, lo=-3, hi=3, dtype="int8"), ints(1, lo=-20, hi=20, dtype="int8")])
def bidense_int8(x1, x2, w, b):
    return ops.bidense(x1, x2, w, b)


@cell("nn.BiDense", inputs=[rnd(4, 3), rnd(4, 2)])
def bidense_cell():
    return set_params(nn.BiDense(3, 2, 5), 33)


@case("ops.EmbeddingLookup", inputs=[rnd(4, 3), np.array([[5, 2, 8], [4, 7, 3]], np.int32)])
def embedding_lookup_shard(p, idx):
    return ops.EmbeddingLookup()(p, idx, 4), ops.EmbeddingLookup()(p, idx, 0)


@case("ops.standard_laplace", "ops.StandardLaplace", graph=False, reason="random: shape, dtype and spread")
def standard_laplace_shape_dtype():
    a = ops.standard_laplace((300, 40), seed=3)
    b = ops.StandardLaplace(10, 10)((5, 6))
    return a.shape, a.dtype, b.shape, b.dtype, (ops.abs(a).mean() > 0.8).all(), (ops.abs(a).mean() < 1.2).all()


@case("ops.operations", inputs=[rnd(3, 4), rnd(3, 4, lo=-6.0, hi=6.0)])
def softplus_grad_values(dy, x):
    return _ops_module("_grad_ops").SoftplusGrad()(dy, x)


@case("ops.LRN", inputs=[rnd(2, 6, 3, 3), rnd(2, 6, 3, 3)])
def lrn_grad_values(x, dy):
    G = _ops_module("_grad_ops")
    y = ops.LRN(2, 1.0, 0.1, 0.75)(x)
    return G.LRNGrad(2, 1.0, 0.1, 0.75)(dy, x, y), G.LRNGrad(depth_radius=1, alpha=0.5)(dy, x, ops.LRN(1, alpha=0.5)(x))


@case("ops.operations", inputs=[rnd(2, 3, 3, 5), ints(1, 2, 4, 3, lo=-5, hi=5)])
def resize_nearest_neighbor_grad_values(dy, k):
    G = _ops_module("_grad_ops")
    return (G.ResizeNearestNeighborGrad(False)(dy, (7, 4)), G.ResizeNearestNeighborGrad(True)(dy, (7, 4)),
            G.ResizeNearestNeighborGrad(True)(dy, (2, 9)), G.ResizeNearestNeighborGrad()(k, (2, 2)))


@case("ops.L2Normalize", inputs=[rnd(2, 3, 4), rnd(2, 3, 4)])
def l2_normalize_grad_values(x, dout):
    G = _ops_module("_grad_ops")
    y1, y0 = ops.L2Normalize(1)(x), ops.L2Normalize(0, 1e-4)(x * 0.001)
    return G.L2NormalizeGrad(1)(x, y1, dout), G.L2NormalizeGrad(0, 1e-4)(x * 0.001, y0, dout)
