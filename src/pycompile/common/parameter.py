"""Parameter (a named, trainable Tensor whose buffer is shared by PyNative and compiled code),
its ParamInfo, and ParameterTuple.

A Parameter's flags for distributed and cached training (`layerwise_parallel`, `parallel_optimizer`,
`parallel_optimizer_comm_recompute`, `comm_fusion`, `cache_enable`, `cache_shape`, `key`, `sliced`,
`add_pipeline_stage`) are MindSpore 2.10's: same defaults, same type checks and messages, kept in its
`param_info` and carried by `clone()` as the wheel carries them. MindSpore acts on them only in its
semi-auto / auto parallel, optimizer-parallel and embedding-cache modes; pycompile, one device per
process, records them and never changes a value because of them.
"""
from __future__ import annotations

import itertools

import numpy as np

from pycompile.common import auto_parallel, context, log
from pycompile.common import dtype as mstype
from pycompile.common import validator
from pycompile.common.tensor import Tensor, _canonical_bools, _to_array, parameters_written


_unnamed = itertools.count(1)
_cache_keys = itertools.count(0)      # the keys clone() gives cache-enabled Parameters (MindSpore's counter)
_warned: set = set()


class ParamInfo:
    """What MindSpore keeps on a Parameter's C++ side (`param.param_info`): its name, gradient and
    parallel flags, cache settings and shape. The Parameter's properties check what they store here;
    assigning to a ParamInfo field directly checks nothing."""

    def __init__(self):
        self.name = None
        self.requires_grad = True
        self.layerwise_parallel = False
        self.parallel_optimizer = True
        self.parallel_optimizer_comm_recompute = False
        self.comm_fusion = 1
        self.cache_enable = False
        self.cache_shape: list = []
        self.key = -1
        self.requires_aggr = True
        self.parameter_shape: list = []
        self.storage_format = ""

    def clone(self) -> "ParamInfo":
        """A copy of every field."""
        info = ParamInfo()
        info.__dict__.update({k: (list(v) if isinstance(v, list) else v) for k, v in self.__dict__.items()})
        return info

    def __repr__(self) -> str:
        return f"ParamInfo(name={self.name!r})"


def _check_bool_flag(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"The argument `{name}` must be bool type.")
    return value


