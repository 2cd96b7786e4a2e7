"""One executable for a run-time leading (batch) dimension: `jit(dynamic=1)`, or an
`input_signature` / `Cell.set_inputs` Tensor whose first dimension is None.

The graph is traced, optimized and rendered at three sample batch sizes (SAMPLES). Everything the
compiler decides from shapes must come out the same at all three, and every number in the C that
differs must be an affine a + b*B of the sample size: then the C is the same program for any B,
with those numbers written as expressions of a run-time `pc_B` (set by `pc_set_dim` before each
call). The memory planner places slots so their offsets are affine too (backend/c/affine.py AffineAllocator).
When the three renderings differ in any other way (a decision taken from the batch size, a
constant with the batch size in its values, a loop whose tile count divides it), the graph cannot
be compiled this way: DynamicUnsupported says why, and the caller compiles each batch size.

Agreeing at three multiples of 64 is not proof: a number rounded to a multiple of 16 (a vector
loop's bound) is affine there and wrong at B = 1. So the graph is also rendered at CHECK, a
prime, with the affine memory plan, and that program must be the merged one with pc_B = CHECK
token for token; when it is not, the graph compiles per batch size as above.

The samples are multiples of 64 (so every batch-scaled byte size is already 64-byte aligned and
sizes stay affine through the planner's rounding), past the size thresholds of the product
schedule (<= 64 rows, an inner dimension >= 256), and 5 x, 7 x and 11 x 64 so that no
batch-dependent quantity is accidentally equal at all three. Kernels are all parallel loops
while rendering (a parallel threshold would otherwise be crossed between samples). What runs at a small B was decided for large ones: correct
(every loop bound and chunk count is computed in C), but a batch of 64 may miss the few-row
product schedule a static compile would use.
"""
from __future__ import annotations

import re
import threading

import _cffi_backend
import numpy as np

from pycompile.backend import devices, pipeline
from pycompile.backend.compiled import CompileReport, Compiled, Layout, TracedSources
from pycompile.common.abstract import TensorType
from pycompile.common.tensor import Tensor

SAMPLES = (320, 448, 704)
CHECK = 389                 # prime, between the samples: see the module docstring

_TOKEN = re.compile(r"[A-Za-z_]\w*|0[xX][0-9a-fA-F]+[uUlL]*|\d+\.\d*(?:[eE][+-]?\d+)?[fFlL]?|"
                    r"\.\d+(?:[eE][+-]?\d+)?[fFlL]?|\d+[eE][+-]?\d+[fFlL]?|\d+[uUlL]*|\s+|.", re.S)
_INT = re.compile(r"(\d+)([uUlL]*)$")


class DynamicUnsupported(Exception):
    """This graph cannot be compiled for a run-time batch size (the message says why)."""


def _affine(values, samples=SAMPLES):
    """(a, b) with values[k] == a + b * samples[k] for all k, integers; None if there is none."""
    b, rem = divmod(values[1] - values[0], samples[1] - samples[0])
    if rem:
        return None
    a = values[0] - b * samples[0]
    return (a, b) if all(a + b * s == v for s, v in zip(samples, values)) else None


def _expr(a: int, b: int) -> str:
    if b == 0:
        return str(a)
    term = "pc_B" if b == 1 else f"{b}L * pc_B"
    return f"({term})" if a == 0 else f"({a}L + {term})"


