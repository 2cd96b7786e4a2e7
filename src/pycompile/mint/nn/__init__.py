"""`mindspore.mint.nn`: the layers MindSpore's CPU op tests import from it (GLU)."""
from pycompile import ops
from pycompile.nn.cell import Cell


class GLU(Cell):
    """mint.nn.GLU(dim=-1): the first half of the input along `dim` times the sigmoid of the second
    (ops.glu; an empty input gives an empty result and gradient)."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def construct(self, input):
        return ops.glu(input, self.dim)


__all__ = ["GLU"]
