"""Loss-scale managers (mindspore.train.loss_scale_manager): Python objects that configure the
loss scaling of `Model` (its update cell) - their own update rule runs in Python, as MindSpore's
does."""
from __future__ import annotations

from pycompile.common import validator as V


class LossScaleManager:
    """Base class: get_loss_scale, update_loss_scale(overflow), get_update_cell."""

    def get_loss_scale(self):
        """The current scale."""

    def update_loss_scale(self, overflow):
        """Adjust the scale after a step."""

    def get_update_cell(self):
        """The Cell that updates the scale inside a training step."""


class FixedLossScaleManager(LossScaleManager):
    """A constant scale; with drop_overflow_update the step is skipped on overflow."""

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        if loss_scale < 1:
            raise ValueError(f"The argument 'loss_scale' must be >= 1, but got {loss_scale}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        return None

    def get_update_cell(self):
        from pycompile.nn.wrap.loss_scale import FixedLossScaleUpdateCell
        return FixedLossScaleUpdateCell(self._loss_scale) if self._drop_overflow_update else None


class DynamicLossScaleManager(LossScaleManager):
    """Divide the scale by scale_factor on overflow (never below 1); multiply it after
    scale_window steps without one."""

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        if init_loss_scale < 1.0:
            raise ValueError(f"The argument 'init_loss_scale' must be > 1, but got {init_loss_scale}")
        self.loss_scale = init_loss_scale
        V.check_positive_int(scale_window, "scale_window", type(self).__name__)
        self.scale_window = scale_window
        if scale_factor <= 0:
            raise ValueError(f"The argument 'scale_factor' must be > 0, but got {scale_factor}")
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def update_loss_scale(self, overflow):
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"Dynamic loss scale Continuous overflow {self.bad_step} times, has exceeded maximum "
                               f"threshold.")
        self.cur_iter += 1

    def get_drop_overflow_update(self):
        return True

    def get_update_cell(self):
        from pycompile.nn.wrap.loss_scale import DynamicLossScaleUpdateCell
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)
