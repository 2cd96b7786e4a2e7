"""nn.Rprop, nn.ASGD and nn.AdamOffload with MindSpore 2.10's update rules (issue 33, surface33)."""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common import validator as V
from pycompile.common.parameter import Parameter, ParameterTuple
from pycompile.common.tensor import Tensor
from pycompile.nn.optim.adam import Adam
from pycompile.nn.optim.optimizer import Optimizer
from pycompile.ops import functional as F


class Rprop(Optimizer):
    """Resilient backpropagation. Per element, with s = sign(g * prev): the step size is multiplied
    by etaplus (s > 0), etaminus (s < 0) or 1, clipped to step_sizes; where s < 0 the gradient is
    taken as 0 (no move, and prev = 0); p -= sign(g) * step. Step sizes start at the learning rate
    on the first step. State: `prev.<name>`, `step_size.<name>`."""

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.), weight_decay=0.):
        super().__init__(learning_rate, params, weight_decay)
        if not isinstance(etas, tuple):
            raise TypeError(f"For Rprop, etas must be a tuple, but got {type(etas)}.")
        if len(etas) != 2:
            raise ValueError(f"For Rprop, etas must be a tuple with the size of 2, but got {len(etas)}.")
        if not isinstance(step_sizes, tuple):
            raise TypeError(f"For Rprop, step_sizes must be a tuple, but got {type(etas)}.")
        if len(step_sizes) != 2:
            raise ValueError(f"For Rprop, step_sizes must be a tuple with the size of 2, but got {len(step_sizes)}.")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(f"For Rprop, maximal step size should not be less than minimal step size, but got "
                             f"{step_sizes[0]} > {step_sizes[1]}.")
        V.check_float_range(etas[0], 0.0, 1.0, V.INC_NEITHER, "etaminus", self.cls_name)
        V.check_value_type("etaplus", etas[1], [float], self.cls_name)
        if etas[1] <= 1.0:
            raise ValueError(f"For Rprop, etaplus must be greater than 1.0, but got etaplus {etas[1]}.")
        V.check_value_type("min_step_sizes", step_sizes[0], [float], self.cls_name)
        V.check_value_type("max_step_sizes", step_sizes[1], [float], self.cls_name)
        self.etaminus, self.etaplus = etas
        self.step_size_min, self.step_size_max = step_sizes
        self.prev = self._parameters.clone(prefix="prev", init="zeros")
        self.step_size = self._parameters.clone(prefix="step_size", init="zeros")

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        first = F.equal(F.reshape(self.global_step, ()), 1)
        for i, (p, prev, step, g) in enumerate(zip(self._parameters, self.prev, self.step_size, gradients)):
            dt = p.dtype if p.dtype == mstype.float16 else mstype.float32
            g32, p32, prev32 = F.cast(g, dt), F.cast(p, dt), F.cast(prev, dt)
            size = F.select(F.broadcast_to(first, step.shape), F.ones_like(g32) * F.cast(lrs[i], dt),
                            F.cast(step, dt))
            s = F.sign(g32 * prev32)
            factor = F.select(s > 0, F.full_like(s, self.etaplus),
                              F.select(s < 0, F.full_like(s, self.etaminus), F.ones_like(s)))
            size = F.clip_by_value(size * factor, self.step_size_min, self.step_size_max)
            g_used = F.select(s < 0, F.zeros_like(g32), g32)
            new_p = p32 - F.sign(g_used) * size
            F.assign(p, F.cast(new_p, p.dtype))
            F.assign(prev, F.cast(g_used, prev.dtype))
            F.assign(step, F.cast(size, step.dtype))
        return True


class ASGD(Optimizer):
    """Averaged SGD: eta starts at the learning rate; each step p = p (1 - lambd eta) - eta g, the
    average ax += (p - ax) mu (ax = p while mu is 1), then eta = lr / (1 + lambd lr t)^alpha and
    mu = 1 / max(1, t - t0) for step t. State: `mu_<name>`, `eta_<name>` (scalars), `ax_.<name>`."""

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        V.check_value_type("lambd", lambd, [float], self.cls_name)
        V.check_value_type("alpha", alpha, [float], self.cls_name)
        V.check_value_type("t0", t0, [float], self.cls_name)
        self.lambd, self.alpha, self.t0 = lambd, alpha, t0
        self.mu = ParameterTuple([Parameter(Tensor(np.float32(1.0)), name=f"mu_{p.name}") for p in self._parameters])
        self.eta = ParameterTuple([Parameter(Tensor(np.float32(0.0)), name=f"eta_{p.name}")
                                   for p in self._parameters])
        self.ax = self._parameters.clone(prefix="ax_", init="zeros")

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        step = F.cast(F.reshape(self.global_step, ()), mstype.float32)
        first = F.equal(step, 1.0)
        for i, (p, mu, eta, ax, g) in enumerate(zip(self._parameters, self.mu, self.eta, self.ax, gradients)):
            lr = F.cast(F.reshape(lrs[i], ()), mstype.float32)
            eta_now = F.select(first, lr, F.reshape(eta, ()))
            new_p = F.cast(p, mstype.float32) * (1.0 - self.lambd * eta_now) - eta_now * F.cast(g, mstype.float32)
            F.assign(p, F.cast(new_p, p.dtype))
            mu_now = F.reshape(mu, ())
            averaged = F.cast(ax, mstype.float32) + (new_p - F.cast(ax, mstype.float32)) * mu_now
            F.assign(ax, F.cast(F.select(F.broadcast_to(F.not_equal(mu_now, 1.0), ax.shape), averaged, new_p),
                                ax.dtype))
            F.assign(eta, F.reshape(lr / F.pow(1.0 + self.lambd * lr * step, self.alpha), eta.shape))
            F.assign(mu, F.reshape(1.0 / F.maximum(F.ones_like(step), step - self.t0), mu.shape))
        return True


__all__ = ["Rprop", "ASGD"]



class AdamOffload(Adam):
    """Adam whose update MindSpore runs on the host CPU to save device memory. pycompile's updates
    always run on the host: the same rule, state and results as nn.Adam."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale, use_offload=True)


__all__.append("AdamOffload")
