"""Finite-difference gradient specs of the CNN family (convolutions and their backprop ops,
pooling and its routing ops, batch statistics, resampling), in float64 with small shapes:
strides, dilations, pads (uneven), groups and ceil mode are all exercised."""
from __future__ import annotations

import numpy as np

from pycompile import Tensor, ops
from pycompile.ops import OPS


def rnd(*shape, lo=-1.5, hi=1.5, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(np.float64)


def _op(name, **attrs):
    return lambda *xs: ops.apply(OPS[name], list(xs), attrs)


C2 = dict(stride=(2, 1), dilation=(1, 2), pads=(1, 0, 2, 1), group=2)
C3 = dict(stride=(1, 2, 1), dilation=(1, 1, 1), pads=(1, 0, 0, 1, 1, 1), group=1)
POOL = dict(kernel=(3, 2), stride=(2, 2), pads=(1, 1, 0, 1), dilation=(1, 1), ceil_mode=True)
AVG = dict(POOL, count_include_pad=False, divisor=0)
RES = dict(axis=2, index=((0, 2, 1, 1, 3), (1, 2, 0, 3, 3)), weight=((0.25, 1.0, 0.5, 0.2, 1.0), (0.75, 0.0, 0.5, 0.8, 0.0)))

CNN = [
    ("Conv2D", _op("Conv2D", **C2), [rnd(2, 4, 6, 5), rnd(4, 2, 3, 2, seed=1)], (0, 1)),
    ("Conv2D", lambda x, w: ops.conv2d(x, w, pad_mode="same"), [rnd(1, 3, 5, 4), rnd(2, 3, 3, 3, seed=1)], (0, 1)),
    ("Conv3D", _op("Conv3D", **C3), [rnd(1, 2, 3, 4, 3), rnd(2, 2, 2, 2, 2, seed=1)], (0, 1)),
    ("Conv2DBackpropInput", _op("Conv2DBackpropInput", input_size=(2, 4, 6, 5), **C2),
     [rnd(2, 4, 3, 6), rnd(4, 2, 3, 2, seed=1)], (0, 1)),
    ("Conv3DBackpropInput", _op("Conv3DBackpropInput", input_size=(1, 2, 3, 4, 3), **C3),
     [rnd(1, 2, 3, 2, 4), rnd(2, 2, 2, 2, 2, seed=1)], (0, 1)),
    ("Conv2DBackpropFilter", _op("Conv2DBackpropFilter", filter_size=(4, 2, 3, 2), **C2),
     [rnd(2, 4, 3, 6), rnd(2, 4, 6, 5, seed=1)], (0, 1)),
    ("Conv3DBackpropFilter", _op("Conv3DBackpropFilter", filter_size=(2, 2, 2, 2, 2), **C3),
     [rnd(1, 2, 3, 2, 4), rnd(1, 2, 3, 4, 3, seed=1)], (0, 1)),
    ("MaxPool", _op("MaxPool", **POOL), [rnd(2, 2, 5, 6)], (0,)),
    ("AvgPool", _op("AvgPool", **AVG), [rnd(2, 2, 5, 6)], (0,)),
    ("AvgPool", lambda x: ops.avg_pool2d(x, 2, 1, 1, divisor_override=3), [rnd(1, 2, 4, 3)], (0,)),
    ("AdaptiveAvgPool", _op("AdaptiveAvgPool", output_size=(3, 2)), [rnd(2, 2, 5, 7)], (0,)),
    ("AdaptiveMaxPool", _op("AdaptiveMaxPool", output_size=(3, 2)), [rnd(2, 2, 5, 7)], (0,)),
    ("MaxPoolGrad", lambda g: _op("MaxPoolGrad", **POOL)(Tensor(rnd(2, 2, 5, 6, seed=3)), g), [rnd(2, 2, 3, 3)], (0,)),
    ("AvgPoolGrad", lambda g: _op("AvgPoolGrad", **AVG)(Tensor(rnd(2, 2, 5, 6, seed=3)), g), [rnd(2, 2, 3, 3)], (0,)),
    ("AdaptiveAvgPoolGrad", lambda g: _op("AdaptiveAvgPoolGrad", output_size=(3, 2))(Tensor(rnd(2, 2, 5, 7)), g),
     [rnd(2, 2, 3, 2)], (0,)),
    ("AdaptiveMaxPoolGrad", lambda g: _op("AdaptiveMaxPoolGrad", output_size=(3, 2))(Tensor(rnd(2, 2, 5, 7)), g),
     [rnd(2, 2, 3, 2)], (0,)),
    ("BatchNormStats", _op("BatchNormStats"), [rnd(3, 2, 2, 3)], (0,)),
    ("BatchNormStats", lambda x, g, b: ops.batch_norm(x, Tensor(np.zeros(2)), Tensor(np.ones(2)), g, b, True),
     [rnd(4, 2, 3), rnd(2, seed=1), rnd(2, seed=2)], (0, 1, 2)),
    ("BatchNormApply", _op("BatchNormApply"), [rnd(3, 2, 2, 3), rnd(2, seed=1), rnd(2, seed=2), rnd(2, seed=3)],
     (0, 1, 2, 3)),
    ("BatchNormChannelDot", _op("BatchNormChannelDot"), [rnd(3, 2, 2, 3, seed=4), rnd(3, 2, 2, 3), rnd(2, seed=5)],
     (0, 1, 2)),
    ("BatchNormStatsGrad", _op("BatchNormStatsGrad"), [rnd(2, 2, seed=6), rnd(3, 2, 2, 3), rnd(2, 2, seed=7)],
     (0, 1, 2)),
    ("AxisResample", _op("AxisResample", **RES), [rnd(2, 3, 4, 2)], (0,)),
    ("AxisResampleGrad", _op("AxisResampleGrad", size=4, **RES), [rnd(2, 3, 5, 2)], (0,)),
]
