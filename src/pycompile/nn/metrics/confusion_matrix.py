"""ConfusionMatrix: counts of (true class, predicted class) pairs."""
from __future__ import annotations

import numpy as np

from pycompile.nn.metrics.metric import Metric, rearrange_inputs

_NORMALIZE = ("target", "prediction", "all", "no_norm")


class ConfusionMatrix(Metric):
    """Rows are true classes, columns predicted ones. y_pred is either scores with one more
    dimension than y (argmax over axis 1), or same-shaped labels; same-shaped float predictions
    are thresholded (>= threshold -> 1). `normalize`: 'no_norm' counts, 'target' divides each row
    by its sum, 'prediction' each column, 'all' the total; 0 / 0 gives 0."""

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        if not isinstance(num_classes, int) or isinstance(num_classes, bool):
            raise TypeError(f"The type of 'num_classes' should be 'int', but got type '{type(num_classes).__name__}'.")
        if normalize not in _NORMALIZE:
            raise ValueError(f"For 'ConfusionMatrix', the argument 'normalize' must be in ['all', 'prediction', "
                             f"'label', 'no_norm'(None)], but got {normalize}.")
        if not isinstance(threshold, float):
            raise TypeError(f"The type of 'threshold' should be 'float', but got type '{type(threshold).__name__}'.")
        self.num_classes = num_classes
        self.normalize = normalize
        self.threshold = threshold
        self.clear()

    def clear(self):
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'ConfusionMatrix.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim not in (y.ndim, y.ndim + 1):
            raise ValueError(f"For 'ConfusionMatrix.update', predicted value (input[0]) and true value (input[1]) "
                             f"should have same dimensions, or the dimension of predicted value equals the dimension "
                             f"of true value add 1, but got predicted value ndim: {y_pred.ndim}, true value ndim: "
                             f"{y.ndim}.")
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.dtype.kind == "f":
            y_pred = (y_pred >= self.threshold).astype(int)
        n = self.num_classes
        pairs = (y.reshape(-1) * n + y_pred.reshape(-1)).astype(int)
        self.confusion_matrix += np.bincount(pairs, minlength=n * n).reshape(n, n)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        counts = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return counts
        axis = {"target": 1, "prediction": 0, "all": None}[self.normalize]
        with np.errstate(invalid="ignore", divide="ignore"):
            matrix = counts / counts.sum(axis=axis, keepdims=axis is not None)
        matrix[np.isnan(matrix)] = 0
        return matrix
