"""`export(net, *inputs, file_name=..., file_format="MINDIR")`: a pycompile Cell as a MINDIR file
that MindSpore 2.10 loads (`ms.load` + `nn.GraphCell`) and pycompile loads back.

The Cell is traced on `inputs` to pycompile's typed IR (compiler/frontend.py, the graph GRAPH_MODE
compiles), before any optimization pass, so the file holds the network's ops as written. Then:

* graph inputs become `GraphProto.input` (name, dims, data type);
* Parameters become `GraphProto.parameter` tensors with their data (`ref_key` = the Parameter's
  name, so `GraphCell.parameters_and_names()` lists the same names);
* `Load(param, U)` reads become the parameter itself and `UpdateState` is dropped: an exported
  graph is a pure inference function;
* every other node becomes a `REF::<primitive>` call through `mindir_ops.RULES`, its settings as
  `Constant` inputs or primitive attributes, and each node carries its inferred output shape as
  MindSpore's writer does;
* the return value is `GraphProto.output`.

A `for` loop whose trip count is known when tracing (an RNN over a static sequence: nn.LSTM,
nn.GRU) is **unrolled**: its body is written once per iteration as straight-line nodes, with the
loop counter a constant in each copy (ops computed from the counter alone, such as the row index
of the output write, are folded to constants). MindSpore itself exports nn.LSTM on the CPU as one
fused `LSTM` primitive; pycompile writes the cell's ops instead, which MindSpore 2.10 loads and
runs (tests/oracle/data/mindir/pycompile_lstm.mindir). Only what the outputs depend on is written.
Other control flow (If / While, a loop that breaks or whose trip count is known only at run
time), lazy_inline subgraphs and ops without a rule are refused with a `ValueError` naming the op
and the user's source line.
"""
from __future__ import annotations

import os

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import MonadType, RefType, ScalarType, TensorType, TupleType
from pycompile.common.tensor import Tensor
from pycompile.compiler import ir
from pycompile.compiler.frontend import trace
from pycompile.export import mindir_pb as pb
from pycompile.export.mindir_ops import FUNCTION, PRIMITIVE, RULES, TUPLE_INPUT, TYPE_IDS, Unsupported
from pycompile.nn.cell import Cell
from pycompile.ops import prims as P
from pycompile.ops._table import Effect, OpDef, eager_values

_A = pb.AttributeProto
DATA_TYPES = {mstype.float32: 1, mstype.uint8: 2, mstype.int8: 3, mstype.uint16: 4, mstype.int16: 5,
              mstype.int32: 6, mstype.int64: 7, mstype.bool_: 9, mstype.float16: 10, mstype.float64: 11,
              mstype.uint32: 12, mstype.uint64: 13, mstype.bfloat16: 16}     # bfloat16: read from the wheel's files
_EFFECTS = (P.UpdateState,)
_ARITHMETIC = (P.Add, P.Sub, P.Mul, P.RealDiv, P.Maximum, P.Minimum, P.Pow)
_COMPARE = (P.Equal, P.NotEqual, P.Less, P.LessEqual, P.Greater, P.GreaterEqual)
FOLD_LIMIT = 1 << 16      # bytes: a value folded from a loop counter larger than this is computed instead


class _Known:
    """A value known when writing: an unrolled loop's counter, or an op computed from it alone.
    Written as a Constant node where a node reads it (once per value)."""
    __slots__ = ("value", "name")

    def __init__(self, value):
        self.value, self.name = value, None


def _live(graph: ir.Graph) -> set:
    """ids of the nodes the graph's outputs depend on (in a loop: what its results depend on)."""
    live, todo = set(), list(graph.outputs)
    while todo:
        v = todo.pop()
        if not isinstance(v, ir.Node) or id(v) in live:
            continue
        live.add(id(v))
        todo.extend(v.inputs[:1] if v.op in (P.Load, P.Depend) else v.inputs)
        for b in v.blocks:
            todo.extend(b.results)
    return live


def _set_tensor(t, dtype, shape, data=None):
    if dtype not in DATA_TYPES:
        raise ValueError(f"For 'export', MINDIR has no data type for {dtype}")
    t.dims.extend(int(d) for d in shape)
    t.data_type = DATA_TYPES[dtype]
    if data is not None:
        t.raw_data = np.ascontiguousarray(data, dtype=np.dtype(dtype.np).newbyteorder("<")).tobytes()


