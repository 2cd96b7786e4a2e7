"""The optimizer: passes are functions Graph -> Graph, run in the order of PIPELINE.

Inlining happens while the frontend walks the source (calls to user functions, methods,
sub-Cells and jit_class methods are walked in place), so the pipeline starts from a flat graph.
Every pass is timed and its node counts recorded; with verify=True (PYCOMPILE_VERIFY=1, on in
the test suite) the verifier runs after each pass.
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
from pycompile.compiler.verify import verify as verify_graph


def _load_elim(graph, options):
    return load_elim(graph, options.get("load_elim", 1))


def _subgraphs(graph, options):
    # each shared subgraph runs this same pipeline once (the Call nodes then point at it)
    return optimize_subgraphs(graph, lambda g: run_pipeline(g, options.get("opt_level", 3),
                                                            options.get("verify", False), options)[0])


# (name, function, minimum opt level)
PIPELINE = [
    ("subgraphs", _subgraphs, 0),
    ("decompose", lambda g, o: decompose(g, o.get("fast_paths", True)), 0),
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
    ("fusion", lambda g, o: fusion(g, o.get("fast_paths", True)), 2),
    ("dce_final", lambda g, o: dce(g), 0),
    # last: only reorders (gradient all-reduces start when their bucket exists, wait when read)
    ("comm_schedule", lambda g, o: comm_schedule(g), 0),
]


def run_pipeline(graph: ir.Graph, opt_level: int = 3, verify: bool = False, options: dict | None = None):
    """Returns (optimized graph, [PassStat])."""
    options = dict(options or {}, opt_level=opt_level, verify=verify)
    stats = []
    if verify:
        verify_graph(graph, "frontend")
    for name, fn, min_level in PIPELINE:
        if opt_level < min_level:
            continue
        before = ir.count_nodes(graph)
        t0 = time.perf_counter()
        graph = fn(graph, options)
        dt = time.perf_counter() - t0
        stats.append(PassStat(name, dt, before, ir.count_nodes(graph)))
        if verify:
            verify_graph(graph, name)
    return graph, stats
