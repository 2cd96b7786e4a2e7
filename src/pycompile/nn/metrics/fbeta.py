"""Fbeta and F1 over classes (classification only, as in MindSpore)."""
from __future__ import annotations

import sys

import numpy as np

from pycompile.nn.metrics.metric import Metric, check_bool, is_onehot, rearrange_inputs


class Fbeta(Metric):
    """(1 + beta^2) * TP / (beta^2 * actual positives + predicted positives), per class, with
    counts accumulated over updates; eval(average=True) is the mean over classes."""

    def __init__(self, beta):
        super().__init__()
        self.eps = sys.float_info.min
        if not beta > 0:
            raise ValueError(f"For 'Fbeta', the argument 'beta' must be greater than 0, but got {beta}.")
        self.beta = beta
        self.clear()

    def clear(self):
        self._true_positives = 0
        self._actual_positives = 0
        self._positives = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'Fbeta.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_onehot(y):
            y = y.argmax(axis=1)
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"For 'Fbeta.update', class number not match, last input predicted data contain "
                             f"{self._class_num} classes, but current predicted data contain {y_pred.shape[1]} "
                             f"classes, please check your predicted value(inputs[0]).")
        classes = self._class_num
        if y.max() + 1 > classes:
            raise ValueError(f"For 'Fbeta.update', predicted value(inputs[0]) and true value(inputs[1]) should contain "
                             f"same classes, but got predicted value contains {classes} classes and true value "
                             f"contains {y.max() + 1} classes.")
        eye = np.eye(classes)
        y, y_pred = eye[y.reshape(-1)], eye[y_pred.argmax(axis=1).reshape(-1)]
        self._positives += y_pred.sum(axis=0)
        self._actual_positives += y.sum(axis=0)
        self._true_positives += (y * y_pred).sum(axis=0)

    def eval(self, average=False):
        check_bool(type(self).__name__, "average", average)
        if self._class_num == 0:
            raise RuntimeError("The 'Fbeta' can not be calculated, because the number of samples is 0, please check "
                               "whether your inputs(predicted value, true value) are empty, or has called update "
                               "method before calling eval method.")
        b2 = self.beta ** 2
        fbeta = (1.0 + b2) * self._true_positives / (b2 * self._actual_positives + self._positives + self.eps)
        return fbeta.mean() if average else fbeta


class F1(Fbeta):
    """Fbeta with beta = 1."""

    def __init__(self):
        super().__init__(1.0)
