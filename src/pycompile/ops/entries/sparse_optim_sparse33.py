"""The sparse optimizer-update Primitives (`ops.SparseApplyAdagrad(lr)(var, accum, grad, indices)`,
`ops.FusedSparseAdam()(var, m, v, ..., grad, indices)`, ...): row `indices[i]` of var and its slots
is updated with row `i` of grad, each slot written into its Parameter (an Assign, as the dense
`Apply*` Primitives of operations_optim.py), the new values returned.

Duplicate indices follow MindSpore 2.10's CPU kernels, which differ by op:

* **summed** (FusedSparseAdam / LazyAdam / Ftrl / ProximalAdagrad, SparseApplyAdagrad): the rows of
  grad that share an index are added first, then the row is updated once. Written densely: the
  summed gradient is `unsorted_segment_sum(grad, indices, N)` and rows no index names keep their
  values (FusedSparseAdam updates every row, as its kernel: m and v decay everywhere);
* **in turn** (SparseApplyAdagradV2, SparseApplyFtrl, SparseApplyRMSProp): each index updates its
  row one after the other, in order. Written as one masked dense step per index (graph code
  unrolls over the static number of indices).

Indices of run-time length (MindSpore's dynamic-shape tests: `gather(grad, unique(i)[0], 0)` and
the same rows of indices) are padded with N (dynamic_length.padded_rows), so their padding updates
nothing. Indices outside [0, N) update nothing (MindSpore's SparseApplyAdagrad skips them; its AdagradV2
kernel aborts the process). SparseApplyFtrlV2, SparseApplyProximalAdagrad and SparseApplyAdadelta
have no CPU kernel in MindSpore 2.10 ("Unsupported op ... on CPU"): pycompile runs them with the
formulas of their dense forms, duplicates summed (ProximalAdagrad, Adadelta) or in turn (FtrlV2,
as SparseApplyFtrl). Values recorded from the wheel: tests/conformance/cases_sparse33.py.
"""
from __future__ import annotations

import functools

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.dynamic_length import Bounded, padded_rows
from pycompile.ops.entry import REQUIRED, Arg, op_entry
from pycompile.ops.operations_optim import _prox

_F16_32 = frozenset({mstype.float16, mstype.float32})
_F32 = frozenset({mstype.float32})
_I32_64 = frozenset({mstype.int32, mstype.int64})
_I32 = frozenset({mstype.int32})


def _v(name, default=REQUIRED):
    """A constructor attribute (MindSpore's prim_init)."""
    return Arg(name, "value", default=default, init=True)


def _t(name, dtypes=None):
    return Arg(name, "tensor", dtypes=dtypes)


def _n(name):
    return Arg(name, "tensor|number")


def _check(op, var, slots, grad, indices):
    """MindSpore's shape checks of a sparse update (ValueError, as its infer functions)."""
    for name, s in slots.items():
        if tuple(s.shape) != tuple(var.shape):
            raise OpValueError(f"For primitive[{op}], the var shape must be equal to {name} shape, "
                               f"but got var shape {list(var.shape)} and {name} shape {list(s.shape)}.")
        if s.dtype != var.dtype:
            raise OpTypeError(f"For primitive[{op}], the dtype of {name} must be the same as var's "
                              f"({var.dtype}), but got {s.dtype}.")
    if grad.dtype != var.dtype:
        raise OpTypeError(f"For primitive[{op}], the dtype of grad must be the same as var's ({var.dtype}), "
                          f"but got {grad.dtype}.")
    if indices.ndim != 1:
        raise OpValueError(f"For primitive[{op}], the indices rank must be equal to 1, but got {indices.ndim}.")
    if grad.ndim < 1:
        raise OpValueError(f"For primitive[{op}], the grad rank must be greater than or equal to 1, "
                           f"but got {grad.ndim}.")
    if grad.shape[0] != indices.shape[0]:
        raise OpValueError(f"For primitive[{op}], the grad_shape[0] must be equal to indices_shape[0], "
                           f"but got grad_shape[0]: {grad.shape[0]}, indices_shape[0]: {indices.shape[0]}.")
    if tuple(grad.shape[1:]) != tuple(var.shape[1:]):
        raise OpValueError(f"For primitive[{op}], the var_shape[1:] must be equal to grad_shape[1:], "
                           f"but got var_shape: {list(var.shape)}, grad_shape: {list(grad.shape)}.")


