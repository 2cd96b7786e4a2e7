"""nn.Lamb: layer-wise adaptive moments (You et al., "Large Batch Optimization for Deep Learning:
Training BERT in 76 minutes", arXiv:1904.00962).

MindSpore 2.10 runs Lamb through a fused `Lamb` kernel that exists for Ascend and GPU only — its
CPU build raises "Unsupported op [Lamb] on CPU" — so there is no CPU run to match step by step.
pycompile implements the update MindSpore's GPU kernel computes, per Parameter p with gradient g
at step t (global_step after this step's increment, so t = 1 on the first step):

    m = b1 m + (1 - b1) g;   v = b2 v + (1 - b2) g^2
    u = (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps) + wd p      (wd = 0 if p does not decay)
    r = ||p|| / ||u||  if ||p|| > 0 and ||u|| > 0, else 1            (the trust ratio)
    p = p - lr r u

in float32 whatever the Parameter's dtype (a float16 Parameter and its moments are rounded back
when stored), with the state Parameters named as MindSpore names them (`lamb_m.<name>`,
`lamb_v.<name>`). Like MindSpore's, this optimizer takes no `loss_scale` and applies its weight
decay inside the update (decoupled from the moments), to the Parameters whose names contain
neither 'beta' nor 'gamma' unless groups say otherwise. The norms make the update not
elementwise: each Parameter's step is two passes (the moments and u with their sums of squares,
then the scaled update)."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.nn.optim.adam import _check_param_value
from pycompile.nn.optim.optimizer import Optimizer
from pycompile.ops import functional as F
from pycompile.ops.function_math import reduce_sum

_ONE = Tensor(1.0, mstype.float32)


class Lamb(Optimizer):
    """MindSpore 2.10's `nn.Lamb(params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6,
    weight_decay=0.0)`; see the module docstring for the update."""

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_param_value(beta1, beta2, eps, self.cls_name)
        self.beta1 = Tensor(beta1, mstype.float32)
        self.beta2 = Tensor(beta2, mstype.float32)
        self.eps = Tensor(eps, mstype.float32)
        self.params = self._parameters
        self.moments1 = self._parameters.clone(prefix="lamb_m", init='zeros')
        self.moments2 = self._parameters.clone(prefix="lamb_v", init='zeros')

    def construct(self, gradients):
        gradients = tuple(gradients)
        weight_decay = self.get_weight_decay()
        lrs = self._per_param_lr(self.get_lr())
        self._advance(gradients)
        gradients = self.gradients_centralization(gradients)
        t = F.cast(F.reshape(self.global_step, ()), mstype.float32)
        one = _ONE
        bias1 = one - F.pow(self.beta1, t)
        bias2 = one - F.pow(self.beta2, t)
        for i, (p, m, v, g) in enumerate(zip(self._parameters, self.moments1, self.moments2, gradients)):
            p32, m32, v32, g32 = (F.cast(x, mstype.float32) for x in (p, m, v, g))
            new_m = self.beta1 * m32 + (one - self.beta1) * g32
            new_v = self.beta2 * v32 + (one - self.beta2) * g32 * g32
            update = (new_m / bias1) / (F.sqrt(new_v / bias2) + self.eps)
            if self.decay_flags[i]:
                wd = weight_decay[i] if self.is_group else weight_decay
                update = update + F.cast(wd, mstype.float32) * p32
            w_norm = F.sqrt(reduce_sum(p32 * p32))
            u_norm = F.sqrt(reduce_sum(update * update))
            trust = F.select(F.logical_and(w_norm > 0.0, u_norm > 0.0), w_norm / u_norm, one)
            new_p = p32 - F.cast(lrs[i], mstype.float32) * trust * update
            F.assign(m, F.cast(new_m, m.dtype))
            F.assign(v, F.cast(new_v, v.dtype))
            F.assign(p, F.cast(new_p, p.dtype))
        return tuple(True for _ in self._parameters)
