"""ms.flops_collection(phase): the floating-point operations of a Cell's compiled graph, named by
its `current_phase` (nn/cell_phase.py), counted as MindSpore's FlopsUtilizationCollector counts them
(compiler/flops.py): (full model FLOPs, full hardware FLOPs, shard model FLOPs, shard hardware
FLOPs, is_dynamic_shape). One process holds the whole model (no sharding) and recompute saves
nothing here (nothing runs twice), so the four counts are equal; a graph compiled with dynamic
dimensions answers True in the last place, as MindSpore's does. An unknown phase is MindSpore's
RuntimeError."""
from __future__ import annotations

from pycompile.common import api as _common_api
from pycompile.compiler.flops import graph_flops
from pycompile.nn.cell_phase import PHASES
from pycompile.ops._table import OpRuntimeError
from pycompile.train.callback import _flops_collector


def flops_collection(phase="train"):
    """(full model FLOPs, full hardware FLOPs, shard model FLOPs, shard hardware FLOPs,
    is_dynamic_shape) of the graph compiled under `phase` (a Cell's `current_phase`)."""
    cell = PHASES.get(phase) if isinstance(phase, str) else None
    compiled = cell.last_compiled() if cell is not None else None
    if compiled is None:
        raise OpRuntimeError("The pointer[graph] is null.")
    graph = compiled.report.sources.graphs[1]
    flops = float(graph_flops(graph))
    dynamic = any(d is None or (isinstance(d, int) and d < 0)
                  for p in graph.params for d in (getattr(p.type, "shape", ()) or ()))
    return flops, flops, flops, flops, dynamic


_flops_collector.FLOPS_COLLECTION[0] = flops_collection
_common_api.flops_collection = flops_collection
