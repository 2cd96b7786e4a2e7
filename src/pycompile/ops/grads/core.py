"""Gradient rules of the core table: elementwise, reductions, normalizations, layout, products,
effects. Each is the vector-Jacobian product of its op, written with ops of the table (see the
contract in `pycompile.ops.grads`); the autodiff framework reduces broadcast cotangents and
casts them to each input's dtype.
"""
from __future__ import annotations

import math

from pycompile.common.abstract import TensorType, type_of
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops import tracing
from pycompile.ops._table import OpTypeError, apply, norm_axes
from pycompile.ops.defs.array import norm_perm
from pycompile.ops.defs.reduce import reduced_shape, softmax_axis
from pycompile.ops.grads import defgrad, nondiff
from pycompile.ops.grads._eager_relu import relu_grad as relu_grad_eager

nondiff(P.Equal, P.NotEqual, P.Less, P.LessEqual, P.Greater, P.GreaterEqual, P.LogicalAnd, P.LogicalOr,
        P.LogicalNot, P.BitwiseAnd, P.BitwiseOr, P.BitwiseXor, P.IsFinite, P.ReduceAll, P.ReduceAny, P.Argmax,
        P.Fill, P.FloorDiv, P.Floor, P.Ceil, P.StopGradient,
        P.Assign, P.UpdateState, P.MakeTuple, P.Print,
        P.NPUAllocFloatStatus, P.NPUClearFloatStatus, P.NPUGetFloatStatus,
        P.StackNew, P.StackPush, P.StackGet, P.StackLen, P.StackFree)


def _shape(v) -> tuple:
    t = type_of(v)
    return t.shape if isinstance(t, TensorType) else ()


def _is_tensor(v) -> bool:
    return isinstance(type_of(v), TensorType)


def _no_complex_grad(name: str, *values) -> None:
    if any(isinstance(type_of(v), TensorType) and type_of(v).dtype.is_complex for v in values):
        raise OpTypeError(f"For '{name}', gradient not support for complex type currently.")


def _cj(v):
    """conj(v) for a complex value, else v: the cotangent of a complex op is g * conj(f'(x)) (the
    convention of MindSpore 2.10's complex gradients, recorded in tests/conformance/cases_cplx33.py)."""
    t = type_of(v)
    if isinstance(t, TensorType) and t.dtype.is_complex:
        return apply(P.Conj, [v])
    return v


# ---- arithmetic ------------------------------------------------------------------------------------
@defgrad(P.Add)
def _add(g, out, x, y):
    return g, g


@defgrad(P.Sub)
def _sub(g, out, x, y):
    return g, F.neg(g)


@defgrad(P.Mul)
def _mul(g, out, x, y):
    return F.mul(g, _cj(y)), F.mul(g, _cj(x))


@defgrad(P.RealDiv)
def _div(g, out, x, y):
    gx = F.div(g, _cj(y))
    return gx, F.neg(F.mul(gx, _cj(out)))


@defgrad(P.FloorMod)
def _floor_mod(g, out, x, y):
    # x mod y = x - floor(x / y) * y
    return g, F.neg(F.mul(g, F.floor_divide(x, y)))


@defgrad(P.Pow)
def _pow(g, out, x, y):
    gx = gy = None
    if _is_tensor(x):
        gx = F.mul(g, _cj(F.mul(y, F.pow(x, F.sub(y, 1)))))
    if _is_tensor(y):
        _no_complex_grad("Pow", x, y)
        # d/dy x**y = x**y log x, taken as 0 where x <= 0 (no real logarithm there)
        positive = F.greater(x, 0)
        safe_log = F.log(F.select(positive, x, 1.0))
        gy = F.select(positive, F.mul(F.mul(g, out), safe_log), 0.0)
    return gx, gy


def _extremum_grads(g, x, y, x_wins, y_wins):
    """MindSpore's MaximumGrad / MinimumGrad on floats: the winner takes g, a tie gives each
    half, and a NaN on either side gives both the whole of g. Integer gradients send a tie to x."""
    gt = type_of(g)
    if not (isinstance(gt, TensorType) and gt.dtype.is_float):
        return F.select(y_wins, 0, g), F.select(y_wins, g, 0)
    nan = F.logical_or(F.ne(x, x), F.ne(y, y))
    half = F.mul(g, 0.5)
    gx = F.select(F.logical_or(x_wins, nan), g, F.select(y_wins, 0, half))
    gy = F.select(F.logical_or(y_wins, nan), g, F.select(x_wins, 0, half))
    return gx, gy


