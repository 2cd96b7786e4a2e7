"""ONNX (opset 17) renderings of pycompile's ops, one entry per op object.

Each entry is `rule(em, n) -> name`: it reads the IR node `n` (its inputs, attributes, types) and
adds ONNX nodes through the emitter `em` (export/onnx.py), returning the ONNX name of the node's
value (a tuple of names for an op with several results). Composite ops (GeLU, Rsqrt, SiLU, ...)
become several ONNX nodes that compute the same formula as the op's definition.

`em.x(v, dtype)` names an input value, cast to `dtype` where given (scalars and constants become
initializers of that dtype); `em.op(type, inputs, **attrs)` adds a node; `em.dims(v)` is v's
shape with None for each dimension that follows a dynamic input dimension. Ops whose attributes
may depend on a dynamic dimension handle it here (Reshape, BroadcastTo, StridedSlice) and are
listed in DYNAMIC_ATTRS; any other op whose attributes differ between the two sample traces is
refused by the emitter.
"""
from __future__ import annotations

import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.ops.defs import activation as A
from pycompile.ops.defs import array as R
from pycompile.ops.defs import backprop as B
from pycompile.ops.defs import conv as C
from pycompile.ops.defs import effects as F
from pycompile.ops.defs import elementwise as E
from pycompile.ops.defs import index as X
from pycompile.ops.defs import math as M
from pycompile.ops.defs import pool as P
from pycompile.ops.defs import reduce as D
from pycompile.ops.defs import sort as S

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def _out(n):
    return n.type.dtype


# ---- elementwise --------------------------------------------------------------------------------

def unary(onnx_op: str, **attrs):
    def rule(em, n):
        return em.op(onnx_op, [em.x(n.inputs[0], _out(n))], **attrs)
    return rule


def predicate(onnx_op: str):
    """A test of a float value (IsNaN, IsInf): its input as it is, a bool result."""
    def rule(em, n):
        return em.op(onnx_op, [em.x(n.inputs[0])])
    return rule


def binary(onnx_op: str):
    def rule(em, n):
        dt = _out(n)
        return em.op(onnx_op, [em.x(n.inputs[0], dt), em.x(n.inputs[1], dt)])
    return rule


def compare(onnx_op: str, negate: bool = False):
    def rule(em, n):
        dt = em.common_dtype(n.inputs)
        y = em.op(onnx_op, [em.x(n.inputs[0], dt), em.x(n.inputs[1], dt)])
        return em.op("Not", [y]) if negate else y
    return rule


def logical(onnx_op: str):
    def rule(em, n):
        return em.op(onnx_op, [em.x(v, mstype.bool_) for v in n.inputs])
    return rule


def _scalar(em, value, dt):
    return em.const(np.asarray(value, dt.np))


def _rsqrt(em, n):
    return em.op("Reciprocal", [em.op("Sqrt", [em.x(n.inputs[0], _out(n))])])


def _square(em, n):
    x = em.x(n.inputs[0], _out(n))
    return em.op("Mul", [x, x])


def _silu(em, n):
    x = em.x(n.inputs[0], _out(n))
    return em.op("Mul", [x, em.op("Sigmoid", [x])])


def _mish(em, n):
    x = em.x(n.inputs[0], _out(n))
    return em.op("Mul", [x, em.op("Tanh", [em.op("Softplus", [x])])])


def _log_sigmoid(em, n):
    x = em.x(n.inputs[0], _out(n))
    return em.op("Neg", [em.op("Softplus", [em.op("Neg", [x])])])


def _gelu_tanh(em, n):
    # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), GeLU's definition (ops/defs/elementwise.py)
    dt = _out(n)
    x = em.x(n.inputs[0], dt)
    x3 = em.op("Mul", [em.op("Mul", [x, x]), x])
    inner = em.op("Add", [x, em.op("Mul", [x3, _scalar(em, 0.044715, dt)])])
    t = em.op("Tanh", [em.op("Mul", [inner, _scalar(em, math.sqrt(2 / math.pi), dt)])])
    half_x = em.op("Mul", [x, _scalar(em, 0.5, dt)])
    return em.op("Mul", [half_x, em.op("Add", [t, _scalar(em, 1.0, dt)])])


