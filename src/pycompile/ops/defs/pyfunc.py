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


def packed_parts(t: TensorType) -> int:
    """How many float64 runs of t.size hold an output of type t in a packed result: two for
    complex (real, imaginary) and 64-bit integers (high, low 32 bits), else one - each value exact."""
    return 2 if t.dtype.is_complex or t.dtype.np in (np.int64, np.uint64) else 1


def pack(arrays, types) -> np.ndarray:
    """Several outputs in one flat float64 array (packed_parts; custom_op.unpack reads it back)."""
    runs = []
    for a, t in zip(arrays, types):
        a = np.asarray(a).reshape(-1)
        if t.dtype.is_complex:
            runs += [a.real, a.imag]
        elif t.dtype.np in (np.int64, np.uint64):
            runs += [a >> 32, a & 0xFFFFFFFF]
        else:
            runs.append(a)
    return np.concatenate([r.astype(np.float64) for r in runs]) if runs else np.zeros(0)


@dataclass(frozen=True)
class Site:
    """One Custom called with one input signature: what the host call needs. With several outputs
    (`outs`), `out` is their packed float64 form (pack)."""
    func: object
    inputs: tuple          # TensorType per input
    out: TensorType
    name: str
    outs: tuple = ()       # TensorType per output, when there are several

    def run(self, arrays: list) -> np.ndarray:
        """func on the inputs, as an array of the declared shape and dtype (several: packed)."""
        declared = self.outs or (self.out,)
        if hasattr(self.func, "run_into"):        # a compiled kernel (ops/custom_aot.py) writes them
            outs = [np.empty(t.shape, t.dtype.np) for t in declared]
            self.func.run_into(arrays, outs if self.outs else outs[0])
            return pack(outs, declared) if self.outs else outs[0]
        res = self.func(*arrays)
        if not self.outs:
            if isinstance(res, (tuple, list)) and len(res) == 1:
                res = res[0]
            return self._fit(res, self.out)
        if not isinstance(res, (tuple, list)) or len(res) != len(self.outs):
            got = f"{len(res)} values" if isinstance(res, (tuple, list)) else type(res).__name__
            raise OpValueError(f"For 'Custom', the pyfunc '{self.name}' must return {len(self.outs)} values (one per "
                               f"out_shape), but returned {got}")
        return pack([self._fit(r, t) for r, t in zip(res, self.outs)], self.outs)

    def _fit(self, res, t: TensorType) -> np.ndarray:
        arr = np.asarray(res)
        if arr.shape != t.shape:
            if arr.size == t.size and arr.size == 1:
                arr = arr.reshape(t.shape)
            else:
                raise OpValueError(f"For 'Custom', the pyfunc '{self.name}' returned a value of shape "
                                   f"{list(arr.shape)}, but out_shape says {list(t.shape)}")
        return np.ascontiguousarray(arr.astype(t.dtype.np, copy=False))


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
