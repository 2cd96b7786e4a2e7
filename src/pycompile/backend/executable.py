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
import threading

import numpy as np

from pycompile._rt import ffi as _ffi
from pycompile._rt import lib as _rt_lib
from pycompile.backend import runtime

_from_buffer = _ffi.from_buffer
_INIT_T = _ffi.typeof("int(*)(const void *)")
_ENTRY_T = _ffi.typeof("int(*)(void **)")


class RuntimeFault(RuntimeError):
    pass


_INTERRUPTED = int(_rt_lib.PC_ERR_INTERRUPTED)


def watch_interrupts() -> None:
    """Let Ctrl-C stop compiled loops (csrc/interrupt.c) while Python's own SIGINT handler is in
    place; a program that installed its own handler keeps it to itself."""
    import signal
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        _rt_lib.pc_watch_interrupts()


def _poll_signals() -> None:
    """A Python call: the interpreter runs pending signal handlers on entering it."""


def _interrupted():
    """A compiled loop stopped at a pending SIGINT. Python's handler, which the runtime's passed
    the signal to, raises KeyboardInterrupt at the next bytecode boundary; this is one. If it
    does not (the compiled code ran outside the main thread), raise it here."""
    _rt_lib.pc_clear_interrupt()
    _poll_signals()
    raise KeyboardInterrupt


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
        self._arena_size = max(arena_size, 64)
        # the argument array and the arena belong to one call at a time: a call from another
        # Python thread while one runs (cffi releases the GIL) gets its own (see _own_args)
        self._busy = threading.Lock()
        watch_interrupts()

    def _own_args(self):
        """An argument array and arena for a call overlapping another one's: the constants copied
        from the shared array (their slots never change), a fresh arena."""
        n = len(self.args)
        args = _ffi.new("void *[]", n)
        base = self.n_inputs + len(self.refs) + len(self.out_specs)
        for k, c in enumerate(self._keep):
            args[base + k] = c
        arena = np.empty(self._arena_size + 64, np.uint8)
        buf = _from_buffer(arena[(-arena.ctypes.data) % 64:])
        args[n - 1] = buf
        return args, (arena, buf)

    def __call__(self, arrays: list) -> list:
        if not self._busy.acquire(False):
            args, own = self._own_args()
            return self._run(args, arrays, own)
        try:
            return self._run(self.args, arrays, None)
        finally:
            self._busy.release()

    def _run(self, args, arrays: list, own) -> list:
        keep = [own]
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
        if rc == _INTERRUPTED:
            _interrupted()
        code = rc - 1000
        if 0 <= code < len(self.errors):
            # "RuntimeError: For 'Gather', ..." raises the class MindSpore raises; otherwise IndexError
            name, sep, text = self.errors[code].partition(": ")
            cls = _RUNTIME_ERRORS.get(name) if sep else None
            raise cls(text) if cls is not None else IndexError(self.errors[code])
        raise RuntimeFault(f"compiled code returned error {rc}")


# exception classes a runtime error message may name (ops/c: ctx.runtime_error)
_RUNTIME_ERRORS = {"RuntimeError": RuntimeError, "ValueError": ValueError, "IndexError": IndexError}
