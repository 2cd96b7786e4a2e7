"""BackupAndRestore (a checkpoint of the train network every `save_freq` epochs, loaded back when
training starts again, deleted when it ends) and OnRequestExit (a signal stops training at the
next step and saves a checkpoint and a MINDIR of the network)."""
from __future__ import annotations

import logging
import os
import signal
import threading

from pycompile.train.callback._callback import Callback, check_bool
from pycompile.train.callback._checkpoint import _make_directory

logger = logging.getLogger("pycompile.train")

# ms.export, installed by pycompile.export when it is imported (it sits above train)
EXPORT: list = [None]


class BackupAndRestore(Callback):
    """Fault tolerance across restarts of the same script: `backup_dir/backup.ckpt` is written at
    the end of every `save_freq`-th epoch ("epoch": each), loaded into the train network when
    training begins and the file exists, and removed when training ends (`delete_checkpoint`). As
    in MindSpore 2.10 only the weights come back; the epoch count starts again."""

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        super().__init__()
        self.backup_file = os.path.join(_make_directory(backup_dir), "backup.ckpt")
        if save_freq != "epoch":
            if isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq <= 0:
                raise ValueError(f"The input value must be int and must > 0, but got '{save_freq}' with type "
                                 f"'{type(save_freq).__name__}'.")
            self.save_freq = save_freq
        else:
            self.save_freq = 1
        self.delete_checkpoint = check_bool(delete_checkpoint, "delete_checkpoint")

    def on_train_begin(self, run_context):
        if os.path.exists(self.backup_file):
            from pycompile.train.serialization import load_checkpoint
            logger.info("Restore checkpoint file is %s, load checkpoint into train net.", self.backup_file)
            load_checkpoint(self.backup_file, net=run_context.original_args().train_network)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.cur_epoch_num % self.save_freq == 0:
            from pycompile.train.serialization import save_checkpoint
            save_checkpoint(cb_params.train_network, self.backup_file)

    def on_train_end(self, run_context):
        if self.delete_checkpoint and os.path.exists(self.backup_file):
            os.remove(self.backup_file)


class OnRequestExit(Callback):
    """On signal `sig` (SIGTERM by default) training stops at the end of the current step and the
    train network is saved as `<directory>/rank_0/<file_name>_train.ckpt` (`save_ckpt`), and the
    user's network as `.mindir` (`save_mindir`, its forward pass exported with the last step's
    inputs: pycompile does not write training graphs to MINDIR); evaluation likewise as `_eval`. A checkpoint left by an earlier exit is loaded when training (or evaluation) begins.
    The handler is installed at train / eval begin and the previous one put back at the end.

    MindSpore 2.10 stops at the step only with MS_ENABLE_GRACEFUL_EXIT=1 and otherwise saves when
    training ends on its own; pycompile stops at the step, as its documentation describes."""

    def __init__(self, save_ckpt=True, save_mindir=True, file_name="Net", directory="./", config_file=None,
                 sig=signal.SIGTERM):
        super().__init__()
        self.save_ckpt = check_bool(save_ckpt, "save_ckpt")
        self.save_mindir = check_bool(save_mindir, "save_mindir")
        if isinstance(sig, bool) or not isinstance(sig, int):
            raise TypeError(f"The type of 'sig' should be 'int', but got type '{type(sig).__name__}'.")
        if hasattr(signal, "SIGKILL") and sig == signal.SIGKILL:
            raise ValueError("Not support send exit request by signal SIGKILL.")
        self.sig = sig
        self.exit = False
        self.remote_config_file = config_file
        self._lock = threading.Lock()
        self._previous = None
        base = _make_directory(os.path.join(directory if directory is not None else os.getcwd(), "rank_0"))
        self.train_name = os.path.join(base, f"{file_name}_train")
        self.eval_name = os.path.join(base, f"{file_name}_eval")

    def _handle_signal(self, signum, frame):
        self.exit = True

    def _install(self):
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(self.sig, self._handle_signal)

    def _restore(self):
        if self._previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(self.sig, self._previous)
            self._previous = None

    def _requested(self) -> bool:
        if self.exit:
            return True
        if self.remote_config_file and os.path.exists(self.remote_config_file):
            import json
            try:
                with open(self.remote_config_file, encoding="utf-8") as f:
                    return json.load(f).get("GracefulExit") == 1
            except (OSError, ValueError, AttributeError):
                logger.warning("Parse json file failed, please check json file: %s", self.remote_config_file)
        return False

    def _load(self, net, *names):
        from pycompile.train.serialization import load_checkpoint
        for name in names:
            if os.path.isfile(f"{name}.ckpt"):
                load_checkpoint(f"{name}.ckpt", net=net)
                return

    def _save(self, cb_params, net, name, inputs):
        from pycompile.train.serialization import save_checkpoint
        if self.save_ckpt:
            save_checkpoint(net, f"{name}.ckpt")
        if self.save_mindir and inputs is not None and EXPORT[0] is not None:
            # the MINDIR holds the user's network (its forward pass, for deployment): pycompile's
            # MINDIR writer does not write training graphs (gradients, optimizer updates)
            export = EXPORT[0]
            forward = cb_params.get("network") or net
            if cb_params.get("loss_fn") is not None:
                inputs = inputs[:-1]
            try:
                export(forward, *inputs, file_name=name, file_format="MINDIR")
            except (ValueError, TypeError, NotImplementedError) as exc:
                logger.warning("OnRequestExit saved %s.ckpt but could not export the MINDIR: %s", name, exc)

    def on_train_begin(self, run_context):
        self._install()
        if self.save_ckpt:
            self._load(run_context.original_args().train_network, self.train_name)

    def on_train_step_end(self, run_context):
        with self._lock:
            if self._requested():
                self.exit = True
                run_context.request_stop()

    def on_train_end(self, run_context):
        self._restore()
        if self.exit:
            cb_params = run_context.original_args()
            self._save(cb_params, cb_params.train_network, self.train_name, cb_params.train_dataset_element)

    def on_eval_begin(self, run_context):
        self._install()
        if self.save_ckpt:
            self._load(run_context.original_args().eval_network, self.eval_name, self.train_name)

    def on_eval_step_end(self, run_context):
        if self._requested():
            self.exit = True
            run_context.request_stop()

    def on_eval_end(self, run_context):
        self._restore()
        if self.exit:
            cb_params = run_context.original_args()
            self._save(cb_params, cb_params.eval_network, self.eval_name, cb_params.get("eval_dataset_element"))
