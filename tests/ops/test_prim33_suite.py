"""MindSpore's CPU suite fixes of prim33 (issue 33): each test here fails on the main before it.
Values recorded from the wheel are in tests/conformance/cases_prim33.py."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops


def _gather_rows(x, idx):
    return ops.gather(x, idx, 0)


X3 = np.arange(1, 13, dtype=np.float32).reshape(2, 2, 3)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_vmap_gather_with_both_batched_reports_gathers_range_error(mode):
    """vmap of Gather with the table and the indices batched reads through GatherD: an index out
    of range must still say Gather's words (the suite's test_gather_vmap_indices_outofbound)."""
    ms.set_context(mode=mode)
    try:
        f = ms.vmap(_gather_rows, in_axes=(0, 0))
        out = f(Tensor(X3), Tensor(np.array([[1, -1], [0, 1]], np.int32)))
        np.testing.assert_array_equal(out.asnumpy(), np.stack([X3[0][[1, 1]], X3[1][[0, 1]]]))
        with pytest.raises(RuntimeError, match="For 'Gather', the 'input_indices' should be in the range"):
            f(Tensor(X3), Tensor(np.array([[0, 2], [2, 0]], np.int32))).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@ms.jit
def _jit_vmap_gather(x, idx):
    return ms.vmap(_gather_rows, in_axes=(0, 0))(x, idx)


@pytest.mark.cc
def test_vmap_gather_range_error_in_compiled_code():
    out = _jit_vmap_gather(Tensor(X3), Tensor(np.array([[1, -2], [0, 1]], np.int32)))
    np.testing.assert_array_equal(out.asnumpy(), np.stack([X3[0][[1, 0]], X3[1][[0, 1]]]))
    with pytest.raises(RuntimeError, match="For 'Gather', the 'input_indices' should be in the range"):
        _jit_vmap_gather(Tensor(X3), Tensor(np.array([[0, 1], [-3, 0]], np.int32))).asnumpy()


class _UniqueReshape(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.unique = ops.Unique()

    def construct(self, x):
        y, _ = self.unique(x)
        return ops.reshape(y, (3, 3)) * 2


@pytest.mark.cc
def test_unique_then_reshape_to_a_static_shape_in_graph_mode():
    """Unique's values have a length known only at run time in compiled code: Reshape to a static
    shape takes the first n, checked when the graph runs (the suite's *_dynamic_shape tests)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _UniqueReshape()
        x = np.array([8, -3, 0, 0, 10, 1, 21, -3, 11, 4, -2, 10, 8], np.float32)
        np.testing.assert_array_equal(net(Tensor(x)).asnumpy(),
                                      2 * np.array([8, -3, 0, 10, 1, 21, 11, 4, -2], np.float32).reshape(3, 3))
        with pytest.raises(RuntimeError, match="For 'Reshape'.*must be 9"):
            net(Tensor(x[:9])).asnumpy()            # 7 distinct values
        with pytest.raises(RuntimeError, match="For 'Reshape'.*at most 5"):
            net(Tensor(x[:5])).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _band(a, lo, up):
    """NumPy's band of every matrix (negative: the whole triangle)."""
    i, j = np.indices(a.shape[-2:])
    return a * (((i - j <= lo) | (lo < 0)) & ((j - i <= up) | (up < 0)))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_matrix_band_part_with_tensor_bounds_and_under_vmap(mode):
    """MatrixBandPart's bounds may be int tensors (the suite's test_matrix_band_part_vmap maps over
    them: 'lower' a batch tracer); main refused anything but an int."""
    ms.set_context(mode=mode)
    try:
        a = np.arange(1, 31, dtype=np.float32).reshape(2, 3, 5)
        out = ms.vmap(ops.matrix_band_part, (0, 0, None), 0)(Tensor(a), Tensor(np.array([1, -1], np.int64)), 0)
        np.testing.assert_array_equal(out.asnumpy(), np.stack([_band(a[0], 1, 0), _band(a[1], -1, 0)]))
        out = ops.matrix_band_part(Tensor(a), Tensor(np.array(0, np.int32)), Tensor(np.array([2, -1], np.int32)))
        np.testing.assert_array_equal(out.asnumpy(), np.stack([_band(a[0], 0, 2), _band(a[1], 0, -1)]))
        with pytest.raises(TypeError, match="'lower' should be int32 or int64"):
            ops.matrix_band_part(Tensor(a), Tensor(np.array(1.0, np.float32)), 1)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _VmapApply(ms.nn.Cell):
    """The suite's pattern (test_apply_*_vmap): vmap over a function that updates Parameters."""

    def __init__(self):
        super().__init__()
        self.var = ms.Parameter(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)), name="var")
        self.acc = ms.Parameter(Tensor(np.array([[0.5, 0.5], [1.0, 1.0]], np.float32)), name="acc")

        def step(var, acc, lr, grad):
            return ops.ApplyAdagrad()(var, acc, lr, grad)
        self.step = ms.vmap(step, in_axes=(0, 0, 0, None), out_axes=0)

    def construct(self, lr, grad):
        return self.step(self.var, self.acc, lr, grad)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_vmap_over_parameters_updates_each_row(mode):
    """Assign of a mapped Parameter writes the whole batch (main: 'the first argument must be a
    Parameter' in graph mode, as each example's slice was assigned)."""
    ms.set_context(mode=mode)
    try:
        net = _VmapApply()
        lr, grad = np.array([0.1, 0.2], np.float32), np.array([1.0, -2.0], np.float32)
        var, acc = net(Tensor(lr), Tensor(grad))
        acc_np = np.array([[0.5, 0.5], [1.0, 1.0]], np.float32) + grad ** 2
        var_np = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32) - lr[:, None] * grad / np.sqrt(acc_np)
        np.testing.assert_allclose(var.asnumpy(), var_np, rtol=1e-6)
        np.testing.assert_allclose(acc.asnumpy(), acc_np, rtol=1e-6)
        np.testing.assert_allclose(net.var.asnumpy(), var_np, rtol=1e-6)
        np.testing.assert_allclose(net.acc.asnumpy(), acc_np, rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@ms.jit
def _div_modes(x, y):
    return x.div(y, rounding_mode="floor"), x.div(y, rounding_mode="trunc"), x.div(y)


def test_tensor_div_takes_rounding_mode():
    x, y = np.array([[0.93, -0.59], [-0.26, 0.71]]), np.array([-0.47, 0.3])
    for f in (_div_modes, _div_modes.__wrapped__ if hasattr(_div_modes, "__wrapped__") else _div_modes):
        fl, tr, plain = f(Tensor(x), Tensor(y))
        np.testing.assert_array_equal(fl.asnumpy(), np.floor(x / y))
        np.testing.assert_array_equal(tr.asnumpy(), np.trunc(x / y))
        np.testing.assert_allclose(plain.asnumpy(), x / y)
    fl = Tensor(x).div(Tensor(y), rounding_mode="floor")
    np.testing.assert_array_equal(fl.asnumpy(), np.floor(x / y))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_time_distributed_wraps_a_primitive(mode):
    ms.set_context(mode=mode)
    try:
        x = np.random.default_rng(3).integers(0, 10, (3, 6, 4)).astype(np.float32)
        for axis in (0, None):
            td = ms.nn.TimeDistributed(ops.Argmax(output_type=ms.int32, axis=1), time_axis=1, reshape_with_axis=axis)
            np.testing.assert_array_equal(td(Tensor(x)).asnumpy(), x.argmax(-1).astype(np.int32))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_functional_names_shadowing_builtins():
    """ops.functional.slice / range / max / min / round are MindSpore's ops (main: AttributeError);
    inside pycompile the builtins stay builtins."""
    from pycompile.ops import functional as F
    x = Tensor(np.arange(18, dtype=np.float32).reshape(3, 2, 3))
    np.testing.assert_array_equal(F.slice(x, (0, 1, 0), (2, 1, 3)).asnumpy(), np.arange(18).reshape(3, 2, 3)[:2, 1:2])
    assert F.slice is ops.slice and F.range is ops.range and F.max is ops.max


def test_fold_negative_output_size_message():
    with pytest.raises(ValueError, match="the value of 'output_size' must not be negative"):
        ops.fold(Tensor(np.ones((16, 64, 4), np.float32)), Tensor(np.array([6, -1], np.int32)), [2, 2], [2, 2],
                 [2, 2], [2, 2])


class _DenseNet(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = ops.Dense()

    def construct(self, x, w, b):
        return self.dense(x, w, b)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_dense_with_a_1d_weight_and_dynamic_rank_inputs(mode):
    """ops.Dense with a 1-D weight is one output unit, its axis dropped (the suite's test_1d_forward);
    Tensor(dtype=...) is MindSpore's dynamic-rank placeholder for set_inputs."""
    ms.set_context(mode=mode)
    try:
        net = _DenseNet()
        x, w = np.array([[1, 2, 3], [4, 5, 6]], np.float32), np.array([1, 2, 3], np.float32)
        net.set_inputs(Tensor(dtype=ms.float32), Tensor(dtype=ms.float32), Tensor(np.array(7, np.float32)))
        out = net(Tensor(x), Tensor(w), Tensor(np.array(7, np.float32)))
        np.testing.assert_allclose(out.asnumpy(), x @ w + 7)
        out = net(Tensor(x[0]), Tensor(w), Tensor(np.array(7, np.float32)))
        assert out.shape == () and float(out.asnumpy()) == 21.0
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _Draw(ms.nn.Cell):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def construct(self):
        return self.op((2000, 10))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_seeded_random_primitives_repeat_per_instance(mode):
    """Two instances of a random Primitive built with the same (seed, seed2) draw the same numbers,
    as MindSpore's do (the suite's test_standard_normal / uniform_real / standard_laplace); main
    drew from one global stream. StandardLaplace: Laplace(0, 1) (mean 0, E|x| = 1, var 2)."""
    ms.set_context(mode=mode)
    try:
        classes = (ops.StandardNormal, ops.UniformReal, ops.StandardLaplace) if mode == ms.PYNATIVE_MODE else \
            (ops.StandardLaplace,)                                          # each graph-mode Cell compiles
        for cls in classes:
            net = _Draw(cls(10, 3))
            a, b = net().asnumpy(), _Draw(cls(10, 3))().asnumpy()
            np.testing.assert_array_equal(a, b)
            assert not np.array_equal(a, net().asnumpy())                  # one instance's stream goes on
        x = _Draw(ops.StandardLaplace(5, 0))().asnumpy().ravel()
        assert abs(x.mean()) < 0.05 and abs(np.abs(x).mean() - 1) < 0.03 and abs(x.var() - 2) < 0.15
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_layer_norm_grad_with_a_given_mean_and_begin_params_axis_zero():
    """LayerNormGrad takes mean / variance as given (the suite's vmap test passes random ones):
    MindSpore's kernel form, against central differences of x -> (x - mean) rstd gamma with mean and
    variance held fixed; begin_params_axis 0 sums nothing for dgamma / dbeta (main summed all)."""
    from pycompile.ops.operations import _grad_ops as G
    rng = np.random.default_rng(20)
    x, g, dy = (rng.random((3, 4)) for _ in range(3))
    mean, var = np.array([[0.3]]), np.array([[0.7]])
    dx, dg, db = G.LayerNormGrad(0, 0)(Tensor(x), Tensor(dy), Tensor(var), Tensor(mean), Tensor(g))
    rstd = (var + 1e-12) ** -0.5
    n = x.size

    def f(v):        # what the kernel differentiates: the statistics recomputed from v
        m = v.mean()
        return (((v - m) * (((v - m) ** 2).mean() + 1e-12) ** -0.5) * g * dy).sum()
    # with the true statistics the kernel's form equals the derivative of f
    m_true, v_true = x.mean(keepdims=True), x.var(keepdims=True)
    dx_true = G.LayerNormGrad(0, 0)(Tensor(x), Tensor(dy), Tensor(v_true), Tensor(m_true), Tensor(g))[0].asnumpy()
    eps = 1e-6
    num = np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(n).reshape(n, 3, 4)]).reshape(3, 4)
    np.testing.assert_allclose(dx_true, num, rtol=1e-5, atol=1e-7)
    # with given statistics: the kernel's closed form
    d = x - mean
    s1, s2, s3 = (-0.5 * dy * g * d * rstd ** 3).sum(), (dy * g).sum(), (-2 * d).sum()
    np.testing.assert_allclose(dx.asnumpy(), dy * g * rstd + s1 * 2 / n * d + (s1 * s3 / n - rstd * s2) / n, rtol=1e-10)
    np.testing.assert_allclose(dg.asnumpy(), dy * d * rstd, rtol=1e-10)
    np.testing.assert_allclose(db.asnumpy(), dy, rtol=1e-12)
