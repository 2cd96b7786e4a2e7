"""The activation functions and the loss functions of `ops` (ops/function_activation.py,
ops/function_loss.py) compiled, eagerly, and against NumPy formulas written here: every argument
MindSpore 2.10 has (alpha, beta / threshold, axes, class weights, ignore_index, label smoothing,
reductions, pos_weight ...). A few checks also confirm that a reduced loss compiles to a single
reduction kernel fed inline by its elementwise part."""
from __future__ import annotations

import numpy as np
import pytest

from opcheck import F16, F32, F64, TOL_REDUCE, Check, Group, params

import pycompile as ms
from pycompile import Tensor, ops

R = np.random.default_rng(7)


def u(*shape, lo=-3.0, hi=3.0, dtype=F32):
    return R.uniform(lo, hi, size=shape).astype(dtype)


def f64(fn):
    """A reference computed in float64 from arrays of any dtype."""
    return lambda *a: fn(*[np.asarray(x, np.float64) if np.asarray(x).dtype.kind == "f" else x for x in a])


def as32(fn):
    """The float64 reference rounded to float32 (each result of a tuple)."""
    def ref(*a):
        out = f64(fn)(*a)
        if isinstance(out, tuple):
            return tuple(np.asarray(o).astype(np.float32) for o in out)
        return np.asarray(out).astype(np.float32)
    return ref


def sp(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis):
    return np.log(softmax(x, axis))


# ---- activations ------------------------------------------------------------------------------
X = u(4, 6)
X16 = u(3, 8, dtype=F16)
XI = R.integers(-5, 6, size=(2, 5)).astype(np.int32)

ACTIVATION_CHECKS = [
    Check("leaky_relu", ("Maximum", "Mul"), lambda x: ops.leaky_relu(x), X, as32(lambda x: np.maximum(0.2 * x, x))),
    Check("leaky_relu alpha 0.01", ("Maximum",), lambda x: ops.leaky_relu(x, 0.01), X,
          as32(lambda x: np.where(x > 0, x, 0.01 * x))),
    Check("leaky_relu alpha 1.5 (min)", ("Minimum",), lambda x: ops.leaky_relu(x, 1.5), X,
          as32(lambda x: np.minimum(1.5 * x, x))),
    Check("leaky_relu int32", ("Maximum",), lambda x: ops.leaky_relu(x, 0.2), XI, lambda x: np.maximum(x, 0)),
    Check("hardtanh", ("Maximum", "Minimum"), lambda x: (ops.hardtanh(x), ops.hardtanh(x, -0.5, 1.5)), X,
          lambda x: (np.clip(x, -1, 1), np.clip(x, -0.5, 1.5))),
    Check("hardtanh int32 keeps int32", ("Minimum",), lambda x: ops.hardtanh(x, -2, 3), XI, lambda x: np.clip(x, -2, 3)),
    Check("softplus beta threshold", ("Softplus", "Select"),
          lambda x: (ops.softplus(x), ops.softplus(x * 10, beta=2, threshold=10), ops.softplus(x, 0.5, 1)), X,
          as32(lambda x: (sp(x), np.where(20 * x > 10, 10 * x, sp(20 * x) / 2), np.where(0.5 * x > 1, x, sp(0.5 * x) / 0.5)))),
    Check("celu", ("Elu",), lambda x: (ops.celu(x), ops.celu(x, 0.5), ops.celu(x, 2.0)), X,
          as32(lambda x: tuple(np.maximum(x, 0) + np.minimum(0, a * (np.exp(x / a) - 1)) for a in (1.0, 0.5, 2.0)))),
    Check("tanhshrink", ("Tanh", "Sub"), ops.tanhshrink, X, as32(lambda x: x - np.tanh(x))),
    Check("softmin", ("Softmax", "Neg"), lambda x: (ops.softmin(x), ops.softmin(x, 0)), X,
          as32(lambda x: (softmax(-x, -1), softmax(-x, 0)))),
    Check("softmin dtype", ("Softmax", "Cast"), lambda x: ops.softmin(x, axis=1, dtype=ms.float64), X,
          f64(lambda x: softmax(-x, 1))),
    Check("glu", ("Sigmoid", "StridedSlice"), lambda x: (ops.glu(x), ops.glu(x, 0), ops.glu(x, axis=-2)), X,
          as32(lambda x: (x[:, :3] / (1 + np.exp(-x[:, 3:])), x[:2] / (1 + np.exp(-x[2:])),
                          x[:2] / (1 + np.exp(-x[2:]))))),
    Check("prelu per channel", ("Select",), ops.prelu, (u(2, 3, 4), u(3, lo=0, hi=0.5)),
          as32(lambda x, w: np.where(x > 0, x, w[:, None] * x))),
    Check("prelu shared 2-D", ("Select",), ops.prelu, (u(2, 3), np.array([0.25], F32)),
          as32(lambda x, w: np.where(x > 0, x, 0.25 * x))),
    Check("prelu 1-D", ("Select",), ops.PReLU(), (u(5), np.array([0.1], F32)), as32(lambda x, w: np.where(x > 0, x, 0.1 * x))),
    Check("CeLU / Elu classes", ("Elu",), lambda x: (ops.CeLU(0.3)(x), ops.Elu()(x)), X,
          as32(lambda x: (np.where(x > 0, x, 0.3 * np.expm1(x / 0.3)), np.where(x > 0, x, np.expm1(x))))),
    Check("float16 activations", ("SiLU", "Mish", "Maximum"),
          lambda x: (ops.silu(x), ops.mish(x), ops.leaky_relu(x, 0.1), ops.celu(x, 0.5)), (X16,),
          lambda x: tuple(np.asarray(v).astype(F16) for v in f64(lambda x: (
              x / (1 + np.exp(-x)), x * np.tanh(sp(x)), np.maximum(0.1 * x, x),
              np.where(x > 0, x, 0.5 * np.expm1(x / 0.5))))(x))),
]

