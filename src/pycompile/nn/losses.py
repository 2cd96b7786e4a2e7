"""Loss Cells of MindSpore 2.10 (CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss,
SmoothL1Loss, HuberLoss, RMSELoss, MAELoss, KLDivLoss, CosineEmbeddingLoss, MarginRankingLoss,
MultiLabelSoftMarginLoss, SoftMarginLoss, TripletMarginLoss, FocalLoss, DiceLoss) with MindSpore's
constructor arguments and defaults. Each calls the loss function of `ops` (ops/function_loss.py),
whose compiled form is elementwise work feeding one reduction."""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell
from pycompile.nn.loss import LossBase, MSELoss


def _class_weight(owner: str, weight):
    if weight is None:
        return None
    if not isinstance(weight, Tensor):
        raise TypeError(f"For '{owner}', the type of 'weight' must be a Tensor, but got {type(weight).__name__}.")
    if weight.dtype.name not in ("Float16", "Float32"):
        raise TypeError(f"For '{owner}', the 'weight' must be a Float16 or Float32 Tensor, but got {weight.dtype}.")
    return weight


def _int(owner: str, what: str, v) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"For '{owner}', the '{what}' must be an int, but got {type(v).__name__}.")
    return v


class CrossEntropyLoss(LossBase):
    """Cross entropy of logits against class indices or class probabilities, with class weights,
    `ignore_index` and label smoothing."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight = _class_weight("CrossEntropyLoss", weight)
        self.ignore_index = _int("CrossEntropyLoss", "ignore_index", ignore_index)
        if not isinstance(label_smoothing, float) or not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For 'CrossEntropyLoss', 'label_smoothing' must be a float in [0.0, 1.0], "
                             f"but got {label_smoothing!r}.")
        self.label_smoothing = label_smoothing

    def construct(self, logits, labels):
        return ops.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


class NLLLoss(LossBase):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight = _class_weight("NLLLoss", weight)
        self.ignore_index = _int("NLLLoss", "ignore_index", ignore_index)

    def construct(self, logits, labels):
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCELoss(LossBase):
    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        return ops.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class BCEWithLogitsLoss(LossBase):
    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        for what, v in (("weight", weight), ("pos_weight", pos_weight)):
            if isinstance(v, Parameter):
                raise TypeError(f"For 'BCEWithLogitsLoss', the '{what}' can not be a Parameter.")
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits, labels):
        return ops.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight, self.reduction)


class SmoothL1Loss(LossBase):
    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = beta

    def construct(self, logits, labels):
        return ops.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(LossBase):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def construct(self, logits, labels):
        return ops.huber_loss(logits, labels, self.reduction, self.delta)


class RMSELoss(LossBase):
    """sqrt(mean((logits - labels)^2))."""

    def __init__(self):
        super().__init__()
        self.MSELoss = MSELoss()

    def construct(self, logits, label):
        return ops.sqrt(self.MSELoss(logits, label))


class MAELoss(LossBase):
    def construct(self, logits, label):
        return self.get_loss(ops.abs(logits - label))


class KLDivLoss(LossBase):
    def __init__(self, reduction="mean"):
        Cell.__init__(self)          # 'batchmean' is a reduction here too
        ops.function_loss.check_reduction("KLDivLoss", reduction, ("none", "mean", "batchmean", "sum"))
        self.reduction = reduction

    def construct(self, logits, labels):
        return ops.kl_div(logits, labels, self.reduction)


class CosineEmbeddingLoss(LossBase):
    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        if not isinstance(margin, float):
            raise TypeError(f"For 'CosineEmbeddingLoss', the 'margin' must be a float, but got {type(margin).__name__}.")
        if not -1.0 <= margin <= 1.0:
            raise ValueError(f"For 'CosineEmbeddingLoss', the 'margin' must be in range [-1.0, 1.0], but got {margin}.")
        self.margin = margin

    def construct(self, logits_x1, logits_x2, labels):
        return ops.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin, self.reduction)


class MarginRankingLoss(LossBase):
    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1, input2, target):
        return ops.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x, target):
        return ops.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class SoftMarginLoss(LossBase):
    """log(1 + exp(-y x)), reduced. (MindSpore 2.10's CPU build has no kernel for it.)"""

    def construct(self, logits, labels):
        return ops.soft_margin_loss(logits, labels, self.reduction)


class TripletMarginLoss(LossBase):
    """max(d(a, p) - d(a, n) + margin, 0). (MindSpore 2.10's CPU build has no kernel for it.)"""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__(reduction)
        self.p, self.swap, self.eps, self.margin = p, swap, eps, margin

    def construct(self, x, positive, negative, margin=1.0):
        if self.margin != 1.0:
            margin = self.margin
        return ops.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap, self.reduction)