def _gelu_erf(em, n):
    # 0.5 x (1 + erf(x / sqrt 2))
    dt = _out(n)
    x = em.x(n.inputs[0], dt)
    e = em.op("Erf", [em.op("Mul", [x, _scalar(em, 1 / math.sqrt(2), dt)])])
    half_x = em.op("Mul", [x, _scalar(em, 0.5, dt)])
    return em.op("Mul", [half_x, em.op("Add", [e, _scalar(em, 1.0, dt)])])


def _relu6(em, n):
    dt = _out(n)
    return em.op("Clip", [em.x(n.inputs[0], dt), _scalar(em, 0, dt), _scalar(em, 6, dt)])


def _plus_one_log(em, n):
    dt = _out(n)
    return em.op("Log", [em.op("Add", [em.x(n.inputs[0], dt), _scalar(em, 1, dt)])])


def _expm1(em, n):
    dt = _out(n)
    return em.op("Sub", [em.op("Exp", [em.x(n.inputs[0], dt)]), _scalar(em, 1, dt)])


def _log2(em, n):
    dt = _out(n)
    return em.op("Div", [em.op("Log", [em.x(n.inputs[0], dt)]), _scalar(em, math.log(2), dt)])


def _erfc(em, n):
    dt = _out(n)
    return em.op("Sub", [_scalar(em, 1, dt), em.op("Erf", [em.x(n.inputs[0], dt)])])


def _is_finite(em, n):
    x = em.x(n.inputs[0])
    return em.op("Not", [em.op("Or", [em.op("IsNaN", [x]), em.op("IsInf", [x])])])


def _floor_div(em, n):
    dt = _out(n)
    calc = dt if dt.is_float else mstype.float64
    q = em.op("Floor", [em.op("Div", [em.x(n.inputs[0], calc), em.x(n.inputs[1], calc)])])
    return q if calc is dt else em.op("Cast", [q], to=em.onnx_dtype(dt))


def _floor_mod(em, n):
    dt = _out(n)
    a, b = em.x(n.inputs[0], dt), em.x(n.inputs[1], dt)
    if not dt.is_float:
        return em.op("Mod", [a, b], fmod=0)     # Python's sign rule, as FloorMod
    return em.op("Sub", [a, em.op("Mul", [b, em.op("Floor", [em.op("Div", [a, b])])])])


def _mod(em, n):
    dt = _out(n)
    return em.op("Mod", [em.x(n.inputs[0], dt), em.x(n.inputs[1], dt)], fmod=1)   # C's fmod


def _select(em, n):
    dt = _out(n)
    c, x, y = n.inputs
    return em.op("Where", [em.x(c, mstype.bool_), em.x(x, dt), em.x(y, dt)])


def _cast(em, n):
    x = em.x(n.inputs[0])
    if em.dtype_of(n.inputs[0]) == _out(n):
        return em.op("Identity", [x])
    return em.op("Cast", [x], to=em.onnx_dtype(_out(n)))


def _add_n(em, n):
    return em.op("Sum", [em.x(v, _out(n)) for v in n.inputs])


def _alias(em, n):
    return em.x(n.inputs[0])


# ---- reductions and normalizations -------------------------------------------------------------

def _axes(n, ndim):
    ax = n.attr("axis")
    if ax is None or ax == ():
        return None
    if isinstance(ax, int):
        ax = (ax,)
    return [int(a) % max(ndim, 1) for a in ax]


def reduce(onnx_op: str, axes_input: bool = False, via_int: bool = False):
    def rule(em, n):
        x_v = n.inputs[0]
        x = em.x(x_v)
        if via_int:       # ReduceAll / ReduceAny on bool: Min / Max of 0 / 1
            x = em.op("Cast", [x], to=em.onnx_dtype(mstype.int32))
        axes = _axes(n, len(x_v.type.shape))
        keep = int(bool(n.attr("keep_dims", False)))
        if axes_input:
            y = em.op(onnx_op, [x] + ([em.ints(axes)] if axes is not None else []), keepdims=keep)
        elif axes is None:
            y = em.op(onnx_op, [x], keepdims=keep)
        else:
            y = em.op(onnx_op, [x], axes=axes, keepdims=keep)
        return em.op("Cast", [y], to=em.onnx_dtype(_out(n))) if via_int else y
    return rule


