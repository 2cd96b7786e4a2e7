"""ops.ROIAlign cases shared by record_roi_align.py (MindSpore) and tests/ops/test_roi_align.py
(pycompile): (pooled_height, pooled_width, spatial_scale, sample_num, roi_end_mode, dtype)."""
import numpy as np

CASES = [
    (3, 2, 0.5, 2, 1, "float32"),
    (2, 3, 0.25, 3, 0, "float32"),
    (2, 2, 1.0, 1, 1, "float32"),
    (3, 3, 0.5, 0, 1, "float32"),          # sample_num 0: a grid sized by each ROI
    (2, 2, 0.5, 2, 1, "float16"),
]


def inputs(k, dtype):
    rng = np.random.default_rng(100 + k)
    x = rng.standard_normal((2, 3, 7, 9)).astype(dtype)
    rois = np.array([[0, 1.0, 2.0, 9.5, 11.0],       # inside
                     [1, -3.0, -2.0, 5.0, 4.0],      # partly left of / above the image
                     [0, 8.0, 6.0, 30.0, 20.0],      # reaching past the right / bottom
                     [1, 0.0, 2.0, 0.0, 6.0],        # x1 = x2 = 0: MindSpore's kernel skips it
                     [0, 2.5, 1.5, 3.0, 2.0],        # smaller than a bin
                     [1, 12.0, 0.0, 17.5, 13.0]], dtype)
    grad_weights = rng.standard_normal((6, 3, 4, 4)).astype(np.float32)
    return x, rois, grad_weights


def error_calls(ms):
    """The calls whose errors are recorded, in framework `ms` (mindspore or pycompile)."""
    ops, Tensor = ms.ops, ms.Tensor
    x, rois, _ = inputs(0, "float32")
    return {
        "batch_index": lambda: ops.ROIAlign(2, 2, 0.5)(Tensor(x), Tensor(np.array([[2, 0, 0, 4, 4]], np.float32))),
        "four_columns": lambda: ops.ROIAlign(2, 2, 0.5)(Tensor(x), Tensor(rois[:, 1:])),
        "int_features": lambda: ops.ROIAlign(2, 2, 0.5)(Tensor(x.astype(np.int32)), Tensor(rois)),
        "pooled_height_float": lambda: ops.ROIAlign(2.0, 2, 0.5),
        "spatial_scale_int": lambda: ops.ROIAlign(2, 2, 1),
    }
