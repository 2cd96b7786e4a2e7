"""Inputs shared by record_surface33.py (MindSpore's venv) and test_surface33_api.py (pycompile):
framework-neutral, the framework's modules are passed in."""
import numpy as np

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "float16", "float32", "bool_"]
ALGO_KEYS = ["fully_use_devices", "elementwise_op_strategy_follow", "enable_algo_approxi", "algo_approxi_epsilon",
             "tensor_slice_align_enable", "tensor_slice_align_size"]
PS_KEYS = ["enable_ps", "config_file_path", "enable_ssl"]
MEMORY = ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"]


def frombuffer_cases(ms):
    f32 = bytearray(np.arange(4, dtype=np.float32).tobytes())
    return {
        "f32_all": (f32, ms.float32, {}),
        "f32_count_offset": (f32, ms.float32, {"count": 2, "offset": 4}),
        "i8": (b"\x01\x02", ms.int8, {}),
        "f16": (np.array([1.5, 2.5], np.float16).tobytes(), ms.float16, {}),
        "i32_ndarray": (np.arange(3, dtype=np.int32), ms.int32, {}),
        "not_multiple": (b"\x01\x02\x03", ms.float32, {}),
        "count_too_big": (b"\x01\x02\x03\x04", ms.int8, {"count": 5}),
        "offset_too_big": (b"\x01\x02\x03\x04", ms.int8, {"offset": 5}),
        "empty": (b"", ms.int8, {}),
    }


def _blob(shape, centre, radius):
    grid = np.indices(shape)
    return (sum((g - c) ** 2 for g, c in zip(grid, centre)) <= radius ** 2).astype(np.float32)


A2 = _blob((9, 10), (4, 4), 3)
B2 = _blob((9, 10), (5, 6), 2.5)
A3 = _blob((6, 7, 5), (3, 3, 2), 2)
B3 = _blob((6, 7, 5), (2, 4, 2), 1.6)
LABELS = np.array([[0, 1, 1, 2], [2, 2, 0, 1], [1, 0, 2, 2]], np.float32)
LABELS_P = np.array([[0, 1, 2, 2], [2, 1, 0, 1], [1, 1, 2, 0]], np.float32)
EDGE = np.zeros((5, 5), np.float32)
EDGE[0, :3] = 1

# one-hot (batch, classes, ...) for ConfusionMatrixMetric
_rng = np.random.default_rng(33)
Y_PRED = (_rng.random((3, 3, 4, 4)) > 0.5).astype(np.float32)
Y_TRUE = np.eye(3, dtype=np.float32)[_rng.integers(0, 3, (3, 4, 4))].transpose(0, 3, 1, 2).copy()
CLS_PRED = np.array([[1, 0], [0, 1], [1, 0], [1, 0]], np.float32)
CLS_TRUE = np.array([[1, 0], [1, 0], [0, 1], [1, 0]], np.float32)

METRICS = {
    "hd_2d": ("HausdorffDistance", {}, [(A2, B2, 1)]),
    "hd_2d_nocrop": ("HausdorffDistance", {"crop": False}, [(A2, B2, 1)]),
    "hd_2d_directed": ("HausdorffDistance", {"directed": True}, [(A2, B2, 1)]),
    "hd_2d_percentile": ("HausdorffDistance", {"percentile": 80.0}, [(A2, B2, 1)]),
    "hd_2d_chessboard": ("HausdorffDistance", {"distance_metric": "chessboard"}, [(A2, B2, 1)]),
    "hd_2d_taxicab": ("HausdorffDistance", {"distance_metric": "taxicab", "crop": False}, [(A2, B2, 1)]),
    "hd_3d": ("HausdorffDistance", {}, [(A3, B3, 1)]),
    "hd_labels": ("HausdorffDistance", {}, [(LABELS_P, LABELS, 2)]),
    "hd_border": ("HausdorffDistance", {"crop": False}, [(EDGE, A2[:5, :5], 1)]),
    "hd_empty_pred": ("HausdorffDistance", {}, [(np.zeros((4, 4), np.float32), A2[:4, :4], 1)]),
    "hd_bad_label": ("HausdorffDistance", {}, [(A2, B2, 3)]),
    "hd_bad_shape": ("HausdorffDistance", {}, [(A2, B3, 1)]),
    "hd_bad_metric": ("HausdorffDistance", {"distance_metric": "cosine"}, []),
    "hd_no_update": ("HausdorffDistance", {}, []),
    "msd_2d": ("MeanSurfaceDistance", {}, [(A2, B2, 1)]),
    "msd_2d_symmetric": ("MeanSurfaceDistance", {"symmetric": True}, [(A2, B2, 1)]),
    "msd_3d_taxicab": ("MeanSurfaceDistance", {"distance_metric": "taxicab"}, [(A3, B3, 1)]),
    "msd_labels": ("MeanSurfaceDistance", {"symmetric": True, "distance_metric": "chessboard"},
                   [(LABELS_P, LABELS, 1)]),
    "msd_label_type": ("MeanSurfaceDistance", {}, [(A2, B2, "1")]),
    "rms_2d": ("RootMeanSquareDistance", {}, [(A2, B2, 1)]),
    "rms_2d_symmetric": ("RootMeanSquareDistance", {"symmetric": True}, [(A2, B2, 1)]),
    "rms_3d_chessboard": ("RootMeanSquareDistance", {"distance_metric": "chessboard", "symmetric": True},
                          [(A3, B3, 1)]),
    "rms_label_type": ("RootMeanSquareDistance", {}, [(A2, B2, "1")]),
    "cmm_tpr": ("ConfusionMatrixMetric", {}, [(Y_PRED, Y_TRUE)]),
    "cmm_names": ("ConfusionMatrixMetric", {"metric_name": "f1 score", "skip_channel": False},
                  [(Y_PRED, Y_TRUE), (Y_PRED[::-1].copy(), Y_TRUE)]),
    "cmm_mcc": ("ConfusionMatrixMetric", {"metric_name": "Matthews Correlation Coefficient"}, [(Y_PRED, Y_TRUE)]),
    "cmm_pt": ("ConfusionMatrixMetric", {"metric_name": "prevalence threshold"}, [(Y_PRED, Y_TRUE)]),
    "cmm_fm_bm_mk": ("ConfusionMatrixMetric", {"metric_name": "markedness"}, [(Y_PRED, Y_TRUE)]),
    "cmm_per_sample_mean": ("ConfusionMatrixMetric", {"metric_name": "precision", "calculation_method": True},
                            [(Y_PRED, Y_TRUE), (Y_TRUE, Y_TRUE)]),
    "cmm_per_sample_sum": ("ConfusionMatrixMetric", {"metric_name": "accuracy", "calculation_method": True,
                                                     "decrease": "sum"}, [(Y_PRED, Y_TRUE)]),
    "cmm_classification": ("ConfusionMatrixMetric", {"metric_name": "tnr"}, [(CLS_PRED, CLS_TRUE)]),
    "cmm_bad_decrease": ("ConfusionMatrixMetric", {"decrease": "median"}, []),
    "cmm_not_binary": ("ConfusionMatrixMetric", {}, [(Y_PRED, Y_TRUE * 0.5)]),
    "cmm_one_dim": ("ConfusionMatrixMetric", {}, [(np.ones(3, np.float32), np.ones(3, np.float32))]),
    "cmm_unknown_name": ("ConfusionMatrixMetric", {"metric_name": "nope"}, [(Y_PRED, Y_TRUE)]),
}

