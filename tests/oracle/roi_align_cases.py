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
