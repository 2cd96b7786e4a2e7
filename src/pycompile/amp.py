"""mindspore.amp: loss scalers for custom training loops, all_finite, and the loss-scale
managers. The scalers keep their scale in Parameters, so `scale` / `unscale` / `adjust` called
inside a compiled step update them in the same native call."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common import validator as V
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.wrap.loss_scale import all_finite  # noqa: F401
from pycompile.ops import functional as F
from pycompile.train.loss_scale_manager import (DynamicLossScaleManager, FixedLossScaleManager,  # noqa: F401
                                                LossScaleManager)


def _map(fn, inputs):
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(_map(fn, x) for x in inputs) if isinstance(inputs, tuple) else [_map(fn, x) for x in inputs]
    return fn(inputs)


class LossScaler:
    """Base class of loss scalers."""

    def scale(self, inputs):
        raise NotImplementedError

    def unscale(self, inputs):
        raise NotImplementedError

    def adjust(self, grads_finite):
        raise NotImplementedError


def _check_scale_value(scale_value):
    V.check_value_type("scale_value", scale_value, [float, int])
    if scale_value < 1.0:
        raise ValueError(f"The argument 'scale_value' must be > 1, but got {scale_value}")


class StaticLossScaler(LossScaler):
    """A constant scale."""

    def __init__(self, scale_value):
        _check_scale_value(scale_value)
        self.scale_value = Parameter(Tensor(scale_value, dtype=mstype.float32), name="scale_value")

    def scale(self, inputs):
        return _map(lambda x: x * F.cast(self.scale_value, x.dtype), inputs)

    def unscale(self, inputs):
        return _map(lambda x: x * F.cast(F.reciprocal(self.scale_value), x.dtype), inputs)

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(LossScaler):
    """Divide the scale by scale_factor (not below 1) when grads_finite is False; multiply it
    (while the product stays finite) after scale_window finite steps in a row."""

    def __init__(self, scale_value, scale_factor, scale_window):
        _check_scale_value(scale_value)
        self.scale_value = Parameter(Tensor(scale_value, dtype=mstype.float32), name="scale_value")
        self.scale_window = V.check_positive_int(scale_window, "scale_window")
        self.scale_factor = V.check_positive_int(scale_factor, "scale_factor")
        self.counter = Parameter(Tensor(0, dtype=mstype.int32), name="counter")

    def scale(self, inputs):
        return _map(lambda x: x * F.cast(self.scale_value, x.dtype), inputs)

    def unscale(self, inputs):
        return _map(lambda x: x * F.cast(F.reciprocal(self.scale_value), x.dtype), inputs)

    def adjust(self, grads_finite):
        one = F.ones((), self.scale_value.dtype)
        grown = self.scale_value * self.scale_factor
        at_window = self.counter == self.scale_window - 1
        kept = F.select(at_window, F.select(F.isfinite(grown), grown, self.scale_value), self.scale_value)
        scale_value = F.select(grads_finite, kept, F.maximum(one, self.scale_value / self.scale_factor))
        counter = (self.counter + 1) % self.scale_window * F.cast(grads_finite, mstype.int32)
        F.assign(self.scale_value, scale_value)
        F.assign(self.counter, counter)
        return True


__all__ = ["all_finite", "LossScaler", "StaticLossScaler", "DynamicLossScaler", "LossScaleManager",
           "FixedLossScaleManager", "DynamicLossScaleManager"]


from pycompile.train.mixed_precision import (auto_mixed_precision, build_train_network,  # noqa: E402,F401
                                             custom_mixed_precision, get_black_list, get_white_list)


def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("amp", __name__, name)
