"""From a call to a native executable: trace -> passes -> render -> build -> load, timed per
stage. The result is a `Compiled` (backend/compiled.py): the executable, its calling layout and
the CompileReport `pycompile.inspect` returns and save_graphs writes."""
from __future__ import annotations

import atexit
import contextlib
import os
import time

from pycompile.backend import devices, profiling
from pycompile.backend.compiled import CompileReport, Compiled, Layout, TracedSources
from pycompile.common import context, knobs, log
from pycompile.common.abstract import ScalarType, TensorType
from pycompile.common.knobs import KnobError
from pycompile.errors import CompileError, InternalCompilerError

# The compiler (frontend, passes, codegen, printer) is imported where it is used: a compile-cache
# hit builds a Compiled and a CompileReport from disk and must not pay for importing it.


_WORKDIR: list = []


def workdir() -> str:
    """This process's build directory, `pycompile-<pid>-*` in the temporary directory (removed at
    exit). A process killed mid-compile cannot remove its own: the first compile of the next
    process removes those whose process is gone. Recreated if something removed it meanwhile."""
    if not _WORKDIR:
        import shutil
        import tempfile
        remove_stale_workdirs(tempfile.gettempdir())
        d = tempfile.mkdtemp(prefix=f"pycompile-{os.getpid()}-")
        _WORKDIR.append(d)
        atexit.register(shutil.rmtree, d, True)
    elif not os.path.isdir(_WORKDIR[0]):
        os.makedirs(_WORKDIR[0], mode=0o700, exist_ok=True)
    return _WORKDIR[0]


def build_stem(name: str, kind: str) -> str:
    """Where one build writes `<stem>.c` and `<stem>.so`: a directory of its own in `workdir()`
    (a fresh path per build, so the dynamic loader never returns an older module of the same
    name), holding a file named after the graph alone. The file name is written into the shared
    object (its symbol table names the .c file), so the same program builds to the same bytes in
    every process: concurrent builders of one compile-cache entry store one payload instead of
    one each, of which all but the last entry's were orphans."""
    import tempfile
    return os.path.join(tempfile.mkdtemp(prefix="build-", dir=workdir()), f"{_safe(name)}{kind}")


def remove_stale_workdirs(tmp: str) -> list:
    """Remove the build directories of this user's pycompile processes that no longer run;
    returns their paths. A directory counts as stale only when its pid is dead and nothing in it
    changed for a minute (another pid namespace sharing /tmp may run a live one)."""
    import re
    import shutil
    removed = []
    try:
        names = os.listdir(tmp)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        m = re.fullmatch(r"pycompile-(\d+)-\w+", name)
        if m is None or int(m.group(1)) == os.getpid():
            continue
        path = os.path.join(tmp, name)
        try:
            st = os.lstat(path)
            if not os.path.isdir(path) or os.path.islink(path) or st.st_uid != os.getuid() or now - st.st_mtime < 60:
                continue
            os.kill(int(m.group(1)), 0)
            continue                          # the process is alive
        except ProcessLookupError:
            pass
        except (PermissionError, OSError):
            continue                          # alive under another user, or unreadable
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def options() -> dict:
    """The pipeline's options: the context's and knobs' settings and the current device's passes
    and unrendered rows (devices.Device.pipeline_options); the compile-cache key holds them all."""
    device = devices.current()
    return {"load_elim": context.load_elim_level(), "float_status": device.float_status,
            "profile": profiling.recording(),
            "opt_level": knobs.get("PYCOMPILE_OPT_LEVEL"), "fast_paths": knobs.get("PYCOMPILE_FAST_PATHS"),
            "winograd": knobs.get("PYCOMPILE_WINOGRAD"), "vector_bytes": knobs.get("PYCOMPILE_VECTOR_BYTES"),
            **device.pipeline_options()}


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
    from pycompile.compiler.frontend import trace
    times = {}
    t = time.perf_counter()
    with _stage("tracing"):
        traced = trace(fn, args, kwargs, self_obj=self_obj, name=name)
    times["trace"] = time.perf_counter() - t
    lowered = lower(traced, opts, times)
    t = time.perf_counter()
    with _stage("building (the C compiler)"):
        so_path = lowered.device.build(lowered.module, lowered.stem)
    times["cc"] = time.perf_counter() - t
    compiled = load(lowered, so_path)
    _save_graphs(compiled.report)
    return compiled


