"""Segmentation metrics of mindspore.train: the surface distances (HausdorffDistance,
MeanSurfaceDistance, RootMeanSquareDistance) and ConfusionMatrixMetric.

MindSpore computes surface distances with scipy.ndimage (binary_erosion, then a distance transform
of the other mask's complement). pycompile does the same arithmetic in NumPy without scipy: the
edges of a mask are the mask minus its erosion by the cross-shaped (rank-connectivity-1) element
with zero border, and the distance from an edge point of one mask to the other mask's edges is the
exact minimum over those edge points (Euclidean, L-infinity "chessboard" or L1 "taxicab"), which is
what the exact transforms (`distance_transform_edt`, `distance_transform_cdt`) return.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.tensor import Tensor
from pycompile.common.validator import check_string, check_value_type
from pycompile.nn.metrics.metric import Metric, rearrange_inputs

_METRICS = ["euclidean", "chessboard", "taxicab"]


def _erode(mask: np.ndarray) -> np.ndarray:
    """Binary erosion by the cross-shaped element (scipy's default), outside the array is False."""
    out = mask.copy()
    for axis in range(mask.ndim):
        n = mask.shape[axis]
        lo = [slice(None)] * mask.ndim
        hi = [slice(None)] * mask.ndim
        shifted_prev = np.zeros_like(mask)
        shifted_next = np.zeros_like(mask)
        lo[axis], hi[axis] = slice(1, n), slice(0, n - 1)
        shifted_prev[tuple(lo)] = mask[tuple(hi)]     # neighbour at index - 1
        shifted_next[tuple(hi)] = mask[tuple(lo)]     # neighbour at index + 1
        out &= shifted_prev & shifted_next
    return out


def _edges(mask: np.ndarray) -> np.ndarray:
    mask = np.asarray(mask, bool)
    return _erode(mask) ^ mask


def _surface_distance(from_edges: np.ndarray, to_edges: np.ndarray, metric: str) -> np.ndarray:
    """Distances from each True point of `from_edges` to the nearest True point of `to_edges`
    (in the order np.nonzero lists them); inf when `to_edges` is empty, [] when `from_edges` is."""
    src = np.argwhere(from_edges)
    if src.shape[0] == 0:
        return np.array([])
    dst = np.argwhere(to_edges)
    if dst.shape[0] == 0:
        return np.full(src.shape[0], np.inf)
    out = np.empty(src.shape[0])
    step = max(1, 4_000_000 // max(1, dst.shape[0]))
    for start in range(0, src.shape[0], step):
        diff = np.abs(src[start:start + step, None, :] - dst[None, :, :])
        if metric == "euclidean":
            d = np.sqrt((diff.astype(np.float64) ** 2).sum(-1))
        elif metric == "chessboard":
            d = diff.max(-1)
        else:
            d = diff.sum(-1)
        out[start:start + step] = d.min(1)
    return out


def _is_sequence(value) -> bool:
    if isinstance(value, Tensor):
        return value.ndim > 0
    return isinstance(value, (list, tuple, np.ndarray))


class _SurfaceMetric(Metric):
    """The shared update: two label images and a label index, turned into two edge masks."""

    _name = ""

    def _check_metric(self, distance_metric):
        check_value_type("distance_metric", distance_metric, [str])
        return check_string(distance_metric, _METRICS, "distance_metric")

    def clear(self):
        """Clears the internal evaluation result."""
        self._y_pred_edges = 0
        self._y_edges = 0
        self._is_update = False

    def _masks(self, inputs):
        if len(inputs) != 3:
            raise ValueError(f"For '{self._name}.update', it needs 3 inputs (predicted value, true value, "
                             f"label index), but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        label_idx = inputs[2]
        if not isinstance(label_idx, (int, float)):
            raise self._label_type_error(f"For '{self._name}.update', the label index (input[2]) must be int or "
                                         f"float, {self._label_type_got} {type(label_idx)}.")
        if label_idx not in y_pred and label_idx not in y:
            raise ValueError(f"For '{self._name}.update', the label index (input[2]) must be in predicted value "
                             f"(input[0]) or true value (input[1]), but {label_idx} is not.")
        if y_pred.size == 0 or y_pred.shape != y.shape:
            raise ValueError(f"For '{self._name}.update', the size of predicted value (input[0]) and true value "
                             f"(input[1]) must be greater than 0, in addition to that, predicted value and true "
                             f"value should have the same shape, but got predicted value size: {y_pred.size}, "
                             f"shape: {y_pred.shape}, true value size: {y.size}, shape: {y.shape}.")
        y_pred = y_pred if y_pred.dtype == bool else y_pred == label_idx
        y = y if y.dtype == bool else y == label_idx
        return y_pred, y

    _label_type_error = ValueError
    _label_type_got = "but got"

    def _distances(self, a, b):
        return _surface_distance(a, b, self.distance_metric)


class HausdorffDistance(_SurfaceMetric):
    """The (directed or symmetric, optionally percentile) Hausdorff distance between the edges of
    two binary images: `update(y_pred, y, label_idx)`, then `eval()` (a NumPy float; inf when one
    of the edge sets is empty). With `crop`, both images are first cut to the bounding box of
    their union (as MindSpore does, which changes edges that touch the crop's border)."""

    _name = "HausdorffDistance"

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        super().__init__()
        self.distance_metric = self._check_metric(distance_metric)
        self.percentile = percentile if percentile is None else check_value_type("percentile", percentile,
                                                                                  [float])
        self.directed = directed if directed is None else check_value_type("directed", directed, [bool])
        self.crop = crop if crop is None else check_value_type("crop", crop, [bool])
        self.clear()

    @rearrange_inputs
    def update(self, *inputs):
        """`y_pred`, `y` (Tensor, list or ndarray of equal shape) and the label index."""
        self._is_update = True
        y_pred, y = self._masks(inputs)
        if self.crop:
            union = y_pred | y
            if not union.any():
                self._y_pred_edges, self._y_edges = np.zeros_like(y_pred), np.zeros_like(y)
                return
            where = np.nonzero(union)
            box = tuple(slice(int(w.min()), int(w.max()) + 1) for w in where)
            # MindSpore squeezes the cropped images: unit axes disappear before the erosion
            y_pred, y = np.squeeze(y_pred[box]), np.squeeze(y[box])
        self._y_pred_edges, self._y_edges = _edges(y_pred), _edges(y)

    def _directed(self, a, b):
        dist = self._distances(a, b)
        if dist.shape == (0,):
            return np.inf
        if not self.percentile:
            return dist.max()
        if 0 <= self.percentile <= 100:
            return np.percentile(dist, self.percentile)
        raise ValueError(f"For 'HausdorffDistance', the value of the argument 'percentile' must be [0, 100], "
                         f"but got {self.percentile}.")

    def eval(self):
        """The Hausdorff distance (a NumPy float)."""
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        hd = self._directed(self._y_pred_edges, self._y_edges)
        if self.directed:
            return hd
        return max(hd, self._directed(self._y_edges, self._y_pred_edges))


class MeanSurfaceDistance(_SurfaceMetric):
    """The mean distance from the predicted edges to the true edges (the mean of both directions'
    means when `symmetric`); inf when an edge set is empty."""

    _name = "MeanSurfaceDistance"

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        super().__init__()
        self.distance_metric = self._check_metric(distance_metric)
        self.symmetric = check_value_type("symmetric", symmetric, [bool])
        self.clear()

    @rearrange_inputs
    def update(self, *inputs):
        """`y_pred`, `y` (Tensor, list or ndarray of equal shape) and the label index."""
        y_pred, y = self._masks(inputs)
        self._y_pred_edges, self._y_edges = _edges(y_pred), _edges(y)
        self._is_update = True

    def eval(self):
        """The mean surface distance (a NumPy float)."""
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        forward = self._distances(self._y_pred_edges, self._y_edges)
        if forward.shape == (0,):
            return np.inf
        if not self.symmetric:
            return forward.mean()
        backward = self._distances(self._y_edges, self._y_pred_edges)
        if backward.shape == (0,):
            return np.inf
        return np.mean((forward.mean(), backward.mean()))


class RootMeanSquareDistance(MeanSurfaceDistance):
    """The mean squared distance from the predicted edges to the true edges; with `symmetric`, the
    square root of the mean of both directions' mean squares (MindSpore's formula: the one-way
    value is NOT square-rooted)."""

    _name = "RootMeanSquareDistance"
    _label_type_error = TypeError
    _label_type_got = "but got label index type:"

    def eval(self):
        """The root mean square surface distance (a NumPy float)."""
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        forward = self._distances(self._y_pred_edges, self._y_edges)
        if forward.shape == (0,):
            return np.inf
        if not self.symmetric:
            return (forward ** 2).mean()
        backward = self._distances(self._y_edges, self._y_pred_edges)
        if backward.shape == (0,):
            return np.inf
        return np.sqrt(np.mean(((forward ** 2).mean(), (backward ** 2).mean())))


# ---- ConfusionMatrixMetric ------------------------------------------------------------------------------
_ALIASES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate", "tpr"),
    "tnr": ("specificity", "selectivity", "true_negative_rate", "tnr"),
    "ppv": ("precision", "positive_predictive_value", "ppv"),
    "npv": ("negative_predictive_value", "npv"),
    "fnr": ("miss_rate", "false_negative_rate", "fnr"),
    "fpr": ("fall_out", "false_positive_rate", "fpr"),
    "fdr": ("false_discovery_rate", "fdr"),
    "for": ("false_omission_rate", "for"),
    "pt": ("prevalence_threshold", "pt"),
    "ts": ("threat_score", "critical_success_index", "ts", "csi"),
    "acc": ("accuracy", "acc"),
    "ba": ("balanced_accuracy", "ba"),
    "f1": ("f1_score", "f1"),
    "mcc": ("matthews_correlation_coefficient", "mcc"),
    "fm": ("fowlkes_mallows_index", "fm"),
    "bm": ("informedness", "bookmaker_informedness", "bm"),
    "mk": ("markedness", "deltap", "mk"),
}
_CANONICAL = {alias: key for key, names in _ALIASES.items() for alias in names}
_DECREASE = ["none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel"]


def _ratio(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def _fraction(name, cm):
    """(numerator, denominator) of the named metric from [..., (tp, fp, tn, fn)]."""
    key = _CANONICAL.get(name.replace(" ", "_").lower())
    if key is None:
        raise NotImplementedError("The metric is not implemented.")
    tp, fp, tn, fn = cm[..., 0], cm[..., 1], cm[..., 2], cm[..., 3]
    p, n = tp + fn, fp + tn
    if key in ("pt", "ba", "bm"):
        tpr, tnr = _ratio(tp, p), _ratio(tn, n)
        if key == "pt":
            return np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0
        return (tpr + tnr, 2.0) if key == "ba" else (tpr + tnr - 1.0, 1.0)
    if key == "fm":
        return np.sqrt(_ratio(tp, tp + fp) * _ratio(tp, p)), 1.0
    if key == "mk":
        with np.errstate(divide="ignore", invalid="ignore"):
            return _ratio(tp, tp + fp) + tn / (tn + fn) - 1.0, 1.0
    if key == "mcc":
        return tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return {"tpr": (tp, p), "tnr": (tn, n), "ppv": (tp, tp + fp), "npv": (tn, tn + fn), "fnr": (fn, p),
            "fpr": (fp, n), "fdr": (fp, fp + tp), "for": (fn, fn + tn), "ts": (tp, tp + fn + fp),
            "acc": (tp + tn, p + n), "f1": (tp * 2.0, tp * 2.0 + fn + fp)}[key]


def _metric_of(name, cm):
    if cm.ndim == 1:
        cm = cm[None]
    if cm.shape[-1] != 4:
        raise ValueError(f"For 'ConfusionMatrix', the size of the last dimension of confusion_matrix must be 4, "
                         f"but got {cm.shape[-1]}.")
    num, den = _fraction(name, cm)
    if isinstance(den, np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den != 0, num / np.where(den != 0, den, 1), np.nan)
    return num / den


def _decrease(chart, mode):
    """Reduce a (batch, class, ...) chart ignoring NaN: (value, count of non-NaN)."""
    nans = np.isnan(chart)
    ok = (~nans).astype(float)
    chart = np.where(nans, 0.0, chart)
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode == "mean":
            per = ok.sum(axis=1)
            chart = np.where(per > 0, chart.sum(axis=1) / per, 0.0)
            count = (per > 0).astype(float).sum(axis=0)
            return np.where(count > 0, chart.sum(axis=0) / count, 0.0), count
        if mode == "sum":
            return chart.sum(axis=(0, 1)), ok.sum(axis=(0, 1))
        if mode == "mean_batch":
            count = ok.sum(axis=0)
            return np.where(count > 0, chart.sum(axis=0) / count, 0.0), count
        if mode == "sum_batch":
            return chart.sum(axis=0), ok.sum(axis=0)
        if mode == "mean_channel":
            count = ok.sum(axis=1)
            return np.where(count > 0, chart.sum(axis=1) / count, 0.0), count
        if mode == "sum_channel":
            return chart.sum(axis=1), ok.sum(axis=1)
    return chart, ok


class ConfusionMatrixMetric(Metric):
    """Metrics from the (tp, fp, tn, fn) confusion matrix of one-hot predictions and labels
    (shape (batch, classes, ...)): "sensitivity", "precision", "f1 score", "mcc" and the other
    names and aliases MindSpore accepts. With `calculation_method=False` the four counts are summed
    over everything and the metric is computed once (a 1-element array); with True the metric is
    computed per sample and class, reduced by `decrease`, and averaged over updates.
    As in MindSpore, `skip_channel=False` drops the first channel and True keeps every channel."""

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False, decrease="mean"):
        super().__init__()
        self.skip_channel = check_value_type("skip_channel", skip_channel, [bool])
        self.calculation_method = check_value_type("calculation_method", calculation_method, [bool])
        self.metric_name = check_value_type("metric_name", metric_name, [str])
        check_value_type("decrease", decrease, [str])
        self.decrease = check_string(decrease, _DECREASE, "decrease")
        self._per_sample = calculation_method
        self.clear()

    def clear(self):
        """Clears the internal evaluation result."""
        self._total_num = 0
        self._class_num = 0
        self._total = np.zeros(4)

    def _matrix(self, y_pred, y):
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("For 'ConfusionMatrix.update', the true value (input[1]) must be a binarized ndarray.")
        if y_pred.ndim < 2:
            raise ValueError(f"For 'ConfusionMatrix.update', the predicted value (input[0]) must have at least 2 "
                             f"dimensions, but got {y_pred.ndim}.")
        if y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1):
            self._per_sample = False          # MindSpore switches to whole-batch counting for good
        if not self.skip_channel:
            y = y[:, 1:] if y.shape[1] > 1 else y
            y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
        y, y_pred = y.astype(float), y_pred.astype(float)
        if y.shape != y_pred.shape:
            raise ValueError(f"y_shape: {y.shape} must be equal to y_pred_shape: {y_pred.shape}.")
        b, c = y_pred.shape[:2]
        y_pred, y = y_pred.reshape(b, c, -1), y.reshape(b, c, -1)
        tp = (y_pred + y == 2).sum(axis=2).astype(float)
        tn = (y_pred + y == 0).sum(axis=2).astype(float)
        p = y.sum(axis=2)
        n = y.shape[-1] - p
        return np.stack([tp, n - tn, tn, p - tp], axis=-1)

    @rearrange_inputs
    def update(self, *inputs):
        """`y_pred` and `y`: one-hot (batch, classes, ...) Tensors, lists or ndarrays."""
        if len(inputs) != 2:
            raise ValueError(f"For 'ConfusionMatrixMetric.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        cm = self._matrix(self._convert_data(inputs[0]), self._convert_data(inputs[1]))
        if self.calculation_method and self._per_sample:
            score, count = _decrease(_metric_of(self.metric_name, cm), self.decrease)
            count = int(np.asarray(count).item())
            self._total_num += np.asarray(score).item() * count
            self._class_num += count
        else:
            self._total += cm.reshape(-1, 4).sum(axis=0)

    def eval(self):
        """The metric (an ndarray of one value when counts are accumulated, a float per sample)."""
        if self.calculation_method and self._per_sample:
            if self._class_num == 0:
                raise RuntimeError("The 'ConfusionMatrixMetric' can not be calculated, because the number of "
                                   "samples is 0, please check whether your inputs(predicted value, true value) are "
                                   "empty, or has called update method before calling eval method.")
            return self._total_num / self._class_num
        return _metric_of(self.metric_name, self._total.copy())
