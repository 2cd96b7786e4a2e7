"""pycompile IR ops as MindSpore 2.10 primitives, for the MINDIR writer (export/mindir.py).

Each entry of `RULES` takes the IR node and returns (primitive name, extra constant inputs after
the node's tensor inputs, primitive attributes, primitive kind[, item]): with `item`, the
primitive returns a tuple and the node's value is that item of it. MindSpore 2.10 has two kinds of
primitive and its loader insists on the right one: "primitive functions" (MatMul, Add, ReLU,
Reshape, ...) take their settings as constant inputs, in the order of MindSpore's op
definition; older primitives (Conv2D, MaxPool, AvgPool) carry them as attributes. An IR op with
no rule here is refused by `export` with its name and the user's source line.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.ops import prims as P

FUNCTION, PRIMITIVE = "PRIMITIVE_FUNCTION", "PRIMITIVE"
# MindSpore's TypeId of each dtype: Cast's `dst_type` input (read from the wheel's exported Casts)
TYPE_IDS = {mstype.bool_: 30, mstype.int8: 32, mstype.int16: 33, mstype.int32: 34, mstype.int64: 35,
            mstype.uint8: 37, mstype.uint16: 38, mstype.uint32: 39, mstype.uint64: 40, mstype.float16: 42,
            mstype.float32: 43, mstype.float64: 44, mstype.bfloat16: 45}
# the older primitives' input_names / output_names attributes, as MindSpore writes them
_NAMES = {"TensorScatterUpdate": (["input_x", "indices", "updates"], ["y"]), "Stack": (["x"], ["y"]),
          "Cast": (["x", "dst_type"], ["output"])}


class Unsupported(Exception):
    """An IR node the writer cannot express as a MindSpore primitive (message says why)."""


def _same(name):
    return lambda node: (name, (), {}, FUNCTION)


def _matmul(name):
    return lambda node: (name, (bool(node.attrs["transpose_a"]), bool(node.attrs["transpose_b"])), {}, FUNCTION)


def _four(pair):
    return (1, 1, int(pair[0]), int(pair[1]))


def _conv2d(node):
    w = node.inputs[1].type
    w = getattr(w, "tensor", w)
    pads = tuple(int(p) for p in node.attrs["pads"])
    attrs = {"out_channel": int(w.shape[0]), "kernel_size": (int(w.shape[2]), int(w.shape[3])), "mode": 1,
             "pad_mode": "pad", "pad": pads, "pad_list": pads, "stride": _four(node.attrs["stride"]),
             "dilation": _four(node.attrs["dilation"]), "group": int(node.attrs["group"]),
             "groups": int(node.attrs["group"]), "format": "NCHW"}
    return "Conv2D", (), attrs, PRIMITIVE


def _pool(name):
    def rule(node):
        a = node.attrs
        if any(a["pads"]) or a["ceil_mode"] or any(d != 1 for d in a["dilation"]):
            raise Unsupported(f"{name} with padding, ceil_mode or dilation (MindSpore's {name} primitive has "
                              f"pad_mode 'VALID' / 'SAME' only)")
        if name == "AvgPool" and a.get("divisor"):
            raise Unsupported("AvgPool with divisor_override")
        attrs = {"kernel_size": _four(a["kernel"]), "strides": _four(a["stride"]), "pad_mode": "VALID",
                 "format": "NCHW"}
        return name, (), attrs, PRIMITIVE
    return rule


def _reshape(node):
    return "Reshape", (tuple(int(d) for d in node.type.shape),), {}, FUNCTION


def _transpose(node):
    perm = node.attrs["perm"]
    nd = len(node.type.shape)
    perm = tuple(range(nd))[::-1] if perm is None else tuple(int(p) % nd for p in perm)
    return "Transpose", (perm,), {}, FUNCTION


def _softmax(node):
    return "Softmax", ((int(node.attrs["axis"]),),), {}, FUNCTION


def _strided_slice(node):
    a = node.attrs
    ints = [tuple(int(v) for v in a[k]) for k in ("begin", "end", "strides")]
    return "StridedSlice", (*ints, 0, 0, 0, 0, 0), {}, FUNCTION


def _reduce_sum(node):
    axis = node.attrs["axis"]
    nd = len(node.inputs[0].type.shape)
    axis = tuple(range(nd)) if axis is None else (tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
    return "ReduceSum", (tuple(int(x) for x in axis), bool(node.attrs["keep_dims"]), False), {}, FUNCTION


def _layer_norm(node):
    """MindSpore's LayerNorm returns (y, mean, rstd): the writer reads item 0 (TUPLE_ITEM)."""
    a = node.attrs
    return ("LayerNorm", (int(a["begin_norm_axis"]), int(a["begin_params_axis"]), float(a["epsilon"])), {},
            FUNCTION, 0)


