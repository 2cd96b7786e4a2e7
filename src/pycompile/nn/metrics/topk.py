"""Top-k categorical accuracy: the true class is among the k highest scores."""
from __future__ import annotations

import numpy as np

from pycompile.nn.metrics.metric import Metric, is_onehot, rearrange_inputs


class TopKCategoricalAccuracy(Metric):
    """y_pred (N, C) scores, y (N,) class indices or (N, C) one-hot. Ties between scores are
    ordered as NumPy's default argsort orders them, as in MindSpore."""

    def __init__(self, k):
        super().__init__()
        if not isinstance(k, int):
            raise TypeError(f"For 'TopKCategoricalAccuracy', the type of the argument 'k' should be int, "
                            f"but got 'k' type: {type(k)}.")
        if k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', the argument 'k' must be at least 1, "
                             f"but got 'k' value: {k}.")
        self.k = k
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'TopKCategoricalAccuracy.update', it needs 2 inputs (predicted value, true "
                             f"value), but got 'inputs' size: {len(inputs)}.")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_onehot(y):
            y = y.argmax(axis=1)
        top = np.argsort(-y_pred, axis=1)[:, :self.k]
        hits = (top == y.reshape(-1, 1)).sum(axis=1)
        self._correct_num += hits.sum()
        self._samples_num += top.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError("The 'TopKCategoricalAccuracy' can not be calculated, because the number of samples "
                               "is 0, please check whether your inputs (predicted value, true value) are empty, or "
                               "has called update method before calling eval method.")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(5)
