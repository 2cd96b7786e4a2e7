"""The on-disk compile cache: a second process compiling the same program loads the shared object
built by the first one and skips the frontend, the passes and the C compiler.

Enabling it (the context wins over the environment, as MindSpore's spec says):

    set_context(enable_compile_cache=True, compile_cache_path="my_compile_cache")
    MS_COMPILER_CACHE_ENABLE=1 MS_COMPILER_CACHE_PATH=my_compile_cache python train.py

The path defaults to ~/.cache/pycompile. PYCOMPILE_CACHE_EXPLAIN=1 prints to stderr why each
compile missed the cache (which part of the key changed versus the closest entry of the same
function); PYCOMPILE_CACHE_EXPLAIN=2 also reports hits. Every report carries the same text in
`report.cache_reason` and `report.cache` is "disk" on a hit, "miss" otherwise.

Key: two levels, as in Triton
-----------------------------
"Skips the frontend" means the key cannot come from the traced graph. The *lookup key* is
computed before tracing, from what is at hand when a call arrives:

  pycompile   package version, Python and NumPy versions, and a fingerprint (path, size, mtime)
              of pycompile's own files and C headers: editing the compiler invalidates entries
  compiler    the C compiler's resolved path and version line (memoized in the cache directory
              by the binary's path, size and mtime, so a hit does not run `cc --version`)
  flags       the compiler flags (toolchain.BASE_FLAGS)
  cpu         machine and CPU features (/proc/cpuinfo model name + flags): -march=native
  options     pipeline.options() (MS_DEV_SIDE_EFFECT_LOAD_ELIM level, opt level, float status)
              and the device target
  function    the entry function's module:qualname and the graph name
  source      the entry function's source text and first line
  closure     fingerprints of the entry function's closure values and default arguments
  signature   the call signature: (dtype, shape) of each Tensor argument, the value of each
              Python scalar / string / tuple, name + shape of each Parameter argument
  self        the fingerprint of the root Cell (or bound object): classes, every attribute of
              every sub-Cell (constants by value, Tensors by content hash, Parameters by name,
              dtype and shape, `training`), recursively

An entry then records the *dependencies* the frontend discovered while tracing (through the
`frontend.DEPS` recorder hooks): the source text of every user function parsed and of every user
class whose instances or attributes were used (file, first line, hash of the block, plus a hash
of each whole file as a fast path), and every global, module attribute and class attribute read,
with a fingerprint of its value. A hit is valid only if every recorded dependency still matches
in the new process. Values are fingerprinted structurally (numbers by value, Tensors / arrays by
content hash, functions by module, qualname, line and closure values, objects by class and
attributes); a value that cannot be fingerprinted stably (an object whose repr is its address)
makes the call uncacheable: it always compiles, and the reason says why.

Layout (all under <path>/pycompile-v1, created 0700):

  <qualname>-<hash>/<lookup key>/<entry id>.entry   one entry per dependency set
  blobs/<sha256>.so | .npy | .json                  content-addressed payloads
  toolchain.json                                    memo of `cc --version` by binary stat

An entry file is one header line `pycompile-cache-entry <sha256 of body> <body size>` followed by
a JSON body: the key components, the dependencies, the calling layout (input paths, output tree,
output dtypes / shapes and which are Python scalars, arena size, runtime error messages), where
each Parameter the executable reads is found again (its path in the root Cell's
parameters_and_names(), in a module-level Cell or Parameter, or in the arguments), and the blobs:
the shared object, the large constants (.npy) and the report texts (IR before / after, C source:
read on first use by `pycompile.inspect` / `report.ir_before`). A Parameter that cannot be found
again (say, a jit function that builds a Cell inside itself) makes the call uncacheable.

Safety: every file is written to a temp file in its directory, fsynced, and `os.replace`d, so a
reader only sees complete files; payloads are named by their hash, so two processes compiling
the same program at once both succeed (the last entry written wins, and it only names blobs that
exist). Before anything is loaded the entry's body hash and size and every blob's hash and size
are verified; a corrupt, truncated or stale entry (another pycompile version, a different key)
is reported with a CompileCacheWarning naming the entry and the reason, deleted, and rebuilt. The
cache directory must belong to the user: one that belongs to someone else (or a world-writable
parent owned by someone else, without the sticky bit) is refused with a warning, one of ours that
other users can read or write is set back to 0700 with a warning.

Cost of a hit: computing the lookup key (stats of pycompile's files, the entry function's source
lines, fingerprints), reading and verifying the entry and its payloads, checking the recorded
dependencies, dlopen: 1-3 ms for the spec's sample, against 60-300 ms for a cold compile. The
cache code is imported when the cache is switched on (runtime.prefetch_compile_cache, on
set_context or at import with MS_COMPILER_CACHE_ENABLE=1), not inside the first call. On a hit
report.times holds key / check / load instead of trace / passes / codegen / cc, and
report.graph_before / graph_after are rebuilt by tracing again if someone asks for them.

A lookup key keeps its 8 newest entries. When older ones are evicted, the payloads no entry names
any more are deleted if they are more than an hour old (a process between writing its payloads
and its entry keeps them; a payload reused by a new compile has its time refreshed);
`cache.collect(path)` does the same at once, with no age limit.
"""
from __future__ import annotations

import builtins
import functools
import hashlib
import json
import os
import stat
import sys
import time
import types
import warnings

import numpy as np

from pycompile._version import __version__
from pycompile.backend import devices, pipeline, toolchain
from pycompile.backend.devices import current as current_device
from pycompile.backend.pipeline import CompileReport, Compiled
from pycompile.common import context
from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor

FORMAT = 1
SUBDIR = f"pycompile-v{FORMAT}"
MAGIC = b"pycompile-cache-entry"
MAX_ENTRIES_PER_KEY = 8
GC_GRACE_SECONDS = 3600            # payloads younger than this are never collected


class CompileCacheWarning(UserWarning):
    """A cache entry was corrupt or stale and is rebuilt, or the cache directory is unusable."""


class Uncacheable(Exception):
    """This call cannot be cached (the reason is the message); it is compiled as usual."""


class _Absent:
    def __repr__(self):
        return "<absent>"


ABSENT = _Absent()


def _sha(data) -> str:
    return hashlib.sha256(data).hexdigest()


def _explain_level() -> int:
    v = os.environ.get("PYCOMPILE_CACHE_EXPLAIN", "").strip().lower()
    if v in ("", "0", "false", "off", "no"):
        return 0
    return 2 if v == "2" else 1


def _warn(msg: str) -> None:
    warnings.warn(f"pycompile compile cache: {msg}", CompileCacheWarning, stacklevel=4)


def _is_library_module(mod) -> bool:
    return isinstance(mod, str) and (mod == "pycompile" or mod.startswith("pycompile."))


# ---- fingerprints of Python values ------------------------------------------------------------------

_CELL_SKIP = frozenset({"_params", "_cells", "_compiled", "_attr_version", "_lazy_inline_version",
                        "cell_init_args", "_input_signature"})
_STDLIB_DIR = os.path.dirname(os.__file__)
_SKIP_SOURCE_TOP = frozenset({"pycompile", "numpy", "cffi"})


