"""The conformance table: image / resize / layout ops of MindSpore's CPU suite (issue 33, img33):
RGBToHSV, ResizeLinear1D, ResizeBilinearGrad, CropAndResize / ops.crop_and_resize, ConvertToDynamic,
NMSWithMask, CombinedNonMaxSuppression, DeformableOffsets / DeformableOffsetsGrad /
ops.deformable_conv2d. Part of the table loaded after cases.py."""
group("img33")


def _ops_module(name):
    return __import__(ops.__name__ + ".operations." + name, fromlist=[name])


# ---- RGBToHSV ----------------------------------------------------------------------------------------
_RGB = np.array([[0.25, 0.5, 0.5], [0.1, 0.1, 0.1], [0.9, 0.2, 0.3], [0.2, 0.2, 0.9], [0.0, 0.0, 0.0],
                 [0.5, 0.9, 0.1], [0.3, 0.3, 0.8], [1.0, 0.0, 1.0]], np.float32).reshape(2, 4, 3)


@case("ops.RGBToHSV", inputs=[_RGB, rnd(2, 3, 5, 3, lo=0.0, hi=1.0)])
def rgb_to_hsv_f32(x, y):
    op = _ops_module("image_ops").RGBToHSV()
    return op(x), op(y)


@case("ops.RGBToHSV", inputs=[_RGB.astype(np.float64), rnd(4, 3, lo=0.0, hi=1.0, dtype="float64")])
def rgb_to_hsv_f64(x, y):
    op = ops.RGBToHSV()
    return op(x), op(y)


@case("ops.RGBToHSV", inputs=[rnd(2, 4, lo=0.0, hi=1.0)], error=True)
def rgb_to_hsv_not_3_channels(x):
    return ops.RGBToHSV()(x)


# ---- ResizeLinear1D, ResizeBilinearGrad --------------------------------------------------------------------
@case("ops.ResizeLinear1D", inputs=[rnd(2, 3, 5), np.array([8], np.int64), np.array([3], np.int64)])
def resize_linear_1d_modes(x, up, down):
    a, h = ops.ResizeLinear1D("align_corners"), ops.ResizeLinear1D("half_pixel")
    return a(x, up), a(x, down), h(x, up), h(x, down)


@case("ops.ResizeLinear1D", inputs=[rnd(1, 2, 4, dtype="float64"), np.array([7], np.int32)])
def resize_linear_1d_f64_int32_size(x, size):
    return ops.ResizeLinear1D()(x, size), ops.ResizeLinear1D("half_pixel")(x, size)


@case("ops.ResizeLinear1D", inputs=[rnd(1, 2, 4), np.array([6], np.int64)], error=True)
def resize_linear_1d_bad_mode(x, size):
    return ops.ResizeLinear1D("bogus")(x, size)


@case("ops.ResizeLinear1D", inputs=[rnd(1, 2, 4), np.array([6], np.int64)], error=True)
def resize_linear_1d_asymmetric_refused(x, size):
    return ops.ResizeLinear1D("asymmetric")(x, size)


@case("ops.ResizeLinear1D", inputs=[rnd(1, 2, 4), np.array([6], np.int64)])
def resize_linear_1d_nearest_is_align_corners(x, size):
    return ops.ResizeLinear1D("nearest")(x, size)


@case("ops.operations", inputs=[rnd(1, 2, 3, 5), rnd(1, 2, 6, 4), rnd(2, 1, 4, 4, dtype="float64"),
                               rnd(2, 1, 2, 3, dtype="float64")])
def resize_bilinear_grad_values(dy, image, dy64, image64):
    G = _ops_module("_grad_ops")
    return (G.ResizeBilinearGrad()(dy, image), G.ResizeBilinearGrad(True)(dy, image),
            G.ResizeBilinearGrad(False, True)(dy, image), G.ResizeBilinearGrad()(dy64, image64),
            G.ResizeBilinearGrad(False, True)(dy64, image64))


@case("ops.operations", inputs=[rnd(1, 1, 2, 2), rnd(1, 1, 4, 4, dtype="float16")])
def resize_bilinear_grad_takes_the_image_dtype(dy, image):
    return _ops_module("_grad_ops").ResizeBilinearGrad(True)(dy, image)


# ---- CropAndResize -------------------------------------------------------------------------------------
_BOXES = np.array([[0.0, 0.5, 0.5, 0.0], [0.0, 0.0, 0.75, 1.75], [0.2, 0.1, 0.9, 0.8], [-0.3, 0.4, 0.5, 1.2]],
                  np.float32)
_BOX_INDEX = np.array([1, 0, 1, 0], np.int32)


