"""nn.SGD and nn.Momentum (MindSpore 2.10's update rules, per Parameter in one fused pass)."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common import validator as V
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.optim._eager_update import eager_ready, momentum_update
from pycompile.nn.optim.optimizer import Optimizer
from pycompile.ops import functional as F


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening and Nesterov momentum:

        first step:  accum = g                      (stat is 1 until then)
        later:       accum = momentum * accum + (1 - dampening) * g
        p -= lr * (g + momentum * accum)  with nesterov, else  p -= lr * accum
    Without momentum (momentum == 0, the constructor's value): p -= lr * g."""

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(momentum, int) and not isinstance(momentum, bool):
            momentum = float(momentum)
        if not isinstance(momentum, float):
            raise TypeError(f"For 'SGD', the argument 'momentum' must be float type, but got {type(momentum)}.")
        if momentum < 0.0:
            raise ValueError(f"For 'SGD', the argument 'momentum' must be at least 0.0, but got {momentum}.")
        if isinstance(dampening, int) and not isinstance(dampening, bool):
            dampening = float(dampening)
        if not isinstance(dampening, float):
            raise TypeError(f"For 'SGD', the argument 'dampening' must be float type, but got {type(dampening)}.")
        if dampening < 0.0:
            raise ValueError(f"For 'SGD', the argument 'dampening' must be at least 0.0, but got 'dampening' "
                             f"{dampening}")
        V.check_value_type("nesterov", nesterov, [bool], self.cls_name)
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError(f"For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must equal "
                             f"to 0.0, but got 'momentum' {momentum}, 'dampening' {dampening}.")
        if self.dynamic_weight_decay:
            raise TypeError("For 'SGD', dynamic weight decay is currently not supported, the argument "
                            "'weight_decay' or 'weight_decay' set in grouped 'params' must be float or int type.")
        self.dampening = dampening
        self.nesterov = nesterov
        self._use_momentum = momentum > 0.0
        self.momentum = Parameter(Tensor(momentum, mstype.float32), name="momentum")
        self.accum = self._parameters.clone(prefix="accum", init='zeros')
        self.stat = self._parameters.clone(prefix="stat", init='ones')

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        for p, accum, stat, g, lr in zip(self._parameters, self.accum, self.stat, gradients, lrs):
            step = g
            if self._use_momentum:
                mom = F.cast(self.momentum, g.dtype)
                new_accum = F.select(stat > 0, g, accum * mom + (1.0 - self.dampening) * g)
                step = g + new_accum * mom if self.nesterov else new_accum
                new_p = p - F.cast(lr, p.dtype) * step
                F.assign(accum, new_accum)
                F.assign(stat, F.zeros_like(stat))
            else:
                new_p = p - F.cast(lr, p.dtype) * step
            F.assign(p, new_p)
        return tuple(True for _ in self._parameters)


class Momentum(Optimizer):
    """ApplyMomentum: accum = momentum * accum + g;  p -= lr * accum.

    `use_nesterov` is accepted and, as in MindSpore 2.10 on the CPU (whose ApplyMomentum kernel
    ignores it; recorded in tests/oracle), changes nothing. nn.SGD(nesterov=True) is Nesterov
    momentum."""

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        V.check_value_type("momentum", momentum, [float], self.cls_name)
        if momentum < 0.0:
            raise ValueError(f"For 'Momentum', the argument 'momentum' must be at least 0.0, but got {momentum}")
        V.check_value_type("use_nesterov", use_nesterov, [bool], self.cls_name)
        self.momentum = Parameter(Tensor(momentum, mstype.float32), name="momentum")
        self.params = self._parameters
        self.use_nesterov = use_nesterov
        self.moments = self.params.clone(prefix="moments", init='zeros')

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        if eager_ready() and momentum_update(self.params, self.moments, gradients, lrs, self.momentum):
            # PyNative, seen by no tracer: the same arithmetic in place (nn/optim/_eager_update.py)
            return tuple(True for _ in self.params)
        for p, moment, g, lr in zip(self.params, self.moments, gradients, lrs):
            mom = F.cast(self.momentum, g.dtype)
            lr = F.cast(lr, p.dtype)
            new_moment = moment * mom + g
            new_p = p - lr * new_moment
            F.assign(moment, new_moment)
            F.assign(p, new_p)
        return tuple(True for _ in self.params)
