"""Losses: MSELoss, L1Loss, SoftmaxCrossEntropyWithLogits (MindSpore's signatures and defaults)."""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell


class LossBase(Cell):
    def __init__(self, reduction: str = "mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For '{type(self).__name__}', 'reduction' must be 'mean', 'sum' or 'none', "
                             f"but got {reduction!r}")
        self.reduction = reduction

    def get_loss(self, x):
        if self.reduction == "mean":
            return ops.mean(x)
        if self.reduction == "sum":
            return ops.sum(x)
        return x


class MSELoss(LossBase):
    def construct(self, logits, labels):
        return self.get_loss(ops.square(logits - labels))


class L1Loss(LossBase):
    def construct(self, logits, labels):
        return self.get_loss(ops.abs(logits - labels))


class SoftmaxCrossEntropyWithLogits(LossBase):
    """-sum(labels * log_softmax(logits), axis=-1); with sparse=True labels are class indices."""

    def __init__(self, sparse: bool = False, reduction: str = "none"):
        super().__init__(reduction)
        self.sparse = sparse

    def construct(self, logits, labels):
        if self.sparse:
            num_classes = logits.shape[-1]
            classes = Tensor(np.arange(num_classes, dtype=np.int64))
            labels = ops.cast(ops.equal(ops.expand_dims(ops.cast(labels, mstype.int64), -1), classes), logits.dtype)
        loss = ops.neg(ops.sum(labels * ops.log_softmax(logits, -1), -1))
        return self.get_loss(loss)