# ---- losses -----------------------------------------------------------------------------------
N, C = 6, 5
LOGITS = u(N, C)
LABELS = np.array([1, 0, 4, 2, 4, 3], np.int32)
W = np.array([1.0, 2.0, 0.5, 1.5, 1.0], F32)
PROBS = u(N, C, lo=0.0, hi=1.0)
LOGITS4 = u(2, C, 3, 2)
LABELS4 = R.integers(0, C, size=(2, 3, 2)).astype(np.int64)


def ref_nll(logp, t, w=None, ignore=-100, red="mean", ls=0.0, axis=1):
    t = np.asarray(t)
    valid = t != ignore
    ts = np.where(valid, t, 0)
    picked = np.take_along_axis(logp, np.expand_dims(ts, axis), axis).squeeze(axis)
    wt = (w[ts] if w is not None else np.ones(ts.shape)) * valid
    loss = -picked * wt
    shape = [1] * logp.ndim
    shape[axis] = -1
    wb = w.reshape(shape) if w is not None else 1.0
    smooth = -(logp * wb).sum(axis) * valid
    if red == "sum":
        loss, smooth = loss.sum(), smooth.sum()
    elif red == "mean":
        loss, smooth = loss.sum() / wt.sum(), smooth.sum() / wt.sum()
    return (1 - ls) * loss + ls / logp.shape[axis] * smooth


def ref_ce(x, t, w=None, ignore=-100, red="mean", ls=0.0):
    axis = 0 if x.ndim == 1 else 1
    return ref_nll(log_softmax(x, axis), t, w, ignore, red, ls, axis)


def ref_ce_probs(x, p, w=None, red="mean", ls=0.0):
    c = x.shape[1]
    p = p * (1 - ls) + ls / c if ls else p
    prod = log_softmax(x, 1) * p * (w if w is not None else 1.0)
    if red == "mean":
        return -prod.sum() / (x.size / c)
    return -prod.sum() if red == "sum" else -prod.sum(1)


def reduce(x, red):
    return x.mean() if red == "mean" else x.sum() if red == "sum" else x


