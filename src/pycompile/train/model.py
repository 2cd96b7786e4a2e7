"""ms.Model: the high-level training / evaluation / prediction driver of MindSpore 2.10
(mindspore.train.Model), written from its documented behaviour and checked against scripts the
wheel ran (tests/oracle/data/model.json).

What Model builds from its arguments:
- train network: with an optimizer, `TrainOneStepCell(WithLossCell(network, loss_fn), optimizer,
  sens=scale)` - the whole step (forward, backward, update) is one Cell call, so in GRAPH_MODE it
  is one compiled native call per batch; with a loss-scale manager whose update cell is not None
  (DynamicLossScaleManager, FixedLossScaleManager(drop_overflow_update=True)) a
  `TrainOneStepWithLossScaleCell` instead; all of it through amp.build_train_network, which first
  applies `amp_level` (train/mixed_precision.py). Without an optimizer, `WithLossCell` (or the network).
- eval network: `WithEvalCell(network, loss_fn)` with indexes (loss, outputs, label) = (0, 1, 2),
  or the user's `eval_network` / `eval_indexes`.
- predict network: the network itself.

The loop follows MindSpore's `_train_process` / `_eval_process`: the same cb_params fields, the
same hook order, `request_stop()` honoured after the step and after the epoch, the metrics /
eval_results of a fit's evaluation visible to `on_train_epoch_end` and removed after it.
Dataset sink mode is accepted and runs as non-sink, as MindSpore itself does on its CPU target.
"""
from __future__ import annotations

import copy
import logging
import os

import numpy as np

from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell
from pycompile.nn.metrics import Loss, get_metric_fn, get_metrics
from pycompile.nn.optim.optimizer import Optimizer
from pycompile.nn.wrap.cell_wrapper import WithEvalCell, WithLossCell
from pycompile.train import serialization
from pycompile.train.callback import ModelCheckpoint, RunContext, _CallbackManager, _InternalCallbackParam
from pycompile.train.callback import __all__ as _builtin_callbacks
from pycompile.train.mixed_precision import build_train_network

logger = logging.getLogger("pycompile.train")

KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict", "acc_level")
# MindSpore's internal callback names (mindspore.train.callback.__all__): not run by the
# evaluation inside fit, except TimeMonitor.
INTERNAL_CALLBACKS = set(_builtin_callbacks) | {"FlopsUtilizationCollector", "SummaryCollector", "SummaryLandscape",
                                                "ReduceLROnPlateau", "OnRequestExit", "BackupAndRestore",
                                                "TrainFaultTolerance"}


class _MetricValue(np.float64):
    """A metric's np.float64 that prints as NumPy 1.x prints it (`0.55`, not `np.float64(0.55)`
    as NumPy 2 does): MindSpore 2.10 runs on NumPy 1.x, so this is what its scripts print for
    `print(model.eval(ds))` and LossMonitor's eval lines. Still an np.float64 (and a float)."""

    def __repr__(self):
        return repr(float(self))

    __str__ = __repr__


def _as_tuple(inputs):
    return (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)


def _check_bool(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"For 'Model', the type of '{name}' must be bool, but got {type(value).__name__}.")
    return value


