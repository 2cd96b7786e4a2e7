"""The conformance table: less used names of API_USAGE.md's families — in-place updates, box
ops for detection models, sequence utilities, 3-D convolution, the Transformer decoder, CTC.
Part of the table loaded after cases.py."""
group("more")


class AssignAddScatterAddNet(nn.Cell):      # (cases_surface.py has an AssignAddNet: one namespace)
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="p")
        self.q = Parameter(Tensor(np.zeros((4, 3), np.float32)), name="q")
        self.assign_add = ops.AssignAdd()
        self.scatter_add = ops.ScatterAdd()

    def construct(self, x, idx, upd):
        ops.assign_add(self.p, x)
        self.assign_add(self.p, x)
        self.scatter_add(self.q, idx, upd)
        return self.p + 0, self.q + 0


@cell("ops.assign_add", "ops.AssignAdd", "ops.ScatterAdd", "nn.Cell", inputs=[rnd(2, 3), np.array([0, 2, 0], np.int32), rnd(3, 3)])
def assign_add_scatter_add():
    return AssignAddScatterAddNet()


@case("ms.mutable", inputs=[rnd(2, 3)])
def mutable_tensor(x):
    return ms.mutable(x) * 2


@(getattr(ops, "constexpr", None) or (lambda f: f))      # the table loads where ops.constexpr is missing
def _double(n):
    return n * 2


@case("ops.constexpr", inputs=[rnd(2, 3)])
def constexpr_helper(x):
    return ops.reshape(x, (_double(1), 3)) * _double(1.5)


@case("ops.FloatStatus", inputs=[rnd(2, 3), special()])
def cls_FloatStatus(x, s):
    return ops.FloatStatus()(x), ops.FloatStatus()(s)


@case("ms.dtype_to_nptype", graph=False, reason="returns NumPy types")
def dtype_to_nptype():
    # NumPy's dtype name, not str(type): numpy 2 renamed numpy.bool_'s class to numpy.bool
    return tuple(np.dtype(ms.dtype_to_nptype(t)).name for t in (ms.float16, ms.float32, ms.int32, ms.bool_))


@case("ms.JitConfig", graph=False, reason="a Python options object")
def jit_config_dict():
    c = ms.JitConfig(jit_level="O1", jit_syntax_level="STRICT")
    d = ms.JitConfig().jit_config_dict
    return tuple(c.jit_config_dict[k] for k in ("jit_level", "exc_mode", "jit_syntax_level", "debug_level",
                                                 "infer_boost", "backend")) + (len(d), d["jit_level"])


# ---- boxes ------------------------------------------------------------------------------------------------
BOXES = np.array([[0, 0, 4, 4], [1, 1, 5, 6], [2, 0, 3, 8]], np.float32)
GT = np.array([[0, 0, 4, 5], [2, 2, 6, 6]], np.float32)


@case("ops.IOU", "ops.iou", inputs=[BOXES, GT])
def iou_fn(a, b):
    return ops.IOU()(a, b), ops.IOU(mode="iof")(a, b), ops.iou(a, b)


@case("ops.BoundingBoxEncode", "ops.BoundingBoxDecode", inputs=[BOXES, np.array([[0, 1, 4, 5], [1, 0, 6, 7], [2, 1, 4, 6]], np.float32),
                                                              rnd(3, 4, lo=-0.5, hi=0.5)])
def bounding_box_encode_decode(anchors, gt, deltas):
    return (ops.BoundingBoxEncode()(anchors, gt), ops.BoundingBoxEncode((0.0, 0.0, 0.0, 0.0), (0.1, 0.1, 0.2, 0.2))(anchors, gt),
            ops.BoundingBoxDecode((8, 8), wh_ratio_clip=0.016)(anchors, deltas))


@case("ops.CheckValid", inputs=[np.array([[0, 0, 4, 4], [1, 1, 12, 6], [-1, 0, 3, 8]], np.float32),
                                 np.array([8, 10, 1], np.float32)])
def check_valid(boxes, meta):
    return ops.CheckValid()(boxes, meta)


