"""Kernels of MindSpore's CPU wheel that a user primitive reaches by its name (issue 33, mat33):
`QR` (MindSpore's own tests subclass PrimitiveWithInfer as `QR(mode)` with modes "full", "r" and
"economic", and compare with scipy.linalg.qr): Householder QR with LAPACK's signs (ops.qr), Q
(m, m) and R (m, n) for "full" and "r", Q (m, k) and R (k, n) for "economic"."""
from pycompile.ops._table import OpValueError
from pycompile.ops.entries import linalg_33b as L
from pycompile.ops.primitive import register_kernel


@register_kernel("QR")
def qr_kernel(prim, x):
    # the subclass's own `self.mode` (its super().__init__ inside a prim_attr_register'd __init__
    # starts the attributes afresh, as MindSpore's Primitive.__init__ does)
    mode = getattr(prim, "mode", None) or prim.attrs.get("mode", "full")
    if mode not in ("full", "r", "economic"):
        raise OpValueError(f"For 'QR', 'mode' must be 'full', 'r' or 'economic', but got {mode!r}.")
    return L.qr(x, "reduced" if mode == "economic" else "complete")
