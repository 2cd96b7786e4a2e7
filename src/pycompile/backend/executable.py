"""A compiled specialization: the loaded shared object and its calling convention.

pc_entry(void **args) takes, in order: graph inputs, Parameters (their live buffers: no copy),
output buffers, large constants, the arena. The Python side of a call is the hot path: one
prebuilt pointer array, no allocation beyond the outputs; `make_caller` builds it per
specialization, in C (csrc/call.c) with a Python fallback.

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
from pycompile.backend.errinfo import ERRINFO_POSITION, ERRINFO_SLOTS, ERRINFO_VALUES, fill
from pycompile.common import context
from pycompile.common.tensor import Tensor

try:
    from pycompile._call import Caller as _CCaller     # csrc/call.c, built with the runtime
except ImportError:         # a source tree whose extension is not built: the Python caller alone
    _CCaller = None

_from_buffer = _ffi.from_buffer
_new = object.__new__
_empty = np.empty
# An input array at most this large keeps its pointer cached between calls (the argument array
# holds it, and so keeps it alive): a larger one is released after the call, its pointer looked
# up again next time (~0.2 us, nothing beside the work on 64 KiB)
_PIN_BYTES = 1 << 16
_INIT_T = _ffi.typeof("int(*)(const void *)")
_ENTRY_T = _ffi.typeof("int(*)(void **)")
_LAYOUT_T = _ffi.typeof("const char *(*)(void)")
_PROFILE_T = _ffi.typeof("int64_t *(*)(void)")
_ERRINFO_T = _ffi.typeof("const int64_t *(*)(void)")
_COMM_ARENA_T = _ffi.typeof("int(*)(void)")


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
        self.out_specs = [(tuple(t.shape), np.dtype(t.dtype.np)) for t in out_types]
        self.const_args = [np.ascontiguousarray(c) for c in const_args]
        self.arena = self._new_arena(max(arena_size, 64) + 64)
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
        self.profile_regions, self.profile_counters = self._profile()
        self._arena_size = max(arena_size, 64)
        # the argument array and the arena belong to one call at a time: a call from another
        # Python thread while one runs (cffi releases the GIL) gets its own (see _own_args)
        self._busy = threading.Lock()
        watch_interrupts()

    def _new_arena(self, nbytes: int) -> np.ndarray:
        """The arena: for a module that all-reduces (it defines pc_comm_arena), a block of this
        rank's shared-memory segment when every rank runs on this machine, so that its gradient
        buckets are reduced without copies in or out (csrc/comm_shm.c, "direct"); else (or when
        the segment's arena is full) private memory. A segment block is given back when the
        executable goes, if nothing was taken after it."""
        try:
            self.lib.load_function(_COMM_ARENA_T, "pc_comm_arena")
        except AttributeError:
            return np.empty(nbytes, np.uint8)
        ptr = _rt_lib.pc_comm_shm_arena(nbytes)
        if ptr == _ffi.NULL:
            return np.empty(nbytes, np.uint8)
        self._segment_block = (ptr, nbytes)
        return np.frombuffer(_ffi.buffer(ptr, nbytes), np.uint8)

    def __del__(self):
        block = getattr(self, "_segment_block", None)
        if block is not None and _rt_lib is not None:
            _rt_lib.pc_comm_shm_arena_free(*block)

    def _profile(self):
        """(regions, counters) of a module built for the profiler (backend/c/profile.py): its
        kernels' descriptions and a writable view of their (count, ns, first start) counters;
        (None, None) for every other module."""
        try:
            listing = self.lib.load_function(_LAYOUT_T, "pc_profile_regions")
        except AttributeError:          # (cffi's answer for a symbol the module does not define)
            return None, None
        from pycompile.backend.profiling import regions_of
        regions = regions_of(_ffi.string(listing()))
        counters = self.lib.load_function(_PROFILE_T, "pc_profile")()
        view = np.frombuffer(_ffi.buffer(counters, 24 * max(len(regions), 1)), np.int64)
        return regions, view

    def reported_layout(self) -> str | None:
        """What the module says its pc_entry takes (compiled.layout_text), or None when it does
        not say (a module built before pc_layout existed)."""
        try:
            fn = self.lib.load_function(_LAYOUT_T, "pc_layout")
        except (AttributeError, KeyError, OSError, NotImplementedError):
            return None
        return _ffi.string(fn()).decode("ascii", "replace")

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

    def make_caller(self, positions: tuple, returns: list, container):
        """(run, guarded): the hot path of a call whose graph inputs are positional arguments and
        whose result is made of graph outputs only, with every per-signature decision taken
        here, once. `run(args, kwargs)` -> the Python result; `guarded(sig, gen, args)` -> the
        result, or None unless `args` are exact Tensors keyed `sig` under configuration
        generation `gen` (None itself without the C helper).

        The C helper (csrc/call.c) runs the common case; the Python caller below is its
        fallback (an input that is not a C-contiguous ndarray, a call overlapping another) and
        the whole path where the helper is not built.

        `positions`: the argument index of each graph input. `returns`: per returned value, (graph
        output index, whether it is returned as a Python number). `container`: None (one value),
        tuple or list."""
        call = self._python_caller(positions, returns, container)
        if _CCaller is None or not returns:
            return call, None       # () returned
        outs = tuple((len(positions) + len(self.refs) + k, shape, dt) for k, (shape, dt) in enumerate(self.out_specs))
        c = _CCaller(int(_ffi.cast("uintptr_t", self._entry)), int(_ffi.cast("uintptr_t", self.args)), len(self.args),
                     self, self._busy.acquire, self._busy.release, tuple(positions), tuple(self.refs), outs,
                     tuple((v, bool(sc)) for v, sc in returns), container, Tensor, call, self._raise,
                     context._generation)
        return c.run, c.guarded

    def _python_caller(self, positions: tuple, returns: list, container):
        """make_caller's Python form. Per call it reads each input's `_data`, re-extracts a pointer
        only for an array that is not the one of the previous call (its cffi buffer keeps that
        array alive and exported, so identity cannot be confused with a new array at the same
        address; arrays over _PIN_BYTES are not kept), allocates the outputs and wraps them
        without copying. A call overlapping another one on this executable (another Python
        thread) takes `_run` with its own argument array and arena, as `__call__` does.

        Its pointer array is its own (the constants' and the arena's slots copied; the arena
        shared under the lock), so the pointers it keeps between calls are never overwritten by
        another path."""
        cargs, entry, lock, refs = _ffi.new("void *[]", len(self.args)), self._entry, self._busy, self.refs
        for k in range(len(self.args)):
            cargs[k] = self.args[k]
        acquire, release = lock.acquire, lock.release
        n_bound = len(positions) + len(refs)
        last = [None] * n_bound         # the array whose pointer slot k holds
        pinned = [None] * n_bound       # its cffi buffer (keeps the array alive and exported)
        outs_at = tuple(range(n_bound, n_bound + len(self.out_specs)))
        specs = tuple(zip(outs_at, self.out_specs))
        raise_ = self._raise
        run_own = self._run
        own_args = self._own_args
        single = container is None
        if single:
            (only, scalar_only), = returns
            only_slot, (only_shape, only_dt) = specs[only]

        def bind(k, a):
            if not a.flags.c_contiguous:
                a = np.ascontiguousarray(a)
                b = _from_buffer(a)
                cargs[k] = b
                return b, a                 # a copy: never cached (the user's array may change)
            b = _from_buffer(a)
            cargs[k] = b
            if a.nbytes <= _PIN_BYTES:
                last[k], pinned[k] = a, b
                return None
            last[k] = pinned[k] = None
            return b, a

        def result(outs):
            vals = [outs[v].item() if sc else Tensor._wrap_array(outs[v]) for v, sc in returns]
            return vals[0] if single else container(vals)

        def overlapping(args):
            arrays = [args[p]._data for p in positions]
            args_own, own = own_args()
            return result(run_own(args_own, arrays, own))

        def call(args, kwargs=None):
            if not acquire(False):
                return overlapping(args)
            try:
                hold = None         # buffers not pinned (a copy, a large array): alive until return
                k = 0
                for p in positions:
                    a = args[p]._data
                    if a is not last[k]:
                        h = bind(k, a)
                        if h is not None:
                            hold = [h] if hold is None else hold + [h]
                    k += 1
                for r in refs:
                    a = r._data
                    if a is not last[k]:
                        h = bind(k, a)
                        if h is not None:
                            hold = [h] if hold is None else hold + [h]
                    k += 1
                if single:
                    o = _empty(only_shape, only_dt)
                    cargs[only_slot] = _from_buffer(o)
                    rc = entry(cargs)
                    if rc != 0:
                        raise_(rc)
                    if scalar_only:
                        return o.item()
                    t = _new(Tensor)
                    t._data = o
                    return t
                outs = []
                for slot, (shape, dt) in specs:
                    o = _empty(shape, dt)
                    cargs[slot] = _from_buffer(o)
                    outs.append(o)
                rc = entry(cargs)
                if rc != 0:
                    raise_(rc)
                return result(outs)
            finally:
                release()

        return call

    def _with_values(self, text: str) -> str:
        """The message with the values the module left in its error slots (backend/errinfo.py)."""
        if ERRINFO_POSITION not in text and ERRINFO_VALUES not in text:
            return text
        try:
            slots = self.lib.load_function(_ERRINFO_T, "pc_error_info")()
        except AttributeError:
            # cffi's answer for a missing symbol: codegen emits pc_error_info only when the C
            # writes an error slot; without it the message is given as written
            return text
        return fill(text, [slots[k] for k in range(ERRINFO_SLOTS)])

    def _raise(self, rc: int):
        if rc == _INTERRUPTED:
            _interrupted()
        code = rc - 1000
        if 0 <= code < len(self.errors):
            # "RuntimeError: For 'Gather', ..." raises the class MindSpore raises; otherwise IndexError
            name, sep, text = self.errors[code].partition(": ")
            text = self._with_values(text)
            cls = _RUNTIME_ERRORS.get(name) if sep else None
            raise cls(text) if cls is not None else IndexError(self.errors[code])
        raise RuntimeFault(f"compiled code returned error {rc}")


def _comm_error(text: str) -> RuntimeError:
    """A collective of compiled code failed: its message and the runtime's reason."""
    buf = _ffi.new("char[]", 1024)
    n = _rt_lib.pc_comm_last_error(buf, 1024)
    return RuntimeError(f"{text}: {_ffi.string(buf, n).decode(errors='replace') or 'unknown failure'}")


def _py_call_error(text: str) -> BaseException:
    """ops.Custom's Python function failed inside compiled code: its own exception."""
    from pycompile.backend.runtime import take_py_call_error
    return take_py_call_error(text)


# exception classes a runtime error message may name (backend/c/ops: ctx.runtime_error); CommError: a
# collective's failure, whose reason the runtime holds
_RUNTIME_ERRORS = {"RuntimeError": RuntimeError, "ValueError": ValueError, "IndexError": IndexError,
                   "CommError": _comm_error, "PyFuncError": _py_call_error}
