"""mindspore.dataset.config: the data pipeline's global settings.

The seed drives every random choice of the pipeline (shuffled sources, `shuffle()`, random
transforms): a run with the same seed yields the same data, in the same order. Samplers (and so
shuffled sources) reproduce MindSpore's own draws for a seed (samplers.py); `shuffle()` and the
random transforms draw from pycompile's own streams. Like MindSpore, `set_seed` also seeds Python's `random` and
NumPy's global generator, and `pycompile.set_seed` sets this seed too.
"""
from __future__ import annotations

import os
import random

import numpy as np

_UINT32_MAX = 4294967295
_INT32_MAX = 2147483647
_DEFAULT_SEED = 5489             # std::mt19937's default seed, what MindSpore reports unset

# MindSpore: 8 workers, or the CPU count if smaller (CSV / text readers deal their rows by worker)
_state = {"seed": _DEFAULT_SEED, "prefetch_size": 16, "num_parallel_workers": min(8, os.cpu_count() or 1),
          "start_method": "fork", "timeout_interval": 300, "shared_mem": True}


def set_seed(seed: int) -> None:
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError("seed isn't of type int.")
    if seed < 0 or seed > _UINT32_MAX:
        raise ValueError("seed given is not within the required range [0, UINT32_MAX(4294967295)].")
    _state["seed"] = seed
    random.seed(seed)
    np.random.seed(seed)


def get_seed() -> int:
    return _state["seed"]


def set_prefetch_size(size: int) -> None:
    """Rows (or batches) each iterator's background thread may prepare ahead of the consumer."""
    if not isinstance(size, int) or isinstance(size, bool):
        raise TypeError("size isn't of type int.")
    if size <= 0 or size > _INT32_MAX:
        raise ValueError("size is not within the required range (0, INT32_MAX(2147483647)].")
    _state["prefetch_size"] = size


def get_prefetch_size() -> int:
    return _state["prefetch_size"]


def set_num_parallel_workers(num: int) -> None:
    """The default worker count. It decides the order CSVDataset / TextFileDataset interleave
    their files' rows, as in MindSpore; Python worker processes are started only where a source
    or map asks for them (num_parallel_workers > 1 with python_multiprocessing=True, workers.py)."""
    if not isinstance(num, int) or isinstance(num, bool):
        raise TypeError("num isn't of type int.")
    if num <= 0 or num > _INT32_MAX:
        raise ValueError("Number of parallel workers given is not within the required range.")
    _state["num_parallel_workers"] = num


def get_num_parallel_workers() -> int:
    return _state["num_parallel_workers"]


def set_multiprocessing_start_method(start_method: str = "fork") -> None:
    """How worker processes start (GeneratorDataset / map with python_multiprocessing=True):
    "fork" (MindSpore's default: any callable works, lambdas included) or "spawn" (fresh
    interpreters: callables must be importable module-level objects). See workers.py."""
    if not isinstance(start_method, str):
        raise TypeError(f"Argument start_method with value {start_method} is not of type [<class 'str'>], "
                        f"but got {type(start_method)}.")
    if start_method not in ("fork", "spawn"):
        raise ValueError("Input start_method is not within the valid set of ['fork', 'spawn'].")
    _state["start_method"] = start_method


def get_multiprocessing_start_method() -> str:
    return _state["start_method"]


def set_multiprocessing_timeout_interval(interval: int) -> None:
    """Seconds between the warnings logged while the pipeline waits on one worker process (300 by
    default, as in MindSpore). pycompile then raises RuntimeError naming the worker after
    PYCOMPILE_DATASET_WORKER_TIMEOUT seconds (default: 3 intervals) instead of waiting forever."""
    if not isinstance(interval, int) or isinstance(interval, bool):
        raise TypeError("interval isn't of type int.")
    if interval <= 0 or interval > _INT32_MAX:
        raise ValueError("Interval given is not within the required range (0, INT32_MAX(2147483647)).")
    _state["timeout_interval"] = interval


def get_multiprocessing_timeout_interval() -> int:
    return _state["timeout_interval"]


def set_enable_shared_mem(enable: bool) -> None:
    """Whether worker processes hand large rows back through shared memory (default True); see
    workers.py. False: every row travels pickled through a pipe."""
    if not isinstance(enable, bool):
        raise TypeError("enable must be of type bool.")
    _state["shared_mem"] = enable


def get_enable_shared_mem() -> bool:
    return _state["shared_mem"]


def _follow_global_seed(seed: int) -> None:
    """Called by pycompile.set_seed, as mindspore.set_seed sets the dataset seed."""
    set_seed(seed)


def _register() -> None:
    from pycompile.common import seed as global_seed
    global_seed.add_seed_listener(_follow_global_seed)
    if global_seed.get_seed() is not None:        # set before this module was imported
        _state["seed"] = global_seed.get_seed()


_register()
