"""mindspore.parallel: the parallel-training utilities pycompile has, by MindSpore's path.

The names MindSpore's package holds come from pycompile's own modules (the table of
_module_paths.py names the rest; a name pycompile lacks raises the missing-name AttributeError),
and the two private modules model code imports from are here: `_auto_parallel_context`
(`auto_parallel_context()`, the context object) and `_utils` (`_get_device_num`,
`_get_gradients_mean`, `_get_parallel_mode`, ...), answering from `set_auto_parallel_context`'s
settings as MindSpore's do.
"""
from pycompile.train.checkpoint_more import (get_algo_parameters, load_segmented_checkpoints,  # noqa: F401
                                             reset_algo_parameters, set_algo_parameters)
from pycompile.train.surface33 import merge_sliced_parameter  # noqa: F401
from pycompile.parallel.shard import Layout, shard  # noqa: F401

__all__ = ["get_algo_parameters", "load_segmented_checkpoints", "merge_sliced_parameter", "reset_algo_parameters",
           "set_algo_parameters", "Layout", "shard"]