_FILE_SHA: dict = {}


def _file_sha(path: str):
    """Hash of a source file (None if it cannot be read), memoized by its size and mtime."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
    hit = _FILE_SHA.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        with open(path, "rb") as f:
            sha = _sha(f.read())
    except OSError:
        return None
    _FILE_SHA[path] = (stamp, sha)
    return sha


class Fingerprinter:
    """Structural fingerprints of values, stable across processes. With collect=True it also
    records the source (file, first line, hash) of every user function and class it meets."""

    def __init__(self, collect: bool = False):
        self.collect = collect
        self.sources: dict = {}          # (file, line, qualname) -> sha of the block
        self.files: dict = {}            # file -> sha of the whole file
        self._seen_src: dict = {}        # id -> object (kept alive)
        self._memo: dict = {}            # id -> (object, fingerprint)
        self._active: set = set()

    def hash(self, v) -> str:
        return _sha(repr(self.fp(v)).encode())[:32]

    def fp(self, v, depth: int = 0):
        t = type(v)
        if v is None or t is bool or t is int or t is float or t is str or t is complex or t is bytes:
            return (t.__name__, repr(v))
        if depth > 60:
            raise Uncacheable("a value is nested too deeply to fingerprint")
        if t is tuple or t is list:
            return (t.__name__, tuple(self.fp(x, depth + 1) for x in v))
        key = id(v)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is v:
            return hit[1]
        if key in self._active:
            return ("cycle",)
        self._active.add(key)
        try:
            r = self._fp_object(v, depth + 1)
        finally:
            self._active.discard(key)
        self._memo[key] = (v, r)
        return r

    def _state(self, d, depth, skip=frozenset()):
        return tuple((k, self.fp(x, depth)) for k, x in d.items()
                     if k not in skip and not (isinstance(k, str) and k.startswith("_pycompile")))

    def _fp_object(self, v, depth):
        from pycompile.nn.cell import Cell
        if isinstance(v, dict):
            return ("dict", tuple((self.fp(k, depth), self.fp(x, depth)) for k, x in v.items()))
        if isinstance(v, (set, frozenset)):
            return (type(v).__name__, tuple(sorted(repr(self.fp(x, depth)) for x in v)))
        if isinstance(v, Parameter):
            d = v._data
            return ("param", v.name, d.dtype.str, d.shape, bool(v.requires_grad))
        if isinstance(v, Tensor):
            return ("tensor", _array_fp(v._data))
        if isinstance(v, np.ndarray):
            return ("ndarray", _array_fp(v))
        if isinstance(v, np.generic):
            return ("npscalar", v.dtype.str, repr(v.item()))
        if isinstance(v, np.dtype):
            return ("npdtype", v.str)
        if isinstance(v, mstype.DType):
            return ("dtype", v.name)
        if isinstance(v, types.ModuleType):
            return ("module", v.__name__)
        if isinstance(v, type):
            return self._fp_class(v)
        if isinstance(v, types.FunctionType):
            return self._fp_function(v, depth)
        if isinstance(v, types.MethodType):
            return ("method", self.fp(v.__func__, depth), self.fp(v.__self__, depth))
        if isinstance(v, (types.BuiltinFunctionType, types.MethodWrapperType, types.WrapperDescriptorType,
                          types.MethodDescriptorType, types.ClassMethodDescriptorType)):
            owner = getattr(v, "__self__", None)
            owner_fp = None if owner is None or isinstance(owner, types.ModuleType) else self.fp(owner, depth)
            return ("builtin", getattr(v, "__module__", None) or "", getattr(v, "__qualname__", v.__name__), owner_fp)
        if isinstance(v, functools.partial):
            return ("partial", self.fp(v.func, depth), self.fp(v.args, depth), self.fp(v.keywords, depth))
        if isinstance(v, (staticmethod, classmethod)):
            return (type(v).__name__, self.fp(v.__func__, depth))
        if isinstance(v, property):
            return ("property", self.fp(v.fget, depth), self.fp(v.fset, depth), self.fp(v.fdel, depth))
        if isinstance(v, np.ufunc):
            return ("ufunc", v.__name__)
        if isinstance(v, (range, slice)) or v is Ellipsis or v is NotImplemented:
            return ("repr", repr(v))
        import enum
        if isinstance(v, enum.Enum):
            return ("enum", self._fp_class(type(v)), v.name)
        if isinstance(v, Cell):
            return ("cell", self._fp_class(type(v)), self._state(v.__dict__, depth, _CELL_SKIP))
        if getattr(v, "_pycompile_jit", False):
            jf = getattr(v, "jf", v)
            return ("jit", self.fp(getattr(jf, "fn", None), depth), self.fp(getattr(v, "obj", None), depth))
        cls_fp = self._fp_class(type(v))
        d = getattr(v, "__dict__", None)
        slots = [s for k in type(v).__mro__ for s in _slots_of(k)]
        if isinstance(d, dict) or slots:
            state = self._state(d, depth) if isinstance(d, dict) else ()
            slot_state = tuple((s, self.fp(getattr(v, s, ABSENT), depth)) for s in slots
                               if s not in ("__dict__", "__weakref__"))
            return ("obj", cls_fp, state, slot_state)
        r = repr(v)
        if " at 0x" in r or " object at " in r:
            raise Uncacheable(f"a value of type {type(v).__qualname__} has no stable fingerprint ({r[:60]})")
        return ("repr", cls_fp, r)

    def _fp_class(self, cls):
        mod = getattr(cls, "__module__", "")
        if _is_library_module(mod) or mod == "builtins":
            return ("class", mod, cls.__qualname__)
        if self.collect:
            for k in cls.__mro__:
                if k is not object and not _is_library_module(getattr(k, "__module__", "")):
                    self.add_source(k)
        return ("class", mod, cls.__qualname__,
                tuple(f"{k.__module__}.{k.__qualname__}" for k in cls.__mro__[1:]))

    def _fp_function(self, f, depth):
        mod = getattr(f, "__module__", None) or ""
        if _is_library_module(mod):
            return ("libfn", mod, f.__qualname__)
        code = f.__code__
        if self.collect:
            self.add_source(f)
        clo = ()
        if f.__closure__:
            cells = []
            for name, c in zip(code.co_freevars, f.__closure__):
                try:
                    cells.append((name, self.fp(c.cell_contents, depth)))
                except ValueError:
                    cells.append((name, ("empty",)))
            clo = tuple(cells)
        return ("fn", mod, f.__qualname__, code.co_filename, code.co_firstlineno, clo,
                self.fp(f.__defaults__, depth), self.fp(f.__kwdefaults__, depth))

    def add_source(self, obj) -> None:
        """Record the source block of a user function or class (file, first line, hash)."""
        from pycompile.compiler.frontend import unwrap
        obj = unwrap(obj)
        key = id(obj)
        if key in self._seen_src:
            return
        self._seen_src[key] = obj
        mod = getattr(obj, "__module__", None) or ""
        if mod.split(".")[0] in _SKIP_SOURCE_TOP:
            return
        import inspect
        try:
            if isinstance(obj, type):
                lines, start, path = _class_source(obj)
            else:
                lines, start = inspect.getsourcelines(obj)
                path = inspect.getsourcefile(obj)
        except (OSError, TypeError, SyntaxError):
            return
        if not path or path.startswith(_STDLIB_DIR + os.sep):
            return
        path = os.path.abspath(path)
        self.sources[(path, start, obj.__qualname__)] = _sha("".join(lines).encode())
        if path not in self.files:
            self.files[path] = _file_sha(path)


_CLASS_LINES: dict = {}


def _class_source(cls):
    """(lines, first line, file) of a class: inspect.getsourcelines parses the whole file again for
    every class; here each file is parsed once."""
    import inspect
    import linecache
    path = inspect.getsourcefile(cls)
    if not path:
        raise OSError("no source file")
    start = getattr(cls, "__firstlineno__", None)
    if start is None:
        sha = _file_sha(path)
        table = _CLASS_LINES.get(path)
        if table is None or table[0] != sha:
            table = _CLASS_LINES[path] = (sha, _class_lines(path))
        start = table[1].get(cls.__qualname__)
        if start is None:
            raise OSError(f"class {cls.__qualname__} not found in {path}")
    linecache.checkcache(path)
    lines = linecache.getlines(path)
    return inspect.getblock(lines[start - 1:]), start, path


def _class_lines(path: str) -> dict:
    """qualname -> first line (decorators included) of every class defined in a file."""
    import ast
    with open(path, "rb") as f:
        tree = ast.parse(f.read())
    out = {}

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                q = prefix + child.name
                out[q] = min([child.lineno] + [d.lineno for d in child.decorator_list])
                walk(child, q + ".")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(child, prefix + child.name + ".<locals>.")
            else:
                walk(child, prefix)
    walk(tree, "")
    return out


def _slots_of(k):
    s = k.__dict__.get("__slots__", ())
    return (s,) if isinstance(s, str) else tuple(s)


def _array_fp(a: np.ndarray):
    if a.dtype.hasobject:
        raise Uncacheable("an object array has no stable fingerprint")
    return (a.dtype.str, a.shape, _sha(np.ascontiguousarray(a).tobytes())[:32])


def _global_value(g: dict, name: str):
    if name in g:
        return g[name]
    b = g.get("__builtins__", builtins)
    b = b if isinstance(b, dict) else getattr(b, "__dict__", {})
    return ("<builtin>", name) if name in b else ABSENT


def _class_attr(cls, name):
    """(owner class, raw value) of `name` looked up along the MRO (ABSENT when missing)."""
    for k in cls.__mro__:
        if name in k.__dict__:
            return k, k.__dict__[name]
    return None, ABSENT


class DepsRecorder:
    """Installed in frontend.DEPS while tracing: what the traced code read at compile time."""

    def __init__(self):
        self.fp = Fingerprinter(collect=True)
        self.reads: dict = {}            # ("global", module, name) / ("classattr", module, qualname, attr) -> hash
        self.roots: dict = {}            # (module, name) -> a Cell or Parameter read from a module
        self.problem: str | None = None  # why the entry cannot be cached

    def _guard(self, f, *a):
        if self.problem is not None:
            return
        try:
            f(*a)
        except Uncacheable as e:
            self.problem = str(e)
        except Exception as e:  # a recorder must never break a compile
            self.problem = f"cannot record a dependency: {type(e).__name__}: {e}"

    # hooks called by the frontend
    def function(self, fn) -> None:
        self._guard(self.fp.add_source, fn)

    def global_read(self, g: dict, name: str) -> None:
        self._guard(self._global, g, name)

    def attribute(self, obj, name, value) -> None:
        self._guard(self._attribute, obj, name)

    def _global(self, g, name):
        mod = g.get("__name__")
        if not isinstance(mod, str):
            raise Uncacheable(f"global '{name}' is read from a namespace without a module name")
        if _is_library_module(mod):
            return
        key = ("global", mod, name)
        if key in self.reads:
            return
        value = _global_value(g, name)
        self.reads[key] = self.fp.hash(value)
        from pycompile.nn.cell import Cell
        if isinstance(value, (Cell, Parameter)):
            self.roots[(mod, name)] = value

    def _attribute(self, obj, name):
        if not isinstance(name, str):
            return
        if isinstance(obj, types.ModuleType):
            if sys.modules.get(obj.__name__) is not obj:
                raise Uncacheable(f"module {obj.__name__} is not in sys.modules")
            self._global(obj.__dict__, name)
            return
        if isinstance(obj, type):
            self._classattr(obj, name)
            return
        if isinstance(obj, (super, Tensor)) or _is_library_module(type(obj).__module__):
            return          # library types are part of the pycompile version; Tensors are values
        d = getattr(obj, "__dict__", None)
        if isinstance(d, dict) and name in d:
            return          # instance state: part of the fingerprint of whatever held the instance
        self._classattr(type(obj), name)

    def _classattr(self, cls, name):
        owner, raw = _class_attr(cls, name)
        if owner is not None and _is_library_module(owner.__module__):
            return
        if _is_library_module(cls.__module__) and owner is None:
            return
        key = ("classattr", cls.__module__, cls.__qualname__, name)
        if key in self.reads:
            return
        if "<locals>" in cls.__qualname__:
            raise Uncacheable(f"class {cls.__qualname__} is defined inside a function")
        self.reads[key] = self.fp.hash(raw)

    def deps(self) -> dict:
        return {"files": dict(sorted(self.fp.files.items())),
                "sources": sorted([list(k) + [v] for k, v in self.fp.sources.items()]),
                "reads": sorted([list(k) + [v] for k, v in self.reads.items()])}


# ---- the lookup key ----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _installation() -> str:
    """pycompile's version and a fingerprint (path, size, mtime) of its files and C headers."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    rows = []
    roots = [here]
    try:
        roots += list(toolchain.include_dirs())
    except toolchain.ToolchainError:
        pass                      # headers missing: the compile itself reports it
    for root in roots:
        stack = [root]
        while stack:
            d = stack.pop()
            try:
                it = list(os.scandir(d))
            except OSError:
                continue
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    if e.name != "__pycache__" and not e.name.startswith("."):
                        stack.append(e.path)
                elif e.name.endswith((".py", ".h", ".c", ".so")):
                    st = e.stat()
                    rows.append(f"{e.path}:{st.st_size}:{st.st_mtime_ns}")
    rows.sort()
    py = ".".join(map(str, sys.version_info[:3]))
    files = _sha("\n".join(rows).encode())[:16]
    return f"pycompile {__version__}, Python {py}, NumPy {np.__version__}, files {files}"


