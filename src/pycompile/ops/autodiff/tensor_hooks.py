"""Tensor.register_hook / Tensor.hooks / Tensor.remove_hook: backward hooks on tensors, as
MindSpore 2.10 has them.

`hook(grad)` receives the gradient of the tensor - the sum over every use of it, as the wheel
gives it in PyNative and in graph code - and returns the gradient to use instead (None keeps it;
anything but a Tensor is the wheel's RuntimeError). Several hooks on one tensor run in the order
they were registered. Where a hook lives:

- on a Tensor or a Parameter the user holds (an input, a weight, or an input registered on inside
  the differentiated function: MindSpore keeps that one on the tensor too): on the object, until
  `handle.remove()` / `Tensor.remove_hook(handle.id)`. PyNative's tape applies it to the leaf's
  gradient; a compiled gradient applies a Parameter's hooks to the weight's gradient (changing
  them recompiles, as a Parameter's shape does), and a compiled gradient whose differentiated
  argument carries hooks is taken on the tape instead (the hooks belong to that call's object).
- on an intermediate value of a PyNative differentiation: on the tape, keyed by the op that made
  it, for that differentiation.
- in graph code (`z.register_hook(f)` inside @jit / construct): the value becomes
  CustomGrad(z) whose rule calls f, and `register_hook` returns the tensor itself, as MindSpore's
  graph does. MindSpore documents two limits there, which pycompile keeps as errors: one hook per
  tensor (the wheel's RuntimeError), and no hook on a tensor already used in the graph (the wheel
  happens to apply it to the earlier uses too; its documentation says it is not supported, and
  pycompile raises instead of reordering the graph built so far).
"""
from __future__ import annotations

import itertools
import weakref

from pycompile.common import context
from pycompile.common.abstract import Symbolic, TensorType
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.ops._table import OpRuntimeError, OpTypeError

_IDS = itertools.count(1)
_OWNERS: dict = {}          # handle id -> the dict holding the hook (removal finds it there)
TAPE: list = []             # [GradTracer, Leaf], handed over by tape.py (which imports this module)


class _TensorHookHandle:
    """What register_hook returns: `remove()` takes the hook off (MindSpore's class of that name)."""

    def __init__(self, tensor):
        self.id = None
        try:
            self.tensor_weakref = weakref.ref(tensor)
        except TypeError:                    # a tape value: no weak reference, the handle holds it
            self.tensor_weakref = lambda: tensor

    def remove(self):
        if self.id is not None:
            remove_hook(self.id)


def _check(hook):
    if not callable(hook) or isinstance(hook, type):
        raise OpTypeError(f"Expected a callable hook function, but got {type(hook).__name__}.")


def _object_hooks(t) -> dict:
    d = t.__dict__.get("_grad_hooks")
    if d is None:
        d = t.__dict__["_grad_hooks"] = {}
    return d


def hooks_of(t) -> list:
    """The hooks held by Tensor / Parameter `t`, in registration order."""
    d = getattr(t, "__dict__", {}).get("_grad_hooks")
    return list(d.values()) if d else []


def _add(table: dict, hook, tensor):
    handle = _TensorHookHandle(tensor)
    handle.id = next(_IDS)
    table[handle.id] = hook
    _OWNERS[handle.id] = (table, isinstance(tensor, Parameter))
    if isinstance(tensor, Parameter):
        context.specialization_changed("a backward hook of a Parameter was registered")
    return handle


def register_hook(self, hook):
    """Tensor.register_hook(hook): see the module docstring. Returns the handle (graph code: the
    tensor itself)."""
    _check(hook)
    GradTracer, Leaf = TAPE
    tracer = getattr(self, "_tracer", None)
    if isinstance(self, Symbolic) and getattr(tracer, "walks_code", False):
        return tracer.register_hook(self, hook)       # graph code: the builder's (compiler/builder.py)
    if isinstance(self, GradTracer):
        src, _ = self.source
        if isinstance(src, Leaf):           # a differentiated input or weight: its own object keeps it
            target = src.value
            if isinstance(target, Tensor):
                return _add(_object_hooks(target), hook, target)
        return _add(self.trace.hooks.setdefault((id(src), self.source[1]), {}), hook, self)
    if isinstance(self, Tensor):
        return _add(_object_hooks(self), hook, self)
    primal = getattr(self, "primal", None)          # another transformation's value (vmap, jvp)
    if primal is not None:
        return register_hook(primal, hook)
    raise OpTypeError(f"register_hook is not supported on a {type(self).__name__}")


def remove_hook(handle_id) -> None:
    """Tensor.remove_hook(handle_id): the hook registered under that id comes off (an unknown id
    does nothing, as in MindSpore)."""
    owner = _OWNERS.pop(handle_id, None)
    if owner is not None:
        table, is_param = owner
        table.pop(handle_id, None)
        if is_param:
            context.specialization_changed("a backward hook of a Parameter was removed")


def hooks(self) -> list:
    """Tensor.hooks(): the hooks registered on this tensor, in order."""
    GradTracer, Leaf = TAPE
    if isinstance(self, GradTracer):
        src, idx = self.source
        if isinstance(src, Leaf) and isinstance(src.value, Tensor):
            return hooks_of(src.value)
        return list(self.trace.hooks.get((id(src), idx), {}).values())
    return hooks_of(self)


def run_hooks(fns, g, call=None):
    """g through hooks `fns` in order (the caller has stepped its own trace aside); `call(fn,
    args)` runs a hook (graph code: the builder walks it as user code; PyNative: a plain call)."""
    for fn in fns:
        new = fn(g) if call is None else call(fn, [g])
        if new is None:
            continue
        if not isinstance(getattr(new, "_abstract", None), TensorType):
            raise OpRuntimeError(f"Tensor hook should be return Tensor, but get type: {type(new).__name__}.")
        g = new
    return g
