"""A Cell as an ONNX file (opset 17): `ms.export(net, x, file_name=..., file_format="ONNX")` and
`ms.onnx.export(net, x, file_name=..., input_names=..., output_names=..., dynamic_axes=...)`.

The Cell is traced in graph mode (compiler/frontend.trace) with the given inputs, in inference
mode (`set_train(False)`, as MindSpore exports), and the traced IR - before any optimization
pass - is written node by node through export/onnx_ops.RULES. Only what the outputs depend on is
written (memory-state nodes and dead values are not). Parameters become initializers under
their own names (`fc1.weight`); constants become initializers `const_N`.

Dynamic dimensions (`ms.onnx.export`'s dynamic_axes, or input Tensors built with None / -1
dimensions) are found by tracing twice, with two sample sizes for those dimensions: a dimension
of a value that differs between the traces follows a dynamic input dimension. The two traces must
build the same nodes; an op whose attributes differ between them is refused unless its rule knows
how to write them for any size (Reshape with one inferred dimension, BroadcastTo, a slice to the
end of a dynamic axis).

Requires the `onnx` package (`pip install pycompile[onnx]`); onnxruntime runs the files.
"""
from __future__ import annotations

import os

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common import log
from pycompile.common.abstract import MonadType, RefType, ScalarType, TensorType, TupleType
from pycompile.common.tensor import Tensor
from pycompile.compiler import ir
from pycompile.errors import CompileError

OPSET = 17
IR_VERSION = 8            # the ONNX IR version of opset 17: what older runtimes accept
# the two sizes each dynamic dimension is traced at: > 1 (no broadcasting), distinct per dimension name
_SAMPLES = ((5, 7), (11, 13), (17, 19), (23, 29), (31, 37), (41, 43), (47, 53), (59, 61))


def _onnx():
    try:
        import onnx
    except ImportError:
        raise ImportError("exporting ONNX needs the 'onnx' package: pip install 'pycompile[onnx]' "
                          "(onnx, and onnxruntime to run the file)") from None
    return onnx


class _Refused(Exception):
    pass


