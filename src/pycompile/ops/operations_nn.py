"""Class forms of the activations and losses (`ops.Softplus()(x)`, `ops.SmoothL1Loss(beta,
reduction)(x, y)`, `ops.KLDivLoss('sum')(x, y)` ...), each calling the functional form so the two
cannot disagree."""
from __future__ import annotations

from pycompile.ops import function_activation as FA
from pycompile.ops import function_loss as FL
from pycompile.ops import function_math as FM
from pycompile.ops import functional as F
from pycompile.ops.primitive import Primitive, _simple

Softplus = _simple("Softplus", lambda x: FA.softplus(x))
ReLU6 = _simple("ReLU6", FA.relu6)
SeLU = _simple("SeLU", FA.selu)
Mish = _simple("Mish", FA.mish)
Softsign = _simple("Softsign", FA.softsign)
PReLU = _simple("PReLU", FA.prelu)
SigmoidCrossEntropyWithLogits = _simple("SigmoidCrossEntropyWithLogits", FL.sigmoid_cross_entropy_with_logits)
L2Loss = _simple("L2Loss", FL.l2_loss)


class Elu(Primitive):
    """MindSpore's CPU Elu takes only alpha = 1.0 (checked when called, as MindSpore does)."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def __call__(self, x):
        return FA.elu(x, self.alpha)


class CeLU(Primitive):
    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def __call__(self, x):
        return FA.celu(x, self.alpha)


class SmoothL1Loss(Primitive):
    def __init__(self, beta=1.0, reduction="none"):
        super().__init__()
        FL.check_reduction("SmoothL1Loss", reduction)
        self.beta, self.reduction = beta, reduction

    def __call__(self, logits, labels):
        return FL.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class KLDivLoss(Primitive):
    def __init__(self, reduction="mean"):
        super().__init__()
        FL.check_reduction("KLDivLoss", reduction, ("none", "mean", "batchmean", "sum"))
        self.reduction = reduction

    def __call__(self, logits, labels):
        return FL.kl_div(logits, labels, self.reduction)


class BinaryCrossEntropy(Primitive):
    def __init__(self, reduction="mean"):
        super().__init__()
        FL.check_reduction("BinaryCrossEntropy", reduction)
        self.reduction = reduction

    def __call__(self, logits, labels, weight=None):
        return FL.binary_cross_entropy(logits, labels, weight, self.reduction)


class BCEWithLogitsLoss(Primitive):
    """BCEWithLogitsLoss(reduction)(logits, label, weight, pos_weight): ops.binary_cross_entropy_with_logits."""

    def __init__(self, reduction="mean"):
        super().__init__()
        FL.check_reduction("BCEWithLogitsLoss", reduction)
        self.reduction = reduction

    def __call__(self, logits, label, weight, pos_weight):
        return FL.binary_cross_entropy_with_logits(logits, label, weight, pos_weight, self.reduction)


class LayerNorm(Primitive):
    """LayerNorm(begin_norm_axis, begin_params_axis, epsilon)(x, gamma, beta): (y, mean, variance),
    mean and variance over the axes from begin_norm_axis on, kept as size-1 dimensions."""

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__()
        for what, v in (("begin_norm_axis", begin_norm_axis), ("begin_params_axis", begin_params_axis)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'LayerNorm', '{what}' must be an int, but got {v!r}")
        self.begin_norm_axis, self.begin_params_axis, self.epsilon = begin_norm_axis, begin_params_axis, float(epsilon)

    def __call__(self, x, gamma, beta):
        t = F._tensor_type("LayerNorm", x, "x")
        a, p = self.begin_norm_axis, self.begin_params_axis
        if not -t.ndim <= a < t.ndim or not -t.ndim <= p < t.ndim:
            raise ValueError(f"For 'LayerNorm', 'begin_norm_axis' and 'begin_params_axis' must be in [{-t.ndim}, "
                             f"{t.ndim}), but got {a} and {p}")
        a, p = a % t.ndim, p % t.ndim
        axes = tuple(range(a, t.ndim))
        mean = F.mean(x, axes, True)
        centered = F.sub(x, mean)
        var = F.mean(F.square(centered), axes, True)
        shape = (1,) * p + tuple(t.shape[p:])
        y = F.add(F.mul(F.mul(centered, F.rsqrt(F.add(var, self.epsilon))), F.reshape(gamma, shape)),
                  F.reshape(beta, shape))
        return y, mean, var


FastGeLU = _simple("FastGeLU", FA.fast_gelu)


class Size(Primitive):
    """The number of elements of a tensor, as a Python int."""

    def __call__(self, input_x):
        return FM.size(input_x)


class Cdist(Primitive):
    def __init__(self, p=2.0):
        super().__init__()
        self.p = p

    def __call__(self, input_x, input_y):
        return FM.cdist(input_x, input_y, self.p)


__all__ = ["FastGeLU", "Size", "Cdist", "LayerNorm", "BCEWithLogitsLoss", "Softplus", "ReLU6", "SeLU", "Mish", "Softsign", "PReLU", "SigmoidCrossEntropyWithLogits", "L2Loss",
           "Elu", "CeLU", "SmoothL1Loss", "KLDivLoss", "BinaryCrossEntropy"]
