"""PyNative on graph mode's kernels: ops whose row says `eager_kernel` run, in PyNative, through the
C graph mode generates for them, so an eager result is the compiled result, bit for bit.

How a call gets its kernel
--------------------------
`ops._table.apply` keys each PyNative call by (op, attributes, each input's dtype and shape) and
keeps a plan per key (`_table._plan`). For an `eager_kernel` op the plan comes from here
(`EagerKernels.plan`, installed as `_table.EAGER_KERNELS[0]`): the op alone is traced into a graph
(one parameter per input, the one node, its outputs) by the compiler's own graph builder, then
optimized, rendered, built and loaded by the same pipeline as a `@jit` function
(`pipeline.lower` / device `build` / `pipeline.load`). The executable's prebuilt caller
(`Compiled.run`, csrc/call.c) is what the plan calls: per call the plan checks the context's
generation and hands the input Tensors over, ~1 us on top of the kernel, against the ~1-2 us of
NumPy dispatch it replaces. So the per-signature dict is `_table._PLANS`, and the kernels behind
it are kept here by (op, attributes, input types, compile options), one per signature.

The compile cache: a kernel is stored in the on-disk compile cache (backend/cache) when it is
enabled, keyed by what determines the C - pycompile's installation, the C compiler, flags, CPU,
compile options, the op, its attributes and input types - so a second process loads it (~1 ms)
instead of compiling it (~100 ms of C compiler per kernel). Entries live under `eager-<op>/`.

The first call of a network
---------------------------
A new signature waits for its kernel's compile. The backward pass's kernels are known earlier:
when the autodiff tape records an `eager_kernel` op, `anticipate` traces the op's gradient rule on
abstract values (the same builder), and the `eager_kernel` ops the rule applies - a convolution's
two backprop ops, a pooling's gradient - start compiling on worker threads, one per core, while
the forward pass goes on; the backward pass then finds them built or waits for the rest. A
kernel needed now whose anticipated build has not started yet is built in the calling thread.

Convolutions (their direct backprops too) and max / average pooling and their gradients do not
wait at all: a shape-generic kernel built into the runtime at install (backend/eager_generic.py,
csrc/eager_generic.c) computes them, bit for bit as the per-signature kernel would (`_Tiered`).
At the signature's second call its per-signature kernel is lowered and handed to one background
thread whose compiler runs at a lower priority (nice 10), so it takes no CPU from the program or
from a kernel the program waits for; once built, the signature's plans call it (faster, the same
bits). A signature called once never compiles. A kernel in the compile cache is loaded instead,
as before; the backward pass anticipates only the kernels that would make it wait.

Products (MatMul, BatchMatMul) run graph mode's product code built into the runtime
(backend/eager_products.py): not NumPy's matmul, whose own BLAS threads stalled PyNative whenever
a core was taken. There is nothing to build for them (`_Final`).

When there is no kernel
-----------------------
Without a working C compiler (CC pointing nowhere, a failed build) PyNative runs `eager` (NumPy)
for every op, as before; the first failure is logged on the "compiles" channel (a build of
generated C that fails is a pycompile bug: it is logged as a warning, and that signature keeps
NumPy). Inputs that are not all tensors, attributes that are not plain values and a process that
has compiled MAX_PER_OP signatures of one op (shapes that change on every call) also run NumPy.
"""
from __future__ import annotations

import contextlib
import json
import os
import threading
import time

import numpy as np

from pycompile.backend import eager_products
from pycompile.common import context, log
from pycompile.common.abstract import TensorType, TupleType

# distinct signatures of one op that get a kernel in one process: past it, new shapes of that op
# run NumPy (a program whose shapes change on every call would otherwise compile on every call)
MAX_PER_OP = 256

_NO_KERNEL = object()      # a signature whose kernel cannot be built: NumPy


