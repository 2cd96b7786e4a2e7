"""nn.RMSProp, nn.Adagrad, nn.Adadelta, nn.FTRL and nn.ProximalAdagrad: per-coordinate adaptive
rates with MindSpore 2.10's update rules (its Apply* kernels), one fused pass per Parameter."""
from __future__ import annotations

from pycompile.common import validator as V
from pycompile.nn.optim.optimizer import Optimizer
from pycompile.ops import functional as F
from pycompile.ops import function_math as M


class RMSProp(Optimizer):
    """ms = decay ms + (1 - decay) g^2  (centered: mg = decay mg + (1 - decay) g and the
    denominator uses ms - mg^2);  mom = momentum mom + lr g / sqrt(ms + epsilon);  p -= mom.
    `mean_square` starts at ones, as in MindSpore."""

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        V.check_value_type("decay", decay, [float], self.cls_name)
        V.check_non_negative_float(decay, "decay", self.cls_name)
        V.check_value_type("momentum", momentum, [float], self.cls_name)
        V.check_non_negative_float(momentum, "momentum", self.cls_name)
        V.check_value_type("epsilon", epsilon, [float], self.cls_name)
        V.check_positive_float(epsilon, "epsilon", self.cls_name)
        V.check_value_type("use_locking", use_locking, [bool], self.cls_name)
        V.check_value_type("centered", centered, [bool], self.cls_name)
        self.centered = centered
        if centered:
            self.mg = self._parameters.clone(prefix="mean_grad", init='zeros')
        self.momentum = momentum
        self.ms = self._parameters.clone(prefix="mean_square", init='ones')
        self.moment = self._parameters.clone(prefix="moment", init='zeros')
        self.epsilon = epsilon
        self.decay = decay

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        mgs = self.mg if self.centered else self.ms
        for i, (p, ms, mom, g) in enumerate(zip(self._parameters, self.ms, self.moment, gradients)):
            lr = F.cast(lrs[i], p.dtype)
            new_ms = ms + (g * g - ms) * (1.0 - self.decay)
            if self.centered:
                new_mg = mgs[i] + (g - mgs[i]) * (1.0 - self.decay)
                denom = F.sqrt(new_ms - new_mg * new_mg + self.epsilon)
            else:
                denom = F.sqrt(new_ms + self.epsilon)
            new_mom = mom * self.momentum + lr * g / denom
            new_p = p - new_mom
            F.assign(ms, new_ms)
            if self.centered:
                F.assign(mgs[i], new_mg)
            F.assign(mom, new_mom)
            F.assign(p, new_p)
        return tuple(True for _ in self._parameters)


