"""LossMonitor: print the loss every N steps, in MindSpore's words."""
from __future__ import annotations

import math

from pycompile.train.callback._callback import Callback, check_non_negative_int, handle_loss


class LossMonitor(Callback):
    """Prints `epoch: E step: S, loss is L` every `per_print_times` steps (0: never), where S
    counts steps within the epoch and L is the mean of the network's output (a tuple's first
    Tensor is printed as it is). A NaN or Inf loss raises ValueError and ends training. After an
    evaluation with metrics inside fit, prints `Eval result: epoch E, metrics: {...}`.

    It hooks `step_end`, so (as in MindSpore) it also reports the eval steps of Model.eval."""

    def __init__(self, per_print_times=1):
        super().__init__()
        self._per_print_times = check_non_negative_int(per_print_times)
        self._last_print_time = 0

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        epoch = cb_params.get("cur_epoch_num", 1)
        step = cb_params.cur_step_num
        step_in_epoch = (step - 1) % cb_params.batch_num + 1
        loss = handle_loss(cb_params.net_outputs)
        if isinstance(loss, float) and (math.isnan(loss) or math.isinf(loss)):
            raise ValueError(f"In epoch: {epoch} step: {step_in_epoch}, loss is NAN or INF, training process "
                             f"cannot continue, terminating training.")
        every = self._per_print_times
        if every == 0:
            return
        if step <= self._last_print_time:
            # The step counter went back (a new train() call): rewind the last print so the
            # cadence continues, by whole sink rounds when the data sinks.
            back = max(every, cb_params.batch_num if cb_params.get("dataset_sink_mode") else 1)
            while step <= self._last_print_time:
                self._last_print_time -= back
        if step - self._last_print_time >= every:
            self._last_print_time = step
            print(f"epoch: {epoch} step: {step_in_epoch}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print("Eval result: epoch %d, metrics: %s" % (cb_params.cur_epoch_num, metrics))