class Stats:
    """What kernels cost this process: counts and seconds (read by tests and bench/)."""

    def __init__(self):
        self.compiled = 0          # kernels built by the C compiler
        self.disk_hits = 0         # kernels loaded from the compile cache
        self.anticipated = 0       # builds started by `anticipate`
        self.wait_s = 0.0          # seconds PyNative calls waited for a kernel (lowering, cc, load)
        self.lower_s = 0.0         # seconds of tracing, passes and C rendering (Python)
        self.cc_s = 0.0            # seconds of C compiler runs (wall, summed over threads)
        self.generic = 0           # signatures a shape-generic kernel served first
        self.promote_s = 0.0       # seconds of lowering promoted signatures' kernels (Python)

    def as_dict(self) -> dict:
        return dict(vars(self))


class _Build:
    """A kernel being built: its lowered graph, the future of its shared object (None: built in
    the calling thread), and the disk-cache key to store it under."""

    __slots__ = ("lowered", "future", "key")

    def __init__(self, lowered, future, key):
        self.lowered, self.future, self.key = lowered, future, key


# the call of a generic-served signature at which its per-signature kernel starts building
PROMOTE_AT_CALL = 2


class _Tiered:
    """A signature served by its shape-generic kernel (backend/eager_generic.py); from its
    PROMOTE_AT_CALL-th call its per-signature kernel builds in the background, and once built
    serves it (the same bits, faster): the plans holding this object are moved to its caller."""

    __slots__ = ("owner", "op", "types", "attrs", "key", "generic", "calls", "build", "compiled", "states")

    def __init__(self, owner, op, types, attrs, key, generic):
        self.owner, self.op, self.types, self.attrs, self.key = owner, op, types, attrs, key
        self.generic, self.calls, self.build, self.compiled, self.states = generic, 0, None, None, []

    def run(self, inputs):
        compiled = self.compiled
        if compiled is None:
            build = self.build
            if build is None:
                self.calls += 1
                if self.calls >= PROMOTE_AT_CALL:
                    self.owner._promote(self)
                return self._generic(inputs)
            if not build.future.done() or self.owner._swap(self) is None:
                return self._generic(inputs)
            compiled = self.compiled
        return compiled.run(inputs)

    def _generic(self, inputs):
        out = self.generic(inputs)
        if out is None:
            # the generic kernel declined these values (eager_generic: a non-finite weight in a
            # backprop-input, whose template skips padding rows): the signature's own kernel
            compiled = self.per_signature()
            if compiled is None:
                raise RuntimeError(f"pycompile: no kernel for {self.op.name} on these values (the C "
                                   f"compiler could not build one)")
            return compiled.run(inputs)
        return out

    def per_signature(self):
        """The per-signature kernel, built now if it is not yet (inspection, tests); None if it
        cannot be built."""
        if self.compiled is None:
            self.owner._promote(self)
            if self.build is not None:
                from concurrent.futures import wait
                wait([self.build.future])
                self.owner._swap(self)
        return self.compiled

    def __getattr__(self, name):
        # what a Compiled has (its report, layout...): the per-signature kernel's, built for it
        compiled = self.per_signature()
        if compiled is None:
            raise AttributeError(name)
        return getattr(compiled, name)


class _Final:
    """A signature served for good by a kernel built into the runtime (a product: graph mode's own
    product code, backend/eager_products.py)."""

    __slots__ = ("run",)

    def __init__(self, run):
        self.run = run


