"""Activations and losses MindSpore 2.10 composes from others: hardshrink, softshrink,
threshold, l1_loss, mse_loss. Values recorded in tests/conformance/cases_entries.py."""
import pycompile.ops as ops
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.entry import Arg, op_entry


@op_entry("hardshrink", tensor_method=True, args=[Arg("input"), Arg("lambd", "value", default=0.5)])
def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0 (nan gives 0)."""
    return ops.where(F.greater(F.abs(input), lambd), input, F.zeros_like(input))


@op_entry("softshrink", primitive="SoftShrink",
          args=[Arg("input"), Arg("lambd", "value", default=0.5, init=True)])
def softshrink(input, lambd=0.5):
    """input - lambd above lambd, input + lambd below -lambd, 0 between (nan gives 0)."""
    z = F.zeros_like(input)
    return ops.where(F.greater(input, lambd), input - lambd, ops.where(F.less(input, -lambd), input + lambd, z))


@op_entry("threshold", args=[Arg("input"), Arg("thr", "value"), Arg("value", "value")])
def threshold(input, thr, value):
    """input where input > thr, else `value` (nan gives `value`)."""
    return ops.where(F.greater(input, thr), input, F.fill(input.dtype, input.shape, value))


def _reduce(name, loss, reduction):
    if reduction not in ("mean", "sum", "none"):
        raise OpValueError(f"For {name}, the 'reduction' must be in ['mean', 'sum', 'none'], but got {reduction}.")
    return loss if reduction == "none" else ops.mean(loss) if reduction == "mean" else ops.sum(loss)


@op_entry("l1_loss", args=[Arg("input"), Arg("target"), Arg("reduction", "value", default="mean")])
def l1_loss(input, target, reduction="mean"):
    """|input - target|, averaged, summed or kept ('none')."""
    return _reduce("l1_loss", F.abs(input - target), reduction)


@op_entry("mse_loss", args=[Arg("input"), Arg("target"), Arg("reduction", "value", default="mean")])
def mse_loss(input, target, reduction="mean"):
    """(input - target) ** 2, averaged, summed or kept ('none')."""
    return _reduce("mse_loss", F.square(input - target), reduction)
