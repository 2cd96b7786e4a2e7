"""How an op is lowered, as typed data: what passes and renderers read about an op's code.

A row of the op table holds one of these in its `lower` slot. They say *what kind* of code the
op becomes and the facts the optimizer needs about that code (does it call a transcendental
function, how many times does it read its input, does it alias its input); they hold no target
code. The C text of each lowering lives with the C renderer (`pycompile.backend.c.ops`), keyed by the op
object (elementwise expressions) or by the template name (loop templates).

Float status (the Ascend device's overflow register) is recorded by every kernel through one
mechanism chosen by the lowering's `status` mode: INLINE kernels record it as they compute,
SCAN nodes get one pass over their float output from the renderer, NONE nodes create no values
(views, copies, effects). A new lowering kind defaults to SCAN, so it cannot skip it.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable


class Status(enum.Enum):
    INLINE = "inline"     # the kernel records overflow / NaN as it computes (elementwise kernels)
    SCAN = "scan"         # the renderer scans the node's float output once, after it
    NONE = "none"         # the result holds no new values: views, copies, effects


@dataclass(frozen=True)
class Lowering:
    """Base of every lowering kind."""

    @property
    def status(self) -> Status:
        return Status.SCAN

    @property
    def aliases_input(self) -> bool:
        """The result is the memory of the op's first input (a view, Load, Depend, Assign)."""
        return False

    @property
    def emits_code(self) -> bool:
        return True


@dataclass(frozen=True)
class Elementwise(Lowering):
    """One scalar expression per element, fused freely with its neighbours.

    `compute(types, out)` is the dtype inputs are converted to first (PyNative does the same).
    `exact`: the result is one of the operands (or an integer no larger than one), so on float16
    values it is a float16 value already and float16 kernels skip rounding it.
    `transcendental`: the expression calls exp / log / tanh / pow ...; a multi-pass template
    recomputing such a producer on each pass would cost more than storing it.
    `as_is`: input positions PyNative hands to `eager` unconverted (Select's bool cond, of which
    only the truth is read: converting it to the compute dtype was a pass over it for nothing)."""

    compute: Callable
    exact: bool = False
    transcendental: bool = False
    as_is: tuple = ()

    @property
    def status(self) -> Status:
        return Status.INLINE


@dataclass(frozen=True)
class Template(Lowering):
    """A named loop template (reduce, softmax, layernorm, transpose, gather ...).

    `passes`: how many times the template reads its first input (softmax: 3); a fused producer
    of a multi-pass template must be cheap (not transcendental) to be computed inline.
    `prologue`: fused elementwise producers may compute the first input inline, no temporary.
    `per_row(attrs, in_shape, out_shape)`: the node reduces / normalizes only the last axis
    (one value or one row per row), so it can head a group whose per-row consumers run on each
    chunk of rows right after it. `rule`: a parameter of the template (a reduction's combine
    rule; 'log' for log_softmax). `moves_data`: the template only copies input elements
(transpose, slice, concat, gather): it creates no new values, so it records no float status.
`view`: the result may be memory of the first input instead of a copy (backend/c/views.py
decides where): 'row' one row of it at an index (Gather's `axis` and one index), 'box' a box
of it read through strides (StridedSlice's `begin` / `strides`)."""

    name: str
    passes: int = 1
    prologue: bool = False
    per_row: Callable | None = None
    rule: str = ""
    moves_data: bool = False      # only copies input elements (transpose, slice, gather ...)
    view: str = ""                # '' / 'row' / 'box': see above

    @property
    def status(self) -> Status:
        return Status.NONE if self.moves_data else Status.SCAN


@dataclass(frozen=True)
class Blas(Lowering):
    """A matrix product through BLAS; a float product heads a group whose elementwise consumers
    run as its epilogue on each chunk of rows it computes."""


@dataclass(frozen=True)
class View(Lowering):
    """The result is the input's memory, reinterpreted (Reshape, Load, Depend)."""

    @property
    def status(self) -> Status:
        return Status.NONE

    @property
    def aliases_input(self) -> bool:
        return True


@dataclass(frozen=True)
class Copy(Lowering):
    """A real copy of the input (TensorMove keeps a loaded value alive)."""

    @property
    def status(self) -> Status:
        return Status.NONE


@dataclass(frozen=True)
class EffectCode(Lowering):
    """An effect the renderer emits: 'assign', 'print', 'status_alloc', 'status_clear',
    'status_get'. `alias`: the result is the memory of the first input (Assign's Parameter).
    `static_result`: the C static the result lives in, when it is a constant the effect returns
    (Print's unit tensor) rather than memory of its own."""

    name: str
    alias: bool = False
    static_result: str = ""

    @property
    def status(self) -> Status:
        return Status.NONE

    @property
    def aliases_input(self) -> bool:
        return self.alias


@dataclass(frozen=True)
class Ordering(Lowering):
    """No code: UpdateState and MakeTuple only order effects in the graph."""

    @property
    def status(self) -> Status:
        return Status.NONE

    @property
    def emits_code(self) -> bool:
        return False


@dataclass(frozen=True)
class Constant(Lowering):
    """Folded to a constant when compiling (Fill): it has no inputs."""

    @property
    def status(self) -> Status:
        return Status.NONE


@dataclass(frozen=True)
class Parts(Lowering):
    """A decomposed row's (`decompose=` without `fast_path`): the pre-render pass always replaces it
    by its parts (compiler/passes/decompose.py), so no renderer sees it."""
