"""MindSpore primitives, by the name a MINDIR file gives them, as pycompile ops.

Each entry of `PRIMITIVES` takes the node (its `attrs`: the primitive's attributes, and its
name for errors) and the evaluated inputs, and returns the node's value. MindSpore 2.10 writes
two kinds of primitive: the older ones (Conv2D, MaxPool) carry their settings as attributes;
the "primitive functions" (MatMul, BiasAdd, BatchNorm, Softmax, ...) take them as constant
inputs after the tensors, in the order of MindSpore's op definition. Effects become plain data
flow: `Load(param, U)` is the Parameter (ops load it when compiled), `UpdateState` is the monad,
`Depend(x, ...)` is x.

The table is also what `nn.GraphCell` checks a loaded graph against: a primitive missing here
is reported, with the file, when the GraphCell is built.
"""
from __future__ import annotations

from pycompile import ops
from pycompile.ops import operations as P


class GraphLoadError(RuntimeError):
    """A MINDIR file pycompile cannot read or run (the message names the file)."""


class _Monad:
    """MindSpore's U / IO monad value: ordering only, no data."""

    def __repr__(self):
        return "U"


MONAD = _Monad()

# MindSpore's Format enum as a primitive function's data_format input
_FORMATS = {0: "NCHW", 1: "NHWC"}


def _fmt(v):
    return _FORMATS.get(v, v) if isinstance(v, int) else (v or "NCHW")


def _hw(v):
    """A 4-tuple (N, C, H, W) attribute as its spatial pair; pairs and ints pass through."""
    return tuple(v[-2:]) if isinstance(v, (tuple, list)) and len(v) == 4 else v


def _conv2d(node, args):
    a = node.attrs
    x, w = args[:2]
    pad_mode = str(a.get("pad_mode", "valid")).lower()
    pad = tuple(a.get("pad_list") or a.get("pad") or (0, 0, 0, 0)) if pad_mode == "pad" else 0
    op = P.Conv2D(a["out_channel"], _hw(a["kernel_size"]), mode=a.get("mode", 1), pad_mode=pad_mode, pad=pad,
                  stride=_hw(a.get("stride", 1)), dilation=_hw(a.get("dilation", 1)),
                  group=a.get("group", a.get("groups", 1)), data_format=a.get("format", "NCHW"))
    return op(x, w)


def _pool(cls):
    def run(node, args):
        a = node.attrs
        return cls(kernel_size=_hw(a["kernel_size"]), strides=_hw(a["strides"]),
                   pad_mode=str(a.get("pad_mode", "valid")).lower(), data_format=a.get("format", "NCHW"))(args[0])
    return run


def _matmul(node, args):
    x, w = args[:2]
    ta, tb = (bool(args[2]), bool(args[3])) if len(args) >= 4 else (node.attrs.get("transpose_a", False),
                                                                       node.attrs.get("transpose_b", False))
    return P.MatMul(transpose_a=ta, transpose_b=tb)(x, w)


def _batch_matmul(node, args):
    x, w = args[:2]
    ta, tb = (bool(args[2]), bool(args[3])) if len(args) >= 4 else (node.attrs.get("transpose_a", False),
                                                                       node.attrs.get("transpose_b", False))
    return P.BatchMatMul(transpose_a=ta, transpose_b=tb)(x, w)


def _bias_add(node, args):
    fmt = _fmt(args[2]) if len(args) > 2 else node.attrs.get("format", node.attrs.get("data_format", "NCHW"))
    return P.BiasAdd(data_format=fmt)(args[0], args[1])


def _batch_norm(node, args):
    """Inputs (x, scale, bias, mean, variance, is_training, epsilon, momentum, data_format); the
    value is MindSpore's 5-tuple (y, batch_mean, batch_variance, reserve_1, reserve_2) of which
    an exported inference graph reads y. Training-mode BatchNorm needs the batch statistics and
    is refused."""
    x, scale, bias, mean, var = args[:5]
    training = bool(args[5]) if len(args) > 5 else node.attrs.get("is_training", False)
    eps = float(args[6]) if len(args) > 6 else node.attrs.get("epsilon", 1e-5)
    if training:
        raise GraphLoadError(f"node {node.output}: BatchNorm with is_training=True is not supported in a loaded graph "
                             f"(export the network after net.set_train(False))")
    y = ops.batch_norm(x, mean, var, scale, bias, training=False, eps=eps)
    return (y, mean, var, mean, var)


def _layer_norm(node, args):
    """Inputs (x, gamma, beta, begin_norm_axis, begin_params_axis, epsilon): the value is
    (y, mean, rstd); graphs exported for inference read y (index 0) only."""
    x, gamma, beta = args[:3]
    begin_norm, begin_params, eps = (args[3], args[4], args[5]) if len(args) >= 6 else (
        node.attrs.get("begin_norm_axis", -1), node.attrs.get("begin_params_axis", -1), node.attrs.get("epsilon", 1e-7))
    return (ops.layer_norm(x, gamma, beta, begin_norm, begin_params, float(eps)),)


