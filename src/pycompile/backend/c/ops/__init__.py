"""The C renderings of the op table: elementwise expressions keyed by op (elementwise.py), loop
templates keyed by template name (templates.py, and one module per op family). Importing the
package registers them all; the C renderer (pycompile/backend/c) imports it."""
from pycompile.backend.c.ops import activation, backprop, elementwise, templates  # noqa: F401
from pycompile.backend.c.ops import index, math, sort  # noqa: F401
from pycompile.backend.c.ops import conv, pool, random, resample  # noqa: F401
from pycompile.backend.c.ops import linalg, fft  # noqa: F401