@functools.lru_cache(maxsize=None)
def _cpu() -> str:
    import platform
    model, flags = "", ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                k, _, v = line.partition(":")
                k = k.strip()
                if k == "model name":
                    model = v.strip()
                elif k in ("flags", "Features"):
                    flags = v.strip()
    except OSError:
        model = platform.processor()
    return f"{platform.machine()} {model} features {_sha(flags.encode())[:16]}"


def _which(cmd: str):
    if os.sep in cmd:
        return cmd if os.access(cmd, os.X_OK) else None
    for d in os.environ.get("PATH", os.defpath).split(os.pathsep):
        p = os.path.join(d or ".", cmd)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


_CC_MEMO: dict = {}


def _compiler(store: "Store") -> str:
    """The C compiler's path and version line, memoized by the binary's stat in toolchain.json."""
    cc = os.environ.get("CC", "cc")
    path = _which(cc)
    if path is None:
        return f"{cc} (not found)"
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError:
        return f"{cc} (not found)"
    memo_key = f"{path}|{real}|{st.st_size}|{st.st_mtime_ns}"
    ident = _CC_MEMO.get(memo_key)
    if ident is not None:
        return ident
    memo_path = os.path.join(store.dir, "toolchain.json")
    try:
        with open(memo_path) as f:
            memo = json.load(f)
        if not isinstance(memo, dict):
            memo = {}
    except (OSError, ValueError):
        memo = {}
    ident = memo.get(memo_key)
    if not isinstance(ident, str):
        full = toolchain.compiler_identity()
        ident = " | ".join(full.split(" | ")[:2])
        memo[memo_key] = ident
        try:
            _atomic_write(memo_path, json.dumps(memo, indent=1, sort_keys=True).encode())
        except OSError:
            pass
    _CC_MEMO[memo_key] = ident
    return ident


