"""History: the network output (and eval metrics) at the end of each epoch."""
from __future__ import annotations

import numpy as np

from pycompile.common.tensor import Tensor
from pycompile.train.callback._callback import Callback


class History(Callback):
    """`history.epoch == {"epoch": [1, 2, ...]}` and `history.history == {"net_output": [...],
    <metric>: [...]}`: per epoch, the mean of the last step's output (the first Tensor of a
    tuple) and the metrics of an evaluation run during fit."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = None

    def begin(self, run_context):
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context):
        cb_params = run_context.original_args()
        self.epoch["epoch"].append(cb_params.get("cur_epoch_num", 1))
        output = cb_params.net_outputs
        if isinstance(output, (tuple, list)) and output and isinstance(output[0], Tensor):
            output = output[0]
        if isinstance(output, Tensor):
            output = np.mean(output.asnumpy())
        entries = {"net_output": output}
        entries.update(cb_params.get("metrics") or {})
        for key, value in entries.items():
            self.history.setdefault(key, []).append(value)
