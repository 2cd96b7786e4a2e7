"""`mindspore.experimental.optim` (also `mindspore.mint.optim`): PyTorch-style optimizers - Adam,
AdamW and SGD over `params` (Parameters, or group dicts with their own hyperparameters), called
with the gradients as MindSpore's: `optimizer(grads)`. MindSpore 2.10's CPU wheel builds them but
has no kernel to run their steps ("The kernel AdamW unregistered"): they follow the documented
PyTorch algorithms, checked step by step against torch 2.13's (tests/train/test_experimental_optim.py,
values recorded in tests/oracle/data/torch_optim_steps.json). The state Parameters are named as the
wheel names them ('exp_avg.w', 'exp_avg_sq.w', 'state_step'; 'momentum_buf.w', 'step_t').

A group's learning rate is a Parameter (`param_groups[i]['lr']`, as MindSpore's): set it with
`set_data` or a scheduler (`lr_scheduler`), and compiled steps read the new rate; the other
hyperparameters are read when a step is traced (a change reaches graph mode at the next compile)."""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as _mstype
from pycompile.common.parameter import Parameter, ParameterTuple
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell
from pycompile.ops import functional as F


class Optimizer(Cell):
    """The parameter groups: `params` a list of Parameters or of dicts ({'params': [...], 'lr': ...}),
    each group's missing hyperparameters taken from `defaults`."""

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        groups = list(params)
        if not groups:
            raise ValueError("The optimizer cannot get an empty parameter list.")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.defaults = dict(defaults)
        self.param_groups = []
        for i, g in enumerate(groups):
            g = dict(g)
            g["params"] = list(g["params"]) if not isinstance(g["params"], Parameter) else [g["params"]]
            for k, v in defaults.items():
                g.setdefault(k, v)
            # a group's learning rate is a float32 Parameter, as MindSpore's (the step reads it at
            # run time, so a scheduler's or the user's new rate reaches compiled steps); it sits in
            # the group dict only, not among the Cell's Parameters
            if not isinstance(g["lr"], Parameter):
                g["lr"] = Parameter(Tensor(np.array(g["lr"], np.float32)), f"learning_rate_group_{i}",
                                    requires_grad=False)
            self.param_groups.append(g)
        self.parameters = ParameterTuple([p for g in self.param_groups for p in g["params"]])

    def _states(self, prefix, init="zeros"):
        return ParameterTuple([Parameter(Tensor(np.zeros(p.shape, np.float32) if init == "zeros" else
                                                np.ones(p.shape, np.float32), p.dtype), f"{prefix}.{p.name}")
                               for p in self.parameters])

    def _hyper(self, *keys):
        """Per Parameter, the tuple of its group's `keys` (Python constants of the traced step)."""
        return tuple(tuple(g[k] for k in keys) for g in self.param_groups for _ in g["params"])


class _AdamBase(Optimizer):
    _DECOUPLED = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 maximize=False):
        for name, v in (("lr", lr), ("eps", eps), ("weight_decay", weight_decay)):
            if v < 0:
                raise ValueError(f"Invalid {name}: {v}")
        if not (0 <= betas[0] < 1 and 0 <= betas[1] < 1):
            raise ValueError(f"Invalid beta parameters: {betas}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))
        self.exp_avg = self._states("exp_avg")
        self.exp_avg_sq = self._states("exp_avg_sq")
        # amsgrad's running maximum, only where a group asks for it
        self.max_exp_avg_sq = (self._states("max_exp_avg_sq") if any(g["amsgrad"] for g in self.param_groups)
                               else self.exp_avg_sq)
        self.state_step = Parameter(Tensor(np.zeros(1, np.float32)), "state_step", requires_grad=False)
        self._hp = self._hyper("betas", "eps", "weight_decay", "amsgrad", "maximize")
        self._lrs = [g["lr"] for g in self.param_groups for _ in g["params"]]

    def construct(self, gradients):
        step = self.state_step + 1.0
        updates = []
        for p, g, m, v, vmax, lr_param, hp in zip(self.parameters, gradients, self.exp_avg, self.exp_avg_sq,
                                                  self.max_exp_avg_sq, self._lrs, self._hp):
            (b1, b2), eps, wd, amsgrad, maximize = hp
            lr = F.cast(lr_param, _mstype.float64)
            g = -g if maximize else g
            w = p
            if wd != 0:
                if self._DECOUPLED:
                    w = p * F.cast(1.0 - lr * wd, p.dtype)
                else:
                    g = g + p * wd
            m_new = m * b1 + g * (1.0 - b1)
            v_new = v * b2 + g * g * (1.0 - b2)
            # the bias corrections in double, as PyTorch's (a Python float of the step count)
            step64 = F.cast(step, _mstype.float64)
            step_size = F.cast(lr / (1.0 - F.pow(b1, step64)), p.dtype)
            bc2_sqrt = F.cast(F.sqrt(1.0 - F.pow(b2, step64)), p.dtype)
            second = v_new
            if amsgrad:
                second = F.maximum(vmax, v_new)
                updates.append((vmax, second))
            denom = F.sqrt(second) / bc2_sqrt + eps
            updates += [(m, m_new), (v, v_new), (p, w - m_new / denom * step_size)]
        for target, value in updates:
            F.assign(target, value)
        F.assign(self.state_step, step)
        return True


class Adam(_AdamBase):
    """Adam (Kingma & Ba) as PyTorch's: weight_decay adds weight_decay * p to the gradient."""
    _DECOUPLED = False


class AdamW(_AdamBase):
    """AdamW (Loshchilov & Hutter) as PyTorch's: p *= 1 - lr * weight_decay before the Adam step."""
    _DECOUPLED = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class SGD(Optimizer):
    """SGD with momentum (dampening, Nesterov) and weight decay, as PyTorch's: the first step's
    momentum buffer is the gradient itself."""

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(f"Invalid learning rate / momentum / weight_decay: {lr}, {momentum}, {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))
        self.momentum_buf = self._states("momentum_buf")
        self.step_t = Parameter(Tensor(np.array(0, np.int32)), "step_t", requires_grad=False)
        self._hp = self._hyper("momentum", "dampening", "weight_decay", "nesterov", "maximize")
        self._lrs = [g["lr"] for g in self.param_groups for _ in g["params"]]

    def construct(self, gradients):
        first = F.cast(self.step_t == 0, _mstype.float32)
        updates = []
        for p, g, buf, lr_param, hp in zip(self.parameters, gradients, self.momentum_buf, self._lrs, self._hp):
            momentum, dampening, wd, nesterov, maximize = hp
            lr = F.cast(lr_param, p.dtype)
            g = -g if maximize else g
            if wd != 0:
                g = g + p * wd
            if momentum != 0:
                later = buf * momentum + g * (1.0 - dampening)
                new_buf = later + (g - later) * first          # the first step: the gradient itself
                updates.append((buf, new_buf))
                g = g + new_buf * momentum if nesterov else new_buf
            updates.append((p, p - g * lr))
        for target, value in updates:
            F.assign(target, value)
        F.assign(self.step_t, self.step_t + 1)
        return True


from pycompile.experimental.optim import lr_scheduler  # noqa: E402,F401

__all__ = ["Optimizer", "Adam", "AdamW", "SGD", "lr_scheduler"]
