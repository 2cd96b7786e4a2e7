"""TimeMonitor: print each epoch's wall time and the time per step."""
from __future__ import annotations

import time

from pycompile.train.callback._callback import Callback, check_bool


class TimeMonitor(Callback):
    """After every epoch prints `Train epoch time: 12.345 ms, per step time: 4.115 ms` ("Eval"
    in evaluation). Steps per epoch come from cb_params.batch_num when it is a positive int, else
    from `data_size`. With `data_time=True` (and no data sinking) also the time per step spent
    between steps, i.e. waiting for data: ` (data time: 0.123 ms)`."""

    def __init__(self, data_size=None, data_time=False):
        super().__init__()
        self.data_size = data_size
        self.epoch_time = time.time()
        self.data_time = check_bool(data_time, "data_time")
        self.data_time_sum = 0.0
        self.data_time_start = 0.0

    @staticmethod
    def _sinks(run_context) -> bool:
        return bool(run_context.original_args().get("dataset_sink_mode"))

    def on_train_step_begin(self, run_context):
        if self.data_time and not self._sinks(run_context):
            self.data_time_sum += time.time() - self.data_time_start

    def on_train_step_end(self, run_context):
        if self.data_time and not self._sinks(run_context):
            self.data_time_start = time.time()

    def epoch_begin(self, run_context):
        self.epoch_time = time.time()
        if self.data_time and not self._sinks(run_context):
            self.data_time_sum = 0.0
            self.data_time_start = time.time()

    def epoch_end(self, run_context):
        epoch_ms = (time.time() - self.epoch_time) * 1000
        cb_params = run_context.original_args()
        steps = self.data_size
        batch_num = cb_params.get("batch_num")
        if isinstance(batch_num, int) and not isinstance(batch_num, bool) and batch_num > 0:
            steps = batch_num
        if not isinstance(steps, int) or isinstance(steps, bool) or steps <= 0:
            raise ValueError(f"The input value must be int and must > 0, but got '{steps}' with type "
                             f"'{type(steps).__name__}'.")
        line = "{} epoch time: {:5.3f} ms, per step time: {:5.3f} ms".format(
            cb_params.get("mode", "").title(), epoch_ms, epoch_ms / steps)
        if self.data_time and not self._sinks(run_context):
            line += " (data time: {:5.3f} ms)".format(self.data_time_sum * 1000 / steps)
        print(line, flush=True)