def _check_int(value, name, low, rel):
    """MindSpore's Validator.check_positive_int / check_non_negative_int wording."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"The input value must be int and must {rel}, but got '{value}' with type "
                         f"'{type(value).__name__}'.")
    return value


class Model:
    """Train, evaluate and predict with a network (mindspore.train.Model).

    Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
    amp_level="O0", boost_level="O0", loss_scale_manager=..., keep_batchnorm_fp32=...)."""

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
                 amp_level="O0", boost_level="O0", **kwargs):
        for arg in kwargs:
            if arg not in KWARGS:
                raise ValueError(f"The argument in 'kwargs' should be 'loss_scale_manager' or 'keep_batchnorm_fp32' "
                                 f"or 'boost_config_dict' or 'acc_level', but got '{arg}'.")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._loss_scale_manager = kwargs.get("loss_scale_manager")
        self._loss_scale_manager_set = "loss_scale_manager" in kwargs
        self._keep_bn_fp32 = kwargs.get("keep_batchnorm_fp32")
        self._amp_level = amp_level
        self._boost_level = kwargs.get("acc_level", boost_level)
        self._eval_network = eval_network
        self._eval_indexes = None
        self._metrics = metrics
        self._parallel_mode = "stand_alone"
        self._device_number = 1
        if optimizer is None and amp_level != "O0":
            raise ValueError("Auto mixed precision will not work because 'optimizer' is None.Please set "
                             "amp_level='O0' to disable auto mixed precision or set 'optimizer' not be None to use "
                             "auto mixed precision.")
        self._train_network = self._build_train_network()
        self._build_eval_network(metrics, eval_network, eval_indexes)
        self._predict_network = self._network
        self._current_epoch_num = 0
        self._current_step_num = 0
        self._backbone_is_train = True
        self.batch_num = -1

    # -- building the networks -----------------------------------------------------------------
    def _build_train_network(self):
        network = self._network
        if not isinstance(network, Cell):
            raise TypeError(f"For 'Model', the argument 'network' must be Cell, but got {type(network).__name__}.")
        if self._loss_scale_manager is not None and self._optimizer is None:
            raise ValueError("The argument 'optimizer' can not be None when set 'loss_scale_manager'.")
        if self._optimizer is not None:
            return self._build_step(network)
        if self._loss_fn is not None:
            return WithLossCell(network, self._loss_fn)
        return network

    def _build_step(self, network):
        """amp.build_train_network at amp_level, with the loss-scale manager and keep_batchnorm_fp32
        the user gave (only those: the level's defaults fill the rest, as in MindSpore)."""
        if not isinstance(self._optimizer, Optimizer):
            raise TypeError(f"For 'Model', the argument 'optimizer' must be Optimizer, but got "
                            f"{type(self._optimizer).__name__}.")
        config = {}
        if self._loss_scale_manager_set:
            config["loss_scale_manager"] = self._loss_scale_manager
        if self._keep_bn_fp32 is not None:
            config["keep_batchnorm_fp32"] = self._keep_bn_fp32
        return build_train_network(network, self._optimizer, self._loss_fn, level=self._amp_level,
                                   boost_level=self._boost_level, **config)

    def _build_eval_network(self, metrics, eval_network, eval_indexes):
        self._metric_fns = get_metrics(metrics)
        if not self._metric_fns:
            return
        if eval_network is not None:
            if eval_indexes is not None and not (isinstance(eval_indexes, list) and len(eval_indexes) == 3):
                raise ValueError(f"The argument 'eval_indexes' must be a list or None. If 'eval_indexes' is a list, "
                                 f"length of it must be three. But got 'eval_indexes' {eval_indexes}")
            self._eval_network = eval_network
            self._eval_indexes = eval_indexes
            return
        if self._loss_fn is None:
            raise ValueError("If `metrics` is set, `eval_network` must not be None. Do not set `metrics` if you don't "
                             "want an evaluation.")
        self._eval_network = WithEvalCell(self._network, self._loss_fn, self._amp_level in ("O2", "O3", "auto"))
        self._eval_indexes = [0, 1, 2]

    # -- metrics -------------------------------------------------------------------------------
    def _clear_metrics(self):
        for metric in self._metric_fns.values():
            metric.clear()

    def _update_metrics(self, outputs):
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if not isinstance(outputs, tuple):
            raise ValueError(f"The argument 'outputs' should be tuple, but got {type(outputs)}.")
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError(f"The length of 'outputs' must be >= 3, but got {len(outputs)}")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    def _get_metrics(self):
        out = {}
        for name, metric in self._metric_fns.items():
            value = metric.eval()
            out[name] = _MetricValue(value) if type(value) is np.float64 else value
        return out

    def _get_scaling_sens(self):
        return self._loss_scale_manager.get_loss_scale() if self._loss_scale_manager is not None else 1

    def _check_network_mode(self, network, is_train):
        if self._backbone_is_train != is_train:
            network.set_train(is_train)
            self._backbone_is_train = is_train
        if not is_train:
            network.set_grad(False)
        return network

    def _prepare(self, network, is_train):
        network.set_train(is_train)
        self._backbone_is_train = is_train

    # -- training ------------------------------------------------------------------------------
    @staticmethod
    def _transform_callbacks(callbacks):
        if callbacks is None:
            return []
        if isinstance(callbacks, (list, tuple)):
            return list(callbacks)
        return [callbacks]

    def _check_train_args(self, where, epoch, train_dataset, dataset_sink_mode, sink_size, initial_epoch):
        _check_bool(dataset_sink_mode, "dataset_sink_mode")
        if not isinstance(sink_size, int) or isinstance(sink_size, bool):
            raise TypeError(f"The type of 'sink_size' must be int, but got {type(sink_size).__name__}.")
        _check_int(epoch, "epoch", 1, "> 0")
        _check_int(initial_epoch, "initial_epoch", 0, ">= 0")
        if initial_epoch >= epoch:
            raise ValueError(f"For '{where}', the parameter 'epoch' must bigger than parameter 'initial_epoch', but "
                             f"got the parameter 'epoch' is {epoch}, 'initial_epoch' is {initial_epoch}.")
        if train_dataset.get_dataset_size() == 0:
            raise ValueError("There is no valid data in dataset, please check dataset file firstly.")
        if sink_size < -1 or sink_size == 0:
            raise ValueError(f"For '{where}', The argument 'sink_size' must be -1 or positive, but got {sink_size}.")

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Train for epochs `initial_epoch + 1 .. epoch` over `train_dataset`. With a loss_fn each
        dataset row must have two columns (data, label); otherwise all columns go to the network.
        `dataset_sink_mode` runs as non-sink (as MindSpore does on CPU); `sink_size` > 0 only sets
        cb_params.batch_num, as in MindSpore's non-sink path."""
        self._check_train_args("Model.train", epoch, train_dataset, dataset_sink_mode, sink_size, initial_epoch)
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """train() with an evaluation on `valid_dataset` after every `valid_frequency`-th epoch (an
        int) or after the listed epochs (a list). The evaluation's metrics are in cb_params.metrics
        and cb_params.eval_results (with "eval_loss") during on_train_epoch_end."""
        _check_bool(valid_dataset_sink_mode, "valid_dataset_sink_mode")
        self._check_train_args("Model.fit", epoch, train_dataset, dataset_sink_mode, sink_size, initial_epoch)
        if not isinstance(valid_frequency, (int, list)):
            raise TypeError(f"For 'Model.fit', the type of 'valid_frequency' must be a list or an integer, but got "
                            f"type {type(valid_frequency)}.")
        if valid_dataset and not self._metric_fns:
            raise ValueError("For 'Model.fit', if valid_dataset is not None, the model argument 'metrics' can not be"
                             "None or empty, you should set the argument 'metrics' for model.")
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch,
                    (valid_dataset, valid_frequency))

    def _train(self, epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch, valid=None):
        cb = _InternalCallbackParam()
        cb.cur_step_num = 0
        cb.train_network = self._train_network
        cb.epoch_num = epoch - initial_epoch
        cb.batch_num = sink_size if dataset_sink_mode and sink_size > 0 else train_dataset.get_dataset_size()
        self.batch_num = cb.batch_num
        cb.mode = "train"
        cb.loss_fn = self._loss_fn
        cb.optimizer = self._optimizer
        cb.parallel_mode = self._parallel_mode
        cb.device_number = self._device_number
        cb.train_dataset = train_dataset
        cb.list_callback = self._transform_callbacks(callbacks)
        cb.train_dataset_element = None
        cb.network = self._network
        cb.last_save_ckpt_step = None
        cb.latest_ckpt_file = None
        cb.loss_scale_mananger = self._loss_scale_manager    # sic: MindSpore's key
        cb.initial_step = None
        if dataset_sink_mode:
            logger.debug("Dataset sink mode runs as non-sink mode in pycompile (as on MindSpore's CPU target).")
        owner = getattr(train_dataset, "__model_hash__", None)
        if owner is None:
            train_dataset.__model_hash__ = hash(self)
        elif owner != hash(self):
            raise RuntimeError("The dataset object had been used in other model by model.train(...), please create "
                               "a new dataset.")
        try:
            with _CallbackManager(cb.list_callback) as list_callback:
                self._train_process(epoch, train_dataset, list_callback, cb, initial_epoch, valid)
        except BaseException:
            self._save_exception_ckpt(cb.list_callback)
            raise

    def _save_exception_ckpt(self, callbacks):
        """CheckpointConfig(exception_save=True): save `{prefix}-{epoch}_{step}_breakpoint.ckpt` of the
        train network when training raises (MindSpore's _save_final_ckpt)."""
        for ckpt in callbacks:
            if isinstance(ckpt, ModelCheckpoint) and ckpt._config is not None and ckpt._config.exception_save:
                name = f"{ckpt._prefix}-{self._current_epoch_num}_{self._current_step_num}_breakpoint.ckpt"
                serialization.save_checkpoint(self._train_network, os.path.join(ckpt._directory, name))
                return

    def _train_process(self, epoch, train_dataset, list_callback, cb, initial_epoch, valid):
        network = self._train_network
        self._prepare(network, True)
        iterator = train_dataset.create_tuple_iterator(num_epochs=-1, do_copy=False)
        cb.dataset_sink_mode = False
        run_context = RunContext(cb)
        list_callback.on_train_begin(run_context)
        for i in range(initial_epoch, epoch):
            cb.cur_epoch_num = i + 1
            self._current_epoch_num = cb.cur_epoch_num
            self._current_step_num = 0
            list_callback.on_train_epoch_begin(run_context)
            for element in iterator:
                n = len(element)
                element = _as_tuple(element)
                if self._loss_fn and n != 2:
                    raise ValueError(f"When 'loss_fn' is not None, 'train_dataset' should return two elements, but "
                                     f"got {n}, please check the number of elements returned by 'train_dataset'")
                cb.cur_step_num += 1
                self._current_step_num = int((cb.cur_step_num - 1) % cb.batch_num + 1)
                cb.train_dataset_element = element
                list_callback.on_train_step_begin(run_context)
                self._check_network_mode(network, True)
                outputs = network(*element)
                cb.net_outputs = outputs
                if self._loss_scale_manager is not None and self._loss_scale_manager.get_drop_overflow_update():
                    self._loss_scale_manager.update_loss_scale(bool(np.all(outputs[1].asnumpy())))
                list_callback.on_train_step_end(run_context)
                if run_context.get_stop_requested():
                    break
            if valid is not None:
                self._eval_during_train(valid, cb, list_callback)
            list_callback.on_train_epoch_end(run_context)
            cb.pop("metrics", None)
            cb.pop("eval_results", None)
            if run_context.get_stop_requested():
                break
        list_callback.on_train_end(run_context)

    def _eval_during_train(self, valid, cb, list_callback):
        valid_dataset, frequency = valid
        if not valid_dataset:
            return
        due = cb.cur_epoch_num % frequency == 0 if isinstance(frequency, int) else cb.cur_epoch_num in frequency
        if not due:
            return
        saved = (cb.cur_step_num, cb.batch_num, cb.dataset_sink_mode, cb.get("net_outputs"))
        callbacks = [c for c in list_callback._callbacks
                     if type(c).__name__ not in INTERNAL_CALLBACKS or type(c).__name__ == "TimeMonitor"]
        cb.eval_network = self._eval_network
        cb.valid_dataset = valid_dataset
        cb.batch_num = valid_dataset.get_dataset_size()
        cb.mode = "eval"
        cb.cur_step_num = 0
        self._clear_metrics()
        with _CallbackManager(callbacks) as eval_callbacks:
            self._eval_process(valid_dataset, eval_callbacks, cb, add_eval_loss=True)
        cb.mode = "train"
        cb.cur_step_num, cb.batch_num, cb.dataset_sink_mode, cb.net_outputs = saved

    # -- evaluation and prediction -------------------------------------------------------------
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Run the eval network over `valid_dataset` and return {metric name: value}."""
        _check_bool(dataset_sink_mode, "dataset_sink_mode")
        if not self._metric_fns:
            raise ValueError("For Model.eval, the model argument 'metrics' can not be None or empty, you should set "
                             "the argument 'metrics' for model.")
        cb = _InternalCallbackParam()
        cb.eval_network = self._eval_network
        cb.valid_dataset = valid_dataset
        cb.batch_num = valid_dataset.get_dataset_size()
        cb.mode = "eval"
        cb.cur_step_num = 0
        cb.list_callback = self._transform_callbacks(callbacks)
        cb.network = self._network
        self._clear_metrics()
        with _CallbackManager(cb.list_callback) as list_callback:
            return self._eval_process(valid_dataset, list_callback, cb)

    def _eval_process(self, valid_dataset, list_callback, cb, add_eval_loss=False):
        run_context = RunContext(cb)
        cb.dataset_sink_mode = False
        list_callback.on_eval_begin(run_context)
        network = self._eval_network
        self._prepare(network, False)
        eval_loss = None
        list_callback.on_eval_epoch_begin(run_context)
        for element in valid_dataset.create_tuple_iterator(num_epochs=1):
            cb.cur_step_num += 1
            element = _as_tuple(element)
            cb.eval_dataset_element = element
            list_callback.on_eval_step_begin(run_context)
            self._check_network_mode(network, False)
            outputs = network(*element)
            cb.net_outputs = outputs
            list_callback.on_eval_step_end(run_context)
            self._update_metrics(outputs)
            if add_eval_loss:
                # A new Loss metric per step, as in MindSpore 2.10: "eval_loss" is the last batch's.
                eval_loss = get_metric_fn("loss")
                eval_loss.update(outputs[self._eval_indexes[0]])
            if run_context.get_stop_requested():
                break
        list_callback.on_eval_epoch_end(run_context)
        metrics = self._get_metrics()
        cb.metrics = metrics
        if eval_loss is not None:
            cb.eval_results = copy.deepcopy(metrics)
            loss = eval_loss.eval()
            cb.eval_results["eval_loss"] = _MetricValue(loss) if type(loss) is np.float64 else loss
        list_callback.on_eval_end(run_context)
        return metrics

    def predict(self, *predict_data, backend=None, config=None):
        """The predict network (the network itself, in inference mode) applied to the inputs."""
        if backend not in ("lite", None):
            raise ValueError(f"For Model.predict, `backend` should be 'lite' or None, but got {backend}")
        for item in predict_data:
            if item is None or isinstance(item, (int, float, str)):
                continue
            if isinstance(item, Tensor):
                if item.size == 0:
                    raise ValueError("The input data can not be empty.")
                continue
            raise TypeError(f"The types of input data must be in the Union(Tensor, None, int, float, str, "
                            f"tuple[...], list[...], dict[...]), but got type {type(item).__name__}.")
        self._check_network_mode(self._predict_network, False)
        return self._predict_network(*predict_data)

    @property
    def train_network(self):
        """The training network Model built (a TrainOneStepCell when there is an optimizer)."""
        return self._train_network

    @property
    def predict_network(self):
        return self._predict_network

    @property
    def eval_network(self):
        return self._eval_network


__all__ = ["Model"]
