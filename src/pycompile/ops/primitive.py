"""The Primitive base classes, under MindSpore's path `mindspore.ops.primitive`.

`Primitive` is the base of every class-form op (`ops.Add()`, `P.ReduceSum(keep_dims=True)`);
`_simple` builds the class form of a functional op. `PrimitiveWithInfer` / `PrimitiveWithCheck`,
`prim_attr_register` and `constexpr` are what user code subclassing a primitive writes: they
construct and keep their attributes as in MindSpore. As in MindSpore, a user primitive runs the
backend kernel registered under its name (`NAMED_KERNELS`, filled by `register_kernel`: the CPU
kernels MindSpore's wheel has with no public Python class, such as `Shift` and `Rolling`); one
whose name has no kernel raises a clear NotImplementedError unless the subclass defines
`__call__` itself.
"""
from __future__ import annotations

import functools
import inspect
import sys

from pycompile.ops._table import OpTypeError


class Primitive:
    """Base of class-form ops. `name` is the MindSpore primitive name."""

    def __init__(self, name: str | None = None):
        self.name = name or type(self).__name__
        self.attrs: dict = {}

    def add_prim_attr(self, name, value):
        self.attrs[name] = value
        return self

    def add_prim_attrs(self, **attrs):
        self.attrs.update(attrs)
        return self

    def init_prim_io_names(self, inputs, outputs):
        """Record the input / output names (MindSpore keeps them as attributes)."""
        self.add_prim_attr("input_names", list(inputs))
        self.add_prim_attr("output_names", list(outputs))

    def set_device(self, device_target):
        return self.add_prim_attr("primitive_target", device_target)

    def __repr__(self) -> str:
        return f"Prim[{self.name}]"


# primitive name -> kernel(prim, *inputs): what a user Primitive subclass of that name runs
NAMED_KERNELS: dict = {}


def register_kernel(name: str):
    """Decorator: `fn(prim, *inputs)` is the kernel of a user primitive named `name` (it reads the
    primitive's attributes from `prim.attrs`); written with ops, so it traces in graph code."""
    def deco(fn):
        if name in NAMED_KERNELS:
            raise ValueError(f"a kernel named {name!r} is registered already")
        NAMED_KERNELS[name] = fn
        return fn
    return deco


class PrimitiveWithCheck(Primitive):
    """A user primitive with argument checks (`check_shape` / `check_dtype`)."""

    def __call__(self, *args):
        kernel = NAMED_KERNELS.get(self.name)
        if kernel is not None:
            return kernel(self, *args)
        raise NotImplementedError(
            f"Primitive '{self.name}' (a user subclass of {type(self).__mro__[1].__name__}) has no pycompile "
            f"kernel: pycompile runs only its own ops. Define __call__ on the class (in terms of ops.*) "
            f"to give it one.")


class PrimitiveWithInfer(PrimitiveWithCheck):
    """A user primitive with shape / dtype inference (`infer_shape`, `infer_dtype`, `__infer__`)."""


def prim_attr_register(init):
    """Decorator for a primitive's `__init__`: records every constructor argument (defaults
    included) as a primitive attribute, readable as `prim.attrs[name]` and, as in MindSpore 2.10,
    as `prim.name`, then runs `__init__`."""
    sig = inspect.signature(init)

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        Primitive.__init__(self, type(self).__name__)
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for key, value in list(bound.arguments.items())[1:]:
            self.add_prim_attr(key, value)
            self.__dict__[key] = value
        init(self, *args, **kwargs)

    return wrapper


def constexpr(fn=None, *, get_instance=True, reuse_result=True, check=True):
    """MindSpore's `@constexpr` (a function of constants): the function is returned unchanged,
    so it runs in Python in PyNative mode and is inlined like any user function in graph code
    (usable as `@constexpr` and `@constexpr(...)`)."""
    if fn is None:
        return lambda f: f
    return fn


def _simple(name: str, fn, doc: str = ""):
    """A Primitive whose call is exactly the functional `fn` (no constructor attributes)."""
    sig = inspect.signature(fn)

    def __call__(self, *args):
        try:
            sig.bind(*args)
        except TypeError as e:
            raise OpTypeError(f"For '{name}', {e}".replace(f"{fn.__name__}()", "the call")) from None
        return fn(*args)

    module = sys._getframe(1).f_globals.get("__name__", __name__)   # the module defining the class
    return type(name, (Primitive,), {"__call__": __call__, "__module__": module,
                                     "__doc__": doc or f"Class form of ops.{fn.__name__}."})
