"""`mindspore.parallel._utils`: the helpers model code's training wrappers read, with MindSpore's
rules - in STAND_ALONE mode one device and rank 0; otherwise the set `device_num` / `global_rank`,
or the communication group's size / this process's rank when they were not set."""
from __future__ import annotations

from pycompile.common import auto_parallel as _ap
from pycompile.common.auto_parallel import ParallelMode


def _get_parallel_mode() -> str:
    return _ap.get_auto_parallel_context("parallel_mode")


def _get_gradients_mean() -> bool:
    return _ap.get_auto_parallel_context("gradients_mean")


def _get_device_num() -> int:
    if _get_parallel_mode() == ParallelMode.STAND_ALONE:
        return 1
    if "device_num" not in _ap._SET:
        from pycompile.communication.management import get_group_size
        return get_group_size()
    return _ap.get_auto_parallel_context("device_num")


def _get_global_rank() -> int:
    if _get_parallel_mode() == ParallelMode.STAND_ALONE:
        return 0
    if "global_rank" not in _ap._SET:
        from pycompile.communication.management import get_rank
        return get_rank()
    return _ap.get_auto_parallel_context("global_rank")


def _get_full_batch() -> bool:
    return _ap.get_auto_parallel_context("full_batch")


def _get_pipeline_stages() -> int:
    return _ap.get_auto_parallel_context("pipeline_stages")


def _get_stage_device_num() -> int:
    return _get_device_num() // _get_pipeline_stages()


def _get_enable_parallel_optimizer() -> bool:
    return _ap.get_auto_parallel_context("enable_parallel_optimizer")


def _get_parameter_broadcast() -> bool:
    return _ap.get_auto_parallel_context("parameter_broadcast")


def _is_in_auto_parallel_mode() -> bool:
    return _get_parallel_mode() in (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL)


def _is_in_data_parallel_mode() -> bool:
    return _get_parallel_mode() == ParallelMode.DATA_PARALLEL


def _is_in_hybrid_parallel_mode() -> bool:
    return _get_parallel_mode() == ParallelMode.HYBRID_PARALLEL
