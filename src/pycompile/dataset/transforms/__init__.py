"""mindspore.dataset.transforms: TypeCast, Compose, OneHot here; Fill, Mask, Relational, Duplicate,
Concatenate, Slice, PadEnd, Unique and the random combinators in _more.py."""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.dataset.transforms._base import TensorOperation, as_array, eager_rng, not_random  # noqa: F401
from pycompile.dataset.transforms._more import (Concatenate, Duplicate, Fill, Mask, PadEnd, RandomApply,  # noqa: F401
                                                RandomChoice, RandomOrder, Relational, Slice, Unique)

__all__ = ["TypeCast", "Compose", "OneHot", "Fill", "Mask", "Relational", "Duplicate", "Concatenate", "Slice",
           "PadEnd", "Unique", "RandomApply", "RandomChoice", "RandomOrder", "not_random"]


class TypeCast(TensorOperation):
    """Cast to `data_type` (a pycompile dtype such as pycompile.float32, or a NumPy dtype)."""

    def __init__(self, data_type):
        self.data_type = data_type
        self._np = data_type.np if isinstance(data_type, mstype.DType) else np.dtype(data_type)

    def _apply(self, x):
        if x.dtype.kind in "US" and self._np.kind not in "US":
            # NumPy would parse the text; MindSpore's kernel refuses it
            from pycompile.dataset.workers import pipeline_error
            source = "string" if x.dtype.kind == "U" else "bytes"
            raise pipeline_error(f"TypeCast: TypeCast does not support cast from {source} to {self._np.name}")
        return x.astype(self._np)

    _apply_batch = _apply


class Compose(TensorOperation):
    """Apply `transforms` in order as one operation (the outputs of one are the inputs of the next)."""

    def __init__(self, transforms):
        ops = list(transforms)
        if not ops or not all(callable(op) for op in ops):
            raise ValueError("Compose needs a non-empty list of callable transforms.")
        self.transforms = ops

    def __call__(self, *inputs):
        return self._apply_random(eager_rng(), *(as_array(x) for x in inputs))

    def _apply_random(self, rng, *arrays):
        values = arrays
        for op in self.transforms:
            random_apply = getattr(op, "_apply_random", None)
            out = random_apply(rng, *values) if random_apply else op(*values)
            values = out if isinstance(out, tuple) else (out,)
        return values if len(values) > 1 else values[0]


class OneHot(TensorOperation):
    """Class indices -> one-hot rows along a new last axis, in the input's dtype. With
    `smoothing_rate` s, the rows hold 1 - s + s/C and s/C as float64.

    As in MindSpore, a 1-element input of shape (1,) gives a 1-D row. (With smoothing on a
    batch of labels MindSpore 2.10 sets only the last row's hot entry; here every row gets it.)"""

    def __init__(self, num_classes, smoothing_rate=0.0):
        if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes <= 0:
            raise ValueError(f"Input num_classes is not within the required interval of [1, 2147483647], "
                             f"but got {num_classes!r}.")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"Input smoothing_rate is not within the required interval of [0.0, 1.0], "
                             f"but got {smoothing_rate!r}.")
        self.num_classes = num_classes
        self.smoothing_rate = smoothing_rate

    def _apply(self, labels):
        if labels.dtype.kind not in "iu":
            raise TypeError(f"OneHot needs integer class indices, but got {labels.dtype}.")
        if labels.shape == (1,):
            labels = labels.reshape(())
        hot = np.arange(self.num_classes) == labels[..., None]
        if self.smoothing_rate:
            s = self.smoothing_rate
            return np.where(hot, 1.0 - s + s / self.num_classes, s / self.num_classes)
        return hot.astype(labels.dtype)


def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("dataset.transforms", __name__, name)