def merge_sources(sources: list) -> str:
    """The C of the three samples as one program of pc_B (see the module docstring)."""
    toks = [_TOKEN.findall(s) for s in sources]
    if len({len(t) for t in toks}) != 1:
        import difflib
        a, b = sources[0].splitlines(), sources[1].splitlines()
        first = next((f"{x!r} / {y!r}" for x, y in zip(a, b) if _TOKEN.findall(x) != _TOKEN.findall(y)
                      and len(_TOKEN.findall(x)) != len(_TOKEN.findall(y))), "")
        del difflib
        raise DynamicUnsupported(f"the generated code changes structure with the batch size ({first.strip()[:160]})")
    out = []
    for parts in zip(*toks):
        if parts[0] == parts[1] == parts[2]:
            out.append(parts[0])
            continue
        ms = [_INT.match(p) for p in parts]
        if not all(ms) or len({m.group(2) for m in ms}) != 1:
            inv = _inverse_literal(parts)
            if inv is None:
                raise DynamicUnsupported(f"the generated code differs with the batch size at {parts[0]!r}")
            out.append(inv)
            continue
        fit = _affine([int(m.group(1)) for m in ms])
        if fit is None:
            raise DynamicUnsupported(f"a quantity of the generated code ({', '.join(parts)} at the three sample "
                                     f"sizes) is not proportional to the batch size")
        if fit[1] and len(out) >= 2 and out[-1] == "(" and out[-2] in ("INT64_C", "UINT64_C"):
            # INT64_C(n) pastes a suffix onto n: a cast takes an expression (`x * x.shape[0]`)
            out[-2] = "(int64_t)" if out[-2] == "INT64_C" else "(uint64_t)"
        out.append(_expr(*fit))
    text = "".join(out)
    for line in text.splitlines():
        # a static initializer must be a constant: a table or constant array holding the batch size
        if line.startswith("static ") and "pc_B" in line and "=" in line:
            raise DynamicUnsupported(f"a constant of the graph holds the batch size ({line.strip()[:120]})")
    head = "static const pc_api *RT;"
    if head not in text:
        raise DynamicUnsupported("unexpected module head")
    return text.replace(head, head + "\nstatic long pc_B = 1;\nvoid pc_set_dim(long b) { pc_B = b; }", 1)


def check_sample(sources: list, check: str, b: int = CHECK) -> None:
    """Raise DynamicUnsupported unless `check` (the C rendered at batch size b) is the program
    merge_sources(sources) gives with pc_B = b: every number that merge_sources turned into an
    expression of pc_B must have that expression's value at b, every other token be the same."""
    toks = [_TOKEN.findall(x) for x in sources]
    tc = _TOKEN.findall(check)
    if len(tc) != len(toks[0]):
        raise DynamicUnsupported(f"the generated code at batch size {b} has another structure than at the samples")
    for parts, c in zip(zip(*toks), tc):
        if parts[0] == parts[1] == parts[2]:
            ok = c == parts[0]
        else:
            ms = [_INT.match(p) for p in parts]
            if all(ms):
                a, k = _affine([int(m.group(1)) for m in ms])
                mc = _INT.match(c)
                ok = mc is not None and int(mc.group(1)) == a + k * b and mc.group(2) == ms[0].group(2)
            else:
                num = re.fullmatch(r"(-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)[fF]?", c)
                vals = [float(re.match(r"-?[\d.eE+-]+", p).group(0)) for p in parts]
                cb, fit = _per_b(vals), _affine_float(vals)
                if num is None:
                    ok = False
                elif fit is not None:
                    ok = float(num.group(1)) == fit[0] + fit[1] * b
                else:
                    ok = cb is not None and abs(float(num.group(1)) * b - cb) <= 1e-5 * abs(cb)
        if not ok:
            raise DynamicUnsupported(f"the generated code at batch size {b} differs from the merged program at "
                                     f"{c!r} (samples: {', '.join(parts)})")


def _per_b(values, samples=SAMPLES):
    """c when values[k] == c / samples[k] at every sample (to float32 rounding), else None: the
    gradient of a mean over the batch scales by 1 / B."""
    cs = [v * b for v, b in zip(values, samples)]
    c = cs[0]
    return c if c != 0 and all(abs(x - c) <= 1e-5 * abs(c) for x in cs) else None


def _inverse_literal(parts):
    """A float literal equal to c / B at each sample, written as that division of pc_B; or one
    equal to the whole number a + b * B (`ops.cast(x.shape[0], ms.float32)`), written as that."""
    m = [re.fullmatch(r"(-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)([fF]?)", p) for p in parts]
    if not all(m) or len({x.group(2) for x in m}) != 1:
        return None
    ct = "float" if m[0].group(2) else "double"
    fit = _affine_float([float(x.group(1)) for x in m])
    if fit is not None:
        return f"(({ct}){_expr(*fit)})"
    c = _per_b([float(x.group(1)) for x in m])
    if c is None:
        return None
    c = round(c, 6) if abs(round(c, 6) - c) <= 1e-6 * abs(c) else c
    return f"(({ct})({c!r}) / ({ct})pc_B)"


