"""A compiled specialization: the loaded shared object and its calling convention.

pc_entry(void **args) takes, in order: graph inputs, Parameters (their live buffers: no copy),
output buffers, large constants, the arena. The Python side of a call is the hot path: one
prebuilt pointer array, no allocation beyond the outputs.

The module is loaded through the runtime's compiled FFI (`_cffi_backend.load_library` and C types
parsed by cffi's built-in parser), not a `cffi.FFI().cdef`: that would import pycparser (~20 ms),
which a compile-cache hit cannot afford.
"""
from __future__ import annotations

import _cffi_backend
import numpy as np

from pycompile._rt import ffi as _ffi
from pycompile.backend import runtime

_from_buffer = _ffi.from_buffer
_INIT_T = _ffi.typeof("int(*)(const void *)")
_ENTRY_T = _ffi.typeof("int(*)(void **)")


class RuntimeFault(RuntimeError):
    pass


class Executable:
    def __init__(self, so_path: str, n_inputs: int, refs: list, out_types: list, const_args: list,
                 arena_size: int, errors: list):
        self.so_path = so_path
        self.lib = _cffi_backend.load_library(so_path)
        self.lib.load_function(_INIT_T, "pc_module_init")(_ffi.cast("const void *", runtime.api_address()))
        self.n_inputs = n_inputs
        self.refs = refs
        self.out_specs = [(t.shape, t.dtype.np) for t in out_types]
        self.const_args = [np.ascontiguousarray(c) for c in const_args]
        self.arena = np.empty(max(arena_size, 64) + 64, np.uint8)
        self.errors = errors
        n = n_inputs + len(refs) + len(out_types) + len(const_args) + 1
        self.args = _ffi.new("void *[]", n)
        base = n_inputs + len(refs) + len(out_types)
        self._keep = [_from_buffer(c) for c in self.const_args]
        for k, c in enumerate(self._keep):
            self.args[base + k] = c
        aligned = (-self.arena.ctypes.data) % 64
        self._arena_buf = _from_buffer(self.arena[aligned:])
        self.args[n - 1] = self._arena_buf
        self.ref_shapes = [r._data.shape for r in refs]
        self._entry = self.lib.load_function(_ENTRY_T, "pc_entry")

    def __call__(self, arrays: list) -> list:
        args = self.args
        keep = []
        k = 0
        for a in arrays:
            if not a.flags.c_contiguous:
                a = np.ascontiguousarray(a)
            b = _from_buffer(a)
            keep.append(b)
            args[k] = b
            k += 1
        for r in self.refs:
            b = _from_buffer(r._data)
            keep.append(b)
            args[k] = b
            k += 1
        outs = []
        for shape, dt in self.out_specs:
            o = np.empty(shape, dt)
            b = _from_buffer(o)
            keep.append(b)
            args[k] = b
            k += 1
            outs.append(o)
        rc = self._entry(args)
        if rc != 0:
            self._raise(rc)
        return outs

    def _raise(self, rc: int):
        code = rc - 1000
        if 0 <= code < len(self.errors):
            # "RuntimeError: For 'Gather', ..." raises the class MindSpore raises; otherwise IndexError
            name, sep, text = self.errors[code].partition(": ")
            cls = _RUNTIME_ERRORS.get(name) if sep else None
            raise cls(text) if cls is not None else IndexError(self.errors[code])
        raise RuntimeFault(f"compiled code returned error {rc}")


# exception classes a runtime error message may name (ops/c: ctx.runtime_error)
_RUNTIME_ERRORS = {"RuntimeError": RuntimeError, "ValueError": ValueError, "IndexError": IndexError}
