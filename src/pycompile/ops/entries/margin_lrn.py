"""multi_margin_loss (and the MultiMarginLoss Primitive) and lrn (and LRN), composed as MindSpore
2.10 documents them; values recorded in tests/conformance/cases_layers.py."""
import pycompile.ops as ops
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry


def _reduction(op, reduction):
    if reduction not in ("mean", "sum", "none"):
        raise OpValueError(f"For '{op}', the 'reduction' must be in ['mean', 'sum', 'none'], but got {reduction}.")


def _int_margin(margin, op):
    if not isinstance(margin, int) or isinstance(margin, bool):
        raise OpTypeError(f"For 'multi_margin_loss', the type of 'margin' must be int, but got {type(margin)}.")


@op_entry("multi_margin_loss",
          args=[Arg("input"), Arg("target"), Arg("p", "value", default=1), Arg("margin", "value", default=1, check=_int_margin),
                Arg("weight", "value", default=None), Arg("reduction", "value", default="mean")])
def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    """Per sample: sum over the classes j other than the target y of max(0, margin - x[y] + x[j]) ** p
    (times weight[y]), divided by the number of classes; then averaged, summed or kept."""
    return _multi_margin(input, target, p, float(margin), weight, reduction)


def _multi_margin(input, target, p, margin, weight, reduction):
    if p not in (1, 2):
        raise OpValueError(f"For 'MultiMarginLoss', the 'p' must be 1 or 2, but got {p}.")
    _reduction("MultiMarginLoss", reduction)
    n, c = input.shape
    hot = F.cast(ops.one_hot(target, c, 1.0, 0.0), input.dtype)
    picked = ops.sum(input * hot, 1, keepdim=True)                   # x[y], (n, 1)
    terms = F.maximum(margin - picked + input, 0.0)
    if p == 2:
        terms = terms * terms
    terms = terms * (1.0 - hot)                                      # j == y does not count
    if weight is not None:
        terms = terms * ops.sum(hot * F.reshape(weight, (1, c)), 1, keepdim=True)
    loss = ops.sum(terms, 1) / float(c)
    return loss if reduction == "none" else ops.mean(loss) if reduction == "mean" else ops.sum(loss)


@op_entry("multi_margin_loss_prim", primitive="MultiMarginLoss", functional=False,
          args=[Arg("input"), Arg("target"), Arg("weight", "value", default=None),
                Arg("p", "value", default=1, init=True), Arg("margin", "value", default=1.0, init=True),
                Arg("reduction", "value", default="mean", init=True)])
def multi_margin_loss_prim(input, target, weight=None, p=1, margin=1.0, reduction="mean"):
    """The Primitive form: MultiMarginLoss(p, margin, reduction)(input, target, weight)."""
    return _multi_margin(input, target, p, float(margin), weight, reduction)


@op_entry("lrn", primitive="LRN",
          args=[Arg("x"), Arg("depth_radius", "value", default=5, init=True), Arg("bias", "value", default=1.0, init=True),
                Arg("alpha", "value", default=1.0, init=True), Arg("beta", "value", default=0.5, init=True),
                Arg("norm_region", "value", default="ACROSS_CHANNELS", init=True)])
def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalization across channels of an (N, C, H, W) input:
    x / (bias + alpha * sum of x² over channels [c - r, c + r]) ** beta."""
    if norm_region != "ACROSS_CHANNELS":
        raise OpValueError(f"For 'LRN', the 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region}.")
    if x.ndim != 4:
        raise OpValueError(f"For 'LRN', the dimension of 'x' must be 4, but got {x.ndim}.")
    c = x.shape[1]
    sq = F.square(x)
    padded = ops.pad(sq, (0, 0, 0, 0, depth_radius, depth_radius))
    window = ops.addn([ops.narrow(padded, 1, k, c) for k in range(2 * depth_radius + 1)])
    return x / F.pow(bias + alpha * window, beta)
