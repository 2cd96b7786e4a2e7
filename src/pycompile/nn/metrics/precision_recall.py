"""Precision and Recall, per class ('classification') or per sample ('multilabel').

Classification: y_pred's argmax and y become one-hot rows; counts per class accumulate over
updates and eval() returns one value per class (average=True: their mean).

Multilabel follows MindSpore 2.10 exactly, which counts per *sample*: each sample's (or
position's) true positives over its predicted (Precision) or actual (Recall) positives; eval()
returns that ratio for every sample seen, and average=True the mean of those ratios.
"""
from __future__ import annotations

import sys

import numpy as np

from pycompile.nn.metrics.metric import EvaluationBase, check_bool, is_onehot, rearrange_inputs

_EPS = sys.float_info.min    # keeps 0 / 0 at 0 without a warning, as in MindSpore


class _PerClassRatio(EvaluationBase):
    """true positives / (a kind of positives); subclasses say which positives count."""

    _name = ""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.eps = _EPS
        self.clear()

    def clear(self):
        self._class_num = 0
        if self._type == "multilabel":
            self._true_positives = np.empty(0)
            self._denominators = np.empty(0)
            self._ratio_sum = 0
            self._sample_count = 0
        else:
            self._true_positives = 0
            self._denominators = 0

    def _denominator(self, y_pred, y):
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For '{self._name}.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if self._type == "classification" and y_pred.ndim == y.ndim and is_onehot(y):
            y = y.argmax(axis=1)
        self._check_shape(y_pred, y)
        self._check_value(y_pred, y)
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"For '{self._name}.update', class number not match, last input predicted data contain "
                             f"{self._class_num} classes, but current predicted data contain {y_pred.shape[1]} "
                             f"classes, please check your predicted value(inputs[0]){self._mismatch_end}")
        classes = self._class_num
        if self._type == "classification":
            if y.max() + 1 > classes:
                raise ValueError(f"For '{self._name}.update', predicted value (input[0]) should have the same classes "
                                 f"number as true value (input[1]), but got predicted value classes {classes}, true "
                                 f"value classes {y.max() + 1}.")
            eye = np.eye(classes)
            y, y_pred = eye[y.reshape(-1)], eye[y_pred.argmax(axis=1).reshape(-1)]
        else:
            # (classes, everything else): the sums below run over classes, one value per sample
            y_pred = np.moveaxis(y_pred, 1, 0).reshape(classes, -1)
            y = np.moveaxis(y, 1, 0).reshape(classes, -1)
        true_positives = (y * y_pred).sum(axis=0)
        denominator = self._denominator(y_pred, y).sum(axis=0)
        if self._type == "multilabel":
            self._ratio_sum += np.sum(true_positives / (denominator + self.eps))
            self._sample_count += len(denominator)
            self._true_positives = np.concatenate((self._true_positives, true_positives))
            self._denominators = np.concatenate((self._denominators, denominator))
        else:
            self._true_positives += true_positives
            self._denominators += denominator

    def eval(self, average=False):
        if self._class_num == 0:
            raise RuntimeError(f"The '{self._name}' can not be calculated, because the number of samples is 0, "
                               f"please check whether your inputs (predicted value, true value) are empty, or has "
                               f"called update method before calling eval method.")
        check_bool(type(self).__name__, "average", average)
        result = self._true_positives / (self._denominators + self.eps)
        if not average:
            return result
        if self._type == "multilabel":
            result = self._ratio_sum / (self._sample_count + self.eps)
        return result.mean()


class Precision(_PerClassRatio):
    """Of the predicted positives, the fraction that are right."""
    _name = "Precision"
    _mismatch_end = ""

    def _denominator(self, y_pred, y):
        return y_pred


class Recall(_PerClassRatio):
    """Of the actual positives, the fraction that were predicted."""
    _name = "Recall"
    _mismatch_end = "."

    def _denominator(self, y_pred, y):
        return y
