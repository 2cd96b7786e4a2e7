"""The entry points of graph mode: `jit`, `pycompile.inspect`, and the call path of Cells in
GRAPH_MODE (installed into nn.Cell as its graph-call hook). MindSpore users import these as
`mindspore.common.api`: this module sets its names on `pycompile.common.api`. This is the layer
above the backend: everything below reaches the compiler through it, never by importing upward.

Each call is specialized on its signature: the (shape, dtype) of every Tensor argument and the
value of every Python number / string / tuple of constants. The first call with a signature
compiles; later calls look the executable up in a dict and run it.
"""
from __future__ import annotations

import functools
import inspect as inspect_mod
import time

import numpy as np

import pycompile.common as _common
from pycompile.common import api as _common_api
from pycompile.backend import pipeline
from pycompile import compile_log, jit_options
from pycompile.common import context, log
from pycompile.common.parameter import Parameter
from pycompile.common.sparse_tensor import SPARSE_TYPES
from pycompile.common.tensor import Tensor
from pycompile.ops.tracing import CONSTANT_INPUTS
from pycompile.errors import CompileError, InputValueNeeded
from pycompile.nn import cell as _cell
from pycompile.nn.cell import Cell
from pycompile.nn.decorators import jit_class, lazy_inline  # noqa: F401  (mindspore.common.api has them)


def _key(a):
    t = type(a)
    if t is Tensor:
        d = a._data
        return (d.dtype, d.shape)
    if t is int or t is float or t is bool or t is str or a is None:
        return (t, a)
    if t is tuple or t is list:
        return (t, tuple(_key(x) for x in a))
    if isinstance(a, Parameter):
        return ("param", id(a), a._data.shape, a._data.dtype)
    if isinstance(a, Tensor):
        d = a._data
        return (d.dtype, d.shape)
    if t is dict:
        return (t, tuple((k, _key(v)) for k, v in a.items()))
    if isinstance(a, SPARSE_TYPES):       # its parts are inputs (compiler/frontend.py trace), its shape static
        return (t, tuple(_key(p) for p in a.to_tuple()))
    if isinstance(a, (np.number, np.bool_)):
        return (t, a.item())
    if getattr(a, "__ms_mutable__", False) is True:
        return _mutable_key(a)
    return ("obj", _Ident(a))


def _mutable_key(a):
    """ms.mutable values: numbers by their run-time dtype only (not their value); containers by
    their structure (common/mutable.py)."""
    if isinstance(a, dict):
        return ("mutable", dict, tuple((k, _key(v)) for k, v in a.items()))
    if isinstance(a, (tuple, list)):
        return ("mutable", tuple if isinstance(a, tuple) else list, tuple(_key(x) for x in a))
    return ("mutable", "number", np.dtype(a._np_dtype))