class EagerKernels:
    """The kernels of this process, by (op, attributes key, input types, options). `generic`:
    whether shape-generic kernels serve the first calls of the signatures they cover while
    theirs are built (the process's store: yes; a store made by a test: as it asks)."""

    def __init__(self, generic: bool = False):
        self.generic = generic
        self._kernels: dict = {}       # key -> Compiled, or _NO_KERNEL
        self._builds: dict = {}        # key -> _Build (anticipated, not yet loaded)
        self._anticipated: set = set()
        self._per_op: dict = {}        # op -> kernels made for it
        self._lock = threading.RLock()
        self._pool = None
        self._low = None               # the low-priority builder of promoted kernels
        self.disabled = ""             # why no kernel can be built in this process ("" : they can)
        self.stats = Stats()

    # ---- the plan a PyNative call runs ------------------------------------------------------------
    def plan(self, op, types, out_type, attrs, numpy_plan):
        """A plan running op's kernel (run(inputs, attrs) -> result), or None for `numpy_plan`.
        The plan re-resolves its kernel when the context changes (device, options) and runs
        `numpy_plan` if none can be had then."""
        from pycompile.ops._table import _attrs_key
        if self.disabled or not _tensors_only(types, out_type):
            return None
        akey = _attrs_key(attrs) if attrs else ()
        if akey is None:
            return None
        sig = (op, akey, tuple(types))
        compiled = self.kernel(op, types, attrs, sig)
        if compiled is None:
            return None
        generation = context.generation
        state = [generation(), compiled.run]
        if isinstance(compiled, _Tiered):
            compiled.states.append(state)       # moved to the per-signature kernel once it is built

        def run_kernel(inputs, attrs):
            if generation() != state[0]:
                k = self.kernel(op, types, attrs, sig)
                state[0], state[1] = generation(), (k.run if k is not None else None)
            run = state[1]
            if run is None:
                return numpy_plan(inputs, attrs)
            return run(inputs if inputs.__class__ is tuple else tuple(inputs))
        run_kernel.kernel = compiled        # what the plan runs (tests, inspection)
        return run_kernel

    def kernel(self, op, types, attrs, sig):
        """The Compiled kernel of a signature under the current options, building it if needed;
        None where there is none."""
        key = sig + (_options_key(),)
        got = self._kernels.get(key)
        if got is not None:
            return None if got is _NO_KERNEL else got
        t0 = time.perf_counter()
        try:
            return self._obtain(op, types, attrs, key)
        finally:
            self.stats.wait_s += time.perf_counter() - t0

    def _obtain(self, op, types, attrs, key):
        with self._lock:
            got = self._kernels.get(key)
            if got is not None:
                return None if got is _NO_KERNEL else got
            build = self._builds.pop(key, None)
            if build is None and eager_products.final(op):
                # a product: graph mode's own product code serves it, nothing to build (or NumPy)
                run = self._generic(op, types, attrs, key)
                got = self._kernels[key] = _NO_KERNEL if run is None else _Final(run)
                return None if run is None else got
            if build is None:
                if self._per_op.get(op, 0) >= MAX_PER_OP:
                    log.compiles.info("PyNative %s: %d signatures have kernels already; this one (%s) runs "
                                      "NumPy", op.name, MAX_PER_OP, _describe(types))
                    self._kernels[key] = _NO_KERNEL
                    return None
                self._per_op[op] = self._per_op.get(op, 0) + 1
                generic = self._generic(op, types, attrs, key)
                if generic is not None:
                    hit = _disk_lookup_for(self, op, types, attrs, key)
                    got = self._kernels[key] = hit if hit is not None else _Tiered(self, op, types, attrs, key, generic)
                    self.stats.generic += hit is None
                    return got
                hit, build = self._start(op, types, attrs, key, background=False)
                if hit is not None:
                    self._kernels[key] = hit
                    return hit
            compiled = self._finish(op, types, build)
            self._kernels[key] = _NO_KERNEL if compiled is None else compiled
            return compiled

    def _generic(self, op, types, attrs, key):
        """The shape-generic kernel serving this signature while its own is built, or None."""
        if not self.generic:
            return None
        from pycompile.backend import eager_generic, toolchain
        if not eager_generic.served_options(key[-1]):
            return None
        try:
            toolchain.find_cc()         # no compiler: nothing is built, NumPy runs (as before)
        except toolchain.ToolchainError:
            return None
        if eager_products.final(op):
            return eager_products.kernel(op, types, attrs)
        return eager_generic.kernel(op, types, attrs)

    def _promote(self, tiered) -> None:
        """Lower a generic-served signature's own kernel (here: lowering reads the thread's
        context) and build it on the low-priority background thread."""
        with self._lock:
            if tiered.build is not None or tiered.compiled is not None:
                return
            t0 = time.perf_counter()
            try:
                hit, build = self._start(tiered.op, tiered.types, tiered.attrs, tiered.key, background=True,
                                         executor=self._background())
            finally:
                self.stats.promote_s += time.perf_counter() - t0
            if hit is not None:         # another process has stored it since
                self._install(tiered, hit)
            elif build is None:         # lowering failed (warned): the generic kernel serves for good
                tiered.calls = -(1 << 62)
            else:
                tiered.build = build

    def _swap(self, tiered):
        """Load the per-signature kernel of a `_Tiered` signature once its build is done; the
        plans holding it call that kernel from now on. None: it failed (the generic kernel
        goes on serving)."""
        with self._lock:
            build, tiered.build = tiered.build, None
            if build is None:
                return tiered.compiled
            compiled = self._finish(tiered.op, tiered.types, build)
            if compiled is not None:
                self._install(tiered, compiled)
            return compiled

    def _install(self, tiered, compiled) -> None:
        tiered.compiled = compiled
        self._kernels[tiered.key] = compiled
        for state in tiered.states:
            if state[1] == tiered.run:
                state[1] = compiled.run

    # ---- anticipating the backward pass ----------------------------------------------------------
    def anticipate(self, op, inputs, attrs, out, needed=None) -> None:
        """Called by the autodiff tape for each recorded `eager_kernel` op: start building the
        kernels its gradient rule will run (their signatures found by tracing the rule on
        abstract values), so the backward pass does not wait for them one after another."""
        from pycompile.ops._table import _attrs_key
        if self.disabled or eager_products.final(op):     # a product's gradient is products: no builds
            return
        try:
            types = tuple(_type(x) for x in inputs)
            out_type = _type(out)
        except TypeError:
            return
        akey = _attrs_key(attrs) if attrs else ()
        if akey is None or not _tensors_only(types, out_type):
            return
        mark = (op, akey, types, _options_key(), needed)
        if mark in self._anticipated:
            return
        self._anticipated.add(mark)
        try:
            wanted = _gradient_kernels(op, types, out_type, attrs, needed)
        except Exception as e:        # noqa: BLE001 - a rule that needs values: nothing to anticipate
            log.compiles.info("PyNative %s: gradient kernels not anticipated (%s: %s)", op.name, type(e).__name__, e)
            return
        for gop, gtypes, gattrs in wanted:
            gakey = _attrs_key(gattrs) if gattrs else ()
            if gakey is None:
                continue
            key = (gop, gakey, gtypes, _options_key())
            with self._lock:
                if key in self._kernels or key in self._builds or self._per_op.get(gop, 0) >= MAX_PER_OP:
                    continue
                if self._generic(gop, gtypes, gattrs, key) is not None:
                    continue            # served without waiting: built at its second call
                self._per_op[gop] = self._per_op.get(gop, 0) + 1
                t0 = time.perf_counter()
                try:
                    hit, build = self._start(gop, gtypes, gattrs, key, background=True)
                finally:
                    self.stats.wait_s += time.perf_counter() - t0
                if hit is not None:
                    self._kernels[key] = hit
                elif build is not None:
                    self._builds[key] = build
                    self.stats.anticipated += 1
                else:
                    self._kernels[key] = _NO_KERNEL

    # ---- building ------------------------------------------------------------------------------------
    def _start(self, op, types, attrs, key, background: bool, executor=None):
        """(a kernel loaded from the compile cache, None) or (None, a _Build) or (None, None)."""
        log.configure(context.get_context("log"))       # as a jit compile does: the channels of now
        disk = _disk_key(op, types, attrs, key)
        if disk is not None:
            hit = _disk_lookup(disk)
            if hit is not None:
                self.stats.disk_hits += 1
                return hit, None
        t0 = time.perf_counter()
        try:
            lowered = _lower(op, types, attrs)
        except Exception as e:        # noqa: BLE001 - a pycompile bug: PyNative goes on with NumPy
            _warn_once(op, types, e)
            return None, None
        finally:
            self.stats.lower_s += time.perf_counter() - t0
        future = (executor or self._executor()).submit(self._build, lowered) if background else None
        return None, _Build(lowered, future, disk)

    def _build(self, lowered) -> str:
        t0 = time.perf_counter()
        try:
            return lowered.device.build(lowered.module, lowered.stem)
        finally:
            self.stats.cc_s += time.perf_counter() - t0

    def _finish(self, op, types, build):
        """Wait for (or run) the build, load it, store it in the compile cache; None on failure."""
        if build is None:
            return None
        from pycompile.backend import pipeline
        from pycompile.backend.toolchain import ToolchainError
        try:
            if build.future is not None and not build.future.cancel():
                so_path = build.future.result()
            else:       # built here: in the calling thread, or an anticipated build not yet started
                so_path = self._build(build.lowered)
            self.stats.compiled += 1
            compiled = pipeline.load(build.lowered, so_path)
        except ToolchainError as e:
            self.disabled = str(e).splitlines()[0]
            log.compiles.info("PyNative runs NumPy for every op from now on: no kernel can be built (%s)",
                              self.disabled)
            return None
        except Exception as e:        # noqa: BLE001
            _warn_once(op, types, e)
            return None
        if build.key is not None:
            _disk_store(build.key, compiled)
        return compiled

    def _background(self):
        """The thread building promoted kernels: one, its compiler runs at nice 10 (Linux: a
        thread's priority is its own and the processes it starts inherit it)."""
        if self._low is None:
            from concurrent.futures import ThreadPoolExecutor
            self._low = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pycompile-eager-bg",
                                           initializer=_lower_priority)
            # at exit, the builds not started yet are dropped (nothing will call them), not run: the
            # executor's own exit hook runs after this one and waits for the one running
            hook = getattr(threading, "_register_atexit", None)
            if hook is not None:
                hook(self._low.shutdown, wait=False, cancel_futures=True)
        return self._low

    def settle(self, timeout: float | None = None) -> None:
        """Wait until the background builds started so far are done (benchmarks, tests)."""
        from concurrent.futures import wait
        futures = [b.future for b in list(self._builds.values()) if b.future is not None]
        futures += [k.build.future for k in list(self._kernels.values())
                    if isinstance(k, _Tiered) and k.build is not None]
        wait(futures, timeout=timeout)

    def _executor(self):
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor
            try:
                n = len(os.sched_getaffinity(0))
            except (AttributeError, OSError):
                n = os.cpu_count() or 1
            self._pool = ThreadPoolExecutor(max_workers=max(1, n), thread_name_prefix="pycompile-eager-cc")
        return self._pool


