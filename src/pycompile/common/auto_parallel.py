"""MindSpore's auto-parallel context, for data parallelism across processes (issue 21).

`set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)` is
what the training wrappers read: in DATA_PARALLEL (and HYBRID_PARALLEL) mode TrainOneStepCell /
TrainOneStepWithLossScaleCell put an nn.DistributedGradReducer between the gradients and the
optimizer, as MindSpore does. The other keys MindSpore accepts are stored and returned (scripts
set them) but only the data-parallel ones change what pycompile does; SEMI_AUTO_PARALLEL and
AUTO_PARALLEL (operator sharding) are not implemented and raise when a wrapper would need them.
"""
from __future__ import annotations


class ParallelMode:
    """Parallel modes, MindSpore's names and values."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


_DEFAULTS = {
    "device_num": 1, "global_rank": 0, "gradients_mean": False, "gradient_fp32_sync": True,
    "loss_repeated_mean": True, "pipeline_stages": 1, "auto_pipeline": False, "pipeline_result_broadcast": False,
    "pipeline_segments": 1, "parallel_mode": ParallelMode.STAND_ALONE, "search_mode": "recursive_programming",
    "auto_parallel_search_mode": "recursive_programming", "parameter_broadcast": False,
    "strategy_ckpt_load_file": "", "strategy_ckpt_save_file": "", "group_ckpt_save_file": "", "full_batch": False,
    "dataset_strategy": "data_parallel", "enable_parallel_optimizer": False, "force_fp32_communication": False,
    "parallel_optimizer_config": {}, "pipeline_config": {}, "grad_accumulation_step": 1,
    "all_reduce_fusion_config": [], "communi_parallel_mode": "all_group_parallel",
    "optimizer_weight_shard_size": -1, "optimizer_weight_shard_aggregated_save": False,
    "sharding_propagation": False, "enable_alltoall": False, "strategy_ckpt_config": {}, "comm_fusion": {},
    "dump_local_norm": False, "dump_local_norm_path": "", "dump_device_local_norm": False,
    "auto_parallel_new_interface": False, "init_param_in_compile": False,
}
_CTX: dict = dict(_DEFAULTS)
_SET: set = set()          # keys set explicitly (device_num defaults to the group size otherwise)


def _check_bool(key, value):
    if not isinstance(value, bool):
        raise TypeError(f"For 'set_auto_parallel_context', the argument '{key}' must be bool, "
                        f"but got the type : {type(value)}.")


def set_auto_parallel_context(**kwargs) -> None:
    """Set the auto-parallel context (MindSpore's keys; see the module docstring for which act)."""
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"For 'set_auto_parallel_context', the keyword argument '{key}' is not recognized! "
                             f"The supported keyword arguments are: {', '.join(_DEFAULTS)}")
        if key == "parallel_mode":
            if value not in ParallelMode.MODE_LIST:
                raise ValueError("The context configuration parameter 'parallel_mode' only support 'stand_alone', "
                                 "'data_parallel', 'hybrid_parallel', 'semi_auto_parallel' and 'auto_parallel', "
                                 f"but got the value : {value}.")
        elif key == "device_num":
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 4096:
                raise ValueError(f"Device num need to be in [1, 4096], but got {value}")
        elif key == "global_rank":
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 4095:
                raise ValueError(f"Global rank need to be in [0, 4095], but got {value}")
        elif key in ("gradients_mean", "parameter_broadcast", "gradient_fp32_sync", "loss_repeated_mean",
                     "full_batch", "enable_parallel_optimizer"):
            _check_bool(key, value)
        _CTX[key] = value
        _SET.add(key)


def get_auto_parallel_context(attr_key: str):
    """The value of one key of the auto-parallel context."""
    if attr_key not in _DEFAULTS:
        raise ValueError(f"For 'get_auto_parallel_context', the argument 'attr_key' {attr_key!r} is not "
                         f"recognized")
    if attr_key == "device_num" and "device_num" not in _SET:
        return _device_num_default()
    return _CTX[attr_key]


def reset_auto_parallel_context() -> None:
    """Every key back to its default (STAND_ALONE, gradients_mean False, ...)."""
    _CTX.clear()
    _CTX.update(_DEFAULTS)
    _SET.clear()


# `() -> the process world's size, or None before communication.init()`: installed by
# pycompile.communication.management, the layer above, which common never imports
_world_size = None


def set_world_size_source(fn) -> None:
    """Called once by pycompile.communication.management when it is imported."""
    global _world_size
    _world_size = fn


def _device_num_default() -> int:
    if _CTX["parallel_mode"] == ParallelMode.STAND_ALONE or _world_size is None:
        return 1
    return _world_size() or 1


# what the training wrappers read (MindSpore's mindspore.parallel._utils spellings)
def get_parallel_mode() -> str:
    return _CTX["parallel_mode"]


def get_gradients_mean() -> bool:
    return _CTX["gradients_mean"]


def get_device_num() -> int:
    return get_auto_parallel_context("device_num")


def data_parallel() -> bool:
    """The wrappers reduce gradients across processes (DATA_PARALLEL or HYBRID_PARALLEL)."""
    return _CTX["parallel_mode"] in (ParallelMode.DATA_PARALLEL, ParallelMode.HYBRID_PARALLEL)
