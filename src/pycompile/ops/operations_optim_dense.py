"""MindSpore's dense optimizer Primitives beyond operations_optim.py: ApplyMomentum, SGD, Adam,
AdamWeightDecay, AdamNoUpdateParam, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdagradDA,
ApplyAddSign, ApplyKerasMomentum, ApplyAdamWithAmsgradV2, LARSUpdate.
Like those, each computes its update with table ops and writes var and its slots into their
Parameters (an Assign each), returning what MindSpore 2.10 returns; the formulas are its CPU
kernels' (recorded from the wheel: tests/conformance/cases_optim_dense.py; ApplyKerasMomentum and
LARSUpdate, which the CPU wheel has no kernel for, follow its documented formulas: tests/ops/test_optim_dense.py)."""
from __future__ import annotations

from pycompile.ops import functional as F
from pycompile.ops.operations_optim import _Apply, _write


def _one_minus(x):
    return F.sub(1.0, x)


class ApplyMomentum(_Apply):
    """accum = momentum accum + gradient; var -= lr accum (Nesterov: var -= lr (gradient + momentum
    accum), nn.Momentum's documented rule; MindSpore 2.10's CPU kernel ignores use_nesterov).
    Returns var."""
    _params = {"use_nesterov": False, "use_locking": False, "gradient_scale": 1.0}

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum):
        grad = gradient if self.gradient_scale == 1.0 else F.mul(gradient, self.gradient_scale)
        acc = F.add(F.mul(accumulation, momentum), grad)
        if self.use_nesterov:
            step = F.mul(F.add(grad, F.mul(acc, momentum)), learning_rate)
        else:
            step = F.mul(acc, learning_rate)
        return _write((variable, F.sub(variable, step)), (accumulation, acc))[0]


class SGD(_Apply):
    """Stochastic gradient descent with momentum, dampening, weight decay and Nesterov, as MindSpore's
    kernel: g = gradient + weight_decay parameters; accum = stat > 0 ? g : momentum accum +
    (1 - dampening) g (then stat = 0); parameters -= lr (Nesterov ? g + momentum accum : accum).
    Returns parameters."""
    _params = {"dampening": 0.0, "weight_decay": 0.0, "nesterov": False}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.nesterov and self.dampening != 0:
            raise ValueError(f"For 'SGD', the 'dampening' must be 0 when 'nesterov' is True, but got 'dampening' is "
                             f"{self.dampening} and 'nesterov' is True.")

    def __call__(self, parameters, gradient, learning_rate, accum, momentum, stat):
        g = gradient if self.weight_decay == 0.0 else F.add(gradient, F.mul(parameters, self.weight_decay))
        first = F.gt(stat, 0.0)
        acc = F.select(first, g, F.add(F.mul(accum, momentum), F.mul(g, 1.0 - self.dampening)))
        step = F.add(g, F.mul(acc, momentum)) if self.nesterov else acc
        return _write((parameters, F.sub(parameters, F.mul(step, learning_rate))), (accum, acc),
                      (stat, F.zeros_like(stat)))[0]


def _adam_moments(m, v, beta1, beta2, grad):
    m_new = F.add(F.mul(m, beta1), F.mul(grad, _one_minus(beta1)))
    v_new = F.add(F.mul(v, beta2), F.mul(F.square(grad), _one_minus(beta2)))
    return m_new, v_new


def _adam_step(m_new, v_new, beta1_power, beta2_power, lr, beta1, epsilon, grad, nesterov):
    lr_t = F.div(F.mul(lr, F.sqrt(_one_minus(beta2_power))), _one_minus(beta1_power))
    num = F.add(F.mul(m_new, beta1), F.mul(grad, _one_minus(beta1))) if nesterov else m_new
    return F.div(F.mul(num, lr_t), F.add(F.sqrt(v_new), epsilon))