def _lower_priority() -> None:
    """The background builder's thread runs at nice 10 (Linux: a thread's priority is its own and
    the compilers it starts inherit it). Where the OS has no per-thread priority the builds run
    at the program's priority: slower PyNative steps while they run, the same results."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError) as e:
        log.compiles.info("PyNative's background kernel builds run at the program's priority (%s: %s)",
                          type(e).__name__, e)


def _disk_lookup_for(kernels, op, types, attrs, key):
    """The signature's kernel from the compile cache, or None."""
    disk = _disk_key(op, types, attrs, key)
    hit = _disk_lookup(disk) if disk is not None else None
    if hit is not None:
        kernels.stats.disk_hits += 1
    return hit


def _type(x):
    from pycompile.common.abstract import type_of
    return type_of(x)


def _tensors_only(types, out_type) -> bool:
    if not all(isinstance(t, TensorType) for t in types):
        return False
    if isinstance(out_type, TupleType):
        return all(isinstance(t, TensorType) for t in out_type.elems)
    return isinstance(out_type, TensorType)


_OPTIONS = [None, None]        # (context generation, options key): options are read once per generation


def _options_key() -> tuple:
    """What, beside the op and its signature, decides a kernel's C: the device and the compile
    options, read as a jit compile reads them (again after each set_context)."""
    gen = context.generation()
    if _OPTIONS[0] != gen:
        from pycompile.backend import devices, pipeline
        opts = _kernel_options()
        _OPTIONS[:] = [gen, (devices.current().name,) + tuple(sorted(opts.items()))]
    return _OPTIONS[1]


