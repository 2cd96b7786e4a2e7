"""`ms.load`: read a MINDIR file (MindSpore 2.10's, or pycompile's export) into a `MindIRGraph`
for `nn.GraphCell`.

The entry graph is read: its parameters (raw little-endian data, named by `ref_key`), inputs
(shape, dtype; -1 marks a dynamic dim), outputs, and nodes. A node's `op_type` is
`REF::<primitive name>`; the primitive (in `ModelProto.primitives`) gives MindSpore's class name
and attributes. `Constant` nodes become Python values. Anything the reader cannot make sense of
- a file that is not a MINDIR protobuf, a truncated one, a parameter whose data does not fill its
shape, a call to a subgraph - raises `GraphLoadError` naming the file.

mindir_pb (protobuf, ~70 ms) is imported on the first load, not with `import pycompile`.
"""
from __future__ import annotations

import os

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.nn.graph_cell import GraphNode, MindIRGraph
from pycompile.nn.graph_prims import MONAD, GraphLoadError

# TensorProto.DataType -> pycompile dtype
DTYPES = {1: mstype.float32, 2: mstype.uint8, 3: mstype.int8, 4: mstype.uint16, 5: mstype.int16, 6: mstype.int32,
          7: mstype.int64, 9: mstype.bool_, 10: mstype.float16, 11: mstype.float64, 12: mstype.uint32,
          13: mstype.uint64, 16: mstype.bfloat16, 17: mstype.float64}
