"""The Primitive base classes, under MindSpore's path `mindspore.ops.primitive`.

`Primitive` is the base of every class-form op (`ops.Add()`, `P.ReduceSum(keep_dims=True)`);
`_simple` builds the class form of a functional op. `PrimitiveWithInfer` / `PrimitiveWithCheck`,
`prim_attr_register` and `constexpr` are what user code subclassing a primitive writes: they
construct and keep their attributes as in MindSpore. As in MindSpore, a user primitive runs the
backend kernel registered under its name (`NAMED_KERNELS`, filled by `register_kernel`: the CPU
kernels MindSpore's wheel has with no public Python class, such as `Shift` and `Rolling`); one
whose name has no kernel raises a clear NotImplementedError unless the subclass defines
`__call__` itself.

Every class form, the entry-generated ones (ops/entry.py) included, gets MindSpore 2.10's public
Primitive methods from the base class: `shard`, `recompute`, `set_stage`, `place`,
`set_prim_instance_name`, `add_attr` / `del_prim_attr` / `get_attr_dict` and the rest, with the wheel's
return values (most return the primitive, for chaining), the attributes they record and its argument
checks and messages. They describe how MindSpore would distribute, recompute or place the op; they never
change its value. pycompile runs each process on one device (data parallelism is across processes) and
keeps every forward activation, so a sharded, recomputed or staged primitive computes exactly what the
plain one does, eagerly and in graph code - as MindSpore's own does outside semi-auto / auto parallel.
"""
from __future__ import annotations

import functools
import inspect
import operator
import sys

from pycompile.common import auto_parallel, knobs, validator
from pycompile.ops._table import OpTypeError

# MindSpore's primitives whose strategy may nest tuples of Layouts (mindspore.parallel._utils)
_TUPLE_IN_TUPLE_STRATEGY = ("GroupedMatmul", "FusedInferAttentionScore", "Custom", "Index")
_DEVICE_TARGETS = ("CPU", "GPU", "Ascend")


def _binding_error(method: str, signature: str, prim, *args, returns: str = "None") -> TypeError:
    """The TypeError MindSpore's C++ binding raises for an argument of the wrong type (its words)."""
    shown = ", ".join([repr(prim), *map(repr, args)])
    return TypeError(f"{method}(): incompatible function arguments. The following argument types are supported:\n"
                     f"    1. (self: mindspore._c_expression.Primitive_, {signature}) -> {returns}\n\n"
                     f"Invoked with: {shown}")


class _NoLayout:
    """Stands for ms.Layout while its module is not loaded (then no Layout exists to be seen)."""


def _layout_class() -> type:
    """`ms.Layout` (pycompile.parallel.shard, a layer above ops: looked up, not imported)."""
    return getattr(sys.modules.get("pycompile.parallel.shard"), "Layout", _NoLayout)


def _layout_value(layout) -> dict:
    """A Layout as a primitive attribute holds it: its dictionary without the rank list."""
    return {k: v for k, v in layout.to_dict().items() if k != "rank_list"}


