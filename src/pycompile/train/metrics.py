"""`mindspore.train.metrics`: the metrics live in pycompile.nn.metrics (see there)."""
from pycompile.nn.metrics import *  # noqa: F401,F403
from pycompile.nn.metrics import __all__  # noqa: F401