class Lowered:
    """A traced graph optimized and rendered, not yet built: what `load` needs after the device's
    `build` (which PyNative's kernels run on worker threads: backend/eager.py)."""

    __slots__ = ("traced", "graph", "stats", "module", "device", "stem", "times")

    def __init__(self, traced, graph, stats, module, device, stem, times):
        self.traced, self.graph, self.stats, self.module = traced, graph, stats, module
        self.device, self.stem, self.times = device, stem, times


def lower(traced, opts: dict | None = None, times: dict | None = None) -> Lowered:
    """Passes and code generation of a traced graph (frontend.TraceResult)."""
    from pycompile.compiler.passes import run_pipeline
    opts = opts or options()
    times = {} if times is None else times
    verify = knobs.get("PYCOMPILE_VERIFY")
    t = time.perf_counter()
    with _stage("optimization"):
        graph, stats = run_pipeline(traced.graph, opt_level=opts["opt_level"], verify=verify, options=opts)
    times["passes"] = time.perf_counter() - t
    t = time.perf_counter()
    device = devices.current()
    with _stage("code generation"):
        mod = device.render(graph, profile=True) if opts.get("profile") else device.render(graph)
    times["codegen"] = time.perf_counter() - t
    if log.enabled(log.output_code):
        log.output_code.info("generated C for %s (%d lines):\n%s", graph.name, mod.c_lines, mod.source)
    stem = build_stem(graph.name, "")
    return Lowered(traced, graph, stats, mod, device, stem, times)


def load(lowered: Lowered, so_path: str) -> Compiled:
    """The built shared object of `lowered`, loaded: its executable, layout and report."""
    from pycompile.compiler import ir
    from pycompile.compiler.autodiff import stack_bytes
    traced, graph, stats, mod, times = lowered.traced, lowered.graph, lowered.stats, lowered.module, lowered.times
    t = time.perf_counter()
    tree, leaves, numbers = Layout.graph_leaves(graph.out_tree)
    layout = Layout(n_inputs=len([p for p in graph.params if p.ref is None]), input_paths=traced.input_paths,
                    out_tree=tree, leaves=leaves, out_types=[_out_type(v) for v in graph.outputs],
                    scalar_out=[isinstance(v.type, ScalarType) or k in numbers for k, v in enumerate(graph.outputs)],
                    arena_size=mod.plan.arena_size, errors=mod.errors, const_args=mod.plan.const_args,
                    collectives=mod.collectives)
    with _stage("loading"):
        try:
            exe = lowered.device.load(so_path, layout.executable_args(traced.refs))
        except OSError as e:
            from pycompile.backend.toolchain import ToolchainError, load_problem
            raise ToolchainError(f"the compiled module {so_path} cannot be loaded: {load_problem(e)}") from None
    times["load"] = time.perf_counter() - t
    report = CompileReport(graph.name, stats, times, ir.count_nodes(traced.graph), ir.count_nodes(graph),
                           mod.c_lines, mod.plan.arena_size, _copied_bytes(graph), so_path,
                           sources=TracedSources(traced.graph, graph, mod.source), const_args=mod.plan.const_args,
                           runtime_errors=mod.errors, arg_specs=_arg_specs(graph), refs=list(traced.refs),
                           saved_bytes=traced.saved_bytes + stack_bytes(graph.body), updates=mod.plan.updates)
    return Compiled(exe, layout, report)


_CURRENT_STAGE = [""]


def current_stage() -> str:
    """The stage a compile is in now (read by the slow-compile notice, from its timer thread)."""
    return _CURRENT_STAGE[0]


@contextlib.contextmanager
def _stage(what: str):
    """Errors about the user's program (CompileError) pass; anything else raised by pycompile in
    this stage is an internal error, with the original chained."""
    _CURRENT_STAGE[0] = what
    try:
        yield
    except (CompileError, InternalCompilerError, MemoryError, KnobError):
        raise
    except Exception as e:
        raise InternalCompilerError(e, what) from e
    finally:
        _CURRENT_STAGE[0] = ""


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
    from pycompile.backend.c.text import file_stem
    return file_stem(name)


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


__all__ = ["CompileReport", "Compiled", "Lowered", "compile_call", "load", "lower", "options"]