def _kernel_options() -> dict:
    """A jit compile's options, never instrumented: the profiler times PyNative's ops where they
    are called (backend/profiling.py), so their kernels are the same with and without it."""
    from pycompile.backend import pipeline
    return {**pipeline.options(), "profile": False}


def _describe(types) -> str:
    return ", ".join(str(t) for t in types)


_WARNED: set = set()


def _warn_once(op, types, e: Exception) -> None:
    if op in _WARNED:
        return
    _WARNED.add(op)
    log.logger.warning("PyNative %s(%s): its C kernel could not be built (%s: %s); it runs NumPy",
                       op.name, _describe(types), type(e).__name__, str(e).splitlines()[0] if str(e) else "")


# ---- tracing one op ---------------------------------------------------------------------------------------
def _single_op_graph(op, types, attrs, name: str):
    """The graph of `op` alone on inputs of `types`, built by the compiler's graph builder."""
    from pycompile.compiler import ir
    from pycompile.compiler.builder import Builder, Sym, finish_graph
    from pycompile.ops import _mixed, tracing
    from pycompile.ops._table import apply
    b = Builder(None)
    params = [ir.Param(name=f"x{i}", type=t) for i, t in enumerate(types)]
    scope = _mixed.SCOPE[:]        # the inputs' types are the ones the op sees: no recast inside
    del _mixed.SCOPE[:]
    try:
        with tracing.tracing(b):
            out = apply(op, [Sym(p, b) for p in params], dict(attrs))
    finally:
        _mixed.SCOPE[:] = scope
    return finish_graph(b, name, params, out), params


