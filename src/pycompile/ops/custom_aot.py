"""func_type "aot" of ops.Custom (ops/custom_op.py): a user's compiled C function in a shared
object, called with MindSpore's CPU calling convention

    int fn(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
           void *stream, void *extra)

`params` holds the inputs' buffers then the output's (C order), `dtypes` their NumPy names
("float32", "int32" ...), `stream` and `extra` are NULL; a nonzero return is the kernel's error
code (MindSpore's RuntimeError). The library is loaded at the first call, with MindSpore's
errors for a missing file or symbol. In graph code the call goes through the same host call as
a pyfunc (the runtime's py_call), so the compiled graph calls the kernel once per call.
"""
from __future__ import annotations

import ctypes
import os

import numpy as np

_I64P = ctypes.POINTER(ctypes.c_int64)
ARGTYPES = [ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(_I64P),
            ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p, ctypes.c_void_p]


class AotKernel:
    """The function `name` of shared object `path` ("path:name" of ops.Custom)."""

    def __init__(self, spec: str):
        path, self.name = spec.rsplit(":", 1)
        self.path = os.path.realpath(path)
        self.__name__ = self.name
        self._fn = None

    def _load(self):
        if self._fn is None:
            if not os.path.isfile(self.path):
                raise RuntimeError(f"For 'Custom' on CPU, couldn't find the AOT binary file: {self.path}")
            try:
                lib = ctypes.CDLL(self.path)
            except OSError as e:
                raise RuntimeError(f"For 'Custom' on CPU, error occurs when loading '{self.path}'. Error info: "
                                   f"{e}") from None
            try:
                fn = getattr(lib, self.name)
            except AttributeError as e:
                raise RuntimeError(f"For 'Custom' on CPU, error occurs when fetching function '{self.name}'. "
                                   f"Error info: {e}") from None
            fn.restype, fn.argtypes = ctypes.c_int, ARGTYPES
            self._fn = fn
        return self._fn

    def run_into(self, arrays: list, out) -> None:
        """The kernel on the inputs, writing `out` (an array, or a list of them: several outputs follow
        the inputs in `params`, as MindSpore passes them)."""
        fn = self._load()
        bufs = [np.ascontiguousarray(a) for a in arrays] + (list(out) if isinstance(out, list) else [out])
        n = len(bufs)
        params = (ctypes.c_void_p * n)(*[b.ctypes.data for b in bufs])
        ndims = (ctypes.c_int * n)(*[b.ndim for b in bufs])
        dims = [(ctypes.c_int64 * max(b.ndim, 1))(*b.shape) for b in bufs]
        shapes = (_I64P * n)(*[ctypes.cast(d, _I64P) for d in dims])
        dtypes = (ctypes.c_char_p * n)(*[b.dtype.name.encode() for b in bufs])
        rc = fn(n, params, ndims, shapes, dtypes, None, None)
        if rc != 0:
            raise RuntimeError(f"Return value from CPU AOT kernel({self.path})'s function({self.name}) is {rc}. Any "
                               f"return value not equal to 0 will be treated as user defined error code and we will "
                               f"terminate execution. If termination is not your purpose, please set return value "
                               f"to 0.")
