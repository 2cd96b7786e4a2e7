"""Learning rates as Python lists, one per step (mindspore.nn.dynamic_lr). An optimizer given a
list indexes it by its global_step inside the compiled step. Formulas and argument checks are
MindSpore 2.10's; `tests/oracle/data/lr_schedules.json` holds its results."""
from __future__ import annotations

import math

from pycompile.common import validator as V


def _positive_int(value, name):
    V.check_positive_int(value, name)


def _float(value, name, positive=True):
    if positive:
        V.check_positive_float(value, name)
    else:
        V.check_non_negative_float(value, name)


def _check_inputs(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair):
    _positive_int(total_step, 'total_step')
    _positive_int(step_per_epoch, 'step_per_epoch')
    _positive_int(decay_epoch, 'decay_epoch')
    _float(learning_rate, 'learning_rate')
    _float(decay_rate, 'decay_rate')
    V.check_value_type('is_stair', is_stair, [bool])


def piecewise_constant_lr(milestone, learning_rates):
    """learning_rates[t] for the steps in [milestone[t-1], milestone[t])."""
    V.check_value_type('milestone', milestone, (tuple, list))
    V.check_value_type('learning_rates', learning_rates, (tuple, list))
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For 'piecewise_constant_lr', the size of 'milestone' must be same with the size of "
                         f"'learning_rates', but got 'milestone' size: {len(milestone)}, 'learning_rates' size: "
                         f"{len(learning_rates)}.")
    lr, last = [], 0
    for i, item in enumerate(milestone):
        _positive_int(item, f'milestone[{i}]')
        V.check_is_float(learning_rates[i], f'learning_rates[{i}]')
        if item < last:
            raise ValueError(f"For 'piecewise_constant_lr', the value of milestone[{i}] must be greater than "
                             f"milestone[{i - 1}], but got milestone[{i}]: {milestone[i]}, milestone[{i - 1}]: "
                             f"{milestone[i - 1]}.")
        lr += [learning_rates[i]] * (item - last)
        last = item
    return lr


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    _check_inputs(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        p = math.floor(i / step_per_epoch) / decay_epoch
        out.append(learning_rate * decay_rate ** (math.floor(p) if is_stair else p))
    return out


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    _check_inputs(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if is_stair:
            epoch = math.floor(epoch / decay_epoch) * decay_epoch
        out.append(learning_rate * math.e ** (-decay_rate * epoch))
    return out


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    _check_inputs(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        ratio = math.floor(epoch / decay_epoch) if is_stair else epoch / decay_epoch
        out.append(learning_rate / (1 + decay_rate * ratio))
    return out


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    if not isinstance(min_lr, float):
        raise TypeError(f"For 'cosine_decay_lr', the argument 'min_lr' must be type of float, but got 'min_lr' "
                        f"type: {type(min_lr)}.")
    _float(min_lr, 'min_lr', positive=False)
    _float(max_lr, 'max_lr')
    for name, v in (('total_step', total_step), ('step_per_epoch', step_per_epoch), ('decay_epoch', decay_epoch)):
        _positive_int(v, name)
    if min_lr >= max_lr:
        raise ValueError(f"For 'cosine_decay_lr', the 'max_lr' must be greater than the 'min_lr', but got 'max_lr' "
                         f"value: {max_lr}, 'min_lr' value: {min_lr}.")
    delta = 0.5 * (max_lr - min_lr)
    return [min_lr + delta * (1 + math.cos(math.pi * min(math.floor(i / step_per_epoch), decay_epoch) / decay_epoch))
            for i in range(total_step)]


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch, power,
                        update_decay_epoch=False):
    _float(learning_rate, 'learning_rate')
    if not isinstance(end_learning_rate, float):
        raise TypeError(f"For 'polynomial_decay_lr', the argument 'end_learning_rate' must be type of float, but "
                        f"got 'end_learning_rate' type: {type(end_learning_rate)}.")
    _float(end_learning_rate, 'end_learning_rate', positive=False)
    _float(power, 'power')
    for name, v in (('total_step', total_step), ('step_per_epoch', step_per_epoch), ('decay_epoch', decay_epoch)):
        _positive_int(v, name)
    V.check_value_type('update_decay_epoch', update_decay_epoch, [bool])
    delta = learning_rate - end_learning_rate
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if update_decay_epoch:
            span = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            span, epoch = decay_epoch, min(epoch, decay_epoch)
        out.append(delta * (1 - epoch / span) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    if not isinstance(learning_rate, float):
        raise TypeError(f"For 'warmup_lr', the argument 'learning_rate' must be type of float, but got "
                        f"'learning_rate' type: {type(learning_rate)}.")
    _float(learning_rate, 'learning_rate', positive=False)
    for name, v in (('warmup_epoch', warmup_epoch), ('total_step', total_step), ('step_per_epoch', step_per_epoch)):
        _positive_int(v, name)
    return [learning_rate * min(math.floor(i / step_per_epoch), warmup_epoch) / warmup_epoch
            for i in range(total_step)]


__all__ = ['piecewise_constant_lr', 'exponential_decay_lr', 'natural_exp_decay_lr', 'inverse_decay_lr',
           'cosine_decay_lr', 'polynomial_decay_lr', 'warmup_lr']
