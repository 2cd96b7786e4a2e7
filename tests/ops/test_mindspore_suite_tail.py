"""The op tail MindSpore's CPU op tests need (issue 33, tail33): each test here fails on the main
before it. Values against MindSpore's recordings are in tests/conformance/cases_tail.py
(data/tail.json); Shift / Rolling in test_named_kernels.py."""
import math

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.ops.function import random_func


def _poisson_pmf(lam, k):
    return math.exp(-lam + k * math.log(lam) - math.lgamma(k + 1)) if lam > 0 else float(k == 0)


@pytest.mark.parametrize("lam", [0.7, 6.0, 30.0, 400.0])
def test_random_poisson_follows_the_poisson_law(lam):
    """Both samplers (inverse CDF below 10, PTRS above): the frequency of each count within 5
    standard errors of the law's probability, over 20,000 draws."""
    n = 20000
    x = random_func.random_poisson(Tensor(np.array([n], np.int32)), Tensor(np.array(lam, np.float32)), seed=7,
                                   dtype=ms.int64).asnumpy()
    assert x.shape == (n,) and x.dtype == np.int64 and x.min() >= 0
    lo, hi = int(max(0, lam - 4 * math.sqrt(lam))), int(lam + 4 * math.sqrt(lam)) + 1
    for k in range(lo, hi):
        p = _poisson_pmf(lam, k)
        assert abs(np.mean(x == k) - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-3, (lam, k)


def test_random_poisson_shape_is_shape_then_rate_shape():
    out = ops.random_poisson(Tensor(np.array([3, 2]), ms.int64), Tensor(np.ones((2, 2)), ms.float16), seed=5,
                             dtype=ms.float16)
    assert out.shape == (3, 2, 2, 2) and out.dtype == ms.float16


@pytest.mark.parametrize("args, exc", [
    (((3, 5), Tensor(np.array([0.5], np.float32))), TypeError),
    ((Tensor(np.array([[1, 2], [3, 5]], np.int32)), Tensor(np.array([0.5], np.float32))), ValueError),
    ((Tensor(np.array([-3, 5], np.int32)), Tensor(np.array([0.5], np.float32))), ValueError),
    ((Tensor(np.array([3, 5], np.int32)), [0.5]), TypeError),
])
def test_random_poisson_argument_errors(args, exc):
    with pytest.raises(exc, match="RandomPoisson"):
        ops.random_poisson(*args, seed=1)
    with pytest.raises(TypeError, match="seed"):
        ops.random_poisson(Tensor(np.array([3], np.int32)), Tensor(np.array([0.5], np.float32)), seed=0.5)


@pytest.mark.cc
def test_gather_with_a_constant_index_of_more_than_64_elements_compiles_right():
    """A constant over 64 elements is passed to the C entry as an argument pointer expression,
    which the Gather kernel took for a scalar index (every index read as the pointer's value)."""
    idx = (np.arange(90) % 15).astype(np.int32)

    @ms.jit
    def f(x):
        return ops.gather(x, Tensor(idx), 1)

    x = np.random.default_rng(0).random((2, 15)).astype(np.float32)
    np.testing.assert_array_equal(f(Tensor(x)).asnumpy(), x[:, idx])


def _pool3d_ref(x, k, kind):
    """Valid 3-D pooling with stride 1, by brute force."""
    n, c, d, h, w = x.shape
    out = np.empty((n, c, d - k[0] + 1, h - k[1] + 1, w - k[2] + 1), x.dtype)
    for i, j, m in np.ndindex(*out.shape[2:]):
        win = x[:, :, i:i + k[0], j:j + k[1], m:m + k[2]]
        out[:, :, i, j, m] = win.max(axis=(2, 3, 4)) if kind == "max" else win.mean(axis=(2, 3, 4))
    return out


def test_pool3d_primitives_and_functions():
    x = np.random.default_rng(3).standard_normal((1, 2, 4, 5, 6)).astype(np.float32)
    np.testing.assert_allclose(ops.MaxPool3D(kernel_size=(2, 2, 3), strides=1)(Tensor(x)).asnumpy(),
                               _pool3d_ref(x, (2, 2, 3), "max"))
    np.testing.assert_allclose(ops.AvgPool3D(kernel_size=(2, 2, 3), strides=1)(Tensor(x)).asnumpy(),
                               _pool3d_ref(x, (2, 2, 3), "avg"), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.avg_pool3d(Tensor(x), kernel_size=3, stride=1).asnumpy(),
                               _pool3d_ref(x, (3, 3, 3), "avg"), rtol=1e-5, atol=1e-6)
    assert ops.MaxPool3D(kernel_size=2, pad_mode="same", strides=3)(Tensor(x)).shape == (1, 2, 2, 2, 2)
    with pytest.raises(ValueError, match="x_rank must be equal to 5"):
        ops.MaxPool3D(kernel_size=2)(Tensor(x[0]))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_tensor_index_add_on_a_parameter(mode):
    """test_index_add_op's Tensor-method form: x.index_add(dim, index, source, alpha=...)."""
    ms.set_context(mode=mode)
    try:
        x = ms.Parameter(Tensor(np.arange(9, dtype=np.float32).reshape(3, 3)), name="x")
        src = Tensor(np.array([[0.5, 1.0], [1.0, 1.5], [2.0, 2.5]], np.float32))
        out = x.index_add(1, Tensor(np.array([0, 2], np.int32)), src, alpha=2)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    want = np.arange(9, dtype=np.float32).reshape(3, 3)
    want[:, [0, 2]] += 2 * src.asnumpy()
    np.testing.assert_array_equal(out.asnumpy(), want)


def test_erfinv_inverts_erf():
    x = np.array([-0.999999, -0.99, -0.5, 0.0, 1e-7, 0.3, 0.9, 0.9999], np.float64)
    y = ops.erfinv(Tensor(x)).asnumpy()
    np.testing.assert_allclose([math.erf(v) for v in y], x, rtol=1e-12, atol=1e-15)
    edge = Tensor(np.array([1.0, -1.0, 1.5, np.nan], np.float32)).erfinv().asnumpy()
    assert edge[0] == np.inf and edge[1] == -np.inf and np.isnan(edge[2]) and np.isnan(edge[3])


def test_space_to_batch_nd_inverts_batch_to_space_nd():
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 6)).astype(np.float32)
    y = ops.SpaceToBatchND((2, 3), [[1, 1], [0, 3]])(Tensor(x))
    assert y.shape == (12, 3, 3, 3)
    back = ops.batch_to_space_nd(y, (2, 3), [[1, 1], [0, 3]]).asnumpy()
    np.testing.assert_array_equal(back, x)


