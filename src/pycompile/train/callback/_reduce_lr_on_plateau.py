"""ReduceLROnPlateau: multiply the optimizer's learning rate by `factor` when a monitored value
has not improved for `patience` epochs."""
from __future__ import annotations

import logging

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.train.callback._callback import Callback, check_bool, check_non_negative_int, handle_loss
from pycompile.train.callback._early_stop import _SMALLER_IS_BETTER

logger = logging.getLogger("pycompile.train")


class ReduceLROnPlateau(Callback):
    """At each epoch's end reads `monitor` ('loss': the network's output; another name:
    cb_params.eval_results[monitor]); after `patience` epochs without an improvement beyond
    `min_delta` sets the learning rate to max(lr * factor, min_lr) (only while lr > min_lr), then
    waits `cooldown` epochs before counting again. As in MindSpore 2.10 the optimizer's learning
    rate must be one Parameter (a fixed float lr): a schedule or group lrs is a ValueError, and a
    monitored value of 0 or a missing one skips the epoch. Data-parallel runs average the value
    over the ranks first."""

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0):
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"The type of 'monitor' should be 'str', but got type '{type(monitor).__name__}'.")
        if isinstance(factor, bool) or not isinstance(factor, float) or not 0.0 < factor < 1.0:
            raise ValueError(f"The input value must be float and in range (0.0, 1.0), but got '{factor}'.")
        self.monitor, self.factor = monitor, factor
        self.patience = check_non_negative_int(patience)
        self.verbose = check_bool(verbose, "verbose")
        if not isinstance(mode, str):
            raise TypeError(f"The type of 'mode' should be 'str', but got type '{type(mode).__name__}'.")
        if isinstance(min_delta, bool) or not isinstance(min_delta, (float, int)):
            raise TypeError(f"The type of 'min_delta' should be 'float' or 'int', but got type "
                            f"'{type(min_delta).__name__}'.")
        self.mode = mode
        self.min_delta = abs(min_delta)
        self.cooldown = check_non_negative_int(cooldown)
        if isinstance(min_lr, bool) or not isinstance(min_lr, (float, int)):
            raise TypeError(f"The type of 'min_lr' should be 'float' or 'int', but got type '{type(min_lr).__name__}'.")
        self.min_lr = min_lr
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"mode should be 'auto', 'min' or 'max', but got {mode}.")
        self._minimize = mode == "min" or (mode == "auto" and monitor in _SMALLER_IS_BETTER)
        self.cooldown_counter = 0
        self.wait = 0
        self.best = np.inf if self._minimize else -np.inf

    def is_improvement(self, current, reference):
        if self._minimize:
            return np.less(current, reference - self.min_delta)
        return np.greater(current, reference + self.min_delta)

    def on_train_begin(self, run_context):
        self.cooldown_counter = 0
        self.wait = 0
        self.best = np.inf if self._minimize else -np.inf

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        lr = cb_params.optimizer.learning_rate
        if not isinstance(lr, Parameter):
            raise ValueError("ReduceLROnPlateau does not support dynamic learning rate and group learning rate now.")
        current = self._monitor_value(cb_params)
        current = _mean_over_ranks(current)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = lr.asnumpy()
                if old > self.min_lr:
                    scaled = old * old.dtype.type(self.factor)        # in the lr's dtype, as MindSpore
                    new = scaled if scaled > self.min_lr else self.min_lr
                    lr.set_data(Tensor(np.asarray(new, old.dtype)))
                    if self.verbose:
                        print("Epoch %05d: ReduceLROnPlateau reducing learning rate to %s."
                              % (cb_params.cur_epoch_num, new))
                self.cooldown_counter = self.cooldown
                self.wait = 0

    def _monitor_value(self, cb_params):
        candidates = {}
        if self.monitor == "loss":
            value = handle_loss(cb_params.get("net_outputs"))
            if isinstance(value, float) and not np.isfinite(value):
                logger.warning("Invalid %s.", self.monitor)
        else:
            candidates = cb_params.get("eval_results", {}) or {}
            value = candidates.get(self.monitor)
        if value is None:
            logger.warning("Learning rate reduction is conditioned on %s, which is not available. Available choices "
                           "are: %s", self.monitor, {"loss", *candidates})
        if isinstance(value, np.ndarray) and value.shape != ():
            raise ValueError("ReduceLROnPlateau only supports scalar monitor now.")
        return np.array(value) if value else None


def _mean_over_ranks(value):
    """The monitored value averaged over a data-parallel group (one process: itself)."""
    if value is None:
        return None
    from pycompile.communication import management
    if not management.is_initialized() or management.get_group_size() == 1:
        return value
    from pycompile import ops
    total = ops.AllReduce()(Tensor(np.asarray(value, np.float32), mstype.float32))
    return total.asnumpy() / management.get_group_size()