class Emitter:
    """Builds the ONNX graph of one traced IR graph (and its twin, traced at other dynamic sizes)."""

    def __init__(self, onnx, twins: dict):
        self.onnx = onnx
        self.nodes: list = []
        self.inits: list = []
        self.names: dict = {}          # id(IR value) -> ONNX name (or tuple of names)
        self.twins = twins             # id(IR value) -> the same value in the twin trace
        self.taken: set = set()
        self.current = None            # the IR node being written
        self._consts: dict = {}
        self.sources: dict = {}        # (size, twin size) -> (input name, axis) of a dynamic input dimension
        self.params_used: dict = {}    # initializer name -> the Parameter's graph input (RefType Param)
        self._dim_values: dict = {}

    # ---- names --------------------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        base = "".join(c if c.isalnum() or c in "._-:/" else "_" for c in base) or "v"
        name, k = base, 1
        while name in self.taken:
            name, k = f"{base}_{k}", k + 1
        self.taken.add(name)
        return name

    def onnx_dtype(self, dt) -> int:
        if dt.name == "BFloat16":
            return self.onnx.TensorProto.BFLOAT16
        return self.onnx.helper.np_dtype_to_tensor_dtype(dt.np)

    def dtype_of(self, v):
        t = v.type
        if isinstance(t, RefType):
            t = t.tensor
        return t.dtype

    def common_dtype(self, values):
        dts = [self.dtype_of(v) for v in values if not isinstance(v.type, ScalarType)]
        if not dts:
            return self.dtype_of(values[0])
        out = dts[0]
        for d in dts[1:]:
            out = mstype.promote(out, d)
        return out

    # ---- values -------------------------------------------------------------------------------
    def const(self, arr: np.ndarray, base: str = "const") -> str:
        arr = np.asarray(arr)
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        name = self._consts.get(key)
        if name is None:
            name = self._consts[key] = self.fresh(base)
            self.inits.append(self.onnx.numpy_helper.from_array(arr, name))
        return name

    def ints(self, values) -> str:
        return self.const(np.asarray(values, np.int64))

    def x(self, v, dtype=None) -> str:
        """The ONNX name of input value v, as `dtype` when given."""
        if isinstance(v, ir.Const):
            value = v.value
            twin = self.twins.get(id(v))
            if twin is not None and not (np.shape(twin.value) == np.shape(value)
                                         and np.array_equal(twin.value, value, equal_nan=True)):
                if isinstance(v.type, TensorType) and np.shape(twin.value) != np.shape(value):
                    return self._dynamic_fill(np.asarray(value), np.shape(twin.value), dtype)
                self.refuse(self.current, "a number computed from a dynamic dimension (such as x.shape[0]) is "
                                          "a constant in the traced graph")
            if isinstance(v.type, TensorType):
                arr = np.asarray(value)
            else:
                arr = np.asarray(value, (dtype or v.type.dtype).np)
            if dtype is not None and arr.dtype != dtype.np:
                arr = arr.astype(dtype.np)
            return self.const(arr)
        name = self.names.get(id(v))
        if isinstance(v, ir.Param) and v.ref is not None:
            self.params_used.setdefault(name, v)
        if name is None or isinstance(name, tuple):
            self.refuse(self.current, "an input this exporter cannot name (a tuple or an unsupported value)")
        if dtype is not None and self.dtype_of(v) != dtype:
            return self.op("Cast", [name], to=self.onnx_dtype(dtype))
        return name

    def op(self, op_type: str, inputs: list, n_out: int = 1, **attrs):
        """Add one ONNX node; its output name(s)."""
        n = self.current
        outs = [self.fresh(f"{op_type}_out") for _ in range(n_out)]
        doc = ""
        if n is not None and n.loc is not None:
            doc = f"{n.op.name} at {os.path.basename(n.loc.file)}:{n.loc.line}"   # no absolute paths in the file
        self.nodes.append(self.onnx.helper.make_node(op_type, inputs, outs, name=self.fresh(op_type),
                                                     doc_string=doc, **attrs))
        return outs[0] if n_out == 1 else tuple(outs)

    # ---- shapes -------------------------------------------------------------------------------
    def twin_of(self, v):
        return self.twins.get(id(v))

    def dim_pairs(self, v) -> list:
        shape = _shape(v)
        twin = self.twins.get(id(v))
        other = _shape(twin) if twin is not None else shape
        return list(zip(shape, other))

    def dims(self, v) -> list:
        """v's shape, None for each dimension that follows a dynamic input dimension."""
        return [a if a == b else None for a, b in self.dim_pairs(v)]

    def _dynamic_fill(self, arr, twin_shape, dtype) -> str:
        """A constant whose shape follows dynamic dimensions (a loop's zero state): one value
        expanded to the shape read from the inputs at run time."""
        flat = arr.reshape(-1)
        if flat.size == 0 or not np.all(flat == flat[0]):
            self.refuse(self.current, f"a constant of shape {arr.shape} whose values depend on a dynamic dimension")
        shape = self.shape_tensor(list(zip(arr.shape, twin_shape)))
        if shape is None:
            self.refuse(self.current, f"a constant of shape {arr.shape} sized by a product of dynamic dimensions")
        value = flat[:1].reshape(()).astype(dtype.np if dtype is not None else arr.dtype)
        return self.op("Expand", [self.const(value), shape])

    def shape_tensor(self, pairs, inferred_ok: int = 0):
        """A 1-D int64 shape for dimensions given as (size, twin size) pairs: static sizes as
        numbers, dynamic ones read from the inputs (Shape), and up to `inferred_ok` of the others
        as -1 (Reshape infers one). None when that is not enough."""
        parts, inferred = [], 0
        for a, b in pairs:
            src = self.dim_value((a, b)) if a != b else None
            if a != b and src is None:
                inferred += 1
                if inferred > inferred_ok:
                    return None
            parts.append(src if src is not None else self.ints([a if a == b else -1]))
        return self.op("Concat", parts, axis=0) if parts else self.ints([])

    def dim_value(self, pair):
        """A [1] int64 tensor holding, at run time, the dynamic input dimension of sizes `pair`
        (None when no input has that dimension: it is a product of several)."""
        if pair not in self.sources:
            return None
        if pair not in self._dim_values:
            name, axis = self.sources[pair]
            saved, self.current = self.current, None
            self._dim_values[pair] = self.op("Shape", [name], start=axis, end=axis + 1)
            self.current = saved
        return self._dim_values[pair]

    def refuse(self, n, why: str):
        raise _Refused(n, why)


