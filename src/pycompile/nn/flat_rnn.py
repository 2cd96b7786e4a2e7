"""What the recurrent primitives with one flat weight share (ops.LSTM: lstm_primitive.py,
_rl_inner_ops.GRUV2: gru_primitive.py): MindSpore's checks of their bool and dropout arguments, in
its words with the primitive's name, and the cutting of the flat weight into its named pieces."""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.ops._table import OpTypeError, OpValueError


def check_bool(prim: str, name: str, value) -> bool:
    if not isinstance(value, bool):
        raise OpTypeError(f"For '{prim}', the type of '{name}' should be 'bool', but got type "
                          f"'{type(value).__name__}'.")
    return value


def check_dropout(prim: str, dropout) -> float:
    if not isinstance(dropout, float):
        raise OpTypeError(f"For '{prim}', the type of 'dropout' should be 'float', but got type "
                          f"'{type(dropout).__name__}'.")
    if not 0 <= dropout <= 1:
        raise OpValueError(f"For '{prim}', the 'dropout' must be in range of [0, 1], but got {dropout} with "
                           f"type 'float'.")
    return dropout


def check_size(prim: str, w, size: int, settings: str) -> None:
    """A flat weight shorter than the layout is refused (MindSpore's CPU kernels read past its end)."""
    have = int(np.prod(w.shape))
    if have < size:
        raise OpValueError(f"For {prim}, the w must hold {size} elements for {settings}, but got {have}.")


def cut(w, pieces) -> dict:
    """{(kind, layer, direction): the piece of w's elements, in its shape} for `pieces`
    [(kind, layer, direction, shape)] laid end to end in w."""
    flat = ops.reshape(w, (-1,))
    out, offset = {}, 0
    for kind, layer, direction, shape in pieces:
        n = int(np.prod(shape))
        out[(kind, layer, direction)] = ops.reshape(flat[offset:offset + n], shape)
        offset += n
    return out
