"""Inputs for checking every differentiable op's gradient against central finite differences
(float64). Elementwise ops reuse the op-table specs' functions and shapes (broadcasting,
size-1 and odd sizes); the others are listed with shapes that exercise their attributes.

Each spec: (op name, function of tensors, input arrays, indices of the inputs differentiated).
Inputs stay away from the ops' kinks (random reals never land on 0 or a tie).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ops"))
from op_specs import BINARY, BINARY_SHAPES, UNARY, UNARY_SHAPES  # noqa: E402

import pycompile as ms  # noqa: E402
from pycompile import ops  # noqa: E402


def rnd(*shape, lo=-2.7, hi=2.7, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(np.float64)


def positive(*shape, seed=0):
    return rnd(*shape, lo=0.3, hi=2.5, seed=seed)


def nonzero(*shape, seed=0):
    x = rnd(*shape, seed=seed)
    return np.where(np.abs(x) < 0.3, 0.7, x)


def unit(*shape, seed=0):
    return rnd(*shape, lo=-0.9, hi=0.9, seed=seed)


def ge1(*shape, seed=0):
    return rnd(*shape, lo=1.2, hi=3.5, seed=seed)


_DOMAIN = {"pos": positive, "nonzero": nonzero, "small": positive, "any": rnd, "unit": unit, "ge1": ge1}


def _elementwise_specs():
    out = []
    for s in UNARY:
        if s.out == "bool":
            continue
        for shape in UNARY_SHAPES:
            if 0 in shape:
                continue
            out.append((s.op, s.fn, [_DOMAIN[s.domain[0]](*shape, seed=len(out))], (0,)))
    for s in BINARY:
        if s.out == "bool" or s.op.startswith("Bitwise"):
            continue
        for sx, sy in BINARY_SHAPES:
            if 0 in sx or 0 in sy:
                continue
            dx = positive if s.op == "Pow" else _DOMAIN[s.domain[0]]
            dy = _DOMAIN[s.domain[1]]
            out.append((s.op, s.fn, [dx(*sx, seed=len(out)), dy(*sy, seed=len(out) + 1)], (0, 1)))
    return out


def _apply(name, **attrs):
    return lambda *xs: ops.apply(ops.OPS[name], list(xs), attrs)


OTHER = [
    ("Select", lambda c, x, y: ops.select(c, x, y), [rnd(2, 3) > 0, rnd(2, 3, seed=1), rnd(3, seed=2)], (1, 2)),
    ("ReLUGrad", _apply("ReLUGrad"), [rnd(2, 3), np.maximum(rnd(2, 3, seed=1), 0)], (0,)),
    ("Cast", lambda x: ops.cast(x, ms.float64) * 1.5, [rnd(2, 3)], (0,)),
    ("ReduceSum", lambda x: ops.ReduceSum(keep_dims=False)(x, (0, 2)), [rnd(2, 3, 4)], (0,)),
    ("ReduceSum", lambda x: ops.sum(x, 1, keepdim=True), [rnd(3, 5)], (0,)),
    ("ReduceSum", lambda x: ops.sum(x), [rnd(7)], (0,)),
    ("ReduceMean", lambda x: ops.mean(x, -1, True), [rnd(2, 3, 5)], (0,)),
    ("ReduceMean", lambda x: ops.mean(x, (0, 1)), [rnd(2, 3, 5)], (0,)),
    ("ReduceMax", lambda x: ops.amax(x, 1), [rnd(3, 4)], (0,)),
    ("ReduceMax", lambda x: ops.amax(x), [rnd(2, 5)], (0,)),
    ("ReduceMin", lambda x: ops.amin(x, (0, 2), True), [rnd(2, 3, 4)], (0,)),
    ("Softmax", lambda x: ops.softmax(x), [rnd(3, 5)], (0,)),
    ("Softmax", lambda x: ops.softmax(x, 0), [rnd(4, 3)], (0,)),
    ("LogSoftmax", lambda x: ops.log_softmax(x), [rnd(2, 7)], (0,)),
    ("LogSoftmax", lambda x: ops.log_softmax(x, 1), [rnd(2, 3, 4)], (0,)),
    ("LayerNorm", lambda x, g, b: ops.layer_norm(x, g, b, -1, -1, 1e-5), [rnd(3, 5), rnd(5, seed=1), rnd(5, seed=2)],
     (0, 1, 2)),
    ("LayerNorm", lambda x, g, b: ops.layer_norm(x, g, b, 1, 1, 1e-5),
     [rnd(2, 3, 4), rnd(3, 4, seed=1), rnd(3, 4, seed=2)], (0, 1, 2)),
    ("AddN", lambda x, y, z: ops.addn((x, y, z)), [rnd(2, 3), rnd(2, 3, seed=1), rnd(2, 3, seed=2)], (0, 1, 2)),
    ("Reshape", lambda x: ops.reshape(x, (3, 4)), [rnd(2, 6)], (0,)),
    # InsertGradientOf's rule applied to the cotangent: the identity here, so it matches the
    # finite differences of x * x (tests/autodiff/test_oracle_transforms.py checks real rules)
    ("CustomGrad", lambda x: ops.InsertGradientOf(lambda g: g)(x) * x, [rnd(2, 3)], (0,)),
    ("Transpose", lambda x: ops.transpose(x, (2, 0, 1)), [rnd(2, 3, 4)], (0,)),
    ("BroadcastTo", lambda x: ops.broadcast_to(x, (4, 2, 3)), [rnd(2, 1)], (0,)),
    ("Concat", lambda x, y: ops.concat((x, y), 1), [rnd(2, 3), rnd(2, 5, seed=1)], (0, 1)),
    ("Stack", lambda x, y: ops.stack((x, y), -1), [rnd(2, 3), rnd(2, 3, seed=1)], (0, 1)),
    ("StridedSlice", lambda x: x[1:, ::-2], [rnd(3, 5)], (0,)),
    ("StridedSlice", lambda x: x[:, 1, None], [rnd(3, 4)], (0,)),
    ("Gather", lambda x: ops.gather(x, ms.Tensor(np.array([2, 0, 2, -1], np.int32)), 1), [rnd(2, 4, 3)], (0,)),
    ("Gather", lambda x: x[ms.Tensor(np.array([1, 1], np.int64))], [rnd(3, 2)], (0,)),
    ("MatMul", lambda a, b: ops.matmul(a, b), [rnd(3, 4), rnd(4, 2, seed=1)], (0, 1)),
    ("MatMul", _apply("MatMul", transpose_a=True, transpose_b=False), [rnd(4, 3), rnd(4, 2, seed=1)], (0, 1)),
    ("MatMul", _apply("MatMul", transpose_a=False, transpose_b=True), [rnd(3, 4), rnd(2, 4, seed=1)], (0, 1)),
    ("MatMul", _apply("MatMul", transpose_a=True, transpose_b=True), [rnd(4, 3), rnd(2, 4, seed=1)], (0, 1)),
    ("BatchMatMul", lambda a, b: ops.bmm(a, b), [rnd(2, 3, 4), rnd(2, 4, 5, seed=1)], (0, 1)),
    ("BatchMatMul", _apply("BatchMatMul", transpose_a=True, transpose_b=True), [rnd(2, 4, 3), rnd(1, 5, 4, seed=1)],
     (0, 1)),
    ("TensorMove", lambda x: ops.tensor_move(x) * 2, [rnd(2, 3)], (0,)),
    ("Depend", lambda x, y: ops.depend(x * 3, y), [rnd(2, 3), rnd(2, seed=1)], (0,)),
    ("StridedSliceGrad", _apply("StridedSliceGrad", shape=(3, 5), begin=(1, 4), end=(3, -1), strides=(1, -2)),
     [rnd(2, 3)], (0,)),
    ("GatherGrad", lambda g: ops.apply(ops.OPS["GatherGrad"], [g, ms.Tensor(np.array([1, 3, 1], np.int32))],
                                       {"shape": (2, 4), "axis": 1}), [rnd(2, 3)], (0,)),
]

from grad_specs_everyday import EVERYDAY  # noqa: E402  (the everyday surface's ops)

from grad_specs_cnn import CNN  # noqa: E402

from grad_specs_comm import COMM  # noqa: E402  (the collectives, in a world of one)

from grad_specs_cplx33 import COMPLEX  # noqa: E402  (the complex rows, through real inputs and results)

SPECS = _elementwise_specs() + OTHER + EVERYDAY + CNN + COMM + COMPLEX
