"""Automatic mixed precision: ms.amp.auto_mixed_precision, build_train_network, custom_mixed_precision,
get_white_list / get_black_list, and the levels of Model(amp_level=...), as MindSpore 2.10 defines them
(mindspore.train.amp), built on Cell.to_float (ops/_mixed.py).

What each level does to the network (checked against the wheel: tests/oracle/data/amp.json):
- O0: nothing.
- O1: the white-listed Cells (Dense, the convolutions, the RNN cells) and Primitive instances (MatMul,
  ReLU, Conv2D ...) compute in float16 and hand float32 back - MindSpore rewrites the network's
  source to put a cast pair around each; here the Cells are flagged (to_float(float16), outputs cast
  to float32) and the Primitives' class swapped for one that casts around the call. nn.ReLU / nn.PReLU
  count as white-listed when ops.ReLU / ops.PReLU are: MindSpore's call those primitives inside.
- O2: the whole network float16 except the black-listed normalisations (BatchNorm1d/2d/3d,
  LayerNorm), which run in float32 and hand float16 on; auto_mixed_precision wraps the network so
  its outputs come back float32.
- O3: the whole network float16 (outputs float32 through the same wrapper).
- auto: op by op inside the network (ops/_mixed.py's AutoPolicy): matrix products and convolutions
  in float16, the precision-sensitive ops (exp, log, softmax, norms, losses, sums ...) in float32,
  a few ops promoted to their widest input, the rest as their inputs come.
Parameters stay float32 at every level (each op reads a cast copy), so the optimizer updates float32
weights, as in MindSpore.

build_train_network's level defaults (MindSpore's table): O2 casts the model to float16 with the
normalisations kept float32 and a DynamicLossScaleManager; O3 casts it all, no loss scaling; O0 / O1 /
auto keep the model float32. `cast_model_type`, `keep_batchnorm_fp32`, `loss_scale_manager` override.
MindSpore 2.10 on its CPU target refuses a loss-scale manager with an update cell (so O2's default):
pycompile runs TrainOneStepWithLossScaleCell on the CPU (it checks the gradients for inf / NaN), as
Model already does for such a manager.
"""
from __future__ import annotations

import logging

from pycompile import nn, ops
from pycompile.common import dtype as mstype
from pycompile.common.cellbase import bump
from pycompile.nn.cell import Cell
from pycompile.nn.optim.optimizer import Optimizer
from pycompile.nn.wrap.cell_wrapper import TrainOneStepCell, WithLossCell as _PlainWithLossCell
from pycompile.nn.wrap.loss_scale import TrainOneStepWithLossScaleCell
from pycompile.ops import _mixed
from pycompile.ops.operations import Primitive
from pycompile.train.loss_scale_manager import DynamicLossScaleManager, LossScaleManager

logger = logging.getLogger("pycompile.amp")

LEVELS = ["O0", "O1", "O2", "O3", "auto"]
_WHITE_CELLS = ["Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "Dense",
                "LSTMCell", "RNNCell", "GRUCell"]
_WHITE_PRIMS = ["Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose", "Conv2DBackpropInput", "MatMul",
                "BatchMatMul", "PReLU", "ReLU", "Ger"]
_BLACK_CELLS = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm"]
# nn Cells whose MindSpore construct calls a Primitive (pycompile's call the functional form): a
# white list naming the Primitive casts around these Cells
_CELL_OF_PRIM = {"ReLU": "ReLU", "PReLU": "PReLU"}


def _classes(module, names):
    """The named classes pycompile has (MindSpore's lists name a few it does not: Conv3DTranspose, Ger)."""
    return [getattr(module, n) for n in names if hasattr(module, n)]


def get_white_list():
    """A copy of O1's white list: Cell and Primitive classes."""
    return _classes(nn, _WHITE_CELLS) + _classes(ops, _WHITE_PRIMS)


def get_black_list():
    """A copy of O2's black list: the normalisation Cells kept in float32."""
    return _classes(nn, _BLACK_CELLS)


