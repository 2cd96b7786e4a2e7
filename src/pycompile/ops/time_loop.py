"""The time loop of the recurrent layers (nn/rnn.py) and of the fused RNN Primitives
(ops/entries/dynamic_rnn.py): `_time_loop` is graph code the frontend walks, so a compiled RNN's
steps stay one `For` whose body writes each step's row in place; `_time_loop_eager` is PyNative's
Python loop."""
from __future__ import annotations

from pycompile import ops
from pycompile.common import dtype as mstype


def _write_row(ys, t, y):
    """ys with row t replaced by y (compiled in place: (B, H) work per step)."""
    idx = ops.reshape(ops.scalar_to_tensor(t, mstype.int64), (1, 1))
    return ops.tensor_scatter_update(ys, idx, ops.expand_dims(y, 0))


def _step_and_write(step, xw, t, state, ys, extra):
    state, y = step(xw, t, state, extra)
    return state, _write_row(ys, t, y)


def _time_loop(step, xw, state, ys, steps, extra):
    """Graph code (walked by the frontend, so the loop stays a `For`): run `step` at every t of
    `steps` (a range), carrying the state and writing each step's output row into ys. The body
    binds no other name, so the loop carries exactly (state, ys) and no iteration is peeled."""
    for t in steps:
        state, ys = _step_and_write(step, xw, t, state, ys, extra)
    return state, ys


def _time_loop_eager(step, xw, state, steps, extra):
    outs = [None] * len(steps)
    for t in steps:
        state, outs[t] = step(xw, t, state, extra)
    return state, ops.stack(outs, 0)