def _scalar(x, like, op, name):
    """A learning rate / decay given as a number or a scalar Tensor, in var's dtype (the kernels
    compute in it: 1 - beta1 is rounded in float32)."""
    if isinstance(x, TensorMethods):
        if x.size != 1:
            raise OpValueError(f"For primitive[{op}], '{name}' must be a scalar, but got shape {list(x.shape)}.")
        return F.cast(F.reshape(x, ()), like.dtype)
    if isinstance(x, bool) or not isinstance(x, (int, float, np.number)):
        raise OpTypeError(f"For primitive[{op}], '{name}' must be a number or a Tensor, but got {type(x).__name__}.")
    return F.fill(like.dtype, (), float(np.asarray(x, like.dtype.np)))


def _rows(mask_1d, like):
    """A (N,) bool mask shaped to broadcast over like's rows."""
    return F.reshape(mask_1d, (like.shape[0],) + (1,) * (like.ndim - 1))


def _summed(var, grad, indices):
    """The gradient with duplicate rows added, shaped as var, and the mask of rows an index names."""
    n = var.shape[0]
    valid = F.logical_and(F.ge(indices, 0), F.lt(indices, n))     # an index outside [0, N) updates nothing
    safe = F.select(valid, indices, F.zeros_like(indices))
    g = F.unsorted_segment_sum(F.mul(grad, F.cast(_rows(valid, grad), grad.dtype)), safe, n)
    hit = F.unsorted_segment_sum(F.cast(valid, mstype.float32), safe, n)
    return g, _rows(F.gt(hit, 0.0), var)


def _in_turn(var, grad, indices, state, step):
    """Apply `step(state, g)` (state: a tuple of tensors shaped as var, g: one grad row broadcast to
    var's shape) once per index, in order, to the row it names."""
    ids = F.arange(0, var.shape[0], 1, dtype=indices.dtype)
    for k in range(indices.shape[0]):
        mask = _rows(F.equal(ids, indices[k]), var)
        new = step(state, F.broadcast_to(grad[k], tuple(var.shape)))
        state = tuple(F.select(F.broadcast_to(mask, tuple(var.shape)), a, b) for a, b in zip(new, state))
    return state


def _keep(mask, new, old):
    return F.select(F.broadcast_to(mask, tuple(old.shape)), new, old)


def _write(*pairs):
    return tuple(F.assign(p, v) for p, v in pairs)


def _useless(new):
    """The Fused* kernels' outputs ("useless", MindSpore's docs say): var's new value, then zeros
    for the slots, as MindSpore 2.10 returns them."""
    return (new[0],) + tuple(F.zeros_like(t) for t in new[1:])


def _prim(name, args):
    def declare(fn):
        @functools.wraps(fn)
        def impl(**kw):
            if isinstance(kw.get("indices"), Bounded):
                kw["grad"], kw["indices"] = padded_rows(kw.get("grad"), kw["indices"], kw["var"].shape[0], name)
            return fn(**kw)
        return op_entry(f"sparse33_{name}", primitive=name, functional=False, args=args)(impl)
    return declare


# ---- duplicates summed ---------------------------------------------------------------------------
@_prim("SparseApplyAdagrad", [_t("var", _F16_32), _t("accum", _F16_32), _t("grad", _F16_32),
                              _t("indices", _I32_64), _v("lr"), _v("update_slots", True), _v("use_locking", False)])
def _sparse_apply_adagrad(var, accum, grad, indices, lr, update_slots=True, use_locking=False):
    """accum += g^2 (update_slots); var -= lr g / sqrt(accum), on the rows indices name."""
    _check("SparseApplyAdagrad", var, {"accum": accum}, grad, indices)
    if isinstance(lr, bool) or not isinstance(lr, (int, float)):
        raise OpTypeError(f"For 'SparseApplyAdagrad', the type of 'lr' must be float, but got {type(lr).__name__}.")
    g, hit = _summed(var, grad, indices)
    acc = F.add(accum, F.mul(g, g)) if update_slots else accum
    new_var = F.sub(var, F.div(F.mul(_scalar(lr, var, "SparseApplyAdagrad", "lr"), g), F.sqrt(acc)))
    return _write((var, _keep(hit, new_var, var)), (accum, _keep(hit, acc, accum)))


