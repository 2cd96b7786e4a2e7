"""The C renderings of the op table: elementwise expressions keyed by op (elementwise.py), loop
templates keyed by template name (templates.py, and one module per op family). Importing the
package registers them all; the C renderer (pycompile/backend/c) imports it."""
from pycompile.ops.c import activation, backprop, elementwise, templates  # noqa: F401
from pycompile.ops.c import index, math, sort  # noqa: F401
from pycompile.ops.c import conv, pool, random, resample  # noqa: F401
from pycompile.ops.c import linalg, fft  # noqa: F401
