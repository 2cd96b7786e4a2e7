"""Loss functions with MindSpore 2.10's signatures and semantics (`ops.cross_entropy`,
`ops.nll_loss`, `ops.binary_cross_entropy_with_logits`, `ops.kl_div` ...).

Every loss is elementwise work followed by one reduction, written with rows of the op table, so
a compiled `mean` / `sum` is one reduction kernel computing the elementwise part inline (no
temporary); cross entropy is the log_softmax template, then a gather of one value per row.
Class indices are picked with `Gather` on the flattened scores (O(N), not a one-hot product over
every class); a second Gather of the class weights (or of ones) checks the indices, so an index
out of range is an error in eager and compiled code alike, as in MindSpore.

Formulas as MindSpore computes them (checked against the 2.10 wheel): binary cross entropy
clamps each log at log(1e-12); kl_div is target * (log(target) - x) with 0 where target is 0;
'mean' of kl_div divides by the element count ('batchmean' by the batch).
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.ops import prims as P
from pycompile.ops import _mixed
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError, apply

REDUCTIONS = ("mean", "sum", "none")
BCE_EPS = 1e-12


def check_reduction(name: str, reduction, allowed=REDUCTIONS) -> str:
    if reduction not in allowed:
        raise OpValueError(f"For '{name}', the 'reduction' must be in {list(allowed)}, but got {reduction}.")
    return reduction


def reduce_loss(x, reduction: str):
    """MindSpore's `_get_loss`: the mean or sum over every element, or x itself."""
    if reduction == "mean":
        return F.mean(x)
    if reduction == "sum":
        return F.sum(x)
    return x


def _tt(name, x, what="input"):
    return F._tensor_type(name, x, what)


def softplus_row(x):
    return apply(P.Softplus, [x])


# ---- classification ---------------------------------------------------------------------------------
def _class_axis(ndim: int) -> int:
    return 0 if ndim == 1 else 1


def _broadcast_weight(weight, ndim: int, axis: int):
    """A per-class weight (C,) shaped to broadcast along the class axis of a rank-ndim tensor."""
    if weight is None or ndim <= 1:
        return weight
    shape = [1] * ndim
    shape[axis] = _tt("weight", weight).shape[0]
    return F.reshape(weight, tuple(shape))


def _pick(logp, target, axis: int):
    """logp[..., target, ...] along `axis` for every position of `target` (logp's shape without
    `axis`): one Gather on the flattened scores at constant offset + target * stride."""
    shape = _tt("nll_loss", logp).shape
    stride = int(np.prod(shape[axis + 1:], dtype=np.int64))
    rest = shape[:axis] + shape[axis + 1:]
    # flat index of class 0 at each position: outer * C * stride + inner
    outer = np.arange(int(np.prod(shape[:axis], dtype=np.int64)), dtype=np.int64) * shape[axis] * stride
    base = (outer[:, None] + np.arange(stride, dtype=np.int64)[None, :]).reshape(rest)
    index = F.add(F.mul(F.cast(target, mstype.int64), stride), Tensor(base))
    return F.gather(F.reshape(logp, (-1,)), index, 0)


