"""`mindspore.ops.auto_generate` (the Primitive classes MindSpore generates from its op YAML) under
pycompile's name: the same objects as `pycompile.ops.operations`, whose entries pycompile declares
once each (ops/entry.py), e.g. `auto_generate.CdistGrad`."""
from pycompile.ops.operations import *  # noqa: F401,F403
from pycompile.ops.operations import __all__  # noqa: F401