def test_reverse_sequence_check_valid_approximate_equal_truncate():
    x = np.arange(24, dtype=np.int32).reshape(3, 4, 2)
    lens = np.array([1, 4, 2], np.int32)
    want = x.copy()
    for b, n in enumerate(lens):
        want[b, :n] = x[b, :n][::-1]
    np.testing.assert_array_equal(ops.ReverseSequence(seq_dim=1)(Tensor(x), Tensor(lens)).asnumpy(), want)
    boxes = np.array([[1, 1, 2, 3], [-1, 0, 4, 5], [0, 0, 5, 6]], np.float32)
    np.testing.assert_array_equal(ops.CheckValid()(Tensor(boxes), Tensor(np.array([7, 6, 1], np.float32))).asnumpy(),
                                  [True, False, True])
    a, b = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([1.2, 2.9], np.float32))
    np.testing.assert_array_equal(ops.ApproximateEqual(0.5)(a, b).asnumpy(), [True, False])
    np.testing.assert_array_equal(ops.TruncateDiv()(Tensor(np.array([7, -7], np.int32)), Tensor(np.array([2, 2], np.int32))).asnumpy(),
                                  [3, -3])
    np.testing.assert_array_equal(ms.nn.FastGelu()(a).asnumpy(), ops.fast_gelu(a).asnumpy())


def test_cell_compile_builds_without_running_and_print_function(capsys):
    class Step(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(Tensor(np.zeros(3, np.float32)), name="w")

        def construct(self, x):
            ops.print_("step", x)
            ops.assign(self.w, self.w + x)
            return self.w

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net, x = Step(), Tensor(np.ones(3, np.float32))
        assert net.compile(x) is None
        np.testing.assert_array_equal(net.w.asnumpy(), np.zeros(3))     # compiled, not run
        np.testing.assert_array_equal(net(x).asnumpy(), np.ones(3))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert "step" in capsys.readouterr().out


def test_grad_ops_dropout_slice_strided_slice():
    from pycompile.ops.operations import _grad_ops as G
    dy = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    out = G.DropoutGrad(0.5)(Tensor(dy), Tensor(np.array([[1, 0, 1], [0, 0, 1]], np.float32))).asnumpy()
    np.testing.assert_array_equal(out, dy * [[2, 0, 2], [0, 0, 2]])
    x = Tensor(np.zeros((3, 4), np.float32))
    want = np.zeros((3, 4), np.float32)
    want[1:3, 1:4] = np.arange(6).reshape(2, 3)
    got = G.SliceGrad()(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), x, (1, 1), (2, 3)).asnumpy()
    np.testing.assert_array_equal(got, want)
    want = np.zeros((3, 4), np.float32)
    want[0:3:2, 1:4:2] = 7
    got = G.StridedSliceGrad()(Tensor(np.full((2, 2), 7, np.float32)), (3, 4), (0, 1), (3, 4), (2, 2)).asnumpy()
    np.testing.assert_array_equal(got, want)


def test_rint_and_median_primitives():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 2.6, np.inf], np.float32)
    np.testing.assert_array_equal(ops.Rint()(Tensor(x)).asnumpy(), np.rint(x))
    m = np.array([[3.0, np.nan, 1.0, 2.0], [4.0, 8.0, 6.0, 5.0]], np.float32)
    v, i = ops.Median(axis=1)(Tensor(m))
    np.testing.assert_array_equal(v.asnumpy(), [np.nan, 5.0])
    np.testing.assert_array_equal(i.asnumpy(), [1, 3])
    v, i = ops.Median(axis=1, ignore_nan=True)(Tensor(m))
    np.testing.assert_array_equal(v.asnumpy(), [2.0, 5.0])
    assert i.dtype == ms.int64
