"""The everyday surface beyond its NumPy specs: vmap over the new ops (the axis-shifting rule of
the scans and orderings, the per-example loop of the gathers and scatters), Tensor methods whose
result depends on the mode as in MindSpore, Tensor.from_numpy's shared memory, and errors with
MindSpore's classes."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

X = np.random.default_rng(0).standard_normal((4, 3, 5)).astype(np.float32)
IDX = Tensor(np.array([[0, 2], [1, 1], [4, 0]], np.int32))

VMAPPED = {
    "cumsum": lambda v: ops.cumsum(v, 1),
    "cumprod exclusive reverse": lambda v: ops.CumProd(True, True)(v, 0),
    "sort descending": lambda v: ops.sort(v, 0, True),
    "topk": lambda v: ops.topk(v, 2),
    "argmin": lambda v: ops.argmin(v, 1),
    "gather_elements": lambda v: ops.gather_elements(v, 1, IDX),
    "split": lambda v: ops.split(v, 2, 1),
    "tensor_scatter_add": lambda v: ops.tensor_scatter_add(v, Tensor(np.array([[1], [1]], np.int32)), v[:2]),
    "prod": lambda v: ops.prod(v, 1),
}


def _tuple(o):
    return o if isinstance(o, tuple) else (o,)


@pytest.mark.parametrize("name", VMAPPED)
@pytest.mark.parametrize("in_axes", [0, 1])
def test_vmap_matches_a_loop_over_examples(name, in_axes):
    f = VMAPPED[name]
    got = _tuple(ms.vmap(f, in_axes=in_axes)(Tensor(X)))
    examples = np.moveaxis(X, in_axes, 0)
    for k, g in enumerate(got):
        want = np.stack([_tuple(f(Tensor(e)))[k].asnumpy() for e in examples])
        assert g.shape == want.shape
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-6)


def max_positional(x):
    return x.max(1), x.min(0, True), x.argmax()


def test_tensor_max_with_a_positional_dim_follows_the_mode():
    """MindSpore 2.10: PyNative x.max(1) is (values, indices), graph mode gives the values;
    x.argmax() is flat in PyNative and over the last axis in graph mode."""
    x = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], np.float32)
    (v, i), (w, j), a = max_positional(Tensor(x))
    np.testing.assert_array_equal(v.asnumpy(), [5, 7])
    assert i.dtype == ms.int64 and list(i.asnumpy()) == [1, 0]
    np.testing.assert_array_equal(w.asnumpy(), [[1, 0, 2]])
    assert list(j.asnumpy().ravel()) == [0, 1, 0] and int(a.asnumpy()) == 3
    v, w, a = ms.jit(max_positional)(Tensor(x))
    np.testing.assert_array_equal(v.asnumpy(), [5, 7])
    np.testing.assert_array_equal(w.asnumpy(), [[1, 0, 2]])
    np.testing.assert_array_equal(a.asnumpy(), [1, 0])


def test_from_numpy_shares_memory_and_value_is_the_tensor():
    arr = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = Tensor.from_numpy(arr)
    arr[0, 0] = 42
    assert t.dtype == ms.int32 and t.asnumpy()[0, 0] == 42
    assert t.value() is t


def _select_positive(x):
    return ops.masked_select(x, x > 0)


def _select_then_reshape(x):
    return ops.masked_select(x, x > 0).reshape(1, -1)


def test_masked_select_in_graph_returns_the_true_length():
    got = ms.jit(_select_positive)(Tensor(X))
    assert got.shape == (int((X > 0).sum()),)
    np.testing.assert_array_equal(got.asnumpy(), X[X > 0])


ERRORS = [
    ("split sizes", lambda: ops.split(Tensor(X), [1, 1], 0), ValueError, "The sum of 'split_size_or_sections'"),
    ("Split divisible", lambda: ops.Split(2, 2)(Tensor(X)), ValueError, "must be divisible by output_num = 2"),
    ("topk k", lambda: ops.topk(Tensor(X), 6), ValueError, r"For primitive\[TopK\], the k must be in \(0,5\]"),
    ("masked_fill kind", lambda: ops.masked_fill(Tensor(X), Tensor(X > 0), 2), TypeError, "MaskedFill"),
    ("gather_elements range", lambda: ops.gather_elements(Tensor(X), 2, Tensor(np.full((4, 3, 1), 5, np.int32))),
     RuntimeError, r"For 'GatherD', the value of 'index' must be in \[-5, 5\), but got: 5"),
    ("gather_nd negative", lambda: ops.gather_nd(Tensor(X), Tensor(np.array([[-1]], np.int32))), RuntimeError,
     "For 'GatherNd'"),
    ("tensor_scatter_update range", lambda: ops.tensor_scatter_update(
        Tensor(X), Tensor(np.array([[4]], np.int32)), Tensor(X[:1])), ValueError, "For 'TensorScatterUpdate'"),
    ("scatter_nd range", lambda: ops.scatter_nd(Tensor(np.array([[5]], np.int32)), Tensor(X[:1]), (4, 3, 5)),
     RuntimeError, "For 'TensorScatterAdd'"),
    ("assign_sub rank", lambda: ops.assign_sub(ms.Parameter(Tensor(X), name="p"), 1.0), ValueError,
     "must have the same rank as 'variable'"),
    ("masked_select then reshape in graph", lambda: ms.jit(_select_then_reshape)(Tensor(X)), RuntimeError,
     r"For 'Reshape', the input's length is known only at run time"),
    ("round decimals", lambda: ops.round(Tensor(X), decimals=1), ValueError, "decimals"),
    ("norm ord 3 of a matrix", lambda: ops.norm(Tensor(X[0]), 3), ValueError,
     r"For norm, the ord mode must be in \[2, -2, 1, -1, .*for matrices, but got 3"),
    ("einsum sizes", lambda: ops.einsum("ij,jk->ik", Tensor(X[0]), Tensor(X[0])), ValueError, "sizes"),
]


@pytest.mark.parametrize("fn, cls, pattern", [pytest.param(*e[1:], id=e[0]) for e in ERRORS])
def test_errors_have_mindspores_class(fn, cls, pattern):
    with pytest.raises(cls, match=pattern):
        fn()
