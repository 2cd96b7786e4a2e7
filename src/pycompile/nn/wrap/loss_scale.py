"""Loss scaling (mindspore.nn.wrap.loss_scale): the update cells that adjust the scale, and
TrainOneStepWithLossScaleCell, which skips the optimizer's update on steps whose gradients
overflow.

Overflow detection: on the CPU device, `logical_not(amp.all_finite(grads))` over the unscaled
gradients. MindSpore 2.10's own cell cannot run on its CPU (its check needs
NPUGetFloatStatusV2); the step-by-step behaviour it is checked against was recorded with exactly
this check substituted (tests/oracle/data/loss_scale.json). On the Ascend stub device the check
is MindSpore's float-status one: the status register is cleared before the backward and read
after it (NPUClearFloatStatus / NPUGetFloatStatus).
"""
from __future__ import annotations

from pycompile.common import context
from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell
from pycompile.nn.wrap.cell_wrapper import TrainOneStepCell
from pycompile.ops import functional as F
from pycompile.ops.autodiff.api import value_and_grad
from pycompile.ops.operations import NPUAllocFloatStatus, NPUClearFloatStatus, NPUGetFloatStatus


def all_finite(inputs):
    """A Bool tensor: every element of every tensor in `inputs` is finite (ms.amp.all_finite)."""
    out = None
    for g in inputs:
        ok = F.all(F.isfinite(g))
        out = ok if out is None else F.logical_and(out, ok)
    return out if out is not None else Tensor(True, mstype.bool_)


class DynamicLossScaleUpdateCell(Cell):
    """On overflow: scale = max(scale / scale_factor, 1); after `scale_window` steps without
    one: scale *= scale_factor. Called as cell(scale_param, overflow); returns overflow."""

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.scale_window = Tensor(scale_window, dtype=mstype.int32)
        self.scale_factor = Tensor(scale_factor, dtype=mstype.float32)
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(1, dtype=mstype.int32), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(0, dtype=mstype.int32), name="last_overflow_iterator_step")
        self.minimum_loss_scale = Tensor(1.0, dtype=mstype.float32)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        on_overflow = F.select(overflow, F.maximum(loss_scale / self.scale_factor, self.minimum_loss_scale),
                               loss_scale)
        should_inc = self.scale_window <= self.cur_iter - self.last_overflow_iter
        last_overflow_iter = F.select(F.logical_or(overflow, should_inc), self.cur_iter, self.last_overflow_iter)
        update = F.logical_and(should_inc, F.logical_not(overflow))
        new_scale = F.select(update, on_overflow * self.scale_factor, on_overflow)
        cur_iter = self.cur_iter + 1
        F.assign(self.last_overflow_iter, last_overflow_iter)
        F.assign(loss_scale, new_scale)
        F.assign(self.cur_iter, cur_iter)
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A scale that never changes; returns overflow."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A training step with a scaled loss: the gradients of loss * scale, divided by the scale;
    the optimizer runs only when none overflowed. `scale_sense` is an update cell (dynamic or
    fixed) or a Tensor of shape () or (1,). Returns (loss, overflow, scale)."""

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(scale_sense.get_loss_scale(), dtype=mstype.float32),
                                         name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((1,), ()):
                raise ValueError(f"For 'TrainOneStepWithLossScaleCell', the shape of 'scale_sense' must be (1,) or "
                                 f"(), but got {scale_sense.shape}.")
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must be Cell or Tensor, but got "
                            f"'scale_sense' type: {type(scale_sense)}.")
        self.float_status = context.get_context("device_target") == "Ascend"

    def _loss_scaled(self, scale, *inputs):
        loss = self.network(*inputs)
        return loss * F.cast(scale, F.dtype(loss)), loss

    def construct(self, *inputs):
        weights = self.weights
        scaling_sens = self.scale_sense
        status = None
        if self.float_status:
            status = NPUAllocFloatStatus()()
            scaling_sens = F.depend(scaling_sens, NPUClearFloatStatus()(status))
        # one forward gives the loss and the scaled gradients (the backward starts from the loss
        # scale, the bits of a sens of it): a second forward call applied the network's state
        # updates (BatchNorm's moving statistics) twice per step, where MindSpore's graph applies
        # them once (TrainOneStepCell's reason, cell_wrapper.py)
        (_, loss), grads = value_and_grad(self._loss_scaled, None, weights, has_aux=True)(scaling_sens, *inputs)
        grads = tuple(g * F.cast(F.reciprocal(scaling_sens), g.dtype) for g in grads)
        grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            loss = F.depend(loss, self.optimizer(grads))
        return loss, cond, scaling_sens

    def set_sense_scale(self, sens):
        if isinstance(sens, Tensor):
            self.scale_sense.set_data(sens)
        else:
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', the type of 'sens' must be Tensor, but got "
                            f"{type(sens)}")

    def start_overflow_check(self, pre_cond, compute_input):
        """MindSpore's hook for cells that check a computation of their own: the status to pass to
        get_overflow_status, and the input ordered after clearing it."""
        if not self.float_status:
            return None, compute_input
        status = F.depend(NPUAllocFloatStatus()(), pre_cond)
        NPUClearFloatStatus()(status)
        return status, F.depend(compute_input, status)

    def get_overflow_status(self, status, compute_output):
        """True when a gradient is inf / NaN (a Bool tensor of shape ())."""
        if self.float_status and status is not None:
            status = F.depend(status, compute_output)
            flags = NPUGetFloatStatus()(status)
            if self.reducer_flag:        # one rank's overflow skips the step on every rank
                flags = self.grad_reducer.allreduce(flags)
            return F.greater(F.sum(F.cast(flags, mstype.float32)), 0.0)
        return F.logical_not(all_finite(compute_output))

    def process_loss_scale(self, overflow):
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow
