"""ONNX operators as pycompile ops, for `pycompile.onnx.load` (export/onnx_load.py): the ops
pycompile's ONNX writer emits (export/onnx_ops.py) and the Gemm / Relu / Flatten / Dropout
MindSpore writes, opsets 11 to 21.

An ONNX file is run by `nn.GraphCell` like a MINDIR file: each node is a `GraphNode` whose
primitive is "onnx::<op_type>", registered in graph_prims.PRIMITIVES by this module. Each entry
takes the node (its `attrs`: the ONNX attributes as Python values, plus "_opset") and its
evaluated inputs (None for an omitted optional input).

Integer and bool initializers, `Constant` nodes and `Shape` results are `Static` values: NumPy
arrays known while the graph is built, so a shape computed from them (Shape -> Gather -> Concat
-> Reshape, as dynamic-axis exports write) stays a constant when the GraphCell is compiled.
An op on Static inputs only is computed with NumPy where the table below has a NumPy form.
"""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.errors import GraphValueError
from pycompile.nn.graph_prims import PRIMITIVES
from pycompile.ops import operations as P

# TensorProto.DataType -> pycompile dtype
ONNX_DTYPES = {1: mstype.float32, 2: mstype.uint8, 3: mstype.int8, 4: mstype.uint16, 5: mstype.int16,
               6: mstype.int32, 7: mstype.int64, 9: mstype.bool_, 10: mstype.float16, 11: mstype.float64,
               12: mstype.uint32, 13: mstype.uint64}