def _set_value(a, value):
    """A Python constant (bool, int, float, str, tuple of them, NumPy array) into an AttributeProto."""
    if isinstance(value, (bool, np.bool_)):
        a.type, a.i = _A.BOOL, int(value)
    elif isinstance(value, (int, np.integer)):
        a.type, a.i = _A.INT64, int(value)
    elif isinstance(value, (float, np.floating)):
        a.type, a.f = _A.FLOAT, float(value)
    elif isinstance(value, str):
        a.type, a.s = _A.STRING, value.encode()
    elif isinstance(value, (tuple, list)):
        a.type = _A.TUPLE if isinstance(value, tuple) else _A.LIST
        for v in value:         # items of a sequence hold their scalar in the repeated field
            item = a.values.add()
            _set_value(item, v)
            if item.type in (_A.BOOL, _A.INT64):
                item.ints.append(item.i)
                item.ClearField("i")
            elif item.type == _A.FLOAT:
                item.floats.append(item.f)
                item.ClearField("f")
            elif item.type == _A.STRING:
                item.strings.append(item.s)
                item.ClearField("s")
        if isinstance(value, tuple):
            a.seq_info.is_dyn_len = False
    elif isinstance(value, np.ndarray):
        a.type = _A.TENSORS
        arr = value
        _set_tensor(a.tensors.add(), mstype.from_numpy(arr.dtype), arr.shape, arr)
    else:
        raise ValueError(f"For 'export', the constant {value!r} cannot be written to MINDIR")


INT64_SCALAR = "int64 scalar"      # the abstract of a shape's item (Shape, TupleGetItem of it)


def _set_abstract(a, ty, dims=None) -> None:
    """An output's abstract as MindSpore's writer records it: a tensor's dtype and dims (-1 for a
    dynamic dimension), an int64 scalar, or a tuple of those (a list of abstracts)."""
    if isinstance(ty, TensorType):
        a.type = _A.TENSORS
        _set_tensor(a.tensors.add(), ty.dtype, ty.shape if dims is None else dims)
    elif ty is INT64_SCALAR:
        a.type = _A.SCALAR
        t = a.tensors.add(data_type=7)
        t.dims.append(0)
    elif isinstance(ty, list):
        a.type = _A.TUPLE
        for elem, elem_dims in ty:
            _set_abstract(a.values.add(), elem, elem_dims)
        a.seq_info.is_dyn_len = False


def _set_shape(node_proto, ty, dims=None):
    """The node's output abstract (attribute 'shape'; see _set_abstract)."""
    _set_abstract(node_proto.attribute.add(name="shape"), ty, dims)