def _prox_adagrad(op, var, accum, lr, l1, l2, grad, indices):
    _check(op, var, {"accum": accum}, grad, indices)
    lr, l1, l2 = (_scalar(x, var, op, n) for x, n in ((lr, "lr"), (l1, "l1"), (l2, "l2")))
    g, hit = _summed(var, grad, indices)
    acc = F.add(accum, F.mul(g, g))
    rate = F.div(lr, F.sqrt(acc))
    new_var = _prox(F.sub(var, F.mul(g, rate)), rate, l1, l2)
    return _write((var, _keep(hit, new_var, var)), (accum, _keep(hit, acc, accum)))


@_prim("FusedSparseProximalAdagrad", [_t("var", _F32), _t("accum", _F32), _n("lr"), _n("l1"), _n("l2"),
                                      _t("grad", _F32), _t("indices", _I32), _v("use_locking", False)])
def _fused_prox_adagrad(var, accum, lr, l1, l2, grad, indices, use_locking=False):
    """accum += g^2; var = prox(var - g lr / sqrt(accum)), on the rows indices name."""
    return _useless(_prox_adagrad("FusedSparseProximalAdagrad", var, accum, lr, l1, l2, grad, indices))


@_prim("SparseApplyProximalAdagrad", [_t("var", _F16_32), _t("accum", _F16_32), _n("lr"), _n("l1"), _n("l2"),
                                      _t("grad", _F16_32), _t("indices", _I32_64), _v("use_locking", False)])
def _sparse_prox_adagrad(var, accum, lr, l1, l2, grad, indices, use_locking=False):
    """FusedSparseProximalAdagrad's update for float16 / float32 (MindSpore 2.10 has no CPU kernel)."""
    return _prox_adagrad("SparseApplyProximalAdagrad", var, accum, lr, l1, l2, grad, indices)


def _ftrl_step(var, accum, linear, g, lr, l1, l2, lr_power, l2_shrinkage=None):
    """FTRL-proximal on dense values. The sparse kernels use the textbook sign(linear) l1 - linear
    (MindSpore's dense ApplyFtrl kernel uses l1 - linear: operations_optim.ApplyFtrl)."""
    acc_new = F.add(accum, F.mul(g, g))
    neg_p = F.neg(lr_power)
    sigma = F.div(F.sub(F.pow(acc_new, neg_p), F.pow(accum, neg_p)), lr)
    g_lin = g if l2_shrinkage is None else F.add(g, F.mul(F.mul(l2_shrinkage, 2.0), var))
    lin = F.sub(F.add(linear, g_lin), F.mul(sigma, var))
    quad = F.add(F.div(F.pow(acc_new, neg_p), lr), F.mul(l2, 2.0))
    var_new = F.select(F.gt(F.abs(lin), l1), F.div(F.sub(F.mul(F.sign(lin), l1), lin), quad), F.zeros_like(var))
    return var_new, acc_new, lin


@_prim("FusedSparseFtrl", [_t("var", _F32), _t("accum", _F32), _t("linear", _F32), _t("grad", _F32),
                           _t("indices", _I32), _v("lr"), _v("l1"), _v("l2"), _v("lr_power"), _v("use_locking", False)])
def _fused_ftrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power, use_locking=False):
    """FTRL on the rows indices name, duplicate rows of grad summed."""
    op = "FusedSparseFtrl"
    _check(op, var, {"accum": accum, "linear": linear}, grad, indices)
    g, hit = _summed(var, grad, indices)
    new = _ftrl_step(var, accum, linear, g, *(_scalar(x, var, op, n) for x, n in
                                             ((lr, "lr"), (l1, "l1"), (l2, "l2"), (lr_power, "lr_power"))))
    return _useless(_write(*((p, _keep(hit, v, p)) for p, v in zip((var, accum, linear), new))))


