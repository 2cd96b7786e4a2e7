"""pycompile.nn: Cell, layers, losses (shaped like mindspore.nn)."""
from pycompile.nn.cell import Cell  # noqa: F401
from pycompile.nn.graph_cell import GraphCell  # noqa: F401
from pycompile.nn.layers import (GELU, CellList, Dense, Dropout, Embedding, Flatten, HSigmoid, HSwish,  # noqa: F401
                                 Identity, LayerNorm, LogSoftmax, ReLU, SequentialCell, Sigmoid, Softmax, Tanh,
                                 get_activation)
from pycompile.nn.onehot import OneHot  # noqa: F401
from pycompile.nn.sparse_sparse33 import SparseTensorDenseMatmul, SparseToDense  # noqa: F401
from pycompile.nn.time_distributed import TimeDistributed  # noqa: F401
from pycompile.nn.loss import L1Loss, LossBase, MSELoss, SoftmaxCrossEntropyWithLogits  # noqa: F401
from pycompile.nn.metrics import (F1, MAE, MSE, Accuracy, ConfusionMatrix, Fbeta, Loss, Metric, Precision,  # noqa: F401
                                  Recall, Top1CategoricalAccuracy, Top5CategoricalAccuracy, TopKCategoricalAccuracy,
                                  get_metric_fn, names, rearrange_inputs, ROC, BleuScore, CosineSimilarity, Dice, Perplexity, auc)
from pycompile.nn.learning_rate_schedule import (CosineDecayLR, ExponentialDecayLR, InverseDecayLR,  # noqa: F401
                                                 LearningRateSchedule, NaturalExpDecayLR, PolynomialDecayLR,
                                                 WarmUpLR)
from pycompile.nn.dynamic_lr import (cosine_decay_lr, exponential_decay_lr, inverse_decay_lr,  # noqa: F401
                                     natural_exp_decay_lr, piecewise_constant_lr, polynomial_decay_lr, warmup_lr)
from pycompile.nn.optim import (FTRL, SGD, AdaMax, Adadelta, Adagrad, Adam, AdamWeightDecay, Lamb, LazyAdam,  # noqa: F401
                                Momentum, Optimizer, ProximalAdagrad, RMSProp)
from pycompile.nn.optim import ASGD, LARS, AdaFactor, AdamOffload, Rprop  # noqa: F401
from pycompile.nn.loss_sampled import SampledSoftmaxLoss  # noqa: F401
from pycompile.nn.ssim import MSSSIM, SSIM  # noqa: F401
from pycompile.nn.wrap import DistributedGradReducer  # noqa: F401
from pycompile.nn.sync_batchnorm import SyncBatchNorm  # noqa: F401
from pycompile.nn.wrap import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell, TrainOneStepCell,  # noqa: F401
                               TrainOneStepWithLossScaleCell, WithEvalCell, WithGradCell, WithLossCell)
from pycompile.nn.activation import (CELU, ELU, GLU, Hardtanh, LeakyReLU, LogSigmoid, Mish, PReLU, ReLU6,  # noqa: F401
                                     SeLU, SiLU, Softmin, Softsign, Tanhshrink)
from pycompile.nn.losses import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss,  # noqa: F401
                                 DiceLoss, FocalLoss, HuberLoss, KLDivLoss, MAELoss, MarginRankingLoss,
                                 MultiLabelSoftMarginLoss, NLLLoss, RMSELoss, SmoothL1Loss, SoftMarginLoss,
                                 TripletMarginLoss)
from pycompile.nn.rnn import GRU, LSTM, RNN  # noqa: F401
from pycompile.nn.rnn_cells import GRUCell, LSTMCell, RNNCell  # noqa: F401
from pycompile.nn.embedding import EmbeddingLookup  # noqa: F401
from pycompile.nn.attention import MultiheadAttention  # noqa: F401
from pycompile.nn.transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: F401
                                      TransformerEncoder, TransformerEncoderLayer)
from pycompile.nn.conv import (Conv1d, Conv1dTranspose, Conv2d, Conv2dBnAct, Conv2dTranspose, Conv3d,  # noqa: F401
                               Conv3dTranspose)
from pycompile.nn.image import (ConstantPad1d, ConstantPad2d, ConstantPad3d, Dropout1d, Dropout2d, Pad,  # noqa: F401
                                ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                                ReplicationPad3d, Upsample,
                                ZeroPad2d)
from pycompile.nn.normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d,  # noqa: F401
                                        InstanceNorm2d, InstanceNorm3d)
from pycompile.nn.pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,  # noqa: F401
                                  AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d)
from pycompile.nn.image_more import CentralCrop, ImageGradients, PSNR  # noqa: F401
from pycompile.nn.math_more import (DiGamma, IGamma, LBeta, LGamma, MatDet, MatInverse, MatrixDiag,  # noqa: F401
                                    MatrixDiagPart, MatrixSetDiag)
from pycompile.nn.layers_more import (ChannelShuffle, ClipByNorm, Dropout3d, FastGelu, GaussianNLLLoss,  # noqa: F401
                                      HingeEmbeddingLoss, HShrink, L1Regularizer, Linear, LPPool1d, LPPool2d, LRN, MatMul,
                                      Moments, MultiMarginLoss, Norm, PixelShuffle, PixelUnshuffle, PoissonNLLLoss, Range,
                                      ReduceLogSumExp, Roll, RReLU, Softmax2d, SoftShrink, Threshold, Tril,
                                      TripletMarginWithDistanceLoss, Triu, Unflatten)

from pycompile.nn.layers_surface33 import (AvgPool1dExt, AvgPool2dExt, AvgPool3d, AvgPool3dExt, BiDense,  # noqa: F401,E402
                                           CTCLoss,
                                           CellDict, Dropout2dExt, DropoutExt, ForwardValueAndGrad, Jvp, L1LossExt,
                                           LogSoftmaxExt, MaxPool2dExt, MaxPool3d, MultiClassDiceLoss,
                                           MultilabelMarginLoss, ParameterUpdate, Vjp, no_init_parameters)
from pycompile.nn.metrics import (ConfusionMatrixMetric, HausdorffDistance, MeanSurfaceDistance,  # noqa: F401,E402
                                  OcclusionSensitivity, RootMeanSquareDistance, get_metrics)
from pycompile.nn.wrappers_surface33 import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, DenseBnAct,  # noqa: F401,E402
                                             FractionalMaxPool2d, FractionalMaxPool3d, MultiFieldEmbeddingLookup,
                                             EmbeddingExt, GradAccumulationCell, LayerNormExt, MicroBatchInterleaved,
                                             PipelineCell, PipelineGradReducer, PReLUExt, Unfold,
                                             VirtualDatasetCellTriple)

# ops.LSTM (the primitive with one flat weight) runs on nn.LSTM's time loop: it is defined here,
# the layer above ops, and handed down as MindSpore's ops.LSTM / ops.operations.LSTM
from pycompile import ops as _ops  # noqa: E402
from pycompile.nn.lstm_primitive import LSTM as _LSTMPrimitive  # noqa: E402
_ops.LSTM = _ops.operations.LSTM = _LSTMPrimitive
# and the GRU primitive of MindSpore's reinforcement-learning package, ops.operations._rl_inner_ops
from pycompile.nn.gru_primitive import GRUV2 as _GRUV2  # noqa: E402
from pycompile.ops.operations import _rl_inner_ops  # noqa: E402
_rl_inner_ops.GRUV2 = _GRUV2

def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("nn", __name__, name)

