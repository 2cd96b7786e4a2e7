"""Class and method decorators of MindSpore's `mindspore.common` that are about Cells and user
classes: `lazy_inline` (a Cell's __init__) and `jit_class` (a plain user class)."""
from __future__ import annotations

import functools

from pycompile.common.cellbase import subtree_version
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell


def lazy_inline(fn=None, *, policy=None):
    """Decorator for a Cell's `__init__`: records the constructor arguments as
    `cell_init_args`, the identity MindSpore uses to let instances with equal arguments share
    one compiled subgraph. `@lazy_inline` and `@lazy_inline(policy="front")` both work.

    Instances whose `cell_init_args` are equal (and whose attributes were not changed after
    `__init__`) are candidates for subgraph reuse; compiling without reuse inlines them, which
    is MindSpore's behaviour when MS_DEV_CELL_REUSE is not set."""
    if policy not in (None, "front"):
        raise ValueError(f"lazy_inline: policy must be None or 'front', but got {policy!r}")

    def deco(init):
        if getattr(init, "__name__", "") != "__init__":
            raise TypeError("lazy_inline decorates a Cell's __init__ method")

        @functools.wraps(init)
        def wrapper(self, *args, **kwargs):
            init(self, *args, **kwargs)
            # the outermost decorated __init__ of an instance wins (subclass calling super().__init__)
            if "cell_init_args" not in self.__dict__ or type(self).__init__ is wrapper:
                object.__setattr__(self, "cell_init_args",
                                   _init_args_key(type(self), args, kwargs))
                object.__setattr__(self, "_lazy_inline_policy", policy)
                object.__setattr__(self, "_lazy_inline_version", subtree_version(self))
        wrapper._pycompile_lazy_inline = True
        return wrapper
    if fn is not None:
        return deco(fn)
    return deco


def _init_args_key(cls, args, kwargs) -> str:
    """MindSpore's cell_init_args: class name and the values of the __init__ arguments."""
    def fmt(v):
        if isinstance(v, Tensor):
            return f"Tensor(shape={list(v.shape)}, dtype={v.dtype}, id={id(v)})"
        if isinstance(v, (int, float, bool, str, type(None))):
            return repr(v)
        if isinstance(v, (tuple, list)):
            return type(v).__name__ + "(" + ", ".join(fmt(x) for x in v) + ")"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k!r}: {fmt(x)}" for k, x in sorted(v.items())) + "}"
        attrs = getattr(v, "__dict__", None)
        if attrs is not None and not callable(v):
            return type(v).__name__ + "(" + ", ".join(f"{k}={fmt(x)}" for k, x in sorted(attrs.items())
                                                      if not k.startswith("_")) + ")"
        return f"{type(v).__name__}@{id(v)}"
    parts = [fmt(a) for a in args] + [f"{k}={fmt(v)}" for k, v in sorted(kwargs.items())]
    return f"{cls.__name__}({', '.join(parts)})"


def jit_class(cls):
    """Mark a user class (not a Cell) so its instances and methods compile into graph code.

    In PyNative mode it changes nothing. In graph code, attributes of instances (class and
    `__init__` attributes alike) are read at compile time, methods are inlined, calling an
    instance runs `__call__`, and instances can be created with constant arguments. Subclasses
    of a jit_class are jit_classes. (pycompile inlines the methods of undecorated user classes
    too; MindSpore runs those in its Python fallback instead.)"""
    if not isinstance(cls, type):
        raise TypeError(f"Decorator jit_class can only be used for class type, but got {cls!r}.")
    if issubclass(cls, Cell):
        raise TypeError(f"Decorator jit_class is used for user-defined classes and cannot be used for "
                        f"nn.Cell: {cls.__name__}<>.")
    cls.__ms_class__ = True
    return cls
