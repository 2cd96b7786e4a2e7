"""`mindspore.ops.operations.array_ops` under pycompile's name: every class-form op of
`pycompile.ops.operations` (the same objects; pycompile does not split them by MindSpore's files)."""
from pycompile.ops.operations import *  # noqa: F401,F403
from pycompile.ops.operations import __all__  # noqa: F401
