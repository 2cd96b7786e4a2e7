"""Training wrappers (mindspore.nn.wrap.cell_wrapper): a network with its loss, its gradients,
and one whole training step. In GRAPH_MODE, or under `ms.jit`, a TrainOneStepCell call compiles
forward, backward and every Parameter update into one native call."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common import validator as V
from pycompile.common.parameter import ParameterTuple
from pycompile.nn.cell import Cell
from pycompile.nn.layers import Identity
from pycompile.nn.wrap.grad_reducer import data_parallel_reducer
from pycompile.ops import functional as F
from pycompile.ops.autodiff.api import GradOperation, value_and_grad


class WithLossCell(Cell):
    """loss_fn(backbone(data), label)."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self):
        return self._backbone


class WithEvalCell(Cell):
    """(loss, outputs, label) of a network on a batch, for evaluation."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = V.check_value_type("add_cast_fp32", add_cast_fp32, [bool], self.cls_name)

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            label = F.cast(label, mstype.float32)
            outputs = F.cast(outputs, mstype.float32)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class WithGradCell(Cell):
    """The gradients of (network + loss_fn) with respect to the network's trainable Parameters."""

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss_fn = loss_fn
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = GradOperation(get_by_list=True, sens_param=sens is not None)
        self.sens = sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(self.network, self.loss_fn)
        self.network_with_loss.set_train()

    def construct(self, *inputs):
        if self.sens is None:
            return self.grad(self.network_with_loss, self.weights)(*inputs)
        return self.grad(self.network_with_loss, self.weights)(*inputs, self.sens)


class TrainOneStepCell(Cell):
    """One training step: the loss, its gradients with respect to the optimizer's Parameters
    (scaled by `sens` when given), and the optimizer's update. Returns the loss (and a dict of
    gradients by Parameter name with return_grad=True)."""

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = self.optimizer.parameters
        self.grad = GradOperation(get_by_list=True, sens_param=True)
        self.grad_no_sens = GradOperation(get_by_list=True)
        if sens == 0:
            raise ValueError("The input argument of 'sens' can not be 0.")
        self.sense_flag = sens is not None
        self.sens = 1.0 if sens is None else sens
        self.return_grad = return_grad
        if return_grad:
            self.weights_name = [p.name for p in self.optimizer.parameters]
        # DATA_PARALLEL / HYBRID_PARALLEL: gradients are reduced across ranks before the optimizer
        reducer = data_parallel_reducer(self.weights)
        self.reducer_flag = reducer is not None
        self.grad_reducer = Identity() if reducer is None else reducer
        # gradients_mean: the backward starts from 1/N instead of 1, so the reducer's sums are
        # already the means and no pass over every gradient scales them after the reduction (the
        # backward is linear in its seed: for N a power of two the gradients are the same bits).
        # Only this construct seeds so: a subclass's own construct gets a reducer that averages.
        own = type(self).construct is TrainOneStepCell.construct
        self.mean_scale = reducer.take_mean() if reducer is not None and own else None

    def _scaled_loss(self, *inputs):
        loss = self.network(*inputs)
        return loss * F.cast(self.mean_scale, F.dtype(loss)), loss

    def construct(self, *inputs):
        # one forward gives the loss and the gradients: a second forward call would apply the
        # network's own state updates (BatchNorm's moving statistics) twice per step, where
        # MindSpore applies them once. A constant sens scales the gradients linearly.
        if self.mean_scale is not None:
            (_, loss), grads = value_and_grad(self._scaled_loss, None, self.weights, has_aux=True)(*inputs)
        else:
            loss, grads = value_and_grad(self.network, None, self.weights)(*inputs)
        if self.sense_flag:
            grads = tuple(g * F.cast(self.sens, g.dtype) for g in grads)
        grads = self.grad_reducer(grads)
        loss = F.depend(loss, self.optimizer(grads))
        if self.return_grad:
            return loss, {name: g for name, g in zip(self.weights_name, grads)}
        return loss
