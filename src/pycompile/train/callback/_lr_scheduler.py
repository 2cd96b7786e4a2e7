"""LearningRateScheduler: change the optimizer's learning rate after each step."""
from __future__ import annotations

import logging
import math

import numpy as np

from pycompile.common.tensor import Tensor
from pycompile.train.callback._callback import Callback

logger = logging.getLogger("pycompile.train")


class LearningRateScheduler(Callback):
    """After each step, `learning_rate_function(lr, cur_step_num)` gives the new rate, written
    into `cb_params.optimizer.learning_rate` (a Float32 Parameter) when it differs. As in
    MindSpore, `lr` is the current value printed by NumPy and read back as a Python float, so a
    Float32 0.1 arrives as 0.1, not 0.10000000149011612."""

    def __init__(self, learning_rate_function):
        super().__init__()
        self.learning_rate_function = learning_rate_function

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        current = cb_params.optimizer.learning_rate
        lr = float(np.array2string(current.asnumpy()))
        new_lr = self.learning_rate_function(lr, cb_params.cur_step_num)
        if not math.isclose(lr, new_lr, rel_tol=1e-10):
            current.set_data(Tensor(np.full(current.shape, new_lr, np.float32)))
            logger.info("At step %s, learning_rate change to %s", cb_params.cur_step_num, new_lr)
