"""`mindspore.experimental.optim.lr_scheduler`: learning-rate schedules for the experimental
optimizers, PyTorch's formulas as MindSpore documents them. `step()` advances one epoch and writes
each group's new rate into its `lr` Parameter (so compiled steps read it); `get_last_lr()` gives
the rates as float32 Tensors, as MindSpore's. Checked against MindSpore 2.10's wheel
(tests/oracle/data/lr_scheduler_steps.json). CyclicLR, CosineAnnealingWarmRestarts and ReduceLROnPlateau keep
their state in float32, as MindSpore's Tensors do, so their arithmetic rounds where the wheel's does."""
from __future__ import annotations

import bisect
import math

import numpy as np

from pycompile.common.tensor import Tensor


class LRScheduler:
    def __init__(self, optimizer, last_epoch=-1):
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", float(group["lr"].asnumpy()))
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self.step()

    def _lrs(self):
        return [float(group["lr"].asnumpy()) for group in self.optimizer.param_groups]

    def get_lr(self):
        """The rates of the next epoch; the base class keeps the current ones (a constant schedule),
        each subclass below gives its formula."""
        return self._lrs()

    def get_last_lr(self):
        return [Tensor(np.array(v, np.float32)) for v in self._last_lr]

    def step(self, epoch=None):
        """One epoch on; `step(epoch)` jumps to that epoch: the schedule's closed form where it has
        one (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR, ConstantLR,
        PolynomialLR), else its step formula at that epoch, as MindSpore's. SequentialLR uses it
        to start each later schedule at its epoch 0."""
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_closed_form", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"].set_data(Tensor(np.array(lr, np.float32)))
        self._last_lr = self._lrs()


