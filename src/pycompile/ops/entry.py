"""One declarative entry per op: every public form of an op from one definition.

An entry is a function decorated with `op_entry`, in a file of `pycompile/ops/entries/` (every
module there is imported when `pycompile.ops` is, so adding an op is adding a file). From the
entry come:

* the functional form `ops.<name>` (also `ops.functional.<name>`, `ops.function.<name>`), which
  binds the call to the declared arguments, checks them (tensor or number, allowed dtypes, the
  entry's own checks, each raising MindSpore's error class with "For '<Primitive>', ...") and
  calls the definition;
* the Primitive class `ops.<Primitive>` / `ops.operations.<Primitive>` when the entry names one:
  its constructor takes the arguments declared `init=True` (MindSpore's `prim_init`) and keeps
  them as primitive attributes, its call takes the others;
* the Tensor method `Tensor.<method>` when the entry names one (the tensor is the first argument);
* its mixed-precision class under `amp_level="auto"` (`amp="low" | "full" | "promote"`, as
  MindSpore's white, black and promote lists).

The definition is a **decomposition**: a Python function over other ops (`ops.functional`, the
table's rows through `apply`, or other entries). Nothing else is written per op: PyNative runs it
op by op (each on its kernel), graph mode traces it into the typed IR like any library function,
so its gradient and its vmap rule are those of the ops it is made of, and the C renderer, the
fusion passes and autodiff never hear of it. An op whose semantics no composition gives (a new
kind of loop, a new kernel) is a row of the op table (`ops/_table.py`, `ops/defs/`) instead, and
an entry gives it its public forms.

A name is declared once: an entry whose functional, Primitive or Tensor name already exists
fails at import, so an entry never silently replaces an op of the table's front ends.
"""
from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass
from typing import Any, Callable

from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.ops import _mixed
from pycompile.ops._table import OpTypeError
from pycompile.ops.primitive import Primitive

REQUIRED = inspect.Parameter.empty

FLOAT = frozenset({mstype.float16, mstype.float32, mstype.float64})
INT = frozenset({mstype.int8, mstype.int16, mstype.int32, mstype.int64,
                 mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64})
REAL = FLOAT | INT
NUMBER = REAL | {mstype.bool_}

_KINDS = ("tensor", "tensor|number", "value")


@dataclass(frozen=True)
class Arg:
    """One argument of an entry.

    kind     "tensor": a Tensor (or a graph value standing for one); "tensor|number": a Tensor or
             a Python number (MindSpore's `type_cast: number`); "value": any Python constant
             (an axis, a flag, a dtype), checked by `check`
    default  omitted: required
    init     the Primitive form takes it in its constructor (MindSpore's `prim_init: True`)
    dtypes   the dtypes a tensor may have (None: any)
    check    check(value, op_name) raises MindSpore's error for a bad value (after the kind check)
    keyword  keyword-only in the functional form (after a `*` in MindSpore's signature)
    variadic the functional form takes any number of these (`*inputs`); the definition receives
             them as one tuple
    """
    name: str
    kind: str = "tensor"
    default: Any = REQUIRED
    init: bool = False
    dtypes: frozenset | None = None
    check: Callable | None = None
    keyword: bool = False
    variadic: bool = False

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"Arg {self.name}: kind must be one of {_KINDS}, got {self.kind!r}")


@dataclass(eq=False)
class Entry:
    name: str
    impl: Callable
    args: tuple
    prim_name: str
    primitive: str | None
    tensor_method: str | None
    amp: str | None
    aliases: tuple
    public: bool = True              # the functional form is `ops.<name>` (False: Primitive / Tensor forms only)
    functional: Callable = None
    primitive_cls: type = None
    method: Callable = None

    def __repr__(self):
        return f"<op entry {self.name}>"


ENTRIES: dict[str, Entry] = {}
_NAMES: set = set()          # every public name the entries declare (functional, Primitive, method)


def _signature(args, skip_init=False) -> inspect.Signature:
    params = []
    for a in args:
        if skip_init and a.init:
            continue
        kind = inspect.Parameter.VAR_POSITIONAL if a.variadic else \
            inspect.Parameter.KEYWORD_ONLY if a.keyword else inspect.Parameter.POSITIONAL_OR_KEYWORD
        params.append(inspect.Parameter(a.name, kind) if a.variadic else
                      inspect.Parameter(a.name, kind, default=a.default))
    return inspect.Signature(params)


def _type_name(v) -> str:
    return f"<class '{type(v).__module__ + '.' if type(v).__module__ != 'builtins' else ''}{type(v).__qualname__}'>" \
        .replace("pycompile.common.tensor.", "mindspore.common.tensor.")