@defgrad(P.Maximum)
def _maximum(g, out, x, y):
    return _extremum_grads(g, x, y, F.greater(x, y), F.less(x, y))


@defgrad(P.Minimum)
def _minimum(g, out, x, y):
    return _extremum_grads(g, x, y, F.less(x, y), F.greater(x, y))


@defgrad(P.Neg)
def _neg(g, out, x):
    return (F.neg(g),)


@defgrad(P.Abs)
def _abs(g, out, x):
    _no_complex_grad("Abs", x)
    return (F.select(F.greater(x, 0), g, F.select(F.less(x, 0), F.neg(g), 0)),)


@defgrad(P.Square)
def _square(g, out, x):
    return (F.mul(F.mul(g, _cj(x)), 2),)


@defgrad(P.Select)
def _select(g, out, cond, x, y):
    return None, F.select(cond, g, 0), F.select(cond, 0, g)


@defgrad(P.Cast)
def _cast(g, out, x, dtype=None):
    return (g,)


# ---- transcendental and activations ------------------------------------------------------------
@defgrad(P.Exp)
def _exp(g, out, x):
    return (F.mul(g, _cj(out)),)


@defgrad(P.Log)
def _log(g, out, x):
    return (F.div(g, _cj(x)),)


@defgrad(P.Sqrt)
def _sqrt(g, out, x):
    return (F.div(F.mul(g, 0.5), _cj(out)),)


@defgrad(P.Rsqrt)
def _rsqrt(g, out, x):
    return (F.mul(F.mul(g, -0.5), _cj(F.mul(F.mul(out, out), out))),)


@defgrad(P.Reciprocal)
def _reciprocal(g, out, x):
    return (F.neg(F.mul(g, _cj(F.mul(out, out)))),)


@defgrad(P.Sin)
def _sin(g, out, x):
    return (F.mul(g, _cj(F.cos(x))),)


@defgrad(P.Cos)
def _cos(g, out, x):
    return (F.neg(F.mul(g, _cj(F.sin(x)))),)


@defgrad(P.Tanh)
def _tanh(g, out, x):
    return (F.mul(g, _cj(F.sub(1, F.mul(out, out)))),)


@defgrad(P.Erf)
def _erf(g, out, x):
    return (F.mul(g, F.mul(F.exp(F.neg(F.mul(x, x))), 2 / math.sqrt(math.pi))),)


@defgrad(P.Sigmoid)
def _sigmoid(g, out, x):
    return (F.mul(g, _cj(F.mul(out, F.sub(1, out)))),)


@defgrad(P.ReLU)
def _relu(g, out, x):
    # the mask from the output (out > 0 exactly where x > 0): the backward then keeps only
    # the activation the next product reads, not the pre-activation as well. PyNative on plain
    # Tensors: the row ReLUGrad from its kernel size (graph mode's C, one pass), else the same
    # bits in two NumPy passes (grads/_eager_relu.py)
    if _on_relu_grad_kernel(g, out):
        return (apply(P.ReLUGrad, [g, out]),)
    fast = relu_grad_eager(g, out)
    if fast is not None:
        return (fast,)
    return (F.select(F.greater(out, 0), g, 0),)


@defgrad(P.ReLUGrad)
def _relu_grad(g, out, dy, y):
    # linear in dy (the mask's own derivative is zero)
    return apply(P.ReLUGrad, [g, y]), None


def _on_relu_grad_kernel(g, out) -> bool:
    """PyNative, float cotangent and output of one type, at least the row's kernel size."""
    if tracing.in_graph_code(g, out) or not (_is_tensor(g) and _is_tensor(out)):
        return False
    tg, to = type_of(g), type_of(out)
    return tg == to and tg.dtype.is_float and math.prod(tg.shape) >= P.ReLUGrad.eager_kernel