OCC_X = np.array([[0.1, 0.2, 0.3, 0.4]], np.float32)
OCC_LABEL = np.array(1, np.int32)


def occlusion_net(nn, Tensor):
    """MindSpore's documented example network (a Dense 4 -> 2 with fixed weights)."""
    w = np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32)
    b = np.array([0.3, 0.6], np.float32)
    return nn.Dense(4, 2, weight_init=Tensor(w), bias_init=Tensor(b))


# optimizers: (class name, kwargs, per-step gradients for one Parameter w0 of shape (2, 3))
W0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
GRADS = [np.array([[0.1, -0.2, 0.3], [0.0, 0.5, -0.5]], np.float32),
         np.array([[0.2, 0.1, 0.3], [-0.1, 0.5, 0.4]], np.float32),
         np.array([[-0.3, 0.1, 0.2], [0.1, -0.5, 0.4]], np.float32),
         np.array([[0.3, 0.2, 0.2], [0.1, -0.5, -0.4]], np.float32)]
OPTIMIZERS = {
    "rprop": ("Rprop", {}),
    "rprop_args": ("Rprop", {"learning_rate": 0.05, "etas": (0.4, 1.5), "step_sizes": (0.01, 0.06),
                             "weight_decay": 0.1}),
    "asgd": ("ASGD", {}),
    "asgd_args": ("ASGD", {"learning_rate": 0.2, "lambd": 0.01, "alpha": 0.5, "t0": 2.0}),
    "adafactor": ("AdaFactor", {}),
    "adafactor_manual": ("AdaFactor", {"learning_rate": 0.05, "relative_step": False, "scale_parameter": False,
                                       "weight_decay": 0.1, "beta1": 0.5, "clip_threshold": 0.5}),
    "adafactor_warmup": ("AdaFactor", {"warmup_init": True, "decay_rate": 0.5}),
    "adam_offload": ("AdamOffload", {"learning_rate": 0.1, "weight_decay": 0.01, "use_nesterov": True}),
}


def run_optimizer(ms, nn, Tensor, Parameter, cls_name, kwargs):
    w = Parameter(Tensor(W0.copy()), name="w")
    b = Parameter(Tensor(W0[0].copy()), name="b")        # a vector: AdaFactor's unfactored branch
    opt = getattr(nn, cls_name)([w, b], **kwargs)
    out = []
    for g in GRADS:
        opt((Tensor(g), Tensor(g[1].copy())))
        out.append(w.asnumpy().astype(np.float64).tolist() + [b.asnumpy().astype(np.float64).tolist()])
    state = {name: p.asnumpy().astype(np.float64).tolist() for name, p in opt.parameters_and_names()
             if name not in ("w", "b")}
    return {"trajectory": out, "state": state}


SUMMARY_STEPS = [
    (1, [("scalar", "loss", np.array(1.5, np.float32))]),
    (2, [("scalar", "loss", np.array(0.75, np.float32)),
         ("tensor", "w", np.arange(4, dtype=np.float32).reshape(2, 2))]),
    (5, [("tensor", "ints", np.array([[1, -2, 3]], np.int32)), ("scalar", "acc", np.array([0.5], np.float64))]),
    (7, []),
]