def _arg(onnx_op):
    def rule(em, n):
        x_v = n.inputs[0]
        x = em.x(x_v)
        ax = n.attr("axis")
        if ax is None:
            x, ax = em.op("Reshape", [x, em.ints([-1])]), 0
        y = em.op(onnx_op, [x], axis=int(ax), keepdims=int(bool(n.attr("keep_dims", False))))
        return em.op("Cast", [y], to=em.onnx_dtype(_out(n))) if _out(n) != mstype.int64 else y
    return rule


def _softmax(onnx_op):
    def rule(em, n):
        ax = n.attr("axis", -1)
        if isinstance(ax, (tuple, list)):
            if len(ax) != 1:
                em.refuse(n, f"{n.op.name} over several axes {tuple(ax)} has no ONNX operator")
            ax = ax[0]
        return em.op(onnx_op, [em.x(n.inputs[0], _out(n))], axis=int(ax))
    return rule


def _layer_norm(em, n):
    x_v = n.inputs[0]
    nd = len(x_v.type.shape)
    begin = n.attr("begin_norm_axis", -1) % nd
    params = n.attr("begin_params_axis", -1) % nd
    if params != begin:
        em.refuse(n, f"LayerNorm with begin_params_axis {params} != begin_norm_axis {begin} has no ONNX "
                     f"LayerNormalization")
    dt = _out(n)
    return em.op("LayerNormalization", [em.x(v, dt) for v in n.inputs[:3]], axis=begin,
                 epsilon=float(n.attr("epsilon", 1e-7)))


def _cumsum(em, n):
    return em.op("CumSum", [em.x(n.inputs[0]), em.ints(int(n.attr("axis", 0)))],
                 exclusive=int(bool(n.attr("exclusive"))), reverse=int(bool(n.attr("reverse"))))


# ---- linear algebra, convolution, pooling -----------------------------------------------------

def _matmul(em, n):
    a_v, b_v = n.inputs[:2]
    dt = _out(n)
    ta, tb = bool(n.attr("transpose_a")), bool(n.attr("transpose_b"))
    a, b = em.x(a_v, dt), em.x(b_v, dt)
    ra, rb = len(a_v.type.shape), len(b_v.type.shape)
    if ra == 2 and rb == 2 and dt.is_float:
        return em.op("Gemm", [a, b], transA=int(ta), transB=int(tb))
    if ta and ra >= 2:
        a = em.op("Transpose", [a], perm=list(range(ra - 2)) + [ra - 1, ra - 2])
    if tb and rb >= 2:
        b = em.op("Transpose", [b], perm=list(range(rb - 2)) + [rb - 1, rb - 2])
    return em.op("MatMul", [a, b])


def _spatial_pads(pads):
    pads = [int(p) for p in pads]
    return pads[0::2] + pads[1::2]      # ONNX: every axis's begin, then every axis's end


def _conv(em, n):
    dt = _out(n)
    x_v, w_v = n.inputs[:2]
    sp = len(w_v.type.shape) - 2
    stride = n.attr("stride") or (1,) * sp
    dilation = n.attr("dilation") or (1,) * sp
    pads = n.attr("pads") or (0,) * (2 * sp)
    return em.op("Conv", [em.x(x_v, dt), em.x(w_v, dt)], kernel_shape=list(w_v.type.shape[2:]),
                 strides=list(stride), dilations=list(dilation), pads=_spatial_pads(pads),
                 group=int(n.attr("group", 1)))


def _pool_attrs(n):
    kernel = list(n.attr("kernel"))
    sp = len(kernel)
    return dict(kernel_shape=kernel, strides=list(n.attr("stride") or kernel),
                pads=_spatial_pads(n.attr("pads") or (0,) * (2 * sp)), ceil_mode=int(bool(n.attr("ceil_mode"))))


def _max_pool(em, n):
    attrs = _pool_attrs(n)
    dil = n.attr("dilation") or ()
    if any(d != 1 for d in dil):
        attrs["dilations"] = list(dil)
    return em.op("MaxPool", [em.x(n.inputs[0])], **attrs)


def _avg_pool(em, n):
    if n.attr("divisor"):
        em.refuse(n, f"AvgPool with divisor_override={n.attr('divisor')} has no ONNX AveragePool")
    if any(d != 1 for d in (n.attr("dilation") or ())):
        em.refuse(n, "AvgPool with a dilation needs AveragePool of opset 19; this file is opset 17")
    return em.op("AveragePool", [em.x(n.inputs[0])], count_include_pad=int(bool(n.attr("count_include_pad", True))),
                 **_pool_attrs(n))


