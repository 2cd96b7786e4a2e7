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


class AdaFactor(Optimizer):
    """Adafactor (Shazeer & Stern) with MindSpore 2.10's rule. Per step t (`afactor_step`):
    lr = min(1e-2, 1 / sqrt(t)) with relative_step (1e-6 t with warmup_init) else the learning rate;
    beta2t = 1 - t^-decay_rate; u = g^2 + eps1; a matrix (ndim >= 2) keeps row / column means of u
    (`exp_avg_sq_row_<name>` / `exp_avg_sq_col_<name>`) and scales g by their rsqrt product
    (rows normalized by their mean), a vector keeps `exp_avg_sq_<name>`; the update is clipped to
    RMS clip_threshold, times lr (times max(eps2, RMS(p)) with scale_parameter), averaged into
    `exp_avg.<name>` with beta1 > 0; p = p - lr' wd p - update. Gradients are used as given."""

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8, beta1=0.9,
                 weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False, compression=False,
                 loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("Cannot combine manual lr and relative_step options", learning_rate)
        if warmup_init and not relative_step:
            raise ValueError("warmup_init requires relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("Cannot learning_rate is None and relative_step=False")
        learning_rate = 0.0 if learning_rate is None else learning_rate
        beta1 = 0.0 if beta1 is None else beta1
        scale_lr = isinstance(learning_rate, (float, int))
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.scale_lr = scale_lr
        V.check_value_type("eps", eps, [list, tuple], self.cls_name)
        if len(eps) != 2:
            raise ValueError("eps must have 2 value: (eps1, eps2).")
        for i, e in enumerate(eps):
            V.check_value_type(f"eps{i}", e, [float], self.cls_name)
            V.check_non_negative_float(e, f"eps{i}", self.cls_name)
        V.check_value_type("clip_threshold", clip_threshold, [float], self.cls_name)
        V.check_non_negative_float(clip_threshold, "clip_threshold", self.cls_name)
        V.check_value_type("decay_rate", decay_rate, [float], self.cls_name)
        V.check_float_range(decay_rate, 0, 1, V.INC_NEITHER, "decay_rate", self.cls_name)
        V.check_float_range(weight_decay, 0, 1, V.INC_LEFT, "weight_decay", self.cls_name)
        for name, v in (("scale_parameter", scale_parameter), ("relative_step", relative_step),
                        ("compression", compression)):
            V.check_value_type(name, v, [bool], self.cls_name)
        V.check_value_type("beta1", beta1, [int, float], self.cls_name)
        V.check_non_negative_float(float(beta1), "beta1", self.cls_name)
        self.eps, self.clip_threshold, self.decay_rate = tuple(eps), clip_threshold, decay_rate
        self.beta1, self.wd = float(beta1), float(weight_decay)
        self.scale_parameter = scale_parameter and self.scale_lr
        self.relative_step, self.warmup_init, self.compression = relative_step, warmup_init, compression
        self.use_first_moment = beta1 > 0
        if self.use_first_moment:
            self.exp_avg = self._parameters.clone(prefix="exp_avg", init="zeros")
        rows, cols, sq = [], [], []
        for p in self._parameters:
            shape, dt = tuple(p.shape), p.dtype
            factored = len(shape) > 1
            rows.append(Parameter(Tensor(np.zeros(shape[:-1] if factored else (1,)), dt),
                                  name=f"exp_avg_sq_row_{p.name}"))
            cols.append(Parameter(Tensor(np.zeros(shape[:-2] + shape[-1:] if factored else (1,)), dt),
                                  name=f"exp_avg_sq_col_{p.name}"))
            sq.append(Parameter(Tensor(np.zeros((1,) if factored else shape),
                                       mstype.float16 if compression and not factored else dt),
                                name=f"exp_avg_sq_{p.name}"))
        self.exp_avg_sq_row, self.exp_avg_sq_col = ParameterTuple(rows), ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(sq)
        self.step = Parameter(Tensor(np.zeros(1, np.float32)), name="afactor_step")

    def construct(self, gradients):
        lr = self.get_lr()
        self._advance(gradients)
        step = self.step + 1.0
        F.assign(self.step, step)
        if self.scale_lr and self.relative_step:
            min_step = step * 1e-6 if self.warmup_init else 1e-2
            lr = F.minimum(min_step, 1.0 / F.sqrt(step))
        lr = F.reshape(F.cast(lr, mstype.float32), ())
        beta2t = F.reshape(1.0 - F.pow(step, -self.decay_rate), ())
        for i, (g, p) in enumerate(zip(gradients, self._parameters)):
            g32, p32 = F.cast(g, mstype.float32), F.cast(p, mstype.float32)
            rate = lr * F.maximum(F.ones_like(lr) * self.eps[1], F.sqrt(F.mean(F.square(p32)))) \
                if self.scale_parameter else lr
            u = F.square(g32) + self.eps[0]
            if p.ndim > 1:
                row = F.cast(self.exp_avg_sq_row[i], mstype.float32) * beta2t + F.mean(u, -1) * (1.0 - beta2t)
                col = F.cast(self.exp_avg_sq_col[i], mstype.float32) * beta2t + F.mean(u, -2) * (1.0 - beta2t)
                F.assign(self.exp_avg_sq_row[i], F.cast(row, self.exp_avg_sq_row[i].dtype))
                F.assign(self.exp_avg_sq_col[i], F.cast(col, self.exp_avg_sq_col[i].dtype))
                r_factor = F.expand_dims(1.0 / F.sqrt(row / F.mean(row, -1, True)), -1)
                update = r_factor * (1.0 / F.sqrt(F.expand_dims(col, -2))) * g32
            else:
                avg = F.cast(self.exp_avg_sq[i], mstype.float32) * beta2t + u * (1.0 - beta2t)
                F.assign(self.exp_avg_sq[i], F.cast(avg, self.exp_avg_sq[i].dtype))
                update = (1.0 / F.sqrt(avg)) * g32
            coeff = F.maximum(F.sqrt(F.mean(F.square(update))) / self.clip_threshold, F.ones_like(lr))
            update = update / coeff * rate
            if self.use_first_moment:
                avg1 = F.cast(self.exp_avg[i], mstype.float32) * self.beta1 + update * (1.0 - self.beta1)
                F.assign(self.exp_avg[i], F.cast(avg1, self.exp_avg[i].dtype))
                update = avg1
            if self.wd:
                p32 = p32 + p32 * (-self.wd) * rate
            F.assign(p, F.cast(p32 - update, p.dtype))
        return True


__all__.append("AdaFactor")