class _Writer:
    def __init__(self, graph: ir.Graph, model, twins=None):
        self.model = model
        self.twins = twins or {}  # id(IR value) -> the same value traced at other dynamic sizes
        self.sources = {}         # (size, twin size) of a dynamic dimension -> (input name, axis)
        self.g = model.graph
        self.prefix = graph.name
        self.names = {}           # id(IR value) -> value name in the file
        self.prims = {}           # (name, kind, attrs) -> primitive entry name
        self.n = 0
        self.g.name = graph.name

    def fresh(self, base: str) -> str:
        self.n += 1
        return f"{self.prefix}:{base}_{self.n}"

    def constant(self, value) -> str:
        name = self.fresh("ValueNode")
        node = self.g.node.add(name=name, op_type="Constant")
        node.output.append(name)
        _set_value(node.attribute.add(name="value"), value)
        return name

    def primitive(self, name: str, attrs: dict, kind: str) -> str:
        key = (name, kind, repr(sorted(attrs.items())))
        if key not in self.prims:
            ref = f"{name}:{len(self.prims) + 1}"
            p = self.model.primitives.add(name=ref, op_type=name, instance_name="")
            p.prim_type = pb.PrimitiveProto.PRIMITIVE_FUNCTION if kind == FUNCTION else pb.PrimitiveProto.PRIMITIVE
            for k, v in attrs.items():
                _set_value(p.attribute.add(name=k), v)
            self.prims[key] = ref
        return self.prims[key]

    def value(self, v) -> str:
        got = self.names.get(id(v))
        if isinstance(got, str):
            return got
        if isinstance(got, _Known):
            if got.name is None:
                got.name = self.constant(got.value if np.ndim(got.value) == 0 and not isinstance(got.value, np.ndarray)
                                         else np.asarray(got.value))
            return got.name
        if isinstance(got, ir.Const) and got is not v:      # an unrolled loop's parameter set to a constant
            return self.value(got)
        if isinstance(v, ir.Const):
            twin = self.twins.get(id(v))
            if twin is not None and not (np.shape(twin.value) == np.shape(v.value)
                                         and np.array_equal(twin.value, v.value)):
                name = self.names[id(v)] = self.dynamic_fill(v, twin)
                return name
            if isinstance(v.type, TensorType):
                name = self.constant(np.asarray(v.value))
            elif isinstance(v.type, ScalarType):
                name = self.constant(v.value)
            else:
                raise ValueError(f"For 'export', a constant of type {v.type} cannot be written to MINDIR")
            self.names[id(v)] = name
            return name
        raise ValueError(f"For 'export', value {v!r} is used before it is defined")

    def dynamic_fill(self, v, twin) -> str:
        """A constant of one value whose shape follows dynamic dimensions (an RNN's zero state), as
        MindSpore writes it: Zeros(MakeTuple(sizes), dtype), each dynamic size read from an input
        with Shape + TupleGetItem, plus the value when it is not 0."""
        arr, other = np.asarray(v.value), np.asarray(twin.value)
        flat = arr.reshape(-1)
        why = (f"a constant of shape {arr.shape} that depends on a dynamic dimension (such as a number computed "
               f"from x.shape)")
        if not isinstance(v.type, TensorType) or arr.ndim != other.ndim or not flat.size \
                or not np.all(flat == flat[0]) or mstype.from_numpy(arr.dtype) not in TYPE_IDS:
            raise Unsupported(why)
        parts = []
        for a, b in zip(arr.shape, other.shape):
            if a == b:
                parts.append(self.constant(int(a)))
            elif (a, b) in self.sources:
                parts.append(self.dim_value(*self.sources[(a, b)]))
            else:
                raise Unsupported(why)
        dtype = mstype.from_numpy(arr.dtype)
        dims = tuple(a if a == b else -1 for a, b in zip(arr.shape, other.shape))
        shape = self.call("MakeTuple", {}, PRIMITIVE, parts, [(INT64_SCALAR, None)] * len(parts))
        out = self.call("Zeros", {}, FUNCTION, [shape, self.constant(TYPE_IDS[dtype])], v.type, dims)
        if flat[0] != 0:
            out = self.call("Add", {}, FUNCTION, [out, self.constant(np.asarray(flat[0], arr.dtype))], v.type, dims)
        return out

    def dim_value(self, source: str, axis: int) -> str:
        """The size of dimension `axis` of the graph input `source` at run time (Shape + TupleGetItem)."""
        key = ("dim", source, axis)
        if key not in self.prims:
            rank = len(next(vi for vi in self.g.input if vi.name == source).tensor[0].dims)
            shape = self.call("Shape", {}, FUNCTION, [source], [(INT64_SCALAR, None)] * rank)
            self.prims[key] = self.call("TupleGetItem", {}, PRIMITIVE, [shape, self.constant(axis)], INT64_SCALAR)
        return self.prims[key]

    def entry(self, v):
        """What v stands for: its name in the file, a _Known, a tuple of entries, or v itself (a
        constant not written yet). Entries are never other IR values, so they survive the next
        iteration of an unrolled loop redefining the body's nodes."""
        return self.names.get(id(v), v)

    def known(self, v):
        """v's value when it is known while writing (a constant or a _Known), else None."""
        got = self.entry(v)
        if isinstance(got, _Known):
            return got
        if isinstance(got, ir.Const) and isinstance(got.type, (TensorType, ScalarType)):
            return _Known(got.value)
        return None

    def fold(self, n: ir.Node) -> bool:
        """Compute n now when it is pure and reads only known values, one of them derived from an
        unrolled loop's counter (plain constant expressions stay as the user wrote them)."""
        op = n.op
        if not (isinstance(op, OpDef) and op.effect is Effect.PURE and op.eager is not None and n.inputs
                and isinstance(n.type, (TensorType, ScalarType))):
            return False
        if isinstance(n.type, TensorType) and n.type.nbytes > FOLD_LIMIT:
            return False
        if not any(isinstance(self.names.get(id(i)), _Known) for i in n.inputs):
            return False
        known = [self.known(i) for i in n.inputs]
        if any(k is None for k in known):
            return False
        values, types = [k.value for k in known], [i.type for i in n.inputs]
        if op.variadic:
            k = len(op.inputs) - 1
            values = values[:k] + [values[k:]]
            types = types[:k] + [TupleType(tuple(types[k:]))]
        out = eager_values(op, values, n.attrs, types, n.type)
        if isinstance(n.type, TensorType):
            out = np.asarray(out, dtype=n.type.dtype.np).reshape(n.type.shape)
        else:
            out = {"bool": bool, "int": int, "float": float}[n.type.kind](out)
        self.names[id(n)] = _Known(out)
        return True

    def block(self, block: ir.Block, live: set) -> None:
        for n in block.nodes:
            if id(n) in live:
                self.node(n, live)

    def loop(self, n: ir.Node, live: set, where: str) -> None:
        """An unrolled `for` loop: the body once per iteration, its results carried by name."""
        bounds = n.inputs[:3]
        if not all(isinstance(b, ir.Const) for b in bounds) or n.attr("exit_flags"):
            raise ValueError(f"For 'export', a loop whose trip count is known only at run time, or that breaks "
                             f"or returns early{where}, cannot be written to MINDIR (unroll it in Python, or "
                             f"give it a fixed trip count)")
        body = n.blocks[0]
        carried = [self.entry(v) for v in n.inputs[3:]]
        for i in range(*(int(b.value) for b in bounds)):
            self.names[id(body.params[0])] = _Known(i)
            for p, c in zip(body.params[1:], carried):
                self.names[id(p)] = c
            self.block(body, live)
            carried = [self.entry(r) for r in body.results]
        self.names[id(n)] = tuple(carried)

    def node(self, n: ir.Node, live: set = frozenset()) -> None:
        where = f" (at {n.loc.file}:{n.loc.line})" if n.loc else ""
        if n.op is ir.FOR:
            return self.loop(n, live, where)
        if n.op is ir.GETITEM:
            src = self.names.get(id(n.inputs[0]))
            if not isinstance(src, tuple):
                raise ValueError(f"For 'export', a tuple element of a value that cannot be written to MINDIR{where}")
            self.names[id(n)] = src[n.attr("index")]
            return
        if ir.is_structural(n):
            raise ValueError(f"For 'export', MINDIR export of control flow or subgraphs ({n.op.name}) is not "
                             f"supported yet{where}")
        if n.op in (P.Load, P.Depend):
            self.names[id(n)] = self.entry(n.inputs[0])
            return
        if n.op in _EFFECTS:
            return
        if self.fold(n):
            return
        if n.op is P.Cast and ir.tensor_type(n.inputs[0]) is not None \
                and ir.tensor_type(n.inputs[0]).dtype == n.type.dtype:
            self.names[id(n)] = self.value(n.inputs[0])        # MindSpore drops a cast to the same type
            return
        rule = RULES.get(n.op)
        if rule is None:
            raise ValueError(f"For 'export', the op {n.op.name}{where} has no MINDIR primitive in pycompile yet")
        try:
            prim, extra, attrs, kind, *item = rule(n)
            twin = self.twins.get(id(n))
            if twin is not None:
                extra = _dynamic_extra(n, twin, extra, rule(twin)[1:3] != (extra, attrs))
        except Unsupported as e:
            raise ValueError(f"For 'export', {e}{where} cannot be written to MINDIR") from None
        try:
            inputs = [self.tensor_input(n, k, i) for k, i in enumerate(n.inputs)]
        except Unsupported as e:
            raise ValueError(f"For 'export', {n.op.name} reads {e}{where}: it cannot be written to MINDIR with "
                             f"dynamic dimensions; export with a Tensor of the batch size you need") from None
        if n.op in TUPLE_INPUT:
            inputs = [self.call("MakeTuple", {}, PRIMITIVE, inputs,
                                [(ir.tensor_type(i), self.dims(i)) for i in n.inputs])]
        dims = self.dims(n)
        name = self.call(prim, attrs, kind, inputs + [self.constant(x) for x in extra],
                         _items(n, dims) if item else n.type, dims)
        if item:
            name = self.call("TupleGetItem", {}, PRIMITIVE, [name, self.constant(item[0])], n.type, dims)
        self.names[id(n)] = name

    def tensor_input(self, n: ir.Node, k: int, v) -> str:
        """Input k of n. A number operand of an arithmetic op is written as a 0-d tensor of the
        result's dtype, as MindSpore writes `x + 1e-5` (its shape inference of a graph with
        dynamic dimensions rejects a plain scalar there); a known integer index of a Gather as
        the 0-d int64 tensor MindSpore wants."""
        if isinstance(v.type, ScalarType) and (n.op is P.Gather and k == 1 or n.op in _ARITHMETIC
                                               or n.op in _COMPARE or n.op is P.Select and k > 0):
            got = self.known(v)
            if got is None:
                raise ValueError(f"For 'export', {n.op.name} of a number known only at run time cannot be written "
                                 f"to MINDIR")
            if n.op is P.Gather:
                dtype = np.int64
            elif n.op in _COMPARE:       # the number takes the other operand's dtype
                other = [ir.tensor_type(i) for i in n.inputs if ir.tensor_type(i) is not None]
                dtype = other[0].dtype.np if other else np.asarray(got.value).dtype
            else:
                dtype = n.type.dtype.np
            return self.constant(np.asarray(got.value, dtype))
        return self.value(v)

    def dims(self, v):
        """v's shape with -1 for each dimension that differs in the twin trace (None: static)."""
        twin = self.twins.get(id(v))
        t, u = ir.tensor_type(v), ir.tensor_type(twin) if twin is not None else None
        if t is None or u is None:
            return None
        return tuple(a if a == b else -1 for a, b in zip(t.shape, u.shape))

    def call(self, prim, attrs, kind, inputs, ty, dims=None) -> str:
        name = self.fresh(prim)
        proto = self.g.node.add(name=name, op_type="REF::" + self.primitive(prim, attrs, kind))
        proto.input.extend(inputs)
        proto.output.append(name)
        _set_shape(proto, ty, dims)
        return name