def _adam(op, lazy, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices, use_nesterov):
    _check(op, var, {"m": m, "v": v}, grad, indices)
    b1p, b2p, lr, b1, b2, eps = (_scalar(x, var, op, n) for x, n in (
        (beta1_power, "beta1_power"), (beta2_power, "beta2_power"), (lr, "lr"), (beta1, "beta1"),
        (beta2, "beta2"), (epsilon, "epsilon")))
    g, hit = _summed(var, grad, indices)
    one_b1, one_b2 = F.sub(1.0, b1), F.sub(1.0, b2)
    m_new = F.add(F.mul(m, b1), F.mul(g, one_b1))
    v_new = F.add(F.mul(v, b2), F.mul(F.mul(g, g), one_b2))
    # nesterov: the kernel's m_t is m b1 + (1 - b1) g on the rows indices name and 0 elsewhere
    m_use = _keep(hit, F.add(F.mul(m_new, b1), F.mul(g, one_b1)), F.zeros_like(m)) if use_nesterov else m_new
    lr_t = F.div(F.mul(lr, F.sqrt(F.sub(1.0, b2p))), F.sub(1.0, b1p))
    var_new = F.sub(var, F.div(F.mul(lr_t, m_use), F.add(F.sqrt(v_new), eps)))
    if lazy:
        return _useless(_write((var, _keep(hit, var_new, var)), (m, _keep(hit, m_new, m)), (v, _keep(hit, v_new, v))))
    return _useless(_write((var, var_new), (m, m_new), (v, v_new)))


_ADAM_ARGS = [_t("var", _F32), _t("m", _F32), _t("v", _F32), _n("beta1_power"), _n("beta2_power"), _n("lr"),
              _n("beta1"), _n("beta2"), _n("epsilon"), _t("grad", _F32), _t("indices", _I32),
              _v("use_locking", False), _v("use_nesterov", False)]


@_prim("FusedSparseAdam", _ADAM_ARGS)
def _fused_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices,
                use_locking=False, use_nesterov=False):
    """Adam with the summed sparse gradient (zero on rows no index names): m and v decay and var
    moves on every row."""
    return _adam("FusedSparseAdam", False, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                 grad, indices, use_nesterov)


@_prim("FusedSparseLazyAdam", _ADAM_ARGS)
def _fused_lazy_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices,
                     use_locking=False, use_nesterov=False):
    """Adam on the rows indices name only (duplicate rows of grad summed)."""
    return _adam("FusedSparseLazyAdam", True, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                 grad, indices, use_nesterov)


@_prim("SparseApplyAdadelta", [_t("var", _F16_32), _t("accum", _F16_32), _t("accum_update", _F16_32), _n("lr"),
                               _n("rho"), _t("grad", _F16_32), _t("indices", _I32_64), _v("epsilon"),
                               _v("use_locking", False)])
def _sparse_adadelta(var, accum, accum_update, lr, rho, grad, indices, epsilon, use_locking=False):
    """ApplyAdadelta on the rows indices name (MindSpore 2.10 has no CPU kernel)."""
    op = "SparseApplyAdadelta"
    _check(op, var, {"accum": accum, "accum_update": accum_update}, grad, indices)
    lr, rho, eps = _scalar(lr, var, op, "lr"), _scalar(rho, var, op, "rho"), _scalar(epsilon, var, op, "epsilon")
    g, hit = _summed(var, grad, indices)
    one_minus = F.sub(1.0, rho)
    acc = F.add(F.mul(rho, accum), F.mul(one_minus, F.mul(g, g)))
    update = F.div(F.mul(F.sqrt(F.add(accum_update, eps)), g), F.sqrt(F.add(acc, eps)))
    acc_up = F.add(F.mul(rho, accum_update), F.mul(one_minus, F.mul(update, update)))
    return _write((var, _keep(hit, F.sub(var, F.mul(lr, update)), var)), (accum, _keep(hit, acc, accum)),
                  (accum_update, _keep(hit, acc_up, accum_update)))


# ---- duplicates in turn --------------------------------------------------------------------------
@_prim("SparseApplyAdagradV2", [_t("var", _F16_32), _t("accum", _F16_32), _t("grad", _F16_32),
                                _t("indices", _I32_64), _v("lr"), _v("epsilon"), _v("use_locking", False),
                                _v("update_slots", True)])
def _sparse_apply_adagrad_v2(var, accum, grad, indices, lr, epsilon, use_locking=False, update_slots=True):
    """accum += g^2 (update_slots); var -= lr g / (sqrt(accum) + epsilon), index by index."""
    op = "SparseApplyAdagradV2"
    _check(op, var, {"accum": accum}, grad, indices)
    lr, eps = _scalar(lr, var, op, "lr"), _scalar(epsilon, var, op, "epsilon")

    def step(state, g):
        x, a = state
        a = F.add(a, F.mul(g, g)) if update_slots else a
        return F.sub(x, F.div(F.mul(lr, g), F.add(F.sqrt(a), eps))), a
    return _write(*zip((var, accum), _in_turn(var, grad, indices, (var, accum), step)))