@_mixed.amp_class("full")       # amp_level='auto' (ops/amp_auto.py)
def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """Negative log likelihood of class indices `target` under log-probabilities `inputs`
    (classes on axis 1, or axis 0 of a 1-D input)."""
    check_reduction("nll_loss", reduction)
    it, tt = _tt("nll_loss", inputs, "inputs"), _tt("nll_loss", target, "target")
    if not tt.dtype.is_int:
        raise OpTypeError(f"For 'nll_loss', 'target' must be an int32 or int64 Tensor, but got {tt}")
    axis = _class_axis(it.ndim)
    classes = it.shape[axis]
    if tt.shape != it.shape[:axis] + it.shape[axis + 1:]:
        raise OpValueError(f"For 'nll_loss', 'target' must have the shape of 'inputs' without the class axis "
                           f"({list(it.shape[:axis] + it.shape[axis + 1:])}), but got {list(tt.shape)}")
    ignored = F.equal(target, ignore_index)
    safe = F.select(ignored, F.zeros_like(target), target)
    # the weight of each target's class; Gather also rejects an index out of range
    table = weight if weight is not None else F.ones((classes,), it.dtype)
    w_t = F.select(ignored, 0.0, F.gather(table, safe, 0))
    loss = F.neg(F.mul(_pick(inputs, safe, axis), w_t))
    if reduction == "sum":
        loss = F.sum(loss)
    elif reduction == "mean":
        loss = F.div(F.sum(loss), F.sum(w_t))
    if label_smoothing:
        wb = _broadcast_weight(weight, it.ndim, axis)
        smooth = F.neg(F.sum(inputs if wb is None else F.mul(inputs, wb), axis))
        smooth = F.select(ignored, 0.0, smooth)
        if reduction == "sum":
            smooth = F.sum(smooth)
        elif reduction == "mean":
            smooth = F.div(F.sum(smooth), F.sum(w_t))
        loss = F.add(F.mul(loss, 1.0 - label_smoothing), F.mul(smooth, label_smoothing / classes))
    return loss


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """Cross entropy of logits `input` (classes on axis 1, or axis 0 of a 1-D input) against
    class indices (int `target`) or class probabilities (float `target` of input's shape)."""
    check_reduction("cross_entropy", reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise OpValueError(f"For 'cross_entropy', 'label_smoothing' must be in [0, 1], but got {label_smoothing}")
    it, tt = _tt("cross_entropy", input), _tt("cross_entropy", target, "target")
    axis = _class_axis(it.ndim)
    logp = F.log_softmax(input, axis)
    if tt.dtype.is_int:
        return nll_loss(logp, target, weight, ignore_index, reduction, label_smoothing)
    if tt.shape != it.shape:
        raise OpValueError("For cross_entropy that target is probabilities, input shape should equal to target shape.")
    classes = it.shape[axis]
    if label_smoothing > 0.0:
        target = F.add(F.mul(target, 1 - label_smoothing), label_smoothing / classes)
    prod = F.mul(logp, target)
    wb = _broadcast_weight(weight, it.ndim, axis)
    if wb is not None:
        prod = F.mul(prod, wb)
    if reduction == "mean":
        return F.neg(F.div(F.sum(prod), it.size / classes))
    if reduction == "sum":
        return F.neg(F.sum(prod))
    return F.neg(F.sum(prod, axis))


def sigmoid_cross_entropy_with_logits(logits, labels):
    """Elementwise -[y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))] = softplus(x) - x * y."""
    return F.sub(softplus_row(logits), F.mul(logits, labels))


@_mixed.amp_class("full")       # amp_level='auto' (ops/amp_auto.py)
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    """-w [pw y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))]
    = w [(1 - y) x + (1 + (pw - 1) y) softplus(-x)], stable for any x."""
    check_reduction("binary_cross_entropy_with_logits", reduction)
    sp = softplus_row(F.neg(input))
    one_minus = F.sub(1.0, target)
    if pos_weight is None:
        loss = F.add(F.mul(one_minus, input), sp)
    else:
        loss = F.add(F.mul(one_minus, input), F.mul(F.add(one_minus, F.mul(pos_weight, target)), sp))
    if weight is not None:
        loss = F.mul(loss, weight)
    return reduce_loss(loss, reduction)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """-w [y log(p) + (1 - y) log(1 - p)], each log clamped at log(1e-12) as MindSpore does."""
    check_reduction("BinaryCrossEntropy", reduction)
    lp = F.log(F.maximum(logits, BCE_EPS))
    lq = F.log(F.maximum(F.sub(1.0, logits), BCE_EPS))
    loss = F.neg(F.add(F.mul(labels, lp), F.mul(F.sub(1.0, labels), lq)))
    if weight is not None:
        loss = F.mul(loss, weight)
    return reduce_loss(loss, reduction)


# ---- regression -------------------------------------------------------------------------------------
@_mixed.amp_class("full")       # amp_level='auto' (ops/amp_auto.py)
def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """|d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta (beta 0: the L1 loss)."""
    check_reduction("smooth_l1_loss", reduction)
    if beta < 0:
        raise OpValueError(f"For 'smooth_l1_loss', 'beta' must be >= 0, but got {beta}")
    z = F.abs(F.sub(input, target))
    if beta == 0:
        return reduce_loss(z, reduction)
    loss = F.select(F.less(z, beta), F.mul(F.square(z), 0.5 / beta), F.sub(z, 0.5 * beta))
    return reduce_loss(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """|d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta)."""
    check_reduction("huber_loss", reduction)
    if delta <= 0:
        raise OpValueError(f"For 'huber_loss', 'delta' must be greater than 0.0, but got {delta}")
    z = F.abs(F.sub(input, target))
    loss = F.select(F.less(z, delta), F.mul(F.square(z), 0.5), F.mul(F.sub(z, 0.5 * delta), delta))
    return reduce_loss(loss, reduction)


@_mixed.amp_class("full")       # amp_level='auto' (ops/amp_auto.py)
def kl_div(logits, labels, reduction="mean"):
    """target * (log(target) - x), 0 where target is 0; 'mean' over elements, 'batchmean' over
    the first axis."""
    check_reduction("kl_div", reduction, ("none", "mean", "batchmean", "sum"))
    positive = F.greater(labels, 0)
    loss = F.select(positive, F.mul(labels, F.sub(F.log(labels), logits)), 0.0)
    if reduction == "none":
        return loss
    total = F.sum(loss)
    shape = _tt("kl_div", logits, "logits").shape
    if reduction == "mean":
        return F.div(total, float(np.prod(shape, dtype=np.int64)))
    if reduction == "batchmean":
        return F.div(total, float(shape[0]) if shape else 1.0)
    return total


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -y (x1 - x2) + margin)."""
    check_reduction("margin_ranking_loss", reduction)
    loss = F.maximum(F.add(F.neg(F.mul(target, F.sub(input1, input2))), margin), 0.0)
    return reduce_loss(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """y = 1: 1 - cos(x1, x2); y = -1: max(0, cos(x1, x2) - margin); cosine along axis 1."""
    check_reduction("cosine_embedding_loss", reduction)
    if not -1.0 <= margin <= 1.0:
        raise OpValueError(f"For ops.cosine_embedding_loss, the value of 'margin' should be in [-1, 1],but got {margin}.")
    prod = F.sum(F.mul(input1, input2), 1)
    denom = F.mul(F.sqrt(F.sum(F.square(input1), 1)), F.sqrt(F.sum(F.square(input2), 1)))
    cosine = F.div(prod, denom)
    pos = F.select(F.equal(target, 1), F.sub(1.0, cosine), 0.0)
    neg = F.select(F.equal(target, -1), F.maximum(F.sub(cosine, margin), 0.0), 0.0)
    return reduce_loss(F.add(pos, neg), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """mean over classes of y softplus(-x) + (1 - y) softplus(x)."""
    check_reduction("multilabel_soft_margin_loss", reduction)
    loss = F.add(F.mul(target, softplus_row(F.neg(input))), F.mul(F.sub(1.0, target), softplus_row(input)))
    if weight is not None:
        loss = F.mul(loss, weight)
    shape = _tt("multilabel_soft_margin_loss", input).shape
    loss = F.div(F.sum(loss, len(shape) - 1), float(shape[-1]))
    return reduce_loss(loss, reduction)


def soft_margin_loss(input, target, reduction="mean"):
    """log(1 + exp(-y x)), reduced."""
    check_reduction("soft_margin_loss", reduction)
    return reduce_loss(softplus_row(F.neg(F.mul(target, input))), reduction)


def _pairwise_distance(x, y, p, eps):
    """||x - y + eps||_p along the last axis (PyTorch's pairwise_distance, which MindSpore's
    TripletMarginLoss follows)."""
    d = F.add(F.sub(x, y), eps)
    last = len(_tt("triplet_margin_loss", x).shape) - 1
    if p == 1:
        return F.sum(F.abs(d), last)
    if p == 2:
        return F.sqrt(F.sum(F.square(d), last))
    return F.pow(F.sum(F.pow(F.abs(d), float(p)), last), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0), d the p-norm distance along the last axis; with
    `swap`, d(a, n) is min(d(a, n), d(p, n))."""
    check_reduction("triplet_margin_loss", reduction)
    if p <= 0:
        raise OpValueError(f"For 'TripletMarginLoss', 'p' must be positive, but got {p}")
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = F.minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    loss = F.maximum(F.add(F.sub(d_pos, d_neg), margin), 0.0)
    return reduce_loss(loss, reduction)


def l2_loss(x):
    """sum(x^2) / 2 (MindSpore's L2Loss)."""
    return F.div(F.sum(F.square(x)), 2)


__all__ = ["nll_loss", "cross_entropy", "binary_cross_entropy_with_logits", "binary_cross_entropy",
           "smooth_l1_loss", "huber_loss", "kl_div", "margin_ranking_loss", "cosine_embedding_loss",
           "multilabel_soft_margin_loss", "soft_margin_loss", "triplet_margin_loss"]