def _shape(v) -> tuple:
    t = v.type
    if isinstance(t, RefType):
        t = t.tensor
    return tuple(t.shape) if isinstance(t, TensorType) else ()


def _data_inputs(n) -> tuple:
    from pycompile.ops.defs import effects
    if n.op is effects.Load or n.op is effects.Depend:
        return n.inputs[:1]
    return tuple(v for v in n.inputs if not isinstance(v.type, MonadType))


def _live(graph) -> set:
    """ids of the nodes the graph's outputs depend on (in a live loop, what its body's results
    depend on)."""
    live: set = set()
    todo = list(graph.outputs)
    while todo:
        v = todo.pop()
        if not isinstance(v, ir.Node) or id(v) in live:
            continue
        live.add(id(v))
        todo.extend(_data_inputs(v))
        for b in v.blocks:
            todo.extend(b.results)
    return live


def _emit_block(em, block, live: set) -> None:
    from pycompile.export.onnx_ops import DYNAMIC_ATTRS, RULES
    from pycompile.ops.defs import effects
    for n in block.nodes:
        if id(n) not in live:
            continue
        em.current = n
        if n.op is effects.Load:
            em.names[id(n)] = em.x(n.inputs[0])
        elif n.op is ir.GETITEM:
            src = em.names.get(id(n.inputs[0]))
            if not isinstance(src, tuple) or src[n.attr("index")] is None:
                em.refuse(n, "a tuple element of a value this exporter cannot write")
            em.names[id(n)] = src[n.attr("index")]
        elif n.op is effects.MakeTuple:
            em.names[id(n)] = tuple(em.x(v) for v in n.inputs)
        elif n.op is ir.FOR:
            em.names[id(n)] = _unroll(em, n, live)
        else:
            rule = RULES.get(n.op)
            if rule is None:
                kind = "control flow" if ir.is_structural(n) else "op"
                em.refuse(n, f"{kind} '{n.op.name}' has no ONNX mapping")
            tw = em.twins.get(id(n))
            if tw is not None and n.op not in DYNAMIC_ATTRS and not _same_attrs(n, tw):
                changed = sorted(k for k in n.attrs if not np.array_equal(n.attrs[k], tw.attrs.get(k)))
                em.refuse(n, f"{n.op.name}'s attribute {', '.join(changed)} depends on a dynamic dimension")
            em.names[id(n)] = rule(em, n)
    em.current = None


def _unroll(em, n, live: set) -> tuple:
    """A `for` loop with a trip count known when tracing (an RNN over a static sequence), written
    once per iteration; its result names (None for the memory state)."""
    bounds = n.inputs[:3]
    if not all(isinstance(b, ir.Const) for b in bounds) or n.attr("exit_flags"):
        em.refuse(n, "a loop whose trip count is known only at run time (or that breaks / returns)")
    tw = em.twins.get(id(n))
    if tw is not None and [b.value for b in tw.inputs[:3]] != [b.value for b in bounds]:
        em.refuse(n, "a loop whose trip count depends on a dynamic dimension")
    body = n.blocks[0]
    carried = [None if isinstance(v.type, MonadType) else em.x(v) for v in n.inputs[3:]]
    for i in range(*(b.value for b in bounds)):
        em.names[id(body.params[0])] = em.const(np.asarray(i, body.params[0].type.dtype.np))
        for p, c in zip(body.params[1:], carried):
            em.names[id(p)] = c
        _emit_block(em, body, live)
        em.current = n
        carried = [None if isinstance(r.type, MonadType) else em.x(r) for r in body.results]
    return tuple(carried)


