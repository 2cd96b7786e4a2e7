"""Checkpoint helpers and context knobs of MindSpore 2.10 added by issue 33 (surface33):
`load_checkpoint_async`, `load_segmented_checkpoints`, `async_ckpt_thread_status`, the
auto-parallel algorithm parameters and the parameter-server context (one device: the defaults
MindSpore's CPU build reports, settable and checked, with nothing to distribute), `set_dump`
(MindSpore's CPU build warns that dumping needs Ascend) and `enable_dynamic`.
"""
from __future__ import annotations

import concurrent.futures
import os
import warnings

from pycompile.common.tensor import Tensor
from pycompile.train import serialization as _ser

_POOL = None


def _pool():
    global _POOL
    if _POOL is None:
        _POOL = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="pycompile-ckpt-load")
    return _POOL


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                          dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """Start load_checkpoint in a background thread; `.result()` of the returned future waits and
    gives its dict (or raises its error)."""
    fmt = "safetensors" if str(ckpt_file_name).endswith(".safetensors") else "ckpt"
    return _pool().submit(_ser.load_checkpoint, ckpt_file_name, net, strict_load, filter_prefix, dec_key, dec_mode,
                          specify_prefix, choice_func, format=fmt)


def load_segmented_checkpoints(ckpt_file_dir, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                               dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """Load every `.ckpt` / `.safetensors` file of a directory (name order) into one dict (and into
    `net` when given); a name in two files keeps the later file's value."""
    if not isinstance(ckpt_file_dir, str) or not os.path.isdir(ckpt_file_dir):
        raise ValueError(f"For 'load_segmented_checkpoints', the argument 'ckpt_file_dir' must be a directory, "
                         f"but got {ckpt_file_dir!r}.")
    merged = {}
    for name in sorted(os.listdir(ckpt_file_dir)):
        if name.endswith((".ckpt", ".safetensors")):
            fmt = "safetensors" if name.endswith(".safetensors") else "ckpt"
            merged.update(_ser.load_checkpoint(os.path.join(ckpt_file_dir, name), None, strict_load, filter_prefix,
                                               dec_key, dec_mode, specify_prefix, choice_func, format=fmt))
    if not merged:
        raise ValueError(f"For 'load_segmented_checkpoints', no parameter is loaded from {ckpt_file_dir}.")
    if net is not None:
        _ser.load_param_into_net(net, merged, strict_load)
    return merged


def async_ckpt_thread_status() -> bool:
    """Whether an asynchronous save_checkpoint (async_save=True) is still writing."""
    with _ser._save_lock:
        return any(t.is_alive() for t in _ser._async_threads)


# ---- knobs --------------------------------------------------------------------------------------------
_ALGO_DEFAULTS = {"fully_use_devices": False, "elementwise_op_strategy_follow": False, "enable_algo_approxi": False,
                  "algo_approxi_epsilon": 0.1, "tensor_slice_align_enable": False, "tensor_slice_align_size": 16}
_ALGO = dict(_ALGO_DEFAULTS)
_PS = {"enable_ps": False, "config_file_path": "", "enable_ssl": False}


def _check_type(key, value, default):
    want = type(default)
    if isinstance(value, bool) != (want is bool) or not isinstance(value, want if want is not float else
                                                                    (int, float)):
        raise TypeError(f"The parameter '{key}' must be {want}, but got {type(value)}")


def set_algo_parameters(**kwargs) -> None:
    """The auto-parallel strategy search's parameters (checked and kept; one device searches nothing)."""
    for key, value in kwargs.items():
        if key not in _ALGO_DEFAULTS:
            raise ValueError(f"Set context keyword {key} is not recognized!")
        _check_type(key, value, _ALGO_DEFAULTS[key])
        if key == "tensor_slice_align_size" and not 1 <= value <= 1024:
            raise ValueError(f"Align_size must be in [1, 1024], but got {value}")
        _ALGO[key] = value


def get_algo_parameters(attr_key):
    """One auto-parallel algorithm parameter (see set_algo_parameters)."""
    if attr_key not in _ALGO:
        raise ValueError(f"Get context keyword {attr_key} is not recognized!")
    return _ALGO[attr_key]


def reset_algo_parameters() -> None:
    """The algorithm parameters' defaults again."""
    _ALGO.clear()
    _ALGO.update(_ALGO_DEFAULTS)


def set_ps_context(**kwargs) -> None:
    """The parameter-server context. pycompile trains on one host process: `enable_ps=True` is
    refused; the other keys are checked and kept."""
    for key, value in kwargs.items():
        if key not in _PS:
            raise ValueError(f"Set PS context keyword {key} is not recognized!")
        _check_type(key, value, _PS[key])
        if key == "enable_ps" and value:
            raise ValueError("For 'set_ps_context', 'enable_ps=True' needs MindSpore's parameter-server training, "
                             "which pycompile does not have (it trains in one process).")
        _PS[key] = value


def get_ps_context(attr_key):
    """One parameter-server context value (enable_ps is False)."""
    if attr_key not in _PS:
        raise ValueError(f"Get PS context keyword {attr_key} is not recognized!")
    return _PS[attr_key]


def set_dump(target, enabled=True) -> None:
    """Mark a Cell / Primitive for MindSpore's Ascend data dump. As on MindSpore's CPU build, this
    warns and does nothing (use `ms.inspect` or the IR / C dumps of the compile log instead)."""
    if not isinstance(enabled, bool):
        raise TypeError(f"For 'set_dump', the type of 'enabled' must be bool, but got {type(enabled)}.")
    warnings.warn("Current device_target is CPU, which is not supported by set_dump. Only Ascend device target is "
                  "supported currently.", UserWarning, stacklevel=2)


def enable_dynamic(**kwargs):
    """`@enable_dynamic(x=Tensor(shape=[None, 3], dtype=...))` over a jit function: marks the named
    arguments' shapes dynamic. pycompile compiles one specialization per concrete shape (the results
    are the same), so the decorator checks its arguments and returns the function unchanged."""
    for name, value in kwargs.items():
        items = value if isinstance(value, (tuple, list)) else (value,)
        if not items or not all(isinstance(v, Tensor) for v in items):
            raise TypeError(f"The decorator enable_dynamic only supports Tensor or a tuple/list of Tensor, but the "
                            f"argument : {name} is type of:{type(value)}.")

    def decorate(fn):
        fn.__pycompile_dynamic_args__ = tuple(kwargs)
        return fn
    return decorate


__all__ = ["load_checkpoint_async", "load_segmented_checkpoints", "async_ckpt_thread_status", "set_algo_parameters",
           "get_algo_parameters", "reset_algo_parameters", "set_ps_context", "get_ps_context", "set_dump",
           "enable_dynamic"]
