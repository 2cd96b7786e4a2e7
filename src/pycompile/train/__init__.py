"""pycompile.train: checkpoints, callbacks and metrics (shaped like mindspore.train)."""
from pycompile.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401
from pycompile.nn.metrics import (F1, MAE, MSE, Accuracy, ConfusionMatrix, Fbeta, Loss, Metric, Precision,  # noqa: F401
                                  Recall, Top1CategoricalAccuracy, Top5CategoricalAccuracy, TopKCategoricalAccuracy,
                                  get_metric_fn, get_metrics, names, rearrange_inputs, ROC, BleuScore, CosineSimilarity, Dice, Perplexity, auc)
from pycompile.train import metrics  # noqa: F401,E402
from pycompile.train.callback import (Callback, CheckpointConfig, EarlyStopping, History, LambdaCallback,  # noqa: F401
                                      LearningRateScheduler, LossMonitor, ModelCheckpoint, ProgressBar, RunContext,
                                      TimeMonitor, ReduceLROnPlateau, BackupAndRestore, OnRequestExit,
                                      FlopsUtilizationCollector)
from pycompile.train.loss_scale_manager import (DynamicLossScaleManager, FixedLossScaleManager,  # noqa: F401,E402
                                                LossScaleManager)
from pycompile.train.model import Model  # noqa: F401,E402
from pycompile.nn.metrics import (ConfusionMatrixMetric, HausdorffDistance, MeanSurfaceDistance,  # noqa: F401,E402
                                  OcclusionSensitivity, RootMeanSquareDistance)
from pycompile.train.surface33 import *  # noqa: F401,F403,E402
from pycompile.train.checkpoint_more import async_ckpt_thread_status, load_checkpoint_async  # noqa: F401,E402
from pycompile.train.summary import SummaryCollector, SummaryRecord  # noqa: F401,E402


def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("train", __name__, name)