class Primitive:
    """Base of class-form ops. `name` is the MindSpore primitive name; `attrs` its attributes
    (constructor arguments and what `add_prim_attr`, `shard`, `recompute` ... record).

    As in MindSpore, an attribute recorded with `add_prim_attr` is also an instance attribute
    (`ops.MatMul().shard(s).in_strategy`), and one recorded with `add_attr` is readable as one."""

    _repr_ignore_list = ("input_names", "output_names")

    def __init__(self, name: str | None = None):
        self.name = name or type(self).__name__
        self.attrs: dict = {}

    # ---- attributes ---------------------------------------------------------------------------
    def _attr_table(self) -> dict:
        """The attributes MindSpore keeps on the C++ side (`get_attr_dict`): those added with
        `add_prim_attr` / `add_attr`, not the ones a constructor stores in `attrs` directly."""
        return self.__dict__.setdefault("_attr_dict", {})

    def add_attr(self, name: str, value) -> None:
        """Record `value` under `name` in the table `get_attr_dict` returns (not in `attrs`); it is
        then readable as `prim.<name>`. Returns None, as MindSpore's does."""
        if not isinstance(name, str):
            raise _binding_error("add_attr", "arg0: str, arg1: object", self, name, value)
        if name == "primitive_target" and value not in _DEVICE_TARGETS:
            raise RuntimeError(f"Call 'add_attr' to add attribute to primitive '{self.name}' failed, value of "
                               f"attribute 'primitive_target' must be CPU|GPU|Ascend but got {value}")
        self._attr_table()[name] = value

    def del_attr(self, name: str) -> None:
        """Remove `name` from the `get_attr_dict` table (nothing when absent). Returns None."""
        if not isinstance(name, str):
            raise _binding_error("del_attr", "arg0: str", self, name)
        self._attr_table().pop(name, None)

    def get_attr_dict(self) -> dict:
        """The attributes added with `add_prim_attr` / `add_attr` (a new dict). MindSpore's generated
        primitives keep their constructor arguments out of it; pycompile's record them with
        `add_prim_attr`, so they may appear here (`attrs` is the table to read)."""
        return dict(self._attr_table())

    def add_prim_attr(self, name, value) -> "Primitive":
        """Record a primitive attribute: in `attrs`, as an instance attribute and in the
        `get_attr_dict` table. Returns the primitive."""
        self.__dict__[name] = value
        self.attrs[name] = value
        self.add_attr(name, value)
        return self

    def add_prim_attrs(self, **attrs) -> "Primitive":
        """`add_prim_attr` for each keyword (pycompile's shorthand). Returns the primitive."""
        for name, value in attrs.items():
            self.add_prim_attr(name, value)
        return self

    def del_prim_attr(self, name) -> "Primitive":
        """Delete an attribute recorded with `add_prim_attr` (from `attrs`, the instance and the
        `get_attr_dict` table); nothing happens unless it is both in `attrs` and on the instance, as
        in MindSpore. Returns the primitive."""
        if name in self.__dict__ and name in self.attrs:
            del self.__dict__[name]
            del self.attrs[name]
            self.del_attr(name)
        return self

    def __getattr__(self, item):
        # reached only when ordinary lookup fails: MindSpore then reads the attribute tables
        if item.startswith("__"):
            raise AttributeError(item)
        d = self.__dict__
        for table in (d.get("_attr_dict"), d.get("attrs")):
            if table and item in table:
                return table[item]
        raise AttributeError(f"'{d.get('name', type(self).__name__)}' object has no attribute '{item}'")

    def init_prim_io_names(self, inputs, outputs) -> None:
        """Record the input / output names (MindSpore keeps them as attributes)."""
        self.add_prim_attr("input_names", list(inputs))
        self.add_prim_attr("output_names", list(outputs))

    def set_device(self, device_target) -> "Primitive":
        """Record the device ("CPU", "GPU" or "Ascend") the op should run on, as `primitive_target`;
        pycompile runs it on its own backend. Returns the primitive."""
        return self.add_prim_attr("primitive_target", device_target)

    # ---- parallel and memory annotations (recorded, never applied: see the module's doc) -----
    def shard(self, in_strategy=None, out_strategy=None) -> "Primitive":
        """Record how the op's inputs (and, for some ops, outputs) are split across devices:
        tuples of int tuples (`in_strategy` / `out_strategy` attributes) or tuples of `ms.Layout`
        (`in_layout` / `out_layout`, each layout's dictionary without its rank list). MindSpore
        applies them only in semi-auto / auto parallel; pycompile, one device per process, never
        does: the op computes the same values. Checks and messages are MindSpore's. Returns the
        primitive."""
        if in_strategy is None and out_strategy is None:
            return self
        in_is_layout = None if in_strategy is None else self._check_shard_strategy(in_strategy, "in_strategy")
        out_is_layout = None if out_strategy is None else self._check_shard_strategy(out_strategy, "out_strategy")
        is_layout = in_is_layout if in_is_layout is not None else out_is_layout
        if out_is_layout is not None and is_layout != out_is_layout and not self._nested_strategy():
            raise ValueError("The in_strategy type must equal to the out_strategy type, one using tuple(tuple) and "
                             "the other using tuple(Layout) is not allowed.")
        if in_strategy is None:
            raise ValueError(f"The out_strategy of {self.name} is {out_strategy}, need to set in_strategy, "
                             f"but got none")
        if is_layout:
            for key, strategy, what in (("in_layout", in_strategy, "in_strategy"),
                                        ("out_layout", out_strategy, "out_strategy")):
                if strategy is not None:
                    self.add_prim_attr(key, self._layout_values(strategy, what))
        else:
            if in_strategy is not None:
                self.add_prim_attr("in_strategy", in_strategy)
            if out_strategy is not None:
                self.add_prim_attr("out_strategy", out_strategy)
        return self

    def _nested_strategy(self) -> bool:
        """Whether this op takes tuples of Layouts per input (MindSpore's short list, or a Custom op
        declaring its own sharding)."""
        return self.name in _TUPLE_IN_TUPLE_STRATEGY or bool(self.attrs.get("self_define_shard", False))

    def _check_shard_strategy(self, strategy, what: str):
        """None for an empty strategy, else whether it is given as Layouts (decided, as in
        MindSpore, by its first item)."""
        if not isinstance(strategy, tuple):
            raise TypeError(f"{what} must be tuple type, but got:{type(strategy)}")
        if strategy == ():
            return None
        layout = _layout_class()
        kinds = []
        for item in strategy:
            if isinstance(item, layout):
                kinds.append(True)
                continue
            if not isinstance(item, tuple):
                raise TypeError(f"The element of strategy must be tuple/Layout type, but got:{type(item)}")
            for value in item:
                if not isinstance(value, int) and not self._nested_strategy():
                    raise TypeError(f"The {what}: {strategy} of {self.name} is not valid, the value of strategy "
                                    f"must be int type, but got:{type(value)}")
                if isinstance(value, layout):
                    kinds.append(True)
            kinds.append(False)
        return kinds[0]

    def _layout_values(self, strategy: tuple, what: str) -> tuple:
        layout = _layout_class()
        out = []
        for item in strategy:
            if isinstance(item, layout):
                out.append(_layout_value(item))
            elif isinstance(item, tuple):
                if not all(isinstance(x, layout) for x in item):
                    raise TypeError(f"The {what} item should be a object of class Layout.")
                out.append(tuple(_layout_value(x) for x in item))
            else:
                raise TypeError(f"The {what} item should be a object of class Layout or a tuple.")
        return tuple(out)

    def recompute(self, mode: bool = True) -> "Primitive":
        """Mark the op for recomputation in the backward pass (attribute `recompute`; like every
        attribute it then shadows this method on the instance, as in MindSpore). A memory choice
        that leaves values and gradients unchanged: pycompile keeps the activation. Returns the
        primitive."""
        validator.check_bool(mode)
        return self.add_prim_attr("recompute", mode)

    def set_stage(self, stage) -> "Primitive":
        """Record the pipeline stage of the op (attribute `stage`; MindSpore uses it in semi-auto
        parallel only and checks nothing). Returns the primitive."""
        return self.add_prim_attr("stage", stage)

    def place(self, role: str, rank_id: int) -> None:
        """Label the op with the process that should run it (`ms_role`, `rank_id` attributes;
        MindSpore's dynamic-cluster placement). Nothing happens in a scheduler process
        (MS_ROLE=MS_SCHED); data / hybrid / semi-auto / auto parallel modes refuse it. Returns None."""
        if knobs.get("MS_ROLE") == "MS_SCHED":
            return
        validator.check_non_negative_int(rank_id, "rank_id", "Primitive.place")
        validator.check_string(role, "MS_WORKER", "role", "Primitive.place")
        if auto_parallel.get_parallel_mode() != auto_parallel.ParallelMode.STAND_ALONE:
            raise RuntimeError("You are calling Primitive.place mixed with other parallel features: "
                               "'auto_parallel', 'data_parallel' and 'hybrid_parallel'. This case is still under "
                               "development and not supported yet. Please call Primitive.place without these "
                               "features.")
        self.add_prim_attr("ms_role", role)
        self.add_prim_attr("rank_id", rank_id)

    # ---- names and flags ----------------------------------------------------------------------
    def set_instance_name(self, instance_name: str) -> None:
        """Record the instance name on the op's node (MindSpore's C++ side; not readable back)."""
        if not isinstance(instance_name, str):
            raise _binding_error("set_instance_name", "arg0: str", self, instance_name)
        self.__dict__["_node_instance_name"] = instance_name

    def set_prim_instance_name(self, instance_name: str) -> "Primitive":
        """Name this instance (`instance_name`: in MindSpore, a Cell sets it to the attribute name
        holding the op; it names the op's node in graph dumps). Returns the primitive."""
        self.set_instance_name(instance_name)
        self.instance_name = instance_name
        return self

    def set_const_prim(self, is_const) -> None:
        """Flag the op as constant-foldable (a compiler hint, recorded). Returns None."""
        self.__dict__["_const_prim"] = self._flag("set_const_prim", is_const)

    def set_inplace_prim(self, inplace) -> None:
        """Flag the op as writing into its input (a compiler hint, recorded). Returns None."""
        self.__dict__["_inplace_prim"] = self._flag("set_inplace_prim", inplace)

    def _flag(self, method: str, value) -> bool:
        # the binding takes None and what defines a truth value (numbers, tensors), not containers or strings
        if value is not None and not hasattr(type(value), "__bool__"):
            raise _binding_error(method, "arg0: bool", self, value)
        return bool(value)

    def set_const_input_indexes(self, const_input_indexes) -> None:
        """Record which inputs are constants (a compiler hint): a sequence of ints. Returns None."""
        try:
            if isinstance(const_input_indexes, (str, bytes)):
                raise TypeError
            indexes = [operator.index(i) for i in const_input_indexes]
        except TypeError:
            raise _binding_error("set_const_input_indexes", "arg0: list[int]", self, const_input_indexes) from None
        self.__dict__["_const_input_indexes"] = indexes

    def set_user_data(self, key: str, value) -> None:
        """Keep `value` under `key` on the op (`get_user_data` reads it back). Returns None."""
        if not isinstance(key, str):
            raise _binding_error("set_user_data", "arg0: str, arg1: object", self, key, value)
        self.__dict__.setdefault("_user_data", {})[key] = value

    def get_user_data(self, key: str):
        """The value `set_user_data` kept under `key`; RuntimeError, MindSpore's words, when none."""
        if not isinstance(key, str):
            raise _binding_error("get_user_data", "arg0: str", self, key, returns="object")
        data = self.__dict__.get("_user_data", {})
        if key not in data:
            raise RuntimeError("The pointer[primitive_data] is null.")
        return data[key]

    def check_elim(self, *args):
        """Whether a call on these arguments can be folded while compiling, and its value:
        `(False, None)` unless a subclass says otherwise (as in MindSpore)."""
        return (False, None)

    @property
    def update_parameter(self) -> bool:
        """Whether the op writes a Parameter's value (False: MindSpore's Python attribute, which
        none of its public primitives sets)."""
        return bool(self.__dict__.get("_update_parameter", False))

    def __repr__(self) -> str:
        attrs = self.__dict__.get("attrs") or {}
        shown = ", ".join(f"{k}={v}" for k, v in attrs.items() if k not in Primitive._repr_ignore_list)
        return f"Prim[{self.name}]" + (f"<{shown}>" if shown else "")


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