def _adaptive_avg_pool(em, n):
    if any(int(o) != 1 for o in n.attr("output_size")):
        em.refuse(n, f"AdaptiveAvgPool to {tuple(n.attr('output_size'))} has no ONNX operator (only an output "
                     f"of 1 per axis, GlobalAveragePool)")
    return em.op("GlobalAveragePool", [em.x(n.inputs[0])])


# ---- layout -------------------------------------------------------------------------------------

def _reshape(em, n):
    out = em.dims(n)
    shape = [d if d is not None else -1 for d in out]
    dyn = [k for k, d in enumerate(out) if d is None]
    if len(dyn) <= 1:
        return em.op("Reshape", [em.x(n.inputs[0]), em.ints(shape)])
    # several dynamic dimensions: those equal to an input's are read from it at run time (Shape),
    # and at most one (a product of several) is inferred
    shape = em.shape_tensor(em.dim_pairs(n), inferred_ok=1)
    if shape is None:
        em.refuse(n, f"Reshape to {tuple(n.type.shape)}: several of its dimensions are products of dynamic "
                     f"input dimensions, and ONNX's Reshape can infer only one")
    return em.op("Reshape", [em.x(n.inputs[0]), shape])


def _broadcast_to(em, n):
    out, ins = em.dims(n), em.dims(n.inputs[0])
    shape = []
    offset = len(out) - len(ins)
    for k, d in enumerate(out):
        if d is None:
            if k < offset or ins[k - offset] is not None:
                shape.append(1)        # Expand keeps the input's (dynamic) dimension
                continue
            em.refuse(n, f"BroadcastTo {tuple(n.type.shape)} grows a dimension to the dynamic size")
        shape.append(d)
    return em.op("Expand", [em.x(n.inputs[0]), em.ints(shape)])


def _strided_slice(em, n):
    x_v = n.inputs[0]
    begin, end, strides = (list(n.attr(k)) for k in ("begin", "end", "strides"))
    twin = em.twin_of(n)
    ins = em.dims(x_v)
    if twin is not None:
        tbegin, tend = list(twin.attr("begin")), list(twin.attr("end"))
        for k in range(len(begin)):
            if tbegin[k] != begin[k]:
                em.refuse(n, f"a slice that starts at an offset from the end of dynamic axis {k}")
            if tend[k] != end[k]:
                if ins[k] is None and end[k] == x_v.type.shape[k] and tend[k] == twin.inputs[0].type.shape[k]:
                    end[k] = INT64_MAX
                else:
                    em.refuse(n, f"a slice that ends at an offset from the end of dynamic axis {k}")
    end = [INT64_MIN if (s < 0 and e == -1) else e for e, s in zip(end, strides)]
    return em.op("Slice", [em.x(x_v), em.ints(begin), em.ints(end), em.ints(list(range(len(begin)))),
                           em.ints(strides)])


def _transpose(em, n):
    return em.op("Transpose", [em.x(n.inputs[0])], perm=[int(p) for p in n.attr("perm")])


def _concat(em, n):
    return em.op("Concat", [em.x(v, _out(n)) for v in n.inputs], axis=int(n.attr("axis", 0)))


def _stack(em, n):
    ax = int(n.attr("axis", 0)) % len(n.type.shape)
    parts = [em.op("Unsqueeze", [em.x(v, _out(n)), em.ints([ax])]) for v in n.inputs]
    return em.op("Concat", parts, axis=ax)


def _gather(em, n):
    return em.op("Gather", [em.x(n.inputs[0]), em.x(n.inputs[1])], axis=int(n.attr("axis", 0)))


def _gather_d(em, n):
    return em.op("GatherElements", [em.x(n.inputs[0]), em.x(n.inputs[1], mstype.int64)], axis=int(n.attr("axis", 0)))


def _scatter(reduction=None):
    def rule(em, n):
        x, idx, upd = n.inputs
        attrs = {"reduction": reduction} if reduction else {}
        return em.op("ScatterND", [em.x(x), em.x(idx, mstype.int64), em.x(upd, _out(n))], **attrs)
    return rule


