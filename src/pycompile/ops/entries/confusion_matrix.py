"""`ops.ConfusionMatrix` (deprecated in MindSpore 2.8, kept in 2.10; its CPU wheel has no kernel:
"Unsupported op [ConfusionMatrix] on CPU"), by its documentation: out[i, j] is the sum of the weights
(1 each without weights) of the positions whose label is i and whose prediction is j, of shape
(num_classes, num_classes) and the dtype named by `dtype` ("int32" by default). A label or prediction
outside [0, num_classes) is a ValueError where the values are known (PyNative); in graph code such a
position is not counted."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import INT, Arg, op_entry


def _num_classes(v, op):
    if isinstance(v, bool) or not isinstance(v, int):
        raise OpTypeError(f"For '{op}', the type of 'num_classes' should be 'int', but got type '{type(v).__name__}'.")


def _dtype_name(v, op):
    if not isinstance(v, str):
        raise OpTypeError(f"For '{op}', the type of 'dtype' should be 'str', but got type '{type(v).__name__}'.")


@op_entry("confusion_matrix", primitive="ConfusionMatrix", functional=False,
          args=[Arg("num_classes", "value", init=True, check=_num_classes), Arg("labels", dtypes=INT),
                Arg("predictions", dtypes=INT), Arg("dtype", "value", default="int32", init=True, check=_dtype_name),
                Arg("weights", "value", default=None)])
def confusion_matrix(num_classes, labels, predictions, dtype="int32", weights=None):
    """The (num_classes, num_classes) confusion matrix of 1-D labels and predictions (the constructor checks
    the arguments' types, as the wheel's; their values are checked here)."""
    if num_classes <= 0:
        raise OpValueError(f"For 'ConfusionMatrix', 'num_classes' must be positive, but got {num_classes}.")
    try:
        out_dtype = mstype.to_dtype(dtype)
    except (TypeError, ValueError, KeyError, AttributeError):
        raise OpValueError(f"For 'ConfusionMatrix', 'dtype' must name a MindSpore dtype, but got {dtype!r}.") from None
    if labels.ndim != 1 or tuple(predictions.shape) != tuple(labels.shape):
        raise OpValueError(f"For 'ConfusionMatrix', 'labels' and 'predictions' must be 1-D of the same shape, but "
                           f"got {tuple(labels.shape)} and {tuple(predictions.shape)}.")
    if weights is not None and (not isinstance(weights, TensorMethods) or tuple(weights.shape) != tuple(labels.shape)):
        raise OpTypeError(f"For 'ConfusionMatrix', 'weights' must be a Tensor of the shape of 'labels' "
                          f"{tuple(labels.shape)}, or None.")
    if not isinstance(labels, Symbolic) and not isinstance(predictions, Symbolic):
        for name, t in (("labels", labels), ("predictions", predictions)):
            v = t.asnumpy()
            if v.size and (v.min() < 0 or v.max() >= num_classes):
                raise OpValueError(f"For 'ConfusionMatrix', every value of '{name}' must be in [0, {num_classes}), "
                                   f"but got {v.min()} to {v.max()}.")
    lab = F.one_hot(F.cast(labels, mstype.int32), num_classes, 1.0, 0.0)          # (n, C) float32
    pred = F.one_hot(F.cast(predictions, mstype.int32), num_classes, 1.0, 0.0)
    if weights is not None:
        pred = F.mul(pred, F.expand_dims(F.cast(weights, mstype.float64), 1))
        lab = F.cast(lab, mstype.float64)
    counts = F.matmul(F.transpose(lab, (1, 0)), pred)
    if out_dtype.is_int or out_dtype == mstype.bool_:
        counts = F.round(counts)
    return F.cast(counts, out_dtype)
