"""Learning-rate schedules as Cells of the global step (mindspore.nn.learning_rate_schedule).

Each takes the step as an int Tensor (an optimizer passes its `global_step`, shape (1,)) and
returns a float32 Tensor of the same shape. They are graph code: an optimizer calls them inside
its construct, so a changing rate is a value computed in the step, never a recompile. Formulas
are MindSpore's (checked against rates recorded from MindSpore 2.10 in tests/oracle/).
"""
from __future__ import annotations

import math

from pycompile.common import dtype as mstype
from pycompile.common import validator as V
from pycompile.nn.cell import Cell
from pycompile.ops import functional as F


def _positive_int(value, name, cls_name):
    V.check_positive_int(value, name, cls_name)


def _positive_float(value, name, cls_name):
    V.check_positive_float(value, name, cls_name)


def _check_inputs(learning_rate, decay_rate, decay_steps, is_stair, cls_name):
    _positive_int(decay_steps, 'decay_steps', cls_name)
    _positive_float(learning_rate, 'learning_rate', cls_name)
    _positive_float(decay_rate, 'decay_rate', cls_name)
    V.check_value_type('is_stair', is_stair, [bool], cls_name)


def _step(global_step):
    return F.cast(global_step, mstype.float32)


class LearningRateSchedule(Cell):
    """Base of learning-rate schedules: subclasses compute the rate in `construct(global_step)`."""

    def construct(self, global_step):
        raise NotImplementedError


class _DecayLR(LearningRateSchedule):
    """The three decays' shared arguments (learning_rate, decay_rate, decay_steps, is_stair),
    checked as MindSpore checks them."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _check_inputs(learning_rate, decay_rate, decay_steps, is_stair, self.cls_name)
        self.learning_rate, self.decay_rate = learning_rate, decay_rate
        self.decay_steps, self.is_stair = decay_steps, is_stair


class ExponentialDecayLR(_DecayLR):
    """lr * decay_rate ** (step / decay_steps), the exponent floored when is_stair."""

    def construct(self, global_step):
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = F.floor(p)
        return self.learning_rate * F.pow(self.decay_rate, p)


class NaturalExpDecayLR(_DecayLR):
    """lr * e ** (-decay_rate * step), the step rounded down to decay_steps when is_stair."""

    def construct(self, global_step):
        p = _step(global_step)
        if self.is_stair:
            p = F.floor_divide(p, self.decay_steps) * self.decay_steps
        return self.learning_rate * F.pow(math.e, -self.decay_rate * p)


class InverseDecayLR(_DecayLR):
    """lr / (1 + decay_rate * step / decay_steps), the ratio floored when is_stair."""

    def construct(self, global_step):
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = F.floor(p)
        return self.learning_rate / (1 + self.decay_rate * p)


class CosineDecayLR(LearningRateSchedule):
    """min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(step, decay_steps) / decay_steps))."""

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        if not isinstance(min_lr, float):
            raise TypeError(f"For 'CosineDecayLR', the argument 'min_lr' must be type of float, "
                            f"but got 'min_lr' type: {type(min_lr)}.")
        if min_lr < 0:
            raise ValueError(f"For 'CosineDecayLR', the 'min_lr' must be non-negative, but got {min_lr}.")
        _positive_float(max_lr, 'max_lr', self.cls_name)
        _positive_int(decay_steps, 'decay_steps', self.cls_name)
        if min_lr >= max_lr:
            raise ValueError(f"For 'CosineDecayLR', the 'max_lr' must be greater than the 'min_lr', but got "
                             f"'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}.")
        self.min_lr, self.max_lr, self.decay_steps = min_lr, max_lr, decay_steps
        self.delta = 0.5 * (max_lr - min_lr)

    def construct(self, global_step):
        p = F.cast(F.minimum(global_step, self.decay_steps), mstype.float32)
        # MindSpore writes cos(x) as sin(x + pi / 2); the same here keeps its rounding
        return self.min_lr + self.delta * (1.0 + F.sin(math.pi * (p / self.decay_steps + 0.5)))


class PolynomialDecayLR(LearningRateSchedule):
    """(lr - end_lr) * (1 - step / decay_steps) ** power + end_lr, the step capped at decay_steps
    (or, with update_decay_steps, decay_steps stretched to the next multiple past the step)."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False):
        super().__init__()
        _positive_float(learning_rate, 'learning_rate', self.cls_name)
        if not isinstance(end_learning_rate, float):
            raise TypeError(f"For 'PolynomialDecayLR', the argument 'end_learning_rate' must be type of float, "
                            f"but got 'end_learning_rate' type: {type(end_learning_rate)}.")
        if end_learning_rate < 0:
            raise ValueError(f"For 'PolynomialDecayLR', the 'end_learning_rate' must be non-negative, "
                             f"but got {end_learning_rate}.")
        _positive_int(decay_steps, 'decay_steps', self.cls_name)
        _positive_float(power, 'power', self.cls_name)
        if not isinstance(update_decay_steps, bool):
            raise TypeError(f"For '{self.cls_name}', the type of 'update_decay_steps' must be bool, "
                            f"but got {type(update_decay_steps).__name__}.")
        self.decay_steps, self.end_learning_rate = decay_steps, end_learning_rate
        self.diff_learning_rate = learning_rate - end_learning_rate
        self.power, self.update_decay_steps = power, update_decay_steps

    def construct(self, global_step):
        step = _step(global_step)
        decay_steps = self.decay_steps
        if self.update_decay_steps:
            decay_steps = decay_steps * F.maximum(F.ceil(step / decay_steps), 1)
        else:
            step = F.minimum(step, decay_steps)
        p = step / decay_steps
        return self.diff_learning_rate * F.pow(1.0 - p, self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """lr * min(step, warmup_steps) / warmup_steps."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        if not isinstance(learning_rate, float):
            raise TypeError(f"For 'WarmUpLR', the argument 'learning_rate' must be type of float, "
                            f"but got 'learning_rate' type: {type(learning_rate)}.")
        if learning_rate < 0:
            raise ValueError(f"For 'WarmUpLR', the 'learning_rate' must be non-negative, but got {learning_rate}.")
        _positive_int(warmup_steps, 'warmup_steps', self.cls_name)
        self.learning_rate, self.warmup_steps = learning_rate, warmup_steps

    def construct(self, global_step):
        percent = F.cast(F.minimum(global_step, self.warmup_steps), mstype.float32) / self.warmup_steps
        return self.learning_rate * percent


__all__ = ['LearningRateSchedule', 'ExponentialDecayLR', 'NaturalExpDecayLR', 'InverseDecayLR', 'CosineDecayLR',
           'PolynomialDecayLR', 'WarmUpLR']
