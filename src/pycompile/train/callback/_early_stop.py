"""EarlyStopping: stop training when a monitored value stops improving."""
from __future__ import annotations

import copy
import logging

import numpy as np

from pycompile.train.callback._callback import Callback, check_bool, check_non_negative_int, handle_loss

logger = logging.getLogger("pycompile.train")

# Monitored names where smaller is better when mode='auto'.
_SMALLER_IS_BETTER = ("hausdorff_distance", "mae", "mse", "loss", "perplexity", "mean_surface_distance",
                      "root_mean_square_distance", "eval_loss")


class EarlyStopping(Callback):
    """At the end of each epoch reads `monitor` ('loss': the network's output; any other name:
    cb_params.eval_results[monitor], filled by an evaluation during fit) and requests a stop
    after `patience` epochs without an improvement larger than `min_delta`.

    Kept as MindSpore 2.10 has it: the wait counter grows before the comparison, so patience=0
    and patience=1 both stop after the first epoch without improvement; a monitored value that is
    0 (or missing) is skipped; a truthy `baseline` takes the value of `min_delta` (MindSpore
    validates and stores the wrong argument), so an improvement only resets the wait when it also
    beats min_delta. `restore_best_weights` loads the best epoch's Parameters back when stopping."""

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto", baseline=None,
                 restore_best_weights=False):
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"The type of 'monitor' should be 'str', but got type '{type(monitor).__name__}'.")
        if not isinstance(min_delta, (int, float)) or isinstance(min_delta, bool):
            raise TypeError(f"The type of 'min_delta' should be 'float' or 'int', but got type "
                            f"'{type(min_delta).__name__}'.")
        self.monitor = monitor
        self.min_delta = abs(min_delta)
        self.patience = check_non_negative_int(patience)
        self.verbose = check_bool(verbose, "verbose")
        if not isinstance(mode, str):
            raise TypeError(f"The type of 'mode' should be 'str', but got type '{type(mode).__name__}'.")
        self.mode = mode
        self.baseline = min_delta if baseline else None
        self.restore_best_weights = check_bool(restore_best_weights, "restore_best_weights")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"mode should be 'auto', 'min' or 'max', but got {mode}.")
        self._minimize = mode == "min" or (mode == "auto" and monitor in _SMALLER_IS_BETTER)
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf if self._minimize else -np.inf
        self.best_weights_param_dict = None

    def is_improvement(self, current, reference):
        if self._minimize:
            return np.less(current, reference - self.min_delta)
        return np.greater(current, reference + self.min_delta)

    def on_train_begin(self, run_context):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf if self._minimize else -np.inf
        self.best_weights_param_dict = None

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        current = self._get_monitor_value(cb_params)
        if current is None:
            return
        if self.restore_best_weights and self.best_weights_param_dict is None:
            self.best_weights_param_dict = _snapshot(cb_params.train_network)
        self.wait += 1
        if self.is_improvement(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = _snapshot(cb_params.train_network)
            if self.baseline is None or self.is_improvement(current, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = cb_params.get("cur_epoch_num")
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                from pycompile.train.serialization import load_param_into_net
                load_param_into_net(cb_params.train_network, self.best_weights_param_dict)

    def on_train_end(self, run_context):
        if self.stopped_epoch > 0 and self.verbose:
            print("Epoch %05d: early stopping" % self.stopped_epoch)

    def _get_monitor_value(self, cb_params):
        candidates = {}
        if self.monitor == "loss":
            value = handle_loss(cb_params.get("net_outputs"))
        else:
            candidates = cb_params.get("eval_results", {})
            value = candidates.get(self.monitor)
        if value is None:
            logger.warning("Early stopping is conditioned on %s, which is not available. Available choices are: %s",
                           self.monitor, {"loss", *candidates})
        if isinstance(value, np.ndarray) and value.shape != ():
            raise ValueError("EarlyStopping only supports scalar monitor now.")
        return np.array(value) if value else None


def _snapshot(network) -> dict:
    return {p.name: copy.deepcopy(p) for _, p in network.parameters_and_names()}
