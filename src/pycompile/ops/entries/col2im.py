"""col2im / Col2Im: sliding blocks (N, C, kh * kw, L) summed back into (N, C, H, W), MindSpore
2.10's form of fold (`output_size` a 2-element int Tensor). Recorded in cases_internal.py."""
import numpy as np

import pycompile.ops as ops
from pycompile.common.abstract import Symbolic
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry


def _pair(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v)


@op_entry("col2im", primitive="Col2Im",
          args=[Arg("input_x"), Arg("output_size"), Arg("kernel_size", "value", init=True),
                Arg("dilation", "value", default=1, init=True), Arg("padding_value", "value", default=0, init=True),
                Arg("stride", "value", default=1, init=True)])
def col2im(input_x, output_size, kernel_size, dilation=1, padding_value=0, stride=1):
    """fold of input_x (N, C, kh * kw, L) into output_size (H, W)."""
    if isinstance(output_size, Symbolic):
        raise OpTypeError("For 'Col2Im', 'output_size' must be known when the program is built: a constant Tensor")
    size = tuple(int(v) for v in np.asarray(output_size.asnumpy()).reshape(-1))
    if len(size) != 2:
        raise OpValueError(f"For 'Col2Im', 'output_size' must have 2 elements, but got {len(size)}")
    k = _pair(kernel_size)
    if input_x.ndim != 4 or input_x.shape[2] != k[0] * k[1]:
        raise OpValueError(f"For 'Col2Im', 'input_x' must be (N, C, {k[0] * k[1]}, L), but got {tuple(input_x.shape)}")
    n, c, kk, length = input_x.shape
    flat = F.reshape(input_x, (n, c * kk, length))
    return ops.fold(flat, output_size, k, _pair(dilation), _pair(padding_value), _pair(stride))