LOSS_CHECKS = [
    Check("cross_entropy reductions", ("LogSoftmax", "Gather", "ReduceSum"),
          lambda x, t: tuple(ops.cross_entropy(x, t, reduction=r) for r in ("mean", "sum", "none")),
          (LOGITS, LABELS), as32(lambda x, t: tuple(ref_ce(x, t, red=r) for r in ("mean", "sum", "none")))),
    Check("cross_entropy weight ignore smoothing", ("LogSoftmax",),
          lambda x, t, w: (ops.cross_entropy(x, t, w, ignore_index=4), ops.cross_entropy(x, t, w, 4, "sum", 0.2),
                           ops.cross_entropy(x, t, None, 0, "none", 0.1), ops.cross_entropy(x, t, label_smoothing=0.3)),
          (LOGITS, LABELS, W),
          as32(lambda x, t, w: (ref_ce(x, t, w, 4), ref_ce(x, t, w, 4, "sum", 0.2), ref_ce(x, t, None, 0, "none", 0.1),
                                ref_ce(x, t, ls=0.3)))),
    Check("cross_entropy probabilities", ("LogSoftmax",),
          lambda x, p, w: (ops.cross_entropy(x, p), ops.cross_entropy(x, p, w, reduction="none", label_smoothing=0.2),
                           ops.cross_entropy(x, p, reduction="sum")),
          (LOGITS, PROBS, W),
          as32(lambda x, p, w: (ref_ce_probs(x, p), ref_ce_probs(x, p, w, "none", 0.2), ref_ce_probs(x, p, red="sum")))),
    Check("cross_entropy 4-D (N, C, H, W)", ("LogSoftmax", "Gather"),
          lambda x, t: (ops.cross_entropy(x, t), ops.cross_entropy(x, t, reduction="none")), (LOGITS4, LABELS4),
          as32(lambda x, t: (ref_ce(x, t), ref_ce(x, t, red="none")))),
    Check("cross_entropy 1-D", ("LogSoftmax",), lambda x, t: ops.cross_entropy(x, t), (u(C), np.array(3, np.int64)),
          as32(lambda x, t: -log_softmax(x, 0)[3])),
    Check("nll_loss", ("Gather", "ReduceSum"),
          lambda x, t, w: (ops.nll_loss(x, t), ops.nll_loss(x, t, w, 1, "sum"), ops.nll_loss(x, t, reduction="none"),
                           ops.nll_loss(x, t, w, label_smoothing=0.1)),
          (LOGITS, LABELS, W),
          as32(lambda x, t, w: (ref_nll(x, t), ref_nll(x, t, w, 1, "sum"), ref_nll(x, t, red="none"),
                                ref_nll(x, t, w, ls=0.1)))),
    Check("binary_cross_entropy_with_logits", ("Softplus",),
          lambda x, t, w, pw: (ops.binary_cross_entropy_with_logits(x, t),
                               ops.binary_cross_entropy_with_logits(x, t, w, pw, "none"),
                               ops.binary_cross_entropy_with_logits(x, t, None, pw, "sum")),
          (u(3, 4, lo=-40, hi=40), u(3, 4, lo=0, hi=1), u(4, lo=0.5, hi=2), u(4, lo=0.5, hi=2)),
          as32(lambda x, t, w, pw: (
              (-(t * -sp(-x) + (1 - t) * -sp(x))).mean(), -w * (pw * t * -sp(-x) + (1 - t) * -sp(x)),
              (-(pw * t * -sp(-x) + (1 - t) * -sp(x))).sum()))),
    Check("SigmoidCrossEntropyWithLogits", ("Softplus",), ops.SigmoidCrossEntropyWithLogits(),
          (u(3, 4, lo=-40, hi=40), u(3, 4, lo=0, hi=1)), as32(lambda x, t: sp(x) - x * t)),
    Check("binary_cross_entropy", ("Log", "Maximum"),
          lambda p, t, w: (ops.binary_cross_entropy(p, t), ops.binary_cross_entropy(p, t, w, "sum"),
                           ops.BinaryCrossEntropy("none")(p, t), ops.BinaryCrossEntropy()(p, t, w)),
          (np.array([[0.0, 1.0, 0.3], [0.9, 0.5, 1e-30]], F32), np.array([[1.0, 0.0, 0.2], [1.0, 0.5, 0.0]], F32),
           np.array([1.0, 2.0, 0.5], F32)),
          as32(lambda p, t, w: tuple(
              reduce(-(t * np.log(np.maximum(p, 1e-12)) + (1 - t) * np.log(np.maximum(1 - p, 1e-12))) * ww, r)
              for ww, r in ((1, "mean"), (w, "sum"), (1, "none"), (w, "mean"))))),
    Check("smooth_l1 / huber", ("Select", "Abs"),
          lambda x, y: (ops.smooth_l1_loss(x, y), ops.smooth_l1_loss(x, y, 0.5, "mean"), ops.smooth_l1_loss(x, y, 0.0, "sum"),
                        ops.SmoothL1Loss(2.0, "sum")(x, y), ops.huber_loss(x, y), ops.huber_loss(x, y, "none", 0.5)),
          (u(3, 4), u(3, 4)),
          as32(lambda x, y: (
              np.where(np.abs(x - y) < 1, 0.5 * (x - y) ** 2, np.abs(x - y) - 0.5),
              np.where(np.abs(x - y) < 0.5, (x - y) ** 2, np.abs(x - y) - 0.25).mean(), np.abs(x - y).sum(),
              np.where(np.abs(x - y) < 2, 0.25 * (x - y) ** 2, np.abs(x - y) - 1).sum(),
              np.where(np.abs(x - y) < 1, 0.5 * (x - y) ** 2, np.abs(x - y) - 0.5).mean(),
              np.where(np.abs(x - y) < 0.5, 0.5 * (x - y) ** 2, 0.5 * (np.abs(x - y) - 0.25))))),
    Check("kl_div", ("Log", "Select"),
          lambda x, t: (ops.kl_div(x, t), ops.kl_div(x, t, "batchmean"), ops.kl_div(x, t, "sum"), ops.kl_div(x, t, "none"),
                        ops.KLDivLoss("mean")(x, t)),
          (u(3, 4, lo=-3, hi=-0.1), np.array([[0.0, 0.5, 0.2, 1.0], [0.3, 0.0, 0.7, 0.1], [0.2, 0.2, 0.0, 0.6]], F32)),
          as32(lambda x, t: (lambda l: (l.mean(), l.sum() / 3, l.sum(), l, l.mean()))(
              np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0)))),
    Check("margin_ranking / cosine_embedding", ("Maximum", "Sqrt"),
          lambda a, b, y, c, d, z: (ops.margin_ranking_loss(a, b, y, 0.3), ops.margin_ranking_loss(a, b, y, 0.0, "none"),
                                    ops.cosine_embedding_loss(c, d, z, 0.2), ops.cosine_embedding_loss(c, d, z, 0.0, "none")),
          (u(6), u(6), np.array([1, -1, 1, 1, -1, -1], F32), u(3, 5), u(3, 5), np.array([1, -1, -1], np.int32)),
          as32(lambda a, b, y, c, d, z: (
              np.maximum(-y * (a - b) + 0.3, 0).mean(), np.maximum(-y * (a - b), 0),
              *(lambda cos: (np.where(z == 1, 1 - cos, np.maximum(cos - 0.2, 0)).mean(),
                             np.where(z == 1, 1 - cos, np.maximum(cos, 0))))(
                  (c * d).sum(1) / np.sqrt((c * c).sum(1) * (d * d).sum(1)))))),
    Check("multilabel / soft margin", ("Softplus",),
          lambda x, t, w, y: (ops.multilabel_soft_margin_loss(x, t), ops.multilabel_soft_margin_loss(x, t, w, "none"),
                              ops.soft_margin_loss(x, y), ops.soft_margin_loss(x, y, "sum")),
          (u(3, 4), np.array([[1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 1, 0]], F32), u(4, lo=0.5, hi=2),
           np.array([[1, -1, 1, 1], [-1, -1, 1, -1], [1, 1, -1, 1]], F32)),
          as32(lambda x, t, w, y: ((t * sp(-x) + (1 - t) * sp(x)).mean(1).mean(),
                                   ((t * sp(-x) + (1 - t) * sp(x)) * w).mean(1), sp(-y * x).mean(), sp(-y * x).sum()))),
    Check("triplet_margin_loss", ("Sqrt", "Maximum"),
          lambda a, p, n: (ops.triplet_margin_loss(a, p, n), ops.triplet_margin_loss(a, p, n, 0.5, 1, swap=True),
                           ops.triplet_margin_loss(a, p, n, 1.0, 3, reduction="none")),
          (u(4, 5), u(4, 5), u(4, 5)),
          as32(lambda a, p, n: (
              np.maximum(np.linalg.norm(a - p + 1e-6, axis=1) - np.linalg.norm(a - n + 1e-6, axis=1) + 1, 0).mean(),
              np.maximum(np.abs(a - p + 1e-6).sum(1) - np.minimum(np.abs(a - n + 1e-6).sum(1),
                                                                   np.abs(p - n + 1e-6).sum(1)) + 0.5, 0).mean(),
              np.maximum(np.linalg.norm(a - p + 1e-6, 3, axis=1) - np.linalg.norm(a - n + 1e-6, 3, axis=1) + 1, 0)))),
    Check("L2Loss", ("ReduceSum",), ops.L2Loss(), (u(3, 4),), as32(lambda x: (x * x).sum() / 2)),
]

