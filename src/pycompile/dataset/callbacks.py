"""DSCallback: hooks a `map(callbacks=[...])` node calls as rows pass it, as MindSpore 2.10 does
(tests/oracle/data/ds_callback_data35.json): ds_begin once when the first epoch starts (context
0, 0, 0), ds_epoch_begin / ds_epoch_end around each epoch, ds_step_begin / ds_step_end for steps
1, 1 + step_size, 1 + 2 * step_size, ... of each epoch. The context's cur_epoch_num counts from
1, cur_step_num_in_epoch from 1 within the epoch, cur_step_num over all epochs. MindSpore calls the
step hooks from its worker threads, so their order relative to each other varies there; here
step_begin and step_end of a row come in order around it.
"""
from __future__ import annotations


class DSRunContext:
    def __init__(self):
        self.cur_epoch_num = 0
        self.cur_step_num_in_epoch = 0
        self.cur_step_num = 0


class DSCallback:
    """Base class: override any of ds_begin, ds_epoch_begin, ds_epoch_end, ds_step_begin,
    ds_step_end (each takes a DSRunContext)."""

    def __init__(self, step_size=1):
        if not isinstance(step_size, int) or isinstance(step_size, bool) or step_size < 1:
            raise ValueError(f"Input step_size is not within the required interval of [1, 2147483647], but got "
                             f"{step_size}.")
        self.step_size = step_size

    def ds_begin(self, ds_run_context):
        """Called once, before the first row."""

    def ds_epoch_begin(self, ds_run_context):
        """Called before each epoch."""

    def ds_epoch_end(self, ds_run_context):
        """Called after each epoch."""

    def ds_step_begin(self, ds_run_context):
        """Called before every step_size-th row, from the first."""

    def ds_step_end(self, ds_run_context):
        """Called after every step_size-th row, from the first."""


def check_callbacks(callbacks):
    if callbacks is None:
        return []
    callbacks = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for cb in callbacks:
        if not isinstance(cb, DSCallback):
            raise TypeError(f"Argument callbacks with value {cb!r} is not of type [<class 'DSCallback'>].")
    return callbacks


_ALL_HOOKS = ("ds_begin", "ds_epoch_begin", "ds_epoch_end", "ds_step_begin", "ds_step_end")


def _calls(cb, hook) -> bool:
    """MindSpore's runtime calls only the hooks a callback class registers: all of a DSCallback's,
    the two begin hooks of a WaitedDSCallback (its `runtime_hooks`)."""
    return hook in getattr(cb, "runtime_hooks", _ALL_HOOKS)


class CallbackRunner:
    """Calls the hooks around the rows of a map node, keeping the step count across epochs."""

    def __init__(self, callbacks):
        self.callbacks, self.total = callbacks, 0

    def _each(self, hook, ctx):
        for cb in self.callbacks:
            if _calls(cb, hook):
                getattr(cb, hook)(ctx)

    def wrap(self, rows, epoch):
        ctx = DSRunContext()
        if epoch == 0:
            self.total = 0
            self._each("ds_begin", ctx)
        ctx.cur_epoch_num, ctx.cur_step_num = epoch + 1, self.total
        self._each("ds_epoch_begin", ctx)
        step = 0
        for row in rows:
            step += 1
            self.total += 1
            ctx = DSRunContext()
            ctx.cur_epoch_num, ctx.cur_step_num_in_epoch, ctx.cur_step_num = epoch + 1, step, self.total
            due = [cb for cb in self.callbacks if (step - 1) % cb.step_size == 0]
            for cb in due:
                if _calls(cb, "ds_step_begin"):
                    cb.ds_step_begin(ctx)
            yield row
            for cb in due:
                if _calls(cb, "ds_step_end"):
                    cb.ds_step_end(ctx)
        ctx = DSRunContext()
        ctx.cur_epoch_num, ctx.cur_step_num_in_epoch, ctx.cur_step_num = epoch + 1, step, self.total
        self._each("ds_epoch_end", ctx)