def _lower(op, types, attrs):
    from pycompile.backend import pipeline
    from pycompile.compiler.frontend import TraceResult
    t0 = time.perf_counter()
    graph, params = _single_op_graph(op, types, attrs, f"eager_{op.name}")
    traced = TraceResult(graph, [], [(i,) for i in range(len(params))])
    return pipeline.lower(traced, _kernel_options(), {"trace": time.perf_counter() - t0})


def _gradient_kernels(op, types, out_type, attrs, needed=None) -> list:
    """(op, input types, attrs) of each `eager_kernel` op op's gradient rule applies to a
    cotangent of out_type (for the inputs `needed`), found by running the rule on graph values."""
    from pycompile.compiler import ir
    from pycompile.compiler.builder import Builder, Sym
    from pycompile.ops import _mixed, tracing
    from pycompile.ops.grads import NEEDED
    b = Builder(None)

    def value(t, name):
        return Sym(ir.Param(name=name, type=t), b)
    out = tuple(value(t, f"o{i}") for i, t in enumerate(out_type.elems)) if isinstance(out_type, TupleType) \
        else value(out_type, "out")
    g = tuple(value(t, f"g{i}") for i, t in enumerate(out_type.elems)) if isinstance(out_type, TupleType) \
        else value(out_type, "g")
    scope = _mixed.SCOPE[:]
    del _mixed.SCOPE[:]
    token = NEEDED.set(needed)
    try:
        with tracing.tracing(b):
            op.grad(g, out, *[value(t, f"x{i}") for i, t in enumerate(types)], **attrs)
    finally:
        NEEDED.reset(token)
        _mixed.SCOPE[:] = scope
    wanted = []
    for n in ir.iter_nodes(ir.Block((), tuple(b.nodes), ())):
        if getattr(n.op, "eager_kernel", False):
            wanted.append((n.op, tuple(v.type for v in n.inputs), dict(n.attrs)))
    return wanted


# ---- the on-disk compile cache -------------------------------------------------------------------------
class _DiskKey:
    """A compile-cache lookup key for one kernel (the interface of cache.key.LookupKey that the
    store and its lookup read)."""

    def __init__(self, store, op, types, attrs, options):
        from pycompile.backend.cache.common import _sha
        from pycompile.backend.cache.key import build_environment
        self.store = store
        self.types = tuple(types)
        self.qualname = f"PyNative kernel {op.name}"
        self.where = "pycompile"
        self.components = {
            **build_environment(store),
            "options": repr(options),
            "function": f"eager kernel {op.name}",
            "signature": f"({_describe(types)}) {_attrs_text(attrs)}",
        }
        self.digest = _sha(json.dumps(self.components, sort_keys=True).encode())[:40]
        self.fn_dir = f"eager-{op.name}"[:48]


