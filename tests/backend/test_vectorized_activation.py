"""The activation rows vectorize like the other elementwise ops: alone, chained, in a matrix
product's epilogue and in float16 (expm1 / log1p / tanh / exp go through libmvec)."""
import numpy as np
import pytest

from test_vectorized import _tile_loops, _vectorized_lines

import pycompile as ms
from pycompile import Tensor, ops


def chain(x):
    return (ops.silu(x) + ops.mish(x) * ops.softsign(x), ops.elu(x) - ops.selu(x) + ops.relu6(x),
            ops.logsigmoid(x) * ops.softplus(x, beta=2), ops.leaky_relu(x, 0.1) + ops.hardtanh(x) + ops.celu(x, 0.5),
            ops.tanhshrink(x))


def dense_act(x, w, b):
    y = ops.MatMul(transpose_b=True)(x, w) + b
    return ops.silu(y), ops.mish(y + 1), ops.leaky_relu(y - 1)


CASES = [
    (chain, lambda: (np.ones((33, 70), np.float32),)),
    (chain, lambda: (np.ones((33, 70), np.float16),)),
    (dense_act, lambda: (np.ones((64, 32), np.float32), np.ones((512, 32), np.float32), np.ones(512, np.float32))),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}-{c[1]()[0].dtype}" for c in CASES])
def test_activation_tile_loops_are_vectorized(fn, args, tmp_path):
    report = ms.inspect(fn, *[Tensor(a) for a in args()])
    loops = _tile_loops(report.c_source)
    assert loops, "expected elementwise kernels in the generated C"
    vectorized = _vectorized_lines(report.c_source, tmp_path)
    missed = [start for start, end in loops if not any(start <= v <= end for v in vectorized)]
    src = report.c_source.splitlines()
    assert not missed, "not vectorized:\n" + "\n".join(f"{n}: {src[n - 1]}" for n in missed)
