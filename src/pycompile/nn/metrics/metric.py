"""The Metric protocol MindSpore's Model uses during eval: `clear()`, `update(*outputs)`,
`eval()`, plus `set_indexes` / `rearrange_inputs` to pick which network outputs a metric sees.

Metrics are plain NumPy on the host, as in MindSpore: they run between steps on small arrays,
and their results are NumPy values (`np.float64` scalars or arrays), the types MindSpore returns.
"""
from __future__ import annotations

import functools
from abc import ABCMeta, abstractmethod

import numpy as np

from pycompile.common.tensor import Tensor

_EVAL_TYPES = ("classification", "multilabel")


def rearrange_inputs(func):
    """Decorate `update`: when the metric has `indexes`, pass only those inputs, in that order
    (Model.eval hands every network output to every metric)."""
    @functools.wraps(func)
    def update(self, *inputs):
        indexes = self.indexes
        if indexes:
            inputs = [inputs[i] for i in indexes]
        return func(self, *inputs)
    return update


class Metric(metaclass=ABCMeta):
    """Base class: subclasses define `clear`, `update` and `eval`. Calling a metric object
    clears it, updates it once and returns `eval()`."""

    def __init__(self):
        self._indexes = None

    def _convert_data(self, data) -> np.ndarray:
        """Tensors, lists and NumPy arrays are accepted (a list goes through np.array, so float
        values become float64 as in MindSpore); anything else is a TypeError."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, list):
            return np.array(data)
        if isinstance(data, np.ndarray):
            return data
        raise TypeError(f"For 'Metric' and its derived classes, the input data type must be tensor, list or "
                        f"numpy.ndarray, but got {type(data)}.")

    @property
    def indexes(self):
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        """Use only these positions of update()'s inputs (see rearrange_inputs). Returns self."""
        if not isinstance(indexes, list) or not all(isinstance(i, int) for i in indexes):
            raise ValueError("For 'set_indexes', the argument 'indexes' must be a list and all its elements must "
                             "be int, please check whether it is correct.")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()

    @abstractmethod
    def clear(self):
        """Reset the accumulated state."""

    @abstractmethod
    def update(self, *inputs):
        """Accumulate one batch of outputs."""

    @abstractmethod
    def eval(self):
        """The metric over everything accumulated since clear()."""


class EvaluationBase(Metric):
    """A metric over (y_pred, y) in 'classification' (y holds class indices or one-hot rows) or
    'multilabel' (both hold 0/1 per class) form, with MindSpore's shape and value checks."""

    def __init__(self, eval_type):
        super().__init__()
        if eval_type not in _EVAL_TYPES:
            raise TypeError(f"The argument 'eval_type' must be in {{'multilabel', 'classification'}}, "
                            f"but got {eval_type}")
        self._type = eval_type

    def _check_shape(self, y_pred, y):
        if self._type == "classification":
            if y_pred.ndim != y.ndim + 1:
                raise ValueError(f"In classification case, the dimension of y_pred (predicted value) should equal to "
                                 f"the dimension of y (true value) add 1, but got y_pred dimension: {y_pred.ndim} and "
                                 f"y dimension: {y.ndim}.")
            if y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
                raise ValueError(f"In classification case, y_pred (predicted value) shape and y (true value) shape "
                                 f"can not match, y shape should be equal to y_pred shape that the value at index 1 "
                                 f"is deleted. Such as y_pred shape (1, 2, 3), then y shape should be (1, 3). But got "
                                 f"y_pred shape {y_pred.shape} and y shape {y.shape}")
        else:
            if y_pred.ndim != y.ndim:
                raise ValueError(f"In {self._type} case, the dimension of y_pred (predicted value) should equal to "
                                 f"the dimension of y (true value), but got y_pred dimension: {y_pred.ndim} and y "
                                 f"dimension: {y.ndim}.")
            if y_pred.shape != y.shape:
                raise ValueError(f"In {self._type} case, the shape of y_pred (predicted value) should equal to the "
                                 f"shape of y (true value), but got y_pred shape: {y_pred.shape} and y shape: "
                                 f"{y.shape}.")

    def _check_value(self, y_pred, y):
        if self._type != "classification" and not (_is_binary(y_pred) and _is_binary(y)):
            raise ValueError("In multilabel case, all elements in y_pred (predicted value) and y (true value) should "
                             "be 0 or 1.Please check whether your inputs y_pred and y are correct.")

    def clear(self):
        raise NotImplementedError

    def update(self, *inputs):
        raise NotImplementedError

    def eval(self):
        raise NotImplementedError


def _is_binary(a) -> bool:
    return bool(np.equal(a ** 2, a).all())


def is_onehot(y) -> bool:
    """y holds one-hot rows along axis 1 (so the class index is its argmax there)."""
    if y.ndim < 2 or not _is_binary(y):
        return False
    return bool(np.equal(y.sum(axis=1), 1).all())


def widen(value):
    """A float sum as float64. MindSpore accumulates `0 + arr.sum()`, which NumPy 1.x (the NumPy
    MindSpore 2.10 runs on) turns into float64 and NumPy 2 keeps as float32; widening explicitly
    gives MindSpore's values and types under both."""
    value = np.asarray(value)
    return np.float64(value) if value.dtype.kind == "f" else value[()]


def check_bool(cls_name: str, name: str, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls_name}', the type of '{name}' should be 'bool', but got type "
                        f"'{type(value).__name__}'.")