def _affine_float(values):
    """(a, b), b != 0, when every value is a whole number a + b * sample, else None."""
    if not all(v == int(v) and abs(v) < 2 ** 24 for v in values):
        return None
    fit = _affine([int(v) for v in values])
    return fit if fit is not None and fit[1] != 0 else None


def _const_spec(arrays):
    """How a large constant argument follows the batch size: ("array", a) when it does not,
    ("fill", dims, dtype, v) / ("inverse", dims, dtype, c) for an array filled with one value
    (v, or c / B) whose shape is affine in B; None otherwise."""
    if all(a.shape == arrays[0].shape and np.array_equal(a, arrays[0]) for a in arrays):
        return ("array", arrays[0])
    if len({a.ndim for a in arrays}) != 1 or any(a.size == 0 or not (a == a.flat[0]).all() for a in arrays):
        return None
    dims = []
    for ds in zip(*(a.shape for a in arrays)):
        fit = _affine(list(ds))
        if fit is None:
            return None
        dims.append(fit)
    values = [float(a.flat[0]) for a in arrays]
    if all(v == values[0] for v in values):
        return ("fill", dims, arrays[0].dtype, values[0])
    c = _per_b(values)
    return None if c is None else ("inverse", dims, arrays[0].dtype, c)


def _with_batch(args, kwargs, positions, b):
    """The arguments with the leading dimension of the tensors at `positions` set to b (values are
    never read by the tracer: uninitialized memory)."""
    def sample(t):
        return Tensor._wrap(np.empty((b,) + tuple(t.shape[1:]), t._data.dtype))
    new = list(args)
    for k in positions:
        new[k] = sample(args[k])
    return tuple(new), kwargs


def _python_outputs(graph) -> list:
    """The outputs a graph returns as Python values (fixed when it was traced)."""
    return [v for kind, v in graph.out_tree[1] if kind == "const"]


def _same_values(a: list, b: list) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        try:
            if type(x) is not type(y) or not np.array_equal(np.asarray(x, dtype=object), np.asarray(y, dtype=object)):
                return False
        except (TypeError, ValueError):
            if x is not y:
                return False
    return True