def _split(node, args):
    x = args[0]
    axis, n = (args[1], args[2]) if len(args) >= 3 else (node.attrs.get("axis", 0), node.attrs["output_num"])
    return tuple(ops.split(x, x.shape[axis] // n, axis))


def _strided_slice(node, args):
    x, begin, end, strides = args[:4]
    masks = args[4:9] if len(args) >= 9 else [node.attrs.get(k, 0) for k in (
        "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")]
    return ops.strided_slice(x, tuple(begin), tuple(end), tuple(strides), *[int(m) for m in masks])


def _softmax(node, args):
    axis = args[1] if len(args) > 1 else node.attrs.get("axis", -1)
    axis = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    if len(axis) != 1:
        raise GraphLoadError(f"node {node.output}: Softmax over several axes {axis} is not supported")
    return ops.softmax(args[0], axis[0])


def _tuple_get_item(node, args):
    seq, i = args
    if not isinstance(seq, tuple) or not 0 <= i < len(seq):
        raise GraphLoadError(f"node {node.output}: TupleGetItem reads item {i} of a value that has "
                             f"{len(seq) if isinstance(seq, tuple) else 'no'} items pycompile computes")
    return seq[i]


def _lstm(node, args):
    """MindSpore's fused CPU `LSTM` primitive, as it appears in a MINDIR file, in pycompile ops.

    Weights arrive packed in one tensor: w_ih [4H, I], w_hh [4H, H], then the bias b_ih + b_hh
    [4H], flattened (MindSpore's CPU kernel layout, checked on a one-layer file; several layers or
    directions are refused rather than guessed). Gates are ordered i, f, g, o. The time loop is a
    Python loop over the static sequence length, so a compiled graph holds it unrolled.
    """
    x, h0, c0, w = args[:4]
    a = node.attrs
    if a.get("bidirectional") or a.get("proj_size", 0) or int(a["num_layers"]) != 1:
        raise GraphLoadError(f"node {node.output}: only a one-layer, one-direction LSTM without projection is "
                             f"supported (num_layers={a['num_layers']}, bidirectional={a.get('bidirectional')})")
    inp, hid, layers = int(a["input_size"]), int(a["hidden_size"]), int(a["num_layers"])
    flat = ops.reshape(w, (-1,))
    offset, mats = 0, []
    for layer in range(layers):
        size_in = inp if layer == 0 else hid
        w_ih = ops.reshape(flat[offset:offset + 4 * hid * size_in], (4 * hid, size_in))
        offset += 4 * hid * size_in
        w_hh = ops.reshape(flat[offset:offset + 4 * hid * hid], (4 * hid, hid))
        offset += 4 * hid * hid
        mats.append((w_ih, w_hh))
    biases = []
    for layer in range(layers):
        if a.get("has_bias", True):
            biases.append(flat[offset:offset + 4 * hid])
            offset += 4 * hid
        else:
            biases.append(None)
    seq = x.shape[0]
    hs, cs = [], []
    for layer in range(layers):
        w_ih, w_hh = mats[layer]
        h, c = h0[layer], c0[layer]
        outs = []
        for t in range(seq):
            gates = ops.matmul(x[t], ops.transpose(w_ih, (1, 0))) + ops.matmul(h, ops.transpose(w_hh, (1, 0)))
            if biases[layer] is not None:
                gates = gates + biases[layer]
            i, f, g, o = ops.split(gates, hid, 1)
            c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
            h = ops.sigmoid(o) * ops.tanh(c)
            outs.append(h)
        x = ops.stack(outs, 0)
        hs.append(h)
        cs.append(c)
    return (x, ops.stack(hs, 0), ops.stack(cs, 0), None, None)


# MindSpore's TypeId numbers (Cast's dst_type input) -> pycompile dtype names
_TYPE_IDS = {30: "bool_", 32: "int8", 33: "int16", 34: "int32", 35: "int64", 37: "uint8", 38: "uint16",
             39: "uint32", 40: "uint64", 42: "float16", 43: "float32", 44: "float64", 45: "bfloat16"}


def _cast(node, args):
    from pycompile.common import dtype as mstype
    x, dst = args[:2]
    if not isinstance(dst, int) or dst not in _TYPE_IDS:
        raise GraphLoadError(f"node {node.output}: Cast to MindSpore type id {dst!r}, which pycompile does not have")
    return ops.cast(x, getattr(mstype, _TYPE_IDS[dst]))


def _reduce_sum(node, args):
    x = args[0]
    axis = tuple(args[1]) if len(args) > 1 and args[1] is not None else ()
    keep = bool(args[2]) if len(args) > 2 else bool(node.attrs.get("keep_dims", False))
    skip = bool(args[3]) if len(args) > 3 else False
    if not axis:
        if skip:
            return x
        axis = tuple(range(len(x.shape)))
    return ops.sum(x, axis, keep)


def _zeros(node, args):
    from pycompile.common import dtype as mstype
    shape, dst = args[:2]
    if not isinstance(dst, int) or dst not in _TYPE_IDS:
        raise GraphLoadError(f"node {node.output}: Zeros of MindSpore type id {dst!r}, which pycompile does not have")
    return ops.zeros(tuple(int(d) for d in shape), getattr(mstype, _TYPE_IDS[dst]))


def _gather(node, args):
    x, idx, axis = args[:3]
    batch_dims = args[3] if len(args) > 3 else 0
    return ops.gather(x, idx, int(axis), int(batch_dims))


def _stack(node, args):
    axis = args[1] if len(args) > 1 else node.attrs.get("axis", 0)
    return ops.stack(tuple(args[0]), int(axis))


def _unary(fn):
    return lambda node, args: fn(args[0])


def _binary(fn):
    return lambda node, args: fn(args[0], args[1])


PRIMITIVES = {
    # effects and tuples: data flow only
    "Load": lambda node, args: args[0],
    "UpdateState": lambda node, args: MONAD,
    "Depend": lambda node, args: args[0],
    "MakeTuple": lambda node, args: tuple(args),
    "TupleGetItem": _tuple_get_item,
    # layers
    "MatMul": _matmul, "BatchMatMul": _batch_matmul, "MatMulExt": _binary(ops.matmul),
    "BiasAdd": _bias_add, "Conv2D": _conv2d, "MaxPool": _pool(P.MaxPool), "AvgPool": _pool(P.AvgPool),
    "BatchNorm": _batch_norm, "LayerNorm": _layer_norm, "LSTM": _lstm, "Softmax": _softmax,
    # elementwise
    "ReLU": _unary(ops.relu), "Sigmoid": _unary(ops.sigmoid), "Tanh": _unary(ops.tanh), "Exp": _unary(ops.exp),
    "Sqrt": _unary(ops.sqrt), "Rsqrt": _unary(ops.rsqrt), "Neg": _unary(ops.neg), "Log": _unary(ops.log),
    "Square": _unary(ops.square), "Erf": _unary(ops.erf), "Pow": _binary(ops.pow),
    "GeLU": _unary(lambda x: ops.gelu(x, approximate="tanh")),
    "Add": _binary(ops.add), "Sub": _binary(ops.sub), "Mul": _binary(ops.mul), "Div": _binary(ops.div),
    "Muls": _binary(ops.mul),         # a tensor times a scalar input (MindSpore's `x * 2` in graph code)
    "RealDiv": _binary(ops.div), "Maximum": _binary(ops.maximum), "Minimum": _binary(ops.minimum),
    # shapes
    "Reshape": lambda node, args: ops.reshape(args[0], tuple(args[1])),
    "Transpose": lambda node, args: ops.transpose(args[0], tuple(args[1])),
    "Flatten": _unary(ops.flatten),
    "ExpandDims": lambda node, args: ops.expand_dims(args[0], int(args[1])),
    "Squeeze": lambda node, args: ops.squeeze(args[0], tuple(args[1]) if len(args) > 1 else
                                              tuple(node.attrs.get("axis", ()))),
    "Concat": lambda node, args: ops.concat(tuple(args[0]), int(args[1]) if len(args) > 1
                                            else node.attrs.get("axis", 0)),
    "Split": _split,
    "StridedSlice": _strided_slice,
    "Stack": _stack, "Gather": _gather, "Cast": _cast, "Zeros": _zeros,
    "Shape": lambda node, args: tuple(args[0].shape),
    "Equal": _binary(ops.equal), "NotEqual": _binary(ops.not_equal), "ReduceSum": _reduce_sum,
    "Select": lambda node, args: ops.select(*args[:3]),
    "BroadcastTo": lambda node, args: ops.broadcast_to(args[0], tuple(args[1])),
    "UnsortedSegmentSum": lambda node, args: ops.unsorted_segment_sum(args[0], args[1], int(args[2])),
    "TensorScatterUpdate": lambda node, args: ops.tensor_scatter_update(*args[:3]),
    "Less": _binary(ops.less), "LessEqual": _binary(ops.less_equal), "Greater": _binary(ops.greater),
    "GreaterEqual": _binary(ops.greater_equal), "LogicalAnd": _binary(ops.logical_and),
    "LogicalOr": _binary(ops.logical_or), "LogicalNot": _unary(ops.logical_not), "Floor": _unary(ops.floor),
    "Ceil": _unary(ops.ceil), "TensorScatterAdd": lambda node, args: ops.tensor_scatter_add(*args[:3]),
}