class _Ident:
    """An argument keyed by identity. It holds the object, so its id cannot be reused by another
    object while the compiled code that baked it in is cached."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __hash__(self):
        return id(self.obj)

    def __eq__(self, other):
        return isinstance(other, _Ident) and other.obj is self.obj


def _positional_key(args) -> tuple:
    """`_key` of each positional argument, with a Tensor's (the common case) inlined: a call's
    whole signature costs ~0.15 us for one Tensor instead of ~0.45 us."""
    key = []
    for a in args:
        if type(a) is Tensor:
            d = a._data
            key.append((d.dtype, d.shape))
        else:
            key.append(_key(a))
    return tuple(key)


_generation = context.generation


def _no_match(args):
    return None


def _all_tensors(args) -> bool:
    for a in args:
        if type(a) is not Tensor:
            return False
    return True


def _config_key():
    # Environment knobs (MS_DEV_SIDE_EFFECT_LOAD_ELIM, PYCOMPILE_OPT_LEVEL ...) are read when a
    # signature compiles, as MindSpore reads them; a call only checks the context's generation
    # (reading os.environ per call cost ~2 us of a ~5 us call)
    return context.generation()


def _signature(args, kwargs):
    key = _positional_key(args)
    if kwargs:
        key += tuple((k, _key(v)) for k, v in sorted(kwargs.items()))
    return key


def _compile_or_get(cache: dict, fn, args, kwargs, self_obj, name, extra=(), dyn=None):
    values = getattr(cache, "value_positions", ())
    if dyn is not None and not values:
        compiled = _dynamic_or_none(cache, fn, args, kwargs, self_obj, name, extra, dyn)
        if compiled is not None:
            return compiled
    key = (_signature(args, kwargs), extra, _config_key())
    if values:
        key += (_value_key(args, kwargs, values),)
    compiled = cache.get(key)
    if compiled is None:
        try:
            compiled = _compile(cache, key, fn, args, kwargs, self_obj, name, constants=values)
        except InputValueNeeded as e:
            # an op needs this argument's value (paddings, a shape): compile per value from now on
            if e.position is None or e.position in values or not isinstance(cache, compile_log.SpecCache):
                raise
            cache.value_positions = tuple(sorted(values + (e.position,), key=str))
            return _compile_or_get(cache, fn, args, kwargs, self_obj, name, extra, dyn)
    return compiled


def _value_key(args, kwargs, positions) -> tuple:
    """The values of the arguments compiled as constants (errors.InputValueNeeded): positional
    indices and keyword arguments' names."""
    out = []
    for k in positions:
        a = (kwargs or {}).get(k) if isinstance(k, str) else args[k] if k < len(args) else None
        out.append((a._data.dtype.str, a._data.shape, a._data.tobytes()) if isinstance(a, Tensor) else _key(a))
    return tuple(out)


# ---- a run-time batch size (jit(dynamic=1), a None leading dimension in an input signature) ------

_STATIC = object()          # cached for a dynamic key whose graph needs a compile per batch size


def dynamic_spec(input_signature=None, dynamic=0):
    """None (static), "auto" (dynamic=1: the leading dimension shared by the Tensor arguments),
    or the positions whose signature Tensor has a None leading dimension."""
    if input_signature is not None:
        sig = input_signature if isinstance(input_signature, (tuple, list)) else (input_signature,)
        pos = tuple(k for k, t in enumerate(sig) if 0 in getattr(t, "dynamic_dims", ()))
        if pos:
            return pos
    return "auto" if dynamic else None


def _dynamic_positions(dyn, args):
    tensors = [k for k, a in enumerate(args) if isinstance(a, Tensor) and not isinstance(a, Parameter)
               and a._data.ndim >= 1]
    if dyn == "auto":
        if not tensors:
            return ()
        b = args[tensors[0]]._data.shape[0]
        return tuple(k for k in tensors if args[k]._data.shape[0] == b)
    return tuple(k for k in dyn if k in tensors)


def _dynamic_or_none(cache, fn, args, kwargs, self_obj, name, extra, dyn):
    """The executable compiled for any batch size of this call's dynamic arguments (compiling it
    on the first call), or None when this call takes the per-shape path."""
    pos = _dynamic_positions(dyn, args)
    if not pos or kwargs:
        return None
    b = args[pos[0]]._data.shape[0]
    if b < 1 or any(args[k]._data.shape[0] != b for k in pos):
        return None
    sig = tuple((a._data.dtype, (None,) + a._data.shape[1:]) if k in pos else _key(a) for k, a in enumerate(args))
    key = (("dynamic",) + sig, extra, _config_key())
    compiled = cache.get(key)
    if compiled is None:
        compiled = _compile(cache, key, fn, args, kwargs, self_obj, name, dynamic_positions=pos)
    return None if compiled is _STATIC else compiled