@defgrad(P.HSwish)
def _hswish(g, out, x):
    # x * relu6(x + 3) / 6: slope 0 below -3, (2x + 3) / 6 between, 1 above 3
    inner = F.div(F.add(F.mul(x, 2), 3), 6)
    slope = F.select(F.less(x, -3), 0, F.select(F.greater(x, 3), 1, inner))
    return (F.mul(g, slope),)


@defgrad(P.HSigmoid)
def _hsigmoid(g, out, x):
    inside = F.logical_and(F.greater(x, -3), F.less(x, 3))
    return (F.select(inside, F.div(g, 6), 0),)


_C = math.sqrt(2 / math.pi)


@defgrad(P.GeLU)
def _gelu(g, out, x):
    # 0.5 x (1 + tanh(u)), u = c (x + 0.044715 x^3)
    x2 = F.mul(x, x)
    t = F.tanh(F.mul(F.add(x, F.mul(F.mul(x2, x), 0.044715)), _C))
    du = F.mul(F.add(F.mul(x2, 3 * 0.044715), 1), _C)
    slope = F.add(F.mul(F.add(t, 1), 0.5), F.mul(F.mul(F.mul(x, 0.5), F.sub(1, F.mul(t, t))), du))
    return (F.mul(g, slope),)


@defgrad(P.GeLUErf)
def _gelu_erf(g, out, x):
    # Phi(x) + x phi(x)
    cdf = F.mul(F.add(F.erf(F.mul(x, 1 / math.sqrt(2))), 1), 0.5)
    pdf = F.mul(F.exp(F.mul(F.mul(x, x), -0.5)), 1 / math.sqrt(2 * math.pi))
    return (F.mul(g, F.add(cdf, F.mul(x, pdf))),)


# ---- reductions ---------------------------------------------------------------------------------
def _spread(g, x, axis, keep_dims):
    """g of a reduction over `axis` broadcast back to x's shape."""
    shape = _shape(x)
    axes = norm_axes("grad", axis, len(shape))
    return F.broadcast_to(F.reshape(g, reduced_shape(shape, axes, True)), shape), axes


@defgrad(P.ReduceSum)
def _reduce_sum(g, out, x, axis=None, keep_dims=False):
    return (_spread(g, x, axis, keep_dims)[0],)


@defgrad(P.ReduceMean)
def _reduce_mean(g, out, x, axis=None, keep_dims=False):
    spread, axes = _spread(g, x, axis, keep_dims)
    count = math.prod(_shape(x)[a] for a in axes) or 1
    return (F.div(spread, count),)


def _extreme(g, out, x, axis=None, keep_dims=False):
    # the gradient is shared equally by the elements that reach the max (min), as MindSpore does
    spread, axes = _spread(g, x, axis, keep_dims)
    hit = F.equal(x, _spread(out, x, axis, keep_dims)[0])
    count = F.sum(F.cast(hit, spread.dtype), tuple(axes), True)
    return (F.select(hit, F.div(spread, count), 0),)


defgrad(P.ReduceMax)(_extreme)
defgrad(P.ReduceMin)(_extreme)


@defgrad(P.Softmax)
def _softmax(g, out, x, axis=-1):
    ax = softmax_axis("Softmax", axis, len(_shape(x)))
    return (F.mul(F.sub(g, F.sum(F.mul(g, out), ax, True)), out),)


@defgrad(P.LogSoftmax)
def _log_softmax(g, out, x, axis=-1):
    ax = softmax_axis("LogSoftmax", axis, len(_shape(x)))
    return (F.sub(g, F.mul(F.exp(out), F.sum(g, ax, True))),)


@defgrad(P.LayerNorm)
def _layer_norm(g, out, x, gamma, beta, begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-7):
    shape = _shape(x)
    nd = len(shape)
    norm = tuple(range(begin_norm_axis % nd, nd))
    params = tuple(range(begin_params_axis % nd))
    mean = F.mean(x, norm, True)
    centered = F.sub(x, mean)
    rstd = F.rsqrt(F.add(F.mean(F.mul(centered, centered), norm, True), epsilon))
    xhat = F.mul(centered, rstd)
    dxhat = F.mul(g, gamma)
    dx = F.mul(F.sub(F.sub(dxhat, F.mean(dxhat, norm, True)), F.mul(xhat, F.mean(F.mul(dxhat, xhat), norm, True))),
               rstd)
    dgamma = F.sum(F.mul(g, xhat), params) if params else F.mul(g, xhat)
    dbeta = F.sum(g, params) if params else g
    return dx, dgamma, dbeta


