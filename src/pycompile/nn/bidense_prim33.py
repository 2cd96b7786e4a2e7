"""nn.BiDense: a bilinear layer over two inputs (ops.bidense), MindSpore 2.10's defaults: weight
(out_channels, in1_channels, in2_channels) and bias (out_channels,) Uniform(1 / sqrt(in1_channels))."""
from __future__ import annotations

import math

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.initializer import Uniform, initializer
from pycompile.common.parameter import Parameter
from pycompile.nn.cell import Cell


class BiDense(Cell):
    """y = x1^T W x2 + b."""

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 dtype=mstype.float32):
        super().__init__()
        for what, v in (("in1_channels", in1_channels), ("in2_channels", in2_channels),
                        ("out_channels", out_channels)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"For 'BiDense', '{what}' must be a positive int, but got {v!r}.")
        self.in1_channels, self.in2_channels, self.out_channels = in1_channels, in2_channels, out_channels
        self.has_bias = has_bias
        bound = 1 / math.sqrt(in1_channels)
        self.weight = Parameter(initializer(Uniform(bound) if weight_init is None else weight_init,
                                            [out_channels, in1_channels, in2_channels], dtype=dtype), name="weight")
        if has_bias:
            self.bias = Parameter(initializer(Uniform(bound) if bias_init is None else bias_init, [out_channels],
                                              dtype=dtype), name="bias")
        else:
            self.bias = None

    def construct(self, input1, input2):
        return ops.bidense(input1, input2, self.weight, self.bias)

    def extend_repr(self):
        return (f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
                f"out_channels={self.out_channels}, has_bias={self.has_bias}")
