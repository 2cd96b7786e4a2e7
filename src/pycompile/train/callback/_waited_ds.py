"""WaitedDSCallback (mindspore.dataset.WaitedDSCallback): a dataset callback that waits for the
training loop, as MindSpore 2.10's does. It lives in train/ (it is a train Callback; the dataset
layer sits below train) and is set on pycompile.dataset by train/callback/__init__.py.

It is both a train Callback and a DSCallback: put it in `map(callbacks=...)` and in
`Model.train(callbacks=[...])`. Before each dataset step after the first `step_size` rows, the
pipeline waits for the training loop's previous `step_end` and then calls
`sync_step_begin(train_run_context, ds_run_context)`; before each epoch after the first, it waits for
`epoch_end` and calls `sync_epoch_begin`. `end` (training finished) releases any wait. A wait longer
than the callback timeout (MindSpore's default, 60 s) raises RuntimeError in the pipeline.

As in MindSpore (recorded: tests/dataset/serialization_records.json's waited_step_*, the conformance
cases ser_waited_*), a subclass that overrides neither sync hook is refused when the pipeline starts
(AttributeError), and the pipeline calls no other dataset hook of the class (`runtime_hooks`: an
overridden ds_step_end is not called).
"""
from __future__ import annotations

import threading

from pycompile.dataset.callbacks import DSCallback
from pycompile.train.callback._callback import Callback

# MindSpore's ds.config callback timeout default (seconds); pycompile's config has no setter for it
CALLBACK_TIMEOUT = 60


class WaitedDSCallback(Callback, DSCallback):
    """Override sync_step_begin and / or sync_epoch_begin (see the module's text)."""

    runtime_hooks = ("ds_epoch_begin", "ds_step_begin")      # the only dataset hooks the pipeline calls

    def __init__(self, step_size=1):
        # MindSpore checks no range here (WaitedDSCallback(0) is accepted)
        self.step_size = step_size
        self.step_event = threading.Event()
        self.step_run_context = None
        self.epoch_event = threading.Event()
        self.epoch_run_context = None
        self.training_ended = False

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        """Called before a dataset epoch (from the second), after the previous training epoch ended."""

    def sync_step_begin(self, train_run_context, ds_run_context):
        """Called before a dataset step (after the first step_size rows), after the previous
        training step ended."""

    # -- the training side ------------------------------------------------------------------------
    def epoch_end(self, run_context):
        self.epoch_run_context = run_context
        self.epoch_event.set()

    def step_end(self, run_context):
        self.step_run_context = run_context
        self.step_event.set()

    def end(self, run_context):
        self.epoch_end(run_context)
        self.step_end(run_context)
        self.training_ended = True

    # -- the dataset side ---------------------------------------------------------------------------
    def _overrides(self):
        cls = type(self)
        return (cls.sync_step_begin is not WaitedDSCallback.sync_step_begin,
                cls.sync_epoch_begin is not WaitedDSCallback.sync_epoch_begin)


    def _wait(self, event, hook):
        if not self.training_ended:
            success = event.wait(timeout=CALLBACK_TIMEOUT)
            event.clear()
            if not success:
                raise RuntimeError(f"{hook} timed out after {CALLBACK_TIMEOUT} second(s).")

    def ds_epoch_begin(self, ds_run_context):
        if not any(self._overrides()):        # MindSpore refuses the class when the pipeline starts
            raise AttributeError("Inheriting Callback class without overriding any methods, check the usage of "
                                 "user defined Callback.")
        if self._overrides()[1] and ds_run_context.cur_epoch_num > 1:
            self._wait(self.epoch_event, "ds_epoch_begin")
            self.sync_epoch_begin(self.epoch_run_context, ds_run_context)

    def ds_step_begin(self, ds_run_context):
        if self._overrides()[0] and ds_run_context.cur_step_num > self.step_size:
            self._wait(self.step_event, "ds_step_begin")
            self.sync_step_begin(self.step_run_context, ds_run_context)
