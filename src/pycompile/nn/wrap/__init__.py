"""Training wrappers (mindspore.nn.wrap)."""
from pycompile.nn.wrap.cell_wrapper import TrainOneStepCell, WithEvalCell, WithGradCell, WithLossCell  # noqa: F401
from pycompile.nn.wrap.loss_scale import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,  # noqa: F401
                                          TrainOneStepWithLossScaleCell)
from pycompile.nn.wrap.grad_reducer import DistributedGradReducer  # noqa: F401
