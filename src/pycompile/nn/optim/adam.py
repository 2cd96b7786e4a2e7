"""nn.Adam (with AMSGrad and Nesterov variants), nn.LazyAdam, nn.AdamWeightDecay and nn.AdaMax,
with MindSpore 2.10's update rules. The step's bias corrections are computed once per step from
the `beta*_power` Parameters; each Parameter's moments and value are then one fused pass."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common import validator as V
from pycompile.common.initializer import initializer
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.optim.optimizer import Optimizer
from pycompile.ops import functional as F


def _check_param_value(beta1, beta2, eps, prim_name):
    V.check_value_type("beta1", beta1, [float], prim_name)
    V.check_value_type("beta2", beta2, [float], prim_name)
    V.check_value_type("eps", eps, [float], prim_name)
    for name, v in (("beta1", beta1), ("beta2", beta2)):
        if not 0.0 < v < 1.0:
            raise ValueError(f"For '{prim_name}', the '{name}' must be in range of (0.0, 1.0), but got {v}.")
    V.check_positive_float(eps, "eps", prim_name)


class Adam(Optimizer):
    """m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  lr_t = lr sqrt(1 - b2^t) / (1 - b1^t);
    p -= lr_t m / (sqrt(v) + eps)  (use_nesterov: (b1 m + (1 - b1) g) in place of m;
    use_amsgrad: vhat = max(vhat, v) in place of v)."""

    _POWER_SHAPE = ()          # the shape of beta1_power / beta2_power (LazyAdam's are (1,))

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if set(kwargs) - {'use_lazy', 'use_offload'}:
            raise KeyError(f"For 'Adam', invalid keys are passed as kwargs, supported keys are 'use_lazy' "
                           f"and'use_offload', but got {kwargs.keys()}.")
        _check_param_value(beta1, beta2, eps, self.cls_name)
        for name, v in (("use_locking", use_locking), ("use_nesterov", use_nesterov), ("use_amsgrad", use_amsgrad)):
            V.check_value_type(name, v, [bool], self.cls_name)
        if use_amsgrad and (kwargs.get('use_lazy') or kwargs.get('use_offload')):
            raise ValueError(f"For lazy Adam and Adam with offload, there is no parameter named 'use_amsgrad'."
                             f"but got 'use_amsgrad'={use_amsgrad}.")
        self.beta1 = Tensor(beta1, mstype.float32)
        self.beta2 = Tensor(beta2, mstype.float32)
        self.beta1_power = Parameter(initializer(1, self._POWER_SHAPE, mstype.float32), name="beta1_power")
        self.beta2_power = Parameter(initializer(1, self._POWER_SHAPE, mstype.float32), name="beta2_power")
        self.eps = Tensor(eps, mstype.float32)
        self.use_nesterov = use_nesterov
        self.use_locking = use_locking
        self.use_amsgrad = use_amsgrad
        self.moment1 = self._parameters.clone(prefix="moment1", init='zeros')
        self.moment2 = self._parameters.clone(prefix="moment2", init='zeros')
        if use_amsgrad:
            self.vhat = self._parameters.clone(prefix="vhat", init='zeros')

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        beta1_power = self.beta1_power * self.beta1
        beta2_power = self.beta2_power * self.beta2
        F.assign(self.beta1_power, beta1_power)
        F.assign(self.beta2_power, beta2_power)
        correction = F.reshape(F.sqrt(1.0 - beta2_power) / (1.0 - beta1_power), ())
        vhats = self.vhat if self.use_amsgrad else self.moment2
        for i, (p, m, v, g) in enumerate(zip(self._parameters, self.moment1, self.moment2, gradients)):
            lr_t = F.cast(lrs[i] * correction, p.dtype)
            b1, b2, eps = (F.cast(x, p.dtype) for x in (self.beta1, self.beta2, self.eps))
            new_m = m + (g - m) * (1.0 - b1)
            new_v = v + (g * g - v) * (1.0 - b2)
            denom_v = new_v
            if self.use_amsgrad:
                new_vhat = F.maximum(vhats[i], new_v)
                denom_v = new_vhat
            num = new_m * b1 + (1.0 - b1) * g if self.use_nesterov else new_m
            new_p = p - lr_t * num / (F.sqrt(denom_v) + eps)
            F.assign(m, new_m)
            F.assign(v, new_v)
            if self.use_amsgrad:
                F.assign(vhats[i], new_vhat)
            F.assign(p, new_p)
        return tuple(True for _ in self._parameters)


class LazyAdam(Adam):
    """Adam whose sparse-gradient path updates only the rows present; with dense gradients (all
    pycompile produces) it is Adam."""

    _POWER_SHAPE = (1,)

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)


class AdamWeightDecay(Optimizer):
    """m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  u = m / (sqrt(v) + eps)
    (+ weight_decay * p for the Parameters that decay);  p -= lr u. No bias correction, and the
    decay is decoupled from the gradient (it is not scaled by the moments)."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_param_value(beta1, beta2, eps, self.cls_name)
        self.beta1 = Tensor(beta1, mstype.float32)
        self.beta2 = Tensor(beta2, mstype.float32)
        self.eps = Tensor(eps, mstype.float32)
        self.moments1 = self._parameters.clone(prefix="adam_m", init='zeros')
        self.moments2 = self._parameters.clone(prefix="adam_v", init='zeros')

    def construct(self, gradients):
        gradients = tuple(gradients)
        weight_decay = self.get_weight_decay()
        lrs = self._per_param_lr(self.get_lr())
        self._advance(gradients)
        for i, (p, m, v, g) in enumerate(zip(self._parameters, self.moments1, self.moments2, gradients)):
            b1, b2, eps = (F.cast(x, p.dtype) for x in (self.beta1, self.beta2, self.eps))
            new_m = b1 * m + (1.0 - b1) * g
            new_v = b2 * v + (1.0 - b2) * g * g
            update = new_m / (F.sqrt(new_v) + eps)
            if self.decay_flags[i]:
                wd = weight_decay[i] if self.is_group else weight_decay
                update = update + F.cast(wd, p.dtype) * p
            new_p = p - F.cast(lrs[i], p.dtype) * update
            F.assign(m, new_m)
            F.assign(v, new_v)
            F.assign(p, new_p)
        return tuple(True for _ in self._parameters)