class _OutputTo32(Cell):
    """The network, its float outputs cast to float32 (auto_mixed_precision's O2 / O3 wrapper).
    Parameters keep their names (no prefix), as MindSpore's wrapper does."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return _mixed.cast_value(self._backbone(*args, **kwargs), mstype.float32)

    def __getattr__(self, name):
        # attributes of the wrapped network (MindSpore copies them with _get_attr_from_cell)
        backbone = self.__dict__.get("_backbone")
        if backbone is None:
            raise AttributeError(name)
        return getattr(backbone, name)


class WithLossCell(_PlainWithLossCell):
    """The loss cell of build_train_network when the model is float16: the network's output and
    the label cast to float32 before the loss (MindSpore names its class the same)."""

    def construct(self, data, label):
        out = self._backbone(data)
        label = _mixed.cast_value(label, mstype.float32)
        return self._loss_fn(_mixed.cast_value(out, mstype.float32), label)

    @property
    def backbone_network(self):
        return self._backbone


def _cast_primitive_class(cls, dtype):
    """A subclass of a Primitive class whose call computes in `dtype` and returns float32 (O1)."""
    def __call__(self, *args):
        out = cls.__call__(self, *(_mixed.cast_value(a, dtype) for a in args))
        return _mixed.cast_value(out, mstype.float32)
    return type(cls.__name__, (cls,), {"__call__": __call__, "__module__": cls.__module__,
                                       "_amp_cast_of": cls})


def _o1_lists(white_list):
    """(Cell classes, Primitive classes) a white list flags, with the Cells that stand for a listed
    Primitive (_CELL_OF_PRIM)."""
    prims = tuple(c for c in white_list if issubclass(c, Primitive))
    cells = [c for c in white_list if issubclass(c, Cell)]
    cells += [getattr(nn, cell) for cell, prim in _CELL_OF_PRIM.items()
              if hasattr(ops, prim) and getattr(ops, prim) in prims and hasattr(nn, cell)]
    return tuple(cells), prims


def _user_set(cell):
    return cell.__dict__.get("_mixed_precision") is not None


def _o1(cell, dtype, white_cells, white_prims, seen):
    """Flag the white-listed Cells under `cell` (not those the user set with to_float) and swap the
    white-listed Primitive instances they hold."""
    if id(cell) in seen:
        return
    seen.add(id(cell))
    for value in list(cell.__dict__.values()):
        if isinstance(value, Primitive) and isinstance(value, white_prims) \
                and not hasattr(type(value), "_amp_cast_of"):
            value.__class__ = _cast_primitive_class(type(value), dtype)
    for child in cell.cells():
        if _user_set(child):
            continue
        if isinstance(child, white_cells):
            child.to_float(dtype)
            _set_output(child, mstype.float32)
        else:
            _o1(child, dtype, white_cells, white_prims, seen)


def _set_output(cell, dtype):
    object.__setattr__(cell, "_mixed_output", dtype)
    bump(cell)


def _keep_fp32(network, black_list, dtype):
    """network to dtype, the black-listed Cells under it in float32 handing `dtype` on."""
    network.to_float(dtype)
    for _, cell in network.cells_and_names():
        if cell is not network and isinstance(cell, tuple(black_list)):
            cell.to_float(mstype.float32)
            _set_output(cell, dtype)
    return network


def _check_dtype(dtype):
    if dtype is not mstype.float16 and dtype is not mstype.bfloat16:
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got {dtype}.")


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """The network processed for mixed precision at `amp_level` (see the module docstring)."""
    if not isinstance(network, Cell):
        if amp_level != "auto":
            raise TypeError(f"For amp_level '{amp_level}', the network type should be Cell.")
        if not callable(network):
            raise TypeError("For amp_level 'auto', the network type should be Cell or function.")
    _check_dtype(dtype)
    if amp_level == "O0":
        return network
    previous = getattr(network, "_amp_level", None) if isinstance(network, Cell) else None
    if previous in ("O1", "O2", "O3", "auto"):
        logger.warning("The network's auto mixed-precision level is adjusted from %s to %s, and repeated calls "
                       "to mixed-precision interfaces can cause performance degradation.", previous, amp_level)
    if amp_level == "O1":
        _o1(network, dtype, *_o1_lists(get_white_list()), set())
        network = _OutputTo32(network)
    elif amp_level == "O2":
        network = _OutputTo32(_keep_fp32(network, get_black_list(), dtype))
    elif amp_level == "O3":
        network = _OutputTo32(network.to_float(dtype))
    elif amp_level == "auto":
        network = _mixed.set_auto(network, dtype)
    else:
        raise ValueError(f"The amp level {amp_level} is not supported")
    if isinstance(network, Cell):
        object.__setattr__(network, "_amp_level", amp_level)
    return network


def _check_list(items, name):
    if not isinstance(items, list):
        raise TypeError(f"The type of {name} should be list, but got {type(items)}")
    for elem in items:
        if not isinstance(elem, type):
            raise TypeError(f"The element in {name} should be a class, but got {elem}")
        if name == "white_list" and not issubclass(elem, (Cell, Primitive)):
            raise TypeError(f"The subclass of element in {name} should be one of 'Cell' and 'Primitive', "
                            f"but got {elem}")
        if name == "black_list" and not issubclass(elem, Cell):
            raise TypeError(f"The subclass of element in {name} should be one of 'Cell', but got {elem}")
    if name == "black_list":
        for elem in get_black_list():
            if elem not in items:
                logger.warning("%s is removed from internal black list.", elem)


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=mstype.float16):
    """O1 with the given white list, or O2 with the given black list."""
    if not isinstance(network, Cell):
        raise TypeError("The network type should be Cell.")
    if white_list is None and black_list is None:
        raise ValueError("For custom_mixed_precision, one of white_list and black_list must be provided.")
    if white_list is not None and black_list is not None:
        raise ValueError("For custom_mixed_precision, the white_list or black_list cannot be provided at the same "
                         "time, please provide one or the other.")
    _check_dtype(dtype)
    if white_list is not None:
        _check_list(white_list, "white_list")
        _o1(network, dtype, *_o1_lists(white_list), set())
        return _OutputTo32(network)
    _check_list(black_list, "black_list")
    return _OutputTo32(_keep_fp32(network, black_list, dtype))


_CONFIG = {
    "O0": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32, "loss_scale_manager": None},
    "O1": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32, "loss_scale_manager": None},
    "O2": {"keep_batchnorm_fp32": True, "cast_model_type": mstype.float16, "loss_scale_manager": "dynamic"},
    "O3": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float16, "loss_scale_manager": None},
    "auto": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32, "loss_scale_manager": None},
}


def check_level(level, boost_level="O0"):
    if not isinstance(level, str):
        raise TypeError(f"The argument `level` must be a string in ['O0', 'O1', 'O2', 'O3', 'auto'],but got type "
                        f"{type(level)}.")
    if level not in LEVELS:
        raise ValueError(f"The 'level' should be in : {LEVELS}, but got {level}.")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"The 'boost_level' should be in : ['O0', 'O1', 'O2'], but got {boost_level}.")


def _check_kwargs(kwargs):
    for arg in kwargs:
        if arg not in ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"):
            raise ValueError(f"Unsupported arg '{arg}'")
    if "cast_model_type" in kwargs and kwargs["cast_model_type"] not in (mstype.float16, mstype.float32):
        raise TypeError(f"The 'cast_model_type' should be one of [mindspore.float16, mindspore.float32], but got "
                        f"'mindspore.{str(kwargs['cast_model_type']).lower()}'.")
    if "keep_batchnorm_fp32" in kwargs and not isinstance(kwargs["keep_batchnorm_fp32"], bool):
        raise TypeError(f"The argument 'keep_batchnorm_fp32' must be bool, but got "
                        f"{type(kwargs['keep_batchnorm_fp32']).__name__}.")
    manager = kwargs.get("loss_scale_manager")
    if manager and not isinstance(manager, LossScaleManager):
        raise TypeError(f"The argument 'loss_scale_manager' must be LossScaleManager, but got "
                        f"{type(manager).__name__}.")


def _process(network, config, level):
    """The network at build_train_network's level, after its kwargs (MindSpore's decision order)."""
    if config["cast_model_type"] is mstype.float16:
        network.to_float(mstype.float16)
        if config["keep_batchnorm_fp32"]:
            _keep_fp32(network, get_black_list(), mstype.float16)
        return network
    if not config["keep_batchnorm_fp32"] and level == "O2":
        return network.to_float(mstype.float16)
    if level in ("O2", "O3"):       # cast_model_type=float32 given: the model stays float32
        return network
    return auto_mixed_precision(network, level)


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0", **kwargs):
    """The one-step training Cell of `network` at mixed-precision `level` (see the module docstring)."""
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"The argument 'optimizer' must be Optimizer, but got {type(optimizer).__name__}.")
    check_level(level, boost_level)
    _check_kwargs(kwargs)
    config = dict(_CONFIG[level], **kwargs)
    if config["loss_scale_manager"] == "dynamic":
        config["loss_scale_manager"] = DynamicLossScaleManager()
    network = _process(network, config, level)
    if loss_fn:
        if not isinstance(loss_fn, Cell):
            raise TypeError(f"The argument 'loss_fn' must be Cell, but got {type(loss_fn).__name__}.")
        if config["cast_model_type"] is mstype.float16 or getattr(network, "_amp_level", None) in ("O2", "O3", "auto"):
            network = WithLossCell(network, loss_fn)
        else:
            network = _PlainWithLossCell(network, loss_fn)
    manager = config["loss_scale_manager"]
    if manager is not None:
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            return TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell).set_train()
        return TrainOneStepCell(network, optimizer, manager.get_loss_scale()).set_train()
    return TrainOneStepCell(network, optimizer).set_train()