def _sig(v):
    t = type(v)
    if v is None or t is bool or t is int or t is float or t is str:
        return repr(v)
    if isinstance(v, Parameter):
        return f"Parameter({v.name}, {v._data.dtype}{list(v._data.shape)})"
    if isinstance(v, Tensor):
        return f"Tensor({v._data.dtype}{list(v._data.shape)})"
    if isinstance(v, (np.number, np.bool_)):
        return f"{v.dtype}({v.item()!r})"
    if t is tuple or t is list:
        inner = ", ".join(_sig(x) for x in v)
        return f"({inner},)" if t is tuple else f"[{inner}]"
    if t is dict:
        return "{" + ", ".join(f"{k!r}: {_sig(x)}" for k, x in v.items()) + "}"
    raise Uncacheable(f"an argument of type {t.__qualname__} (only Tensors, Parameters, numbers, strings "
                      f"and tuples / lists / dicts of them are cacheable arguments)")


def _short(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[:160] + "... #" + _sha(text.encode())[:16]


class LookupKey:
    """The key computable before tracing: components (name -> text) and its hash."""

    def __init__(self, fn, args, kwargs, self_obj, name, store: "Store"):
        f = fn
        for _ in range(10):
            if not hasattr(f, "__wrapped__"):
                break
            f = f.__wrapped__
        code = getattr(f, "__code__", None)
        if code is None:
            raise Uncacheable(f"{fn!r} is not a Python function")
        self.fn = f
        self.qualname = f"{f.__module__}:{f.__qualname__}"
        self.where = f"{_rel(code.co_filename)}:{code.co_firstlineno}"
        self.source_text = _entry_source(f)
        fpr = Fingerprinter()
        opts = dict(pipeline.options())
        opts["device"] = current_device().name
        sig = "(" + ", ".join([_sig(a) for a in args] + [f"{k}={_sig(v)}" for k, v in sorted(kwargs.items())]) + ")"
        self.components = {
            "format": str(FORMAT),
            "pycompile": _installation(),
            "compiler": _compiler(store),
            "flags": " ".join(toolchain.BASE_FLAGS),
            "cpu": _cpu(),
            "options": json.dumps(opts, sort_keys=True),
            "function": f"{self.qualname} as {name}",
            "source": f"{code.co_firstlineno}:{_sha(self.source_text.encode())[:32]}",
            "closure": fpr.hash((fpr.fp(f.__closure__ and tuple(_cell(c) for c in f.__closure__)),
                                 fpr.fp(f.__defaults__), fpr.fp(f.__kwdefaults__))),
            "signature": _short(sig),
            "self": "" if self_obj is None else f"{type(self_obj).__qualname__} {fpr.hash(self_obj)}",
        }
        self.digest = _sha(json.dumps(self.components, sort_keys=True).encode())[:40]
        self.fn_dir = f"{_safe(f.__qualname__)[:40]}-{_sha(self.components['function'].encode())[:12]}"


def _cell(c):
    try:
        return c.cell_contents
    except ValueError:
        return ABSENT


def _entry_source(f) -> str:
    """The entry function's source lines, from its first line (decorators included) to the last
    line of its code: no tokenizer (its first use costs ~10 ms, more than a whole cache hit)."""
    import linecache
    code = f.__code__
    linecache.checkcache(code.co_filename)
    lines = linecache.getlines(code.co_filename)
    last = _last_line(code)
    if not lines or last > len(lines):
        raise Uncacheable(f"the source of {f.__qualname__} is not available")
    return "".join(lines[code.co_firstlineno - 1:last])


def _last_line(code) -> int:
    last = code.co_firstlineno
    if hasattr(code, "co_positions"):
        ends = [p[1] for p in code.co_positions() if p[1] is not None]
    else:  # Python < 3.11
        ends = [line for _, _, line in code.co_lines() if line is not None]
    last = max([last, *ends])
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            last = max(last, _last_line(c))
    return last


def _rel(path: str) -> str:
    try:
        r = os.path.relpath(path)
        return r if not r.startswith("..") else path
    except ValueError:
        return path


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_." else "_" for c in name) or "fn"


_COMPONENT_MESSAGES = {
    "format": "the cache format changed",
    "pycompile": "the pycompile version or installation changed",
    "compiler": "the C compiler changed",
    "flags": "the compiler flags changed",
    "cpu": "the CPU features changed",
    "options": "compile options changed",
    "function": "another function",
    "source": "source of {fn} changed",
    "closure": "captured values (closure cells / default arguments) of {fn} changed",
    "signature": "signature changed",
    "self": "state of the {cls} instance changed (attributes, sub-Cells or Parameter shapes)",
}


def _describe(name: str, old: str, new: str, key: LookupKey) -> str:
    msg = _COMPONENT_MESSAGES.get(name, f"{name} changed").format(
        fn=f"{key.where.split(':')[0]}:{key.fn.__qualname__}", cls=new.split(" ")[0] if new else "bound")
    if name in ("signature", "options", "compiler", "pycompile"):
        msg += f": {old} -> {new}"
    return msg


# ---- files --------------------------------------------------------------------------------------------

def _atomic_write(path: str, data: bytes) -> None:
    """Write to a temp file in the same directory, fsync, and rename over `path`."""
    import tempfile
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class CorruptEntry(Exception):
    pass


_STORES: dict = {}


def open_store(path: str):
    """The cache directory <path>/pycompile-v1, created private; None (with a warning) if unusable."""
    path = os.path.abspath(os.path.expanduser(path))
    if path in _STORES:
        return _STORES[path]
    store = None
    try:
        store = Store(path)
    except OSError as e:
        _warn(f"cannot use the cache directory {path}: {e}; compiling without the cache")
    except _Refused as e:
        _warn(f"{e}; compiling without the cache")
    _STORES[path] = store
    return store


class _Refused(Exception):
    pass


class Store:
    def __init__(self, root: str):
        uid = os.getuid() if hasattr(os, "getuid") else None
        os.makedirs(root, mode=0o700, exist_ok=True)
        st = os.stat(root)
        if uid is not None and st.st_uid != uid and st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            raise _Refused(f"the cache directory {root} belongs to another user (uid {st.st_uid}) and others "
                           f"can write to it")
        self.dir = os.path.join(root, SUBDIR)
        try:
            os.mkdir(self.dir, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(self.dir)
        if not stat.S_ISDIR(st.st_mode):
            raise _Refused(f"{self.dir} is not a directory")
        if uid is not None and st.st_uid != uid:
            raise _Refused(f"the cache directory {self.dir} belongs to another user (uid {st.st_uid})")
        if st.st_mode & 0o077:
            os.chmod(self.dir, 0o700)
            _warn(f"the cache directory {self.dir} was accessible to other users "
                  f"(mode {stat.S_IMODE(st.st_mode):o}); its mode is now 700")
        self.blobs = os.path.join(self.dir, "blobs")
        os.makedirs(self.blobs, mode=0o700, exist_ok=True)

    # -- blobs ---------------------------------------------------------------------------------------
    def put_blob(self, data: bytes, ext: str) -> dict:
        sha = _sha(data)
        path = os.path.join(self.blobs, sha + ext)
        try:
            ok = os.path.getsize(path) == len(data)
        except OSError:
            ok = False
        if not ok:
            _atomic_write(path, data)
        else:
            try:
                os.utime(path)           # in use again: a collection running now keeps it
            except OSError:
                pass
        return {"sha": sha, "size": len(data), "ext": ext}

    def blob_path(self, ref: dict) -> str:
        sha, ext = ref["sha"], ref["ext"]
        if not (isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha)) \
                or ext not in (".so", ".npy", ".json"):
            raise CorruptEntry(f"bad blob reference {ref!r}")
        return os.path.join(self.blobs, sha + ext)

    def check_size(self, ref: dict) -> None:
        path = self.blob_path(ref)
        try:
            size = os.path.getsize(path)
        except OSError:
            raise CorruptEntry(f"payload {os.path.basename(path)} is missing") from None
        if size != ref["size"]:
            raise CorruptEntry(f"payload {os.path.basename(path)} has {size} bytes, expected {ref['size']} "
                               f"(truncated?)")

    def read_blob(self, ref: dict) -> bytes:
        path = self.blob_path(ref)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            raise CorruptEntry(f"payload {os.path.basename(path)} is missing") from None
        if len(data) != ref["size"]:
            raise CorruptEntry(f"payload {os.path.basename(path)} has {len(data)} bytes, "
                               f"expected {ref['size']} (truncated?)")
        if _sha(data) != ref["sha"]:
            raise CorruptEntry(f"payload {os.path.basename(path)} does not match its hash")
        return data

    # -- entries -------------------------------------------------------------------------------------
    def key_dir(self, key: LookupKey) -> str:
        return os.path.join(self.dir, key.fn_dir, key.digest)

    def entries(self, key_dir: str) -> list:
        try:
            names = [e for e in os.scandir(key_dir) if e.name.endswith(".entry") and not e.name.startswith(".")]
        except OSError:
            return []
        out = []
        for e in names:
            try:
                out.append((e.stat().st_mtime_ns, e.path))
            except OSError:
                pass
        return [p for _, p in sorted(out, reverse=True)]

    @staticmethod
    def read_entry(path: str) -> dict:
        with open(path, "rb") as f:
            raw = f.read()
        head, sep, body = raw.partition(b"\n")
        parts = head.split(b" ")
        if not sep or len(parts) != 3 or parts[0] != MAGIC:
            raise CorruptEntry("its header is damaged")
        try:
            size = int(parts[2])
        except ValueError:
            raise CorruptEntry("its header is damaged") from None
        if len(body) != size:
            raise CorruptEntry(f"it has {len(body)} bytes of metadata, expected {size} (truncated?)")
        if _sha(body) != parts[1].decode("ascii", "replace"):
            raise CorruptEntry("its metadata does not match its hash")
        try:
            meta = json.loads(body)
        except ValueError:
            raise CorruptEntry("its metadata is not valid JSON") from None
        if not isinstance(meta, dict):
            raise CorruptEntry("its metadata is not an object")
        return meta

    def write_entry(self, key: LookupKey, meta: dict) -> str:
        d = self.key_dir(key)
        os.makedirs(d, mode=0o700, exist_ok=True)
        body = json.dumps(meta, sort_keys=True, separators=(",", ":")).encode()
        entry_id = _sha(json.dumps(meta["deps"], sort_keys=True).encode() + meta["refs_digest"].encode())[:32]
        path = os.path.join(d, entry_id + ".entry")
        _atomic_write(path, MAGIC + b" " + _sha(body).encode() + b" " + str(len(body)).encode() + b"\n" + body)
        evicted = self.entries(d)[MAX_ENTRIES_PER_KEY:]
        for old in evicted:
            _unlink(old)
        if evicted:
            self.collect(GC_GRACE_SECONDS)
        return path

    # -- collecting payloads -------------------------------------------------------------------------
    def collect(self, grace: float = 0.0) -> int:
        """Delete the payloads no entry names, if older than `grace` seconds (a process that has
        written its payloads but not yet its entry keeps them); returns how many. Runs when
        entries are evicted; `pycompile.backend.cache.collect(path)` runs it by hand."""
        named, unreadable = set(), False
        for root, dirs, files in os.walk(self.dir):
            dirs[:] = [d for d in dirs if os.path.join(root, d) != self.blobs]
            for f in files:
                if not f.endswith(".entry") or f.startswith("."):
                    continue
                try:
                    named.update(_blob_names(self.read_entry(os.path.join(root, f))))
                except CorruptEntry:
                    continue             # rebuilt when next used; its payloads go with it
                except OSError:
                    unreadable = True
        if unreadable:
            return 0                     # an entry we could not read may name any payload
        now, removed = time.time(), 0
        for e in os.scandir(self.blobs):
            if e.name in named or e.name.startswith("."):
                continue
            try:
                if now - e.stat().st_mtime >= grace:
                    os.unlink(e.path)
                    removed += 1
            except OSError:
                pass
        return removed


def _blob_names(meta) -> set:
    """File names of the payloads an entry's metadata refers to (dicts with sha / size / ext)."""
    out, stack = set(), [meta]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if isinstance(v.get("sha"), str) and v.get("ext") in (".so", ".npy", ".json"):
                out.add(v["sha"] + v["ext"])
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def collect(path: str | None = None) -> int:
    """Delete the payloads of the compile cache at `path` (default: the configured one) that no
    entry names any more; returns how many files were removed."""
    if path is None:
        from pycompile.common import context
        path = context.compile_cache_settings()[1]
    store = open_store(path)
    return store.collect() if store is not None else 0


# ---- checking an entry ---------------------------------------------------------------------------------

def _check_deps(deps: dict) -> str | None:
    """None if every recorded dependency still holds in this process, else what changed."""
    files_ok = {}
    for path, sha in deps["files"].items():
        files_ok[path] = sha is not None and _file_sha(path) == sha
    changed_src = [s for s in deps["sources"] if not files_ok.get(s[0], False)]
    if changed_src:
        import inspect
        import linecache
        for path, line, qualname, sha in changed_src:
            linecache.checkcache(path)
            lines = linecache.getlines(path)
            block = inspect.getblock(lines[line - 1:]) if 0 < line <= len(lines) else []
            if _sha("".join(block).encode()) != sha:
                return f"source of {_rel(path)}:{qualname} changed"
    fpr = None
    for r in deps["reads"]:
        fpr = fpr or Fingerprinter()
        kind = r[0]
        try:
            if kind == "global":
                _, mod, name, h = r
                m = sys.modules.get(mod)
                if m is None:
                    return f"module {mod} is not imported"
                if fpr.hash(_global_value(m.__dict__, name)) != h:
                    return f"global {mod}.{name} changed"
            elif kind == "classattr":
                _, mod, qualname, name, h = r
                cls = _resolve(mod, qualname)
                if not isinstance(cls, type):
                    return f"class {mod}.{qualname} not found"
                if fpr.hash(_class_attr(cls, name)[1]) != h:
                    return f"class attribute {mod}.{qualname}.{name} changed"
            else:
                return f"unknown dependency kind {kind!r}"
        except Uncacheable as e:
            return f"{'.'.join(map(str, r[1:-1]))}: {e}"
    return None


def _resolve(mod: str, qualname: str):
    m = sys.modules.get(mod)
    v = m
    for part in qualname.split("."):
        if v is None:
            return None
        v = getattr(v, part, None)
    return v


def _locate_refs(refs: list, self_obj, args, kwargs, recorder: DepsRecorder) -> list:
    """Where each Parameter the executable reads is found again in a new process."""
    from pycompile.nn.cell import Cell
    table: dict = {}
    if isinstance(self_obj, Cell):
        for path, p in self_obj.parameters_and_names():
            table.setdefault(id(p), ["self", path])
    for (mod, name), v in sorted(recorder.roots.items()):
        if isinstance(v, Parameter):
            table.setdefault(id(v), ["global", mod, name, ""])
        else:
            for path, p in v.parameters_and_names():
                table.setdefault(id(p), ["global", mod, name, path])

    def walk(v, path):
        if isinstance(v, Parameter):
            table.setdefault(id(v), ["arg", list(path)])
        elif isinstance(v, (tuple, list)):
            for i, x in enumerate(v):
                walk(x, path + (i,))
    for i, a in enumerate(args):
        walk(a, (i,))
    for k, a in kwargs.items():
        walk(a, (k,))
    out = []
    for r in refs:
        w = table.get(id(r))
        if w is None:
            raise Uncacheable(f"Parameter '{r.name}' is not reachable from the Cell, the arguments or a "
                              f"module-level name (was it created inside the compiled code?)")
        out.append({"where": w, "dtype": r._data.dtype.str, "shape": list(r._data.shape)})
    return out


def _resolve_refs(specs: list, self_obj, args, kwargs):
    """The Parameters of an entry in this process, or (None, reason)."""
    from pycompile.nn.cell import Cell
    tables: dict = {}

    def params_of(cell):
        t = tables.get(id(cell))
        if t is None:
            t = tables[id(cell)] = dict(cell.parameters_and_names())
        return t
    out = []
    for spec in specs:
        w = spec["where"]
        p = None
        if w[0] == "self" and isinstance(self_obj, Cell):
            p = params_of(self_obj).get(w[1])
        elif w[0] == "global":
            m = sys.modules.get(w[1])
            v = m.__dict__.get(w[2]) if m is not None else None
            if w[3] == "":
                p = v
            elif isinstance(v, Cell):
                p = params_of(v).get(w[3])
        elif w[0] == "arg":
            path = w[1]
            try:
                v = args[path[0]] if isinstance(path[0], int) else kwargs[path[0]]
                for i in path[1:]:
                    v = v[i]
                p = v
            except (IndexError, KeyError, TypeError):
                p = None
        if not isinstance(p, Parameter):
            return None, f"Parameter at {'/'.join(map(str, w))} not found"
        if p._data.dtype.str != spec["dtype"] or list(p._data.shape) != spec["shape"]:
            return None, f"Parameter {p.name} changed dtype or shape"
        out.append(p)
    return out, None


# ---- serializing the calling layout -----------------------------------------------------------------------

def _tree_to_json(tree):
    if tree is None:
        return None
    kind, kids = tree
    return [kind, [_tree_to_json(k) for k in kids]]


def _tree_from_json(j):
    if j is None:
        return None
    return (j[0], tuple(_tree_from_json(k) for k in j[1]))


def _npy_bytes(a: np.ndarray) -> bytes:
    import io
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a), allow_pickle=False)
    return buf.getvalue()


