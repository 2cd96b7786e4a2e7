"""Op declarations, grouped by kind; importing this package fills `ops._table.OPS`."""
from pycompile.ops.defs import activation, array, effects, elementwise, reduce  # noqa: F401
