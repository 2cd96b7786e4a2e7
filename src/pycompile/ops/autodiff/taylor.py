"""MindSpore's higher-order forward transforms: `ops.jet`, `ops.derivative` and `ops.linearize`
(MindSpore 2.10's argument checks, words and result structures; recorded in
tests/conformance/cases_taylor.py).

`jet(fn, primals, series)` follows the path x(t) = x + s1 t + s2 t^2 / 2! + ... + sn t^n / n!
through `fn` (the series are the input's 1st to n-th derivatives along it) and returns fn(x) and
the 1st to n-th derivatives of fn(x(t)) at t = 0, stacked on a new first axis. MindSpore
propagates truncated Taylor series op by op; here the derivatives come from n nested forward-mode
jvps in the scalar t (each level returns the ones below it too), which is exact for the same
reason and needs no Taylor rule per op - every op with a forward-mode rule works - at the cost of
2^n evaluations of fn for n orders (fine for the few orders a jet is used with). The same code
runs eagerly and in graph code, where the compiler transforms the nested jvps.

`derivative(fn, primals, order)` is the jet with series (1, 0, ..., 0) - every input moved
together, x_i(t) = x_i + t - and returns the `order`-th derivative only. `linearize(fn, inputs)`
is (fn(*inputs), jvp_fn) with jvp_fn(v) = J v, the jvp of fn at `inputs`.
"""
from __future__ import annotations

import functools

from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.autodiff.transforms import _is_tensor, call, jvp

_JET_TYPES = (mstype.int32, mstype.int64, mstype.float32, mstype.float64)


def _float(x):
    return F.cast(x, mstype.float32) if x.dtype in (mstype.int32, mstype.int64) else x


def _check_jet_item(x, s):
    if x.dtype not in _JET_TYPES or x.dtype != s.dtype:
        raise OpTypeError("For `F.jet`, the elements' types of primals and series must be the same and belong to "
                          "`mstype.int32, mstype.int64, mstype.float32, mstype.float64`, but got other dtype.")
    return _float(x), _float(s)


def _check_jet_inputs(primals, series):
    """MindSpore's checks: primals and series both a Tensor (series with a leading axis of orders, or
    one order of the primal's shape) or both a tuple of as many."""
    if not ((_is_tensor(primals) and _is_tensor(series)) or (isinstance(primals, tuple) and isinstance(series, tuple))):
        raise OpTypeError("For 'F.jet', the 'primals' and `series` must be both Tensor or tuple.")
    if _is_tensor(primals):
        if tuple(primals.shape) == tuple(series.shape[1:]):
            return [_check_jet_item(primals, series)]
        if tuple(primals.shape) == tuple(series.shape):
            return [_check_jet_item(primals, F.expand_dims(series, 0))]
        raise OpValueError("In series, the shape of each element must be the same as the primals.")
    if len(primals) != len(series):
        raise OpValueError("The lengths of primals and series must be the same.")
    return [_check_jet_item(x, s) for x, s in zip(primals, series)]


def _taylor(fn, items, n):
    """[D_0, ..., D_n]: D_k the tuple of fn's outputs' k-th derivatives along the path of `items`
    ((x, series) pairs) at t = 0 (module text)."""
    def level0(t):
        xs = []
        for x, s in items:
            tt, v, fact, power = F.cast(t, x.dtype), x, 1.0, None     # v = x + sum s_k t^k / k!
            for k in range(1, n + 1):
                fact *= k
                power = tt if power is None else power * tt
                v = v + s[k - 1] * (power * (1.0 / fact))
            xs.append(v)
        out = call(fn, tuple(xs))
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    def lift(inner, k):
        # (D_0 .. D_{k-1}, D_k): the values of `inner` and the last of their tangents in t
        def level(t):
            vals, tans = jvp(inner, (t,), (Tensor(1.0, mstype.float32),))
            m = len(vals) // k
            return tuple(vals) + tuple(tans[len(tans) - m:])
        return level

    level, t0 = level0, Tensor(0.0, mstype.float32)
    for k in range(1, n + 1):
        level = lift(level, k)
    flat = level(t0)
    m = len(flat) // (n + 1)
    return [flat[k * m:(k + 1) * m] for k in range(n + 1)]


def _results(ds, series_of):
    """MindSpore's result: (output, its series) for one output, lists of them for several."""
    outs = [tuple(d[j] for d in ds) for j in range(len(ds[0]))]
    if len(outs) == 1:
        return outs[0][0], series_of(outs[0])
    return [o[0] for o in outs], [series_of(o) for o in outs]


def jet(fn, primals, series):
    """ops.jet (module text): (fn(primals), the 1st to n-th derivatives of fn along the path the
    series give, stacked on a new first axis); lists when fn has several outputs."""
    items = _check_jet_inputs(primals, series)
    n = int(items[0][1].shape[0])
    if any(int(s.shape[0]) != n for _, s in items):
        raise OpValueError("For 'F.jet', every input's series must have as many orders.")
    ds = _taylor(fn, items, n)
    return _results(ds, lambda o: F.stack(list(o[1:]), 0))


def derivative(fn, primals, order):
    """ops.derivative (module text): (fn(primals), its `order`-th derivative with every input moved
    at unit speed); lists when fn has several outputs."""
    if not isinstance(order, int) or isinstance(order, bool):
        raise OpTypeError("For `F.derivative`, the type of order must be int.")
    if order < 1:
        raise OpValueError(f"For `F.derivative`, value of order should not be less than 1, but got {order}.")
    xs = primals if isinstance(primals, tuple) else (primals,)
    items = []
    for x in xs:
        if not _is_tensor(x) or x.dtype not in _JET_TYPES:
            raise OpTypeError("For `F.derivative`, the elements of primals must belong to "
                              "`mstype.int32, mstype.int64, mstype.float32, mstype.float64`, but got other dtype.")
        x = _float(x)
        unit = F.ones((1,) + tuple(x.shape), x.dtype)
        rest = [F.zeros((order - 1,) + tuple(x.shape), x.dtype)] if order > 1 else []
        items.append((x, F.concat([unit] + rest, 0)))
    return _results(_taylor(fn, items, order), lambda o: o[-1])


def linearize(fn, inputs):
    """ops.linearize: (fn(*inputs), jvp_fn), jvp_fn(v) = J v at `inputs` (v: a Tensor for one input,
    a tuple or list of them for several)."""
    if not (_is_tensor(inputs) or isinstance(inputs, (tuple, list))):
        raise OpTypeError("The inputs type must be a Tensor, tuple or list of Tensors.")
    ins = (inputs,) if _is_tensor(inputs) else tuple(inputs)
    output = call(fn, ins)
    return output, functools.partial(_linear, fn, ins)


def _linear(fn, ins, v):
    vs = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if len(ins) == 1 and isinstance(v, (tuple, list)):
        raise OpTypeError("Type Join Failed: Abstract type AbstractTuple cannot join with AbstractTensor.")
    return jvp(fn, ins, vs)[1]