def _npy_load(data: bytes) -> np.ndarray:
    import io
    return np.load(io.BytesIO(data), allow_pickle=False)


def _leaf_to_json(kind, v, store: Store):
    if kind == "out":
        return ["out", v]
    if isinstance(v, Tensor) and not isinstance(v, Parameter):
        return ["tensor", store.put_blob(_npy_bytes(v._data), ".npy")]
    if v is None or type(v) in (bool, int, float, str):
        return ["py", v]
    if isinstance(v, mstype.DType):
        return ["dtype", v.name]
    raise Uncacheable(f"the function returns a constant of type {type(v).__qualname__}")


def _leaf_from_json(j, store: Store):
    kind = j[0]
    if kind == "out":
        return ("out", j[1])
    if kind == "tensor":
        return ("const", Tensor._wrap(_npy_load(store.read_blob(j[1]))))
    if kind == "py":
        return ("const", j[1])
    if kind == "dtype":
        return ("const", mstype._by_name(j[1]))
    raise CorruptEntry(f"unknown output kind {kind!r}")


def _entry_meta(key: LookupKey, compiled: Compiled, recorder: DepsRecorder, store: Store,
                self_obj, args, kwargs) -> dict:
    report = compiled.report
    exe = compiled.exe
    refs = _locate_refs(exe.refs, self_obj, args, kwargs, recorder)
    tree, leaves = compiled.out_tree
    layout = {
        "n_inputs": exe.n_inputs,
        "input_paths": [list(p) for p in compiled.input_paths],
        "simple_inputs": bool(compiled.simple_inputs),
        "out_tree": _tree_to_json(tree),
        "leaves": [_leaf_to_json(k, v, store) for k, v in leaves],
        "out_types": [[np.dtype(dt).str, list(shape)] for shape, dt in exe.out_specs],
        "scalar_out": [bool(s) for s in getattr(compiled, "scalar_out", [])],
        "arena_size": int(report.temp_bytes),
        "errors": list(exe.errors),
        "consts": [store.put_blob(_npy_bytes(c), ".npy") for c in exe.const_args],
    }
    with open(exe.so_path, "rb") as f:
        so = store.put_blob(f.read(), ".so")
    texts = store.put_blob(json.dumps({"ir_before": report.ir_before, "ir_after": report.ir_after,
                                       "c_source": report.c_source}).encode(), ".json")
    rep = {
        "name": report.name, "nodes_before": report.nodes_before, "nodes_after": report.nodes_after,
        "c_lines": report.c_lines, "temp_bytes": report.temp_bytes, "copied_bytes": report.copied_bytes,
        "times": report.times,
        "pass_stats": [[s.name, s.seconds, s.nodes_before, s.nodes_after] for s in report.pass_stats],
        "texts": texts,
        "extra": _extra_fields(report),
    }
    return {"format": FORMAT, "created": time.time(), "components": key.components,
            "function": key.qualname, "where": key.where, "deps": recorder.deps(), "refs": refs,
            "refs_digest": _sha(json.dumps(refs, sort_keys=True).encode())[:16],
            "layout": layout, "so": so, "report": rep}


