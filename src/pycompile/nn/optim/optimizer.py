"""nn.Optimizer: the base of every optimizer, with MindSpore 2.10's semantics.

What a subclass's `construct(gradients)` does, in MindSpore's order:
  decay_weight -> gradients_centralization -> scale_grad -> lr = get_lr() -> global_step += 1
  -> per Parameter: new state and new value, then the Assigns.

Choices that follow MindSpore (facts recorded from the 2.10 wheel in tests/oracle/):
* `params` is a list of Parameters or of group dicts ({'params', 'lr', 'weight_decay',
  'grad_centralization'}, and one {'order_params'}); a group with 'lr' makes the learning rate
  per group (`learning_rate_group_<i>` Parameters, get_lr() a tuple).
* `learning_rate`: a float or 0-d Tensor becomes the Parameter 'learning_rate'; a list or 1-D
  Tensor is a schedule indexed by global_step (the Parameter 'learning_rate.learning_rate'); a
  LearningRateSchedule Cell is called with global_step. get_lr() gives the rate of the *next*
  step and does not advance it.
* `weight_decay` (a float, or a Cell of global_step) is added to the gradients of Parameters
  whose name contains neither 'beta' nor 'gamma' (every Parameter of a group with a decay), and
  is multiplied by `loss_scale`, because gradients are divided by `loss_scale` after the decay.
* The optimizer's state are Parameters named '<state>.<param name>' ('moment1.w'), listed by
  parameters_and_names() and saved in checkpoints.

pycompile's own choice: the update of every Parameter is computed before any is written, and the
step counter's increment waits for every gradient, so each weight's readers (forward and
backward) are ordered before its Assign; compiled, the update is one elementwise pass per
Parameter written in place (backend/c/memory.py) and no weight is copied (load_elim level 1).
PyNative runs the same construct op by op.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.initializer import initializer
from pycompile.common.parameter import Parameter, ParameterTuple
from pycompile.common.tensor import Tensor, parameters_written
from pycompile.nn.cell import Cell
from pycompile.nn.layers import CellList
from pycompile.nn.learning_rate_schedule import LearningRateSchedule
from pycompile.nn.optim._eager_update import eager_ready
from pycompile.ops._table import OpTypeError
from pycompile.ops import composite as C
from pycompile.ops import functional as F

_GROUP_KEYS = ['params', 'lr', 'weight_decay', 'order_params', 'grad_centralization']


def _check_non_negative_float(value, name, cls_name):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls_name}', the type of '{name}' must be float, but got {type(value).__name__}.")
    if value < 0:
        raise ValueError(f"For '{cls_name}', the '{name}' must be non-negative, but got {value}.")
    return float(value)


class Optimizer(Cell):
    """Base class: holds the Parameters, learning rate, weight decay and loss scale; subclasses
    write `construct(gradients)`."""

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        parameters = self._parameters_base_check(parameters, "parameters")
        if not isinstance(parameters, list):
            raise TypeError(f"For 'Optimizer' argument 'parameters' must be 'list', but got {type(parameters)}.")
        if not all(isinstance(x, Parameter) for x in parameters) and not all(isinstance(x, dict) for x in parameters):
            raise TypeError("For 'Optimizer', all elements of the argument 'parameters' must be 'Parameter' or "
                            "'dict', please check the 'parameters'.")
        if isinstance(loss_scale, int) and not isinstance(loss_scale, bool):
            loss_scale = float(loss_scale)
        if not isinstance(loss_scale, float):
            raise TypeError(f"For '{self.cls_name}', the type of 'loss_scale' must be float, "
                            f"but got {type(loss_scale).__name__}.")
        if loss_scale <= 0:
            raise ValueError(f"For '{self.cls_name}', the 'loss_scale' must be a positive float, but got {loss_scale}.")
        self.loss_scale = loss_scale
        self.dynamic_weight_decay = False
        self.grad_centralization = False
        self.dynamic_lr = False
        self.global_step = Parameter(initializer(0, [1], mstype.int32), name="global_step")
        self.is_group = False
        self.is_group_lr = False
        self.is_group_params_ordered = False
        learning_rate = self._preprocess_single_lr(learning_rate)
        if isinstance(parameters[0], dict):
            self.is_group = True
            self.group_params, self.group_lr = [], []
            self.group_weight_decay, self.group_grad_centralization = [], []
            self._init_group_params(parameters, learning_rate, weight_decay)
        self._init_opt_attrs(learning_rate, parameters, weight_decay)
        # MindSpore's mapping helpers, which user optimizers' construct call (self.map_reverse(...))
        self.map_, self.map_reverse = C.Map(), C.Map(None, True)
        self.hyper_map, self.hyper_map_reverse = C.HyperMap(), C.HyperMap(None, True)

    # -- construction ------------------------------------------------------------------------------
    @staticmethod
    def _parameters_base_check(parameters, param_info):
        if parameters is None:
            raise ValueError(f"For 'Optimizer', the argument {param_info} can not be None.")
        if not isinstance(parameters, Iterable):
            raise TypeError(f"For 'Optimizer', the argument {param_info} must be Iterable type, "
                            f"but got {type(parameters)}.")
        parameters = list(parameters)
        if not parameters:
            raise ValueError(f"For 'Optimizer', the argument {param_info} must not be empty.")
        return parameters

    def _preprocess_weight_decay(self, weight_decay):
        if isinstance(weight_decay, (float, int)) and not isinstance(weight_decay, bool):
            return _check_non_negative_float(weight_decay, "weight_decay", self.cls_name) * self.loss_scale
        if isinstance(weight_decay, Cell):
            self.dynamic_weight_decay = True
            return _WrappedWeightDecay(weight_decay, self.loss_scale)
        raise TypeError(f"For 'Optimizer', the argument 'Weight_decay' must be int, float or Cell.but got "
                        f"{type(weight_decay)}")

    def _preprocess_single_lr(self, learning_rate):
        """A float, a 0-d float32 Tensor, or (dynamic) a LearningRateSchedule / 1-D Tensor."""
        if isinstance(learning_rate, (float, int)) and not isinstance(learning_rate, bool):
            return _check_non_negative_float(learning_rate, "learning rate", self.cls_name)
        if isinstance(learning_rate, Tensor) and learning_rate.ndim == 0:
            return Tensor(learning_rate.asnumpy(), dtype=mstype.float32)
        self.dynamic_lr = True
        if isinstance(learning_rate, LearningRateSchedule):
            return learning_rate
        if isinstance(learning_rate, Tensor):
            if learning_rate.ndim > 1:
                raise ValueError(f"For 'Optimizer', if 'learning_rate' is Tensor type, then the dimension of it "
                                 f"should be 0 or 1, but got {learning_rate.ndim}.")
            return Tensor(learning_rate.asnumpy(), dtype=mstype.float32)
        if isinstance(learning_rate, Iterable):
            return Tensor(np.array(list(learning_rate)).astype(np.float32))
        raise TypeError(f"For 'Optimizer', the argument 'learning_rate' must be int, float, Tensor, Iterable or "
                        f"LearningRateSchedule, but got {type(learning_rate)}.")

    def _build_single_lr(self, learning_rate, name):
        if isinstance(learning_rate, float) or (isinstance(learning_rate, Tensor) and learning_rate.ndim == 0):
            value = Tensor(learning_rate, mstype.float32) if isinstance(learning_rate, float) else learning_rate
            lr = Parameter(value, name)
            return _ConvertToCell(lr) if self.is_group_lr and self.dynamic_lr else lr
        if isinstance(learning_rate, Tensor) and learning_rate.ndim == 1:
            return _IteratorLearningRate(learning_rate, name)
        return learning_rate

    def _check_group_params(self, parameters):
        for group in parameters:
            invalid = [k for k in group.keys() if k not in _GROUP_KEYS]
            if invalid:
                raise KeyError(f"For 'Optimizer', the key in group params must be one of in {_GROUP_KEYS}, "
                               f"but got {invalid}.")
            if 'order_params' in group:
                if len(group) > 1:
                    raise ValueError(f"For 'Optimizer', the order params dict in group parameters should only "
                                     f"include the 'order_params' key, but got {group.keys()}.")
                if not isinstance(group['order_params'], Iterable):
                    raise TypeError(f"For 'Optimizer', the value of 'order_params' in group parameters should be "
                                    f"Iterable type, but got {type(group['order_params'])}.")
                continue
            for index, param in enumerate(self._parameters_base_check(group['params'], "group `params`")):
                if not isinstance(param, Parameter):
                    raise TypeError(f"For 'Optimizer', the element in group parameters must be Parameter type, "
                                    f"but got {type(param)} at index {index}.")

    def _init_group_params(self, parameters, learning_rate, weight_decay):
        self._check_group_params(parameters)
        lengths = {learning_rate.size} if isinstance(learning_rate, Tensor) and learning_rate.ndim == 1 else set()
        for group in parameters:
            if 'order_params' in group:
                self.is_group_params_ordered = True
            elif 'lr' in group:
                self.is_group_lr = True
                lr = self._preprocess_single_lr(group['lr'])
                if isinstance(lr, Tensor) and lr.ndim == 1:
                    lengths.add(lr.size)
        if len(lengths) > 1:
            raise ValueError("For 'Optimizer', the Tensor type dynamic learning rate in group must be the same size "
                             "as the argument 'learning_rate'.")
        default_lr = self._build_single_lr(learning_rate, 'learning_rate')
        seen, ordered = [], []
        for group_num, group in enumerate(parameters):
            if 'order_params' in group:
                ordered = list(group['order_params'])
                continue
            params = list(group['params'])
            self.group_params += params
            if 'lr' in group:
                lr = self._build_single_lr(self._preprocess_single_lr(group['lr']), f"learning_rate_group_{group_num}")
            else:
                lr = default_lr
            decay = self._preprocess_weight_decay(group.get('weight_decay', weight_decay))
            centralize = group.get('grad_centralization', False)
            if not isinstance(centralize, bool):
                raise TypeError(f"For 'Optimizer', the 'gradients_centralization' must be bool type, "
                                f"but got {type(centralize)}.")
            for param in params:
                if param.name in seen:
                    raise RuntimeError(f"For 'Optimizer', the {param.name} parameter already exists, it does not "
                                       f"support repeated setting. Please check whether the optimizer parameter "
                                       f"has been set multiple times.")
                seen.append(param.name)
                self.group_lr.append(lr)
                self.group_weight_decay.append(decay)
                self.group_grad_centralization.append(centralize)
        if self.is_group_params_ordered and ordered:
            if len(ordered) != len(self.group_params):
                raise ValueError(f"For 'Optimizer',the length of order parameters must be the same as the length of "
                                 f"group parameters, but got order parameters' length {len(ordered)}, group "
                                 f"parameters' length {len(self.group_params)}.")
            names = [p.name for p in ordered]
            index = [names.index(p.name) for p in self.group_params]
            for attr in ("group_params", "group_lr", "group_weight_decay", "group_grad_centralization"):
                old = getattr(self, attr)
                new = [None] * len(old)
                for i, v in zip(index, old):
                    new[i] = v
                setattr(self, attr, new)

    def _init_opt_attrs(self, learning_rate, parameters, weight_decay):
        weight_decay = self._preprocess_weight_decay(weight_decay)
        if self.is_group_lr:
            if self.dynamic_lr:
                self.learning_rate = CellList([lr if isinstance(lr, Cell) else _ConvertToCell(lr)
                                               for lr in self.group_lr], auto_prefix=False)
            else:
                self.learning_rate = ParameterTuple(_unique(self.group_lr))
                self._group_lr_index = tuple(_position(self.learning_rate, lr) for lr in self.group_lr)
        else:
            self.learning_rate = self._build_single_lr(learning_rate, 'learning_rate')
        if self.is_group:
            self.parameters = ParameterTuple(self.group_params)
            self.decay_flags = tuple(isinstance(x, Cell) or x > 0 for x in self.group_weight_decay)
            self.dynamic_decay_flags = tuple(isinstance(x, Cell) for x in self.group_weight_decay)
            self.weight_decay = tuple(x if isinstance(x, Cell) else Tensor(x, mstype.float32)
                                      for x in self.group_weight_decay)
            self.exec_weight_decay = any(self.decay_flags)
            self.grad_centralization_flags = tuple(self.group_grad_centralization)
        else:
            self.parameters = ParameterTuple(parameters)
            self.decay_flags = tuple('beta' not in x.name and 'gamma' not in x.name for x in self.parameters)
            self.dynamic_decay_flags = isinstance(weight_decay, Cell)
            self.exec_weight_decay = isinstance(weight_decay, Cell) or weight_decay > 0
            self.weight_decay = weight_decay if isinstance(weight_decay, Cell) else Tensor(weight_decay, mstype.float32)
        self._parameters = self.parameters
        self.reciprocal_scale = Tensor(1.0 / self.loss_scale, mstype.float32)
        self.need_scale = self.loss_scale != 1.0
        self.param_length = len(self._parameters)

    # -- the steps of construct ------------------------------------------------------------------------
    def flatten_gradients(self, gradients):
        return gradients

    def decay_weight(self, gradients):
        """gradient + weight_decay * parameter, for the Parameters that decay."""
        if not self.exec_weight_decay:
            return gradients
        decay = self.get_weight_decay()
        out = ()
        for i, (p, g) in enumerate(zip(self._parameters, gradients)):
            wd = decay[i] if self.is_group else decay
            out += (g + p * F.cast(wd, p.dtype) if self.decay_flags[i] else g,)
        return out

    def gradients_centralization(self, gradients):
        """Subtract each gradient's mean over all axes but the first, for the Parameters of groups
        with grad_centralization whose second axis is a multiple of 16 (as MindSpore)."""
        if not self.is_group:
            return gradients
        out = ()
        for flag, g in zip(self.grad_centralization_flags, gradients):
            if flag and g.ndim > 1 and g.shape[1] % 16 == 0:
                g = g - F.mean(g, tuple(range(1, g.ndim)), True)
            out += (g,)
        return out

    def scale_grad(self, gradients):
        if not self.need_scale:
            return gradients
        return tuple(g * F.cast(self.reciprocal_scale, g.dtype) for g in gradients)

    def get_weight_decay(self):
        if self.dynamic_weight_decay:
            if self.is_group:
                return tuple(wd(self.global_step) if flag else wd
                             for wd, flag in zip(self.weight_decay, self.dynamic_decay_flags))
            return self.weight_decay(self.global_step)
        return self.weight_decay

    def get_lr(self):
        """The learning rate of the coming step (a tuple with per-group rates); does not advance
        the step."""
        if self.dynamic_lr:
            if self.is_group_lr:
                return tuple(F.reshape(lr(self.global_step), ()) for lr in self.learning_rate)
            return F.reshape(self.learning_rate(self.global_step), ())
        if self.is_group_lr:
            return tuple(self.learning_rate[i] for i in self._group_lr_index)
        return self.learning_rate

    def get_lr_parameter(self, param):
        def value_of(lr):
            return lr.learning_rate if isinstance(lr, (_ConvertToCell, _IteratorLearningRate)) else lr

        if isinstance(param, Parameter):
            params = [param]
        elif isinstance(param, list):
            params = param
        else:
            raise TypeError(f"For 'get_lr_parameter', the 'param' must be 'Parameter' or 'list' type, "
                            f"but got {type(param)}.")
        out = []
        for p in params:
            if p not in self._parameters:
                raise ValueError(f"For 'get_lr_parameter', the parameter {p.name} is not in optimizer, please "
                                 f"check whether the argument 'param' is correct.")
            if self.is_group_lr:
                out.append(value_of(self.group_lr[list(self._parameters).index(p)]))
            else:
                out.append(value_of(self.learning_rate))
        return out if isinstance(param, list) else out[0]

    def _per_param_lr(self, lr):
        """The learning rate of each Parameter."""
        return lr if self.is_group_lr else (lr,) * self.param_length

    def _advance(self, gradients):
        """global_step += 1, once every gradient exists (see the module docstring)."""
        if any(p.dtype is mstype.bfloat16 for p in self._parameters):
            _refuse_bfloat16(self.cls_name)
        if eager_ready() and self.global_step.__class__ is Parameter:
            # PyNative, seen by no tracer: every gradient exists already; int32 wraps as Add's does
            np.add(self.global_step._data, 1, out=self.global_step._data, casting="unsafe")
            parameters_written()
            return
        F.assign(self.global_step, self.global_step + F.depend(_ONE, gradients))

    def _prepare(self, gradients):
        """The common head of construct: (processed gradients, per-Parameter learning rates)."""
        gradients = self.flatten_gradients(tuple(gradients))
        gradients = self.decay_weight(gradients)
        gradients = self.gradients_centralization(gradients)
        gradients = self.scale_grad(gradients)
        lr = self.get_lr()
        self._advance(gradients)
        return gradients, self._per_param_lr(lr)

    @property
    def unique(self):
        return True

    @property
    def target(self):
        return "CPU"

    def construct(self, *hyper_params):
        raise NotImplementedError


_ONE = Tensor(np.array([1], np.int32))

# MindSpore 2.10's optimizers all refuse bfloat16 Parameters when they first run (their Primitives'
# type checks, or no CPU kernel): its words, recorded from the wheel (tests/conformance/cases_bf16.py).
# pycompile computes any op on bfloat16 (ops/_bf16.py), but an update in bfloat16 is not one
# (Adam's 1 - beta2 is 0 there): keep float32 weights and run the network in bfloat16 (amp).
_F16_32 = "{Float16, Float32, Tensor[Float16], Tensor[Float32]}"
_ALL_REAL = ("Tensor[Float16], Tensor[Float32], Tensor[Float64], Tensor[Int16], Tensor[Int32], Tensor[Int64], "
             "Tensor[Int8], Tensor[UInt16], Tensor[UInt32], Tensor[UInt64], Tensor[UInt8]")
_BF16_REFUSALS = {
    "SGD": "For 'SGD', the element of 'parameters' must be one of Tensor[Float16], Tensor[Float32], but got "
           "Ref[Tensor[BFloat16]].The supported data types depend on the hardware that executes the operator, "
           "for more details, please refer to the MindSpore official website to get more information about the "
           "data type.",
    "Momentum": "For primitive[ApplyMomentum], the input argument[v_type] must be a type of {Tensor[Complex128], "
                f"Tensor[Complex64], {_ALL_REAL}}}, but got Ref[Tensor[BFloat16]].",
    "Adam": f"For primitive[Adam], the input argument[grad] must be a type of {_F16_32}, but got Tensor[BFloat16].",
    "LazyAdam": f"For primitive[Adam], the input argument[grad] must be a type of {_F16_32}, but got "
                "Tensor[BFloat16].",
    "AdamOffload": "For primitive[AdamNoUpdateParam], the input argument[grad] must be a type of "
                   "{Tensor[Float32]}, but got Tensor[BFloat16].",
    "AdaMax": "For primitive[ApplyAdaMax], the input argument[grad_type] must be a type of {Tensor[Float16], "
              "Tensor[Float32], Tensor[Float64]}, but got Tensor[BFloat16].",
    "Adagrad": "For primitive[ApplyAdagrad], the input argument[accum] must be a type of {Tensor[Complex128], "
               "Tensor[Complex64], Tensor[Float16], Tensor[Float32], Tensor[Float64]}, but got "
               "Ref[Tensor[BFloat16]].",
    "RMSProp": "For primitive[ApplyRMSProp], the input argument[grad dtype] must be a type of {Tensor[Complex64], "
               f"{_ALL_REAL}}}, but got Tensor[BFloat16].",
    "Lamb": "For primitive[Lamb], the input argument[m] must be a type of {Tensor[Complex128], Tensor[Complex64], "
            f"{_ALL_REAL}}}, but got Ref[Tensor[BFloat16]].",
    "FTRL": "Data type conversion is not supported for a 'Parameter', nor for the input tensor of an in-place "
            "operator, the argument[var]'s data type of primitive[ApplyFtrl] is BFloat16, which cannot be "
            "converted to data type Float32 automatically.",
    "ProximalAdagrad": "For primitive[ApplyProximalAdagrad], the input argument[accum] must be a type of "
                       "{Tensor[Float16], Tensor[Float32]}, but got Ref[Tensor[BFloat16]].",
    "Adadelta": "For primitive[ApplyAdadelta], the input argument[accum_type] must be a type of {Tensor[Float16], "
                "Tensor[Float32], Tensor[Float64]}, but got Ref[Tensor[BFloat16]].",
    "AdamWeightDecay": "Select CPU operator[AdamWeightDecay] fail! Unsupported data type!",
    "ASGD": "Select CPU operator[Assign] fail! Unsupported data type!",
    "Rprop": "Select CPU operator[Sign] fail! Unsupported data type!",
}


def _refuse_bfloat16(name: str):
    raise OpTypeError(_BF16_REFUSALS.get(name, f"Select CPU operator[{name}] fail! Unsupported data type!"))


def _unique(items):
    out = []
    for x in items:
        if all(x is not y for y in out):
            out.append(x)
    return out


def _position(items, x):
    return next(i for i, y in enumerate(items) if y is x)


class _ConvertToCell(LearningRateSchedule):
    """A constant learning rate in a group of dynamic ones."""

    def __init__(self, learning_rate):
        super().__init__()
        if not isinstance(learning_rate, Parameter):
            raise TypeError(f"For 'Optimizer', the argument 'learning_rate' must be Parameter, "
                            f"but got {type(learning_rate)}.")
        self.learning_rate = learning_rate

    def construct(self, global_step):
        return self.learning_rate + 1.0 - 1.0


class _IteratorLearningRate(LearningRateSchedule):
    """A list / 1-D Tensor of learning rates, indexed by global_step."""

    def __init__(self, learning_rate, name):
        super().__init__()
        if not isinstance(learning_rate, Tensor):
            raise TypeError(f"For 'Optimizer', the argument 'learning_rate' must be Tensor, "
                            f"but got {type(learning_rate)}.")
        if learning_rate.ndim != 1:
            raise ValueError(f"For 'Optimizer', the dimension of the argument 'learning_rate' should be 1, "
                             f"but got {learning_rate.ndim}.")
        self.learning_rate = Parameter(learning_rate, name)

    def construct(self, global_step):
        return F.gather(self.learning_rate, global_step, 0)


class _WrappedWeightDecay(Cell):
    """A weight-decay Cell times the loss scale."""

    def __init__(self, weight_decay, loss_scale=1.0):
        super().__init__()
        self.weight_decay = weight_decay
        self.loss_scale = Tensor(loss_scale, mstype.float32)

    def construct(self, global_step):
        return self.weight_decay(global_step) * self.loss_scale
