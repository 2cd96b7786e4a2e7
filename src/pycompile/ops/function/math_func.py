"""`mindspore.ops.function.math_func` under pycompile's name: every functional op (see
`pycompile.ops.function`)."""
from pycompile.ops.function import *  # noqa: F401,F403
from pycompile.ops.function import __all__  # noqa: F401
from pycompile.ops import functional as F  # noqa: F401,E402  (MindSpore's math_func imports F; tests import it from there)
