"""Losses against NumPy: MSELoss, L1Loss, SoftmaxCrossEntropyWithLogits."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn

LOGITS = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [0.0, 0.0, 0.0]], np.float32)
ONEHOT = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], np.float32)
SPARSE = np.array([1, 2, 0])
REDUCE = {"mean": np.mean, "sum": np.sum, "none": lambda v: v}


def close(t, expected, rtol=1e-6):
    assert isinstance(t, Tensor) and t.dtype == ms.float32 and t.shape == np.shape(expected)
    np.testing.assert_allclose(t.asnumpy(), expected, rtol=rtol, atol=1e-7)


def _cross_entropy(logits, labels):
    x = logits.astype(np.float64)
    log_p = x - x.max(-1, keepdims=True)
    log_p = log_p - np.log(np.exp(log_p).sum(-1, keepdims=True))
    return -(labels * log_p).sum(-1)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_and_l1(reduction):
    pred = LOGITS
    target = ONEHOT * 2 - 0.5
    close(nn.MSELoss(reduction=reduction)(Tensor(pred), Tensor(target)),
          REDUCE[reduction]((pred - target) ** 2).astype(np.float32))
    close(nn.L1Loss(reduction=reduction)(Tensor(pred), Tensor(target)),
          REDUCE[reduction](np.abs(pred - target)).astype(np.float32))


def test_mse_default_is_mean_and_broadcasts():
    target = np.ones(3, np.float32)
    close(nn.MSELoss()(Tensor(LOGITS), Tensor(target)), np.float32(((LOGITS - target) ** 2).mean()))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_softmax_cross_entropy_dense_labels(reduction):
    loss = nn.SoftmaxCrossEntropyWithLogits(reduction=reduction)
    close(loss(Tensor(LOGITS), Tensor(ONEHOT)),
          REDUCE[reduction](_cross_entropy(LOGITS, ONEHOT)).astype(np.float32), rtol=1e-5)


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_softmax_cross_entropy_sparse_labels(reduction, label_dtype):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
    close(loss(Tensor(LOGITS), Tensor(SPARSE.astype(label_dtype))),
          REDUCE[reduction](_cross_entropy(LOGITS, np.eye(3)[SPARSE])).astype(np.float32), rtol=1e-5)


def test_softmax_cross_entropy_values_match_mindspore():
    logits, labels = Tensor(LOGITS[:2]), Tensor(np.array([1, 2], np.int32))
    # MindSpore 2.10: sparse, reduction 'none' -> [0.4643688, 0.07077423]; 'mean' -> 0.2675712
    close(nn.SoftmaxCrossEntropyWithLogits(sparse=True)(logits, labels), [0.4643688, 0.07077423], rtol=1e-6)
    close(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(logits, labels), np.float32(0.2675712),
          rtol=1e-6)


def test_softmax_cross_entropy_is_stable_for_large_logits():
    logits = np.array([[1000.0, 0.0], [-1000.0, 1000.0]], np.float32)
    out = nn.SoftmaxCrossEntropyWithLogits(sparse=True)(Tensor(logits), Tensor(np.array([0, 0])))
    np.testing.assert_allclose(out.asnumpy(), [0.0, 2000.0])


def test_loss_errors():
    with pytest.raises(ValueError, match="For 'MSELoss', 'reduction'.*'avg'"):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match=r"For 'Sub'.*\[3, 3\].*\[2\]"):
        nn.L1Loss()(Tensor(LOGITS), Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="For 'LogSoftmax'.*Int64"):
        nn.SoftmaxCrossEntropyWithLogits()(Tensor([[1, 2]]), Tensor([[0, 1]]))