def _items(n, dims):
    """The abstract of a primitive returning a tuple whose item the node reads: LayerNorm's
    (y, mean, rstd), mean and rstd with 1 for each normalized dimension."""
    ty = n.type
    if n.op is not P.LayerNorm:
        return None
    shape = tuple(ty.shape if dims is None else dims)
    axis = int(n.attrs["begin_norm_axis"]) % len(shape)
    stat = TensorType(ty.dtype, shape[:axis] + (1,) * (len(shape) - axis))
    return [(ty, dims), (stat, stat.shape), (stat, stat.shape)]


def _traced(net, inputs):
    tensors = tuple(x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in inputs)
    return trace(type(net).construct, tensors, {}, self_obj=net, name=f"{type(net).__name__}_construct")


def _dynamic_extra(n, twin, extra, differs: bool) -> tuple:
    """The constant inputs of node n for any size of the dynamic dimensions, from its rule's
    values in the two traces: a Reshape's target with one dynamic dimension becomes -1, a slice
    to the end of a dynamic axis sets that axis' end_mask bit. Anything else that changes with
    the size raises Unsupported."""
    if not differs:
        return extra
    other = RULES[n.op](twin)[1]
    if n.op is P.Reshape:
        shape = tuple(a if a == b else -1 for a, b in zip(extra[0], other[0]))
        if shape.count(-1) == 1:
            return (shape,)
    if n.op is P.StridedSlice:
        begin, end, strides, _, end_mask = extra[:5]
        if begin == other[0] and strides == other[2]:
            sizes = ir.tensor_type(n.inputs[0]).shape, ir.tensor_type(twin.inputs[0]).shape
            for k, (e, f) in enumerate(zip(end, other[1])):
                if e != f and (e, f) == (sizes[0][k], sizes[1][k]) and strides[k] > 0:
                    end_mask |= 1 << k
                elif e != f:
                    break
            else:
                return (begin, end, strides, extra[3], end_mask) + tuple(extra[5:])
    raise Unsupported(f"{n.op.name} whose settings depend on a dynamic dimension")


