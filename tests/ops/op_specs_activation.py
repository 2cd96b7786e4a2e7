"""NumPy-checked specs of the activation rows (ops/defs/activation.py), appended to
op_specs.UNARY / CASES when op_specs is imported. References are written here in float64."""
from __future__ import annotations

import numpy as np

import op_specs
from op_specs import Case, Elementwise

from pycompile import ops

SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _f64(fn):
    return lambda x: fn(x.astype(np.float64))


def _f32(fn):
    """A reference computed in float64 and rounded to the float32 result."""
    return lambda x: fn(x.astype(np.float64)).astype(np.float32)


def _softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


ACTIVATION_UNARY = [
    Elementwise("ReLU6", ops.relu6, _f64(lambda x: np.minimum(np.maximum(x, 0), 6)), kinds="f", cls=ops.ReLU6),
    Elementwise("SiLU", ops.silu, _f64(lambda x: x / (1 + np.exp(-x))), out="float"),
    Elementwise("Elu", ops.elu, _f64(lambda x: np.where(x > 0, x, np.exp(x) - 1)), out="float", cls=ops.Elu),
    Elementwise("SeLU", ops.selu, _f64(lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * (np.exp(x) - 1))),
                out="float", cls=ops.SeLU),
    Elementwise("Softplus", lambda x: ops.softplus(x), _f64(lambda x: np.log(1 + np.exp(x))), out="float",
                cls=ops.Softplus),
    Elementwise("Softsign", ops.softsign, _f64(lambda x: x / (1 + np.abs(x))), out="float", cls=ops.Softsign),
    Elementwise("Mish", ops.mish, _f64(lambda x: x * np.tanh(np.log(1 + np.exp(x)))), out="float", cls=ops.Mish),
    Elementwise("LogSigmoid", ops.logsigmoid, _f64(lambda x: np.log(1 / (1 + np.exp(-x)))), out="float"),
]

_EXTREME = np.array([-200.0, -90.0, -30.0, -1e-3, 0.0, 1e-3, 30.0, 90.0, 200.0, np.inf, -np.inf, np.nan], np.float32)

ACTIVATION_CASES = [
    # far from 0 the stable forms stay finite and exact where naive ones overflow or round to 0
    Case("softplus extremes", "Softplus", lambda x: ops.Softplus()(x), _f32(_softplus), (_EXTREME,), (ops.Softplus,)),
    Case("logsigmoid extremes", "LogSigmoid", ops.logsigmoid, _f32(lambda x: -_softplus(-x)), (_EXTREME,),
         (ops.logsigmoid,)),
    Case("silu extremes", "SiLU", ops.silu, _f32(lambda x: x / (1 + np.exp(-x))), (_EXTREME[:-3],), (ops.silu,)),
    Case("mish extremes", "Mish", ops.mish, _f32(lambda x: x * np.tanh(_softplus(x))), (_EXTREME[:-3],), (ops.mish,)),
    Case("elu nan and -inf", "Elu", ops.elu, _f32(lambda x: np.where(x > 0, x, np.expm1(x))), (_EXTREME,), (ops.elu,)),
    Case("relu6 nan", "ReLU6", ops.relu6, lambda x: np.clip(x, 0, 6), (_EXTREME,), (ops.relu6,)),
]

op_specs.UNARY.extend(ACTIVATION_UNARY)
op_specs.UNARY_NAMES.update(s.op for s in ACTIVATION_UNARY)
op_specs.CASES.extend(ACTIVATION_CASES)
