"""Loss: the average of the losses passed to update()."""
from __future__ import annotations

from pycompile.nn.metrics.metric import Metric, rearrange_inputs, widen


class Loss(Metric):
    """Each update takes one loss (a scalar or a 1-D array, whose mean counts as one value);
    eval() is the mean over updates."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._sum_loss = 0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 1:
            raise ValueError(f"For 'Loss.update', it needs 1 input (loss), but got {len(inputs)}")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the dimension of your input (loss) must be 1, but got {loss.ndim}.")
        self._sum_loss += widen(loss.mean(-1))
        self._total_num += 1

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("The 'Loss' can not be calculated, because the number of samples is 0, please check "
                               "whether has called update method before calling eval method.")
        return self._sum_loss / self._total_num
