"""The rest of MindSpore 2.10's public `nn.Cell` methods: flags, recomputation and parallel hints,
traversal helpers, `to`, buffers, the torch-like state dict, backward pre-hooks.

`Cell` is a mixin nn.Cell derives from (nn/cell.py keeps registration and calling). What each
method does is what MindSpore 2.10's does, checked against the wheel (tests/conformance/
cases_cell_api.py); where pycompile cannot do what MindSpore does, the method says so:

- `recompute(...)` checks MindSpore's arguments and marks the Cell and its sub-Cells (flag
  `output_recompute`, scope `recompute_`); pycompile keeps every activation, so values, gradients
  and memory use are those of the Cell without it.
- `shard(...)` does nothing on one process, as MindSpore (which shards only with several devices
  in semi-auto / auto parallel); with several processes it records the strategies, unapplied
  (pycompile has no operator-level model parallelism: mindspore.shard, parallel/shard.py).
- `set_comm_fusion`, `set_data_parallel`, `pipeline_stage` / `pipeline_segment`, `set_jit_config`,
  `set_mixed_precision_type` record what MindSpore records (Parameter / Primitive attributes,
  Cell attributes); pycompile's single-device compiler reads none of them.
- Buffers (`register_buffer`) are Tensor attributes listed in `_buffers`: graph code reads them
  as constants of the compiled code, as MindSpore does. A Cell whose buffer is replaced, or
  written by `load_state_dict` / `to`, recompiles its next compiled call (MindSpore's GRAPH_MODE
  keeps the old value there).
- Backward pre-hooks (`hook(cell, grad_output)`) run on the Cell's output after its forward hooks,
  through nn/hooks.py's machinery (an entry kept last among the forward hooks).
"""
from __future__ import annotations

import enum
import itertools
import re
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from pycompile.common import context
from pycompile.common import dtype as mstype
from pycompile.common.cellbase import CellBase, bump
from pycompile.common.hook_handle import HookHandle
from pycompile.common.log import logger
from pycompile.common.parameter import Parameter, ParameterTuple
from pycompile.common.tensor import Tensor, parameters_written
from pycompile.common.validator import check_bool, check_non_negative_int
from pycompile.ops.autodiff import custom
from pycompile.ops._table import OpTypeError
from pycompile.ops.primitive import Primitive

_EXTRA_STATE = "_extra_state"
_PRE_KEY = "backward_pre"       # the entry of the forward hooks running the backward pre-hooks


class MixedPrecisionType(enum.IntEnum):
    """MindSpore's `_c_expression.MixedPrecisionType` (what get_mixed_precision_type returns)."""
    NOTSET = 0
    FP16 = 1
    FP32 = 2
    BF16 = 3

    def __str__(self) -> str:
        return f"MixedPrecisionType.{self.name}"


_PRECISION_FLAGS = (("fp16", MixedPrecisionType.FP16, mstype.float16),
                    ("fp32", MixedPrecisionType.FP32, mstype.float32),
                    ("bf16", MixedPrecisionType.BF16, mstype.bfloat16))


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _lazy(cell, key: str, factory):
    """cell.__dict__[key], created on first use (a Cell that never uses a feature keeps its
    attributes, and so its compile-cache fingerprint, as they were)."""
    d = cell.__dict__
    value = d.get(key)
    if value is None:
        value = d[key] = factory()
    return value


def record_flags(cell, **flags) -> None:
    """add_flags without the version bump: nn.Cell's set_train and to_float call it on each Cell
    they change (and bump it themselves), as MindSpore's call add_flags_recursive."""
    _lazy(cell, "_func_graph_flags", dict).update(flags)
    cell.__dict__.update(flags)
    for key, kind, dtype in _PRECISION_FLAGS:
        if flags.get(key):
            cell.__dict__["mixed_precision_type"] = cell.__dict__["_mixed_precision_type"] = kind
            cell.__dict__["_mixed_precision"] = dtype


def _primitives(cell):
    return [v for v in cell.__dict__.values() if isinstance(v, Primitive)]