@defgrad(P.AddN)
def _addn(g, out, xs):
    return (tuple(g for _ in xs),)


# ---- layout -------------------------------------------------------------------------------------
@defgrad(P.Reshape)
def _reshape(g, out, x, shape):
    return (F.reshape(g, _shape(x)),)


@defgrad(P.Transpose)
def _transpose(g, out, x, perm=None):
    p = norm_perm("Transpose", perm, len(_shape(x)))
    inverse = tuple(sorted(range(len(p)), key=lambda k: p[k]))
    return (F.transpose(g, inverse),)


@defgrad(P.BroadcastTo)
def _broadcast_to(g, out, x, shape):
    return (g,)        # the framework sums it back to x's shape


def _pieces(g, sizes, axis):
    """g cut along `axis` into consecutive pieces of the given sizes."""
    shape = _shape(g)
    out, start = [], 0
    for size in sizes:
        begin = [0] * len(shape)
        end = list(shape)
        begin[axis], end[axis] = start, start + size
        out.append(apply(P.StridedSlice, [g], {"begin": tuple(begin), "end": tuple(end),
                                                "strides": (1,) * len(shape)}))
        start += size
    return out


@defgrad(P.Concat)
def _concat(g, out, xs, axis=0):
    ax = axis % len(_shape(out))
    return (tuple(_pieces(g, [_shape(x)[ax] for x in xs], ax)),)


@defgrad(P.Stack)
def _stack(g, out, xs, axis=0):
    ax = axis % len(_shape(out))
    return (tuple(F.reshape(p, _shape(x)) for p, x in zip(_pieces(g, [1] * len(xs), ax), xs)),)


@defgrad(P.StridedSlice)
def _strided_slice(g, out, x, begin, end, strides):
    return (apply(P.StridedSliceGrad, [g], {"shape": _shape(x), "begin": begin, "end": end, "strides": strides}),)


@defgrad(P.StridedSliceGrad)
def _strided_slice_grad(g, out, dy, shape, begin, end, strides):
    return (apply(P.StridedSlice, [g], {"begin": begin, "end": end, "strides": strides}),)


@defgrad(P.Gather)
def _gather(g, out, x, indices, axis=0):
    return apply(P.GatherGrad, [g, indices], {"shape": _shape(x), "axis": axis}), None


@defgrad(P.GatherGrad)
def _gather_grad(g, out, dy, indices, shape, axis=0):
    return apply(P.Gather, [g, indices], {"axis": axis}), None


# ---- products -----------------------------------------------------------------------------------
def _product_grad(op):
    def rule(g, out, a, b, transpose_a=False, transpose_b=False):
        # out = op(a) @ op(b): BLAS reads the transposes through its flags, nothing is copied;
        # complex operands: g @ conj(b)^T and conj(a)^T @ g, as Mul's g * conj(y)
        a, b = _cj(a), _cj(b)
        if transpose_a:
            da = apply(op, [b, g], {"transpose_a": transpose_b, "transpose_b": True})
        else:
            da = apply(op, [g, b], {"transpose_a": False, "transpose_b": not transpose_b})
        if transpose_b:
            db = apply(op, [g, a], {"transpose_a": True, "transpose_b": transpose_a})
        else:
            db = apply(op, [a, g], {"transpose_a": not transpose_a, "transpose_b": False})
        return da, db
    return rule


defgrad(P.MatMul)(_product_grad(P.MatMul))
defgrad(P.BatchMatMul)(_product_grad(P.BatchMatMul))


# ---- effects and structure ------------------------------------------------------------------------
@defgrad(P.Load)
def _load(g, out, ref):
    return (g,)         # the Parameter's gradient is taken at its load


@defgrad(P.TensorMove)
def _tensor_move(g, out, x):
    return (g,)


@defgrad(P.Depend)
def _depend(g, out, value, expr):
    return g, None
