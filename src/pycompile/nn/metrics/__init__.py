"""Metrics for evaluation (shaped like mindspore.train.metrics, which mindspore.nn re-exports).

`names()` lists the names `get_metric_fn(name)` and `Model(metrics={"accuracy", ...})` accept;
`get_metrics` turns a Model's `metrics` argument into {name: Metric}.
"""
from pycompile.nn.metrics.accuracy import Accuracy
from pycompile.nn.metrics.confusion_matrix import ConfusionMatrix
from pycompile.nn.metrics.error import MAE, MSE
from pycompile.nn.metrics.fbeta import F1, Fbeta
from pycompile.nn.metrics.loss import Loss
from pycompile.nn.metrics.metric import EvaluationBase, Metric, rearrange_inputs
from pycompile.nn.metrics.more import ROC, BleuScore, CosineSimilarity, Dice, Perplexity, auc
from pycompile.nn.metrics.occlusion import OcclusionSensitivity
from pycompile.nn.metrics.precision_recall import Precision, Recall
from pycompile.nn.metrics.segmentation import (ConfusionMatrixMetric, HausdorffDistance, MeanSurfaceDistance,
                                               RootMeanSquareDistance)
from pycompile.nn.metrics.topk import Top1CategoricalAccuracy, Top5CategoricalAccuracy, TopKCategoricalAccuracy

__all__ = ["names", "get_metric_fn", "get_metrics", "Metric", "EvaluationBase", "rearrange_inputs", "Accuracy",
           "Loss", "MAE", "MSE", "Precision", "Recall", "Fbeta", "F1", "ConfusionMatrix",
           "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Perplexity", "Dice",
           "CosineSimilarity", "ROC", "auc", "BleuScore", "HausdorffDistance", "MeanSurfaceDistance",
           "RootMeanSquareDistance", "ConfusionMatrixMetric", "OcclusionSensitivity"]

# MindSpore's names for the metrics pycompile has (a subset of MindSpore 2.10's list).
_FACTORY = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "precision": Precision,
    "recall": Recall,
    "F1": F1,
    "topk": TopKCategoricalAccuracy,
    "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy,
    "mae": MAE,
    "mse": MSE,
    "loss": Loss,
    "confusion_matrix": ConfusionMatrix,
    "dice": Dice,
    "roc": ROC,
    "auc": auc,
    "bleu_score": BleuScore,
    "cosine_similarity": CosineSimilarity,
    "perplexity": Perplexity,
    "hausdorff_distance": HausdorffDistance,
    "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance,
    "confusion_matrix_metric": ConfusionMatrixMetric,
    "occlusion_sensitivity": OcclusionSensitivity,
}


def names() -> list:
    """The metric names get_metric_fn accepts, sorted."""
    return sorted(_FACTORY)


def get_metric_fn(name, *args, **kwargs) -> Metric:
    """A new metric object for `name` (see names()), built with the given arguments."""
    if name not in _FACTORY:
        raise KeyError(f"For 'get_metric_fn', unsupported metric {name}, please refer to official website "
                       f"for more details about supported metrics.")
    return _FACTORY[name](*args, **kwargs)


def get_metrics(metrics):
    """A Model's `metrics` argument as {name: Metric}: a dict of Metric objects is kept, a set
    of names is built with get_metric_fn, None stays None."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(name, str) or not isinstance(metric, Metric):
                raise TypeError(f"For 'get_metrics', if 'metrics' is dict, the key in 'metrics' must be string and "
                                f"value in 'metrics' must be Metric, but got key:{type(name)}, value:{type(metric)}.")
        return metrics
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"For 'get_metrics', the argument 'metrics' must be None, dict or set, but got {metrics}")