def _compile(cache: dict, key, fn, args, kwargs, self_obj, name, dynamic_positions=None, constants=()):
    """Compile one signature (a miss of the in-memory cache), logging it (common/log.py).
    `dynamic_positions`: compile for any leading dimension of those arguments (backend/dynamic.py);
    a graph that cannot be is logged once and cached as _STATIC (each batch size compiles)."""
    log.configure(context.get_context("log"))
    bound = self_obj is not None
    if isinstance(cache, compile_log.SpecCache):
        compile_log.before_compile(cache, fn, key, name, bound)
    cache_enabled, cache_path = context.compile_cache_settings()
    t0 = time.perf_counter()
    notice = compile_log.SlowNotice(lambda: f"{name}{compile_log.where(fn)} for "
                                            f"({compile_log.describe_signature(fn, key, bound)})",
                                    pipeline.current_stage)
    try:
        with notice:
            if dynamic_positions is not None:
                from pycompile.backend import dynamic
                try:
                    compiled = dynamic.compile_dynamic(fn, args, kwargs, dynamic_positions, self_obj=self_obj, name=name)
                except Exception as e:     # noqa: BLE001 - the per-shape compile reports real errors
                    why = str(e).splitlines()[0] if isinstance(e, dynamic.DynamicUnsupported) else \
                        f"{type(e).__name__} at a sample batch size: {str(e).splitlines()[0] if str(e) else ''}"
                    log.logger.warning("%s%s cannot be compiled once for every batch size (%s); each batch "
                                       "size compiles separately", name, compile_log.where(fn), why)
                    cache[key] = _STATIC
                    return _STATIC
            elif constants:
                # arguments traced by value (the on-disk cache keys by signature alone: not used)
                # (a copy: the caller's tensor may change in place after the compile)
                def freeze(k, a):
                    return Tensor._wrap(a._data.copy()) if k in constants and type(a) is Tensor else a
                frozen = tuple(freeze(k, a) for k, a in enumerate(args))
                frozen_kw = {k: freeze(k, a) for k, a in (kwargs or {}).items()}
                token = CONSTANT_INPUTS.set(frozenset((k,) for k in constants))
                try:
                    compiled = pipeline.compile_call(fn, frozen, frozen_kw, self_obj=self_obj, name=name)
                finally:
                    CONSTANT_INPUTS.reset(token)
                compiled.guarded = None         # its fast path checks shapes only
            elif cache_enabled:
                from pycompile.backend.cache import compile_cached
                compiled = compile_cached(fn, args, kwargs, self_obj=self_obj, name=name, root=cache_path)
            else:
                compiled = pipeline.compile_call(fn, args, kwargs, self_obj=self_obj, name=name)
    except CompileError as e:
        raise e.with_traceback(None) from None
    cache[key] = compiled
    if isinstance(cache, compile_log.SpecCache):
        compile_log.after_compile(cache, fn, key, name, bound, compiled, time.perf_counter() - t0)
    return compiled


class JitFunction:
    """A function compiled per call signature (`@jit` / `jit(fn)`). Used on a Cell's
    `construct`, it compiles per Cell instance."""

    _pycompile_jit = True

    def __init__(self, fn, input_signature=None, dynamic=0):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.input_signature = input_signature
        self.dynamic = dynamic
        self.dyn = dynamic_spec(input_signature, dynamic)
        self._cache: dict = compile_log.SpecCache()
        # the last signature called with Tensors alone: its compiled call, guarded by that
        # signature and the configuration generation (Compiled.guarded; None: no match)
        self._last = _no_match

    def __call__(self, *args, **kwargs):
        # the common case: the Tensors of the previous call's signature (checked in C), else
        # one key and one dict hit (the key _compile_or_get stores under), the specialization's
        # prebuilt caller either way
        if not kwargs and self.dyn is None:
            out = self._last(args)
            if out is not None:
                return out
            key = (_positional_key(args), (), _generation())
            compiled = self._cache.get(key)
            if compiled is None:
                compiled = _compile_or_get(self._cache, self.fn, args, kwargs, None, self.fn.__name__, (), None)
            if compiled.guarded is not None and _all_tensors(args):
                self._last = functools.partial(compiled.guarded, key[0], key[2])
            return compiled.run(args, kwargs)
        compiled = _compile_or_get(self._cache, self.fn, args, kwargs, None, self.fn.__name__, (), self.dyn)
        return compiled.run(args, kwargs)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return BoundJit(self, obj)

    def compiled(self, *args, **kwargs):
        """The compile report for this signature (compiling if needed)."""
        return _compile_or_get(self._cache, self.fn, args, kwargs, None, self.fn.__name__, (), self.dyn).report