def check_arg(a: Arg, v, op_name: str) -> None:
    """MindSpore's checks of one argument: kind, dtype, then the entry's own."""
    if a.kind != "value":
        if isinstance(v, TensorMethods):
            if a.dtypes is not None and v.dtype not in a.dtypes:
                allowed = ", ".join(sorted(str(d) for d in a.dtypes))
                raise OpTypeError(f"For '{op_name}', the type of '{a.name}' should be one of [{allowed}], "
                                  f"but got {v.dtype}.")
        elif not (a.kind == "tensor|number" and isinstance(v, (int, float)) and not isinstance(v, bool)):
            what = "a Tensor or a number" if a.kind == "tensor|number" else "a Tensor"
            raise OpTypeError(f"For '{op_name}', the input '{a.name}' must be {what}, but got {_type_name(v)}.")
    if a.check is not None:
        a.check(v, op_name)


def _make_functional(e: Entry, module: str) -> Callable:
    sig = _signature(e.args)
    checked = tuple(a for a in e.args)
    impl, op_name, amp = e.impl, e.prim_name, e.amp

    def functional(*args, **kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as err:
            raise OpTypeError(f"For '{op_name}', {err}") from None
        bound.apply_defaults()
        values = bound.arguments
        for a in checked:
            if a.variadic:
                for v in values[a.name]:
                    check_arg(a, v, op_name)
                continue
            check_arg(a, values[a.name], op_name)
        if amp is not None and _mixed.SCOPE and isinstance(_mixed.SCOPE[-1], _mixed.AutoPolicy):
            names = [a.name for a in checked if a.kind != "value" and not a.variadic]
            cast = _mixed.SCOPE[-1].adjust_class(amp, [values[n] for n in names])
            values.update(zip(names, cast))
        return impl(**values)

    functional.__name__ = functional.__qualname__ = e.name
    functional.__module__ = module
    functional.__doc__ = e.impl.__doc__
    functional.__signature__ = sig
    functional.__wrapped_entry__ = e
    return functional


def _make_primitive(e: Entry, module: str) -> type:
    init_args = tuple(a for a in e.args if a.init)
    init_sig = _signature(init_args)
    call_sig = _signature(e.args, skip_init=True)
    functional, op_name = e.functional, e.prim_name

    def __init__(self, *args, **kwargs):
        try:
            bound = init_sig.bind(*args, **kwargs)
        except TypeError as err:
            raise OpTypeError(f"For '{op_name}', {err}") from None
        bound.apply_defaults()
        Primitive.__init__(self, op_name)
        for a in init_args:
            v = bound.arguments[a.name]
            check_arg(a, v, op_name)
            self.add_prim_attr(a.name, v)
        self._init_values = dict(bound.arguments)

    def __call__(self, *args, **kwargs):
        try:
            bound = call_sig.bind(*args, **kwargs)
        except TypeError as err:
            raise OpTypeError(f"For '{op_name}', {err}") from None
        return functional(**bound.arguments, **self._init_values)

    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + list(init_sig.parameters.values()))
    return type(e.primitive, (Primitive,), {
        "__init__": __init__, "__call__": __call__, "__module__": module,
        "__doc__": f"Class form of ops.{e.name}" + (f" (constructor: {', '.join(a.name for a in init_args)})"
                                                     if init_args else "") + ".",
        "entry": e})


