"""Gradients a user writes: a Cell's `bprop`, `ops.InsertGradientOf`, `ops.HookBackward` and the
backward hooks of `Cell.register_backward_hook` (issue 34).

All are one op, `CustomGrad(x, inputs, rule=k)` (ops/defs/backprop.py): its value is `x` (a view,
no code), and its gradient rule calls user rule k with the cotangent of `x`, returning the
cotangents of `inputs`. `x` itself gets none. Because it is an ordinary op of the table, the
PyNative tape and the compiler's reverse mode both honour it, and a rule written with ops is
differentiable in turn (grad of grad).

- A Cell with `bprop(self, *inputs, out, dout)`: construct runs on `stop_gradient` of its
  inputs (so nothing flows through it, and its weights get zero gradients, as in MindSpore);
  its output passes through CustomGrad whose rule is bprop.
- InsertGradientOf(f): CustomGrad(x, [x]) with rule f(dout).
- HookBackward(hook): in PyNative, CustomGrad(x, [x]) whose rule calls hook((dout,)); a Tensor
  returned replaces the gradient, None keeps it. In graph code MindSpore 2.10 ignores it (the
  hook never runs): so does pycompile.
- Backward hooks of a Cell: the Cell's input passes through a CustomGrad whose rule calls the
  hooks with (cell, (grad of the input,), (grad of the output,)); the output passes through one
  that saves the output's gradient for it.

A rule is kept in a registry by number (an IR node's attributes hold plain values); it lives
as long as the process, like MindSpore's registered hooks.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import Symbolic, TensorType
from pycompile.ops import prims as P
from pycompile.ops import tracing
from pycompile.ops._table import OpRuntimeError, OpTypeError, apply
from pycompile.ops.grads import defgrad

RULES: list = []


def _register(rule) -> int:
    RULES.append(rule)
    return len(RULES) - 1


def _is_tensor(v) -> bool:
    return isinstance(getattr(v, "_abstract", None), TensorType)


def _graph(values) -> bool:
    return any(isinstance(v, Symbolic) and getattr(v._tracer, "walks_code", False)
               for v in tracing._leaves(values))


def call_user(fn, args):
    """fn(*args); in graph code the builder walks `fn` as user code."""
    for x in tracing._leaves(args):
        if isinstance(x, Symbolic) and getattr(x._tracer, "walks_code", False):
            return x._tracer.call_cell(fn, list(args), {})
    return fn(*args)


@defgrad(P.CustomGrad)
def _custom_grad(g, out, x, inputs, rule=0):
    return None, list((RULES[rule] if isinstance(rule, int) else rule)(g, out, inputs))


def custom(x, inputs: list, rule) -> object:
    """x, whose gradient is rule(dout, out, inputs) -> one cotangent (or None) per input. In
    graph code the node's attribute is the rule's number in RULES (registered once per
    compilation); PyNative's tape holds the rule itself, so nothing accumulates per call."""
    if not inputs:
        return x
    key = _register(rule) if _graph([x, inputs]) else rule
    return apply(P.CustomGrad, [x, list(inputs)], {"rule": key})


# ---- packing several tensors into one (a Cell with several inputs or outputs) -------------------------

def _pack(cell, values: list, what: str):
    """One flat tensor holding `values` (tensors of one dtype) and the function splitting a flat
    tensor of that layout back into a tuple: a rule that must see the cotangents of several
    tensors at once (a bprop of a Cell with two outputs, a backward hook of one with two inputs)
    puts one CustomGrad on the flat tensor, whose cotangent holds them all."""
    from pycompile.ops import functional as F
    dtypes = {v._abstract.dtype for v in values}
    if len(dtypes) > 1:
        raise OpTypeError(f"For '{type(cell).__name__}', pycompile runs a bprop or backward hook on a Cell whose "
                          f"tensor {what} share one dtype, but got {sorted(d.name for d in dtypes)}")
    shapes = [tuple(v._abstract.shape) for v in values]
    sizes = [int(np.prod(sh, dtype=np.int64)) for sh in shapes]
    flat = F.concat([F.reshape(v, (-1,)) for v in values])

    def unpack(f):
        out, k = [], 0
        for sh, n in zip(shapes, sizes):
            out.append(F.reshape(f[k:k + n], sh))
            k += n
        return tuple(out)
    return flat, unpack