class Adam(_Apply):
    """m, v moments; var -= lr sqrt(1 - beta2^t) / (1 - beta1^t) m / (sqrt(v) + epsilon). Returns
    (var, m, v)."""
    _params = {"use_locking": False, "use_nesterov": False}

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
        m_new, v_new = _adam_moments(m, v, beta1, beta2, gradient)
        step = _adam_step(m_new, v_new, beta1_power, beta2_power, lr, beta1, epsilon, gradient, self.use_nesterov)
        return _write((var, F.sub(var, step)), (m, m_new), (v, v_new))


class AdamNoUpdateParam(_Apply):
    """Adam's moments updated in place; returns the change of the parameter, -step."""
    _params = {"use_locking": False, "use_nesterov": False}

    def __call__(self, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
        m_new, v_new = _adam_moments(m, v, beta1, beta2, gradient)
        step = _adam_step(m_new, v_new, beta1_power, beta2_power, lr, beta1, epsilon, gradient, self.use_nesterov)
        _write((m, m_new), (v, v_new))
        return F.neg(step)


def _adam_weight_decay(var, m, v, lr, beta1, beta2, epsilon, decay, gradient):
    m_new, v_new = _adam_moments(m, v, beta1, beta2, gradient)
    update = F.add(F.div(m_new, F.add(F.sqrt(v_new), epsilon)), F.mul(var, decay))
    return F.sub(var, F.mul(update, lr)), m_new, v_new


class AdamWeightDecay(_Apply):
    """Adam without bias correction, plus decay * var in the update: var -= lr (m / (sqrt(v) +
    epsilon) + decay var). Returns (var, m, v)."""
    _params = {"use_locking": False}

    def __call__(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient):
        var_new, m_new, v_new = _adam_weight_decay(var, m, v, lr, beta1, beta2, epsilon, decay, gradient)
        return _write((var, var_new), (m, m_new), (v, v_new))


class ApplyRMSProp(_Apply):
    """mean_square = decay ms + (1 - decay) g^2; moment = momentum moment + lr g / sqrt(ms + eps);
    var -= moment. Returns var."""
    _params = {"use_locking": False}

    def __call__(self, var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon):
        ms = F.add(F.mul(mean_square, decay), F.mul(F.square(grad), _one_minus(decay)))
        mom = F.add(F.mul(moment, momentum), F.div(F.mul(grad, learning_rate), F.sqrt(F.add(ms, epsilon))))
        return _write((var, F.sub(var, mom)), (mean_square, ms), (moment, mom))[0]


class ApplyCenteredRMSProp(_Apply):
    """ApplyRMSProp with the mean gradient subtracted: moment = momentum moment + lr g /
    sqrt(ms - mg^2 + eps); where ms - mg^2 + eps is not positive, moment and var keep their values
    (MindSpore 2.10's CPU kernel, recorded; the formula would give NaN). Returns var."""
    _params = {"use_locking": False}

    def __call__(self, var, mean_gradient, mean_square, moment, grad, learning_rate, decay, momentum, epsilon):
        mg = F.add(F.mul(mean_gradient, decay), F.mul(grad, _one_minus(decay)))
        ms = F.add(F.mul(mean_square, decay), F.mul(F.square(grad), _one_minus(decay)))
        arg = F.add(F.sub(ms, F.square(mg)), epsilon)
        ok = F.gt(arg, 0.0)
        denom = F.sqrt(F.select(ok, arg, F.ones_like(arg)))
        mom = F.add(F.mul(moment, momentum), F.div(F.mul(grad, learning_rate), denom))
        mom = F.select(ok, mom, moment)
        return _write((var, F.select(ok, F.sub(var, mom), var)), (mean_gradient, mg), (mean_square, ms),
                      (moment, mom))[0]


class ApplyAdagradDA(_Apply):
    """Dual averaging: ga += g; gsa += g^2; var = -lr shrink(ga) / (l2 global_step lr + sqrt(gsa)),
    shrink(ga) = sign(ga) max(|ga| - l1 global_step, 0) when l1 > 0 (MindSpore's documented formula;
    its CPU kernel moves a negative ga away from 0 instead: recorded as its bug). Returns var."""
    _params = {"use_locking": False}

    def __call__(self, var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step):
        ga = F.add(gradient_accumulator, grad)
        gsa = F.add(gradient_squared_accumulator, F.square(grad))
        step = F.cast(global_step, var.dtype)
        shrunk = F.mul(F.sign(ga), F.maximum(F.sub(F.abs(ga), F.mul(l1, step)), 0.0))
        tmp = F.select(F.gt(F.broadcast_to(F.cast(l1, var.dtype), var.shape), 0.0), shrunk, ga)
        var_new = F.div(F.mul(F.neg(lr), tmp), F.add(F.mul(F.mul(l2, step), lr), F.sqrt(gsa)))
        return _write((var, var_new), (gradient_accumulator, ga), (gradient_squared_accumulator, gsa))[0]


class ApplyAddSign(_Apply):
    """m = beta m + (1 - beta) g; var -= lr (alpha + sign_decay sign(g) sign(m)) g. Returns (var, m)."""

    def __call__(self, var, m, lr, alpha, sign_decay, beta, grad):
        m_new = F.add(F.mul(m, beta), F.mul(grad, _one_minus(beta)))
        update = F.mul(F.add(alpha, F.mul(sign_decay, F.mul(F.sign(grad), F.sign(m_new)))), grad)
        return _write((var, F.sub(var, F.mul(update, lr))), (m, m_new))


class ApplyKerasMomentum(_Apply):
    """accum = momentum accum - lr g; var += accum (Nesterov: var += momentum accum - lr g).
    Returns (var, accum)."""
    _params = {"use_locking": False, "use_nesterov": False}

    def __call__(self, var, accum, lr, grad, momentum):
        acc = F.sub(F.mul(accum, momentum), F.mul(grad, lr))
        step = F.sub(F.mul(acc, momentum), F.mul(grad, lr)) if self.use_nesterov else acc
        return _write((var, F.add(var, step)), (accum, acc))


class ApplyAdamWithAmsgradV2(_Apply):
    """ApplyAdamWithAmsgrad with beta1 / beta2 / epsilon as inputs. Returns (var, m, v, vhat)."""
    _params = {"use_locking": False}

    def __call__(self, var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
        m_new, v_new = _adam_moments(m, v, beta1, beta2, grad)
        vhat_new = F.maximum(vhat, v_new)
        lr_t = F.div(F.mul(lr, F.sqrt(_one_minus(beta2_power))), _one_minus(beta1_power))
        step = F.div(F.mul(m_new, lr_t), F.add(F.sqrt(vhat_new), epsilon))
        return _write((var, F.sub(var, step)), (m, m_new), (v, v_new), (vhat, vhat_new))


class LARSUpdate(_Apply):
    """Layer-wise adaptive rate scaling of a gradient: with w = sqrt(norm_weight), g =
    sqrt(norm_gradient), trust = hyperpara w / (g + weight_decay w + epsilon) where both norms are
    positive, else 1 (use_clip: min(trust / learning_rate, 1)); returns trust (gradient +
    weight_decay weight)."""
    _params = {"epsilon": 1e-05, "hyperpara": 0.001, "use_clip": False}

    def __call__(self, weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate):
        w, g = F.sqrt(norm_weight), F.sqrt(norm_gradient)
        ratio = F.div(F.mul(w, self.hyperpara), F.add(F.add(g, F.mul(w, weight_decay)), self.epsilon))
        both = F.logical_and(F.gt(w, 0.0), F.gt(g, 0.0))
        trust = F.select(both, ratio, F.ones_like(ratio))
        if self.use_clip:
            trust = F.minimum(F.div(trust, learning_rate), 1.0)
        return F.mul(F.add(gradient, F.mul(weight, weight_decay)), trust)


__all__ = ["ApplyMomentum", "SGD", "Adam", "AdamNoUpdateParam", "AdamWeightDecay",
           "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdagradDA", "ApplyAddSign", "ApplyKerasMomentum",
           "ApplyAdamWithAmsgradV2", "LARSUpdate"]