class BoundJit:
    """`jit` on a method, bound to an instance: one cache per instance."""

    _pycompile_jit = True

    def __init__(self, jf: JitFunction, obj):
        self.jf = jf
        self.obj = obj
        self.__wrapped__ = jf.fn
        self.__name__ = jf.fn.__name__

    def _cache(self) -> dict:
        caches = self.obj.__dict__.setdefault("_pycompile_jit_caches", {})
        cache = caches.get(id(self.jf))
        if cache is None:
            cache = caches[id(self.jf)] = compile_log.SpecCache()
        return cache

    def _name(self) -> str:
        return f"{type(self.obj).__name__}_{self.jf.fn.__name__}"

    def __call__(self, *args, **kwargs):
        extra = self.obj._graph_key() if isinstance(self.obj, Cell) else getattr(self.obj, "_attr_version", 0)
        cache = self._cache()
        if not kwargs and self.jf.dyn is None:          # a seen signature: one key, one dict hit
            compiled = cache.get((_positional_key(args), extra, _generation()))
            if compiled is not None:
                return compiled.run(args, kwargs)
        compiled = _compile_or_get(cache, self.jf.fn, args, kwargs, self.obj, self._name(), extra, self.jf.dyn)
        return compiled.run(args, kwargs)

    def compiled(self, *args, **kwargs):
        extra = self.obj._graph_key() if isinstance(self.obj, Cell) else getattr(self.obj, "_attr_version", 0)
        return _compile_or_get(self._cache(), self.jf.fn, args, kwargs, self.obj, self._name(), extra,
                               self.jf.dyn).report


def jit(function=None, *, capture_mode="ast", jit_level="O0", dynamic=0, fullgraph=False, backend="",
        **options):
    """Compile a function (or a Cell's construct) to native code. `@jit`, `@jit(...)` and
    `jit(fn)` all work, in GRAPH_MODE and PYNATIVE_MODE alike. The keywords are MindSpore
    2.10's, checked as it checks them (jit_options.py); `dynamic=1`, or an `input_signature`
    Tensor with a None dimension, compiles a varying leading (batch) dimension once."""
    opts = jit_options.validate(capture_mode, jit_level, dynamic, fullgraph, backend, options)

    def wrap(fn):
        if isinstance(fn, type):
            raise TypeError("jit decorates functions and methods, not classes; use @jit_class for classes")
        if isinstance(fn, (JitFunction, BoundJit)):
            return fn
        if inspect_mod.ismethod(fn):
            # jit(net.construct): compile the method with its instance as `self`
            return BoundJit(JitFunction(fn.__func__, opts.input_signature, opts.dynamic), fn.__self__)
        if not inspect_mod.isfunction(fn) and callable(fn):
            # a callable object (ms.grad(f), a functools.partial ...): compiled through a function
            # calling it, which the frontend walks like user code
            entry = _callable_entry(fn)
            jf = JitFunction(entry, opts.input_signature, opts.dynamic)
            jf.__name__ = getattr(fn, "__name__", type(fn).__name__)
            return jf
        return JitFunction(fn, opts.input_signature, opts.dynamic)
    if function is not None:
        return wrap(function)
    return wrap


from pycompile.ops.autodiff import api as _autodiff_api  # noqa: E402  (grad of graph code compiles through jit)
_autodiff_api.JIT[:] = [jit]
from pycompile.compiler import autodiff as _graph_autodiff  # noqa: E402
from pycompile.ops.autodiff import saved_hooks as _saved_hooks  # noqa: E402
_saved_hooks.PROBE[:] = [_graph_autodiff.gradient_reads]     # which saved tensors a gradient rule reads