def _attrs_text(attrs) -> str:
    return "{" + ", ".join(f"{k}={v!r}" for k, v in sorted(attrs.items())) + "}" if attrs else "{}"


def _disk_key(op, types, attrs, key):
    enabled, path = context.compile_cache_settings()
    if not enabled:
        return None
    try:
        from pycompile.backend.cache.store import open_store
        store = open_store(path)
        return None if store is None else _DiskKey(store, op, types, attrs, key[-1])
    except Exception as e:        # noqa: BLE001 - a cache that fails must not fail the program
        log.cache.info("PyNative %s: compile cache unusable (%s: %s)", op.name, type(e).__name__, e)
        return None


class _InputSignature:
    """A kernel input as the compile cache's layout check reads it (`_data.dtype`, `_data.shape`):
    a lookup happens before the call, from the input types alone."""

    __slots__ = ("_data",)

    def __init__(self, t: TensorType):
        import types as pytypes
        self._data = pytypes.SimpleNamespace(dtype=np.dtype(t.dtype.np), shape=tuple(t.shape))


def _signature_args(types) -> tuple:
    def one(t):
        if isinstance(t, TensorType):
            return _InputSignature(t)
        if isinstance(t, TupleType):
            return tuple(one(e) for e in t.elems)
        return None
    return tuple(one(t) for t in types)


def _disk_lookup(key: _DiskKey):
    from pycompile.backend.cache.entry import _lookup
    try:
        # the inputs' dtypes and shapes: the entry's layout is checked against its module's
        compiled, _ = _lookup(key.store, key, None, _signature_args(key.types), {})
    except Exception as e:        # noqa: BLE001
        log.cache.info("%s: compile cache lookup failed (%s: %s)", key.qualname, type(e).__name__, e)
        return None
    if compiled is not None:
        log.cache.info("compile cache hit for %s %s", key.qualname, key.components["signature"])
    return compiled


def _disk_store(key: _DiskKey, compiled) -> None:
    from pycompile.backend.cache.common import FORMAT, _sha
    store = key.store
    try:
        os.makedirs(store.blobs, mode=0o700, exist_ok=True)
        layout = compiled.layout.to_json(store.put_blob)
        with open(compiled.report.so_path, "rb") as f:
            so = store.put_blob(f.read(), ".so")
        meta = {"format": FORMAT, "created": time.time(), "components": key.components,
                "function": key.qualname, "where": key.where,
                "deps": {"files": {}, "sources": [], "reads": []}, "refs": [],
                "refs_digest": _sha(b"[]")[:16], "layout": layout, "so": so,
                "report": compiled.report.to_json(store.put_blob)}
        store.write_entry(key, meta)
    except Exception as e:        # noqa: BLE001 - OSError, a full disk: the program goes on
        log.cache.info("could not store %s in %s: %s: %s", key.qualname, store.dir, type(e).__name__, e)


@contextlib.contextmanager
def numpy_only():
    """PyNative runs `eager` (NumPy) for every op inside: the reference differential tests
    compare compiled code with, which would otherwise be the same C. Not thread-safe: it swaps
    the process's provider (and drops the plans made before)."""
    from pycompile.ops import _table
    saved = _table.EAGER_KERNELS[0]
    _table.EAGER_KERNELS[0] = None
    _table._PLANS.clear()
    try:
        yield
    finally:
        _table.EAGER_KERNELS[0] = saved
        _table._PLANS.clear()


KERNELS = EagerKernels(generic=True)


def install() -> None:
    """Make PyNative's `eager_kernel` ops run on these kernels (done when pycompile is imported)."""
    from pycompile.ops import _table
    _table.EAGER_KERNELS[0] = KERNELS
