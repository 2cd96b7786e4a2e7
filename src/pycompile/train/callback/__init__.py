"""Training callbacks (shaped like mindspore.train.callback).

`_CallbackManager`, `_InternalCallbackParam` and `RunContext` are what a training loop (Model)
drives them with; see _callback.py for the dispatch rules."""
from pycompile.train.callback._backup_exit import BackupAndRestore, OnRequestExit
from pycompile.train.callback._callback import Callback, RunContext, _CallbackManager, _InternalCallbackParam
from pycompile.train.callback._checkpoint import CheckpointConfig, ModelCheckpoint, _CheckpointManager
from pycompile.train.callback._early_stop import EarlyStopping
from pycompile.train.callback._flops_collector import FlopsUtilizationCollector
from pycompile.train.callback._history import History
from pycompile.train.callback._lambda_callback import LambdaCallback
from pycompile.train.callback._loss_monitor import LossMonitor
from pycompile.train.callback._lr_scheduler import LearningRateScheduler
from pycompile.train.callback._progress_bar import ProgressBar
from pycompile.train.callback._reduce_lr_on_plateau import ReduceLROnPlateau
from pycompile.train.callback._time_monitor import TimeMonitor
from pycompile.train.callback._waited_ds import WaitedDSCallback  # noqa: F401

import pycompile.dataset as _dataset  # noqa: E402

_dataset.WaitedDSCallback = WaitedDSCallback     # mindspore.dataset.WaitedDSCallback (dataset sits below train)

__all__ = ["Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
           "EarlyStopping", "FlopsUtilizationCollector", "ReduceLROnPlateau", "BackupAndRestore", "OnRequestExit", "LearningRateScheduler", "History", "LambdaCallback", "ProgressBar",
           "_CallbackManager", "_InternalCallbackParam", "_CheckpointManager"]