def _tensor_tuple(out) -> bool:
    return isinstance(out, (tuple, list)) and len(out) > 0 and all(_is_tensor(o) for o in out)


# ---- a Cell's bprop -----------------------------------------------------------------------------------

def call_with_bprop(cell, args: list, kwargs: dict, run):
    """The output of Cell `cell` that defines `bprop`: `run(args, kwargs)` runs construct. A tuple
    of tensors out: bprop gets out and dout as tuples (MindSpore's form)."""
    from pycompile.ops.autodiff.api import stop_gradient
    tensors = [i for i, a in enumerate(args) if _is_tensor(a)]
    out = run([stop_gradient(a) if i in tensors else a for i, a in enumerate(args)], kwargs)
    unpack = None
    if _tensor_tuple(out):
        kind = type(out)
        flat, unpack = _pack(cell, list(out), "outputs")
    elif _is_tensor(out):
        flat = out
    else:
        if not any(_is_tensor(a) for a in tracing._leaves([out])):
            return out
        raise OpTypeError(f"For '{type(cell).__name__}', a Cell with a bprop must return a tensor or a tuple of "
                          f"tensors in pycompile")
    n_args = len(args)

    def rule(dout, out_value, inputs):
        if unpack is not None:
            out_value, dout = unpack(out_value), unpack(dout)
        grads = call_user(cell.bprop, [*args_with(inputs), out_value, dout])
        if not isinstance(grads, (tuple, list)):
            grads = (grads,)
        if len(grads) < n_args:
            if _graph([dout]):
                raise OpRuntimeError(f"The output size of the 'bprop' must match the number of parameters in its "
                                     f"corresponding primal function '{type(cell).__name__}()' : "
                                     f"{len(grads)} vs. {n_args}.")
            raise OpRuntimeError(f"Grad size should lager than forward inputs, but got {len(grads)} vs {n_args}")
        return [grads[i] for i in tensors]

    def args_with(inputs):
        full = list(args)
        for i, v in zip(tensors, inputs):
            full[i] = v
        return full

    res = custom(flat, [args[i] for i in tensors], rule)
    return res if unpack is None else kind(unpack(res))


# ---- InsertGradientOf / HookBackward --------------------------------------------------------------------

class InsertGradientOf:
    """ops.InsertGradientOf(f): the identity, whose gradient is f(gradient) (in both modes)."""

    def __init__(self, f):
        self.f = f

    def __call__(self, x):
        f = self.f
        return custom(x, [x], lambda dout, out, inputs: (call_user(f, [dout]),))


class HookBackward:
    """ops.HookBackward(hook_fn, cell_id=""): the identity; in PyNative, the backward pass calls
    hook_fn((gradient,)) and a Tensor it returns replaces the gradient. MindSpore 2.10 ignores it
    in graph code (the hook never runs): so does pycompile."""

    def __init__(self, hook_fn, cell_id=""):
        if not callable(hook_fn):
            raise OpTypeError(f"For 'HookBackward', the 'hook_fn' should be a function, but got "
                              f"{type(hook_fn).__name__}")
        self.hook_fn, self.cell_id = hook_fn, cell_id

    def __call__(self, *args):
        if _graph(args):
            return args[0] if len(args) == 1 else args
        hook = self.hook_fn
        name = getattr(hook, "__name__", type(hook).__name__)

        def rule(dout, out, inputs):
            new = hook((dout,))
            if new is None:
                return (dout,)
            if isinstance(new, tuple) and len(new) == 1:
                new = new[0]        # MindSpore 2.10 takes a tuple of one gradient as well
            if not _is_tensor(new):
                raise OpTypeError(f"The output type of function: {name} should be a tensor but got "
                                  f"{type(new).__name__}.")
            return (new,)
        if len(args) != 1:
            raise OpTypeError("For 'HookBackward', pycompile hooks one tensor input")
        return custom(args[0], [args[0]], rule)


