"""Accuracy: the fraction of samples predicted right."""
from __future__ import annotations

import numpy as np

from pycompile.nn.metrics.metric import EvaluationBase, is_onehot, rearrange_inputs


class Accuracy(EvaluationBase):
    """'classification': y_pred holds class scores along axis 1 ((N, C) or (N, C, ...)) and y
    class indices ((N,) or (N, ...)) or one-hot rows; a sample is right when argmax(y_pred) == y.
    'multilabel': y_pred and y hold 0/1 per class; a sample is right when every class matches.
    The class count is fixed by the first update."""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'Accuracy.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if self._type == "classification" and y_pred.ndim == y.ndim and is_onehot(y):
            y = y.argmax(axis=1)
        self._check_shape(y_pred, y)
        self._check_value(y_pred, y)
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"For 'Accuracy.update', class number not match, last input predicted data contain "
                             f"{self._class_num} classes, but current predicted data contain {y_pred.shape[1]} "
                             f"classes, please check your predicted value(inputs[0]).")
        if self._type == "classification":
            right = np.equal(y_pred.argmax(axis=1), y).reshape(-1)
        else:
            # one row per (sample, position), classes last
            rows_pred = np.moveaxis(y_pred, 1, -1).reshape(-1, self._class_num)
            rows_true = np.moveaxis(y, 1, -1).reshape(-1, self._class_num)
            right = np.equal(rows_pred, rows_true).all(axis=1)
        self._correct_num += right.astype(np.int64).sum()
        self._total_num += right.shape[0]

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("The 'Accuracy' can not be calculated, because the number of samples is 0, please "
                               "check whether your inputs(predicted value, true value) are empty, or has called "
                               "update method before calling eval method.")
        return self._correct_num / self._total_num
