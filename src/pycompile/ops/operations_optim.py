"""MindSpore's optimizer-update Primitives (`ops.ApplyGradientDescent()(var, alpha, delta)`,
`ops.ApplyAdagrad()(var, accum, lr, grad)`, ...): each computes the update with table ops and
writes var and its slots into their Parameters (an Assign each, ordered like any Parameter
update), returning the new values as MindSpore does. The formulas are MindSpore 2.10's CPU
kernels' (checked against the wheel: tests/conformance/cases_scatter.py)."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops.primitive import Primitive


def _prox(prox_v, alpha, l1, l2):
    """The proximal step: sign(v) max(|v| - alpha l1, 0) / (1 + alpha l2)."""
    shrunk = F.mul(F.sign(prox_v), F.maximum(F.sub(F.abs(prox_v), F.mul(alpha, l1)), 0.0))
    return F.div(shrunk, F.add(F.mul(alpha, l2), 1.0))


def _write(*pairs):
    """Assign each (Parameter, value); the Parameters' new values."""
    out = tuple(F.assign(p, v) for p, v in pairs)
    return out if len(out) > 1 else out[0]


class _Apply(Primitive):
    _params: dict = {}

    def __init__(self, *args, **kwargs):
        super().__init__()
        values = dict(self._params)
        values.update(zip(self._params, args))
        for k, v in kwargs.items():
            if k not in self._params:
                raise TypeError(f"For '{self.name}', unknown constructor argument '{k}'")
            values[k] = v
        for k, v in values.items():
            setattr(self, k, v)


class ApplyGradientDescent(_Apply):
    """var -= alpha * delta."""

    def __call__(self, var, alpha, delta):
        return _write((var, F.sub(var, F.mul(alpha, delta))))


class ApplyProximalGradientDescent(_Apply):
    """var = prox(var - alpha * delta) with the l1 / l2 terms."""

    def __call__(self, var, alpha, l1, l2, delta):
        return _write((var, _prox(F.sub(var, F.mul(alpha, delta)), alpha, l1, l2)))


class ApplyAdagrad(_Apply):
    """accum += grad^2 (update_slots); var -= lr * grad / sqrt(accum)."""
    _params = {"update_slots": True}

    def __call__(self, var, accum, lr, grad):
        acc = F.add(accum, F.square(grad)) if self.update_slots else accum
        return _write((var, F.sub(var, F.div(F.mul(lr, grad), F.sqrt(acc)))), (accum, acc))


class ApplyAdagradV2(_Apply):
    """accum += grad^2 (update_slots); var -= lr * grad / (sqrt(accum) + epsilon).

    MindSpore 2.10's CPU kernel is float32 only: a Float16 / Float64 var is computed in float32
    (every input cast to float32 first) and the results cast back to var's dtype, so a Float64
    update carries float32 rounding (tests/ops/test_fix33_wrong_values.py, from the wheel).
    MindSpore then also leaves such Parameters unwritten (its fallback updates a cast copy);
    pycompile writes them."""
    _params = {"epsilon": 1e-6, "update_slots": True}

    def __call__(self, var, accum, lr, grad):
        out_dtype = getattr(var, "dtype", None)
        if out_dtype in (mstype.float16, mstype.float64):
            var32, accum32, lr, grad = (F.cast(t, mstype.float32) for t in (var, accum, lr, grad))
        else:
            var32, accum32 = var, accum
        acc = F.add(accum32, F.square(grad)) if self.update_slots else accum32
        step = F.div(F.mul(lr, grad), F.add(F.sqrt(acc), self.epsilon))
        new_var = F.sub(var32, step)
        if var32 is not var:
            new_var, acc = F.cast(new_var, out_dtype), F.cast(acc, out_dtype)
        return _write((var, new_var), (accum, acc))


class ApplyProximalAdagrad(_Apply):
    """accum += grad^2; with the per-element rate a = lr / sqrt(accum), var = prox(var - a grad)
    with the l1 / l2 terms scaled by a."""
    _params = {"use_locking": False}

    def __call__(self, var, accum, lr, l1, l2, grad):
        acc = F.add(accum, F.square(grad))
        rate = F.div(lr, F.sqrt(acc))
        return _write((var, _prox(F.sub(var, F.mul(rate, grad)), rate, l1, l2)), (accum, acc))


