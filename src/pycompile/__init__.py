"""pycompile: a static-graph compiler for MindSpore-style Python on the CPU.

Write MindSpore code and change one line: `import pycompile as ms`. Cells and functions run
eagerly on NumPy (PYNATIVE_MODE) or are compiled to C (GRAPH_MODE, `@jit`).
"""
import sys as _sys

from pycompile import _module_paths as _module_paths  # noqa: E402
_module_paths.install()          # MindSpore's module paths (`pycompile.nn.loss.loss`): _module_paths.py
from pycompile._version import __version__  # noqa: F401,E402
from pycompile.common import dtype  # noqa: F401
from pycompile.common.context import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT,  # noqa: F401
                                      get_context, set_context, set_device)
from pycompile.common.dtype import (bfloat16, bool_, cdouble, cfloat, complex64, complex128, double, float16,  # noqa: F401
                                    float32, float64, float_, half, int8, int16, int32, int64, int_, single,
                                    uint, uint8, uint16, uint32, uint64)
from pycompile.common.dtype import (byte, dtype_to_nptype, dtype_to_pytype, intc,  # noqa: F401
                                    intp, long, pytype_to_dtype, short, ubyte, uintc, uintp, ushort)
from pycompile.common.toplevel import (JitConfig, no_inline, recompute, set_deterministic,  # noqa: F401
                                       synchronize)
from pycompile.common.seed import get_seed, set_seed  # noqa: F401
from pycompile.common.parameter import Parameter, ParameterTuple  # noqa: F401
from pycompile.common.tensor import Tensor, is_tensor, tensor  # noqa: F401
from pycompile.common.sparse_tensor import COOTensor, CSRTensor, RowTensor, SparseTensor  # noqa: F401
from pycompile.common.toplevel import from_numpy  # noqa: F401
from pycompile.common.mutable import mutable  # noqa: F401
from pycompile import nn, ops  # noqa: F401,E402
from pycompile.ops.batching import vmap  # noqa: F401,E402
from pycompile.ops.function_random import get_rng_state, initial_seed, seed, set_rng_state  # noqa: F401,E402
from pycompile.ops.generator import Generator, default_generator, manual_seed  # noqa: F401,E402
from pycompile.ops.autodiff import get_grad, grad, jacfwd, jacrev, jvp, value_and_grad, vjp  # noqa: F401,E402
from pycompile.ops.autodiff.tape import _no_grad  # noqa: F401,E402  (`ms._no_grad()`)
from pycompile.ops.autodiff.saved_hooks import register_saved_tensors_hooks, saved_tensors_hooks  # noqa: F401,E402
from pycompile.parallel.shard import Layout, shard  # noqa: F401,E402
from pycompile.api import inspect, jit, jit_class, lazy_inline, run_check  # noqa: F401,E402
from pycompile.errors import CompileError  # noqa: F401,E402
from pycompile.backend import runtime as _runtime  # noqa: F401,E402  (thread count, Print, float status)
from pycompile.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401,E402
from pycompile.export import export  # noqa: F401,E402
from pycompile.export.mindir_load import load  # noqa: F401,E402
from pycompile.export.mindir_util import export_split_mindir, load_mindir, save_mindir  # noqa: F401,E402
from pycompile.train import serialization as _serialization  # noqa: E402
# `from mindspore.train.serialization import export, load`: the same functions (train/ sits below export/)
_serialization.export, _serialization.load = export, load
_serialization.export_split_mindir = export_split_mindir
from pycompile.nn.metrics import (F1, MAE, MSE, Accuracy, ConfusionMatrix, Fbeta, Loss, Metric,  # noqa: F401,E402
                                  Precision, Recall, Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                                  TopKCategoricalAccuracy, get_metric_fn, names, rearrange_inputs, ROC, BleuScore, CosineSimilarity, Dice, Perplexity, auc)
from pycompile.train.callback import (Callback, CheckpointConfig, EarlyStopping, History,  # noqa: F401,E402
                                      LambdaCallback, LearningRateScheduler, LossMonitor, ModelCheckpoint,
                                      RunContext, TimeMonitor, ReduceLROnPlateau, BackupAndRestore, OnRequestExit,
                                      FlopsUtilizationCollector)
from pycompile import train  # noqa: F401,E402
from pycompile.flops import flops_collection  # noqa: F401,E402
# mindspore.train.export / export_split_mindir (defined above train/, so set here)
train.export, train.export_split_mindir = export, export_split_mindir
from pycompile import amp  # noqa: F401,E402
from pycompile import log  # noqa: F401,E402  (`mindspore.log`: logger.warning(...))
from pycompile import mint  # noqa: F401,E402  (`mindspore.mint`: the PyTorch-style names)
from pycompile import experimental  # noqa: F401,E402  (`mindspore.experimental.optim`)
from pycompile import profiler  # noqa: F401,E402  (`mindspore.profiler`)
from pycompile.profiler import Profiler  # noqa: F401,E402
from pycompile import communication  # noqa: F401,E402  (mpi4py only on init())
from pycompile.common import context  # noqa: F401,E402  (`ms.context.set_context`, `ms.context.ParallelMode`)
# `import mindspore.context` / `import pycompile.context`: the same module object under MindSpore's path
_sys.modules[__name__ + ".context"] = context
from pycompile.common.auto_parallel import (ParallelMode, get_auto_parallel_context,  # noqa: F401,E402
                                            reset_auto_parallel_context, set_auto_parallel_context)
from pycompile.train.loss_scale_manager import (DynamicLossScaleManager, FixedLossScaleManager,  # noqa: F401,E402
                                                LossScaleManager)
from pycompile.train.model import Model  # noqa: F401,E402
# issue 33 (surface33): type objects, device-runtime answers, segmentation metrics, training helpers
from pycompile.common.dtype_types import (Int, QuantDtype, TensorType, Type, get_py_obj_dtype, list_, number,  # noqa: F401,E402
                                          string, tensor_type, tuple_, type_none)
from pycompile.device_api import *  # noqa: F401,F403,E402
from pycompile.common.tensor_extras import Symbol, UntypedStorage, frombuffer, swap_tensors  # noqa: F401,E402
from pycompile.nn.metrics import (ConfusionMatrixMetric, HausdorffDistance, MeanSurfaceDistance,  # noqa: F401,E402
                                  OcclusionSensitivity, RootMeanSquareDistance)
from pycompile.train.surface33 import *  # noqa: F401,F403,E402
from pycompile.train.checkpoint_more import *  # noqa: F401,F403,E402
from pycompile.train.summary import SummaryCollector, SummaryRecord  # noqa: F401,E402
train.export, train.load = export, load          # mindspore.train.export / load
from pycompile.common.missing import install_tensor_stubs as _install_tensor_stubs  # noqa: E402

_install_tensor_stubs(Tensor)   # last: after every module that adds Tensor methods
_module_paths.complete_loaded()  # MindSpore's names on modules loaded under another path


def __getattr__(name):
    # `ms.dataset` as in MindSpore, imported on first use (import pycompile stays light)
    if name == "dataset":
        import pycompile.dataset
        return pycompile.dataset
    if name == "numpy":           # `ms.numpy` / `from pycompile import numpy as mnp`
        import pycompile.numpy
        return pycompile.numpy
    if name == "onnx":
        import pycompile.onnx
        return pycompile.onnx
    from pycompile.common.missing import missing
    raise missing("ms", __name__, name)