def _twin_traces(net, inputs):
    """The graph traced on `inputs`, and the id -> twin map of the same graph traced at other
    sizes of the inputs' dynamic (None / -1) dimensions ({} when there are none). The two
    traces use the sizes ms.onnx.export samples (export/onnx.py)."""
    from pycompile.export.onnx import _SAMPLES, _Refused, _pair_traces, _sample_inputs
    axes = [{ax: f"{k}_{ax}" for ax in getattr(x, "dynamic_dims", ())} if isinstance(x, Tensor) else {}
            for k, x in enumerate(inputs)]
    names = sorted({d for ax in axes for d in ax.values()})
    if not names:
        return _traced(net, inputs).graph, {}
    if len(names) > len(_SAMPLES):
        raise ValueError(f"For 'export', at most {len(_SAMPLES)} dynamic dimensions")
    sizes = {d: _SAMPLES[k] for k, d in enumerate(names)}
    graph = _traced(net, _sample_inputs(inputs, axes, sizes, 0)).graph
    twin = _traced(net, _sample_inputs(inputs, axes, sizes, 1)).graph
    try:
        return graph, _pair_traces(graph, twin)
    except _Refused as r:
        n, why = r.args
        where = f" (at {n.loc.file}:{n.loc.line})" if getattr(n, "loc", None) else ""
        raise ValueError(f"For 'export', {why}{where}: MINDIR export with dynamic dimensions needs the same "
                         f"graph at every size") from None


