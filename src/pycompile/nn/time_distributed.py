"""nn.TimeDistributed: a layer applied to every time step of its input (MindSpore 2.10's layer)."""
from __future__ import annotations

from pycompile import ops
from pycompile.nn.cell import Cell
from pycompile.ops.primitive import Primitive


def _move(ndim: int, src: int, dst: int) -> tuple:
    """The permutation moving axis src to position dst."""
    axes = [a for a in range(ndim) if a != src]
    axes.insert(dst, src)
    return tuple(axes)


class TimeDistributed(Cell):
    """`layer` (a Cell or a Primitive) on each step along `time_axis`. With `reshape_with_axis`, the time axis is merged
    into that axis (one call of the layer on N * T rows) and split again after; without it the
    layer runs step by step and the outputs are stacked."""

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        super().__init__()
        if not isinstance(layer, (Cell, Primitive)):
            raise TypeError(f"For 'TimeDistributed', 'layer' must be a Cell or a Primitive, but got "
                            f"{type(layer).__name__}")
        for what, v in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"For 'TimeDistributed', '{what}' must be an int, but got {v!r}")
        self.layer = layer
        self.time_axis = time_axis
        self.reshape_with_axis = reshape_with_axis

    def construct(self, inputs):
        nd = inputs.ndim
        t = self.time_axis % nd
        if self.reshape_with_axis is None:
            outs = [self.layer(x) for x in ops.unstack(inputs, t)]
            return ops.stack(outs, t)
        r = self.reshape_with_axis % nd
        if r == t:
            raise ValueError("For 'TimeDistributed', 'reshape_with_axis' must differ from 'time_axis'")
        x = ops.transpose(inputs, _move(nd, t, 0))                  # (T, ...)
        rr = (r if r < t else r - 1) + 1
        x = ops.transpose(x, _move(nd, rr, 1))                     # (T, R, rest)
        steps, rows = x.shape[0], x.shape[1]
        y = self.layer(ops.reshape(x, (steps * rows,) + tuple(x.shape[2:])))
        y = ops.reshape(y, (steps, rows) + tuple(y.shape[1:]))
        ny = y.ndim
        y = ops.transpose(y, _move(ny, 1, rr))
        return ops.transpose(y, _move(ny, 0, t))
