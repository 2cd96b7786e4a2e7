"""pycompile.numpy: MindSpore 2.10's `mindspore.numpy`, the NumPy-like API over tensors.

    import pycompile.numpy as mnp          # as `import mindspore.numpy as mnp`

Every function is a composition of pycompile ops written in Python (no kernel of its own), so it
runs eagerly (PyNative) op by op and inside graph code (`construct`, `@jit`), where the frontend
traces it like any pycompile library function: its gradient and vmap rule are those of the ops it
is made of. What mindspore.numpy computes from Python values alone (shapes, ranges, windows,
index tables) is computed on the host and enters graph code as a constant. Defaults follow
mindspore.numpy, not NumPy: float32 for floats, int32 for ints (`mnp.float_` is float32), and the
result dtypes of its reductions. Values, dtypes and errors are checked against MindSpore 2.10's
own results (tests/conformance/cases_numpy*.py). A mindspore.numpy name pycompile lacks raises
AttributeError saying so (docs/api/numpy.md lists what is present).

The functions live in modules by family: creation, math, logic, reduce, linalg, shape, misc,
extras, sets.
"""
from pycompile.common.missing import missing as _missing
from pycompile.numpy.creation import *  # noqa: F401,F403
from pycompile.numpy.extras import *  # noqa: F401,F403
from pycompile.numpy.linalg import *  # noqa: F401,F403
from pycompile.numpy.logic import *  # noqa: F401,F403
from pycompile.numpy.math import *  # noqa: F401,F403
from pycompile.numpy.misc import *  # noqa: F401,F403
from pycompile.numpy.reduce import *  # noqa: F401,F403
from pycompile.numpy.sets import *  # noqa: F401,F403
from pycompile.numpy.shape import *  # noqa: F401,F403


def __getattr__(name):
    raise _missing("numpy", __name__, name)