# ---- backward hooks of a Cell ---------------------------------------------------------------------------

def call_with_backward_hooks(cell, hooks, args: list, kwargs: dict, run):
    """Cell `cell` called with its backward hooks (a list of hook_fn(cell, grad_input,
    grad_output) -> None or new grad_input). grad_input holds the gradient of each tensor input,
    grad_output that of each tensor output (MindSpore's tuples); with several inputs (outputs)
    they travel packed in one tensor (_pack), so one rule sees them all."""
    tensors = [i for i, a in enumerate(args) if _is_tensor(a)]
    if not tensors:
        raise OpTypeError(f"For '{type(cell).__name__}', pycompile runs backward hooks on Cells with a tensor input")
    name = type(cell).__name__
    saved = {}
    args = list(args)
    if len(tensors) == 1:
        flat, unpack_in = args[tensors[0]], None
    else:
        flat, unpack_in = _pack(cell, [args[i] for i in tensors], "inputs")

    def input_rule(dout, out, inputs):
        gin = (dout,) if unpack_in is None else unpack_in(dout)
        gout = saved.get("gout", (dout,))
        for hook in hooks:
            new = call_user(hook, [cell, gin, gout])
            if new is None:
                continue
            new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
            if len(new) != len(gin):
                raise OpTypeError(f"The backward hook return value size is {len(new)} not equal to expect grad input "
                                  f"size {len(gin)}")
            gin = new
        if unpack_in is None:
            return (gin[0],)
        from pycompile.ops import functional as F
        return (F.concat([F.reshape(g, (-1,)) for g in gin]),)

    hooked = custom(flat, [flat], input_rule)
    if unpack_in is None:
        args[tensors[0]] = hooked
    else:
        for i, v in zip(tensors, unpack_in(hooked)):
            args[i] = v
    out = run(args, kwargs)
    if _tensor_tuple(out):
        kind = type(out)
        oflat, unpack_out = _pack(cell, list(out), "outputs")
    elif _is_tensor(out):
        oflat, unpack_out = out, None
    else:
        raise OpTypeError(f"For '{name}', pycompile runs backward hooks on Cells returning tensors")

    def output_rule(dout, out, inputs):
        saved["gout"] = (dout,) if unpack_out is None else unpack_out(dout)
        return (dout,)

    res = custom(oflat, [oflat], output_rule)
    return res if unpack_out is None else kind(unpack_out(res))


# ---- a Cell's hooks and bprop around construct (registered by nn/hooks.py) -------------------------

def has_any(cell) -> bool:
    d = cell.__dict__.get("_hooks")
    return bool(d and any(d.values())) or getattr(type(cell), "bprop", None) is not None


def invoke(cell, args, kwargs, run):
    """`run(args, kwargs)` (construct) with the Cell's hooks and bprop around it."""
    d = cell.__dict__.get("_hooks") or {}
    call = call_user
    args, kwargs = list(args), dict(kwargs or {})
    for hook, flags in list(d.get("forward_pre", {}).values()):
        if flags.get("with_kwargs"):
            r = call(hook, [cell, tuple(args), kwargs])
            if r is not None:
                args, kwargs = list(r[0]), dict(r[1])
        else:
            r = call(hook, [cell, tuple(args)])
            if r is not None:
                args = list(r) if isinstance(r, tuple) else [r]
    inner = run
    if getattr(type(cell), "bprop", None) is not None:
        inner = lambda a, k: call_with_bprop(cell, a, k, run)  # noqa: E731
    backward = [h for h, _ in d.get("backward", {}).values()]
    if backward:
        out = call_with_backward_hooks(cell, backward, args, kwargs, inner)
    else:
        out = inner(args, kwargs)
    for hook, flags in list(d.get("forward", {}).values()):
        if flags.get("with_kwargs"):
            r = call(hook, [cell, tuple(args), kwargs, out])
        else:
            r = call(hook, [cell, tuple(args), out])
        if r is not None:
            out = r
    return out


tracing.CELL_HOOKS[0] = invoke
