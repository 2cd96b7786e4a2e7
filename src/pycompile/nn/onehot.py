"""nn.OneHot: MindSpore's one-hot layer (on / off values and dtype fixed at construction)."""
from __future__ import annotations

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell


class OneHot(Cell):
    """`on_value` at each index along a new axis `axis`, `off_value` elsewhere, in `dtype`."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=mstype.float32):
        super().__init__()
        self.axis, self.depth, self.dtype = axis, depth, dtype
        self.on_value = Tensor(on_value, dtype)
        self.off_value = Tensor(off_value, dtype)

    def construct(self, indices):
        return ops.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis)
