"""PyNative's matrix products (MatMul, BatchMatMul) on graph mode's product code, not NumPy's matmul.

NumPy's matmul runs on NumPy's own OpenBLAS, whose threads spin beside the runtime's pool that
PyNative's other kernels run on: on 2 cores, four busy threads. Whenever something else took a
core - another process, or PyNative's own background compiler (backend/eager.py `_Tiered`) - a
product waited for a descheduled BLAS thread: a LeNet-5 training step took 70-100 ms instead of
6-8 ms while its kernels were built, and ~3 % of steps took 40-70 ms on an otherwise idle
machine. With NumPy's BLAS at one thread neither happened, and the step was no slower.

So a float product runs here as graph mode runs it (backend/c/ops/kernels.py `gemm`): the units
graph mode cuts it into - (matrix, row block), or column blocks for few rows and a long inner
dimension - over the runtime's pool (csrc/pool.c, csrc/eager_gemm.c), each one single-threaded
scipy-openblas32 call (the BLAS generated modules link) or the runtime's small-product kernel
where graph mode calls it. The cut is graph mode's (OpenBLAS's sums depend on it), so the
result is the compiled product's bit for bit at the same thread count
(tests/backend/test_eager_products.py). float16 is widened to float32, multiplied and rounded
once, as graph mode's float16 product does. Integer, complex and empty products run NumPy.

Unlike the convolutions' generic kernels, a product has no per-signature kernel to build later:
this is the kernel graph mode would call (`final`).
"""
from __future__ import annotations

import ctypes
import functools
import os

import numpy as np

from pycompile.common import dtype as mstype


@functools.lru_cache(maxsize=None)
def _ops():
    from pycompile.ops.defs import array
    return (array.MatMul, array.BatchMatMul)


def final(op) -> bool:
    """Whether op's kernel here is its only one (no per-signature kernel is built for it)."""
    return op in _ops()


@functools.lru_cache(maxsize=None)
def _blas():
    """(cblas_sgemm, cblas_dgemm) of scipy-openblas32 as integers, its threads pinned to one (the
    runtime's pool splits the work, as in generated modules, which pin it too)."""
    from pycompile.backend import toolchain
    lib = ctypes.CDLL(os.path.join(toolchain.blas_paths()[1], "libscipy_openblas.so"))
    lib.scipy_openblas_set_num_threads(1)
    addr = ctypes.cast
    return (addr(lib.scipy_cblas_sgemm, ctypes.c_void_p).value, addr(lib.scipy_cblas_dgemm, ctypes.c_void_p).value)


def _offsets(shape, batch, mat):
    """Element offset of each of the nb matrices of an operand of `shape` broadcast over `batch`."""
    own = tuple(shape[:-2])
    own = (1,) * (len(batch) - len(own)) + own
    index = np.arange(int(np.prod(own, dtype=np.int64)), dtype=np.int64).reshape(own)
    return np.ascontiguousarray(np.broadcast_to(index, batch).reshape(-1) * mat)


def kernel(op, types, attrs):
    """The run function (inputs -> Tensor) of a float product of `types`, or None (NumPy)."""
    from pycompile.backend.c.ops import kernels
    from pycompile.backend.eager_generic import _buf, _rt
    if op not in _ops() or len(types) != 2:
        return None
    at, bt = types
    dt = at.dtype
    if bt.dtype is not dt or dt not in (mstype.float16, mstype.float32, mstype.float64):
        return None
    ta, tb = bool(attrs.get("transpose_a", False)), bool(attrs.get("transpose_b", False))
    ash, bsh = tuple(at.shape), tuple(bt.shape)
    if len(ash) < 2 or len(bsh) < 2 or (op is _ops()[0] and (len(ash), len(bsh)) != (2, 2)):
        return None
    M, K = (ash[-1], ash[-2]) if ta else ash[-2:]
    N = bsh[-2] if tb else bsh[-1]
    try:
        batch = tuple(np.broadcast_shapes(ash[:-2], bsh[:-2]))
    except ValueError:
        return None
    nb = int(np.prod(batch, dtype=np.int64))
    if 0 in (M, N, K, nb) or max(M, N, K) >= 1 << 31:
        return None
    work = np.float32 if dt is mstype.float16 else dt.np
    f64 = int(dt is mstype.float64)
    # graph mode's cut of the product (float16 runs sgemm with neither kernel cut, as there)
    small, split, par, small_t = kernels.product_cut(dt, dt, dt, ta, tb, M, N, K, nb)
    geo = np.array([nb, M, N, K, ash[-1], bsh[-1], ta, tb, small, split, par, small_t], dtype=np.int64)
    aoff = _offsets(ash, batch, ash[-2] * ash[-1])
    boff = _offsets(bsh, batch, bsh[-2] * bsh[-1])
    from pycompile.backend.toolchain import ToolchainError
    try:
        fns = _blas()
    except (ToolchainError, OSError, AttributeError):    # no scipy-openblas32 to call: NumPy
        return None
    ffi, lib = _rt()
    blas = ffi.cast("void *", fns[f64])
    out_shape = batch + (M, N)
    # per call only the operands' and the result's pointers are made (the rest is this signature's)
    fixed = (_buf(geo), _buf(aoff), _buf(boff))
    ctype = "double[]" if f64 else "float[]"
    from_buffer, matmul, asarray, empty = ffi.from_buffer, lib.pc_gen_matmul, np.ascontiguousarray, np.empty
    wrap = _tensor_class()._wrap_array
    rounded = None if work is dt.np else dt.np

    def run(inputs):
        a, b = asarray(inputs[0]._data, work), asarray(inputs[1]._data, work)
        c = empty(out_shape, work)
        if matmul(blas, f64, *fixed, from_buffer(ctype, a), from_buffer(ctype, b),
                  from_buffer(ctype, c, require_writable=True)) != 0:
            raise ValueError("the product kernel does not serve these sizes")
        return wrap(c if rounded is None else c.astype(rounded))
    run.keep = (geo, aoff, boff)        # the arrays `fixed` points into
    return run


def _tensor_class():
    from pycompile.common.tensor import Tensor
    return Tensor
