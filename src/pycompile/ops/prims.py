"""Every op of the table as a module attribute, so passes and renderers name ops as objects:

    from pycompile.ops import prims as P
    if n.op is P.Reshape: ...

A misspelled name fails when the module that uses it is imported (module-level references) or
at its first use, never silently as a string comparison that is always false.
"""
from pycompile.ops.defs.activation import *  # noqa: F401,F403
from pycompile.ops.defs.array import *  # noqa: F401,F403
from pycompile.ops.defs.effects import *  # noqa: F401,F403
from pycompile.ops.defs.elementwise import *  # noqa: F401,F403
from pycompile.ops.defs.reduce import *  # noqa: F401,F403
from pycompile.ops.defs.backprop import *  # noqa: F401,F403
from pycompile.ops.defs.stack import *  # noqa: F401,F403
from pycompile.ops.defs.index import *  # noqa: F401,F403
from pycompile.ops.defs.math import *  # noqa: F401,F403
from pycompile.ops.defs.sort import *  # noqa: F401,F403
from pycompile.ops.defs.conv import *  # noqa: F401,F403
from pycompile.ops.defs.norm import *  # noqa: F401,F403
from pycompile.ops.defs.pool import *  # noqa: F401,F403
from pycompile.ops.defs.random import *  # noqa: F401,F403
from pycompile.ops.defs.resample import *  # noqa: F401,F403
from pycompile.ops.defs.comm import *  # noqa: F401,F403
from pycompile.ops.defs.linalg import *  # noqa: F401,F403
from pycompile.ops.defs.complex import *  # noqa: F401,F403
from pycompile.ops.defs.fft import *  # noqa: F401,F403
from pycompile.ops.defs.pyfunc import *  # noqa: F401,F403