_REPORT_FIELDS = frozenset({"name", "graph_before", "graph_after", "c_source", "pass_stats", "times",
                            "nodes_before", "nodes_after", "c_lines", "temp_bytes", "copied_bytes", "so_path",
                            "cache", "const_args", "runtime_errors", "refs"})


def _extra_fields(report) -> dict:
    """Report fields this module does not know by name, kept when they are plain data."""
    out = {}
    for k in getattr(type(report), "__dataclass_fields__", {}):
        if k in _REPORT_FIELDS:
            continue
        v = getattr(report, k, None)
        try:
            json.dumps(v)
        except (TypeError, ValueError):
            continue
        out[k] = v
    return out


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


class _Stat:
    __slots__ = ("name", "seconds", "nodes_before", "nodes_after")

    def __init__(self, name, seconds, nodes_before, nodes_after):
        self.name, self.seconds, self.nodes_before, self.nodes_after = name, seconds, nodes_before, nodes_after

    def __repr__(self):
        return f"PassStat(name={self.name!r}, seconds={self.seconds!r}, nodes={self.nodes_before}->{self.nodes_after})"


class DiskReport(CompileReport):
    """A CompileReport read back from a cache entry: the IR texts and the C source are read from
    the entry on first use. There was no trace: graph_before / graph_after (IR objects) are rebuilt
    on first use by tracing and optimizing again (no C compiler)."""

    _texts = None
    _load_texts = None
    _graph_pair = None
    _retrace = None

    def _graphs(self):
        if self._graph_pair is None:
            self._graph_pair = self._retrace() if self._retrace is not None else (None, None)
        return self._graph_pair

    def _ignore(self, value) -> None:   # the dataclass __init__ assigns None
        pass

    graph_before = property(lambda self: self._graphs()[0], _ignore)
    graph_after = property(lambda self: self._graphs()[1], _ignore)

    def _text(self, k: str) -> str:
        if self._texts is None:
            try:
                self._texts = self._load_texts()
            except (CorruptEntry, ValueError, OSError) as e:
                _warn(f"the report texts of {self.name} are unavailable: {e}")
                self._texts = {}
        return self._texts.get(k, "")

    @property
    def ir_before(self) -> str:
        return self._text("ir_before")

    @property
    def ir_after(self) -> str:
        return self._text("ir_after")

    def _get_c_source(self) -> str:
        return self._text("c_source")

    c_source = property(_get_c_source, _ignore)