class ApplyAdadelta(_Apply):
    """accum = rho accum + (1 - rho) g^2; update = sqrt(accum_update + eps) g / sqrt(accum + eps);
    accum_update = rho accum_update + (1 - rho) update^2; var -= lr update."""
    _params = {"use_locking": False}

    def __call__(self, var, accum, accum_update, lr, rho, epsilon, grad):
        one_minus = F.sub(1.0, rho)
        acc = F.add(F.mul(rho, accum), F.mul(one_minus, F.square(grad)))
        update = F.div(F.mul(F.sqrt(F.add(accum_update, epsilon)), grad), F.sqrt(F.add(acc, epsilon)))
        acc_up = F.add(F.mul(rho, accum_update), F.mul(one_minus, F.square(update)))
        return _write((var, F.sub(var, F.mul(lr, update))), (accum, acc), (accum_update, acc_up))


class ApplyAdaMax(_Apply):
    """m = b1 m + (1 - b1) g; v = max(b2 v, |g|); var -= lr / (1 - beta1_power) * m / (v + eps)."""

    def __call__(self, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
        m_new = F.add(F.mul(beta1, m), F.mul(F.sub(1.0, beta1), grad))
        v_new = F.maximum(F.mul(beta2, v), F.abs(grad))
        step = F.mul(F.div(lr, F.sub(1.0, beta1_power)), F.div(m_new, F.add(v_new, epsilon)))
        return _write((var, F.sub(var, step)), (m, m_new), (v, v_new))


class ApplyPowerSign(_Apply):
    """m = beta m + (1 - beta) g; var -= lr exp(logbase sign_decay sign(g) sign(m)) g."""
    _params = {"use_locking": False}

    def __call__(self, var, m, lr, logbase, sign_decay, beta, grad):
        m_new = F.add(F.mul(beta, m), F.mul(F.sub(1.0, beta), grad))
        scale = F.exp(F.mul(F.mul(logbase, sign_decay), F.mul(F.sign(grad), F.sign(m_new))))
        return _write((var, F.sub(var, F.mul(F.mul(lr, scale), grad))), (m, m_new))


class ApplyAdamWithAmsgrad(_Apply):
    """Adam with the running maximum of v (vhat) in the denominator."""
    _params = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "use_locking": False}

    def __call__(self, var, m, v, vhat, beta1_power, beta2_power, lr, grad):
        b1, b2 = self.beta1, self.beta2
        m_new = F.add(F.mul(m, b1), F.mul(grad, 1.0 - b1))
        v_new = F.add(F.mul(v, b2), F.mul(F.square(grad), 1.0 - b2))
        vhat_new = F.maximum(vhat, v_new)
        lr_t = F.div(F.mul(lr, F.sqrt(F.sub(1.0, beta2_power))), F.sub(1.0, beta1_power))
        step = F.div(F.mul(lr_t, m_new), F.add(F.sqrt(vhat_new), self.epsilon))
        return _write((var, F.sub(var, step)), (m, m_new), (v, v_new), (vhat, vhat_new))


class ApplyFtrl(_Apply):
    """FTRL-proximal: accum_new = accum + g^2; linear += g - (accum_new^-p - accum^-p) / lr * var;
    var = |linear| > l1 ? (l1 - linear) / (accum_new^-p / lr + 2 l2) : 0 (p = lr_power). MindSpore
    2.10's CPU kernel uses l1 - linear whatever linear's sign (the textbook rule has
    sign(linear) l1 - linear); its result is the reference here."""
    _params = {"use_locking": False}

    def __call__(self, var, accum, linear, grad, lr, l1, l2, lr_power):
        acc_new = F.add(accum, F.square(grad))
        neg_p = F.neg(lr_power)
        sigma = F.div(F.sub(F.pow(acc_new, neg_p), F.pow(accum, neg_p)), lr)
        lin = F.sub(F.add(linear, grad), F.mul(sigma, var))
        quad = F.add(F.div(F.pow(acc_new, neg_p), lr), F.mul(l2, 2.0))
        var_new = F.select(F.gt(F.abs(lin), l1), F.div(F.sub(l1, lin), quad), F.zeros_like(var))
        return _write((var, var_new), (accum, acc_new), (linear, lin))[0]


__all__ = ["ApplyGradientDescent", "ApplyProximalGradientDescent", "ApplyAdagrad", "ApplyAdagradV2",
           "ApplyProximalAdagrad", "ApplyAdadelta", "ApplyAdaMax", "ApplyPowerSign", "ApplyAdamWithAmsgrad",
           "ApplyFtrl"]
