"""nn.GraphCell: a network loaded from a MINDIR file (`ms.load`) run as a Cell.

`ms.load` (pycompile/export/mindir_load.py) turns the file into a `MindIRGraph`: plain data
(nodes in topological order, each a MindSpore primitive name, its attributes and the names of
its inputs; constants; Parameters as arrays; the declared inputs and outputs). `GraphCell`
holds the Parameters and, in `construct`, walks the nodes and calls each primitive's pycompile
op from `graph_prims.PRIMITIVES`. `construct` is library code, so it runs unchanged on Tensors
in PyNative mode and on graph values when the Cell is compiled (GRAPH_MODE, `@jit`): the walk
happens once while tracing and the compiled graph holds only the ops.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell
from pycompile.nn.graph_prims import MONAD, PRIMITIVES, GraphLoadError


@dataclass(frozen=True)
class GraphNode:
    """One call: `output = prim(*inputs)` with the primitive's attributes (Python values)."""
    output: str
    prim: str
    inputs: tuple
    attrs: dict = field(default_factory=dict)


@dataclass
class MindIRGraph:
    """What `ms.load` returns: a loaded graph, ready for `nn.GraphCell`."""
    file: str
    name: str
    inputs: list          # [(value name, shape with -1 for a dynamic dim, pycompile dtype)]
    outputs: list         # value names
    parameters: dict      # value name -> (Parameter name, np.ndarray)
    constants: dict       # value name -> Python value / np.ndarray / MONAD
    nodes: list           # [GraphNode] in topological order

    def unknown_primitives(self) -> list:
        return sorted({n.prim for n in self.nodes if n.prim not in PRIMITIVES})

    def __repr__(self):
        return (f"MindIRGraph({self.name!r} from {self.file!r}: {len(self.inputs)} inputs, {len(self.nodes)} nodes, "
                f"{len(self.parameters)} parameters)")


class GraphCell(Cell):
    """MindSpore's `nn.GraphCell(graph, params_init=None, obf_random_seed=None)`: runs a graph
    loaded by `ms.load`. `params_init` maps Parameter names to Tensors that replace the loaded
    values."""

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__(auto_prefix=False)
        if not isinstance(graph, MindIRGraph):
            raise TypeError(f"For 'GraphCell', the argument 'graph' must be a graph returned by load(), "
                            f"but got {type(graph).__name__}")
        if obf_random_seed is not None:
            raise NotImplementedError("GraphCell: obfuscated MINDIR models (obf_random_seed) are not supported")
        unknown = graph.unknown_primitives()
        if unknown:
            raise GraphLoadError(f"{graph.file}: primitive(s) {', '.join(unknown)} have no pycompile op "
                                 f"(supported: {', '.join(sorted(PRIMITIVES))})")
        params_init = dict(params_init or {})
        object.__setattr__(self, "_graph", graph)
        object.__setattr__(self, "_value_params", {})
        object.__setattr__(self, "_constants", {k: Tensor(v) if isinstance(v, np.ndarray) else v
                                                for k, v in graph.constants.items()})
        for value_name, (pname, array) in graph.parameters.items():
            init = params_init.pop(pname, None)
            data = Tensor(np.asarray(init.asnumpy() if isinstance(init, Tensor) else init)) if init is not None \
                else Tensor(array)
            if tuple(data.shape) != tuple(array.shape):
                raise ValueError(f"For 'GraphCell', 'params_init' gives {pname!r} shape {tuple(data.shape)}, but "
                                 f"the graph's parameter has shape {tuple(array.shape)}")
            param = Parameter(data, name=pname)
            self.insert_param_to_cell(pname, param, check_name_contain_dot=False)
            self._value_params[value_name] = param
        if params_init:
            raise ValueError(f"For 'GraphCell', 'params_init' names parameters the graph does not have: "
                             f"{sorted(params_init)}")

    def construct(self, *inputs):
        return run_graph(self, inputs)


def _check_inputs(graph: MindIRGraph, inputs) -> None:
    if len(inputs) != len(graph.inputs):
        raise TypeError(f"The graph loaded from {graph.file} takes {len(graph.inputs)} inputs, but got {len(inputs)}")
    for i, (x, (name, shape, dt)) in enumerate(zip(inputs, graph.inputs)):
        got = tuple(getattr(x, "shape", ()))
        if len(got) != len(shape) or any(d != -1 and d != g for d, g in zip(shape, got)):
            raise ValueError(f"The graph loaded from {graph.file}: input {i} ('{name}') must have shape "
                             f"{tuple(shape)}, but got {got}")
        if getattr(x, "dtype", dt) != dt:
            raise TypeError(f"The graph loaded from {graph.file}: input {i} ('{name}') must be {dt}, "
                            f"but got {x.dtype}")


def run_graph(cell: GraphCell, inputs):
    """Evaluate the loaded graph's nodes in order on `inputs` (Tensors, or graph values while
    compiling) and return its output (a tuple when it has several)."""
    graph = cell._graph
    _check_inputs(graph, inputs)
    env = dict(cell._constants)
    env.update(cell._value_params)
    env.update((name, x) for (name, _, _), x in zip(graph.inputs, inputs))
    for node in graph.nodes:
        try:
            args = [env[name] for name in node.inputs]
        except KeyError as e:
            raise GraphLoadError(f"{graph.file}: node {node.output} ({node.prim}) reads {e.args[0]!r}, "
                                 f"which no earlier node defines") from None
        env[node.output] = PRIMITIVES[node.prim](node, args)
    outs = [env[name] for name in graph.outputs]
    outs = [o for o in outs if o is not MONAD]
    return outs[0] if len(outs) == 1 else tuple(outs)