class Cell:
    """The methods of nn.Cell listed in the module's doc: a mixin nn.Cell derives from (it supplies
    `_params`, `_cells`, `cells_and_names`, `parameters_and_names` ...). Named Cell so that Python's
    own argument errors read as MindSpore's ("Cell.to() got an unexpected keyword argument ...")."""

    __slots__ = ()
    mixed_precision_type = None     # MindSpore's attribute, set by the fp16 / fp32 / bf16 flags
    cell_type = None                # set by update_cell_type

    # -- flags ------------------------------------------------------------------------------------
    def add_flags(self, **flags):
        """Set `flags` as attributes of the Cell and in get_flags(); fp16 / fp32 / bf16 also set
        its mixed precision, as to_float does for one Cell."""
        record_flags(self, **flags)
        bump(self)
        return self

    def add_flags_recursive(self, **flags):
        self.add_flags(**flags)
        for cell in self.cells():
            cell.add_flags_recursive(**flags)
        return self

    def get_flags(self) -> dict:
        return _lazy(self, "_func_graph_flags", dict)

    def set_boost(self, boost_type):
        if boost_type not in ("less_bn",):
            raise ValueError(f"For 'set_boost', the argument 'boost_type' must be 'less_bn', but got {boost_type}.")
        return self.add_flags_recursive(less_bn=boost_type == "less_bn")

    def set_broadcast_flag(self, mode: bool = True):
        return self.add_flags_recursive(broadcast_flag=mode)

    def set_mixed_precision_type(self, mixed_type) -> None:
        """Record the Cell's mixed precision type (MindSpore's C++ attribute: its PyNative calls do
        not read it, and neither does pycompile - to_float / add_flags(fp16=True) cast)."""
        if not isinstance(mixed_type, MixedPrecisionType):
            raise TypeError("set_mixed_precision_type(): incompatible function arguments. The following argument "
                            "types are supported:\n    1. (self: Cell, arg0: MixedPrecisionType) -> None\n\n"
                            f"Invoked with: {type(self).__name__}, {mixed_type!r}")
        self.__dict__["_mixed_precision_type"] = mixed_type

    def get_mixed_precision_type(self) -> MixedPrecisionType:
        return self.__dict__.get("_mixed_precision_type", MixedPrecisionType.NOTSET)

    def cast_inputs(self, inputs, dst_type) -> None:
        logger.warning("'cast_inputs' will be deprecated in future versions.")

    # -- recomputation, parallel and compile hints --------------------------------------------------
    def recompute(self, *args, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None,
                  **kwargs) -> None:
        """Mark the Cell and its sub-Cells recomputed (see the module's doc: no effect on values
        or memory in pycompile). Keyword arguments are checked as MindSpore checks them."""
        if args:
            raise TypeError("too many positional arguments")
        for key in ("mp_comm_recompute", "parallel_optimizer_comm_recompute"):
            value = kwargs.get(key)
            if value is not None and not isinstance(value, bool):
                raise TypeError(f"The parameter '{key}' must be {bool}, but got {type(value)}")
        if output_recompute:
            use_reentrant = False
        if use_reentrant and context_fn is not None:
            raise ValueError("context_fn is only supported when use_reentrant=False.")
        _mark_recompute(self, True, output_recompute)
        if "mp_comm_recompute" in kwargs:
            _set_prim_attr(self, "recompute_comm_op", kwargs["mp_comm_recompute"])
        if kwargs.get("parallel_optimizer_comm_recompute", False):
            logger.warning("Currently, the communication operator allgathers introduced by optimizer shard is "
                           "replaced with zero3.")
        if "recompute_slice_activation" in kwargs:
            _set_prim_attr(self, "slice_activation", kwargs["recompute_slice_activation"])
        for key in kwargs:
            if key not in ("mp_comm_recompute", "parallel_optimizer_comm_recompute", "recompute_slice_activation"):
                raise ValueError(f"For 'recompute', keyword '{key}' is not recognized! the key kwargs must be "
                                 f"'mp_comm_recompute', 'parallel_optimizer_comm_recompute', "
                                 f"'recompute_slice_activation'")

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None) -> None:
        """Nothing on one process (MindSpore's too); with several, the strategies are recorded and
        the Cell runs unsharded (see the module's doc)."""
        from pycompile.communication.management import get_group_size
        if get_group_size() == 1:
            return
        d = self.__dict__
        if d.get("_in_strategy") is not None:
            logger.warning(f"For '{type(self).__name__}', 'Shard' has been configured more than once. The existing "
                           f"in_strategy is {d['_in_strategy']} and the existing out_strategy is "
                           f"{d.get('_out_strategy')}. The new in_strategy {in_strategy} and out_strategy "
                           f"{out_strategy} may not take effect. It is recommended to configure 'Shard' only once.")
        d["_in_strategy"], d["_out_strategy"], d["_parameter_plan"] = in_strategy, out_strategy, parameter_plan

    @property
    def pipeline_stage(self) -> int:
        """The pipeline stage (an int >= 0); unset until assigned, as in MindSpore."""
        return _pipeline_attr(self, "pipeline_stage")

    @pipeline_stage.setter
    def pipeline_stage(self, value) -> None:
        _set_pipeline_attr(self, "pipeline_stage", value, "For 'Cell', the property 'pipeline_stage'")

    @property
    def pipeline_segment(self) -> int:
        return _pipeline_attr(self, "pipeline_segment")

    @pipeline_segment.setter
    def pipeline_segment(self, value) -> None:
        # (MindSpore 2.10's message names set_auto_parallel_context's argument)
        _set_pipeline_attr(self, "pipeline_segment", value,
                           "For 'context.set_auto_parallel_context', the argument 'pipeline_stages'")

    def set_comm_fusion(self, fusion_type, recurse=True):
        """Set `comm_fusion` of the trainable Parameters (read by MindSpore's gradient fusion)."""
        check_non_negative_int(fusion_type)
        for p in self.trainable_params(recurse):
            p.comm_fusion = fusion_type
        return self

    def set_data_parallel(self) -> None:
        """Mark every Primitive attribute of the Cell and its sub-Cells for data-parallel strategy
        generation (`strategy_gen_mode`), as MindSpore does."""
        for _, cell in self.cells_and_names():
            for prim in _primitives(cell):
                prim.add_prim_attr("strategy_gen_mode", "data_parallel")

    def set_jit_config(self, jit_config) -> None:
        if self.jit_config_dict:
            logger.warning("For Cell, jit config can only be set once, ignore this setting.")
        else:
            self.__dict__["_jit_config_dict"] = jit_config.jit_config_dict

    @property
    def jit_config_dict(self) -> dict:
        return _lazy(self, "_jit_config_dict", dict)

    @property
    def bprop_debug(self) -> bool:
        """Whether a custom bprop runs in Python in graph mode (MindSpore's switch; pycompile runs
        bprop the same way either way)."""
        return self.__dict__.get("_bprop_debug", False)

    @bprop_debug.setter
    def bprop_debug(self, value) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"For 'Cell', the property 'bprop_debug' must be bool type, but got type {type(value)}.")
        self.__dict__["_bprop_debug"] = value

    # -- traversal and Parameters -------------------------------------------------------------------
    def apply(self, fn):
        """fn(cell) on every sub-Cell (depth first) and then the Cell itself; returns the Cell."""
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    def get_sub_cell(self, target: str):
        """The sub-Cell at dotted path `target` ('' is the Cell itself)."""
        if target == "":
            return self
        cell = self
        for item in target.split("."):
            if not hasattr(cell, item):
                raise AttributeError(f"{type(cell).__name__} has no attribute `{item}`")
            cell = getattr(cell, item)
            if not isinstance(cell, CellBase):
                raise AttributeError(f"`{item}` is not an nn.Cell")
        return cell

    def parameters_dict(self, recurse=True) -> OrderedDict:
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def parameters_broadcast_dict(self, recurse=True):
        out = OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse)
                          if getattr(p, "layerwise_parallel", False) is False)
        return out or None

    def init_parameters_data(self, auto_parallel_mode=False) -> dict:
        """{Parameter: initialized Parameter}; pycompile's Parameters hold their data from the start
        (as MindSpore's in PyNative), so each maps to itself. auto_parallel_mode: only the
        Parameters of `parallel_parameter_name_list`, none on one device."""
        if auto_parallel_mode:
            return {}
        replace = {}
        for _, cell in self.cells_and_names():
            for p in cell._params.values():
                if p not in replace:
                    replace[p] = p.init_data()
        return replace

    def update_parameters_name(self, prefix="", recurse=True) -> None:
        """Name each Parameter `prefix` + its attribute path."""
        reg = r"^\w*[0-9a-zA-Z\_\.\-]*$"
        if re.match(reg, prefix, re.ASCII) is None:
            raise ValueError(f"The '{prefix}' is illegal, it must be match regular'{reg}' by flags'{re.ASCII}.'")
        for name, p in self.parameters_and_names(expand=recurse):
            p.name = prefix + name

    def check_names(self) -> None:
        names = set()
        for value, param in self.parameters_and_names():
            if param.name in names:
                raise ValueError(f"The value of {value} is {param}, its name '{param.name}' already exists. "
                                 f"Please set a unique name for the parameter.")
            names.add(param.name)

    def check_names_and_refresh_name(self) -> None:
        names = [p.name for p in dict(self.parameters_and_names()).values()]
        if len(set(names)) < len(names):
            self.update_parameters_name()
            self.check_names()

    def remove_redundant_parameters(self) -> None:
        logger.warning("'remove_redundant_parameters' will be deprecated in future versions.")

    def update_cell_prefix(self) -> None:
        for name, cell in self.cells_and_names():
            cell.__dict__["_param_prefix"] = name

    @property
    def param_prefix(self) -> str:
        return self.__dict__.get("_param_prefix", "")

    def update_cell_type(self, cell_type) -> None:
        self.cell_type = cell_type

    def get_scope(self):
        return self.__dict__.get("_scope")

    def generate_scope(self) -> None:
        """Give each sub-Cell its scope, 'Default/<attribute>-<class>/...' (a scope already set is
        kept; recompute's 'recompute_' is completed)."""
        for name, cell in _scopes(self, "Default"):
            scope = cell.__dict__.get("_scope")
            if scope is None or scope == "recompute_":
                cell.__dict__["_scope"] = (scope or "") + name

    # -- to / to_empty ------------------------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Cast the float Parameters and buffers to a float or complex dtype: `to(dtype)`,
        `to(device=None, dtype=None, non_blocking=False)`, `to(tensor)` (its dtype). The device
        must be the CPU ('CPU' / 'cpu' / None). The Parameters stay the same objects."""
        device, dtype = _parse_to(args, kwargs)
        _check_device(device, "to")
        if dtype is not None:
            if not (dtype.is_float or dtype.is_complex):
                raise TypeError(f"Cell.to only accepts floating point or complex dtypes, but got desired dtype={dtype}")
            if dtype.is_complex:
                warnings.warn("Complex modules are a new feature under active development whose design may change, "
                              "and some modules might not work as expected when using complex tensors as "
                              "parameters or buffers.", stacklevel=2)
        if dtype is None:
            return self
        from pycompile.ops import functional as F
        return _apply(self, lambda t: F.cast(t, dtype) if (t.dtype.is_float or t.dtype.is_complex) else t)

    def to_empty(self, *, device=None, recurse=True):
        """New storage for every Parameter and buffer, contents unspecified (pycompile: zeros)."""
        _check_device(device, "empty_like")
        return _apply(self, lambda t: Tensor(shape=t.shape, dtype=t.dtype), recurse)

    # -- buffers ------------------------------------------------------------------------------------
    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """A Tensor (or None) attribute that is part of the Cell's state but not a Parameter;
        persistent buffers are in state_dict()."""
        d = self.__dict__
        if "_params" not in d:
            raise AttributeError("cannot assign buffer before Cell.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string.But got this type: {type(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        buffers = _lazy(self, "_buffers", OrderedDict)
        if hasattr(self, name) and name not in buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor)}' object to buffer '{name}' "
                            f"(mindspore Tensor or None required)")
        if tensor is not None:
            tensor._is_buffer = True
        buffers[name] = tensor
        hidden = _lazy(self, "_non_persistent_buffers_set", set)
        (hidden.discard if persistent else hidden.add)(name)
        object.__setattr__(self, name, tensor)
        bump(self)

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """(dotted name, buffer) of the Cell's buffers (recurse: and its sub-Cells'), None skipped."""
        seen = set()
        for cell_prefix, cell in (self.cells_and_names(prefix) if recurse else [(prefix, self)]):
            for name, buf in list((cell.__dict__.get("_buffers") or {}).items()):
                if buf is None or id(buf) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(buf))
                yield (f"{cell_prefix}.{name}" if cell_prefix else name), buf

    def buffers(self, recurse: bool = True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def get_buffer(self, target: str):
        cell_path, _, name = target.rpartition(".")
        cell = self.get_sub_cell(cell_path)
        if not hasattr(cell, name):
            raise AttributeError(f"{type(cell).__name__} has no attribute `{name}`")
        if name not in (cell.__dict__.get("_buffers") or {}):
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(cell, name)

    # -- state dict ---------------------------------------------------------------------------------
    def get_extra_state(self):
        """Override (with set_extra_state) to put a value under '<prefix>_extra_state' in state_dict."""
        raise RuntimeError("Reached a code path in Cell.get_extra_state() that should never be called.")

    def set_extra_state(self, state) -> None:
        raise RuntimeError("Reached a code path in Cell.set_extra_state() that should never be called.")

    def register_state_dict_pre_hook(self, hook) -> HookHandle:
        """hook(cell, prefix, keep_vars) before the Cell's entries are collected."""
        return _add_hook(self, "_state_dict_pre_hooks", hook)

    def register_state_dict_post_hook(self, hook) -> HookHandle:
        """hook(cell, state_dict, prefix, local_metadata) -> None after the Cell's subtree is in."""
        return _add_hook(self, "_state_dict_hooks", hook)

    def register_load_state_dict_pre_hook(self, hook) -> HookHandle:
        """hook(cell, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs) before the Cell's entries are loaded."""
        return _add_hook(self, "_load_state_dict_pre_hooks", hook)

    def register_load_state_dict_post_hook(self, hook) -> HookHandle:
        """hook(cell, incompatible_keys) -> None after the Cell's subtree is loaded."""
        return _add_hook(self, "_load_state_dict_post_hooks", hook)

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        """The Cell's own entries: Parameters, persistent buffers, extra state."""
        for name, p in self._params.items():
            destination[prefix + name] = p
        hidden = self.__dict__.get("_non_persistent_buffers_set") or ()
        for name, buf in (self.__dict__.get("_buffers") or {}).items():
            if buf is not None and name not in hidden:
                destination[prefix + name] = buf
        if getattr(type(self), "get_extra_state", Cell.get_extra_state) is not Cell.get_extra_state:
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict 'path' -> Parameter / buffer (the objects themselves) of the Cell and its
        sub-Cells: each Cell's Parameters, buffers and extra state, then its sub-Cells'."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://www.mindspore.cn/docs/zh-CN/master/api_python/nn/mindspore.nn.Cell.html"
                          " for details.", FutureWarning, stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is not None and not isinstance(destination, dict):
            raise TypeError(f"The type of destination must be OrderedDict, but got {type(destination)}")
        if not isinstance(prefix, str):
            raise TypeError(f"The type of prefix must be string, but got {type(prefix)}")
        if not isinstance(keep_vars, bool):
            raise TypeError(f"The type of keep_vars must be bool, but got {type(keep_vars)}")
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata: dict = {}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list((self.__dict__.get("_state_dict_pre_hooks") or {}).values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, cell in self._cells.items():
            cell.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in list((self.__dict__.get("_state_dict_hooks") or {}).values()):
            if hook(self, destination, prefix, local_metadata) is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        """Load the Cell's own entries (not its sub-Cells'): values cast to each Parameter's or
        buffer's dtype and written into it; problems go to the three lists."""
        for hook in list((self.__dict__.get("_load_state_dict_pre_hooks") or {}).values()):
            hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        hidden = self.__dict__.get("_non_persistent_buffers_set") or ()
        buffers = {k: v for k, v in (self.__dict__.get("_buffers") or {}).items() if k not in hidden}
        local = {k: v for k, v in itertools.chain(self._params.items(), buffers.items()) if v is not None}
        for name, target in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected Tensor or Tensor-like object '
                                  f"from checkpoint but received {type(value)}")
                continue
            if tuple(value.shape) != tuple(target.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {tuple(value.shape)} from "
                                  f"checkpoint, the shape in current model is {tuple(target.shape)}.")
                continue
            try:
                target.set_data(Tensor(value.asnumpy(), dtype=target.dtype))
            except Exception as ex:  # noqa: BLE001 - reported with the others, as MindSpore does
                error_msgs.append(f'While copy the parameter named "{key}", whose shape in the model are '
                                  f"{tuple(target.shape)} and whose shape in the checkpoint are "
                                  f"{tuple(value.shape)}, an exception occurred : {ex.args}.")
                continue
            if name in buffers:
                bump(self)          # a buffer is a constant of compiled code: recompile
        extra = prefix + _EXTRA_STATE
        if getattr(type(self), "set_extra_state", Cell.set_extra_state) is not Cell.set_extra_state:
            if extra in state_dict:
                self.set_extra_state(state_dict[extra])
            elif strict:
                missing_keys.append(extra)
        elif strict and extra in state_dict:
            unexpected_keys.append(extra)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra:
                    head = key[len(prefix):].split(".", 1)
                    if (head[0] not in self._cells) if len(head) > 1 else (head[0] not in local):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True) -> _IncompatibleKeys:
        """Copy the values of `state_dict` (as state_dict() names them) into the Cell's Parameters
        and buffers. Returns (missing_keys, unexpected_keys); with `strict`, either non-empty is a
        RuntimeError, as are wrong shapes and non-Tensor values in any case."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list = []
        unexpected: list = []
        errors: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(cell, local_state, prefix=""):
            """Load the subtree of `cell`; True when a Cell of it recompiles (a buffer written), in
            which case `cell` does too: its compiled code holds the buffer as a constant."""
            meta = {} if metadata is None else metadata.get(prefix[:-1], {})
            version = cell.__dict__.get("_attr_version", 0)
            # (MindSpore collects missing and unexpected keys whatever `strict` says)
            cell._load_from_state_dict(local_state, prefix, meta, True, missing, unexpected, errors)
            changed = cell.__dict__.get("_attr_version", 0) != version
            below = False
            for name, child in cell._cells.items():
                child_prefix = prefix + name + "."
                below |= load(child, {k: v for k, v in local_state.items() if k.startswith(child_prefix)},
                              child_prefix)
            if below and not changed:
                bump(cell)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in list((cell.__dict__.get("_load_state_dict_post_hooks") or {}).values()):
                if hook(cell, keys) is not None:
                    raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` are not"
                                       "expected to return new values, if incompatible_keys need to be modified,"
                                       "it should be done inplace.")
            return changed or below
        load(self, state_dict)
        if strict:
            for what, keys in (("Unexpected", unexpected), ("Missing", missing)):
                if keys:
                    errors.insert(0, f"{what} key(s) in state_dict: {', '.join(chr(34) + k + chr(34) for k in keys)}. ")
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                                    "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # -- backward pre-hooks -------------------------------------------------------------------------
    def register_backward_pre_hook(self, hook_fn) -> HookHandle:
        """hook_fn(cell, grad_output) in the backward pass, before the gradient enters the Cell:
        grad_output is a tuple (one gradient per tensor output); a value returned (a tuple, or
        one tensor) replaces it. Runs in PyNative and in graph code."""
        if not callable(hook_fn):
            raise TypeError(f"Expected a callable hook function, but got {type(hook_fn).__name__}.")
        hooks = _lazy(self, "_hooks", dict).setdefault(_PRE_KEY, OrderedDict())
        handle = HookHandle(hooks, lambda: _pre_hooks_changed(self))
        hooks[handle.handle_id] = hook_fn
        _pre_hooks_changed(self)
        return handle


# ---- helpers ---------------------------------------------------------------------------------------

def _pipeline_attr(cell, name: str):
    value = cell.__dict__.get("_" + name)
    if value is None:
        raise AttributeError(f"The '{type(cell).__name__}' object has no attribute '{name}'.")
    return value


def _set_pipeline_attr(cell, name: str, value, what: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be int type, but got type : {type(value)}")
    if value < 0:
        raise ValueError(f"{what} can not be less than 0, but got {value}")
    cell.__dict__["_" + name] = value


def _mark_recompute(cell, add_flag: bool, output_recompute) -> None:
    """MindSpore's Cell._recompute: a Cell is marked once (a sub-Cell marked before keeps its own
    mark and flag); the mark reaches every sub-Cell, the flag only the Cell recompute was called on."""
    check_bool(output_recompute)
    if cell.__dict__.get("_has_config_recompute"):
        return
    cell.__dict__["_has_config_recompute"] = True
    scope = cell.__dict__.get("_scope")
    if scope is None or not scope.startswith("recompute_"):
        cell.__dict__["_scope"] = "recompute_" + (scope or "")
    if add_flag:
        cell.add_flags(output_recompute=output_recompute)
    for sub in cell.cells():
        _mark_recompute(sub, False, True)


def _set_prim_attr(cell, name: str, value) -> None:
    for _, sub in cell.cells_and_names():
        for prim in _primitives(sub):
            prim.add_prim_attr(name, value)


def _scopes(cell, parent: str):
    """(scope, sub-Cell) for every sub-Cell, each level's Cells before the next level's."""
    named = [(f"{parent}/{name}-{type(sub).__name__}", sub) for name, sub in cell.name_cells().items()]
    yield from named
    for scope, sub in named:
        yield from _scopes(sub, scope)


def _add_hook(cell, key: str, hook) -> HookHandle:
    hooks = _lazy(cell, key, OrderedDict)
    handle = HookHandle(hooks)
    hooks[handle.handle_id] = hook
    return handle


# ---- to / to_empty ---------------------------------------------------------------------------------

_TO_FORMS = (("device", "dtype", "non_blocking"), ("dtype", "non_blocking"), ("other", "non_blocking"))
_TO_TYPES = {"device": lambda v: v is None or isinstance(v, str),
             "dtype": lambda v: v is None or isinstance(v, mstype.DType),
             "other": lambda v: isinstance(v, Tensor),
             "non_blocking": lambda v: isinstance(v, bool)}


def _parse_to(args, kwargs) -> tuple:
    """(device, dtype) of a call of Cell.to in one of MindSpore's three forms."""
    for names in _TO_FORMS:
        if len(args) > len(names) or any(k not in names[len(args):] for k in kwargs):
            continue
        bound = {**dict(zip(names, args)), **kwargs}
        if all(_TO_TYPES[k](v) for k, v in bound.items()):
            other = bound.get("other")
            return bound.get("device"), (other.dtype if other is not None else bound.get("dtype"))
    given = ", ".join([_describe(a) for a in args] + [f"{k}={_describe(v)}" for k, v in kwargs.items()])
    raise TypeError(f'Failed calling Cell.to with "Cell.to({given})".\nThe valid calling should be:\n'
                    '"Cell.to(device=<None, string>, dtype=<None, mstype>, non_blocking=<bool>)"\n'
                    '"Cell.to(dtype=<None, mstype>, non_blocking=<bool>)"\n'
                    '"Cell.to(other=<Tensor>, non_blocking=<bool>)"')


