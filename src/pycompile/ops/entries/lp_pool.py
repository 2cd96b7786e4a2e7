"""LP pooling: (sum over each window of x ** p) ** (1 / p), MindSpore 2.10's lp_pool1d / lp_pool2d
composed as it composes them (an average pool of x ** p times the window size; a negative window
sum, possible for odd p, becomes 0 through relu). Values recorded in
tests/conformance/cases_layers.py."""
import pycompile.ops as ops
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry


def _norm(name, norm_type):
    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)):
        raise OpTypeError(f"For {name}, the type of 'norm_type' must be float or int, but got {type(norm_type)}")
    if norm_type == 0:
        raise OpValueError(f"For {name}, the value of 'norm_type' can not be 0.")
    return float(norm_type)


def _root(out, p, window):
    return F.pow(F.mul(F.mul(F.sign(out), F.relu(F.abs(out))), window), 1.0 / p)


@op_entry("lp_pool1d", args=[Arg("x"), Arg("norm_type", "value"), Arg("kernel_size", "value"),
                             Arg("stride", "value", default=None), Arg("ceil_mode", "value", default=False)])
def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-D LP pooling over the last axis of an (N, C, L) or (C, L) input."""
    p = _norm("lp_pool1d", norm_type)
    squeeze = x.ndim == 2
    if squeeze:
        x = F.expand_dims(x, 0)
    out = ops.avg_pool1d(F.pow(x, p), kernel_size=kernel_size, stride=kernel_size if stride is None else stride,
                         padding=0, ceil_mode=ceil_mode)
    if squeeze:
        out = F.squeeze(out, 0)
    return _root(out, p, kernel_size)


@op_entry("lp_pool2d", args=[Arg("x"), Arg("norm_type", "value"), Arg("kernel_size", "value"),
                             Arg("stride", "value", default=None), Arg("ceil_mode", "value", default=False)])
def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-D LP pooling over the last two axes of an (N, C, H, W) input."""
    p = _norm("lp_pool2d", norm_type)
    if not isinstance(kernel_size, tuple):
        kernel_size = (kernel_size, kernel_size)
    out = ops.avg_pool2d(F.pow(x, p), kernel_size=kernel_size, stride=kernel_size if stride is None else stride,
                         padding=0, ceil_mode=ceil_mode)
    return _root(out, p, kernel_size[0] * kernel_size[1])