class _TensorSpec:
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


def _skeleton(v):
    """Arguments without their tensor data (kept by a DiskReport to trace again on request)."""
    if isinstance(v, Tensor) and not isinstance(v, Parameter):
        return _TensorSpec(v._data.shape, v._data.dtype)
    if type(v) in (tuple, list):
        return type(v)(_skeleton(x) for x in v)
    if type(v) is dict:
        return {k: _skeleton(x) for k, x in v.items()}
    return v


def _flesh(v):
    if isinstance(v, _TensorSpec):
        return Tensor._wrap(np.zeros(v.shape, v.dtype))
    if type(v) in (tuple, list):
        return type(v)(_flesh(x) for x in v)
    if type(v) is dict:
        return {k: _flesh(x) for k, x in v.items()}
    return v


def _retracer(fn, args, kwargs, self_obj, name):
    skeleton = _skeleton((tuple(args), dict(kwargs)))

    def retrace():
        from pycompile.compiler.frontend import trace
        from pycompile.compiler.passes import run_pipeline
        a, kw = _flesh(skeleton)
        opts = pipeline.options()
        traced = trace(fn, a, kw, self_obj=self_obj, name=name)
        graph, _ = run_pipeline(traced.graph, opt_level=opts["opt_level"], verify=False, options=opts)
        return traced.graph, graph
    return retrace


_LOADS = [0]


def _load_entry(meta: dict, store: Store, self_obj, args, kwargs):
    """A Compiled from a verified entry, or (None, reason) when its dependencies do not hold."""
    t0 = time.perf_counter()
    reason = _check_deps(meta["deps"])
    if reason is not None:
        return None, reason
    refs, reason = _resolve_refs(meta["refs"], self_obj, args, kwargs)
    if reason is not None:
        return None, reason
    lay = meta["layout"]
    so_path = store.blob_path(meta["so"])
    store.read_blob(meta["so"])                             # verify hash + size before loading
    consts = [_npy_load(store.read_blob(r)) for r in lay["consts"]]
    leaves = [_leaf_from_json(j, store) for j in lay["leaves"]]
    texts_ref = meta["report"]["texts"]
    store.check_size(texts_ref)                             # its hash is checked when it is read
    t1 = time.perf_counter()
    out_types = [TensorType(mstype.from_numpy(np.dtype(dt)), tuple(shape)) for dt, shape in lay["out_types"]]
    # dlopen through a fresh name: the dynamic loader returns an already loaded object of the same
    # name, which would be stale if this blob was rebuilt (a corrupt file replaced) in this process
    _LOADS[0] += 1
    link = os.path.join(store.blobs, f".load-{os.getpid()}-{_LOADS[0]}-{meta['so']['sha'][:16]}.so")
    try:
        os.symlink(os.path.basename(so_path), link)
        try:
            exe = devices.current().load(link, dict(n_inputs=lay["n_inputs"], refs=refs, out_types=out_types,
                                                    const_args=consts, arena_size=lay["arena_size"],
                                                    errors=lay["errors"]))
        finally:
            _unlink(link)
    except OSError as e:
        raise CorruptEntry(f"the shared object cannot be loaded: {e}") from None
    exe.so_path = so_path
    t2 = time.perf_counter()
    r = meta["report"]
    report = DiskReport(r["name"], None, None, None,
                        [_Stat(*s) for s in r["pass_stats"]], {"check": t1 - t0, "load": t2 - t1},
                        r["nodes_before"], r["nodes_after"], r["c_lines"], r["temp_bytes"], r["copied_bytes"],
                        so_path, cache="disk")
    report._load_texts = lambda: json.loads(store.read_blob(texts_ref))
    report.compile_times = r["times"]
    fields = getattr(CompileReport, "__dataclass_fields__", {})
    if "const_args" in fields:
        report.const_args = consts
    if "runtime_errors" in fields:
        report.runtime_errors = list(lay["errors"])
    if "refs" in fields:
        report.refs = list(refs)
    for k, v in r.get("extra", {}).items():
        if k in fields:
            setattr(report, k, [_tuples(x) for x in v] if isinstance(v, list) else v)
    compiled = Compiled(exe, [tuple(p) for p in lay["input_paths"]],
                        (_tree_from_json(lay["out_tree"]), leaves), report, simple_inputs=lay["simple_inputs"])
    compiled.scalar_out = lay["scalar_out"]
    return compiled, None


