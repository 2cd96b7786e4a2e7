"""`mindspore.ops.function` under pycompile's name: every functional op of `pycompile.ops` (the
same objects as `ops.xxx` and `ops.functional.xxx`). MindSpore's submodules (`math_func`,
`array_func`, `nn_func`, `random_func`, ...) each hold the whole set: pycompile does not split
its functional ops by MindSpore's files."""
from pycompile import ops as _ops

__all__ = list(_ops.FUNCTIONS)
globals().update({_n: getattr(_ops, _n) for _n in __all__})
