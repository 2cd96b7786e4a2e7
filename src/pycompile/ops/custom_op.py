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
op: its Site runs the kernel into the output buffer. Several outputs (out_shape a tuple of shapes,
out_dtype a tuple of dtypes or one for all): the function returns a tuple (an aot kernel gets the
output buffers after the inputs), the one host call hands them back packed in one float64 buffer
(each value exact: 64-bit integers as two 32-bit halves, complex as two real runs) and the op
returns them as a tuple; bprop gets out and dout as tuples. The other func_types ("hybrid",
"akg", "tbe", "aicpu") raise a clear error.
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.ops._table import OpRuntimeError, OpTypeError, apply
from pycompile.ops.defs import complex as CX
from pycompile.ops.defs.pyfunc import SITES, CustomPyFunc, Site, packed_parts
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
        nested = any(isinstance(d, (tuple, list)) for d in shape)
        if not isinstance(dtype, (tuple, list)) and not nested:
            return self._out_type_one(shape, dtype)
        shapes = list(shape) if nested else [shape]
        dtypes = list(dtype) if isinstance(dtype, (tuple, list)) else [dtype] * len(shapes)
        if len(shapes) != len(dtypes):
            raise ValueError(f"{self.log_prefix}, 'out_shape' and 'out_dtype' must describe the same number of "
                             f"outputs, but got {len(shapes)} shapes and {len(dtypes)} dtypes")
        outs = tuple(self._out_type_one(sh, dt) for sh, dt in zip(shapes, dtypes))
        return outs[0] if len(outs) == 1 else outs

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
            out = self._out_type(types)
            if isinstance(out, tuple):          # several outputs: one host call returns them packed
                size = sum(t.size * packed_parts(t) for t in out)
                SITES.append(Site(self.func, key, TensorType(mstype.float64, (size,)), name, out))
            else:
                SITES.append(Site(self.func, key, out, name))
            site = self._sites[key] = len(SITES) - 1
        return site

    def __call__(self, *args):
        site = self._site(args)
        outs = SITES[site].outs
        if self.bprop is None:
            out = apply(CustomPyFunc, [list(args)], {"site": site})
            return unpack(out, outs) if outs else out
        from pycompile.ops.autodiff import custom
        from pycompile.ops.autodiff.api import stop_gradient
        out = apply(CustomPyFunc, [[stop_gradient(a) for a in args]], {"site": site})
        bprop, n = self.bprop, len(args)

        def rule(dout, out_value, inputs):
            if outs:        # bprop sees out and dout as tuples (MindSpore's form); dout packed back
                out_value, dout = unpack(out_value, outs), unpack(dout, outs)
            grads = custom.call_user(bprop, [*inputs, out_value, dout])
            if not isinstance(grads, (tuple, list)):
                grads = (grads,)
            if len(grads) < n:
                raise OpRuntimeError(f"For 'Custom', the bprop returned {len(grads)} gradients for {n} inputs")
            return list(grads[:n])
        res = custom.custom(out, list(args), rule)
        return unpack(res, outs) if outs else res

    def __repr__(self):
        return f"Prim[Custom]<func_type={self.func_type}>"


def unpack(flat, types) -> tuple:
    """The outputs of types from their packed float64 form (defs/pyfunc.pack), each cast back to its
    dtype exactly: 64-bit integers from their high and low halves, complex from two real runs."""
    from pycompile.ops import functional as F
    out, k = [], 0

    def run(t):
        nonlocal k
        part = F.reshape(flat[k:k + t.size], tuple(t.shape))
        k += t.size
        return part
    for t in types:
        if t.dtype.is_complex:
            part_type = mstype.float32 if t.dtype == mstype.complex64 else mstype.float64
            real, imag = F.cast(run(t), part_type), F.cast(run(t), part_type)
            part = apply(CX.Complex, [real, imag])
        elif t.dtype.np in (np.int64, np.uint64):
            hi, lo = F.cast(run(t), t.dtype), F.cast(run(t), t.dtype)
            part = F.add(F.mul(hi, 2 ** 32), lo)
        else:
            part = F.cast(run(t), t.dtype)
        out.append(part)
    return tuple(out)