def _pair_traces(a, b) -> dict:
    """id(value of trace a) -> the same value in trace b; raises _Refused when the traces differ."""
    twins = {}
    if len(a.params) != len(b.params):
        raise _Refused(None, "the graph's inputs change with the size of a dynamic dimension")
    for p, q in zip(a.params, b.params):
        twins[id(p)] = q
    na, nb = list(ir.iter_nodes(a.body)), list(ir.iter_nodes(b.body))
    for k, (m, n) in enumerate(zip(na, nb)):
        if m.op is not n.op or len(m.inputs) != len(n.inputs):
            raise _Refused(m, f"the graph changes with the size of a dynamic dimension ({m.op.name} here, "
                              f"{n.op.name} at another size)")
        twins[id(m)] = n
        for u, w in zip(m.inputs, n.inputs):
            if isinstance(u, ir.Const):
                twins[id(u)] = w
    if len(na) != len(nb):
        raise _Refused(None, "the graph changes with the size of a dynamic dimension")
    return twins


def _same_attrs(m, n) -> bool:
    if m.attrs.keys() != n.attrs.keys():
        return False
    for k, u in m.attrs.items():
        w = n.attrs[k]
        if isinstance(u, np.ndarray) or isinstance(w, np.ndarray):
            if not (np.shape(u) == np.shape(w) and np.array_equal(u, w)):
                return False
        elif u != w:
            return False
    return True


def _value_info(em, name: str, v, dim_names: dict):
    t = v.type
    if isinstance(t, RefType):
        t = t.tensor
    if isinstance(t, ScalarType):
        return em.onnx.helper.make_tensor_value_info(name, em.onnx_dtype(t.dtype), [])
    dims = []
    for a, b in em.dim_pairs(v):
        if a == b:
            dims.append(a)
        else:
            dims.append(dim_names.setdefault((a, b), f"dim_{len(dim_names)}"))
    return em.onnx.helper.make_tensor_value_info(name, em.onnx_dtype(t.dtype), dims)


def to_model(graph, twin=None, input_names=None, output_names=None, dim_names=None,
             keep_initializers_as_inputs=False, export_params=True, graph_name="pycompile"):
    """The onnx.ModelProto of a traced graph. `twin`: the same graph traced at other sizes of the
    dynamic dimensions; `dim_names`: (size, twin size) -> name of each dynamic input dimension."""
    onnx = _onnx()
    dim_names = dict(dim_names or {})
    try:
        twins = _pair_traces(graph, twin) if twin is not None else {}
    except _Refused as r:
        raise _error(r) from None
    em = Emitter(onnx, twins)
    user = [p for p in graph.params if p.ref is None]
    input_names = list(input_names or [])
    inputs = []
    for k, p in enumerate(user):
        name = em.fresh(input_names[k] if k < len(input_names) else p.name)
        em.names[id(p)] = name
        for axis, pair in enumerate(em.dim_pairs(p)):
            if pair[0] != pair[1]:
                em.sources.setdefault(pair, (name, axis))
        inputs.append(_value_info(em, name, p, dim_names))
    live = _live(graph)
    for p in graph.params:
        if p.ref is not None:
            em.names[id(p)] = em.fresh(p.ref.name)
    try:
        _emit_block(em, graph.body, live)
        em.current = None
        outputs = []
        output_names = list(output_names or [])
        flat = []
        for v in graph.outputs:
            if isinstance(v.type, TupleType):
                em.refuse(None, "a nested tuple output")
            flat.append(v)
        for k, v in enumerate(flat):
            src = em.x(v)
            name = em.fresh(output_names[k] if k < len(output_names) else f"output_{k}")
            em.nodes.append(onnx.helper.make_node("Identity", [src], [name], name=em.fresh("Identity")))
            outputs.append(_value_info(em, name, v, dim_names))
    except _Refused as r:
        raise _error(r) from None
    inits = []
    for name, p in em.params_used.items():
        if export_params:
            inits.append(onnx.numpy_helper.from_array(np.ascontiguousarray(p.ref.asnumpy()), name))
        if keep_initializers_as_inputs or not export_params:
            inputs.append(_value_info(em, name, p, dim_names))
    g = onnx.helper.make_graph(em.nodes, graph_name, inputs, outputs, initializer=inits + em.inits)
    model = onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", OPSET)],
                                   producer_name="pycompile", ir_version=IR_VERSION)
    return model