def _make_method(e: Entry) -> Callable:
    functional = e.functional

    def method(self, *args, **kwargs):
        return functional(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = e.tensor_method
    method.__doc__ = f"Tensor form of ops.{e.name}: `x.{e.tensor_method}(...)` is `ops.{e.name}(x, ...)`."
    return method


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def op_entry(name: str, *, args, primitive: str | None = None, tensor_method: str | bool | None = None,
             prim_name: str | None = None, amp: str | None = None, aliases=(), functional: bool = True):
    """Declare an op from its decomposition (the decorated function, called with every argument
    by name). `primitive`: the Primitive class name, if MindSpore has one; `tensor_method`: True
    for the same name, or the method's name; `prim_name`: the name errors give ("For 'X', ...";
    default the Primitive's name, else the CamelCase of `name`); `amp`: "low" / "full" / "promote"
    under amp_level 'auto'; `aliases`: other functional names of the same op; `functional=False`:
    MindSpore has no `ops.<name>` for it (only the Primitive or Tensor form; `name` is then only
    the entry's key)."""
    if amp not in (None, "low", "full", "promote"):
        raise ValueError(f"op entry {name}: amp must be None, 'low', 'full' or 'promote', got {amp!r}")
    args = tuple(args)
    if primitive is None and any(a.init for a in args):
        raise ValueError(f"op entry {name}: init arguments need a Primitive form")

    def declare(impl):
        module = impl.__module__
        method = name if tensor_method is True else (tensor_method or None)
        e = Entry(name=name, impl=impl, args=args, prim_name=prim_name or primitive or _camel(name),
                  primitive=primitive, tensor_method=method, amp=amp, aliases=tuple(aliases), public=functional)
        declared = ([name, *e.aliases] if functional else [f"entry:{name}"]) + ([primitive] if primitive else []) + ([f"Tensor.{method}"] if method else [])
        for n in declared:
            if n in _NAMES:
                raise ValueError(f"op entry {name}: '{n}' is declared twice")
        _NAMES.update(declared)
        e.functional = _make_functional(e, module)
        if primitive:
            e.primitive_cls = _make_primitive(e, module)
        if method:
            e.method = _make_method(e)
        ENTRIES[name] = e
        return e.functional

    return declare


PRIMITIVE_CLASSES: list = []   # hand-written Primitive classes of entries modules (primitive_class)


def primitive_class(cls):
    """Declare a Primitive class written by hand in an entries module (a stateful or multi-output op
    whose call is not one functional form): `install` puts it where MindSpore has its Primitives, as
    it does an entry's, and a name declared twice is an error at import."""
    if cls.__name__ in _NAMES:
        raise ValueError(f"primitive class {cls.__name__}: the name is declared twice")
    _NAMES.add(cls.__name__)
    PRIMITIVE_CLASSES.append(cls)
    return cls


TENSOR_ALIASES: dict = {}      # Tensor method name -> function of (self, ...)


def tensor_alias(name: str):
    """Declare `Tensor.<name>` as the decorated function of (self, ...): the Tensor form of an op
    whose functional form exists already (`x.less(y)` is `ops.less(x, y)`), declared once."""
    def declare(fn):
        key = f"Tensor.{name}"
        if key in _NAMES:
            raise ValueError(f"tensor alias {name}: '{key}' is declared twice")
        _NAMES.add(key)
        fn.__name__ = fn.__qualname__ = name
        TENSOR_ALIASES[name] = fn
        return fn
    return declare


def install(ops_namespace: dict) -> list[str]:
    """Put every entry's forms where MindSpore has them: `ops` (the dict of pycompile.ops),
    `ops.operations` and its submodules, the Tensor class. Returns the names added to `ops`.
    A name that already exists there is an error: the entry would shadow an op defined elsewhere."""
    from pycompile.ops import operations

    added, clashes = [], []
    # ops.operations and its MindSpore submodules (found once: walking sys.modules for each of
    # ~500 Primitives was a third of the entries' import time)
    op_modules = [mod for mod_name, mod in list(sys.modules.items()) if mod is not None and (
        mod_name == operations.__name__ or mod_name.startswith(operations.__name__ + "."))]
    for e in ENTRIES.values():
        for n in (e.name, *e.aliases) if e.public else ():
            if n in ops_namespace:
                raise ValueError(f"op entry {e.name}: ops.{n} exists already ({ops_namespace[n]!r})")
            ops_namespace[n] = e.functional
            added.append(n)
        if e.primitive_cls is not None:
            p = e.primitive
            if p in ops_namespace or p in vars(operations):
                raise ValueError(f"op entry {e.name}: the Primitive {p} exists already")
            ops_namespace[p] = e.primitive_cls
            added.append(p)
            for mod in op_modules:
                setattr(mod, p, e.primitive_cls)
            if p not in operations.__all__:
                operations.__all__.append(p)
        if e.method is not None:
            if e.tensor_method in vars(TensorMethods):
                clashes.append(f"Tensor.{e.tensor_method} ({e.name})")
                continue
            setattr(TensorMethods, e.tensor_method, e.method)
    for cls in PRIMITIVE_CLASSES:
        p = cls.__name__
        if p in ops_namespace or p in vars(operations):
            raise ValueError(f"primitive class {p}: the Primitive {p} exists already")
        ops_namespace[p] = cls
        added.append(p)
        for mod in op_modules:
            setattr(mod, p, cls)
        if p not in operations.__all__:
            operations.__all__.append(p)
    for name, fn in TENSOR_ALIASES.items():
        if name in vars(TensorMethods):
            clashes.append(f"Tensor.{name} (alias)")
            continue
        setattr(TensorMethods, name, property(fn) if getattr(fn, "is_property", False) else fn)
    if clashes:
        raise ValueError("op entries declare Tensor methods that exist already: " + ", ".join(clashes))
    return added
