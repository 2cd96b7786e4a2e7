"""From a call to a native executable: trace -> passes -> C -> cc -> load, timed per stage.

`Compiled` is one specialization (one call signature). `CompileReport` is what
`pycompile.inspect` returns and what save_graphs writes: the IR before and after optimization,
the C source, per-pass timings and node counts, and the memory one call uses.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import time
from dataclasses import dataclass, field

import numpy as np

from pycompile.backend import devices
from pycompile.common import context
from pycompile.common.abstract import ScalarType, TensorType
from pycompile.common.tensor import Tensor
from pycompile.errors import CompileError, InternalCompilerError

# The compiler (frontend, passes, codegen, printer) is imported where it is used: a compile-cache
# hit builds a Compiled and a CompileReport from disk and must not pay for importing it.


@dataclass
class CompileReport:
    name: str
    graph_before: ir.Graph
    graph_after: ir.Graph
    c_source: str
    pass_stats: list
    times: dict                      # stage -> seconds: trace, passes, codegen, cc, load
    nodes_before: int
    nodes_after: int
    c_lines: int
    temp_bytes: int                  # arena bytes one call uses for temporaries
    copied_bytes: int                # bytes copied per call by TensorMove (Load preservation)
    so_path: str
    cache: str = "miss"              # miss | disk | memory
    const_args: list = field(default_factory=list)     # large constants, passed after the outputs
    runtime_errors: list = field(default_factory=list)  # message of pc_entry's error code 1000 + k
    # pc_entry's inputs, Parameters and outputs in order, as plain data (kind, name, dtype name,
    # shape), and the Parameters themselves: what `pycompile --emit so` writes into its manifest
    arg_specs: list = field(default_factory=list)
    refs: list = field(default_factory=list)

    @property
    def ir_before(self) -> str:
        from pycompile.compiler.printer import print_graph
        return print_graph(self.graph_before)

    @property
    def ir_after(self) -> str:
        from pycompile.compiler.printer import print_graph
        return print_graph(self.graph_after)

    @property
    def compile_seconds(self) -> float:
        return sum(self.times.values())

    def summary(self) -> str:
        lines = [f"@{self.name}: {self.nodes_before} -> {self.nodes_after} nodes, {self.c_lines} C lines, "
                 f"{self.temp_bytes} temp bytes, {self.copied_bytes} bytes copied per call ({self.cache})"]
        for stage, s in self.times.items():
            lines.append(f"  {stage:<10} {s * 1e3:8.2f} ms")
        for st in self.pass_stats:
            lines.append(f"    pass {st.name:<22} {st.seconds * 1e3:7.2f} ms  {st.nodes_before:5d} -> {st.nodes_after:5d}")
        return "\n".join(lines)


@dataclass
class Compiled:
    exe: object
    input_paths: list
    out_tree: tuple
    report: CompileReport
    simple_inputs: bool = field(default=False)

    def run(self, args: tuple, kwargs: dict):
        if self.simple_inputs:
            arrays = [args[p[0]]._data for p in self.input_paths]
        else:
            arrays = [_at_path(args, kwargs, p)._data for p in self.input_paths]
        outs = self.exe(arrays)
        tree, leaves = self.out_tree
        values = []
        for kind, v in leaves:
            if kind == "out":
                o = outs[v]
                values.append(o.item() if o.ndim == 0 and o.dtype.kind in "biuf" and self.scalar_out[v]
                              else Tensor._wrap(o))
            elif isinstance(v, Tensor):
                values.append(Tensor._wrap(v._data.copy()))
            else:
                values.append(v)
        if tree is None:
            return values[0]
        return _unflatten(tree, iter(values))


def _unflatten(tree, leaves):
    """control.unflatten without importing the compiler (a cache hit never loads it)."""
    if tree is None:
        return next(leaves)
    kind, kids = tree
    items = [_unflatten(k, leaves) for k in kids]
    return tuple(items) if kind == "tuple" else items


def _at_path(args, kwargs, path):
    v = args[path[0]] if isinstance(path[0], int) else kwargs[path[0]]
    for i in path[1:]:
        v = v[i]
    return v


_WORKDIR: list = []


def workdir() -> str:
    if not _WORKDIR:
        import shutil
        import tempfile
        d = tempfile.mkdtemp(prefix="pycompile-")
        _WORKDIR.append(d)
        atexit.register(shutil.rmtree, d, True)
    return _WORKDIR[0]


def options() -> dict:
    return {"load_elim": context.load_elim_level(), "float_status": devices.current().float_status,
            "opt_level": int(os.environ.get("PYCOMPILE_OPT_LEVEL", "3"))}


def _copied_bytes(graph) -> int:
    from pycompile.compiler import ir
    from pycompile.ops._table import OpDef
    from pycompile.ops.lowering import Copy
    total = 0

    def walk(block, mult):
        nonlocal total
        for n in block.nodes:
            if isinstance(n.op, OpDef) and isinstance(n.op.lower, Copy):
                total += n.type.nbytes * mult
            for b in n.blocks:
                trips = 1
                if n.op is ir.FOR and all(isinstance(i, ir.Const) for i in n.inputs[:3]):
                    trips = len(range(n.inputs[0].value, n.inputs[1].value, n.inputs[2].value))
                walk(b, mult * trips)
    walk(graph.body, 1)
    return total


def compile_call(fn, args: tuple, kwargs: dict, self_obj=None, name: str | None = None,
                 opts: dict | None = None) -> Compiled:
    from pycompile.compiler import ir
    from pycompile.compiler.frontend import trace
    from pycompile.compiler.passes import run_pipeline
    opts = opts or options()
    times = {}
    t = time.perf_counter()
    with _stage("tracing"):
        traced = trace(fn, args, kwargs, self_obj=self_obj, name=name)
    times["trace"] = time.perf_counter() - t
    verify = os.environ.get("PYCOMPILE_VERIFY", "") not in ("", "0")
    t = time.perf_counter()
    with _stage("optimization"):
        graph, stats = run_pipeline(traced.graph, opt_level=opts["opt_level"], verify=verify, options=opts)
    times["passes"] = time.perf_counter() - t
    t = time.perf_counter()
    device = devices.current()
    with _stage("code generation"):
        mod = device.render(graph)
    times["codegen"] = time.perf_counter() - t
    stem = os.path.join(workdir(), f"{_safe(graph.name)}_{abs(hash((id(traced), time.time_ns()))):x}")
    t = time.perf_counter()
    with _stage("building"):
        so_path = device.build(mod, stem)
    times["cc"] = time.perf_counter() - t
    t = time.perf_counter()
    out_types = [_out_type(v) for v in graph.outputs]
    with _stage("loading"):
        exe = device.load(so_path, dict(n_inputs=len([p for p in graph.params if p.ref is None]), refs=traced.refs,
                                        out_types=out_types, const_args=mod.plan.const_args,
                                        arena_size=mod.plan.arena_size, errors=mod.errors))
    times["load"] = time.perf_counter() - t
    report = CompileReport(graph.name, traced.graph, graph, mod.source, stats, times,
                           ir.count_nodes(traced.graph), ir.count_nodes(graph), mod.c_lines,
                           mod.plan.arena_size, _copied_bytes(graph), so_path,
                           const_args=mod.plan.const_args, runtime_errors=mod.errors,
                           arg_specs=_arg_specs(graph), refs=list(traced.refs))
    compiled = Compiled(exe, traced.input_paths, graph.out_tree, report,
                        simple_inputs=all(len(p) == 1 and isinstance(p[0], int) for p in traced.input_paths))
    compiled.scalar_out = [isinstance(v.type, ScalarType) for v in graph.outputs]
    _save_graphs(report)
    return compiled


@contextlib.contextmanager
def _stage(what: str):
    """Errors about the user's program (CompileError) pass; anything else raised by pycompile in
    this stage is an internal error, with the original chained."""
    try:
        yield
    except (CompileError, InternalCompilerError):
        raise
    except Exception as e:
        raise InternalCompilerError(e, what) from e


def _arg_specs(graph) -> list:
    """(kind, name, dtype name, shape) of pc_entry's inputs, Parameters and outputs."""
    specs = []
    for p in graph.params:
        t = p.type.tensor if p.ref is not None else _out_type(p)
        name = p.name if p.ref is None else (p.ref.name or p.name)
        specs.append(("input" if p.ref is None else "parameter", name, t, p))
    for k, v in enumerate(graph.outputs):
        specs.append(("output", "output" if len(graph.outputs) == 1 else f"output{k}", _out_type(v), v))
    if not all(isinstance(t, TensorType) for _, _, t, _ in specs):
        return []       # a layout plain data cannot describe: no manifest rather than no compile
    return [(kind, name, t.dtype.name, tuple(t.shape)) for kind, name, t, _ in specs]


def _out_type(v) -> TensorType:
    t = v.type
    if isinstance(t, ScalarType):
        return TensorType(t.dtype, ())
    return t


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)[:60] or "graph"


_SAVE_COUNT = [0]


def _save_graphs(report: CompileReport) -> None:
    level, path = context.save_graphs_settings()
    if not level:
        return
    os.makedirs(path, exist_ok=True)
    _SAVE_COUNT[0] += 1
    stem = os.path.join(path, f"{_SAVE_COUNT[0]:04d}_{_safe(report.name)}")
    with open(stem + "_frontend.ir", "w") as f:
        f.write(report.ir_before)
    with open(stem + "_optimized.ir", "w") as f:
        f.write(report.ir_after)
    with open(stem + ".c", "w") as f:
        f.write(report.c_source)


__all__ = ["CompileReport", "Compiled", "compile_call", "options", "np"]