def _describe(v) -> str:
    """A value's type as MindSpore's argument parser names it."""
    if v is None:
        return "None"
    if isinstance(v, (bool, int, float)):
        return type(v).__name__
    if isinstance(v, str):
        return "string"
    if isinstance(v, mstype.DType):
        return "mindspore.dtype"
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, (tuple, list)):
        return f"{type(v).__name__.capitalize()}<{', '.join(_describe(x) for x in v)}>"
    return str(type(v))


def _check_device(device, op: str) -> None:
    if device is None or device in ("CPU", "cpu"):
        return
    if device in ("Ascend", "npu", "meta"):
        raise RuntimeError(f"Create device context failed: pycompile has no {device!r} device, only the CPU "
                           f"('CPU' / 'cpu').")
    raise ValueError(f"Failed to convert the value \"{device}\" of input 'device' of '{op}' to enum.")


def _apply(cell, fn, recurse=True):
    """fn(tensor) -> tensor on every Parameter (its data replaced: the Parameter stays the same
    object) and buffer (replaced) of the Cell and, with recurse, its sub-Cells; returns the Cell."""
    if recurse:
        for sub in cell.cells():
            _apply(sub, fn)
    for p in cell._params.values():
        _replace_data(p, fn(p))
    buffers = cell.__dict__.get("_buffers") or {}
    for name, buf in list(buffers.items()):
        if buf is not None:
            new = fn(buf)
            new._is_buffer = True
            buffers[name] = new
            object.__setattr__(cell, name, new)
    bump(cell)
    return cell