_INTS = ("UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "UINT32", "UINT64")     # AttributeTypes of ints


def _s(text) -> str:
    """A string field: protobuf hands back bytes when a damaged file's string is not UTF-8."""
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else text


def _short(name) -> str:
    """A value's name without the graph prefix ('12_net_construct_3:x:4' -> 'x:4')."""
    name = _s(name)
    return name.split(":", 1)[1] if ":" in name else name


def tensor_value(t, file: str) -> np.ndarray:
    dt = DTYPES.get(t.data_type)
    if dt is None:
        raise GraphLoadError(f"{file}: tensor {_short(t.name) or '(constant)'} has data type {t.data_type}, "
                             f"which pycompile does not read")
    if t.HasField("external_data"):
        raise GraphLoadError(f"{file}: tensor {_short(t.name)} keeps its data in an external file "
                             f"({t.external_data.location}); pycompile reads weights stored in the MINDIR file only")
    shape = tuple(int(d) for d in t.dims)
    count = int(np.prod(shape, dtype=np.int64))
    npdt = np.dtype(dt.np).newbyteorder("<")
    if t.raw_data or count == 0:
        if len(t.raw_data) != count * npdt.itemsize:
            raise GraphLoadError(f"{file}: tensor {_short(t.name) or '(constant)'} of shape {shape} needs "
                                 f"{count * npdt.itemsize} bytes but holds {len(t.raw_data)} (a truncated file?)")
        return np.frombuffer(t.raw_data, npdt).astype(dt.np).reshape(shape)
    for field in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        values = getattr(t, field)
        if len(values) == count:
            return np.asarray(list(values), dt.np).reshape(shape)
    raise GraphLoadError(f"{file}: tensor {_short(t.name) or '(constant)'} of shape {shape} has no data")


def attr_value(a, file: str):
    """A Python value from an AttributeProto (scalars, strings, tuples / lists, tensors)."""
    from pycompile.export.mindir_pb import AttributeProto as _A
    k = a.type
    if k in (_A.UMONAD, _A.IOMONAD):
        return MONAD
    if k == _A.NONE:
        return None
    if k == _A.BOOL:
        return bool(a.ints[0] if len(a.ints) else a.i)
    if k in {getattr(_A, n) for n in _INTS}:
        return int(a.ints[0] if len(a.ints) else a.i)
    if k in (_A.FLOAT, _A.FLOAT16, _A.BFLOAT16):
        return float(a.floats[0] if len(a.floats) else a.f)
    if k == _A.DOUBLE:
        return float(a.doubles[0] if len(a.doubles) else a.d)
    if k == _A.STRING:
        return _s(a.strings[0] if len(a.strings) else a.s)
    if k in (_A.TUPLE, _A.LIST):
        return tuple(attr_value(v, file) for v in a.values)
    if k in (_A.TENSORS, _A.TENSOR):
        ts = list(a.tensors) or ([a.t] if a.HasField("t") else [])
        if len(ts) != 1:
            raise GraphLoadError(f"{file}: attribute {_s(a.name)!r} holds {len(ts)} tensors; pycompile reads one")
        return tensor_value(ts[0], file)
    kind = _A.AttributeType.Name(k) if k in _A.AttributeType.values() else str(k)
    raise GraphLoadError(f"{file}: attribute {_s(a.name)!r} of kind {kind} is not supported by pycompile's "
                         f"MINDIR reader")


def _parse(file: str):
    try:
        with open(file, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise ValueError(f"For 'load', the MINDIR file {file!r} cannot be read: {e.strerror}") from None
    from google.protobuf.message import DecodeError
    from pycompile.export import mindir_pb as pb
    model = pb.ModelProto()
    try:
        model.ParseFromString(blob)
    except (DecodeError, RuntimeError, ValueError) as e:
        raise GraphLoadError(f"{file}: not a MINDIR file, or a truncated one (protobuf: {e})") from None
    g = model.graph
    if not model.HasField("graph") or not g.node or not g.output:
        raise GraphLoadError(f"{file}: not a MINDIR file (no graph with nodes and outputs; "
                             f"producer {model.producer_name!r})")
    return model


def load_mindir(file: str) -> MindIRGraph:
    """Read `file` into a MindIRGraph; see the module docstring for what raises."""
    model = _parse(file)
    g = model.graph
    prims = {_s(p.name): p for p in model.primitives}
    subgraphs = {_s(f.name) for f in model.functions}
    parameters = {}
    for t in g.parameter:
        parameters[_s(t.name)] = (_s(t.ref_key) or _short(t.name), tensor_value(t, file))
    inputs = []
    for vi in g.input:
        if not vi.tensor:
            raise GraphLoadError(f"{file}: input {_short(vi.name)} is not a tensor; pycompile loads tensor inputs only")
        t = vi.tensor[0]
        if t.data_type not in DTYPES:
            raise GraphLoadError(f"{file}: input {_short(vi.name)} has data type {t.data_type}")
        inputs.append((_s(vi.name), tuple(int(d) for d in t.dims), DTYPES[t.data_type]))
    constants, nodes = {}, []
    for n in g.node:
        out = _s(n.output[0] if n.output else n.name)
        op_type = _s(n.op_type)
        if op_type == "Constant":
            if not n.attribute:
                raise GraphLoadError(f"{file}: constant {out} has no value")
            constants[out] = attr_value(n.attribute[0], file)
            continue
        if not op_type.startswith("REF::"):
            raise GraphLoadError(f"{file}: node {_short(out)} calls {op_type!r}; pycompile runs primitive calls "
                                 f"only (no subgraphs or closures)")
        prim = prims.get(op_type[len("REF::"):])
        if prim is None and op_type[len("REF::"):] in subgraphs:
            raise GraphLoadError(f"{file}: node {_short(out)} calls the subgraph {op_type[5:]!r} (control flow or a "
                                 f"shared cell); pycompile loads single-graph files only")
        if prim is None:
            raise GraphLoadError(f"{file}: node {_short(out)} calls {op_type[5:]!r}, which the file does not define")
        attrs = {_s(a.name): attr_value(a, file) for a in prim.attribute
                 if _s(a.name) not in ("input_names", "output_names")}
        nodes.append(GraphNode(out, _s(prim.op_type), tuple(_s(i) for i in n.input), attrs))
    graph = MindIRGraph(file=file, name=_s(g.name), inputs=inputs, outputs=[_s(o.name) for o in g.output],
                        parameters=parameters, constants=constants, nodes=nodes)
    _check_names(graph)
    return graph


def _check_names(graph: MindIRGraph) -> None:
    """Every node reads values defined before it, and every output is defined."""
    defined = set(graph.parameters) | set(graph.constants) | {name for name, _, _ in graph.inputs}
    for node in graph.nodes:
        for name in node.inputs:
            if name not in defined:
                raise GraphLoadError(f"{graph.file}: node {_short(node.output)} ({node.prim}) reads {_short(name)!r}, "
                                     f"which nothing before it defines")
        defined.add(node.output)
    for name in graph.outputs:
        if name not in defined:
            raise GraphLoadError(f"{graph.file}: the graph's output {_short(name)!r} is not defined by any node")


def load(file_name, **kwargs):
    """MindSpore's `load(file_name, **kwargs)`: a MINDIR file as a graph for `nn.GraphCell`.
    `dec_key` (encrypted files) and `obf_func` are not supported."""
    if not isinstance(file_name, str):
        raise ValueError(f"For 'load', the argument 'file_name' must be string, but got {type(file_name)}.")
    if not file_name.endswith(".mindir"):
        raise ValueError("For 'load', the argument 'file_name'(MindIR file) should end with '.mindir', "
                         "please input the correct 'file_name'.")
    if not os.path.exists(file_name):
        raise ValueError("For 'load', the argument 'file_name'(MindIR file) does not exist, "
                         "please check whether the 'file_name' is correct.")
    for key in ("dec_key", "obf_func"):
        if kwargs.get(key) is not None:
            raise NotImplementedError(f"For 'load', '{key}' is not supported by pycompile")
    try:
        graph = load_mindir(os.path.abspath(file_name))
        unknown = graph.unknown_primitives()
        if unknown:
            raise GraphLoadError(f"{graph.file}: primitive(s) {', '.join(unknown)} have no pycompile op yet; "
                                 f"see docs/guide/export.md for the supported primitives")
    except GraphLoadError as e:     # MindSpore's first line, then what was wrong
        raise GraphLoadError(f"Load MindIR failed. {e}") from None
    return graph