@case("ops.crop_and_resize", inputs=[rnd(2, 9, 7, 3), _BOXES, _BOX_INDEX])
def crop_and_resize_methods(image, boxes, box_index):
    return (ops.crop_and_resize(image, boxes, box_index, (5, 3)),
            ops.crop_and_resize(image, boxes, box_index, (4, 4), "nearest", 0.5),
            ops.crop_and_resize(image, boxes, box_index, (1, 1), "bilinear", -1.0))


@case("ops.CropAndResize", inputs=[ints(2, 6, 5, 2, lo=0, hi=200), _BOXES, _BOX_INDEX])
def crop_and_resize_int_image(image, boxes, box_index):
    return ops.CropAndResize()(image, boxes, box_index, (3, 4)), ops.CropAndResize("nearest", 2.0)(
        image, boxes, box_index, (2, 5))


@case("ops.CropAndResize", graph=False, reason="the constructor's argument checks", error=True)
def crop_and_resize_bad_method():
    return ops.CropAndResize("bicubic")


# ---- ConvertToDynamic -----------------------------------------------------------------------------------
@case("ops.operations", inputs=[rnd(2, 3)])
def convert_to_dynamic_identity(x):
    return _ops_module("_inner_ops").ConvertToDynamic()(x) * 2.0, \
        _ops_module("_inner_ops").ConvertToDynamic(is_dynamic_rank=True)(x)


# ---- NMSWithMask ------------------------------------------------------------------------------------------
_NMS = np.array([[0, 0, 10, 10, 0.5], [1, 1, 11, 11, 0.5], [20, 20, 30, 30, 0.9], [0, 0, 10, 10, 0.5],
                 [21, 21, 31, 31, 0.7], [5, 5, 8, 8, 0.5], [70, 70, 45, 75, 0.6], [0, 0, 0, 0, 0.2],
                 [0, 0, 0, 0, 0.1]], np.float32)


@case("ops.NMSWithMask", inputs=[_NMS, _NMS.astype(np.float16)])
def nms_with_mask_ties_and_flipped(b32, b16):
    return ops.NMSWithMask(0.3)(b32), ops.NMSWithMask(0.05)(b32), ops.NMSWithMask(0.5)(b16)


@case("ops.NMSWithMask", inputs=[rnd(40, 5, lo=0.0, hi=1.0)])
def nms_with_mask_random(b):
    box = b * 50.0
    box = ops.concat((box[:, :2], box[:, :2] + box[:, 2:4], b[:, 4:]), 1)
    return ops.NMSWithMask(0.4)(box)


@case("ops.NMSWithMask", inputs=[rnd(4, 4)], error=True)
def nms_with_mask_not_5_columns(b):
    return ops.NMSWithMask(0.5)(b)


# ---- CombinedNonMaxSuppression -------------------------------------------------------------------------------
def _cnms(boxes, scores, per_class, total, iou, score, **kw):
    op = _ops_module("image_ops").CombinedNonMaxSuppression(**kw)
    return op(boxes, scores, per_class, total, iou, score)


@case("ops.CombinedNonMaxSuppression",
      inputs=[rnd(2, 6, 1, 4, lo=-0.2, hi=1.2), rnd(2, 6, 3, lo=0.0, hi=1.0), np.array(3, np.int32),
              np.array(5, np.int32), np.array(0.3, np.float32), np.array(0.2, np.float32)])
def combined_nms_clip(boxes, scores, per_class, total, iou, score):
    return _cnms(boxes, scores, per_class, total, iou, score)


@case("ops.CombinedNonMaxSuppression",
      inputs=[rnd(2, 6, 1, 4, lo=-0.2, hi=1.2), rnd(2, 6, 3, lo=0.0, hi=1.0), np.array(2, np.int32),
              np.array(8, np.int32), np.array(0.5, np.float32), np.array(0.1, np.float32)])
def combined_nms_pad_per_class_no_clip(boxes, scores, per_class, total, iou, score):
    return _cnms(boxes, scores, per_class, total, iou, score, pad_per_class=True, clip_boxes=False)


@case("ops.CombinedNonMaxSuppression",
      inputs=[rnd(1, 5, 2, 4, lo=0.0, hi=1.0), rnd(1, 5, 2, lo=0.0, hi=1.0), np.array(2, np.int32),
              np.array(3, np.int32), np.array(0.4, np.float32), np.array(0.0, np.float32)])
def combined_nms_box_per_class(boxes, scores, per_class, total, iou, score):
    return _cnms(boxes, scores, per_class, total, iou, score)


_TIE_BOXES = np.array([[[[0.0, 0.1 * i, 0.05, 0.1 * i + 0.05]] for i in range(5)]], np.float32)
_TIE_SCORES = np.array([[[0.5, 0.7], [0.7, 0.5], [0.5, 0.5], [0.7, 0.5], [0.5, 0.7]]], np.float32)