def _callable_entry(target):
    def call(*args, **kwargs):
        return target(*args, **kwargs)
    return call


def _graph_cache(cell) -> dict:
    cache = cell.__dict__.get("_pycompile_graph_cache")
    if cache is None:
        cache = cell.__dict__["_pycompile_graph_cache"] = compile_log.SpecCache()
    return cache


def compile_cell_call(cell, args, kwargs):
    """GRAPH_MODE: compile `cell.construct` for this signature (cached on the instance)."""
    cache = _graph_cache(cell)
    extra = cell._graph_key()
    dyn = dynamic_spec(cell._input_signature)
    if not kwargs and dyn is None:          # a seen signature: one key, one dict hit
        compiled = cache.get((_positional_key(args), extra, _generation()))
        if compiled is not None:
            return compiled.run(args, kwargs)
    compiled = _compile_or_get(cache, type(cell).construct, args, kwargs, cell, f"{type(cell).__name__}_construct",
                               extra, dyn)
    return compiled.run(args, kwargs)


def inspect(fn_or_cell, *args, **kwargs):
    """Compile `fn_or_cell` for these arguments (or reuse the compiled specialization) and return
    its CompileReport: .ir_before / .ir_after (MindSpore's text form), .c_source, .pass_stats,
    .times (trace, passes, codegen, cc, load), .temp_bytes, .copied_bytes, .summary()."""
    if isinstance(fn_or_cell, Cell):
        cache = _graph_cache(fn_or_cell)
        return _compile_or_get(cache, type(fn_or_cell).construct, args, kwargs, fn_or_cell,
                               f"{type(fn_or_cell).__name__}_construct", fn_or_cell._graph_key()).report
    if isinstance(fn_or_cell, (JitFunction, BoundJit)):
        return fn_or_cell.compiled(*args, **kwargs)
    # a plain function keeps its compiled specializations on itself (a cycle the GC collects with
    # the function), so a second inspect() of the same signature reuses the first
    jf = getattr(fn_or_cell, "_pycompile_inspected", None)
    if not isinstance(jf, JitFunction):
        jf = jit(fn_or_cell)
        try:
            fn_or_cell._pycompile_inspected = jf
        except (AttributeError, TypeError):     # a builtin or a slotted callable: not kept
            pass
    return jf.compiled(*args, **kwargs)


def prefetch_compile_cache(changed=None) -> None:
    """With the compile cache switched on (set_context or MS_COMPILER_CACHE_ENABLE), load the cache
    code and the JSON codec now, as MindSpore sets its cache up in set_context, rather than inside
    the first compiled call, which a cache hit should make take a couple of milliseconds."""
    if context.compile_cache_settings()[0]:
        import pycompile.backend.cache  # noqa: F401


# Cells in GRAPH_MODE compile through this module; mindspore.common and mindspore.common.api
# export jit and friends (common cannot import them from up here)
_cell.set_graph_call(compile_cell_call, lambda cell, args, kwargs: inspect(cell, *args, **kwargs))
for _name in ("jit", "jit_class", "lazy_inline"):
    setattr(_common, _name, globals()[_name])
for _name in ("BoundJit", "JitFunction", "inspect", "jit", "jit_class", "lazy_inline"):
    setattr(_common_api, _name, globals()[_name])
prefetch_compile_cache()
context.on_change(prefetch_compile_cache)


def run_check():
    """Compile and run `[1, 1] + [1, 1]`, then print MindSpore's success message."""
    import numpy as np

    from pycompile._version import __version__
    from pycompile.common.tensor import Tensor
    from pycompile.ops import functional as F

    def add(a, b):
        return F.add(a, b)

    out = jit(add)(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float32)))
    if not np.array_equal(out.asnumpy(), [2.0, 2.0]):
        raise RuntimeError(f"pycompile's self-test computed {out.asnumpy()} instead of [2. 2.]")
    print(f"MindSpore version: {__version__} (pycompile)")
    print("The result of multiplication calculation is correct, MindSpore has been installed on platform [CPU] "
          "successfully!")