def compile_dynamic(fn, args, kwargs, positions, self_obj=None, name=None) -> Compiled:
    """Compile `fn` once for any leading dimension of the Tensor arguments at `positions`."""
    from pycompile.backend.c import affine
    from pycompile.compiler import ir
    from pycompile.compiler.frontend import trace
    from pycompile.compiler.passes import run_pipeline
    from pycompile.backend.c.ops import shapes
    import time
    opts = pipeline.options()
    device = devices.current()
    t0 = time.perf_counter()
    samples = []
    for b in SAMPLES + (CHECK,):
        sargs, skw = _with_batch(args, kwargs, positions, b)
        with pipeline._stage("tracing"):
            traced = trace(fn, sargs, skw, self_obj=self_obj, name=name)
        with pipeline._stage("optimization"):
            graph, stats = run_pipeline(traced.graph, opt_level=opts["opt_level"], verify=False, options=opts)
        samples.append((traced, graph, stats))
    values = [_python_outputs(g) for _, g, _ in samples]
    if any(not _same_values(values[0], v) for v in values[1:]):
        raise DynamicUnsupported("an output returned as a Python value (a len(), a shape) depends on the batch size")
    t_traced = time.perf_counter()
    from pycompile.backend.c import elementwise as ew_c
    from pycompile.backend.c.ops import kernels as k_c
    thresholds = (k_c.PARALLEL_MIN, ew_c.PARALLEL_MIN)
    try:
        # decisions taken from the size must not change with the batch size: every kernel with two
        # or more outer iterations is a parallel loop (the pool runs a short one on the caller)
        k_c.PARALLEL_MIN = ew_c.PARALLEL_MIN = 1
        shapes.KEEP_LEADING[0] = True
        recorders = []
        check_graph = samples.pop()[1]
        for _, graph, _ in samples:               # 1. the sizes of every slot at each sample
            affine.DYNAMIC[0] = rec = affine.SizeRecorder()
            with pipeline._stage("code generation"):
                device.render(graph)
            recorders.append(rec.plans)
        if len({len(r) for r in recorders}) != 1 or any(len({len(p) for p in ps}) != 1 for ps in zip(*recorders)):
            raise DynamicUnsupported("the memory plan changes structure with the batch size")
        table = []
        for plans in zip(*recorders):
            row = []
            for sizes in zip(*plans):
                fit = _affine(list(sizes))
                if fit is None or fit[1] < 0:
                    raise DynamicUnsupported("a buffer's size is not proportional to the batch size")
                row.append(fit)
            table.append(row)
        mods = []
        for b, (_, graph, _) in zip(SAMPLES, samples):   # 2. the program at each sample, affine offsets
            affine.DYNAMIC[0] = affine.AffineAllocator(table, b)
            with pipeline._stage("code generation"):
                mods.append(device.render(graph))
        affine.DYNAMIC[0] = affine.AffineAllocator(table, CHECK)   # 3. the check size
        with pipeline._stage("code generation"):
            try:
                check_source = device.render(check_graph).source
            except (IndexError, ValueError) as e:      # a plan of another structure than the samples'
                raise DynamicUnsupported(f"the memory plan at batch size {CHECK} differs ({e})") from None
    finally:
        affine.DYNAMIC[0] = None
        shapes.KEEP_LEADING[0] = False
        k_c.PARALLEL_MIN, ew_c.PARALLEL_MIN = thresholds
    t1 = time.perf_counter()
    source = merge_sources([m.source for m in mods])
    check_sample([m.source for m in mods], check_source)
    first = mods[0]
    if any(m.errors != first.errors or m.uses_blas != first.uses_blas
           or len(m.plan.const_args) != len(first.plan.const_args) for m in mods):
        raise DynamicUnsupported("the graph's constants depend on the batch size")
    consts = [_const_spec([np.asarray(m.plan.const_args[k]) for m in mods]) for k in range(len(first.plan.const_args))]
    if any(c is None for c in consts):
        raise DynamicUnsupported("a constant of the graph depends on the batch size in another way than its "
                                 "shape or a 1 / batch factor")
    arena = _affine([m.plan.arena_size for m in mods])
    if arena is None:
        raise DynamicUnsupported("the scratch memory is not proportional to the batch size")
    traced, graph, stats = samples[0]
    out_dims = []
    for outs in zip(*(g.outputs for _, g, _ in samples)):
        if not all(isinstance(v.type, TensorType) for v in outs):
            raise DynamicUnsupported("an output is not a tensor")
        dims = []
        for ds in zip(*(v.type.shape for v in outs)):
            fit = _affine(list(ds))
            if fit is None:
                raise DynamicUnsupported("an output's shape is not proportional to the batch size")
            dims.append(fit)
        out_dims.append(dims)
    first.source = source
    stem = pipeline.build_stem(graph.name, "_dyn")
    with pipeline._stage("building (the C compiler)"):
        so_path = device.build(first, stem)
    t2 = time.perf_counter()
    tree, leaves, _numbers = Layout.graph_leaves(graph.out_tree)   # a run-time batch size returns Tensors
    in_index = [k for k, p in enumerate(traced.input_paths) if len(p) == 1 and p[0] in positions]
    if not in_index:
        raise DynamicUnsupported("no graph input carries the batch dimension")
    layout = Layout(n_inputs=len([p for p in graph.params if p.ref is None]), input_paths=traced.input_paths,
                    out_tree=tree, leaves=leaves, out_types=[pipeline._out_type(v) for v in graph.outputs],
                    scalar_out=[False for _ in graph.outputs], arena_size=first.plan.arena_size, errors=first.errors,
                    const_args=first.plan.const_args)
    exe = DynamicExecutable(so_path, layout, list(traced.refs), out_dims, arena, in_index[0], consts)
    # three sample sizes traced, optimized and rendered twice each (sizes, then the program)
    times = {"trace": t_traced - t0, "passes": 0.0, "codegen": t1 - t_traced, "cc": t2 - t1,
             "load": time.perf_counter() - t2}
    report = CompileReport(graph.name, stats, times, ir.count_nodes(traced.graph), ir.count_nodes(graph),
                           source.count("\n"), first.plan.arena_size, 0, so_path,
                           sources=TracedSources(traced.graph, graph, source), const_args=first.plan.const_args,
                           runtime_errors=first.errors, refs=list(traced.refs))
    report.dynamic = True
    return Compiled(exe, layout, report)