def _error(r: _Refused) -> CompileError:
    n, why = r.args
    loc = getattr(n, "loc", None)
    hint = ("export with static shapes (no dynamic_axes, no None dimensions)" if "dynamic" in why else
            "docs/guide/export.md lists the ops ONNX export maps; write this part with those")
    return CompileError(f"cannot export to ONNX: {why}", loc, hint)


# ---- tracing ------------------------------------------------------------------------------------

def _dynamic_axes(inputs, names, dynamic_axes) -> list:
    """Per input: {axis: dim name} of its dynamic dimensions."""
    out = []
    dynamic_axes = dynamic_axes or {}
    unknown = [k for k in dynamic_axes if k not in names[:len(inputs)]]
    if unknown:
        raise ValueError(f"For 'onnx.export', dynamic_axes names {unknown}, which are not inputs: the inputs are "
                         f"{names[:len(inputs)]}.")
    for k, x in enumerate(inputs):
        axes = {}
        for ax in getattr(x, "dynamic_dims", ()) if isinstance(x, Tensor) else ():
            axes[ax] = "batch" if ax == 0 else f"{names[k]}_dim{ax}"
        spec = dynamic_axes.get(names[k]) if k < len(names) else None
        if spec is not None:
            items = spec.items() if isinstance(spec, dict) else ((a, f"{names[k]}_dim{a}") for a in spec)
            for ax, dname in items:
                nd = len(x.shape) if isinstance(x, Tensor) else 0
                if not isinstance(ax, int) or not -nd <= ax < nd:
                    raise ValueError(f"For 'onnx.export', dynamic_axes of input '{names[k]}' names axis {ax!r}, "
                                     f"but the input has {nd} dimensions.")
                axes[ax % nd] = str(dname)
        out.append(axes)
    return out


def _sample_inputs(inputs, axes: list, sizes: dict, which: int) -> tuple:
    """The inputs with each dynamic dimension at its sample size (`which` of its two)."""
    out = []
    for x, ax in zip(inputs, axes):
        if isinstance(x, Tensor) and ax:
            shape = tuple(sizes[ax[k]][which] if k in ax else d for k, d in enumerate(x.shape))
            x = Tensor(np.zeros(shape, x.dtype.np))
        out.append(x)
    return tuple(out)


def _trace(net, args):
    from pycompile.compiler.frontend import trace
    return trace(type(net).construct, args, {}, self_obj=net, name=f"{type(net).__name__}_construct").graph


def _input_names(net, inputs) -> list:
    from pycompile.compiler.frontend import _arg_names
    from pycompile.compiler.source import parse_function
    try:
        return _arg_names(parse_function(type(net).construct), len(inputs), skip_self=True)
    except Exception:  # noqa: BLE001 - the names are cosmetic; tracing reports a real problem
        return [f"x{k}" for k in range(len(inputs))]


def onnx_model(net, inputs, input_names=None, output_names=None, dynamic_axes=None,
               keep_initializers_as_inputs=False, export_params=True):
    """The onnx.ModelProto of `net` called on `inputs` (the Cell in inference mode while tracing)."""
    names = list(input_names or []) + _input_names(net, inputs)[len(input_names or []):]
    axes = _dynamic_axes(inputs, names, dynamic_axes)
    was_training = net.training
    net.set_train(False)
    sizes = {}
    for ax in axes:
        for dname in ax.values():
            if dname not in sizes:
                if len(sizes) == len(_SAMPLES):
                    raise ValueError(f"For 'onnx.export', at most {len(_SAMPLES)} distinct dynamic dimensions")
                sizes[dname] = _SAMPLES[len(sizes)]
    try:
        if sizes:
            graph = _trace(net, _sample_inputs(inputs, axes, sizes, 0))
            twin = _trace(net, _sample_inputs(inputs, axes, sizes, 1))
        else:
            graph, twin = _trace(net, tuple(inputs)), None
    finally:
        net.set_train(was_training)
    dim_names = {pair: dname for dname, pair in sizes.items()}
    return to_model(graph, twin, input_names, output_names, dim_names, keep_initializers_as_inputs, export_params,
                    graph_name=type(net).__name__)


