"""The entry points of graph mode: `jit`, `pycompile.inspect`, and the call path of Cells in
GRAPH_MODE (installed into nn.Cell as its graph-call hook). MindSpore users import these as
`mindspore.common.api`: `pycompile.common.api` re-exports this module. This is the layer above
the backend: everything below reaches the compiler through it, never by importing upward.

Each call is specialized on its signature: the (shape, dtype) of every Tensor argument and the
value of every Python number / string / tuple of constants. The first call with a signature
compiles; later calls look the executable up in a dict and run it.
"""
from __future__ import annotations

import functools
import inspect as inspect_mod

import numpy as np

import pycompile.common as _common
from pycompile.backend import pipeline
from pycompile.common import context
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.errors import CompileError
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
    if isinstance(a, (np.number, np.bool_)):
        return (t, a.item())
    return ("obj", _Ident(a))


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


def _config_key():
    # Environment knobs (MS_DEV_SIDE_EFFECT_LOAD_ELIM, PYCOMPILE_OPT_LEVEL ...) are read when a
    # signature compiles, as MindSpore reads them; a call only checks the context's generation
    # (reading os.environ per call cost ~2 us of a ~5 us call)
    return context.generation()


def _signature(args, kwargs):
    key = tuple(_key(a) for a in args)
    if kwargs:
        key += tuple((k, _key(v)) for k, v in sorted(kwargs.items()))
    return key


def _compile_or_get(cache: dict, fn, args, kwargs, self_obj, name, extra=()):
    key = (_signature(args, kwargs), extra, _config_key())
    compiled = cache.get(key)
    if compiled is None:
        cache_enabled, cache_path = context.compile_cache_settings()
        try:
            if cache_enabled:
                from pycompile.backend.cache import compile_cached
                compiled = compile_cached(fn, args, kwargs, self_obj=self_obj, name=name, root=cache_path)
            else:
                compiled = pipeline.compile_call(fn, args, kwargs, self_obj=self_obj, name=name)
        except CompileError as e:
            raise e.with_traceback(None) from None
        cache[key] = compiled
    return compiled


class JitFunction:
    """A function compiled per call signature (`@jit` / `jit(fn)`). Used on a Cell's
    `construct`, it compiles per Cell instance."""

    _pycompile_jit = True

    def __init__(self, fn, input_signature=None):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.input_signature = input_signature
        self._cache: dict = {}

    def __call__(self, *args, **kwargs):
        compiled = _compile_or_get(self._cache, self.fn, args, kwargs, None, self.fn.__name__)
        return compiled.run(args, kwargs)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return BoundJit(self, obj)

    def compiled(self, *args, **kwargs):
        """The compile report for this signature (compiling if needed)."""
        return _compile_or_get(self._cache, self.fn, args, kwargs, None, self.fn.__name__).report


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
        return caches.setdefault(id(self.jf), {})

    def _name(self) -> str:
        return f"{type(self.obj).__name__}_{self.jf.fn.__name__}"

    def __call__(self, *args, **kwargs):
        extra = getattr(self.obj, "_attr_version", 0)
        compiled = _compile_or_get(self._cache(), self.jf.fn, args, kwargs, self.obj, self._name(), extra)
        return compiled.run(args, kwargs)

    def compiled(self, *args, **kwargs):
        extra = getattr(self.obj, "_attr_version", 0)
        return _compile_or_get(self._cache(), self.jf.fn, args, kwargs, self.obj, self._name(), extra).report


def jit(function=None, *, input_signature=None, mode="PSJit", jit_config=None, **kwargs):
    """Compile a function (or a Cell's construct) to native code. `@jit`, `@jit(...)` and
    `jit(fn)` all work, in GRAPH_MODE and PYNATIVE_MODE alike. The options MindSpore accepts
    (mode, jit_config, backend, ...) are accepted and do not change the result."""
    def wrap(fn):
        if isinstance(fn, type):
            raise TypeError("jit decorates functions and methods, not classes; use @jit_class for classes")
        if isinstance(fn, (JitFunction, BoundJit)):
            return fn
        if inspect_mod.ismethod(fn):
            # jit(net.construct): compile the method with its instance as `self`
            return BoundJit(JitFunction(fn.__func__, input_signature), fn.__self__)
        if not inspect_mod.isfunction(fn) and callable(fn):
            # a callable object (ms.grad(f), a functools.partial ...): compiled through a function
            # calling it, which the frontend walks like user code
            entry = _callable_entry(fn)
            jf = JitFunction(entry, input_signature)
            jf.__name__ = getattr(fn, "__name__", type(fn).__name__)
            return jf
        return JitFunction(fn, input_signature)
    if function is not None:
        return wrap(function)
    return wrap


def _callable_entry(target):
    def call(*args, **kwargs):
        return target(*args, **kwargs)
    return call


def compile_cell_call(cell, args, kwargs):
    """GRAPH_MODE: compile `cell.construct` for this signature (cached on the instance)."""
    cache = cell.__dict__.setdefault("_pycompile_graph_cache", {})
    construct = type(cell).construct
    compiled = _compile_or_get(cache, construct, args, kwargs, cell, f"{type(cell).__name__}_construct",
                               cell._attr_version)
    return compiled.run(args, kwargs)


def inspect(fn_or_cell, *args, **kwargs):
    """Compile `fn_or_cell` for these arguments (or reuse the compiled specialization) and return
    its CompileReport: .ir_before / .ir_after (MindSpore's text form), .c_source, .pass_stats,
    .times (trace, passes, codegen, cc, load), .temp_bytes, .copied_bytes, .summary()."""
    if isinstance(fn_or_cell, Cell):
        cache = fn_or_cell.__dict__.setdefault("_pycompile_graph_cache", {})
        return _compile_or_get(cache, type(fn_or_cell).construct, args, kwargs, fn_or_cell,
                               f"{type(fn_or_cell).__name__}_construct", fn_or_cell._attr_version).report
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


# Cells in GRAPH_MODE compile through this module; mindspore.common exports jit and friends
_cell.set_graph_call(compile_cell_call)
for _name in ("jit", "jit_class", "lazy_inline"):
    setattr(_common, _name, globals()[_name])
prefetch_compile_cache()
context.on_change(prefetch_compile_cache)
