"""`ms.saved_tensors_hooks(pack_hook, unpack_hook)`: how PyNative's tape keeps the tensors a
gradient rule reads.

While the context is active, every op the tape records passes each tensor its gradient rule will
read - an input, or its output - through `pack_hook` at once (in the forward pass), and keeps only
what that returns (any object); the backward pass hands the rule `unpack_hook(packed)` in place of
the tensor. Nested contexts: the innermost one applies. Nothing is packed where no gradient is being
recorded. This is MindSpore 2.10's behaviour, recorded from its wheel
(tests/conformance/cases_saved_hooks.py): Mul packs both inputs, Add none, Exp / Sigmoid / ReLU their
output, Sin its input, a product both operands - what each op's gradient reads.

Which tensors a rule reads is found by running it once on graph values of the op's types and
following the cotangents that are needed (the inputs being differentiated) back to its arguments
(`reads`): a value read only for its shape or dtype (ReduceSum's input, Reshape's) is not saved, and
neither is one only a cotangent nobody needs reads (x of `x * 1.0`, MindSpore's Muls). MindSpore's jit / GRAPH_MODE does not support
the context (its documentation); pycompile's compiled code ignores no hook silently: a `with` of it
in graph code is refused by the frontend like any other unsupported context manager.

`ms.register_saved_tensors_hooks(pack_hook, unpack_hook)` is MindSpore's decorator for the same in
graph mode: graph code that calls a function so decorated remembers the nodes it traced
(compiler/frontend.py), and a gradient taken through them (compiler/autodiff.py `pack_saved`) passes
what their rules read through pack_hook, in the forward's order, then through unpack_hook in the same
order - the order of MindSpore's graph (recorded: its prints and the gradients) - the hooks traced as
graph code. A function with if / for / while over the computation is refused there (a CompileError at
its line). In PyNative its wheel calls neither hook (recorded), and neither does pycompile.
"""
from __future__ import annotations

import contextvars
import functools

from pycompile.common.abstract import TensorType, type_of
from pycompile.common.tensor import TensorMethods
from pycompile.ops import tracing

# the active (pack_hook, unpack_hook) pairs, innermost last
_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("pycompile_saved_tensors_hooks", default=())
# [True] once a saved_tensors_hooks was made in this process: from then on PyNative's tape also records
# the ops on the arguments it does not differentiate (MindSpore saves for them too: `tape.Leaf`)
USED = [False]


class saved_tensors_hooks:  # noqa: N801 - MindSpore's name
    """A context manager: inside it, the tensors PyNative autodiff saves for the backward pass are
    packed by `pack_hook(tensor) -> object` when saved and restored by `unpack_hook(object) -> Tensor`
    when a gradient rule reads them (see the module's doc)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook
        self._tokens = []
        USED[0] = True

    def __enter__(self):
        self._tokens.append(_ACTIVE.set(_ACTIVE.get() + ((self.pack_hook, self.unpack_hook),)))
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _ACTIVE.reset(self._tokens.pop())
        return False


def register_saved_tensors_hooks(pack_hook, unpack_hook):
    """MindSpore's graph-mode form of `saved_tensors_hooks`, as a decorator: in graph code a gradient
    through the function packs and unpacks what its ops save; in PyNative the function runs as it is
    (its wheel calls neither hook there). See the module's doc."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            return fn(*args, **kwargs)
        wrapped.__pycompile_saved_hooks__ = (pack_hook, unpack_hook)
        return wrapped
    return decorate


def active():
    """The innermost (pack_hook, unpack_hook), or None."""
    hooks = _ACTIVE.get()
    return hooks[-1] if hooks else None


def reads(op, out, inputs: list, attrs: dict, needed: tuple) -> tuple:
    """Per value (out, then each input): whether op's gradient rule reads its data for the cotangents
    `needed` - found by running the rule once on graph values of the same types (cached), and
    following each needed cotangent back to the rule's arguments. A value read only for its shape
    or dtype, or only for a cotangent nobody needs (Mul's x for the gradient of a constant y), is
    not saved. Where the rule cannot be run so, every tensor is taken as read."""
    def kind(v):
        if isinstance(v, (list, tuple)):
            return tuple(kind(x) for x in v)
        return type_of(v) if _is_tensor(v) else ("const", type(v), repr(v))
    try:
        key = (op, kind(out), tuple(kind(x) for x in inputs), repr(sorted(attrs.items())), needed)
        hash(key)
    except TypeError:
        return (True,) * (1 + len(inputs))
    hit = _READS.get(key)
    if hit is None:
        try:
            hit = PROBE[0](op, out, inputs, attrs, needed)
        except Exception:  # noqa: BLE001 - a rule that cannot run on graph values: save everything
            hit = (True,) * (1 + len(inputs))
        _READS[key] = hit
    return hit


_READS: dict = {}
# [compiler.autodiff.gradient_reads]: runs a rule on graph values (the ops layer does not import the
# compiler; pycompile.api hands it over, as it hands jit to ops/autodiff/api.py)
PROBE: list = [None]


def _is_tensor(v) -> bool:
    return isinstance(getattr(v, "_abstract", None), TensorType) or isinstance(v, TensorMethods)


tracing.SAVED_HOOKS[0] = saved_tensors_hooks        # Cell.register_saved_tensors_hooks under a tracer
