"""`mindspore.common.api` under pycompile's name: jit, jit_class, lazy_inline and pycompile's
inspect, re-exported from the entry layer (`pycompile.api`). Nothing in pycompile imports this
module; it exists for user code that imports MindSpore's path."""
from pycompile.api import BoundJit, JitFunction, inspect, jit, jit_class, lazy_inline  # noqa: F401