RULES = {
    # arithmetic
    E.Add: binary("Add"), E.Sub: binary("Sub"), E.Mul: binary("Mul"), E.RealDiv: binary("Div"),
    E.Maximum: binary("Max"), E.Minimum: binary("Min"), E.Pow: binary("Pow"),
    E.FloorDiv: _floor_div, E.FloorMod: _floor_mod, M.Mod: _mod, F.AddN: _add_n, S.CumSum: _cumsum,
    E.Neg: unary("Neg"), E.Abs: unary("Abs"), E.Reciprocal: unary("Reciprocal"), M.Sign: unary("Sign"),
    E.Floor: unary("Floor"), E.Ceil: unary("Ceil"), M.Round: unary("Round"),
    E.Exp: unary("Exp"), E.Log: unary("Log"), E.Sqrt: unary("Sqrt"), E.Rsqrt: _rsqrt, E.Square: _square,
    E.Erf: unary("Erf"), M.Expm1: _expm1, M.Log1p: _plus_one_log, M.Erfc: _erfc, M.Log2: _log2,
    E.Sin: unary("Sin"), E.Cos: unary("Cos"), M.Tan: unary("Tan"), M.ACos: unary("Acos"), M.Asin: unary("Asin"),
    M.Atan: unary("Atan"), M.Cosh: unary("Cosh"), M.Sinh: unary("Sinh"), M.Asinh: unary("Asinh"),
    M.Acosh: unary("Acosh"), M.Atanh: unary("Atanh"),
    M.IsNan: predicate("IsNaN"), M.IsInf: predicate("IsInf"), E.IsFinite: _is_finite,
    # activations
    E.ReLU: unary("Relu"), A.ReLU6: _relu6, E.Sigmoid: unary("Sigmoid"), E.Tanh: unary("Tanh"),
    E.GeLU: _gelu_tanh, E.GeLUErf: _gelu_erf, A.SiLU: _silu, A.Mish: _mish, A.Softplus: unary("Softplus"),
    A.Softsign: unary("Softsign"), A.LogSigmoid: _log_sigmoid, A.Elu: unary("Elu", alpha=1.0), A.SeLU: unary("Selu"),
    E.HSigmoid: unary("HardSigmoid", alpha=1 / 6, beta=0.5), E.HSwish: unary("HardSwish"),
    D.Softmax: _softmax("Softmax"), D.LogSoftmax: _softmax("LogSoftmax"),
    # comparisons and logic
    E.Equal: compare("Equal"), E.NotEqual: compare("Equal", negate=True), E.Less: compare("Less"),
    E.Greater: compare("Greater"), E.LessEqual: compare("LessOrEqual"), E.GreaterEqual: compare("GreaterOrEqual"),
    E.LogicalNot: logical("Not"), E.LogicalAnd: logical("And"), E.LogicalOr: logical("Or"),
    E.Select: _select, E.Cast: _cast,
    # reductions, normalizations
    D.ReduceSum: reduce("ReduceSum", axes_input=True), D.ReduceMean: reduce("ReduceMean"),
    D.ReduceMax: reduce("ReduceMax"), D.ReduceMin: reduce("ReduceMin"), D.ReduceProd: reduce("ReduceProd"),
    D.ReduceAll: reduce("ReduceMin", via_int=True), D.ReduceAny: reduce("ReduceMax", via_int=True),
    D.Argmax: _arg("ArgMax"), D.Argmin: _arg("ArgMin"), D.LayerNorm: _layer_norm,
    # products, convolution, pooling
    R.MatMul: _matmul, R.BatchMatMul: _matmul, C.Conv2D: _conv, P.MaxPool: _max_pool, P.AvgPool: _avg_pool,
    P.AdaptiveAvgPool: _adaptive_avg_pool,
    # layout
    R.Reshape: _reshape, R.Transpose: _transpose, R.Concat: _concat, R.Stack: _stack, R.Gather: _gather,
    R.StridedSlice: _strided_slice, R.BroadcastTo: _broadcast_to, X.GatherD: _gather_d,
    X.TensorScatterUpdate: _scatter(), X.TensorScatterAdd: _scatter("add"),
    # ordering and copies: the value itself
    F.Depend: _alias, F.TensorMove: _alias, B.StopGradient: _alias,
}

# ops whose attributes may follow a dynamic dimension: their rules read em.dims / em.twin_of
DYNAMIC_ATTRS = frozenset({R.Reshape, R.BroadcastTo, R.StridedSlice})