class Adagrad(Optimizer):
    """accum += g^2 (update_slots);  p -= lr g / sqrt(accum). `accum` starts at 0.1."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        V.check_value_type("accum", accum, [float], self.cls_name)
        V.check_value_type("update_slots", update_slots, [bool], self.cls_name)
        V.check_non_negative_float(accum, "accum", self.cls_name)
        self.update_slots = update_slots
        self.accum = self._parameters.clone(prefix="accum", init=accum)

    def construct(self, grads):
        grads, lrs = self._prepare(grads)
        for i, (p, accum, g) in enumerate(zip(self._parameters, self.accum, grads)):
            new_accum = accum + g * g if self.update_slots else accum
            new_p = p - F.cast(lrs[i], p.dtype) * g / F.sqrt(new_accum)
            if self.update_slots:
                F.assign(accum, new_accum)
            F.assign(p, new_p)
        return tuple(True for _ in self._parameters)


class Adadelta(Optimizer):
    """accum = rho accum + (1 - rho) g^2;  u = sqrt(accum_update + eps) / sqrt(accum + eps) g;
    accum_update = rho accum_update + (1 - rho) u^2;  p -= lr u."""

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        V.check_value_type("rho", rho, [float], self.cls_name)
        V.check_value_type("epsilon", epsilon, [float], self.cls_name)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"For '{self.cls_name}', the 'rho' must be in range of [0.0, 1.0], but got {rho}.")
        V.check_non_negative_float(epsilon, "epsilon", self.cls_name)
        self.accum = self.parameters.clone(prefix="accum", init=0)
        self.accum_update = self.parameters.clone(prefix="accum_update", init=0)
        self.rho = rho
        self.epsilon = epsilon

    def construct(self, grads):
        if not isinstance(grads, tuple) or not grads:
            raise TypeError("For 'Adadelta', the 'grads' must be a tuple of Tensor.")
        grads, lrs = self._prepare(grads)
        for i, (p, accum, accum_update, g) in enumerate(zip(self.parameters, self.accum, self.accum_update, grads)):
            new_accum = self.rho * accum + (1.0 - self.rho) * g * g
            update = F.sqrt(accum_update + self.epsilon) * F.rsqrt(new_accum + self.epsilon) * g
            new_accum_update = self.rho * accum_update + (1.0 - self.rho) * update * update
            new_p = p - F.cast(lrs[i], p.dtype) * update
            F.assign(accum, new_accum)
            F.assign(accum_update, new_accum_update)
            F.assign(p, new_p)
        return tuple(True for _ in self.parameters)


class FTRL(Optimizer):
    """Follow-the-regularized-leader (ApplyFtrl): with n = accum + g^2,
    linear += g - (n^-lr_power - accum^-lr_power) / lr * p;  quadratic = n^-lr_power / lr + 2 l2;
    p = (l1 - linear) / quadratic where |linear| > l1, else 0;  accum = n
    (MindSpore 2.10's CPU kernel; the textbook rule has sign(linear) l1).
    Every Parameter decays (not only those without 'beta' / 'gamma'), as in MindSpore."""

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
                 use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale=loss_scale)
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError(f"For 'FTRL', dynamic learning rate and group learning rate are currently not "
                             f"supported in FTRL, they should all be false, but got dynamic learning rate "
                             f"{self.dynamic_lr} and group learning rate {self.is_group_lr}.")
        for name, v in (("initial_accum", initial_accum), ("learning_rate", learning_rate),
                        ("lr_power", lr_power), ("l1", l1), ("l2", l2)):
            V.check_value_type(name, v, [float], self.cls_name)
        V.check_non_negative_float(initial_accum, "initial_accum", self.cls_name)
        V.check_positive_float(learning_rate, "learning_rate", self.cls_name)
        if lr_power > 0.0:
            raise ValueError(f"For '{self.cls_name}', the argument 'lr_power' must be <= 0.0, but got {lr_power}.")
        V.check_non_negative_float(l1, "l1", self.cls_name)
        V.check_non_negative_float(l2, "l2", self.cls_name)
        V.check_value_type("use_locking", use_locking, [bool], self.cls_name)
        self.moments = self._parameters.clone(prefix="moments", init=initial_accum)
        self.linear = self._parameters.clone(prefix="linear", init='zeros')
        self.l1, self.l2, self.lr, self.lr_power = l1, l2, learning_rate, lr_power
        if not self.is_group:
            self.decay_flags = tuple(True for _ in self._parameters)

    def construct(self, grads):
        grads, _ = self._prepare(grads)
        for p, accum, linear, g in zip(self._parameters, self.moments, self.linear, grads):
            new_accum = accum + g * g
            power_new = F.pow(new_accum, -self.lr_power)
            power_old = F.pow(accum, -self.lr_power)
            new_linear = linear + g - (power_new - power_old) / self.lr * p
            quadratic = power_new / self.lr + 2.0 * self.l2
            # MindSpore 2.10's CPU kernel computes (l1 - linear), not (sign(linear) l1 - linear):
            # recorded in tests/oracle (FTRL_lr0.1_l1_l2), followed here
            shrunk = (self.l1 - new_linear) / quadratic
            new_p = F.select(F.abs(new_linear) > self.l1, shrunk, F.zeros_like(p))
            F.assign(accum, new_accum)
            F.assign(linear, new_linear)
            F.assign(p, new_p)
        return tuple(True for _ in self._parameters)


class ProximalAdagrad(Optimizer):
    """accum += g^2;  v = p - lr g / sqrt(accum);
    p = sign(v) max(|v| - lr l1, 0) / (1 + lr l2)."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, v in (("accum", accum), ("l1", l1), ("l2", l2)):
            V.check_value_type(name, v, [float], self.cls_name)
            V.check_non_negative_float(v, name, self.cls_name)
        V.check_value_type("use_locking", use_locking, [bool], self.cls_name)
        self.accum = self._parameters.clone(prefix="accum", init=accum)
        self.l1, self.l2 = l1, l2
        self.use_locking = use_locking

    def construct(self, grads):
        grads, lrs = self._prepare(grads)
        for i, (p, accum, g) in enumerate(zip(self._parameters, self.accum, grads)):
            lr = F.cast(lrs[i], p.dtype)
            new_accum = accum + g * g
            prox = p - lr * g * F.rsqrt(new_accum)
            if self.l1 > 0:
                new_p = M.sign(prox) * F.maximum(F.abs(prox) - lr * self.l1, 0.0) / (1.0 + lr * self.l2)
            else:
                new_p = prox / (1.0 + lr * self.l2)
            F.assign(accum, new_accum)
            F.assign(p, new_p)
        return tuple(True for _ in self._parameters)