class FocalLoss(LossBase):
    """(1 - p_t)^gamma-weighted cross entropy. `labels` has the logits' rank: a class index where
    the logits have the classes (labels.shape[1] == 1), or per-class targets of the logits'
    shape. The mean over the positions of each example is reduced by `reduction`."""

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(reduction)
        if not isinstance(gamma, float):
            raise TypeError(f"For 'FocalLoss', the 'gamma' must be a float, but got {type(gamma).__name__}.")
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"For 'FocalLoss', the type of 'weight' must be a Tensor, but got {type(weight).__name__}.")
        if isinstance(weight, Tensor) and weight.ndim != 1:
            raise ValueError(f"For 'FocalLoss', the dimension of 'weight' must be 1, but got {weight.ndim}.")
        self.weight, self.gamma = weight, gamma

    def construct(self, logits, labels):
        if logits.ndim != labels.ndim:
            raise ValueError(f"For 'FocalLoss', the dimensions of 'logits' and 'labels' must be equal, but got "
                             f"{logits.ndim} and {labels.ndim}.")
        if labels.shape[1] != 1 and labels.shape[1] != logits.shape[1]:
            raise ValueError(f"For 'FocalLoss', the channel of 'labels' must be 1 or the channel of 'logits' "
                             f"({logits.shape[1]}), but got {labels.shape[1]}.")
        n, c = logits.shape[0], logits.shape[1]
        logits = ops.reshape(logits, (n, c, -1))
        labels_v = ops.reshape(labels, (n, labels.shape[1], -1))
        logp = ops.log_softmax(logits, 1)
        index = labels.shape[1] == 1
        if index:
            onehot = ops.equal(ops.cast(labels_v, logp.dtype), Tensor(np.arange(c, dtype=np.float32).reshape(1, c, 1)))
            onehot = ops.cast(onehot, logp.dtype)
            logp = ops.sum(logp * onehot, 1)
        prob = ops.exp(logp)
        if self.weight is not None:
            w = ops.reshape(ops.cast(self.weight, logp.dtype), (1, c, 1))
            logp = logp * (ops.sum(w * onehot, 1) if index else w)
        focus = ops.pow(1.0 - prob, self.gamma)
        if index:
            loss = ops.mean(-(focus * logp), 1)
        else:
            loss = ops.mean(-(focus * ops.cast(labels_v, logp.dtype) * logp), -1)
        return self.get_loss(loss)


class DiceLoss(LossBase):
    """1 - 2 |x * y| / (|x|^2 + |y|^2 + smooth), over every element."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if not isinstance(smooth, float) or smooth <= 0:
            raise ValueError(f"For 'DiceLoss', 'smooth' must be a positive float, but got {smooth!r}.")
        self.smooth = smooth

    def construct(self, logits, label):
        if logits.shape != label.shape:
            raise ValueError(f"For 'DiceLoss', the 'logits' and 'labels' must have the same shape, but got "
                             f"{logits.shape} and {label.shape}.")
        intersection = ops.sum(logits * label)
        union = ops.sum(logits * logits) + ops.sum(label * label)
        return 1 - (2 * intersection) / (union + self.smooth)
