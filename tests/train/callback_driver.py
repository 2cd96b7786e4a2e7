"""A stand-in for Model.train / Model.eval's callback calls (Model is built elsewhere).

It fills cb_params with MindSpore's keys and calls the hooks in the order MindSpore 2.10's
`Model._train_process` / `_eval_process` do (recorded in fixtures/ms_callbacks.json:
train_hooks, eval_hooks, stop_at_step_2); the network "output" of each step is the float32
loss given, as in record_callbacks.py's echo network."""
import numpy as np

import pycompile as ms
from pycompile import nn
from pycompile.train.callback import RunContext, _CallbackManager, _InternalCallbackParam

import callback_cases


class Echo(nn.Cell):
    """The Parameters of record_callbacks.Echo: scale, fc.weight, fc.bias."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
        self.scale = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="scale")

    def construct(self, x):
        return x


def train(callbacks, epochs=2, losses=callback_cases.LOSSES, network=None, optimizer=None, output=None):
    network = network if network is not None else Echo()
    cb = _InternalCallbackParam()
    cb.cur_step_num = 0
    cb.train_network = network
    cb.epoch_num = epochs
    cb.batch_num = len(losses)
    cb.mode = "train"
    cb.loss_fn = None
    cb.optimizer = optimizer
    cb.parallel_mode = "stand_alone"
    cb.device_number = 1
    cb.train_dataset = None
    cb.list_callback = list(callbacks)
    cb.train_dataset_element = None
    cb.network = network
    cb.last_save_ckpt_step = None
    cb.latest_ckpt_file = None
    cb.loss_scale_mananger = None
    cb.initial_step = 0
    with _CallbackManager(cb.list_callback) as run:
        cb.dataset_sink_mode = False
        ctx = RunContext(cb)
        run.on_train_begin(ctx)
        for epoch in range(epochs):
            cb.cur_epoch_num = epoch + 1
            run.on_train_epoch_begin(ctx)
            for value in losses:
                loss = ms.Tensor(np.array(value, np.float32))
                cb.cur_step_num += 1
                cb.train_dataset_element = (loss,)
                run.on_train_step_begin(ctx)
                cb.net_outputs = output(loss) if output else loss
                run.on_train_step_end(ctx)
                if ctx.get_stop_requested():
                    break
            run.on_train_epoch_end(ctx)
            if ctx.get_stop_requested():
                break
        run.on_train_end(ctx)
    return cb


def evaluate(callbacks, losses=callback_cases.LOSSES, metrics=None):
    cb = _InternalCallbackParam()
    network = Echo()
    cb.eval_network = network
    cb.valid_dataset = None
    cb.batch_num = len(losses)
    cb.mode = "eval"
    cb.cur_step_num = 0
    cb.list_callback = list(callbacks)
    cb.network = network
    metrics = metrics or {"loss": nn.Loss()}
    with _CallbackManager(cb.list_callback) as run:
        cb.dataset_sink_mode = False
        ctx = RunContext(cb)
        run.on_eval_begin(ctx)
        run.on_eval_epoch_begin(ctx)
        for value in losses:
            loss = ms.Tensor(np.array(value, np.float32))
            cb.cur_step_num += 1
            cb.eval_dataset_element = (loss,)
            run.on_eval_step_begin(ctx)
            cb.net_outputs = loss
            for m in metrics.values():
                m.update(loss)
            run.on_eval_step_end(ctx)
        run.on_eval_epoch_end(ctx)
        cb.metrics = {name: m.eval() for name, m in metrics.items()}
        run.on_eval_end(ctx)
    return cb
