"""FloatStatus (whether a tensor holds NaN or +-inf: float32 [1.] or [0.], MindSpore's documented
GPU op; its CPU wheel has no kernel, so tests/ops/test_status_xent.py checks it against NumPy) and
SoftmaxCrossEntropyWithLogits (per-row cross entropy of softmax(logits) against dense labels, and
its gradient softmax - labels, as MindSpore returns both; recorded in cases_internal.py)."""
import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.entry import Arg, op_entry

_FLOATS = frozenset({mstype.float16, mstype.float32, mstype.float64})


@op_entry("float_status", primitive="FloatStatus", functional=False, args=[Arg("x", dtypes=_FLOATS)])
def float_status(x):
    """[1.] (float32) when x has a NaN or an infinity, else [0.]."""
    bad = F.logical_not(ops.isfinite(x)).any()
    return F.reshape(F.cast(bad, mstype.float32), (1,))


@op_entry("softmax_cross_entropy_with_logits", primitive="SoftmaxCrossEntropyWithLogits", functional=False,
          args=[Arg("logits", dtypes=frozenset({mstype.float16, mstype.float32})),
                Arg("labels", dtypes=frozenset({mstype.float16, mstype.float32}))])
def softmax_cross_entropy_with_logits(logits, labels):
    """(loss (N,), backprop (N, C)): loss = -sum(labels * log_softmax(logits), 1), backprop =
    softmax(logits) - labels."""
    if logits.ndim != 2 or tuple(logits.shape) != tuple(labels.shape):
        raise OpValueError(f"For 'SoftmaxCrossEntropyWithLogits', 'logits' and 'labels' must be 2-D of the same "
                           f"shape, but got {tuple(logits.shape)} and {tuple(labels.shape)}")
    logp = F.log_softmax(logits, 1)
    loss = F.neg(F.reduce_sum(F.mul(labels, logp), 1))
    return loss, F.sub(F.exp(logp), labels)