# ---- the entry point --------------------------------------------------------------------------------------

def compile_cached(fn, args: tuple, kwargs: dict, self_obj=None, name: str | None = None,
                   root: str | None = None) -> Compiled:
    """pipeline.compile_call, through the on-disk cache at `root` (default: the context's path)."""
    if root is None:
        root = context.compile_cache_settings()[1]
    store = open_store(root)
    if store is None:
        return pipeline.compile_call(fn, args, kwargs, self_obj=self_obj, name=name)
    t0 = time.perf_counter()
    try:
        key = LookupKey(fn, args, kwargs or {}, self_obj, name or getattr(fn, "__name__", "fn"), store)
    except Uncacheable as e:
        compiled = pipeline.compile_call(fn, args, kwargs, self_obj=self_obj, name=name)
        _finish_miss(compiled, f"not cacheable: {e}", getattr(fn, "__qualname__", repr(fn)))
        return compiled
    try:
        compiled, reason = _lookup(store, key, self_obj, args, kwargs or {})
    except Exception as e:        # a cache that fails must not fail the program: compile instead
        _warn(f"looking up {key.qualname} failed ({type(e).__name__}: {e}); compiling it")
        compiled, reason = None, f"lookup failed: {type(e).__name__}: {e}"
    if compiled is not None:
        rep = compiled.report
        rep.times = {"key": time.perf_counter() - t0 - sum(rep.times.values()), **rep.times}
        rep.cache_reason = "hit"
        rep._retrace = _retracer(fn, args, kwargs or {}, self_obj, name)
        if _explain_level() >= 2:
            print(f"pycompile: compile cache hit for {key.qualname} ({key.where})", file=sys.stderr)
        pipeline._save_graphs(compiled.report)
        return compiled
    if reason is None:
        reason = _closest(store, key)
    from pycompile.compiler import frontend
    recorder = DepsRecorder()
    recorder.function(key.fn)
    if self_obj is not None:
        recorder._guard(recorder.fp.fp, self_obj)
    recorder._guard(recorder.fp.fp, key.fn)
    frontend.DEPS.append(recorder)
    try:
        compiled = pipeline.compile_call(fn, args, kwargs, self_obj=self_obj, name=name)
    finally:
        frontend.DEPS.remove(recorder)
    if recorder.problem is not None:
        reason = f"{reason}; not cacheable: {recorder.problem}"
    else:
        try:
            os.makedirs(store.blobs, mode=0o700, exist_ok=True)     # removed while we compiled?
            meta = _entry_meta(key, compiled, recorder, store, self_obj, args, kwargs or {})
            store.write_entry(key, meta)
        except Uncacheable as e:
            reason = f"{reason}; not cacheable: {e}"
        except Exception as e:    # OSError, or a value the entry cannot hold: the program goes on
            _warn(f"could not write an entry for {key.qualname} in {store.dir}: {type(e).__name__}: {e}")
    _finish_miss(compiled, reason, key.qualname)
    return compiled


def _finish_miss(compiled: Compiled, reason: str, qualname: str) -> None:
    compiled.report.cache = "miss"
    compiled.report.cache_reason = reason
    if _explain_level():
        print(f"pycompile: compile cache miss for {qualname}: {reason}", file=sys.stderr)


def _lookup(store: Store, key: LookupKey, self_obj, args, kwargs):
    reason = None
    for path in store.entries(store.key_dir(key)):
        entry = os.path.basename(path)
        meta = None
        try:
            meta = store.read_entry(path)
            if meta.get("format") != FORMAT or meta.get("components") != key.components:
                old = meta.get("components") or {}
                diff = [k for k in key.components if old.get(k) != key.components[k]]
                what = ", ".join(diff) or "format"
                detail = ""
                if "pycompile" in diff:
                    detail = f" (written by {old.get('pycompile')}; this is {key.components['pycompile']})"
                raise CorruptEntry(f"it is stale: {what} differ{'s' if len(diff) == 1 else ''}{detail}")
            compiled, why = _load_entry(meta, store, self_obj, args, kwargs)
        except FileNotFoundError:
            continue                      # replaced or removed by another process meanwhile
        except OSError as e:
            _warn(f"cannot read entry {path}: {e}")
            reason = reason or f"entry {entry} could not be read ({e})"
            continue
        except (CorruptEntry, KeyError, TypeError, ValueError, IndexError) as e:
            msg = str(e) if isinstance(e, CorruptEntry) else f"its metadata is malformed ({type(e).__name__}: {e})"
            _warn(f"entry {entry} of {key.qualname} in {os.path.dirname(path)} is unusable: {msg}; rebuilding it")
            _unlink(path)
            if isinstance(e, CorruptEntry) and "payload" in msg and meta is not None:
                try:
                    for ref in _blob_refs(meta):
                        p = store.blob_path(ref)
                        try:
                            store.read_blob(ref)
                        except CorruptEntry:
                            _unlink(p)
                except (CorruptEntry, KeyError, TypeError, AttributeError):
                    pass              # best effort: the entry is already gone and gets rebuilt
            reason = reason or f"entry {entry} was unusable ({msg})"
            continue
        if compiled is not None:
            return compiled, None
        reason = reason or why
    return None, reason


def _blob_refs(meta: dict) -> list:
    lay = meta.get("layout", {})
    refs = [meta.get("so")] + list(lay.get("consts", [])) + [meta.get("report", {}).get("texts")]
    refs += [j[1] for j in lay.get("leaves", []) if j and j[0] == "tensor"]
    return [r for r in refs if isinstance(r, dict)]


def _closest(store: Store, key: LookupKey) -> str:
    """Why nothing matched: the components that differ from the closest entry of this function."""
    fn_dir = os.path.join(store.dir, key.fn_dir)
    best = None
    try:
        key_dirs = [e.path for e in os.scandir(fn_dir) if e.is_dir() and e.name != key.digest]
    except OSError:
        key_dirs = []
    for d in key_dirs:
        for path in store.entries(d)[:1]:
            try:
                comps = store.read_entry(path).get("components") or {}
            except (OSError, CorruptEntry):
                continue
            diff = [k for k in key.components if comps.get(k) != key.components[k]]
            if best is None or len(diff) < len(best[0]):
                best = (diff, comps)
    if best is None:
        return f"no entry for {key.qualname} ({key.where}) yet"
    diff, comps = best
    return "; ".join(_describe(k, comps.get(k, ""), key.components[k], key) for k in diff) or "unknown"
