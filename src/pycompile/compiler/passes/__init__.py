"""The optimizer: passes are functions Graph -> Graph, run in the order of PIPELINE.

Inlining happens while the frontend walks the source (calls to user functions, methods,
sub-Cells and jit_class methods are walked in place), so the pipeline starts from a flat graph.
Every pass is timed and its node counts recorded; with verify=True (PYCOMPILE_VERIFY=1, on in
the test suite) the verifier runs after each pass.

The pipeline is device-blind except for what the options say about the device (the backend's
`pipeline.options()` fills them from `backend/devices.Device`):

* `device_passes` - the names of the device-chosen passes (DEVICE_PASSES) the device wants; each
  runs at its place in PIPELINE, the others not at all. `layout` (a product's operand order for
  BLAS's kernels) and `conv_epilogue` (the CPU's register-tiled convolution epilogues) are tuned
  for the CPU device's OpenBLAS and its C kernels: no other device gets them by default.
* `unrendered` - the names of the table rows the device does not render: `decompose` replaces
  them by their decompositions (a fast path the device lacks falls back to its composition), and
  `decompose_unrendered` does the same, before fusion, for any such row a later pass made (a
  FusedConv from `conv_epilogue`, a StridedSliceGrad from `simplify`). It is skipped when the
  device renders every row, so such a device's pipeline is exactly the list below without it.
"""
from __future__ import annotations

import time
from pycompile.compiler import ir
from pycompile.compiler.passes.comm_schedule import comm_schedule
from pycompile.compiler.passes.conv_epilogue import conv_epilogue
from pycompile.compiler.stats import PassStat
from pycompile.compiler.passes.cse import cse
from pycompile.compiler.passes.dce import dce
from pycompile.compiler.passes.decompose import decompose
from pycompile.compiler.passes.fold import fold
from pycompile.compiler.passes.fusion import fusion
from pycompile.compiler.passes.layout import layout
from pycompile.compiler.passes.licm import licm
from pycompile.compiler.passes.load_elim import load_elim
from pycompile.compiler.passes.simplify import simplify
from pycompile.compiler.passes.subgraphs import optimize_subgraphs
from pycompile.compiler.passes.update_schedule import update_schedule
from pycompile.compiler.verify import verify as verify_graph


def _load_elim(graph, options):
    return load_elim(graph, options.get("load_elim", 1))


def _subgraphs(graph, options):
    # each shared subgraph runs this same pipeline once (the Call nodes then point at it)
    return optimize_subgraphs(graph, lambda g: run_pipeline(g, options.get("opt_level", 3),
                                                            options.get("verify", False), options)[0])


def _decompose(graph, options):
    return decompose(graph, options.get("fast_paths", True), frozenset(options.get("unrendered", ())),
                     options.get("device", ""))


# the passes a device may choose (backend/devices.Device.passes names them); each has its place in
# PIPELINE and runs only where the options' `device_passes` name it
DEVICE_PASSES = ("layout", "conv_epilogue")

# (name, function, minimum opt level)
PIPELINE = [
    ("subgraphs", _subgraphs, 0),
    ("decompose", _decompose, 0),
    ("fold", lambda g, o: fold(g), 1),
    ("simplify", lambda g, o: simplify(g), 1),
    ("cse", lambda g, o: cse(g), 1),
    ("dce", lambda g, o: dce(g), 0),
    ("licm", lambda g, o: licm(g), 2),
    ("cse_after_licm", lambda g, o: cse(g), 2),
    ("fold_after_licm", lambda g, o: fold(g), 2),
    ("simplify_after_licm", lambda g, o: simplify(g), 1),
    ("dce_after_simplify", lambda g, o: dce(g), 0),
    ("load_elim", _load_elim, 0),
    ("layout", lambda g, o: layout(g), 2),
    # the fast paths (PYCOMPILE_FAST_PATHS=0 leaves their compositions: tests/ops/test_core32_fast_paths.py)
    ("conv_epilogue", lambda g, o: conv_epilogue(g) if o.get("fast_paths", True) else g, 2),
    # rows a pass above made that the device does not render (skipped when it renders them all)
    ("decompose_unrendered", _decompose, 0),
    ("fusion", lambda g, o: fusion(g, o.get("fast_paths", True)), 2),
    ("dce_final", lambda g, o: dce(g), 0),
    # last: only reorders (gradient all-reduces start when their bucket exists, wait when read)
    ("comm_schedule", lambda g, o: comm_schedule(g), 0),
    # then each Parameter's optimizer update right after the wait of its gradient's bucket, so the
    # last buckets' reductions run during the earlier buckets' updates (only reorders)
    ("update_schedule", lambda g, o: update_schedule(g), 0),
]


def run_pipeline(graph: ir.Graph, opt_level: int = 3, verify: bool = False, options: dict | None = None):
    """Returns (optimized graph, [PassStat]). Without the device's options (`device_passes`,
    `unrendered`: see the module docstring) the device-blind pipeline runs: no device pass."""
    options = dict(options or {}, opt_level=opt_level, verify=verify)
    chosen = tuple(options.get("device_passes", ()))
    unknown = [p for p in chosen if p not in DEVICE_PASSES]
    if unknown:
        raise ValueError(f"device {options.get('device', '?')!r} asks for the passes {unknown}; the passes a "
                         f"device may choose are {list(DEVICE_PASSES)}")
    stats = []
    if verify:
        verify_graph(graph, "frontend")
    for name, fn, min_level in PIPELINE:
        if opt_level < min_level:
            continue
        if name in DEVICE_PASSES and name not in chosen:
            continue
        if name == "decompose_unrendered" and not options.get("unrendered"):
            continue
        before = ir.count_nodes(graph)
        t0 = time.perf_counter()
        graph = fn(graph, options)
        dt = time.perf_counter() - t0
        stats.append(PassStat(name, dt, before, ir.count_nodes(graph)))
        if verify:
            verify_graph(graph, name)
    return graph, stats
