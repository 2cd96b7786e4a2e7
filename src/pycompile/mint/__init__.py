"""`mindspore.mint` (MindSpore's PyTorch-style API) under pycompile's name: so far the names
MindSpore's CPU op tests import from it (`mint.nn.GLU`). Each is the pycompile object of the same
meaning, with mint's argument names."""
from pycompile.mint import nn  # noqa: F401

__all__ = ["nn"]
