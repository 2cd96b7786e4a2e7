"""Ops with effects and the structural ops of MindSpore's side-effect IR.

Assign writes a Parameter (memory effect), Print writes to stdout (IO effect), the NPU
float-status ops read / clear the emulated status register of the Ascend-style device
(status effect; ordered by Depend, as on MindSpore). Load / UpdateState / Depend / MakeTuple /
TensorMove are how graphs order and preserve those effects (see spec: "Dependency Control").
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import RefType, TensorType, TupleType
from pycompile.common.tensor import parameters_written
from pycompile.ops._table import (STATUS_TRACKING, Effect, Kind, OpDef, OpRuntimeError, OpTypeError, OpValueError,
                                  defop, describe)
from pycompile.ops.lowering import Copy, EffectCode, Ordering, Template, View


def _assign_infer(types):
    ref, value = types
    target = ref.tensor if isinstance(ref, RefType) else ref
    if not isinstance(target, TensorType):
        raise OpTypeError(f"For 'Assign', 'variable' must be a Parameter, but got {describe(ref)}")
    if isinstance(value, TensorType) and value.shape != target.shape and value.size != target.size:
        raise OpValueError(
            f"For 'Assign', 'value' must have the shape of 'variable' {list(target.shape)}, "
            f"but got {list(value.shape)}")
    return target


def _assign_eager(ref, value):
    # `ref` is the Parameter's own NumPy buffer: write in place so that every holder of the
    # Parameter (PyNative code, compiled executables) sees the new value.
    value = np.asarray(value)
    ref[...] = value.reshape(ref.shape) if value.size == ref.size else value   # a Python number fills
    parameters_written()
    return ref


Assign = defop("Assign", ("variable", "value"), infer=_assign_infer, eager=_assign_eager,
               kind=Kind.EFFECT, effect=Effect.MEM, lower=EffectCode("assign", alias=True), batch="assign")

Load = defop("Load", ("variable",), infer=lambda types: types[0].tensor if isinstance(types[0], RefType) else types[0],
             eager=lambda ref: ref, kind=Kind.EFFECT, lower=View(), movable=False,
             doc="read a Parameter at the point of the memory state given as last input")

TensorMove = defop("TensorMove", ("x",), infer=lambda types: types[0], eager=lambda x: np.array(x, copy=True),
                   kind=Kind.LAYOUT, lower=Copy(), cse=False, movable=False, batch="depend",
                   doc="a real copy that keeps a loaded value alive")


def _depend_infer(types):
    return types[0]


Depend = defop("Depend", ("value", "expr"), infer=_depend_infer, eager=lambda value, expr: value,
               kind=Kind.EFFECT, lower=View(), batch="depend", movable=False,
               doc="returns `value`, executed after `expr`")

UpdateState = defop("UpdateState", ("state", "expr"), infer=lambda types: types[0],
                    eager=lambda state, expr: state, kind=Kind.EFFECT, lower=Ordering(), cse=False,
                    movable=False)

MakeTuple = defop("MakeTuple", ("elems",), infer=lambda types: types[0], variadic=True,
                  eager=lambda elems: tuple(elems), kind=Kind.EFFECT, lower=Ordering(), cse=False,
                  movable=False)


def _addn_infer(types):
    elems = types[0].elems if isinstance(types[0], TupleType) else ()
    if not elems:
        raise OpTypeError("For 'AddN', the input must be a non-empty tuple of Tensors")
    first = elems[0]
    for t in elems[1:]:
        if t != first:
            raise OpTypeError(f"For 'AddN', all inputs must have the same shape and dtype, but got "
                              f"{describe(first)} and {describe(t)}")
    return first


def _addn_parts(*xs):
    """x0 + x1 + ... left to right (Add's rounding after each, as the template's chain)."""
    from pycompile.ops.defs.elementwise import Add, call
    if len(xs) == 1 and isinstance(xs[0], (tuple, list)):       # (PyNative hands the tuple)
        xs = tuple(xs[0])
    out = xs[0]
    for x in xs[1:]:
        out = call(Add, out, x)
    return out


def _addn_eager(xs):
    """x0 + x1 + ... left to right, as its decomposition (np.sum starts from +0: -0 + -0 gave +0,
    MindSpore -0)."""
    out = np.asarray(xs[0])
    for x in xs[1:]:
        out = np.add(out, x, dtype=out.dtype)
    return out


AddN = defop("AddN", ("inputs",), infer=_addn_infer, variadic=True, eager=_addn_eager,
             kind=Kind.REDUCE, lower=Template("addn"), batch="leading", decompose=_addn_parts)


def _print_infer(types, format=()):
    return TensorType(mstype.int32, ())


def _print_eager(values, format=()):
    from pycompile.common import _format
    lines = []
    for kind, v in format:
        if kind == "str":
            lines.append(v)
        else:
            arr = np.asarray(values[v])
            lines.append(_format.tensor_repr(arr, mstype.from_numpy(arr.dtype).name))
    print("\n".join(lines), flush=True)
    return np.zeros((), np.int32)


Print = defop("Print", ("inputs",), attrs={"format": ()}, infer=_print_infer, variadic=True,
              eager=_print_eager, kind=Kind.EFFECT, effect=Effect.IO, lower=EffectCode("print", static_result="PC_PRINT_RESULT"),
              doc="print strings and tensors in program order")

# ---- the emulated NPU float-status register (Ascend-style device) ------------------------------
FLOAT_STATUS_SHAPE = (8,)


def _status_device(op_name: str) -> None:
    """The current device must emulate the float-status register (the backend keeps
    STATUS_TRACKING in step with the device_target)."""
    if not STATUS_TRACKING[0]:
        from pycompile.common.context import get_context
        raise OpRuntimeError(
            f"For '{op_name}', the float-status operators need the Ascend device, but the current device "
            f"is {get_context('device_target')}. Use set_context(device_target='Ascend') (pycompile's Ascend-style "
            f"stub runs on the CPU), or check values portably with ops.isfinite / ops.all_finite.")


def _status_infer(name):
    def infer(types):
        _status_device(name)
        return TensorType(mstype.float32, FLOAT_STATUS_SHAPE)
    return infer


def _status_update_infer(name):
    """NPUClearFloatStatus / NPUGetFloatStatus write their input (the tensor NPUAllocFloatStatus
    made) in place and return that memory, as MindSpore's loss-scale code expects: it reads
    `init` after `get_status(init)`. Float16 or float32, any shape with at least 2 elements."""
    def infer(types):
        _status_device(name)
        t = types[0]
        if not isinstance(t, TensorType) or t.dtype not in (mstype.float16, mstype.float32):
            raise OpTypeError(f"For '{name}', the input must be a float16 or float32 Tensor "
                              f"(the output of NPUAllocFloatStatus), but got {t}")
        if t.size < 2:
            raise OpValueError(f"For '{name}', the status tensor needs at least 2 elements, but got shape {t.shape}")
        return t
    return infer


def _status_alloc():
    return np.zeros(FLOAT_STATUS_SHAPE, np.float32)


def _status_clear(addr):
    from pycompile._rt import lib
    lib.pc_status_clear()
    addr[...] = 0
    return addr


def _status_get(addr):
    from pycompile._rt import lib
    bits = lib.pc_status_get()
    addr[...] = 0
    flat = addr.reshape(-1)
    flat[0], flat[1] = float(bits & 1), float((bits >> 1) & 1)
    return addr


def status_vector(bits: int) -> np.ndarray:
    """The status tensor for register bits: element 0 overflow, element 1 invalid (NaN)."""
    out = np.zeros(FLOAT_STATUS_SHAPE, np.float32)
    out[0] = float(bits & 1)
    out[1] = float((bits >> 1) & 1)
    return out


NPUAllocFloatStatus = defop("NPUAllocFloatStatus", (), infer=_status_infer("NPUAllocFloatStatus"),
                            eager=_status_alloc, kind=Kind.EFFECT, effect=Effect.STATUS,
                            lower=EffectCode("status_alloc"))
NPUClearFloatStatus = defop("NPUClearFloatStatus", ("addr",), infer=_status_update_infer("NPUClearFloatStatus"),
                            eager=_status_clear, kind=Kind.EFFECT, effect=Effect.STATUS,
                            lower=EffectCode("status_clear", alias=True))
NPUGetFloatStatus = defop("NPUGetFloatStatus", ("addr",), infer=_status_update_infer("NPUGetFloatStatus"),
                          eager=_status_get, kind=Kind.EFFECT, effect=Effect.STATUS,
                          lower=EffectCode("status_get", alias=True))


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
