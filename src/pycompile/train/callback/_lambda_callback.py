"""LambdaCallback: a callback made of functions."""
from __future__ import annotations

from pycompile.train.callback._callback import Callback

_NAMES = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin", "on_train_step_end",
          "on_train_begin", "on_train_end", "on_eval_epoch_begin", "on_eval_epoch_end", "on_eval_step_begin",
          "on_eval_step_end", "on_eval_begin", "on_eval_end")


class LambdaCallback(Callback):
    """Each argument is a function of the RunContext called at that hook; hooks not given do
    nothing (the older names are not called either)."""

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None, on_train_step_begin=None,
                 on_train_step_end=None, on_train_begin=None, on_train_end=None, on_eval_epoch_begin=None,
                 on_eval_epoch_end=None, on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        super().__init__()
        given = locals()
        for name in _NAMES:
            setattr(self, name, given[name] or _nothing)


def _nothing(run_context):
    return None
