"""Primitives MindSpore's CPU op tests reach through its private modules (issue 33, fix33):
`ops.auto_generate.CdistGrad`, `ops.operations.UpdateCache`, `ops.Assert`, and
`ops.operations._embedding_cache_ops.SubAndFilter`. Each is a decomposition; the values are the
wheel's, recorded in tests/oracle/data/fix33_names.json (tests/ops/test_fix33_names.py).
"""
from __future__ import annotations

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpRuntimeError, OpTypeError, apply
from pycompile.ops.entry import FLOAT, Arg, op_entry


def _prim(name, args):
    def declare(fn):
        return op_entry(f"fix33_{name}", primitive=name, functional=False, args=args)(fn)
    return declare


def _const(arr):
    return Tensor._wrap(np.array(arr, order="C"))


@_prim("CdistGrad", [Arg("grad", dtypes=FLOAT), Arg("x1", dtypes=FLOAT), Arg("x2", dtypes=FLOAT),
                     Arg("dist", dtypes=FLOAT), Arg("p", "value", default=2.0, init=True)])
def _cdist_grad(grad, x1, x2, dist, p=2.0):
    """The gradient of cdist(x1, x2, p) with respect to x1, given the cotangent `grad` and the
    forward's `dist` (B, P, R): sum over r of grad * d dist / d x1, MindSpore's CPU kernel's cases -
    p = 1: sign(diff); p = 2: diff / dist; p = inf: sign(diff) where |diff| is the distance (every
    tied coordinate); else diff |diff|^(p-2) / dist^(p-1); 0 where dist is 0, and 0 for p < 1 (its
    kernel computes nothing there)."""
    p = float(p)
    diff = F.sub(F.expand_dims(x1, -2), F.expand_dims(x2, -3))          # (B, P, R, M)
    g = F.expand_dims(grad, -1)
    d = F.expand_dims(dist, -1)
    zero = F.zeros_like(diff)
    if p < 1.0:
        return F.zeros_like(x1)
    if p == 1.0:
        term = ops.sign(diff)
    elif p == 2.0:
        term = F.select(F.equal(F.broadcast_to(d, tuple(diff.shape)), 0.0), zero, F.div(diff, d))
    elif np.isinf(p):
        term = F.select(F.equal(F.abs(diff), F.broadcast_to(d, tuple(diff.shape))), ops.sign(diff), zero)
    else:
        safe = F.select(F.equal(d, 0.0), F.ones_like(d), d)
        term = F.div(F.mul(diff, F.pow(F.abs(diff), p - 2.0)), F.pow(safe, p - 1.0))
        term = F.select(F.equal(F.broadcast_to(d, tuple(diff.shape)), 0.0), zero, term)
    return ops.sum(F.mul(g, term), -2)


@_prim("UpdateCache", [Arg("input_x"), Arg("indices", dtypes=frozenset({mstype.int32, mstype.int64})),
                       Arg("updates"), Arg("max_num", "value")])
def _update_cache(input_x, indices, updates, max_num):
    """Row indices[i] of the cache Parameter input_x takes updates[i], in order, for the indices in
    [0, max_num) (the others, -1 among them, are skipped); returns Int32 [0], as MindSpore's CPU
    kernel."""
    idx = F.reshape(indices, (-1,))
    n = idx.shape[0]
    rows = F.reshape(updates, (n,) + tuple(input_x.shape[1:]))
    limit = min(int(max_num), int(input_x.shape[0]))
    keep = F.logical_and(F.ge(idx, 0), F.lt(idx, limit))
    # a skipped index writes past the end of a one-row-longer buffer, which is then cut off
    target = F.reshape(F.select(keep, idx, F.fill(idx.dtype, (n,), int(input_x.shape[0]))), (n, 1))
    pad = F.zeros((1,) + tuple(input_x.shape[1:]), input_x.dtype)
    grown = apply(P.TensorScatterUpdate, [F.concat((input_x, pad), 0), target, rows])
    F.assign(input_x, F.getitem(grown, slice(0, int(input_x.shape[0]))))
    return _const(np.zeros((1,), np.int32))