def _replace_data(p: Parameter, value) -> None:
    """Parameter p holding `value` (any dtype, p's shape). Same dtype: written into its buffer, which
    compiled code keeps reading; another dtype: a new buffer, and compiled code specialised on the
    old dtype is looked up anew (as for a change of shape, Parameter.set_data)."""
    if value is p:
        return
    arr = value.asnumpy()
    if arr.dtype == p._data.dtype:
        p.set_data(value)
        return
    old = p.dtype
    p._data = arr.copy(order="C")
    context.specialization_changed(f"Parameter {p.name!r} changed dtype {old} -> {p.dtype}")
    parameters_written()


# ---- backward pre-hooks ----------------------------------------------------------------------------

def _pre_hooks_changed(cell) -> None:
    """Keep the forward-hook entry that runs the backward pre-hooks while there are any, last."""
    hooks = cell.__dict__["_hooks"]
    forward = hooks.setdefault("forward", OrderedDict())
    if hooks.get(_PRE_KEY):
        forward[_PRE_KEY] = (_with_backward_pre_hooks, {})
        forward.move_to_end(_PRE_KEY)
    else:
        forward.pop(_PRE_KEY, None)
    bump(cell)


def keep_backward_pre_hooks_last(cell) -> None:
    """After a forward hook is registered: MindSpore runs the backward pre-hooks on the output the
    forward hooks give."""
    forward = (cell.__dict__.get("_hooks") or {}).get("forward")
    if forward and _PRE_KEY in forward:
        forward.move_to_end(_PRE_KEY)


