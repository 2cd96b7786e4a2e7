"""Stacks of saved values, for the backward pass of differentiated loops (compiler/autodiff.py).

  StackNew(U)               an empty stack of `elem` values (attr elem: TensorType | ScalarType)
  StackPush(stack, v, U)    push a copy of v (a memory effect: ordered by U)
  StackGet(stack, k, U)     item k (a view of the stack's memory: valid until the next push)
  StackLen(stack, U)        how many items were pushed (an int)
  StackFree(stack, U)       release the items

They exist only in compiled graphs: the PyNative tape keeps Python references instead, so
their eager implementations work on a Python list (used by constant folding never: they are
effects). Their C is in pycompile/backend/c/ops/stack.py (the pc_stack helpers in pycompile_kernels.h).
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import U_TYPE, ScalarType, StackType, TensorType
from pycompile.ops._table import Effect, Kind, OpDef, OpTypeError, defop, describe
from pycompile.ops.lowering import EffectCode


def _new_infer(types, elem):
    if not isinstance(elem, (TensorType, ScalarType)):
        raise OpTypeError(f"For 'StackNew', elem must be a tensor or scalar type, but got {elem!r}")
    return StackType(elem)


def _push_infer(types):
    stack, value = types[:2]
    if not isinstance(stack, StackType) or value != stack.elem:
        raise OpTypeError(f"For 'StackPush', the value {describe(value)} does not fit {stack}")
    return U_TYPE


def _get_infer(types):
    stack, k = types[:2]
    if not isinstance(stack, StackType) or not (isinstance(k, ScalarType) and k.kind == "int"):
        raise OpTypeError(f"For 'StackGet', expected a stack and an int index, got {stack} and {describe(k)}")
    return stack.elem


def _eager_new(elem):
    return []


def _eager_push(stack, value):
    stack.append(np.array(value, copy=True))
    return None


StackNew = defop("StackNew", (), attrs={"elem": None}, infer=_new_infer, eager=_eager_new, kind=Kind.EFFECT,
                 effect=Effect.MEM, lower=EffectCode("stack_new"), cse=False, movable=False, graph_only=True)
StackPush = defop("StackPush", ("stack", "value"), infer=_push_infer, eager=_eager_push, kind=Kind.EFFECT,
                  effect=Effect.MEM, lower=EffectCode("stack_push"), cse=False, movable=False, graph_only=True)
# a view of the stack's memory: it keeps the stack alive while it is used
StackGet = defop("StackGet", ("stack", "index"), infer=_get_infer, eager=lambda stack, k: stack[k],
                 kind=Kind.EFFECT, lower=EffectCode("stack_get", alias=True), movable=False, graph_only=True)
StackLen = defop("StackLen", ("stack",), infer=lambda types: ScalarType("int"), eager=lambda stack: len(stack),
                 kind=Kind.EFFECT, lower=EffectCode("stack_len"), movable=False, graph_only=True)
StackFree = defop("StackFree", ("stack",), infer=lambda types: U_TYPE, eager=lambda stack: stack.clear(),
                  kind=Kind.EFFECT, effect=Effect.MEM, lower=EffectCode("stack_free"), cse=False, movable=False, graph_only=True)


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