def build_model(net, inputs):
    """The ModelProto of `net` traced on `inputs` (inputs with None / -1 dimensions: those
    dimensions are -1 in the file, as MindSpore writes them)."""
    graph, twins = _twin_traces(net, inputs)
    model = pb.ModelProto(ir_version="1.1", producer_name="MindSpore", model_version="2.10.0",
                          little_endian=True, mind_ir_version=3)
    w = _Writer(graph, model, twins)
    for p in graph.params:
        if isinstance(p.type, RefType):
            t = w.g.parameter.add(name=f"{w.prefix}:{p.ref.name}", ref_key=p.ref.name)
            _set_tensor(t, p.type.tensor.dtype, p.type.tensor.shape, p.ref.asnumpy())
            w.names[id(p)] = t.name
        else:
            vi = w.g.input.add(name=f"{w.prefix}:{p.name}")
            _set_tensor(vi.tensor.add(), p.type.dtype, w.dims(p) or p.type.shape)
            w.names[id(p)] = vi.name
            if id(p) in twins:
                for axis, pair in enumerate(zip(p.type.shape, twins[id(p)].type.shape)):
                    if pair[0] != pair[1]:
                        w.sources.setdefault(pair, (vi.name, axis))
    w.block(graph.body, _live(graph))
    for out in graph.outputs:
        if not isinstance(out.type, TensorType):
            raise ValueError(f"For 'export', the network must return tensors, but one output is {out.type}")
        vi = w.g.output.add(name=w.value(out) if not isinstance(out, ir.Param) else w.names[id(out)])
        _set_tensor(vi.tensor.add(), out.type.dtype, w.dims(out) or out.type.shape)
    return model


def export_mindir(net, inputs, file_name, **kwargs):
    """Write `net` traced on `inputs` to `file_name` (".mindir" appended when missing)."""
    if not isinstance(net, Cell):
        raise TypeError(f"For 'export', MINDIR export needs an nn.Cell, but got {type(net).__name__}")
    if not inputs:
        raise ValueError("For 'export', give the network's inputs (Tensors with the shapes to export)")
    for key in ("enc_key", "enc_mode", "dataset", "obf_config", "custom_func"):
        if kwargs.get(key) is not None:
            raise NotImplementedError(f"For 'export', '{key}' is not supported by pycompile's MINDIR writer")
    was_training = getattr(net, "training", False)
    net.set_train(False)
    try:
        model = build_model(net, inputs)
    finally:
        net.set_train(was_training)
    path = file_name if file_name.endswith(".mindir") else file_name + ".mindir"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(model.SerializeToString())
    os.replace(tmp, path)
    return path