def _named(name, **attrs):
    ins, outs = _NAMES[name]
    return {"output_names": outs, "input_names": ins, **attrs}


def _gather(node):
    return "Gather", (int(node.attrs["axis"]), 0), {}, FUNCTION


def _stack(node):
    n = len(node.inputs)
    return "Stack", (), _named("Stack", num=n, axis=int(node.attrs["axis"]), N=n), PRIMITIVE


def _concat(node):
    return "Concat", (int(node.attrs["axis"]),), {}, FUNCTION


def _cast(node):
    dtype = node.type.dtype
    if dtype not in TYPE_IDS:
        raise Unsupported(f"Cast to {dtype}")
    return "Cast", (TYPE_IDS[dtype],), _named("Cast"), FUNCTION


def _broadcast_to(node):
    return "BroadcastTo", (tuple(int(d) for d in node.type.shape),), {}, FUNCTION


def _gather_grad(node):
    """The gradient of a Gather along axis 0: the rows summed into their indices' slots, which is
    MindSpore's UnsortedSegmentSum(dy, indices, rows)."""
    if int(node.attrs.get("axis", 0)) != 0:
        raise Unsupported("the gradient of a Gather along an axis other than 0")
    return "UnsortedSegmentSum", (int(node.attrs["shape"][0]),), {}, FUNCTION


# variadic ops: their tensors go to the primitive as one MakeTuple input
TUPLE_INPUT = (P.Stack, P.Concat)

RULES = {
    P.MatMul: _matmul("MatMul"), P.BatchMatMul: _matmul("BatchMatMul"),
    P.Add: _same("Add"), P.Sub: _same("Sub"), P.Mul: _same("Mul"), P.RealDiv: _same("RealDiv"),
    P.Maximum: _same("Maximum"), P.Minimum: _same("Minimum"), P.Pow: _same("Pow"),
    P.ReLU: _same("ReLU"), P.Sigmoid: _same("Sigmoid"), P.Tanh: _same("Tanh"), P.Exp: _same("Exp"),
    P.Log: _same("Log"), P.Sqrt: _same("Sqrt"), P.Rsqrt: _same("Rsqrt"), P.Neg: _same("Neg"),
    P.Square: _same("Square"), P.Erf: _same("Erf"),
    P.Conv2D: _conv2d, P.MaxPool: _pool("MaxPool"), P.AvgPool: _pool("AvgPool"),
    P.Reshape: _reshape, P.Transpose: _transpose, P.Softmax: _softmax,
    P.StridedSlice: _strided_slice, P.ReduceSum: _reduce_sum, P.LayerNorm: _layer_norm,
    P.Gather: _gather, P.Stack: _stack, P.Concat: _concat, P.Cast: _cast,
    P.TensorScatterUpdate: lambda node: ("TensorScatterUpdate", (), _named("TensorScatterUpdate"), PRIMITIVE),
    P.Equal: _same("Equal"), P.NotEqual: _same("NotEqual"), P.Select: _same("Select"),
    P.BroadcastTo: _broadcast_to, P.GatherGrad: _gather_grad,
    # what decomposed ops (PSROIPooling's bins: tests/export/test_mindir_img33.py) are made of
    P.Less: _same("Less"), P.LessEqual: _same("LessEqual"), P.Greater: _same("Greater"),
    P.GreaterEqual: _same("GreaterEqual"), P.LogicalAnd: _same("LogicalAnd"), P.LogicalOr: _same("LogicalOr"),
    P.LogicalNot: _same("LogicalNot"), P.Floor: _same("Floor"), P.Ceil: _same("Ceil"),
    P.TensorScatterAdd: _same("TensorScatterAdd"),
}
