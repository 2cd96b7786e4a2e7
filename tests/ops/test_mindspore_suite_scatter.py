"""What MindSpore's CPU op tests of the arithmetic scatters, unsorted segments, Padding, LinSpace,
std_mean and RandomShuffle need (issue 33): their import paths, the Parameter forms in graph
code, and MindSpore's exception classes for the errors they check. Values against MindSpore's
recorded results are in tests/conformance/cases_scatter.py; against NumPy in op_specs_scatter.py."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile.ops.operations import array_ops, random_ops


class _ScatterNdNet(nn.Cell):
    def __init__(self, cls, x):
        super().__init__()
        self.op = cls(use_locking=False)
        self.x = Parameter(Tensor(x), name="input_x")

    def construct(self, indices, updates):
        self.op(self.x, indices, updates)
        return self.x


@pytest.mark.cc
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_scatter_nd_mul_updates_the_parameter(mode):
    ms.set_context(mode=mode)
    try:
        x = np.ones((4, 2, 2), np.int8)
        upd = np.full((2, 2, 2), 5, np.int8)
        out = _ScatterNdNet(array_ops.ScatterNdMul, x)(Tensor(np.array([[0], [2]], np.int32)), Tensor(upd))
        want = x.copy()
        want[[0, 2]] *= 5
        assert out.dtype == ms.int8 and np.array_equal(out.asnumpy(), want)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.cc
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_scatter_nd_div_out_of_range_raises_runtime_error(mode):
    ms.set_context(mode=mode)
    try:
        net = _ScatterNdNet(ops.ScatterNdDiv, np.ones((4, 4), np.int32))
        with pytest.raises(RuntimeError, match="ScatterDiv"):
            net(Tensor(np.array([[0], [4]], np.int32)), Tensor(np.ones((2, 4), np.int32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_tensor_scatter_checks_match_mindspore():
    x = Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.int32))
    with pytest.raises(TypeError):            # int16 indices
        ops.TensorScatterAdd()(x, Tensor(np.array([[0, 1]], np.int16)), Tensor(np.array([1], np.int32)))
    with pytest.raises(TypeError):            # TensorScatterDiv refuses int8
        ops.TensorScatterDiv()(Tensor(np.ones((2, 3), np.int8)), Tensor(np.array([[0, 1]], np.int32)),
                               Tensor(np.array([1], np.int8)))
    with pytest.raises(ValueError):           # an index tuple longer than the rank
        ops.TensorScatterMax()(x, Tensor(np.array([[0, 1, 2]], np.int32)), Tensor(np.array([1], np.int32)))
    with pytest.raises(RuntimeError):
        ops.TensorScatterMin()(x, Tensor(np.array([[10, 10]], np.int32)), Tensor(np.array([1], np.int32)))


def test_unsorted_segment_id_out_of_range_raises_runtime_error():
    with pytest.raises(RuntimeError, match=r"For 'UnsortedSegmentMax', segment_ids value should be \[0, 2\)"):
        ops.UnsortedSegmentMax()(Tensor(np.arange(4, dtype=np.float32)), Tensor(np.array([0, 0, 1, 2], np.int32)), 2)


def test_random_shuffle_permutes_the_first_axis():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    out = random_ops.RandomShuffle(seed=3, seed2=1)(Tensor(x)).asnumpy()
    assert out.shape == (6, 2) and sorted(map(tuple, out)) == sorted(map(tuple, x))
    assert random_ops.RandomShuffle(1, 1)(Tensor(np.array(2.5, np.float32))) == 2.5
    with pytest.raises(TypeError):
        ops.shuffle(2, seed=3)
    with pytest.raises(ValueError):
        ops.shuffle(Tensor(x), seed=-3)
    with pytest.raises(TypeError):
        ops.shuffle(Tensor(x), seed=True)


def test_padding_and_linspace_arguments():
    out = ops.Padding(3)(Tensor(np.array([[True], [False]])))
    assert out.dtype == ms.bool_ and out.asnumpy().tolist() == [[True, False, False], [False, False, False]]
    with pytest.raises(ValueError):
        ops.Padding(3)(Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(ValueError):
        ops.linspace(Tensor(1.0, ms.float32), Tensor(2.0, ms.float32), 0)
    with pytest.raises(TypeError):
        ops.LinSpace()(Tensor(1, ms.int32), Tensor(2, ms.int32), 3)


class _StdMean(nn.Cell):
    @ms.jit
    def construct(self, x):
        return ops.std_mean(x, axis=(-1, 0), ddof=False, keepdims=True)


@pytest.mark.cc
def test_std_mean_in_graph_code():
    x = np.random.default_rng(0).random((3, 2, 6)).astype(np.float32)
    std, mean = _StdMean()(Tensor(x))
    np.testing.assert_allclose(std.asnumpy(), np.std(x, (0, 2), keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), np.mean(x, (0, 2), keepdims=True), rtol=1e-5)


def _step(x):
    return ops.FusedSparseAdam()(x)


class _UsesAMissingName(nn.Cell):
    def construct(self, x):
        return ops.vmap(_step)(x)          # traced by vmap, not by the frontend


@pytest.mark.cc
def test_a_missing_mindspore_name_in_graph_code_is_the_users_error():
    """Not 'internal error in pycompile ... this is a bug in pycompile': the program uses a name
    pycompile does not have yet, reported at the user's line."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(Exception, match="FusedSparseAdam") as info:
            _UsesAMissingName()(Tensor(np.ones((2, 2), np.float32)))
        assert "internal error" not in str(info.value) and "test_mindspore_suite_scatter.py" in str(info.value)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_relu6_gradient_passes_at_six():
    """MindSpore's CPU ReLU6 gradient is 1 on (0, 6] (its test_relu6_op / test_relu6_grad_op expect it)."""
    x = Tensor(np.array([-1.0, 0.0, 1.0, 5.9, 6.0, 6.1, 10.0], np.float32))
    g = ops.grad(lambda t: ops.ReLU6()(t).sum())(x)
    assert g.asnumpy().tolist() == [0, 0, 1, 1, 1, 0, 0]
    from pycompile.ops.operations import _grad_ops as G
    assert G.ReLU6Grad()(Tensor(np.ones(7, np.float32)), x).asnumpy().tolist() == [0, 0, 1, 1, 1, 0, 0]


class _IndexAddNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.x = Parameter(Tensor(np.arange(15, dtype=np.float32).reshape(5, 3)), name="x")
        self.op = ops.IndexAdd(1)

    def construct(self, idx, y):
        return self.op(self.x, idx, y)


@pytest.mark.cc
def test_index_add_gradient_reaches_the_parameter_and_y():
    """MindSpore's test_index_add_op grad tests: d/dx is the output's cotangent, d/dy its columns `idx`."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _IndexAddNet()
        dout = Tensor(np.arange(63, 78, dtype=np.float32).reshape(5, 3))
        grad = ops.GradOperation(get_all=True, sens_param=True, get_by_list=True)(net, ms.ParameterTuple(net.trainable_params()))
        g_inputs, g_params = grad(Tensor(np.array([1], np.int32)), Tensor(np.arange(5, dtype=np.float32).reshape(5, 1)), dout)
        np.testing.assert_array_equal(g_params[0].asnumpy(), dout.asnumpy())
        np.testing.assert_array_equal(g_inputs[1].asnumpy(), dout.asnumpy()[:, 1:2])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
