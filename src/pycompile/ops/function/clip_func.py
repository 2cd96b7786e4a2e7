"""`mindspore.ops.function.clip_func` under pycompile's name: every functional op (see
`pycompile.ops.function`)."""
from pycompile.ops.function import *  # noqa: F401,F403
from pycompile.ops.function import __all__  # noqa: F401
