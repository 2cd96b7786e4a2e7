"""CustomPyFunc: the op of ops.Custom(func_type="pyfunc") (ops/custom_op.py): a user's Python
function on NumPy arrays. Its attribute `site` numbers a (Custom, input signature) pair in SITES,
which holds the function and the declared output; compiled code reaches it through the runtime's
py_call (backend/runtime.py, csrc/pycompile_rt.h ABI 9)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pycompile.common.abstract import TensorType
from pycompile.ops._table import Kind, OpValueError, defop
from pycompile.ops.lowering import EffectCode

__all__ = ["CustomPyFunc"]


@dataclass(frozen=True)
class Site:
    """One Custom called with one input signature: what the host call needs."""
    func: object
    inputs: tuple          # TensorType per input
    out: TensorType
    name: str

    def run(self, arrays: list) -> np.ndarray:
        """func on the inputs, as an array of the declared shape and dtype."""
        if hasattr(self.func, "run_into"):        # a compiled kernel (ops/custom_aot.py) writes it
            out = np.empty(self.out.shape, self.out.dtype.np)
            self.func.run_into(arrays, out)
            return out
        res = self.func(*arrays)
        if isinstance(res, (tuple, list)) and len(res) == 1:
            res = res[0]
        arr = np.asarray(res)
        if arr.shape != self.out.shape:
            if arr.size == self.out.size and arr.size == 1:
                arr = arr.reshape(self.out.shape)
            else:
                raise OpValueError(f"For 'Custom', the pyfunc '{self.name}' returned a value of shape "
                                   f"{list(arr.shape)}, but out_shape says {list(self.out.shape)}")
        return np.ascontiguousarray(arr.astype(self.out.dtype.np, copy=False))


SITES: list[Site] = []


def _infer(types, site=0):
    return SITES[site].out


def _eager(inputs, site=0):
    return SITES[site].run([np.array(x) for x in inputs])


CustomPyFunc = defop("CustomPyFunc", ("inputs",), attrs={"site": 0}, variadic=True, infer=_infer, eager=_eager,
                     kind=Kind.EFFECT, lower=EffectCode("pyfunc"), cse=False, movable=False, speculatable=False,
                     batch="loop", any_dtype=True,
                     doc="ops.Custom(func_type='pyfunc'): a Python function on NumPy arrays (a host call from "
                         "compiled code): ops/custom_op.py")