class StepLR(LRScheduler):
    """lr * gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]

    def _closed_form(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr * gamma at each milestone epoch (a milestone listed twice: gamma squared)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = sorted(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        times = self.milestones.count(self.last_epoch)
        return [lr * self.gamma ** times for lr in self._lrs()]

    def _closed_form(self):
        # gamma to the number of milestones passed, as PyTorch's: the wheel's closed form reads a
        # step_size MultiStepLR does not have (AttributeError in MindSpore 2.10)
        return [base * self.gamma ** bisect.bisect_right(self.milestones, self.last_epoch) for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]

    def _closed_form(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """From the base rate down to eta_min over T_max epochs along a cosine, and back up (period
    2 T_max), computed step to step as PyTorch's."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        if e == 0:
            return self._lrs()
        if (e - 1 - t) % (2 * t) == 0:
            return [lr + (base - lo) * (1 - math.cos(math.pi / t)) / 2 for lr, base in zip(self._lrs(), self.base_lrs)]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t)) * (lr - lo) + lo
                for lr in self._lrs()]

    def _closed_form(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """From start_factor x the base rate to end_factor x over total_iters epochs."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if not 0 < start_factor <= 1 or not 0 <= end_factor <= 1:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, s, f, n = self.last_epoch, self.start_factor, self.end_factor, self.total_iters
        if e == 0:
            return [lr * s for lr in self._lrs()]
        if e > n:
            return self._lrs()
        return [lr * (1.0 + (f - s) / (n * s + (e - 1) * (f - s))) for lr in self._lrs()]

    def _closed_form(self):
        s, f, n = self.start_factor, self.end_factor, self.total_iters
        return [base * (s + (f - s) * min(n, self.last_epoch) / n) for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """factor x the base rate for total_iters epochs, then the base rate."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if not 0 <= factor <= 1:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._lrs()]
        if self.last_epoch != self.total_iters:
            return self._lrs()
        return [lr * (1.0 / self.factor) for lr in self._lrs()]

    def _closed_form(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class LambdaLR(LRScheduler):
    """The base rate times lr_lambda(epoch) (one function, or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for base, f in zip(self.base_lrs, self.lr_lambdas)]


class MultiplicativeLR(LRScheduler):
    """The rate times lr_lambda(epoch) at each step after the first."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch > 0:
            return [lr * f(self.last_epoch) for lr, f in zip(self._lrs(), self.lr_lambdas)]
        return self._lrs()


class PolynomialLR(LRScheduler):
    """The base rate times (1 - epoch / total_iters) ** power, 0 after total_iters."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, n = self.last_epoch, self.total_iters
        if e == 0 or e > n:
            return self._lrs()
        factor = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power
        return [lr * factor for lr in self._lrs()]

    def _closed_form(self):
        n = self.total_iters
        return [base * (1.0 - min(n, self.last_epoch) / n) ** self.power for base in self.base_lrs]


__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR", "ConstantLR",
           "LambdaLR", "MultiplicativeLR", "PolynomialLR"]


# ---- CyclicLR, CosineAnnealingWarmRestarts, ReduceLROnPlateau: their state in float32, as MindSpore's
_F = np.float32


def _per_group(optimizer, value, name):
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"Expected {len(optimizer.param_groups)} values for {name}, got {len(value)}")
        return list(value)
    return [value] * len(optimizer.param_groups)


class CyclicLR(LRScheduler):
    """Cycles each group's rate between base_lr and max_lr: up for step_size_up steps, down for
    step_size_down; the amplitude scaled by 1 ('triangular'), 1 / 2 ** (cycle - 1) ('triangular2'),
    gamma ** step ('exp_range') or scale_fn (of the cycle, or of the step with scale_mode
    'iterations'). The groups' rates start at base_lr."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", last_epoch=-1):
        base_lrs = _per_group(optimizer, base_lr, "base_lr")
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"].set_data(Tensor(np.array(lr, _F)))
        self.max_lrs = [_F(v) for v in _per_group(optimizer, max_lr, "max_lr")]
        up = float(step_size_up)
        down = up if step_size_down is None else float(step_size_down)
        self.total_step_size = up + down
        self.step_up_ratio = up / self.total_step_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma, self.scale_mode = mode, gamma, scale_mode
        self._scale_fn_custom = scale_fn
        if scale_fn is None:
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        super().__init__(optimizer, last_epoch)
        self.base_lrs = [_F(v) for v in base_lrs]

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_step_size)
        x = 1.0 + self.last_epoch / self.total_step_size - cycle
        scale = x / self.step_up_ratio if x <= self.step_up_ratio else (x - 1) / (self.step_up_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        return [_F(b + _F((m - b) * _F(scale)) * _F(self.scale_fn(at)))
                for b, m in zip(getattr(self, "base_lrs", self._lrs()), self.max_lrs)]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from each group's base rate to eta_min over T_i steps, restarting with
    T_i = T_0, then T_0 * T_mult, T_0 * T_mult ** 2 ... `step(epoch)` jumps to an epoch."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"T_0 should be an integer and equal or greater than 0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"T_mult should be an integer and equal or greater than 1, but got {T_mult}")
        if isinstance(eta_min, bool) or not isinstance(eta_min, (int, float)):
            raise TypeError(f"The type of 'eta_min' should be float or int, but got {type(eta_min).__name__}.")
        self.T_0, self.T_i, self.T_mult, self.eta_min = _F(T_0), _F(T_0), T_mult, eta_min
        self.T_cur = _F(last_epoch)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        pct = _F(math.pi * float(self.T_cur) / float(self.T_i))
        cos = _F(np.cos(pct))
        return [_F(self.eta_min + (base - self.eta_min) * (1 + float(cos)) / 2) for base in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = _F(self.T_cur + 1)
            if self.T_cur >= self.T_i:
                self.T_cur = _F(self.T_cur - self.T_i)
                self.T_i = _F(self.T_i * self.T_mult)
        else:
            if epoch < 0:
                raise ValueError(f"epoch should be a non-negative integer, but got {epoch}")
            e = _F(epoch)
            if e >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = _F(e % self.T_0)
                else:
                    n = int(math.log(float(e / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = _F(e - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1))
                    self.T_i = _F(self.T_0 * self.T_mult ** n)
            else:
                self.T_i, self.T_cur = self.T_0, e
        self._step_count += 1
        self.last_epoch = int(math.floor(epoch))
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"].set_data(Tensor(np.array(lr, _F)))
        self._last_lr = self._lrs()


class ReduceLROnPlateau:
    """Multiplies each group's rate by `factor` (not below min_lr, and only by more than eps) once
    the metric passed to `step(metric)` has not improved for more than `patience` steps, then
    waits `cooldown` steps; improvement: below best * (1 - threshold) ('min', 'rel'), below best -
    threshold ('abs'), above best * (1 + threshold) / best + threshold for 'max'. Compared in
    float32, as MindSpore keeps its state."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("The lr factor should be less than 1.0.")
        if not hasattr(optimizer, "param_groups"):          # (experimental.optim's Optimizer)
            raise TypeError(f"Expected an `Optimizer`, but got type {type(optimizer).__name__}")
        self.factor, self.optimizer = factor, optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.min_lrs = [_F(v) for v in min_lr]
        else:
            self.min_lrs = [_F(min_lr)] * len(optimizer.param_groups)
        if mode not in ("min", "max"):
            raise ValueError(f"`mode` should be 'min' or 'max', but got {mode}.")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"`threshold mode` should be 'rel' or 'abs', but got {threshold_mode}.")
        self.mode, self.patience, self.threshold, self.threshold_mode = mode, patience, threshold, threshold_mode
        self.cooldown, self.eps = cooldown, eps
        self.last_epoch = 0
        self.best = _F(np.inf if mode == "min" else -np.inf)
        self.cooldown_counter, self.wait = _F(0), _F(0)

    def _is_improvement(self, current):
        if self.mode == "min":
            bench = self.best * _F(1.0 - self.threshold) if self.threshold_mode == "rel" else self.best - _F(self.threshold)
            return current < bench
        bench = self.best * _F(self.threshold + 1.0) if self.threshold_mode == "rel" else self.best + _F(self.threshold)
        return current > bench

    def step(self, metrics):
        """One evaluation's metric (a number or a one-element Tensor)."""
        current = _F(metrics.asnumpy() if hasattr(metrics, "asnumpy") else metrics)
        self.last_epoch += 1
        if self._is_improvement(current):
            self.best, self.wait = current, _F(0)
        else:
            self.wait = _F(self.wait + 1)
        if self.cooldown_counter > 0:
            self.cooldown_counter, self.wait = _F(self.cooldown_counter - 1), _F(0)
        if self.wait > self.patience:
            for group, floor in zip(self.optimizer.param_groups, self.min_lrs):
                old = _F(group["lr"].asnumpy())
                new = max(_F(old * _F(self.factor)), floor)
                if old > new + self.eps:
                    group["lr"].set_data(Tensor(np.array(new, _F)))
            self.cooldown_counter, self.wait = _F(self.cooldown), _F(0)
        return True

    def get_last_lr(self):
        return [Tensor(np.array(float(group["lr"].asnumpy()), _F)) for group in self.optimizer.param_groups]


class SequentialLR:
    """The schedulers in turn: schedulers[i] from epoch milestones[i - 1] on, each started at its own
    epoch 0 when its milestone comes (`step(0)`), as MindSpore's SequentialLR. Construction resets
    the groups' rates to their initial ones and restarts the first schedule (each scheduler's
    construction had already stepped once)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        for k, sch in enumerate(schedulers):
            if sch.optimizer is not optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer, but "
                                 f"got scheduler at index {k} is different from the optimizer passed in.")
            if sch.optimizer is not schedulers[0].optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer, but "
                                 f"got schedulers at index 0 and {k} are different.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones {len(milestones)}")
        self._schedulers, self.milestones = list(schedulers), list(milestones)
        self.optimizer = optimizer
        self.last_epoch = last_epoch + 1
        for group in optimizer.param_groups:
            group["lr"].set_data(Tensor(np.array(group["initial_lr"], np.float32)))
        for sch in self._schedulers:
            sch.last_epoch -= 1
        self._schedulers[0].step()

    def step(self):
        self.last_epoch += 1
        k = bisect.bisect_right(self.milestones, self.last_epoch)
        sch = self._schedulers[k]
        if k > 0 and self.milestones[k - 1] == self.last_epoch:
            sch.step(0)
        else:
            sch.step()

    def get_last_lr(self):
        return [Tensor(np.array(float(group["lr"].asnumpy()), _F)) for group in self.optimizer.param_groups]


__all__ += ["CyclicLR", "CosineAnnealingWarmRestarts", "ReduceLROnPlateau", "SequentialLR"]