class AdaMax(Optimizer):
    """m = b1 m + (1 - b1) g;  v = max(b2 v, |g|);  p -= lr / (1 - b1^t) * m / (v + eps)."""

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _check_param_value(beta1, beta2, eps, self.cls_name)
        self.beta1 = Tensor(beta1, mstype.float32)
        self.beta2 = Tensor(beta2, mstype.float32)
        self.beta1_power = Parameter(initializer(1, [1], mstype.float32), name="beta1_power")
        self.eps = Tensor(eps, mstype.float32)
        self.moment1 = self._parameters.clone(prefix="moment1", init='zeros')
        self.moment2 = self._parameters.clone(prefix="moment2", init='zeros')

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        beta1_power = self.beta1_power * self.beta1
        F.assign(self.beta1_power, beta1_power)
        power = F.reshape(beta1_power, ())
        for i, (p, m, v, g) in enumerate(zip(self._parameters, self.moment1, self.moment2, gradients)):
            b1, b2, eps = (F.cast(x, p.dtype) for x in (self.beta1, self.beta2, self.eps))
            new_m = b1 * m + (1.0 - b1) * g
            new_v = F.maximum(b2 * v, F.abs(g))
            new_p = p - F.cast(lrs[i] / (1.0 - power), p.dtype) * new_m / (new_v + eps)
            F.assign(m, new_m)
            F.assign(v, new_v)
            F.assign(p, new_p)
        return tuple(True for _ in self._parameters)