@case("ops.NMSWithMask", inputs=[np.array([[0, 0, 4, 4, 0.9], [0, 0, 4, 5, 0.8], [5, 5, 8, 8, 0.7], [1, 1, 4, 4, 0.95]],
                                          np.float32)])
def nms_with_mask(boxes):
    return ops.NMSWithMask(0.5)(boxes)


@case("ops.ROIAlign", inputs=[rnd(1, 2, 6, 6), np.array([[0, 0.5, 0.5, 4.0, 4.0], [0, 1.0, 0.0, 5.5, 3.0]], np.float32)])
def roi_align(features, rois):
    return ops.ROIAlign(2, 2, 1.0, 2)(features, rois)


@case("ops.CropAndResize", inputs=[rnd(1, 5, 5, 2), np.array([[0.0, 0.0, 1.0, 1.0], [0.2, 0.1, 0.7, 0.9]], np.float32),
                                   np.array([0, 0], np.int32)])
def crop_and_resize(image, boxes, index):
    return ops.CropAndResize()(image, boxes, index, (3, 3))


@cell("nn.CentralCrop", inputs=[rnd(2, 6, 6)])
def central_crop():
    return nn.CentralCrop(0.5)


# ---- sequences ---------------------------------------------------------------------------------------------
@case("ops.ReverseSequence", inputs=[rnd(3, 4), np.array([1, 3, 4], np.int32)])
def reverse_sequence(x, lengths):
    return ops.ReverseSequence(seq_dim=1)(x, lengths)


@case("ops.intopk", inputs=[rnd(3, 5), np.array([0, 2, 4], np.int32)])
def intopk_fn(x, targets):
    return ops.intopk(x, targets, 2)


@case("ops.Unique", inputs=[np.array([3, 1, 3, 2, 1, 5], np.int32)])
def unique_fn(x):
    return ops.Unique()(x)


@case("ops.Unique", "ops.unique", inputs=[np.array([2.5, -1.0, 2.5, 0.0, -1.0], np.float32),
                                          np.array([[4, 4, 7], [1, 7, 4]], np.int64)])
def unique_values_then_ops(x, k):
    # in graph code the distinct values have a run-time length; elementwise ops and reductions may follow
    y, idx = ops.Unique()(x)
    u, kidx = ops.unique(k)
    return y, idx, ops.sum(y * 2.0), y.max(), u, kidx, u.sum()


@case("ops.pdist", inputs=[rnd(4, 3)])
def pdist_fn(x):
    return ops.pdist(x), ops.pdist(x, p=1.0)


@case("ops.Dropout", inputs=[rnd(3, 4)])
def cls_Dropout_keep_all(x):
    out, mask = ops.Dropout(keep_prob=1.0)(x)
    return out, mask.shape, mask.dtype


@case("ops.RandomChoiceWithMask", inputs=[np.array([[True, False], [False, True], [True, True]])])
def random_choice_with_mask(x):
    idx, m = ops.RandomChoiceWithMask(count=4)(x)
    return idx.shape, idx.dtype, m.shape, m.dtype, ops.sum(ops.cast(m, ms.int32))


@case("ops.CTCLoss", inputs=[rnd(5, 2, 4), np.array([[0, 0], [0, 1], [1, 0]], np.int64), np.array([1, 2, 1], np.int32),
                             np.array([5, 4], np.int32)])
def ctc_loss(x, label_idx, label_val, seq_len):
    return ops.CTCLoss()(x, label_idx, label_val, seq_len)


# ---- layers --------------------------------------------------------------------------------------------------
@cell("nn.DenseBnAct", inputs=[rnd(4, 3)])
def dense_bn_act():
    net = set_params(nn.DenseBnAct(3, 2, has_bn=True, activation="relu"), 71)
    net.set_train(False)
    return net


@cell("nn.Conv3d", inputs=[rnd(1, 2, 3, 4, 4)])
def conv3d():
    return set_params(nn.Conv3d(2, 2, 3, pad_mode="same"), 72)


@cell("nn.Conv3dTranspose", inputs=[rnd(1, 2, 2, 3, 3)])
def conv3d_transpose():
    return set_params(nn.Conv3dTranspose(2, 2, 2, stride=2, pad_mode="valid"), 73)