@_prim("SubAndFilter", [Arg("input_x", dtypes=frozenset({mstype.int32, mstype.int64})),
                        Arg("max_num", "value"), Arg("offset", "value")])
def _sub_and_filter(input_x, max_num, offset):
    """(x - offset for the elements with 0 <= x - offset < max_num, their positions in x): both of a
    length known only when the graph runs in graph code (ops/dynamic_length.py)."""
    y = F.sub(input_x, int(offset))
    keep = F.logical_and(F.ge(y, 0), F.lt(y, int(max_num)))
    n = int(np.prod(input_x.shape))
    positions = F.cast(_const(np.arange(n)), input_x.dtype)
    return ops.masked_select(y, keep), ops.masked_select(positions, keep)


def _summary(data, summarize):
    parts = []
    for t in data:
        arr = np.asarray(t.asnumpy() if isinstance(t, TensorMethods) else t).reshape(-1)[:summarize]
        parts.append(f"input data: {arr}")
    return parts


@_prim("Assert", [Arg("condition", "value"), Arg("input_data", "value"), Arg("summarize", "value", default=3,
                                                                              init=True)])
def _assert(condition, input_data, summarize=3):
    """Raise RuntimeError('assert failed') when condition is False, printing the first `summarize`
    elements of each input_data tensor as MindSpore does; returns Int32 [0]. A condition known only
    when the graph runs is checked then (the error names the user's line)."""
    if not isinstance(input_data, (list, tuple)):
        raise OpTypeError(f"For 'Assert', 'input_data' must be a list or tuple of Tensors, but got "
                          f"{type(input_data).__name__}.")
    if isinstance(condition, Symbolic):
        ok = F.all(F.cast(condition, mstype.bool_))
        flag = F.select(ok, _const(np.float32(0)), _const(np.float32(np.inf)))
        flag = apply(P.CheckFinite, [flag], {"message": "assert failed: For 'Assert' condition is false."})
        return F.depend(_const(np.zeros((1,), np.int32)), flag)
    cond = condition.asnumpy() if isinstance(condition, TensorMethods) else np.asarray(condition)
    if not bool(np.all(cond)):
        print("For 'Assert' condition is false.")
        for line in _summary(input_data, int(summarize)):
            print(line)
        raise OpRuntimeError("assert failed")
    return _const(np.zeros((1,), np.int32))


# ---- FusedAdaFactor ------------------------------------------------------------------------------
_ADA_ARGS = [Arg("epsilon", "value"), Arg("clip_threshold", "tensor|number"), Arg("beta1", "tensor|number"),
             Arg("beta2", "tensor|number"), Arg("weight_decay", "tensor|number"), Arg("learning_rate", "tensor|number"),
             Arg("gradient"), Arg("param"), Arg("exp_avg"), Arg("exp_avg_sq_row"), Arg("exp_avg_sq_col"),
             Arg("exp_avg_sq")]
_ADA_FLAGS = [Arg("enable_scale_parameter", "value", default=False, init=True),
              Arg("enable_first_moment", "value", default=False, init=True),
              Arg("enable_weight_decay", "value", default=False, init=True)]


