"""Structural fingerprints of Python values, and the dependencies a trace records: every source
it parsed, every global and class attribute it read (frontend.DEPS). A cache entry is valid only
while they all still hold (`_check_deps`); its Parameters are found again by `_resolve_refs`."""
from __future__ import annotations

import builtins
import functools
import os
import sys
import types

import numpy as np

from pycompile.backend.cache.common import ABSENT, Uncacheable, _is_library_module, _rel, _sha
from pycompile.common import dtype as mstype
from pycompile.common.cellbase import CellBase
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor

_CELL_SKIP = frozenset({"_params", "_cells", "_compiled", "_attr_version", "_graph_key_kept", "_lazy_inline_version",
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
        return _sha(repr(self.fp(v)))[:32]

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
        if isinstance(v, CellBase):
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
        self.sources[(path, start, obj.__qualname__)] = _sha("".join(lines))
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
        self._walked: dict = {}          # id -> object: what `opaque` has followed

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
        if isinstance(value, (CellBase, Parameter)):
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
        if isinstance(raw, (property, functools.cached_property)):
            self._opaque(raw)           # its getter runs as plain Python

    def opaque(self, obj) -> None:
        """User code that runs as plain Python while tracing: a class instantiated in graph code
        (its __init__), a property read, `obj[i]` on a user object. The frontend never sees
        what it reads, so everything its code could read is recorded: every module global its
        functions name (and the attributes they name of user modules), following the user
        functions and classes found there. Code that reads what cannot be recorded (the
        environment, files, eval) makes the call uncacheable."""
        self._guard(self._opaque, obj)

    def _opaque(self, obj):
        todo, seen = [obj], self._walked
        while todo:
            v = todo.pop()
            if id(v) in seen:
                continue
            seen[id(v)] = v
            if len(seen) > _WALK_LIMIT:
                raise Uncacheable(f"{_name(obj)} runs as plain Python while compiling and reaches more than "
                                  f"{_WALK_LIMIT} functions and classes")
            if isinstance(v, (staticmethod, classmethod)):
                todo.append(v.__func__)
            elif isinstance(v, property):
                todo.extend(f for f in (v.fget, v.fset, v.fdel) if f is not None)
            elif isinstance(v, functools.cached_property):
                todo.append(v.func)
            elif isinstance(v, functools.partial):
                todo.append(v.func)
            elif isinstance(v, types.MethodType):
                todo.append(v.__func__)
            elif isinstance(v, type):
                if _user_code(v):
                    self.fp.add_source(v)
                    for k in v.__mro__:
                        if k is not object and _user_code(k):
                            todo.extend(k.__dict__.values())
            elif isinstance(v, types.FunctionType):
                if _user_code(v):
                    self.fp.add_source(v)
                    todo.extend(self._code_reads(v, obj))
            elif _user_code(type(v)) and not isinstance(v, types.ModuleType):
                todo.append(type(v))

    def _code_reads(self, fn, root) -> list:
        """Record the globals `fn`'s code names; return the user functions / classes among them."""
        g = fn.__globals__
        names = _code_names(fn.__code__)
        found = []
        for name in names:
            if name in _UNRECORDABLE_BUILTINS and name not in g:
                raise Uncacheable(f"{_name(root)} runs as plain Python while compiling and calls {name}(), "
                                  f"whose result cannot be recorded")
            if name in g:
                self._global(g, name)
                v = g[name]
            else:
                v = sys.modules.get(name)          # a module imported inside the function
            if isinstance(v, types.ModuleType):
                if v.__name__ in _UNRECORDABLE_MODULES and names & _UNRECORDABLE_MODULES[v.__name__]:
                    raise Uncacheable(f"{_name(root)} runs as plain Python while compiling and reads "
                                      f"{v.__name__}.{sorted(names & _UNRECORDABLE_MODULES[v.__name__])[0]}, "
                                      f"which cannot be recorded")
                if _user_code(v) and sys.modules.get(v.__name__) is v:
                    for attr in sorted(names & v.__dict__.keys()):
                        self._global(v.__dict__, attr)
                        found.append(v.__dict__[attr])
            else:
                found.append(v)
        if fn.__closure__:
            for c in fn.__closure__:
                try:
                    found.append(c.cell_contents)
                except ValueError:
                    pass
        return [v for v in found if isinstance(v, (type, types.FunctionType, property, staticmethod, classmethod,
                                                   functools.partial))]

    def deps(self) -> dict:
        return {"files": dict(sorted(self.fp.files.items())),
                "sources": sorted([list(k) + [v] for k, v in self.fp.sources.items()]),
                "reads": sorted([list(k) + [v] for k, v in self.reads.items()])}


_WALK_LIMIT = 5000

# builtins and module attributes whose results a dependency record cannot capture
_UNRECORDABLE_BUILTINS = frozenset({"eval", "exec", "open", "input", "globals", "vars", "locals", "__import__",
                                    "compile"})
_UNRECORDABLE_MODULES = {"os": frozenset({"environ", "getenv", "environb", "listdir", "scandir", "urandom"}),
                         "random": frozenset({"random", "randint", "uniform", "choice", "gauss", "shuffle", "sample"}),
                         "time": frozenset({"time", "time_ns", "perf_counter", "monotonic"}),
                         "importlib": frozenset({"import_module", "reload"})}


def _user_code(obj) -> bool:
    """Whether `obj` (a function, class or module) is the user's code: not pycompile, NumPy,
    cffi or the standard library (those are part of the key's versions)."""
    mod = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None) or ""
    if not isinstance(mod, str) or mod == "builtins" or mod.split(".")[0] in _SKIP_SOURCE_TOP \
            or mod.split(".")[0] in sys.stdlib_module_names:
        return False
    if isinstance(obj, types.ModuleType):
        path = getattr(obj, "__file__", None)
    elif isinstance(obj, types.FunctionType):
        path = obj.__code__.co_filename
    else:
        path = getattr(sys.modules.get(mod), "__file__", None)
    return not (path and os.path.abspath(path).startswith(_STDLIB_DIR + os.sep))


def _code_names(code) -> frozenset:
    """Every global / attribute name a code object and the code nested in it mention."""
    names, todo = set(), [code]
    while todo:
        c = todo.pop()
        names.update(c.co_names)
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return frozenset(names)


def _name(obj) -> str:
    return getattr(obj, "__qualname__", None) or type(obj).__qualname__


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
            if _sha("".join(block)) != sha:
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
    table: dict = {}
    if isinstance(self_obj, CellBase):
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
        if w[0] == "self" and isinstance(self_obj, CellBase):
            p = params_of(self_obj).get(w[1])
        elif w[0] == "global":
            m = sys.modules.get(w[1])
            v = m.__dict__.get(w[2]) if m is not None else None
            if w[3] == "":
                p = v
            elif isinstance(v, CellBase):
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