class Parameter(Tensor):
    """A Tensor owned by a Cell. Its NumPy buffer is the one compiled executables read and
    `ops.assign` writes, in place: there is no copy-in / copy-out per call.

    Without `name` it is called 'Parameter#<n>' until assigned to a Cell attribute, whose name
    it then takes; Cells name it by its attribute path ("fc.weight"), as MindSpore does.
    As in MindSpore, a Python int gives an Int32 Parameter and a Python bool is refused.
    `requires_grad`, `layerwise_parallel` and `parallel_optimizer` must be bools (TypeError);
    `device` may be "CPU" or "Remote" (kept, as MindSpore's offloading hint)."""

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True, storage_format="", device=None):
        from pycompile.common.initializer import Initializer
        if isinstance(default_input, Initializer):
            raise TypeError("Parameter needs data; use initializer(init, shape, dtype)")
        if isinstance(default_input, bool):
            raise ValueError("Parameter data can not be `bool`")
        if isinstance(default_input, Tensor):
            data = default_input._data
        elif isinstance(default_input, int):
            data = Tensor(default_input, mstype.int32)._data
        elif isinstance(default_input, (float, list, tuple, np.ndarray, np.generic)):
            data = Tensor(default_input)._data
        else:
            raise TypeError(f"The type of the argument 'default_input' must be a Tensor, int, float, list or "
                            f"numpy.ndarray, but got {type(default_input).__name__}")
        self.__dict__["_param_info"] = ParamInfo()
        self._explicit_name = name is not None
        self.name = name if name is not None else f"Parameter#{next(_unnamed)}"
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer
        self._data = _canonical_bools(np.array(data, copy=True, order="C"))
        parameters_written()        # the new buffer may sit where a freed Parameter's was
        self._sliced = False
        self._unique = False
        self.requires_aggr = True
        self._pipeline_stage_list: list = []
        self.is_in_parallel = auto_parallel.get_parallel_mode() in (auto_parallel.ParallelMode.SEMI_AUTO_PARALLEL,
                                                                     auto_parallel.ParallelMode.AUTO_PARALLEL)
        self.param_info.parameter_shape = list(self._data.shape)
        self.param_info.storage_format = storage_format
        if device is not None:
            if device not in ("CPU", "Remote"):
                raise ValueError(f"Only 'CPU' and 'Remote' is supported for device, but got ${device}.")
            self._device_hint = device

    # ---- the ParamInfo-backed properties ------------------------------------------------------
    @property
    def param_info(self) -> ParamInfo:
        """The Parameter's ParamInfo (name, flags, cache settings); assignable, as in MindSpore."""
        info = self.__dict__.get("_param_info")
        if info is None:            # a Parameter made without __init__ (copy protocols): the defaults
            info = self.__dict__["_param_info"] = ParamInfo()
        return info

    @param_info.setter
    def param_info(self, info: ParamInfo) -> None:
        self.__dict__["_param_info"] = info

    @property
    def name(self) -> str:
        return self.param_info.name

    @name.setter
    def name(self, value) -> None:
        if not isinstance(value, str):
            raise ValueError(f"The type of the Parameter's name should be 'string', but got {type(value).__name__}")
        self.param_info.name = value

    @property
    def requires_grad(self) -> bool:
        """Whether gradients are taken for this Parameter (a bool; default True)."""
        return self.param_info.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError("The argument `requires_grad` must be bool type")
        self.param_info.requires_grad = value

    @property
    def layerwise_parallel(self) -> bool:
        """MindSpore skips broadcast and gradient aggregation of such a Parameter in data / hybrid
        parallel (default False). pycompile records it: its DistributedGradReducer still
        aggregates every gradient."""
        return self.param_info.layerwise_parallel

    @layerwise_parallel.setter
    def layerwise_parallel(self, value: bool) -> None:
        self.param_info.layerwise_parallel = _check_bool_flag("layerwise_parallel", value)

    @property
    def parallel_optimizer(self) -> bool:
        """Whether MindSpore's optimizer parallelism may shard this weight (default True; only with
        the parallel optimizer enabled in auto parallel). Recorded by pycompile."""
        return self.param_info.parallel_optimizer

    @parallel_optimizer.setter
    def parallel_optimizer(self, value: bool) -> None:
        self.param_info.parallel_optimizer = _check_bool_flag("parallel_optimizer", value)

    @property
    def parallel_optimizer_comm_recompute(self) -> bool:
        """Whether the AllGather MindSpore's parallel optimizer inserts for this weight is
        recomputed (default False; graph mode, auto parallel). Recorded by pycompile."""
        return self.param_info.parallel_optimizer_comm_recompute

    @parallel_optimizer_comm_recompute.setter
    def parallel_optimizer_comm_recompute(self, value: bool) -> None:
        self.param_info.parallel_optimizer_comm_recompute = validator.check_bool(value)

    @property
    def comm_fusion(self) -> int:
        """The fusion group (an int >= 0, default 1; 0: not fused) of the communication operators
        MindSpore's auto parallel inserts for this weight. Recorded by pycompile."""
        return self.param_info.comm_fusion

    @comm_fusion.setter
    def comm_fusion(self, value: int) -> None:
        self.param_info.comm_fusion = validator.check_non_negative_int(value)

    @property
    def cache_enable(self) -> bool:
        """Whether the Parameter lives in MindSpore's embedding cache (default False). Recorded."""
        return self.param_info.cache_enable

    @cache_enable.setter
    def cache_enable(self, value: bool) -> None:
        self.param_info.cache_enable = _check_bool_flag("cache_enable", value)

    @property
    def cache_shape(self) -> list:
        """The embedding cache's shape (a list, default []). Recorded."""
        return list(self.param_info.cache_shape)

    @cache_shape.setter
    def cache_shape(self, value) -> None:
        if not isinstance(value, (tuple, list)):
            raise TypeError("The argument `cache_shape` must be tuple or list type.")
        self.param_info.cache_shape = list(value)

    @property
    def key(self) -> int:
        """The Parameter's key in MindSpore's embedding cache (an int, default -1). Recorded."""
        return self.param_info.key

    @key.setter
    def key(self, value: int) -> None:
        if not isinstance(value, int):
            raise TypeError("The argument `key` must be int type.")
        self.param_info.key = int(value)

    # ---- Python-side flags ------------------------------------------------------------------
    @property
    def sliced(self):
        """Whether the data is this device's slice of the weight (default False; anything may be
        assigned, as in MindSpore). pycompile's data is always the whole weight."""
        return self.__dict__.get("_sliced", False)

    @sliced.setter
    def sliced(self, value) -> None:
        self.__dict__["_sliced"] = value

    @property
    def unique(self):
        """Whether the Parameter was made unique already (default False; settable)."""
        return self.__dict__.get("_unique", False)

    @unique.setter
    def unique(self, value) -> None:
        self.__dict__["_unique"] = value

    @property
    def inited_param(self):
        """None: MindSpore records here the new Parameter `init_data` makes for one created without
        data; pycompile's Parameters always hold their data."""
        return self.__dict__.get("_inited_param")

    def add_pipeline_stage(self, stage: int) -> None:
        """Record a pipeline stage that uses this Parameter (a non-negative int; TypeError
        otherwise, MindSpore's words). MindSpore warns that the interface may go."""
        if "add_pipeline_stage" not in _warned:
            _warned.add("add_pipeline_stage")
            log.logger.warning("This interface may be deleted in the future.")
        if not isinstance(stage, int) or stage < 0:
            raise TypeError("`stage` must be a positive number of int type")
        self.__dict__.setdefault("_pipeline_stage_list", []).append(stage)

    # ---- data ------------------------------------------------------------------------------------
    def set_data(self, data, slice_shape=False) -> "Parameter":
        """Replace the value. Same shape and dtype: written into the existing buffer, so compiled
        code keeps reading the live value; otherwise the buffer is replaced. `sliced` becomes
        `slice_shape`, as in MindSpore."""
        arr = _canonical_bools(data._data) if isinstance(data, Tensor) else _to_array(data, None)
        if arr.shape == self._data.shape:
            with np.errstate(all="ignore"):
                self._data[...] = arr
        else:
            old_shape = self._data.shape
            self._data = np.array(arr, dtype=self._data.dtype, copy=True, order="C")
            # compiled graphs reading this Parameter were specialised on its old shape: running
            # one would read past the new buffer's end (MindSpore 2.10 does: garbage values, or
            # a crash). Re-specialise instead, as PyNative computes with the new shape
            context.specialization_changed(f"Parameter {self.name!r} changed shape {old_shape} -> {self._data.shape}")
        parameters_written()
        self.sliced = slice_shape       # as MindSpore: the new data is a slice only when the caller says so
        return self

    def clone(self, init="same") -> "Parameter":
        """A new Parameter with a copy of the data (or `init` applied), the same name and a copy of
        the ParamInfo (flags, cache settings); as in MindSpore, a cache-enabled clone gets a new
        `key`, and `sliced`, `unique` and the pipeline stages start afresh."""
        if init == "same":
            data = Tensor._wrap(self._data.copy())
        else:
            from pycompile.common.initializer import initializer
            data = initializer(init, self.shape, self.dtype)
        p = Parameter(data, name=self.name, requires_grad=self.requires_grad)
        p.param_info = self.param_info.clone()
        p.requires_aggr = self.requires_aggr
        if p.cache_enable:
            p.key = next(_cache_keys)
        return p

    def copy(self) -> "Parameter":
        """`clone()`: a new Parameter with a copy of the data and the same name and flags."""
        return self.clone(init="same")

    @property
    def data(self) -> "Parameter":
        return self

    def value(self) -> Tensor:
        return Tensor._wrap(self._data.copy())

    def __repr__(self) -> str:
        return (f"Parameter (name={self.name}, shape={tuple(self.shape)}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__

    @property
    def init(self):
        """None: a Parameter's data is initialized when it is made (MindSpore's too, on the CPU)."""
        return None

    def init_data(self, layout=None, set_sliced=False):
        """The Parameter itself (its data is initialized; `layout` / `set_sliced` are parallel-training
        options, not used)."""
        return self

    def __reduce__(self):
        # as MindSpore pickles: data, name, requires_grad and layerwise_parallel (the other flags reset)
        return (_rebuild_parameter, (self._data, self.name, self.requires_grad, self._explicit_name,
                                     self.layerwise_parallel))

    def __deepcopy__(self, memo):
        # as MindSpore: a new Parameter with the name and requires_grad (every other flag reset)
        return _rebuild_parameter(self._data.copy(), self.name, self.requires_grad, self._explicit_name)


def _rebuild_parameter(data, name, requires_grad, explicit_name=True, layerwise_parallel=False):
    p = Parameter(Tensor._wrap(data), name=name, requires_grad=requires_grad, layerwise_parallel=layerwise_parallel)
    p._explicit_name = explicit_name
    return p


class ParameterTuple(tuple):
    """A tuple of Parameters (names must be unique)."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'ParameterTuple', every item must be a Parameter, but got {type(p).__name__}")
        seen = set()
        for p in items:
            if p.name in seen:
                raise ValueError(f"For 'ParameterTuple', the name {p.name!r} of {p!r} already exists; "
                                 f"Parameters in a ParameterTuple need unique names")
            seen.add(p.name)
        return super().__new__(cls, items)

    def clone(self, prefix: str, init="same") -> "ParameterTuple":
        out = []
        for p in self:
            q = p.clone(init)
            q.name = f"{prefix}.{p.name}"
            out.append(q)
        return ParameterTuple(out)
