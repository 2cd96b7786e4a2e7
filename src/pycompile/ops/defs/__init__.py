"""Op declarations, grouped by kind; importing this package fills `ops._table.OPS`."""
from pycompile.ops.defs import activation, array, backprop, effects, elementwise, reduce, stack  # noqa: F401
from pycompile.ops.defs import index, math, sort  # noqa: F401
from pycompile.ops.defs import conv, norm, pool, random, resample  # noqa: F401
from pycompile.ops.defs import comm  # noqa: F401
