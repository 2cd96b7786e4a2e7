"""Rows gathered with a run-time-length value in compiled code (ops/dynamic_length.py, N-d Bounded):
MindSpore's `Unique` then `Gather` then DepthToSpace / SpaceToBatchND (test_depthtospace_op.py and
test_spacetobatchnd_op.py of its CPU suite). Before, the Gather raised "For 'Gather', the input's
length is known only at run time". One compile serves every index vector; results equal NumPy's on
the true rows, including SpaceToBatchND's interleaved batch (blocks of the true row count)."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

RNG = np.random.default_rng(11)
X = RNG.standard_normal((5, 8, 2, 4)).astype(np.float32)


def _rows(x, idx):
    u, _ = ops.unique(idx)
    return ops.gather(x, u, 0)


@ms.jit
def depth_to_space(x, idx):
    return ops.DepthToSpace(2)(_rows(x, idx)) * 2.0


@ms.jit
def space_to_batch(x, idx):
    return ops.SpaceToBatchND((2, 2), ((0, 0), (0, 0)))(_rows(x, idx))


@ms.jit
def flattened(x, idx):
    return ops.reshape(_rows(x, idx), (-1,)) + 1.0


def _np_depth_to_space(x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return y.reshape(n, c // (b * b), h * b, w * b)


def _np_space_to_batch(x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(3, 5, 0, 1, 2, 4)
    return y.reshape(b * b * n, c, h // b, w // b)


@pytest.mark.parametrize("idx", [[0, 0, 1, 0, 4], [3, 1, 3, 3, 3], [4, 3, 2, 1, 0], [2, 2, 2, 2, 2]])
def test_gathered_rows_through_row_ops(idx):
    _, first = np.unique(np.array(idx), return_index=True)
    rows = X[np.array(idx)[np.sort(first)]]          # MindSpore's Unique: in order of first appearance
    i = Tensor(np.array(idx, np.int32))
    np.testing.assert_allclose(depth_to_space(Tensor(X), i).asnumpy(), 2 * _np_depth_to_space(rows, 2), rtol=1e-6)
    np.testing.assert_array_equal(space_to_batch(Tensor(X), i).asnumpy(), _np_space_to_batch(rows, 2))
    np.testing.assert_array_equal(flattened(Tensor(X), i).asnumpy(), rows.reshape(-1) + 1.0)


def test_a_value_returned_with_its_run_time_axis_second_is_cut_along_that_axis():
    @ms.jit
    def moved(x, idx):
        return ops.transpose(_rows(x, idx), (1, 0, 2, 3))

    idx = [0, 1, 1, 0, 2]
    _, first = np.unique(np.array(idx), return_index=True)
    rows = X[np.array(idx)[np.sort(first)]]
    got = moved(Tensor(X), Tensor(np.array(idx, np.int32))).asnumpy()
    np.testing.assert_array_equal(got, rows.transpose(1, 0, 2, 3))
