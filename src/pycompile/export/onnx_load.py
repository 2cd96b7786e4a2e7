"""`pycompile.onnx.load(file)`: an ONNX file as an `nn.GraphCell` (it runs in PyNative and
compiles to C in graph mode like any Cell; `pycompile model.onnx --emit ...` uses it).

The ops read are those pycompile's ONNX writer emits plus MindSpore's (nn/onnx_prims.py), in
the default domain at opsets 11 to 21. Float initializers become the cell's Parameters under
their names (`fc1.weight`); integer / bool initializers and `Constant` nodes are constants known
while the graph is built. An input dimension given by name (`dim_param`) or left unknown is -1:
any size runs. Needs the `onnx` package to parse the file.

Errors (`GraphLoadError`, a RuntimeError, starting "Load ONNX failed." and naming the file): a
file that is not ONNX or is truncated, an opset or domain outside those, an op pycompile does not
read, a node reading a value nothing defines before it, an initializer whose data does not fill
its shape, a node with more outputs than pycompile computes. An attribute value pycompile does
not support is reported with the node when the cell first runs.
"""
from __future__ import annotations

import os

import numpy as np

from pycompile.nn.graph_cell import GraphCell, GraphNode, MindIRGraph
from pycompile.nn.graph_prims import GraphLoadError
from pycompile.nn.onnx_prims import ONNX_DTYPES, OPS, Static

OPSETS = range(11, 22)
# ops whose value is a tuple of all their outputs (the others have one output pycompile computes)
_MULTI = ()
# attributes an op cannot run without; inputs it needs (ONNX's required ones)
_REQUIRED = {"MaxPool": ("kernel_shape",), "AveragePool": ("kernel_shape",), "Concat": ("axis",), "Cast": ("to",)}
_ARITY = {"Conv": 2, "Gemm": 2, "MatMul": 2, "LayerNormalization": 2, "Reshape": 2, "Expand": 2, "Slice": 3,
          "Gather": 2, "GatherElements": 2, "ScatterND": 3, "Where": 3, "CumSum": 2, "Mod": 2, "Pow": 2, "Div": 2}


def _onnx():
    try:
        import onnx
    except ImportError:
        raise ImportError("loading ONNX needs the 'onnx' package: pip install 'pycompile[onnx]'") from None
    return onnx


def _attr(onnx, a):
    value = onnx.helper.get_attribute_value(a)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value]
    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    return value