GROUPS = [Group("activation_functions", ACTIVATION_CHECKS), Group("loss_functions", LOSS_CHECKS)]
for _g in GROUPS:
    _g.checks = [Check(c.name, c.ops, c.fn, c.args if isinstance(c.args, tuple) else (c.args,), c.ref, TOL_REDUCE)
                 for c in _g.checks]


@pytest.mark.parametrize("group, name", params(GROUPS))
def test_nn_function_compiled(group, name):
    group.run(name)


def smooth_l1_mean(x, y):
    return ops.smooth_l1_loss(x, y, 0.5, "mean")


def bce_logits_sum(x, t):
    return ops.binary_cross_entropy_with_logits(x, t, reduction="sum")


def test_reduced_losses_are_one_reduction_kernel():
    """Elementwise part and reduction in one kernel (one Fused node ending in the reduction):
    no temporary of the input's size."""
    from pycompile.compiler import ir
    x, y = u(64, 32), u(64, 32, lo=0, hi=1)
    for fn in (smooth_l1_mean, bce_logits_sum):
        report = ms.inspect(fn, Tensor(x), Tensor(y))
        top = [n for n in report.graph_after.body.nodes if n.op is not ir.GETITEM]
        assert len(top) == 1 and top[0].op is ir.FUSED, (fn.__name__, report.ir_after)
        assert top[0].blocks[0].nodes[-1].op.name in ("ReduceMean", "ReduceSum"), report.ir_after
