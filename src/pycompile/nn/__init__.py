"""pycompile.nn: Cell, layers, losses (shaped like mindspore.nn)."""
from pycompile.nn.cell import Cell  # noqa: F401
from pycompile.nn.layers import (GELU, CellList, Dense, Dropout, Embedding, Flatten, HSigmoid, HSwish,  # noqa: F401
                                 Identity, LayerNorm, LogSoftmax, ReLU, SequentialCell, Sigmoid, Softmax, Tanh,
                                 get_activation)
from pycompile.nn.onehot import OneHot  # noqa: F401
from pycompile.nn.loss import L1Loss, LossBase, MSELoss, SoftmaxCrossEntropyWithLogits  # noqa: F401
from pycompile.nn.metrics import (F1, MAE, MSE, Accuracy, ConfusionMatrix, Fbeta, Loss, Metric, Precision,  # noqa: F401
                                  Recall, Top1CategoricalAccuracy, Top5CategoricalAccuracy, TopKCategoricalAccuracy,
                                  get_metric_fn, names, rearrange_inputs)
