"""nn.LARS: layer-wise adaptive rate scaling around another optimizer (You, Gitman, Ginsburg, "Large
Batch Training of Convolutional Networks", 2017), as MindSpore 2.10 documents it.

For each Parameter w that `lars_filter` selects (by default every one whose name has neither
'LayerNorm' nor 'bias'), its gradient g becomes

    trust = coefficient ||w|| / (||g|| + weight_decay ||w|| + epsilon)   (1 where ||w|| or ||g|| is 0)
    trust = min(trust / lr, 1)                                            with use_clip
    g'    = trust (g + weight_decay w)

(ops.LARSUpdate), and the wrapped optimizer takes the new gradients. The wrapped optimizer's weight
decay moves here: LARS adds it (only to the Parameters its decay flags name) and the optimizer no
longer does; the loss scale is taken out of the gradients first (the optimizer's reciprocal scale
becomes 1). The learning rate with use_clip is the wrapped optimizer's rate of the coming step.

MindSpore 2.10's CPU wheel has no LARSUpdate kernel, so its nn.LARS does not run there; these
formulas are its documentation's (tests/nn/test_lars.py checks them against NumPy).
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common import validator as V
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.optim.optimizer import Optimizer
from pycompile.ops import functional as F
from pycompile.ops.operations_optim_dense import LARSUpdate


def _default_filter(p):
    return "LayerNorm" not in p.name and "bias" not in p.name


class LARS(Optimizer):
    """LARS(optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False, lars_filter=...): see the
    module docstring. Returns what the wrapped optimizer returns."""

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False, lars_filter=_default_filter):
        super().__init__(0.0, [Parameter(Tensor(0.0), name="fake_param")])
        V.check_value_type("optimizer", optimizer, [Optimizer], self.cls_name)
        V.check_value_type("epsilon", epsilon, [float], self.cls_name)
        V.check_value_type("coefficient", coefficient, [float], self.cls_name)
        V.check_value_type("use_clip", use_clip, [bool], self.cls_name)
        self.opt = optimizer
        self.parameters = optimizer.parameters
        self._parameters = optimizer.parameters
        self.param_length = len(self._parameters)
        self.use_clip = use_clip
        self.lars_flag = tuple(bool(lars_filter(p)) for p in self._parameters)
        self.is_group = optimizer.is_group
        self.learning_rate = Parameter(Tensor(0.0, dtype=mstype.float32), name="fake_lr")
        self.decay_flags = optimizer.decay_flags
        self.reciprocal_scale = optimizer.reciprocal_scale
        self.need_scale = optimizer.need_scale
        self.lars = LARSUpdate(epsilon, coefficient, use_clip)
        if use_clip:
            self.is_group_lr = optimizer.is_group_lr
            self.dynamic_lr = optimizer.dynamic_lr
            if self.is_group_lr and self.dynamic_lr:
                raise ValueError("Grouped dynamic learning rate is currently not supported for the inputs optimizer "
                                 "of lars.")
        if optimizer.dynamic_weight_decay:
            raise TypeError("For 'LARS', the wrapped optimizer's weight decay must be a number, not a Cell.")
        if self.is_group:
            self.weight_decay = tuple(F.cast(wd, mstype.float32) / optimizer.loss_scale for wd in optimizer.weight_decay)
            optimizer.weight_decay = tuple(Tensor(0.0, mstype.float32) for _ in optimizer.weight_decay)
        else:
            self.weight_decay = optimizer.weight_decay / optimizer.loss_scale
            optimizer.weight_decay = Tensor(0.0, mstype.float32)
        optimizer.decay_flags = tuple(False for _ in self.decay_flags)
        optimizer.reciprocal_scale = Tensor(1.0, mstype.float32)
        optimizer.exec_weight_decay = False

    def construct(self, gradients):
        gradients = tuple(gradients)
        lr = self.opt.get_lr() if self.use_clip else self.learning_rate
        if self.need_scale:
            gradients = tuple(g * F.cast(self.reciprocal_scale, g.dtype) for g in gradients)
        lrs = lr if self.use_clip and self.is_group_lr else (lr,) * self.param_length
        out = ()
        for i, (p, g) in enumerate(zip(self._parameters, gradients)):
            if not self.lars_flag[i]:
                out += (g,)
                continue
            w_sq = F.sum(F.square(p))
            g_sq = F.sum(F.square(g))
            wd = (self.weight_decay[i] if self.is_group else self.weight_decay) if self.decay_flags[i] else 0.0
            out += (self.lars(p, g, w_sq, g_sq, wd, lrs[i]),)
        return self.opt(out)
