"""Small `mindspore.*` utilities whose meaning on pycompile's CPU is exact:

* `synchronize()`: waits for the device; pycompile's calls return when their results exist, so
  there is nothing to wait for.
* `set_deterministic(flag)`: pycompile's kernels give the same result for the same inputs and
  thread count on every run, so the flag is recorded (and read back by `get_context`-style code
  through `is_deterministic()`) and changes nothing.
* `recompute(block, *args)`: MindSpore recomputes the block's activations in the backward pass
  to save memory; the values and gradients are those of `block(*args)`, which is what this
  returns (pycompile keeps the activations).
* `no_inline(fn)`: a hint that MindSpore's graph compiler should not inline `fn`; pycompile
  inlines every function it traces and returns `fn` unchanged.
* `JitConfig(...)`: MindSpore's jit options object, with its defaults; `jit(jit_config=...)`
  accepts it.

`run_check()` (MindSpore's installation self-test) is in api.py: it compiles.
"""
from __future__ import annotations

_DETERMINISTIC = [False]


def synchronize():
    """Nothing to wait for: every pycompile call returns with its results computed."""
    return None


def set_deterministic(deterministic):
    """Recorded; pycompile's kernels are deterministic for a given thread count whatever it says."""
    if not isinstance(deterministic, bool):
        raise TypeError(f"The parameter 'deterministic' must be <class 'bool'>, but got {type(deterministic)}")
    _DETERMINISTIC[0] = deterministic


def is_deterministic() -> bool:
    return _DETERMINISTIC[0]


def recompute(block, *args, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None,
              **kwargs):
    """block(*args, **kwargs) for a Cell `block` (a function only with use_reentrant=False, as
    MindSpore): recomputation changes memory use, never values or gradients."""
    if use_reentrant and not hasattr(block, "construct"):       # a Cell (common/ cannot import nn)
        raise TypeError("Recompute function now only support block which inherited from Cell when use_reentrant=True!")
    if not callable(block):
        raise TypeError(f"For 'recompute', the 'block' must be a Cell or a function, but got {type(block).__name__}.")
    return block(*args, **kwargs)


def no_inline(fn=None):
    """`@no_inline` / `@no_inline()`: returns the function unchanged (pycompile inlines what it traces)."""
    if fn is None:
        return lambda f: f
    return fn


class JitConfig:
    """MindSpore's JitConfig: the options dict `jit_config_dict` with MindSpore 2.10's defaults."""

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
                 infer_boost="off", **kwargs):
        for name, value in (("jit_level", jit_level), ("exc_mode", exc_mode), ("jit_syntax_level", jit_syntax_level),
                            ("debug_level", debug_level), ("infer_boost", infer_boost)):
            if not isinstance(value, str):
                raise TypeError(f"For 'jit_config', the type of '{name}' must be str, but got {type(value).__name__}.")
        if jit_level not in ("", "O0", "O1", "O2"):
            raise ValueError(f"For 'jit_config', the 'jit_level' must be one of ['O0', 'O1', 'O2'], but got "
                             f"{jit_level}.")
        self.jit_config_dict = {"jit_level": jit_level, "exc_mode": exc_mode, "jit_syntax_level": jit_syntax_level,
                                "debug_level": debug_level, "infer_boost": infer_boost, **kwargs}
        if jit_level:       # MindSpore names the backend once a level is chosen (O2: GE)
            self.jit_config_dict["backend"] = "GE" if jit_level == "O2" else "ms_backend"


def from_numpy(array):
    """A Tensor holding a NumPy array's values, dtype and shape. MindSpore's tensor shares the
    array's memory; pycompile's holds a copy, so writing to the array afterwards does not change
    the tensor (a deliberate difference: pycompile's compiled calls may run on other threads while
    Python code keeps the array)."""
    import numpy as np

    from pycompile.common.tensor import Tensor
    if not isinstance(array, np.ndarray):
        raise TypeError("Expected a NumPy array.")
    return Tensor(array)
