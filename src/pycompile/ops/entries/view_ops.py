"""MindSpore 2.10's view Primitives and the in-place helpers large-model code calls, by what the CPU wheel
does (recorded: tests/conformance/cases_view_ops.py) and, where it has no CPU kernel, by the
documentation (tests/ops/test_view_ops.py):

- `TransposeView()(x, perm)`, `TransposeExtView()(x, dim0, dim1)`, `SelectView()(x, index, dim)`: the
  transpose, the swap of two axes and x's slice `index` along `dim` (index in [0, size): the wheel
  refuses a negative one; pycompile's tensors are never views: each is the op's result).
- `CopyWithSlice()(dst, src)`: src written into dst, dst returned (PyNative: dst's buffer; graph code:
  the new value is the result - the name dst is not rebound there).
- `ops.reshape_(x, shape)`: ops.reshape (MindSpore documents it as that, not in place).
- `ops.stop_gradient_(x)`: no gradient flows through x from here on, returned None (the wheel's CPU build
  has no kernel: "Not found op InplaceStopGradient"). PyNative: the value is cut from the tape of
  every gradient being taken; graph code: the name x is rebound to stop_gradient(x) (the call's value
  there is that tensor, not None).
- `DumpGradient()(path, x, input_output)`: x, whose gradient (dout) is saved to `path` with np.save
  when the backward reaches it - in both modes (graph code calls the host once per backward). The
  wheel's CPU build computes the gradient and writes no file (its documentation lists Ascend only);
  the documented behaviour is what pycompile does.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry, primitive_class
from pycompile.ops.primitive import Primitive


@op_entry("transpose_view", primitive="TransposeView", functional=False,
          args=[Arg("input"), Arg("input_perm", "value")])
def transpose_view(input, input_perm):
    """input with its axes in the order input_perm (ops.transpose)."""
    return F.transpose(input, tuple(input_perm))


@op_entry("transpose_ext_view", primitive="TransposeExtView", functional=False,
          args=[Arg("input"), Arg("dim0", "value"), Arg("dim1", "value")])
def transpose_ext_view(input, dim0, dim1):
    """input with axes dim0 and dim1 swapped."""
    perm = list(range(input.ndim))
    a, b = dim0 % input.ndim, dim1 % input.ndim
    perm[a], perm[b] = perm[b], perm[a]
    return F.transpose(input, tuple(perm))


@op_entry("select_view", primitive="SelectView", functional=False,
          args=[Arg("input"), Arg("index", "value"), Arg("dim", "value")])
def select_view(input, index, dim):
    """input's slice `index` along `dim` (that axis removed)."""
    axis = dim % input.ndim
    size = input.shape[axis]
    if not 0 <= index < size:       # the wheel takes no negative index (its RuntimeError)
        raise OpRuntimeError(f"For 'SelectView', 'index' must be in [0, {size}), but got {index}.")
    return F.gather(input, index, axis)


@op_entry("copy_with_slice", primitive="CopyWithSlice", functional=False, args=[Arg("dst"), Arg("src")])
def copy_with_slice(dst, src):
    """src written into dst (dst's shape and dtype kept); dst returned."""
    return dst.copy_(src)


@op_entry("reshape_", args=[Arg("input"), Arg("shape", "value")])
def reshape_(input, shape):
    """ops.reshape(input, shape), as MindSpore documents it."""
    return F.reshape(input, shape)


def stop_gradient_(input):
    """No gradient flows through `input` from here on (see the module docstring); returns None in
    PyNative, stop_gradient(input) in graph code (where the name is rebound to it)."""
    from pycompile.ops.autodiff.api import stop_gradient
    from pycompile.ops.autodiff.tape import GradTracer, Leaf
    if not isinstance(input, TensorMethods):
        raise OpTypeError(f"For 'stop_gradient_', 'input' must be a Tensor, but got {type(input).__name__}.")
    cut = False
    value = input
    while isinstance(value, GradTracer):      # every gradient being taken (nested grads)
        value.source = (Leaf(value.primal, shadow=True), None)     # a source no cotangent leaves
        value, cut = value.primal, True
    if isinstance(input, Symbolic) and not cut:
        return stop_gradient(input)
    return None


stop_gradient_.__pycompile_inplace_fn__ = True


@primitive_class
class DumpGradient(Primitive):
    """`ops.DumpGradient()(path, x, input_output)` (see the module docstring)."""

    def __init__(self):
        super().__init__("DumpGradient")

    def __call__(self, path, x, input_output):
        from pycompile.ops.autodiff.custom import InsertGradientOf
        from pycompile.ops.custom_op import Custom
        if not isinstance(path, str):
            raise OpTypeError(f"For 'DumpGradient', 'path' must be a str, but got {type(path).__name__}.")
        if input_output not in ("in", "out"):
            raise OpValueError(f"For 'DumpGradient', 'input_output' must be 'in' or 'out', but got {input_output!r}.")

        def save(dout):
            np.save(path, np.asarray(dout))
            return dout

        def rule(dout):
            if isinstance(dout, Tensor):        # PyNative: the value is here
                save(dout.asnumpy())
                return dout
            # graph code: a host call in the backward
            return Custom(save, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")(dout)
        return InsertGradientOf(rule)(x)
