"""Activation Cells of MindSpore 2.10 beyond the core ones in layers.py: LeakyReLU, ReLU6, SiLU,
ELU, CELU, SeLU, PReLU, Mish, Softsign, Hardtanh, LogSigmoid, Tanhshrink, Softmin and GLU, with
MindSpore's constructor arguments, checks and Parameter names (PReLU's weight is the Parameter
'a' held in attribute `w`). Each calls its `ops` function, so the Cell and the function cannot
disagree; they are also registered with `nn.get_activation` under MindSpore's names."""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell
from pycompile.nn.layers import _ACTIVATIONS, LogSoftmax


class _Unary(Cell):
    _fn = None

    def construct(self, x):
        return type(self)._fn(x)


class ReLU6(_Unary):
    _fn = staticmethod(ops.relu6)


class SiLU(_Unary):
    _fn = staticmethod(ops.silu)


class SeLU(_Unary):
    _fn = staticmethod(ops.selu)


class Mish(_Unary):
    _fn = staticmethod(ops.mish)


class Softsign(_Unary):
    _fn = staticmethod(ops.softsign)


class LogSigmoid(_Unary):
    _fn = staticmethod(ops.logsigmoid)


class Tanhshrink(_Unary):
    _fn = staticmethod(ops.tanhshrink)


class LeakyReLU(Cell):
    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)

    def extend_repr(self):
        return f"alpha={self.alpha}"


class ELU(Cell):
    """MindSpore's CPU Elu takes only alpha = 1.0: another alpha fails when the Cell is called."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.elu(x, self.alpha)


class CELU(Cell):
    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.celu(x, self.alpha)


class Hardtanh(Cell):
    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        if min_val >= max_val:
            raise ValueError(f"For Hardtanh, min_val should be less than max_val,but got {min_val} and {max_val}")
        self.min_val, self.max_val = min_val, max_val

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


class Softmin(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmin(x, self.axis)


class GLU(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.dim = axis

    def construct(self, x):
        return ops.glu(x, self.dim)


class PReLU(Cell):
    """x > 0 ? x : w * x with one learnable slope per channel (axis 1), or one shared slope."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if not isinstance(channel, int) or isinstance(channel, bool) or channel <= 0:
            raise ValueError(f"For 'PReLU', 'channel' must be a positive int, but got {channel!r}.")
        if isinstance(w, (float, np.float32)):
            w = Tensor(np.full((channel,), w, np.float32))
        elif isinstance(w, list):
            if len(w) != channel:
                raise ValueError(f"For 'PReLU', the length of 'w' must be equal to the 'channel' when the 'w' is a "
                                 f"list, but got the length of 'w': {len(w)}, the 'channel': {channel}.")
            w = Tensor(np.asarray(w, np.float32))
        elif isinstance(w, Tensor):
            if w.dtype not in (mstype.float16, mstype.float32):
                raise ValueError(f"For 'PReLU', the dtype of 'w' must be float16 or float32 when the 'w' is a "
                                 f"tensor, but got {w.dtype}.")
            if w.ndim != 1 or w.shape[0] != channel:
                raise ValueError(f"For 'PReLU', the dimension of 'w' must be 1, and the elements number should be "
                                 f"equal to the 'channel' when the 'w' is a tensor, but got 'w' shape {w.shape}, "
                                 f"the 'channel' {channel}.")
        else:
            raise TypeError(f"For 'PReLU', the 'w' only supported float, list and tensor, but got {type(w).__name__}.")
        self.w = Parameter(w, name="a")

    def construct(self, x):
        return ops.prelu(x, ops.cast(self.w, x.dtype))


# nn.get_activation's names, as MindSpore spells them
_ACTIVATIONS.update({"relu6": ReLU6, "silu": SiLU, "tanhshrink": Tanhshrink, "elu": ELU, "softsign": Softsign,
                     "prelu": PReLU, "leakyrelu": LeakyReLU, "logsigmoid": LogSigmoid, "mish": Mish,
                     "softmin": Softmin, "hardtanh": Hardtanh, "logsoftmax": LogSoftmax})
