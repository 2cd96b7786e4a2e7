"""Cell hooks (issue 34): `register_forward_pre_hook`, `register_forward_hook`,
`register_backward_hook`, and a Cell's own `bprop`, applied around `construct` in PyNative and
in graph code alike.

- forward pre-hook `hook(cell, args)` (with_kwargs: `hook(cell, args, kwargs)`): None keeps the
  arguments, a value replaces them (a non-tuple is the single argument; with_kwargs, an
  (args, kwargs) pair).
- forward hook `hook(cell, args, output)` (with_kwargs: `hook(cell, args, kwargs, output)`):
  None keeps the output, a value replaces it. It sees the arguments after the pre-hooks.
- backward hook `hook(cell, grad_input, grad_output)`: called by the backward pass with the
  gradient of the Cell's input and of its output (tuples); None keeps grad_input, a tuple
  replaces it (ops/autodiff/custom.py; Cells with one tensor input and output).
- a Cell defining `bprop(self, *inputs, out, dout)`: its gradient replaces construct's.

Hooks run in registration order (prepend=True puts one first). A compiled Cell recompiles when
its own hooks change; a compiled parent Cell keeps the hooks it was compiled with (MindSpore
2.10 keeps them too).
"""
from __future__ import annotations

from collections import OrderedDict

from pycompile.common.cellbase import bump
from pycompile.common.hook_handle import HookHandle
from pycompile.errors import GraphTypeError as UserTypeError
from pycompile.ops.autodiff import custom


def _hooks(cell, kind: str) -> OrderedDict:
    d = cell.__dict__.setdefault("_hooks", {})
    return d.setdefault(kind, OrderedDict())


def register(cell, kind: str, hook_fn, prepend: bool = False, **flags) -> HookHandle:
    if not callable(hook_fn):
        raise UserTypeError(f"When using 'register_{kind}_hook(hook_fn)', the type of 'hook_fn' must be python "
                            f"function, but got {type(hook_fn)}.")
    hooks = _hooks(cell, kind)

    def changed():
        bump(cell)
    handle = HookHandle(hooks, changed)
    hooks[handle.handle_id] = (hook_fn, flags)
    if prepend:
        hooks.move_to_end(handle.handle_id, last=False)
    changed()
    return handle


invoke = custom.invoke  # (in ops/autodiff/custom.py: the compiler calls it too)