# protobuf's 2 GB message limit, in KB as MindSpore counts it (serialization.PROTO_LIMIT_SIZE)
PROTO_LIMIT_KB = 1024 * 1024 * 2


def net_size_kb(net) -> float:
    """The Parameters' size as MindSpore's _calculation_net_size counts it (sys.getsizeof of each
    Parameter's bytes, in KB)."""
    return sum((p.asnumpy().nbytes + 33) / 1024 for p in net.get_parameters())


def write(model, file_name: str, external: bool = False) -> str:
    """Write `model` to file_name (`.onnx` appended unless it ends so, folders made); its path.
    `external`: the initializers go to NAME.onnx.data beside it (a model past protobuf's 2 GB)."""
    path = os.path.abspath(file_name)
    if not path.endswith(".onnx"):
        path += ".onnx"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if external:
        _onnx().save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                           location=os.path.basename(path) + ".data", size_threshold=0)
        return path
    data = model.SerializeToString()
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


def export_onnx(net, inputs, file_name: str, **kwargs) -> str:
    """`ms.export(..., file_format="ONNX")`'s writer (arguments checked by export/__init__.py)."""
    for x in inputs:
        if isinstance(x, Tensor) and getattr(x, "dynamic_dims", ()):
            raise ValueError("Export ONNX format model not support dynamic shape mode.")
    total = net_size_kb(net)
    if total > PROTO_LIMIT_KB:
        raise RuntimeError(f"Export onnx model failed. Network size is: {total / 1024 / 1024}G, it exceeded the "
                           f"protobuf: {PROTO_LIMIT_KB / 1024 / 1024}G limit.")
    return write(onnx_model(net, inputs), file_name)


def onnx_export(net, *inputs, file_name, input_names=None, output_names=None, export_params=True,
                keep_initializers_as_inputs=False, dynamic_axes=None):
    """`ms.onnx.export`: MindSpore 2.10's signature and argument checks. `dynamic_axes`
    ({input name: {axis: dim name}} or {input name: [axes]}) and input Tensors built with None / -1
    dimensions make those dimensions dynamic in the file. A network past protobuf's 2 GB keeps its
    Parameters in NAME.onnx.data beside the file, as MindSpore does."""
    from pycompile.export.checks import check_file_name, check_isinstance
    from pycompile.nn.cell import Cell
    check_file_name(file_name)
    check_isinstance("net", net, Cell)
    input_names = input_names or []
    check_isinstance("input_names", input_names, list)
    output_names = output_names or []
    check_isinstance("output_names", output_names, list)
    dynamic_axes = dynamic_axes or {}
    check_isinstance("dynamic_axes", dynamic_axes, dict)
    external = net_size_kb(net) > PROTO_LIMIT_KB
    if external:
        log.logger.warning("Network size is: %sG, it exceeded the protobuf: %sG limit, now parameters in network "
                           "are saved in external data files.", net_size_kb(net) / 1024 / 1024,
                           PROTO_LIMIT_KB / 1024 / 1024)
    model = onnx_model(net, inputs, input_names, output_names, dynamic_axes,
                       keep_initializers_as_inputs=keep_initializers_as_inputs, export_params=export_params)
    write(model, file_name, external=external)


def emit_for_cli(cell, args, name: str, out_dir: str) -> str:
    """`pycompile MODEL --emit onnx`: the Cell entry `name` as out_dir/NAME.onnx."""
    from pycompile.backend.c.text import file_stem
    from pycompile.backend.export import ExportError
    if cell is None:
        raise ExportError("onnx applies to Cells (ms.onnx.export takes a Cell), not to @jit functions")
    return write(onnx_model(cell, args), os.path.join(out_dir, file_stem(name) + ".onnx"))