class Decoder(nn.Cell):
    def __init__(self, layers):
        super().__init__()
        layer = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
        self.dec = nn.TransformerDecoder(layer, layers) if layers else layer

    def construct(self, tgt, memory, tgt_mask):
        return self.dec(tgt, memory, tgt_mask=tgt_mask)


@cell("nn.TransformerDecoderLayer", inputs=[rnd(3, 2, 8), rnd(4, 2, 8), np.triu(np.ones((3, 3), bool), 1)])
def transformer_decoder_layer():
    net = set_params(Decoder(0), 74, scale=0.3)
    net.set_train(False)
    return net


@cell("nn.TransformerDecoder", "nn.TransformerDecoderLayer", inputs=[rnd(3, 2, 8), rnd(4, 2, 8),
                                                                     np.triu(np.ones((3, 3), bool), 1)])
def transformer_decoder_2layers():
    net = set_params(Decoder(2), 75, scale=0.3)
    net.set_train(False)
    return net


# ---- export and load ------------------------------------------------------------------------------
@case("ms.export", "ms.load", "nn.GraphCell", inputs=[rnd(2, 4)], graph=False,
      reason="writes and reads a file; the GraphCell runs in PyNative here (graph mode: tests/export)")
def graph_cell_round_trip(x):
    import os
    import tempfile

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3, weight_init=Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10),
                               bias_init=Tensor(np.array([0.5, -0.5, 0.25], np.float32)))

        def construct(self, a):
            return ops.relu(self.fc(a)) * 2

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "net")
        ms.export(Net(), x, file_name=path, file_format="MINDIR")
        return nn.GraphCell(ms.load(path + ".mindir"))(x)

@case("ms.Profiler", inputs=[rnd(2, 3)], graph=False,
      reason="a Profiler is started and stopped from Python, around graph code, not inside it")
def profiler_leaves_results_alone(x):
    import shutil
    import tempfile
    where = tempfile.mkdtemp()
    try:
        p = ms.Profiler(output_path=where)
        y = ops.relu(x) * 2 + ops.exp(x)
        p.stop()
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return y

@case("ops.batch_dot", inputs=[rnd(2, 2, 3), rnd(2, 3, 4)])
def batch_dot_default_axes(x, y):
    return ops.batch_dot(x, y), ops.batch_dot(x, y, (-1, -2))

@case("ops.batch_dot", inputs=[rnd(3, 4), rnd(3, 5, 4), rnd(3, 4, 4, 5)])
def batch_dot_axes_forms(x, y, z):
    return ops.batch_dot(x, y, (1, 2)), ops.batch_dot(y, z, 2), ops.batch_dot(z, x, [1, 1]), ops.batch_dot(x, x)

@case("ops.batch_dot", inputs=[rnd(2, 3, 4), rnd(2, 4, 3)], error=True)
def batch_dot_axes_zero(x, y):
    return ops.batch_dot(x, y, (0, 1))

@case("ops.batch_dot", inputs=[rnd(2, 3, 4), rnd(3, 4, 3)], error=True)
def batch_dot_batch_sizes_differ(x, y):
    return ops.batch_dot(x, y)

@case("ops.batch_dot", inputs=[rnd(2, 3, 4, dtype="float64"), rnd(2, 4, 3, dtype="float64")], error=True)
def batch_dot_float64(x, y):
    return ops.batch_dot(x, y)

@case("ops.batch_dot", inputs=[rnd(3), rnd(3, 3)], error=True)
def batch_dot_rank_one(x, y):
    return ops.batch_dot(x, y)

@case("ops.ROIAlign", inputs=[rnd(2, 3, 6, 8), np.array([[0, 1.0, 1.5, 9.0, 8.5], [1, -2.0, 3.0, 6.0, 14.0],
                                                          [1, 4.5, 0.5, 7.0, 2.0]], np.float32)])
def roi_align_default(x, rois):
    return ops.ROIAlign(2, 3, 0.5)(x, rois), ops.ROIAlign(3, 2, 0.25, 3, 0)(x, rois)
