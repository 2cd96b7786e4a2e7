"""ProgressBar (pycompile's own): a tqdm bar per epoch in terminals."""
from __future__ import annotations

import sys

from pycompile.train.callback._callback import Callback, handle_loss


class ProgressBar(Callback):
    """Shows `epoch 2/10: 37%|███▋      | 117/313 [00:03<00:05, loss=0.412]` on stdout while
    training. `enable=None` (default) shows it only when stdout is a terminal and `tqdm` is
    installed (`pip install 'pycompile[progress]'`), so logs and CI output stay clean;
    `enable=True` insists and raises ImportError without tqdm. The loss shown is the same mean of
    the network output LossMonitor prints."""

    def __init__(self, enable=None, leave=True):
        super().__init__()
        self._tqdm = None
        self.enabled = False
        if enable is False:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            if enable:
                raise ImportError("ProgressBar needs the 'tqdm' package: pip install 'pycompile[progress]'") from None
            return
        self._tqdm = tqdm
        self.enabled = bool(enable) or _is_terminal(sys.stdout)
        self._leave = leave
        self._bar = None

    def on_train_epoch_begin(self, run_context):
        if not self.enabled:
            return
        cb_params = run_context.original_args()
        epoch, epochs = cb_params.get("cur_epoch_num", 1), cb_params.get("epoch_num")
        total = cb_params.get("batch_num")
        desc = f"epoch {epoch}/{epochs}" if epochs else f"epoch {epoch}"
        self._bar = self._tqdm(total=total if isinstance(total, int) and total > 0 else None, desc=desc,
                               file=sys.stdout, leave=self._leave, dynamic_ncols=True)

    def on_train_step_end(self, run_context):
        if self._bar is None:
            return
        loss = handle_loss(run_context.original_args().get("net_outputs"))
        self._bar.update(1)
        if isinstance(loss, float):
            self._bar.set_postfix(loss=f"{loss:.4g}", refresh=False)

    def on_train_epoch_end(self, run_context):
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def on_train_end(self, run_context):
        self.on_train_epoch_end(run_context)


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