class DynamicExecutable:
    """Calls a module compiled for a run-time batch size: output shapes and scratch memory for the
    batch of each call, the size handed to the module through pc_set_dim. Calls are serialized
    (the size is module state)."""

    def __init__(self, so_path, layout, refs, out_dims, arena, batch_input, consts):
        from pycompile._rt import ffi
        from pycompile.backend import runtime
        self._ffi = ffi
        self.lib = _cffi_backend.load_library(so_path)
        self.lib.load_function(ffi.typeof("int(*)(const void *)"), "pc_module_init")(
            ffi.cast("const void *", runtime.api_address()))
        self._entry = self.lib.load_function(ffi.typeof("int(*)(void **)"), "pc_entry")
        self._set_dim = self.lib.load_function(ffi.typeof("void(*)(long)"), "pc_set_dim")
        self.n_inputs = layout.n_inputs
        self.refs = refs
        self.out_specs = [(dims, t.dtype.np) for dims, t in zip(out_dims, layout.out_types)]
        self.consts = [("array", np.ascontiguousarray(c[1])) if c[0] == "array" else c for c in consts]
        self._const_cache: dict = {}
        self.arena_ab = arena
        self.batch_input = batch_input
        self.errors = layout.errors
        self._arena = np.empty(0, np.uint8)
        self._lock = threading.Lock()

    def __call__(self, arrays: list) -> list:
        ffi = self._ffi
        b = int(arrays[self.batch_input].shape[0])
        keep = [np.ascontiguousarray(a) for a in arrays] + [r._data for r in self.refs]
        outs = [np.empty(tuple(a + k * b for a, k in dims), dt) for dims, dt in self.out_specs]
        consts = self._const_cache.get(b)
        if consts is None:
            consts = [c[1] if c[0] == "array" else
                      np.full(tuple(a + k * b for a, k in c[1]), c[3] if c[0] == "fill" else c[3] / b, c[2])
                      for c in self.consts]
            if len(self._const_cache) > 8:
                self._const_cache.clear()
            self._const_cache[b] = consts
        size = self.arena_ab[0] + self.arena_ab[1] * b
        with self._lock:
            if self._arena.size < size + 128:
                self._arena = np.empty(size + 128, np.uint8)
            aligned = (-self._arena.ctypes.data) % 64
            bufs = [ffi.from_buffer(x) for x in keep + outs + consts] + [ffi.from_buffer(self._arena[aligned:])]
            args = ffi.new("void *[]", bufs)
            self._set_dim(b)
            rc = self._entry(args)
        if rc != 0:
            code = rc - 1000
            if 0 <= code < len(self.errors):
                if self.errors[code].startswith("CommError: "):     # a collective: with the runtime's reason
                    from pycompile.backend.executable import _comm_error
                    raise _comm_error(self.errors[code][len("CommError: "):])
                if self.errors[code].startswith("PyFuncError: "):   # ops.Custom's Python function raised
                    from pycompile.backend.executable import _py_call_error
                    raise _py_call_error(self.errors[code][len("PyFuncError: "):])
                raise IndexError(self.errors[code])
            raise RuntimeError(f"compiled code returned error {rc}")
        return outs