@case("ops.CombinedNonMaxSuppression",
      inputs=[_TIE_BOXES, _TIE_SCORES, np.array(5, np.int32), np.array(10, np.int32), np.array(0.5, np.float32),
              np.array(0.0, np.float32)])
def combined_nms_ties(boxes, scores, per_class, total, iou, score):
    return _cnms(boxes, scores, per_class, total, iou, score)


# ---- DeformableOffsets, DeformableOffsetsGrad, deformable_conv2d ---------------------------------------------
def _offsets(n, taps, oh, ow, groups=1):
    return normal(n, 3 * groups * taps, oh, ow, scale=1.5)


@case("ops.DeformableOffsets", inputs=[rnd(1, 2, 5, 6), _offsets(1, 9, 3, 4), rnd(2, 4, 7, 6), _offsets(2, 9, 4, 3)])
def deformable_offsets_values(x, off, x2, off2):
    nn_ops = _ops_module("nn_ops")
    return (nn_ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (3, 3))(x, off),
            nn_ops.DeformableOffsets((1, 1, 2, 2), (1, 1, 1, 1), (3, 3))(x2, off2))


@case("ops.DeformableOffsets", inputs=[rnd(1, 4, 6, 7), _offsets(1, 6, 5, 7, groups=2)])
def deformable_offsets_groups_dilation(x, off):
    return ops.DeformableOffsets((1, 1, 1, 1), (0, 1, 2, 0), (2, 3), (1, 1, 2, 1), "NCHW", 2)(x, off)


@case("ops.DeformableOffsets", inputs=[rnd(1, 5, 6, 2), normal(1, 3, 4, 27, scale=1.5)], error=True)
def deformable_offsets_nhwc(x, off):
    return ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (3, 3), data_format="NHWC")(x, off)


@case("ops.operations", inputs=[rnd(1, 2, 9, 12), rnd(1, 2, 5, 6), _offsets(1, 9, 3, 4), rnd(1, 4, 10, 21),
                               rnd(1, 4, 6, 7), _offsets(1, 6, 5, 7, groups=2)])
def deformable_offsets_grad_values(dout, x, off, dout2, x2, off2):
    G = _ops_module("_grad_ops")
    return (G.DeformableOffsetsGrad((1, 1, 1, 1), (0, 0, 0, 0), (3, 3))(dout, x, off),
            G.DeformableOffsetsGrad((1, 1, 1, 1), (0, 1, 2, 0), (2, 3), (1, 1, 2, 1), "NCHW", 2)(dout2, x2, off2))


@case("ops.operations", inputs=[rnd(1, 2, 3, 3, dtype="float16"), rnd(1, 2, 4, 4, dtype="float16"),
                               rnd(1, 27, 1, 1, lo=0.0, hi=0.5, dtype="float16")])
def deformable_offsets_grad_f16(dout, x, off):
    return _ops_module("_grad_ops").DeformableOffsetsGrad((1, 1, 1, 1), (0, 0, 0, 0), (3, 3))(dout, x, off)


@case("ops.operations", inputs=[rnd(1, 3, 3, 2), rnd(1, 4, 4, 2), rnd(1, 1, 1, 27, lo=-0.5, hi=0.5)])
def deformable_offsets_grad_nhwc(dout, x, off):
    return _ops_module("_grad_ops").DeformableOffsetsGrad((1, 1, 1, 1), (0, 0, 0, 0), (3, 3),
                                                          data_format="NHWC")(dout, x, off)


@case("ops.deformable_conv2d", inputs=[rnd(2, 3, 6, 5), rnd(4, 3, 3, 3), _offsets(2, 9, 3, 2), rnd(4)])
def deformable_conv2d_values(x, w, off, bias):
    return (ops.deformable_conv2d(x, w, off, (3, 3), (1, 1, 2, 2), (1, 1, 0, 1), bias),
            ops.deformable_conv2d(x, w, off, (3, 3), (1, 1, 2, 2), (1, 1, 0, 1)))


@case("ops.deformable_conv2d", inputs=[rnd(1, 2, 4, 4), rnd(1, 2, 3, 3), _offsets(1, 9, 3, 3)], error=True)
def deformable_conv2d_offsets_wrong_shape(x, w, off):
    return ops.deformable_conv2d(x, w, off, (3, 3), (1, 1, 1, 1), (0, 0, 0, 0))


# ---- ConcatOffset ---------------------------------------------------------------------------------------
@case("ops.operations", inputs=[rnd(3, 1, 2, 1), rnd(2, 1, 2, 1), rnd(3, 1, 5, 1)])
def concat_offset_values(x, y, z):
    G = _ops_module("_grad_ops")
    return G.ConcatOffset(2, 0)((x, y)), G.ConcatOffset(2, -2)((x, z))
