"""The CNN family's ops compiled inside `@jit`, against their eager results and the NumPy
references of tests/ops/cnn_refs.py: convolutions over a grid of strides, dilations, pads
and groups (both direct kernels and the im2col path), their backprop ops, pooling of every
kind and its gradients, batch statistics, resampling and the random ops (compiled and eager
draw the same numbers). Two C modules cover them all."""
from __future__ import annotations

import numpy as np
import pytest

from opcheck import F32, F64, Check, Group, params

import cnn_refs as S
from test_conv_epilogue import EPILOGUE_OPS  # noqa: F401  (FusedConv: compiled by those tests)

_TOL = {np.dtype(F32): (2e-5, 2e-5), np.dtype(F64): (1e-10, 1e-12), np.dtype(np.float16): (4e-3, 4e-3)}


def _checks(cases):
    return [Check(name, (opname,), fn, args, ref, tol=_TOL) for name, opname, fn, ref, args in cases]


CONV = Group("cnn_conv", _checks(S.conv_cases() + S.conv_cases(F64)))
OTHER = Group("cnn_other", _checks(S.pool_cases() + S.pool_cases(F64)[:6] + S.misc_cases() + S.misc_cases(F64)
                                   + S.random_cases()))
GROUPS = [CONV, OTHER]


@pytest.mark.parametrize("group, name", params(GROUPS))
def test_compiled(group, name):
    group.run(name)

