"""Instrumented code for the profiler (pycompile.profiler): each kernel of a specialization built
while a Profiler records is timed where it runs.

A region is one node that runs a kernel: an op's kernel (a product, a convolution, a lone
elementwise kernel, a template) or a fused group. Around its statements the generated C stores
the start time and, after them, adds the duration to the region's counters:

    PC_PROF_T[k] = pc_prof_now();
    ... the node's code ...
    pc_prof_add(k);

`PC_PROF` holds, per region, (executions, total nanoseconds, start of the first execution) since
the runtime last read and cleared them (backend/profiling.py does so after every call); the clock
is CLOCK_MONOTONIC, Python's `time.perf_counter_ns`, so PyNative's op times and a graph's kernels
lie on one time line. The module says what its regions are in `pc_profile_regions()`: a JSON list
of [op type, full name, input shapes, output shape], the names built from the user's Cell scopes
(escaped: text.string), so a module loaded from the compile cache describes itself.

Scalars, views, copies and ordering-only nodes are not regions: they are not kernels, and timing
a one-statement scalar would time the clock. The regions' counters are module statics: a module
built for profiling is meant to be called from one thread at a time (the profiler reads them
after each call).
"""
from __future__ import annotations

import json

from pycompile.backend.c import text
from pycompile.common.abstract import ScalarType, TensorType, TupleType
from pycompile.compiler import ir
from pycompile.ops._table import OpDef
from pycompile.ops.lowering import Copy, Elementwise, View


def region_of(n: ir.Node) -> tuple | None:
    """(op type, scope, input shapes, output shape) when `n` runs a kernel worth timing."""
    if n.op is ir.FUSED:
        names = []
        for m in n.blocks[0].nodes:
            if isinstance(m.op, OpDef) and m.op.name not in names:
                names.append(m.op.name)
        kind = "Fused_" + "_".join(names) if names else "Fused"
    elif isinstance(n.op, OpDef):
        lower = n.op.lower
        if not lower.emits_code or isinstance(lower, (View, Copy)):
            return None
        if isinstance(n.type, ScalarType) or (isinstance(lower, Elementwise) and not isinstance(n.type, TensorType)):
            return None
        if not isinstance(n.type, (TensorType, TupleType)):
            return None
        kind = n.op.name
    else:
        return None
    scope = _scope(n)
    shapes = [list(v.type.shape) if isinstance(v.type, TensorType) else None for v in n.inputs]
    out = list(n.type.shape) if isinstance(n.type, TensorType) else None
    return kind, scope, shapes, out


def _scope(n: ir.Node) -> str:
    """The Cell scope of a node; of a fused group, the scope its ops share."""
    members = n.blocks[0].nodes if n.op is ir.FUSED else (n,)
    paths = [m.loc.scope.split("/") for m in members if m.loc is not None and m.loc.scope]
    if not paths:
        return "Default"
    common = paths[0]
    for p in paths[1:]:
        k = 0
        while k < min(len(common), len(p)) and common[k] == p[k]:
            k += 1
        common = common[:k]
    return "/".join(common) or "Default"


class Regions:
    """The regions of one translation unit, numbered in emission order; each op type numbered
    apart (MindSpore's `MatMul-op0`, `MatMul-op1`)."""

    def __init__(self):
        self.items: list = []
        self._per_kind: dict = {}

    def add(self, info: tuple) -> int:
        kind, scope, shapes, out = info
        k = self._per_kind.get(kind, 0)
        self._per_kind[kind] = k + 1
        self.items.append([kind, f"{scope}/{kind}-op{k}", shapes, out])
        return len(self.items) - 1

    def drop_last(self) -> None:
        kind = self.items.pop()[0]
        self._per_kind[kind] -= 1

    def head(self) -> list:
        """The module's timing statics and helpers, and its region list."""
        n = max(len(self.items), 1)
        listing = text.string(json.dumps(self.items, separators=(",", ":")))
        return ["#include <time.h>",
                f"static int64_t PC_PROF_T[{n}];",
                f"static int64_t PC_PROF[{3 * n}];",
                "static inline int64_t pc_prof_now(void) { struct timespec t; "
                "clock_gettime(CLOCK_MONOTONIC, &t); return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec; }",
                "static inline void pc_prof_add(int k) { const int64_t t = pc_prof_now(); "
                "int64_t *r = PC_PROF + 3 * k; if (r[0]++ == 0) r[2] = PC_PROF_T[k]; r[1] += t - PC_PROF_T[k]; }",
                "int64_t *pc_profile(void) { return PC_PROF; }",
                f"const char *pc_profile_regions(void) {{ return {listing}; }}",
                ""]
