"""Regression errors: MAE and MSE, averaged over samples (axis 0), summed over the rest."""
from __future__ import annotations

import numpy as np

from pycompile.nn.metrics.metric import Metric, rearrange_inputs, widen


class _ElementError(Metric):
    """Sum of a per-element error over all updates, divided by the number of samples (y's
    first dimension); y is reshaped to y_pred's shape first."""

    _name = ""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._error_sum = 0
        self._samples_num = 0

    def _error(self, diff):
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For '{self._name}.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self._error_sum += widen(self._error(y.reshape(y_pred.shape) - y_pred).sum())
        self._samples_num += y.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError(f"The '{self._name}' can not be calculated, because the number of samples is 0, "
                               f"please check whether your inputs(predicted value, true value) are empty, or has "
                               f"called update method before calling eval method.")
        return self._error_sum / self._samples_num


class MAE(_ElementError):
    """Mean absolute error."""
    _name = "MAE"

    def _error(self, diff):
        return np.abs(diff)


class MSE(_ElementError):
    """Mean squared error."""
    _name = "MSE"

    def _error(self, diff):
        return np.power(diff, 2)