def _ftrl_in_turn(op, var, accum, linear, grad, indices, lr, l1, l2, lr_power, l2_shrinkage=None):
    _check(op, var, {"accum": accum, "linear": linear}, grad, indices)
    hyper = tuple(_scalar(x, var, op, n) for x, n in ((lr, "lr"), (l1, "l1"), (l2, "l2"), (lr_power, "lr_power")))
    shrink = None if l2_shrinkage is None else _scalar(l2_shrinkage, var, op, "l2_shrinkage")

    def step(state, g):
        return _ftrl_step(*state, g, *hyper, l2_shrinkage=shrink)
    return _write(*zip((var, accum, linear), _in_turn(var, grad, indices, (var, accum, linear), step)))


@_prim("SparseApplyFtrl", [_t("var", _F16_32), _t("accum", _F16_32), _t("linear", _F16_32), _t("grad", _F16_32),
                           _t("indices", _I32_64), _v("lr"), _v("l1"), _v("l2"), _v("lr_power"),
                           _v("use_locking", False)])
def _sparse_apply_ftrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power, use_locking=False):
    """FTRL on the rows indices name, index by index."""
    return _ftrl_in_turn("SparseApplyFtrl", var, accum, linear, grad, indices, lr, l1, l2, lr_power)


@_prim("SparseApplyFtrlV2", [_t("var", _F16_32), _t("accum", _F16_32), _t("linear", _F16_32), _t("grad", _F16_32),
                             _t("indices", _I32_64), _v("lr"), _v("l1"), _v("l2"), _v("l2_shrinkage"),
                             _v("lr_power"), _v("use_locking", False)])
def _sparse_apply_ftrl_v2(var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power, use_locking=False):
    """FTRL with l2 shrinkage (linear sees g + 2 l2_shrinkage var), index by index (no MindSpore CPU
    kernel; the textbook sign(linear) l1 - linear)."""
    return _ftrl_in_turn("SparseApplyFtrlV2", var, accum, linear, grad, indices, lr, l1, l2, lr_power, l2_shrinkage)


@_prim("SparseApplyRMSProp", [_t("var", _F16_32), _t("ms", _F16_32), _t("mom", _F16_32), _n("lr"),
                              _t("grad", _F16_32), _t("indices", _I32_64), _v("rho"), _v("momentum"),
                              _v("epsilon"), _v("use_locking", False)])
def _sparse_apply_rms_prop(var, ms, mom, lr, grad, indices, rho, momentum, epsilon, use_locking=False):
    """ms = rho ms + (1 - rho) g^2 where g != 0 (the kernel leaves ms where the gradient is 0);
    mom = momentum mom + lr g / sqrt(ms + epsilon); var -= mom, index by index. float16 is computed
    in float32, each slot rounded to float16 as it is stored (the wheel's float16 results)."""
    op = "SparseApplyRMSProp"
    _check(op, var, {"ms": ms, "mom": mom}, grad, indices)
    wide = F.fill(mstype.float32, (), 0.0) if var.dtype == mstype.float16 else var
    lr = _scalar(lr, wide, op, "lr")
    rho_, mom_, eps = (_scalar(x, wide, op, n) for x, n in ((rho, "rho"), (momentum, "momentum"), (epsilon, "epsilon")))

    half = var.dtype == mstype.float16
    up = (lambda t: F.cast(t, mstype.float32)) if half else (lambda t: t)
    rnd = (lambda t: up(F.cast(t, mstype.float16))) if half else (lambda t: t)   # stored as float16

    def step(state, g):
        x, s, mo = state
        s = rnd(F.select(F.ne(g, 0.0), F.add(F.mul(s, rho_), F.mul(F.mul(g, g), F.sub(1.0, rho_))), s))
        mo = rnd(F.add(F.mul(mo, mom_), F.div(F.mul(lr, g), F.sqrt(F.add(s, eps)))))
        return rnd(F.sub(x, mo)), s, mo
    new = _in_turn(var, up(grad), indices, tuple(up(t) for t in (var, ms, mom)), step)
    return _write(*((p, F.cast(t, var.dtype)) for p, t in zip((var, ms, mom), new)))