def _ada_factor(eps, clip, beta1, beta2t, wd, lr, grad, param, exp_avg, row_p, col_p, sq_p, global_norm,
                scale_parameter, first_moment, weight_decay):
    """One Adafactor step with beta2t given (nn.AdaFactor's rule, which computes beta2t and the
    learning rate from its step count): u = g^2 + eps1; a matrix keeps row / column means of u and
    scales g by their rsqrt product (rows normalized by their mean), a vector keeps exp_avg_sq; the
    update is clipped to RMS clip_threshold, times lr (times max(eps2, RMS(param)) with
    enable_scale_parameter), averaged into exp_avg (enable_first_moment); param -= update (after
    param -= wd lr' param with enable_weight_decay). With a global norm, the gradient is divided by
    it first (whatever its size, as the wheel's kernel)."""
    f32 = mstype.float32
    g = F.cast(grad, f32)
    if global_norm is not None:
        g = F.div(g, F.cast(global_norm, f32) if isinstance(global_norm, TensorMethods) else float(global_norm))
    p32 = F.cast(param, f32)
    b2 = F.cast(beta2t, f32) if isinstance(beta2t, TensorMethods) else float(beta2t)
    lr = F.cast(lr, f32) if isinstance(lr, TensorMethods) else float(lr)
    rate = F.mul(lr, F.maximum(F.sqrt(ops.mean(F.mul(p32, p32))), float(eps[1]))) if scale_parameter else lr
    u = F.add(F.mul(g, g), float(eps[0]))
    one_b2 = F.sub(1.0, b2)
    if param.ndim > 1:
        row = F.add(F.mul(F.cast(row_p, f32), b2), F.mul(ops.mean(u, -1), one_b2))
        col = F.add(F.mul(F.cast(col_p, f32), b2), F.mul(ops.mean(u, -2), one_b2))
        F.assign(row_p, F.cast(row, row_p.dtype))
        F.assign(col_p, F.cast(col, col_p.dtype))
        r_factor = F.expand_dims(F.div(1.0, F.sqrt(F.div(row, ops.mean(row, -1, True)))), -1)
        update = F.mul(F.mul(r_factor, F.div(1.0, F.sqrt(F.expand_dims(col, -2)))), g)
    else:
        avg = F.add(F.mul(F.cast(sq_p, f32), b2), F.mul(u, one_b2))
        F.assign(sq_p, F.cast(avg, sq_p.dtype))
        update = F.mul(F.div(1.0, F.sqrt(avg)), g)
    coeff = F.maximum(F.div(F.sqrt(ops.mean(F.mul(update, update))), clip), 1.0)
    update = F.mul(F.div(update, coeff), rate)
    if first_moment:
        avg1 = F.add(F.mul(F.cast(exp_avg, f32), beta1), F.mul(update, F.sub(1.0, beta1)))
        F.assign(exp_avg, F.cast(avg1, exp_avg.dtype))
        update = avg1
    if weight_decay:
        p32 = F.add(p32, F.mul(F.mul(p32, F.neg(wd) if isinstance(wd, TensorMethods) else -float(wd)), rate))
    new = F.assign(param, F.cast(F.sub(p32, update), param.dtype))
    # the kernel's one output is zeros of param's shape (the wheel's), after the update
    return (F.depend(F.zeros(tuple(param.shape), param.dtype), new),)


@_prim("FusedAdaFactor", _ADA_ARGS + _ADA_FLAGS)
def _fused_ada_factor(epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, gradient, param,
                      exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, enable_scale_parameter=False,
                      enable_first_moment=False, enable_weight_decay=False):
    """MindSpore's fused Adafactor step on the Parameters (_ada_factor); returns (zeros like param,)."""
    return _ada_factor(epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, gradient, param, exp_avg,
                       exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, None, enable_scale_parameter,
                       enable_first_moment, enable_weight_decay)


@_prim("FusedAdaFactorWithGlobalNorm", _ADA_ARGS + [Arg("global_norm", "tensor|number")] + _ADA_FLAGS)
def _fused_ada_factor_global_norm(epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, gradient, param,
                                  exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, global_norm,
                                  enable_scale_parameter=False, enable_first_moment=False, enable_weight_decay=False):
    """FusedAdaFactor with the gradient divided by global_norm first."""
    return _ada_factor(epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, gradient, param, exp_avg,
                       exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, global_norm, enable_scale_parameter,
                       enable_first_moment, enable_weight_decay)
