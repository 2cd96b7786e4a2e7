"""Callback, RunContext and the pieces a training loop drives them with.

How MindSpore 2.10 dispatches, which this module keeps: a training loop calls only the
`on_train_*` / `on_eval_*` hooks. Their default implementations call the older names, so a
callback that overrides `step_end` runs after every train step *and* every eval step:

    on_train_begin / on_eval_begin            -> begin
    on_train_epoch_begin / on_eval_epoch_begin -> epoch_begin
    on_train_step_begin / on_eval_step_begin   -> step_begin
    on_train_step_end / on_eval_step_end       -> step_end
    on_train_epoch_end / on_eval_epoch_end     -> epoch_end
    on_train_end / on_eval_end                 -> end

A callback overriding a new name is not routed to the old one. `_CallbackManager` runs a list of
callbacks as one (entering each as a context manager for the whole run); `Model.train` builds an
`_InternalCallbackParam`, wraps it in a `RunContext`, and calls the manager's hooks in order,
stopping after the step / epoch in which a callback called `run_context.request_stop()`.
"""
from __future__ import annotations

import logging
from contextlib import ExitStack

import numpy as np

from pycompile.common.tensor import Tensor

logger = logging.getLogger("pycompile.train")


class Callback:
    """Base class of training / evaluation callbacks; override the hooks you need. Each hook
    receives a RunContext whose `original_args()` holds the loop's state (cb_params)."""

    def __enter__(self):
        return self

    def __exit__(self, *err):
        return None

    # Older names: still called, through the defaults of the hooks below.
    def begin(self, run_context):
        """Before training or evaluation starts."""

    def epoch_begin(self, run_context):
        """Before each epoch."""

    def epoch_end(self, run_context):
        """After each epoch."""

    def step_begin(self, run_context):
        """Before each step."""

    def step_end(self, run_context):
        """After each step."""

    def end(self, run_context):
        """After training or evaluation ends."""

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        self.end(run_context)


HOOKS = ("begin", "epoch_begin", "epoch_end", "step_begin", "step_end", "end",
         "on_train_begin", "on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
         "on_train_step_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin", "on_eval_epoch_end",
         "on_eval_step_begin", "on_eval_step_end", "on_eval_end")


class _CallbackManager(Callback):
    """Runs a list of callbacks as one callback: each hook calls the same hook of every callback,
    in list order. Use as a context manager around the whole loop, so callbacks that are context
    managers are entered once and exited even when training fails."""

    def __init__(self, callbacks):
        self._callbacks = []
        self._stack = None
        if isinstance(callbacks, Callback):
            self._callbacks.append(callbacks)
        elif isinstance(callbacks, list):
            for cb in callbacks:
                if not isinstance(cb, Callback):
                    raise TypeError("When the 'callbacks' is a list, the elements in 'callbacks' must be "
                                    "Callback functions.")
                self._callbacks.append(cb)
        elif callbacks is not None:
            raise TypeError("The 'callbacks' is not a Callback or a list of Callback.")

    def __enter__(self):
        if self._stack is None:
            self._stack = ExitStack().__enter__()
            entered = []
            for cb in self._callbacks:
                target = self._stack.enter_context(cb)
                if not isinstance(target, Callback):
                    logger.warning("Please return 'self' or a Callback as the enter target.")
                    target = cb
                entered.append(target)
            self._callbacks = entered
        return self

    def __exit__(self, *err):
        stack, self._stack = self._stack, None
        return stack.__exit__(*err) if stack is not None else None


def _fan_out(hook):
    def run(self, run_context):
        for cb in self._callbacks:
            getattr(cb, hook)(run_context)
    run.__name__ = hook
    run.__doc__ = f"Call `{hook}` of every callback, in order."
    return run


for _hook in HOOKS:
    setattr(_CallbackManager, _hook, _fan_out(_hook))


class _InternalCallbackParam(dict):
    """The loop's state, a dict whose keys read as attributes (`cb_params.cur_step_num`).
    Model.train fills MindSpore's keys: train_network, network, optimizer, loss_fn, epoch_num,
    batch_num, cur_epoch_num, cur_step_num, net_outputs, mode ("train" / "eval"),
    dataset_sink_mode, parallel_mode, device_number, list_callback, train_dataset,
    train_dataset_element, last_save_ckpt_step, latest_ckpt_file, initial_step; eval adds
    eval_network, valid_dataset, metrics. A missing key raises AttributeError."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"cb_params has no {key!r}") from None

    def __setattr__(self, key, value):
        self[key] = value


class RunContext:
    """What a callback receives: the loop's state (`original_args()`) and a way to ask the loop
    to stop after the current step (`request_stop()`)."""

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError(f"The argument 'original_args' of RunContext should be dict type, "
                            f"but got {type(original_args)}.")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        return self._original_args

    def request_stop(self):
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        return self._stop_requested


def handle_loss(loss):
    """The loss as MindSpore's callbacks report it: a Tensor becomes the float mean of its values;
    from a tuple / list of outputs the first Tensor is taken as it is (printed as a Tensor)."""
    if isinstance(loss, (tuple, list)):
        if loss and isinstance(loss[0], Tensor):
            return loss[0]
        return loss
    if isinstance(loss, Tensor):
        return float(np.mean(loss.asnumpy()))
    return loss


def check_non_negative_int(value, name="value"):
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"The input value must be int and must >= 0, but got '{value}' with type "
                         f"'{type(value).__name__}'.")
    return value


def check_bool(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"The type of '{name}' should be 'bool', but got type '{type(value).__name__}'.")
    return value
