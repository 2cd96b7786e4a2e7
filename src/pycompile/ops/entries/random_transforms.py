"""Random ops made from the generator's uniform draws (ops/function_random.py), so they run in
both modes and advance the same state: laplace, rrelu, gumbel_softmax (standard_laplace is in
random_prim33.py), as
MindSpore 2.10 defines them (argument errors recorded from the wheel: tests/conformance/
cases_random_transforms.py; distributions tested in tests/ops/test_random_transforms.py)."""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType, type_of
from pycompile.ops import functional as F
from pycompile.ops import function_random as FR
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.defs import random as R
from pycompile.ops.entry import Arg, op_entry
from pycompile.ops.operations_cnn import laplace as standard_laplace_draws


def _uniform(shape, dtype, seed, name):
    return FR.draw(R.RandomUniform, [], {"shape": tuple(shape), "dtype": dtype, "seed": FR._op_seed(name, seed)})


def _shape_arg(name):
    def check(v, op):
        if not isinstance(v, tuple) or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                                               for d in v):
            raise OpTypeError(f"For '{name}', input must be a tuple, or a Tensor with all Int elements, but got: {v}")
    return check


@op_entry("laplace", args=[Arg("shape", "value", check=_shape_arg("laplace")), Arg("mean"), Arg("lambda_param"),
                           Arg("seed", "value", default=None)])
def laplace(shape, mean, lambda_param, seed=None):
    """mean + lambda_param * Laplace(0, 1), of shape broadcast(shape, mean, lambda_param)."""
    full = tuple(np.broadcast_shapes(tuple(shape), tuple(mean.shape), tuple(lambda_param.shape)))
    s = standard_laplace_draws(full, FR._op_seed("laplace", seed) or None)
    return F.add(F.mul(s, lambda_param), mean)


@op_entry("rrelu", args=[Arg("input"), Arg("lower", "value", default=1.0 / 8), Arg("upper", "value", default=1.0 / 3)])
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):
    """x where x >= 0, else a x with a drawn uniformly from [lower, upper) per element (MindSpore's
    ops.rrelu always draws); integer inputs get the product truncated toward 0."""
    for v, what in ((lower, "lower"), (upper, "upper")):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise OpTypeError(f"For 'rrelu', the type of '{what}' must be float or int, but got {type(v)}")
    if lower > upper:
        raise OpValueError(f"For 'rrelu', the value of 'upper' must be greater than or equal to 'lower', but got "
                           f"upper: {upper}, lower: {lower}. ")
    dt = input.dtype
    work = dt if dt.is_float else mstype.float32
    x = F.cast(input, work)
    slope = F.add(F.mul(_uniform(input.shape, work, None, "rrelu"), float(upper - lower)), float(lower))
    out = F.select(F.ge(x, 0.0), x, F.mul(x, slope))
    return out if dt.is_float else F.cast(out, dt)


def _check_logits(v, op):
    t = type_of(v)
    if isinstance(t, TensorType) and t.dtype not in (mstype.float16, mstype.float32):
        raise OpTypeError(f"For 'gumbel_softmax', the 'logits' should be one of [mindspore.float16, "
                          f"mindspore.float32], but got 'mindspore.{t.dtype}'.")


@op_entry("gumbel_softmax", args=[Arg("logits", check=_check_logits), Arg("tau", "value", default=1.0),
                                  Arg("hard", "value", default=False), Arg("dim", "value", default=-1)])
def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """softmax((logits + g) / tau) along dim with g Gumbel(0, 1) noise; hard: the one-hot of its
    argmax in the forward pass, the soft gradient in the backward pass (straight-through)."""
    if isinstance(tau, bool) or not isinstance(tau, float) or tau <= 0:
        raise OpValueError(f"For 'gumbel_softmax', the 'tau' must be float and must > 0, but got '{tau}' with "
                           f"type '{type(tau).__name__}'.")
    if not isinstance(hard, bool):
        raise OpTypeError(f"For 'gumbel_softmax', the 'hard' must be bool, but got {type(hard).__name__}")
    u = _uniform(logits.shape, logits.dtype, None, "gumbel_softmax")
    gumbel = F.neg(F.log(F.neg(F.log(F.maximum(u, 1e-20)))))
    soft = F.softmax(F.div(F.add(logits, gumbel), tau), dim)
    if not hard:
        return soft
    axis = dim % logits.ndim
    index = F.argmax(soft, axis)
    one_hot = F.one_hot(index, logits.shape[axis], F.ones((), logits.dtype), F.zeros((), logits.dtype), axis)
    return F.add(F.sub(one_hot, F.stop_gradient(soft)), soft)
