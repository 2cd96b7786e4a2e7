"""ops.Custom: MindSpore 2.10's custom operator on the CPU, func_type "pyfunc" and "aot" (issue 34).

`ops.Custom(func, out_shape, out_dtype, func_type="pyfunc", bprop=None)` calls `func` on NumPy
arrays (one per input) and takes its result as a Tensor of the declared shape and dtype
(`out_shape` / `out_dtype`: values, or functions of the inputs' shapes / dtypes, as MindSpore
calls them).

- PyNative: the op's `eager` calls `func` directly.
- Graph code (`@jit`, GRAPH_MODE): the op is one node, `CustomPyFunc`, whose C is a host call:
  the generated code calls the runtime's `py_call` (csrc/pycompile_rt.h, ABI 9) with the input
  and output buffers, and backend/runtime.py runs `func` under the GIL and writes its result into
  the output buffer. An exception `func` raises comes back out of the compiled call unchanged.
  A graph holding a pyfunc is not written to the on-disk compile cache (the call site's number is
  this process's).
- Gradient: `bprop(*inputs, out, dout)` replaces it in both modes (a CustomGrad around the
  result, as a Cell's bprop: ops/autodiff/custom.py). Without one, differentiating through the op
  raises MindSpore's RuntimeError "Illegal primitive Custom's bprop not defined".

What differs from the wheel (documented in docs/status.md): a result whose shape differs from
the declared one raises a ValueError naming both (MindSpore 2.10 keeps whatever came back), and
one of another dtype is converted to the declared dtype (MindSpore reinterprets its bytes).
func_type "aot" ("lib.so:function", ops/custom_aot.py) is a C function called through the same
op: its Site runs the kernel into the output buffer. Multiple outputs (a tuple out_shape of
shapes) and the other func_types ("hybrid", "akg", "tbe", "aicpu") raise a clear error.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.ops._table import OpRuntimeError, OpTypeError, apply
from pycompile.ops.defs.pyfunc import SITES, CustomPyFunc, Site
from pycompile.ops.grads import defgrad
from pycompile.ops.primitive import PrimitiveWithInfer

SUPPORTED = ["hybrid", "akg", "tbe", "aicpu", "aot", "pyfunc"]


@defgrad(CustomPyFunc)
def _no_bprop(g, out, inputs, site=0):
    raise OpRuntimeError("Illegal primitive Custom's bprop not defined")


class Custom(PrimitiveWithInfer):
    """ops.Custom(func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, reg_info=None)."""

    def __init__(self, func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, reg_info=None):
        PrimitiveWithInfer.__init__(self, "Custom")
        self.log_prefix = f"For 'Custom', 'func_type': {func_type}, 'func': {func}"
        if func_type not in SUPPORTED:
            raise ValueError(f"{self.log_prefix}, 'func_type' must be one of {SUPPORTED}, but got {func_type}")
        if func_type == "aot":
            func = self._aot(func, out_shape)
        elif func_type != "pyfunc":
            raise NotImplementedError(f"{self.log_prefix}: pycompile runs func_type 'pyfunc' (a Python function on "
                                      f"NumPy arrays) and 'aot' (a compiled C function in a shared object)")
        if func_type == "pyfunc" and not callable(func):
            raise TypeError(f"{self.log_prefix}, 'func' must be of type function, but got {type(func)}")
        if bprop is not None and not callable(bprop):
            raise TypeError(f"{self.log_prefix}, 'bprop' must be a function, but got {type(bprop)}")
        self.func, self.func_type, self.bprop = func, func_type, bprop
        self.out_shape, self.out_dtype, self.reg_info = out_shape, out_dtype, reg_info
        self._sites: dict = {}

    def _aot(self, func, out_shape):
        """func_type 'aot': "path/to/lib.so:function" (ops/custom_aot.py)."""
        from pycompile.ops.custom_aot import AotKernel
        if not isinstance(func, str):
            raise TypeError(f"{self.log_prefix}, 'func' must be of type str, but got {type(func)}")
        parts = func.split(":")
        if len(parts) != 2:
            raise TypeError(f"{self.log_prefix}, 'func' should be like 'file_name:func_name', but got {func}")
        if parts[0].endswith(("cu", "cpp", "cc")):
            raise NotImplementedError(f"{self.log_prefix}: pycompile loads a compiled shared object; build "
                                      f"{parts[0]} first (cc -shared -fPIC -O2 -o lib.so {parts[0]})")
        return AotKernel(func)

    def _out_type(self, types) -> TensorType:
        shape, dtype = self.out_shape, self.out_dtype
        if callable(shape):
            shape = shape(*[list(t.shape) for t in types])
        if callable(dtype) and not isinstance(dtype, mstype.DType):
            dtype = dtype(*[t.dtype for t in types])
        if not isinstance(shape, (tuple, list)):
            raise TypeError(f"{self.log_prefix}, 'out_shape' must be one of [tuple, list, function], but got "
                            f"{type(shape)}")
        if not isinstance(dtype, (mstype.DType, tuple, list)):
            raise TypeError(f"{self.log_prefix}, 'out_dtype' must be one of [mindspore.dtype, tuple, list, "
                            f"function], but got {type(dtype)}")
        if isinstance(dtype, (tuple, list)) or any(isinstance(d, (tuple, list)) for d in shape):
            if isinstance(dtype, (tuple, list)) and len(dtype) == 1 and (not shape or
                                                                       isinstance(shape[0], (tuple, list))):
                return self._out_type_one(shape[0] if shape else (), dtype[0])
            raise NotImplementedError(f"{self.log_prefix}: pycompile runs a pyfunc with one output (out_shape "
                                      f"{shape}, out_dtype {dtype})")
        return self._out_type_one(shape, dtype)

    def _out_type_one(self, shape, dtype) -> TensorType:
        if not isinstance(dtype, mstype.DType):
            raise TypeError(f"{self.log_prefix}, 'out_dtype' must be one of [mindspore.dtype, tuple, list, "
                            f"function], but got {type(dtype)}")
        try:
            dims = tuple(int(d) for d in shape)
        except (TypeError, ValueError):
            raise TypeError(f"{self.log_prefix}, 'out_shape' must hold ints, but got {shape}") from None
        if any(d < 0 for d in dims):
            raise ValueError(f"{self.log_prefix}: pycompile needs a static out_shape, but got {list(dims)}")
        return TensorType(dtype, dims)

    def _site(self, args) -> int:
        types = []
        for k, a in enumerate(args):
            t = getattr(a, "_abstract", None)
            if not isinstance(t, TensorType):
                raise OpTypeError(f"{self.log_prefix}: input {k} must be a Tensor, but got {type(a).__name__}")
            types.append(TensorType(t.dtype, tuple(t.shape)))
        key = tuple(types)
        site = self._sites.get(key)
        if site is None:
            name = getattr(self.func, "__name__", type(self.func).__name__)
            SITES.append(Site(self.func, key, self._out_type(types), name))
            site = self._sites[key] = len(SITES) - 1
        return site

    def __call__(self, *args):
        site = self._site(args)
        if self.bprop is None:
            return apply(CustomPyFunc, [list(args)], {"site": site})
        from pycompile.ops.autodiff import custom
        from pycompile.ops.autodiff.api import stop_gradient
        out = apply(CustomPyFunc, [[stop_gradient(a) for a in args]], {"site": site})
        bprop, n = self.bprop, len(args)

        def rule(dout, out_value, inputs):
            grads = custom.call_user(bprop, [*inputs, out_value, dout])
            if not isinstance(grads, (tuple, list)):
                grads = (grads,)
            if len(grads) < n:
                raise OpRuntimeError(f"For 'Custom', the bprop returned {len(grads)} gradients for {n} inputs")
            return list(grads[:n])
        return custom.custom(out, list(args), rule)

    def __repr__(self):
        return f"Prim[Custom]<func_type={self.func_type}>"