class Static:
    """A value known while the graph is built (NumPy array)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = np.asarray(value)

    def __repr__(self):
        return f"Static({self.value!r})"


def _fail(node, why):
    raise GraphValueError(f"{node.attrs.get('_file', 'the ONNX file')}: node {node.output!r} ({node.prim[6:]}): "
                          f"pycompile does not run {why}")


def _t(v):
    """A compute value: a Static becomes a constant Tensor."""
    return Tensor(v.value) if isinstance(v, Static) else v


def _np(node, v, what):
    if isinstance(v, Static):
        return v.value
    if isinstance(v, Tensor):
        try:                     # a float initializer (a Parameter of the cell) read as a setting
            return v.asnumpy()
        except Exception:  # noqa: BLE001 - a traced value has no data: refused below
            pass
    _fail(node, f"a {what} computed at run time (it must be an initializer, a Constant or come from Shape)")


def _ints(node, v, what):
    return [int(i) for i in np.asarray(_np(node, v, what)).reshape(-1)]


def _rank(x):
    return len(x.value.shape) if isinstance(x, Static) else len(x.shape)


def _shape(x):
    return tuple(x.value.shape) if isinstance(x, Static) else tuple(x.shape)


# ---- elementwise ------------------------------------------------------------------------------
_UNARY = {"Abs": ops.abs, "Acos": ops.acos, "Acosh": ops.acosh, "Asin": ops.asin, "Asinh": ops.asinh,
          "Atan": ops.atan, "Atanh": ops.atanh, "Ceil": ops.ceil, "Cos": ops.cos, "Cosh": ops.cosh, "Erf": ops.erf,
          "Exp": ops.exp, "Floor": ops.floor, "Log": ops.log, "Neg": ops.neg, "Reciprocal": ops.reciprocal,
          "Round": ops.round, "Sigmoid": ops.sigmoid, "Sign": ops.sign, "Sin": ops.sin, "Sinh": ops.sinh,
          "Sqrt": ops.sqrt, "Tan": ops.tan, "Tanh": ops.tanh, "Relu": ops.relu, "Softsign": ops.softsign,
          "IsNaN": ops.isnan, "Not": ops.logical_not, "Selu": ops.selu, "HardSwish": ops.hardswish,
          "Softplus": ops.softplus}
_NP_BINARY = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Equal": np.equal}
_BINARY = {"Add": ops.add, "Sub": ops.sub, "Mul": ops.mul, "Pow": ops.pow, "Equal": ops.equal,
           "Greater": ops.greater, "GreaterOrEqual": ops.greater_equal, "Less": ops.less,
           "LessOrEqual": ops.less_equal, "And": ops.logical_and, "Or": ops.logical_or}


def _unary(name):
    fn = _UNARY[name]
    return lambda node, args: fn(_t(args[0]))


def _binary(name):
    fn, np_fn = _BINARY[name], _NP_BINARY.get(name)

    def run(node, args):
        a, b = args[:2]
        if np_fn is not None and isinstance(a, Static) and isinstance(b, Static):
            return Static(np_fn(a.value, b.value).astype(np.result_type(a.value, b.value)
                                                         if name != "Equal" else np.bool_))
        return fn(_t(a), _t(b))
    return run


def _div(node, args):
    a, b = args[:2]
    if isinstance(a, Static) and isinstance(b, Static):
        out = a.value / b.value if a.value.dtype.kind == "f" else np.trunc(a.value / b.value)
        return Static(out.astype(np.result_type(a.value, b.value)))
    a, b = _t(a), _t(b)
    return ops.div(a, b) if a.dtype.is_float else ops.div(a, b, rounding_mode="trunc")


def _mod(node, args):
    a, b = _t(args[0]), _t(args[1])
    return ops.fmod(a, b) if node.attrs.get("fmod", 0) else ops.floor_mod(a, b)


def _variadic(fn):
    def run(node, args):
        out = _t(args[0])
        for v in args[1:]:
            out = fn(out, _t(v))
        return out
    return run


def _is_inf(node, args):
    x = _t(args[0])
    pos, neg = node.attrs.get("detect_positive", 1), node.attrs.get("detect_negative", 1)
    inf = ops.isinf(x)
    if pos and neg:
        return inf
    return ops.logical_and(inf, ops.greater(x, 0) if pos else ops.less(x, 0))


def _hard_sigmoid(node, args):
    a, b = float(node.attrs.get("alpha", 0.2)), float(node.attrs.get("beta", 0.5))
    return ops.clamp(_t(args[0]) * a + b, 0.0, 1.0)


def _clip(node, args):
    x = _t(args[0])
    lo = float(_np(node, args[1], "min")) if len(args) > 1 and args[1] is not None else node.attrs.get("min")
    hi = float(_np(node, args[2], "max")) if len(args) > 2 and args[2] is not None else node.attrs.get("max")
    return ops.clamp(x, lo, hi)


def _cast(node, args):
    dt = ONNX_DTYPES.get(int(node.attrs["to"]))
    if dt is None:
        _fail(node, f"Cast to ONNX data type {node.attrs['to']}, which pycompile does not have")
    if isinstance(args[0], Static):
        return Static(args[0].value.astype(dt.np))
    return ops.cast(args[0], dt)


def _where(node, args):
    c, x, y = args[:3]
    if all(isinstance(v, Static) for v in (c, x, y)):
        return Static(np.where(c.value, x.value, y.value))
    return ops.where(_t(c), _t(x), _t(y))


# ---- layers -----------------------------------------------------------------------------------
def _spatial(node, x, n=2):
    if _rank(x) != n + 2:
        _fail(node, f"a {_rank(x) - 2}-D {node.prim[6:]} (pycompile reads the 2-D one)")
    if node.attrs.get("auto_pad", "NOTSET") not in ("NOTSET", b"NOTSET"):
        _fail(node, "auto_pad (write explicit pads)")


def _conv(node, args):
    x, w = _t(args[0]), _t(args[1])
    _spatial(node, x)
    a = node.attrs
    pads = [int(p) for p in a.get("pads", [0, 0, 0, 0])]
    group = int(a.get("group", 1))
    conv = P.Conv2D(int(w.shape[0]), tuple(w.shape[2:]), mode=1, pad_mode="pad",
                    pad=(pads[0], pads[2], pads[1], pads[3]), stride=tuple(a.get("strides", [1, 1])),
                    dilation=tuple(a.get("dilations", [1, 1])), group=group)
    out = conv(x, w)
    if len(args) > 2 and args[2] is not None:
        out = out + ops.reshape(_t(args[2]), (1, -1, 1, 1))
    return out


def _pool_pads(node):
    pads = list(node.attrs.get("pads", [0, 0, 0, 0]))
    if pads[:2] != pads[2:]:
        _fail(node, f"asymmetric pads {pads}")
    return tuple(pads[:2])


def _max_pool(node, args):
    x = _t(args[0])
    _spatial(node, x)
    a = node.attrs
    return ops.max_pool2d(x, tuple(a["kernel_shape"]), tuple(a.get("strides", [1, 1])), _pool_pads(node),
                          tuple(a.get("dilations", [1, 1])), ceil_mode=bool(a.get("ceil_mode", 0)))


def _avg_pool(node, args):
    x = _t(args[0])
    _spatial(node, x)
    a = node.attrs
    return ops.avg_pool2d(x, tuple(a["kernel_shape"]), tuple(a.get("strides", [1, 1])), _pool_pads(node),
                          ceil_mode=bool(a.get("ceil_mode", 0)),
                          count_include_pad=bool(a.get("count_include_pad", 0)))


def _gemm(node, args):
    a_, b_ = _t(args[0]), _t(args[1])
    at = node.attrs
    if at.get("transA", 0):
        a_ = ops.transpose(a_, (1, 0))
    if at.get("transB", 0):
        b_ = ops.transpose(b_, (1, 0))
    out = ops.matmul(a_, b_)
    alpha, beta = float(at.get("alpha", 1.0)), float(at.get("beta", 1.0))
    if alpha != 1.0:
        out = out * alpha
    if len(args) > 2 and args[2] is not None:
        c = _t(args[2])
        out = out + (c * beta if beta != 1.0 else c)
    return out


def _layer_norm(node, args):
    x, scale = _t(args[0]), _t(args[1])
    bias = _t(args[2]) if len(args) > 2 and args[2] is not None else ops.zeros_like(scale)
    axis = int(node.attrs.get("axis", -1)) % len(x.shape)
    return ops.layer_norm(x, scale, bias, axis, axis, float(node.attrs.get("epsilon", 1e-5)))


def _softmax(fn):
    def run(node, args):
        x = _t(args[0])
        axis = int(node.attrs.get("axis", -1 if node.attrs["_opset"] >= 13 else 1)) % len(x.shape)
        if node.attrs["_opset"] < 13 and axis != len(x.shape) - 1:
            _fail(node, f"a before-opset-13 {node.prim[6:]} over the flattened dimensions from axis {axis}")
        return fn(x, axis)
    return run


def _axes(node, args, k=1):
    """A reduction's / Unsqueeze's axes: the input k (opset 13+ form) or the attribute."""
    if len(args) > k and args[k] is not None:
        return _ints(node, args[k], "axes")
    axes = node.attrs.get("axes")
    return None if axes is None else [int(a) for a in axes]


def _reduce(fn):
    def run(node, args):
        x = _t(args[0])
        axes = _axes(node, args)
        if not axes:
            if node.attrs.get("noop_with_empty_axes", 0):
                return x
            axes = list(range(len(x.shape)))
        return fn(x, tuple(a % len(x.shape) for a in axes), bool(node.attrs.get("keepdims", 1)))
    return run


def _arg(fn):
    def run(node, args):
        if node.attrs.get("select_last_index", 0):
            _fail(node, "select_last_index=1")
        return fn(_t(args[0]), int(node.attrs.get("axis", 0)), bool(node.attrs.get("keepdims", 1)))
    return run


def _cumsum(node, args):
    if node.attrs.get("exclusive", 0) or node.attrs.get("reverse", 0):
        _fail(node, "exclusive or reverse CumSum")
    return ops.cumsum(_t(args[0]), _ints(node, args[1], "axis")[0])


# ---- shapes and indexing ----------------------------------------------------------------------
def _reshape(node, args):
    x = args[0]
    shape = _ints(node, args[1], "shape")
    if not node.attrs.get("allowzero", 0):
        shape = [x_d if d == 0 else d for d, x_d in zip(shape, _shape(x) + (0,) * len(shape))]
    if isinstance(x, Static):
        return Static(x.value.reshape(shape))
    return ops.reshape(x, tuple(shape))


def _flatten(node, args):
    x = _t(args[0])
    axis = int(node.attrs.get("axis", 1)) % (len(x.shape) + 1)
    lead = int(np.prod(x.shape[:axis], dtype=np.int64))
    return ops.reshape(x, (lead, -1))


def _transpose(node, args):
    perm = node.attrs.get("perm")
    perm = tuple(int(p) for p in perm) if perm is not None else tuple(range(_rank(args[0])))[::-1]
    if isinstance(args[0], Static):
        return Static(np.transpose(args[0].value, perm))
    return ops.transpose(args[0], perm)


def _concat(node, args):
    axis = int(node.attrs["axis"])
    parts = [a for a in args if a is not None]
    if all(isinstance(a, Static) for a in parts):
        return Static(np.concatenate([a.value for a in parts], axis))
    return ops.concat(tuple(_t(a) for a in parts), axis)


def _unsqueeze(node, args):
    x = args[0]
    if _axes(node, args) is None:
        _fail(node, "an Unsqueeze without axes")
    axes = sorted(a % (_rank(x) + len(_axes(node, args))) for a in _axes(node, args))
    shape = list(_shape(x))
    for a in axes:
        shape.insert(a, 1)
    return Static(x.value.reshape(shape)) if isinstance(x, Static) else ops.reshape(x, tuple(shape))


def _squeeze(node, args):
    x = args[0]
    axes = _axes(node, args)
    shape = _shape(x)
    axes = [a % len(shape) for a in axes] if axes else [k for k, d in enumerate(shape) if d == 1]
    new = tuple(d for k, d in enumerate(shape) if k not in axes)
    return Static(x.value.reshape(new)) if isinstance(x, Static) else ops.reshape(x, new)


def _expand(node, args):
    x = args[0]
    shape = tuple(np.broadcast_shapes(_shape(x), tuple(_ints(node, args[1], "shape"))))
    if isinstance(x, Static):
        return Static(np.broadcast_to(x.value, shape).copy())
    return ops.broadcast_to(x, shape)


def _slice(node, args):
    x = args[0]
    shape = _shape(x)
    starts, ends = _ints(node, args[1], "starts"), _ints(node, args[2], "ends")
    axes = _ints(node, args[3], "axes") if len(args) > 3 and args[3] is not None else list(range(len(starts)))
    steps = _ints(node, args[4], "steps") if len(args) > 4 and args[4] is not None else [1] * len(starts)
    index = [slice(None)] * len(shape)
    for s, e, a, st in zip(starts, ends, axes, steps):
        a %= len(shape)
        if st < 0 and e < -shape[a]:
            e = None                  # ONNX: to the first element inclusive
        index[a] = slice(s, e, st)
    if isinstance(x, Static):
        return Static(x.value[tuple(index)])
    return x[tuple(index)]


def _gather(node, args):
    x, idx = args[:2]
    axis = int(node.attrs.get("axis", 0))
    if isinstance(x, Static) and isinstance(idx, Static):
        return Static(np.take(x.value, idx.value, axis=axis))
    return ops.gather(_t(x), _t(idx), axis)


def _shape_op(node, args):
    shape = _shape(args[0])
    start, end = node.attrs.get("start", 0), node.attrs.get("end")
    return Static(np.asarray(shape[start:end], np.int64))


_SCATTER = {"none": ops.tensor_scatter_update, "add": ops.tensor_scatter_add, "mul": ops.tensor_scatter_mul,
            "max": ops.tensor_scatter_max, "min": ops.tensor_scatter_min}


def _scatter_nd(node, args):
    fn = _SCATTER.get(node.attrs.get("reduction", "none"))
    if fn is None:
        _fail(node, f"reduction {node.attrs['reduction']!r}")
    return fn(_t(args[0]), _t(args[1]), _t(args[2]))


def _identity(node, args):
    return args[0]


OPS = {
    **{k: _unary(k) for k in _UNARY}, **{k: _binary(k) for k in _BINARY},
    "Div": _div, "Mod": _mod, "Sum": _variadic(ops.add), "Max": _variadic(ops.maximum),
    "Min": _variadic(ops.minimum), "IsInf": _is_inf, "HardSigmoid": _hard_sigmoid, "Clip": _clip,
    "Elu": lambda node, args: ops.elu(_t(args[0]), float(node.attrs.get("alpha", 1.0))),
    "Cast": _cast, "Where": _where,
    "Conv": _conv, "MaxPool": _max_pool, "AveragePool": _avg_pool,
    "GlobalAveragePool": lambda node, args: ops.mean(_t(args[0]), (2, 3), True),
    "Gemm": _gemm, "MatMul": lambda node, args: ops.matmul(_t(args[0]), _t(args[1])),
    "LayerNormalization": _layer_norm, "Softmax": _softmax(ops.softmax), "LogSoftmax": _softmax(ops.log_softmax),
    "ReduceSum": _reduce(ops.sum), "ReduceMean": _reduce(ops.mean), "ReduceMax": _reduce(ops.amax),
    "ReduceMin": _reduce(ops.amin), "ReduceProd": _reduce(ops.prod),
    "ArgMax": _arg(ops.argmax), "ArgMin": _arg(ops.argmin), "CumSum": _cumsum,
    "Reshape": _reshape, "Flatten": _flatten, "Transpose": _transpose, "Concat": _concat,
    "Unsqueeze": _unsqueeze, "Squeeze": _squeeze, "Expand": _expand, "Slice": _slice, "Gather": _gather,
    "GatherElements": lambda node, args: ops.gather_elements(_t(args[0]), int(node.attrs.get("axis", 0)),
                                                             _t(args[1])),
    "ScatterND": _scatter_nd, "Shape": _shape_op, "Identity": _identity, "Dropout": _identity,
}

PRIMITIVES.update({"onnx::" + k: v for k, v in OPS.items()})