def _with_backward_pre_hooks(cell, args, out):
    """The Cell's output `out`, whose gradient passes through its backward pre-hooks (a forward
    hook of nn/hooks.py: called eagerly in PyNative, by the graph builder in graph code)."""
    hooks = list(cell.__dict__["_hooks"][_PRE_KEY].values())
    if custom._is_tensor(out):
        flat, unpack = out, None
    elif custom._tensor_tuple(out):
        flat, unpack = custom._pack(cell, list(out), "outputs")
    else:
        return None

    def rule(dout, out_value, inputs):
        gout = (dout,) if unpack is None else unpack(dout)
        for hook in hooks:
            new = custom.call_user(hook, [cell, gout])
            if new is None:
                continue
            new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
            if len(new) != len(gout):
                where = "input size" if custom._graph([dout]) else "expect output size"
                raise OpTypeError(f"The backward pre hook return value size is {len(new)} not equal to {where} "
                                  f"{len(gout)}")
            gout = new
        if unpack is None:
            return (gout[0],)
        from pycompile.ops import functional as F
        return (F.concat([F.reshape(g, (-1,)) for g in gout]),)

    res = custom.custom(flat, [flat], rule)
    return res if unpack is None else type(out)(unpack(res))


def claims_attribute(cell, name: str, value) -> bool:
    """nn.Cell.__setattr__'s first question: is this assignment a buffer's? A Tensor registered as
    a buffer somewhere becomes a buffer of `cell` too; a buffer name takes only None afterwards
    (MindSpore's rules). True when handled here."""
    if isinstance(value, (Parameter, ParameterTuple, CellBase)):
        return False
    d = cell.__dict__
    if isinstance(value, Tensor) and value.__dict__.get("_is_buffer", False):
        if name in d and name not in d["_params"] and name not in d["_cells"]:
            del d[name]         # a plain attribute of that name gives way (a Parameter or a Cell does not)
        Cell.register_buffer(cell, name, value)
        return True
    buffers = d.get("_buffers")
    if not buffers or name not in buffers:
        return False
    if value is not None:
        raise TypeError(f"Buffer '{name}' already exists in network, can not assign this type: '{type(value)}' "
                        f"as a buffer.")
    buffers[name] = None
    object.__setattr__(cell, name, None)
    bump(cell)
    return True