def _parse(onnx, file: str):
    try:
        with open(file, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise ValueError(f"For 'onnx.load', the ONNX file {file!r} cannot be read: {e.strerror}") from None
    model = onnx.ModelProto()
    try:
        model.ParseFromString(blob)
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError, or a RuntimeError from its C++ runtime
        raise GraphLoadError(f"{file}: not an ONNX file, or a truncated one (protobuf: {e})") from None
    if not model.HasField("graph") or not model.graph.node or not model.graph.output:
        raise GraphLoadError(f"{file}: not an ONNX file (no graph with nodes and outputs)")
    opset = None
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            opset = int(imp.version)
        else:
            raise GraphLoadError(f"{file}: the model imports the operator set domain {imp.domain!r}; pycompile reads "
                                 f"the default ONNX domain only")
    if opset not in OPSETS:
        raise GraphLoadError(f"{file}: ONNX opset {opset}; pycompile reads opsets {OPSETS[0]} to {OPSETS[-1]}")
    return model, opset


def _initializer(onnx, t, file):
    try:
        arr = onnx.numpy_helper.to_array(t)
    except Exception as e:  # noqa: BLE001 - a damaged tensor: numpy's ValueError, or onnx's own
        raise GraphLoadError(f"{file}: initializer {t.name!r} cannot be read ({e})") from None
    if t.data_type not in ONNX_DTYPES or t.HasField("data_location") and t.data_location == 1:
        raise GraphLoadError(f"{file}: initializer {t.name!r} has ONNX data type {t.data_type} or external data, "
                             f"which pycompile does not read")
    return np.array(arr, copy=True)       # (ascontiguousarray would make a 0-d array 1-d)


def load_onnx_graph(file: str) -> MindIRGraph:
    """Read `file` into the graph form nn.GraphCell runs."""
    onnx = _onnx()
    model, opset = _parse(onnx, file)
    g = model.graph
    parameters, constants = {}, {"": None}       # "": an omitted optional input
    for t in g.initializer:
        arr = _initializer(onnx, t, file)
        if arr.dtype.kind == "f":
            parameters[t.name] = (t.name, arr)
        else:
            constants[t.name] = Static(arr)
    inputs = []
    for vi in g.input:
        if vi.name in parameters or vi.name in constants:
            continue                               # IR < 4 lists initializers as inputs too
        tt = vi.type.tensor_type
        if not vi.type.HasField("tensor_type") or tt.elem_type not in ONNX_DTYPES:
            raise GraphLoadError(f"{file}: input {vi.name!r} is not a tensor of a data type pycompile has")
        dims = tuple(int(d.dim_value) if d.HasField("dim_value") else -1 for d in tt.shape.dim)
        inputs.append((vi.name, dims, ONNX_DTYPES[tt.elem_type]))
    defined = set(parameters) | set(constants) | {name for name, _, _ in inputs} | {""}
    nodes = []
    for k, n in enumerate(g.node):
        label = n.name or (n.output[0] if n.output else f"#{k}")
        if n.domain not in ("", "ai.onnx"):
            raise GraphLoadError(f"{file}: node {label!r} is {n.domain}::{n.op_type}; pycompile reads the default "
                                 f"ONNX domain only")
        for name in n.input:
            if name not in defined:
                raise GraphLoadError(f"{file}: node {label!r} ({n.op_type}) reads {name!r}, which nothing before it "
                                     f"defines")
        attrs = {a.name: _attr(onnx, a) for a in n.attribute}
        if n.op_type == "Constant":
            if len(attrs) != 1:
                raise GraphLoadError(f"{file}: Constant node {label!r} has no single value")
            (key, value), = attrs.items()
            constants[n.output[0]] = Static(np.asarray(value, np.float32 if key.startswith("value_float") else None))
            defined.add(n.output[0])
            continue
        if n.op_type not in OPS:
            raise GraphLoadError(f"{file}: node {label!r} is the op {n.op_type}, which pycompile does not read (the "
                                 f"ops read are listed in docs/guide/export.md)")
        missing = [a for a in _REQUIRED.get(n.op_type, ()) if a not in attrs]
        if missing or len(n.input) < _ARITY.get(n.op_type, 1) or "" in n.input[:_ARITY.get(n.op_type, 1)]:
            raise GraphLoadError(f"{file}: node {label!r} ({n.op_type}) lacks a required "
                                 f"{'attribute ' + missing[0] if missing else 'input'}")
        used = [o for o in n.output if o]
        if len(used) != 1 and n.op_type not in _MULTI or not n.output[0]:
            raise GraphLoadError(f"{file}: node {label!r} ({n.op_type}) has {len(used)} outputs; pycompile computes "
                                 f"the first one only")
        attrs["_opset"], attrs["_file"] = opset, file
        nodes.append(GraphNode(n.output[0], "onnx::" + n.op_type, tuple(n.input), attrs))
        defined.update(used)
    outputs = [o.name for o in g.output]
    for name in outputs:
        if name not in defined:
            raise GraphLoadError(f"{file}: the graph's output {name!r} is not defined by any node")
    return MindIRGraph(file=file, name=g.name or os.path.basename(file), inputs=inputs, outputs=outputs,
                       parameters=parameters, constants=constants, nodes=nodes)


def load(file_name) -> GraphCell:
    """`pycompile.onnx.load(file_name)`: the ONNX file as an nn.GraphCell (see the module
    docstring). Its Parameters are the file's float initializers, by name."""
    if not isinstance(file_name, str):
        raise ValueError(f"For 'onnx.load', the argument 'file_name' must be string, but got {type(file_name)}.")
    if not os.path.exists(file_name):
        raise ValueError(f"For 'onnx.load', the ONNX file {file_name!r} does not exist.")
    try:
        return GraphCell(load_onnx_graph(os.path.abspath(file_name)))
    except GraphLoadError as e:
        raise GraphLoadError(f"Load ONNX failed. {e}") from None
