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


# ---- a Cell's bprop -----------------------------------------------------------------------------------

def call_with_bprop(cell, args: list, kwargs: dict, run):
    """The output of Cell `cell` that defines `bprop`: `run(args, kwargs)` runs construct."""
    from pycompile.ops.autodiff.api import stop_gradient
    tensors = [i for i, a in enumerate(args) if _is_tensor(a)]
    out = run([stop_gradient(a) if i in tensors else a for i, a in enumerate(args)], kwargs)
    if not _is_tensor(out):
        if not any(_is_tensor(a) for a in tracing._leaves([out])):
            return out
        raise OpTypeError(f"For '{type(cell).__name__}', a Cell with a bprop must return one tensor in pycompile "
                          f"(a tuple output is not supported yet)")
    n_args = len(args)

    def rule(dout, out_value, inputs):
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

    return custom(out, [args[i] for i in tensors], rule)


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
    grad_output) -> None or new grad_input)."""
    tensors = [i for i, a in enumerate(args) if _is_tensor(a)]
    if len(tensors) != 1:
        raise OpTypeError(f"For '{type(cell).__name__}', pycompile runs backward hooks on Cells with one tensor "
                          f"input (got {len(tensors)})")
    k = tensors[0]
    saved = {}

    def input_rule(dout, out, inputs):
        gin = (dout,)
        for hook in hooks:
            new = call_user(hook, [cell, gin, (saved.get("gout", dout),)])
            if new is not None:
                gin = tuple(new) if isinstance(new, (tuple, list)) else (new,)
        return (gin[0],)

    def output_rule(dout, out, inputs):
        saved["gout"] = dout
        return (dout,)

    args = list(args)
    args[k] = custom(args[k], [args[k]], input_rule)
    out = run(args, kwargs)
    if not _is_tensor(out):
        raise OpTypeError(f"For '{type(cell).__name__}', pycompile runs backward hooks on Cells returning one "
                          f"tensor")
    return custom(out, [out], output_rule)


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
