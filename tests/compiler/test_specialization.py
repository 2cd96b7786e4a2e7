"""Specialization: one compile per call signature (tensor shapes / dtypes, Python constant
values), cache hits do no compile work, and shape errors are found when compiling."""
import numpy as np
import pytest

from frontend_helpers import assert_points_at, line_of, t

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile.backend import pipeline, toolchain


@pytest.fixture
def compiles(monkeypatch):
    """The list of names compile_call was called for (each entry is one compilation)."""
    calls = []
    real = pipeline.compile_call

    def counting(fn, *args, **kwargs):
        calls.append(getattr(fn, "__name__", fn))
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(pipeline, "compile_call", counting)
    return calls


def scale_add(x, k, mode="mul"):
    if mode == "mul":
        return x * k + 1
    return x + k


def test_same_signature_is_a_cache_hit(compiles):
    jf = ms.jit(scale_add)
    a, b = t([1.0, 2.0]), t([3.0, 4.0])
    np.testing.assert_allclose(jf(a, 2).asnumpy(), [3.0, 5.0])
    np.testing.assert_allclose(jf(b, 2).asnumpy(), [7.0, 9.0])       # new values, same signature
    assert len(compiles) == 1
    report = ms.inspect(jf, a, 2)
    assert ms.inspect(jf, b, 2) is report
    assert len(compiles) == 1


def test_shape_dtype_and_python_values_recompile(compiles):
    jf = ms.jit(scale_add)
    x = t([1.0, 2.0])
    jf(x, 2)
    assert len(compiles) == 1
    out = jf(t([1.0, 2.0, 3.0]), 2)                                    # shape
    np.testing.assert_allclose(out.asnumpy(), [3.0, 5.0, 7.0])
    assert len(compiles) == 2
    out = jf(t([1, 2], np.int32), 2)                                   # dtype
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [3, 5]
    assert len(compiles) == 3
    np.testing.assert_allclose(jf(x, 3).asnumpy(), [4.0, 7.0])         # Python scalar value
    assert len(compiles) == 4
    np.testing.assert_allclose(jf(x, 2.0).asnumpy(), [3.0, 5.0])       # int vs float
    assert len(compiles) == 5
    np.testing.assert_allclose(jf(x, True).asnumpy(), [2.0, 3.0])      # bool vs int
    assert len(compiles) == 6
    np.testing.assert_allclose(jf(x, 2, mode="add").asnumpy(), [3.0, 4.0])   # a string keyword
    assert len(compiles) == 7
    for k, expected in ((2, [3.0, 5.0]), (3, [4.0, 7.0]), (2.0, [3.0, 5.0])):
        np.testing.assert_allclose(jf(x, k).asnumpy(), expected)
    assert len(compiles) == 7                                          # all seen before


def test_numpy_scalars_are_keyed_by_value(compiles):
    jf = ms.jit(scale_add)
    x = t([1.0, 2.0])
    # temporaries: the second np.float32 may reuse the first one's id; the value must still count
    np.testing.assert_allclose(jf(x, np.float32(2.0)).asnumpy(), [3.0, 5.0])
    np.testing.assert_allclose(jf(x, np.float32(3.0)).asnumpy(), [4.0, 7.0])
    np.testing.assert_allclose(jf(x, np.float32(2.0)).asnumpy(), [3.0, 5.0])
    assert len(compiles) == 2


def loop_n(x, n, offsets):
    for i in range(n):
        x = x + offsets[i % len(offsets)]
    return x


def test_loop_bounds_and_tuple_constants_specialize(compiles):
    jf = ms.jit(loop_n)
    x = t([0.0, 1.0])
    for n, offsets in ((3, (1.0, 2.0)), (5, (1.0, 2.0)), (3, (10.0,)), (3, (1.0, 2.0))):
        np.testing.assert_allclose(jf(x, n, offsets).asnumpy(), loop_n(x, n, offsets).asnumpy())
    assert len(compiles) == 3


class Affine(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
        self.shift = 1.0

    def construct(self, x):
        return x * self.w + self.shift


def test_cell_graph_mode_cache_parameters_and_attributes(compiles):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Affine()
    x = t([1.0, 1.0])
    np.testing.assert_allclose(net(x).asnumpy(), [3.0, 4.0])
    np.testing.assert_allclose(net(x).asnumpy(), [3.0, 4.0])
    assert len(compiles) == 1
    # a Parameter is a graph input: a new value needs no recompile
    net.w.set_data(Tensor(np.array([10.0, 20.0], np.float32)))
    np.testing.assert_allclose(net(x).asnumpy(), [11.0, 21.0])
    assert len(compiles) == 1
    # a plain attribute is a compile-time constant: changing it recompiles
    net.shift = -1.0
    np.testing.assert_allclose(net(x).asnumpy(), [9.0, 19.0])
    assert len(compiles) == 2
    # another instance has its own cache (and its own Parameters)
    other = Affine()
    np.testing.assert_allclose(other(x).asnumpy(), [3.0, 4.0])
    assert len(compiles) == 3


def add_mismatch(x, y):
    z = x * 2
    return z + y


def test_shape_mismatch_is_a_compile_time_value_error(compiles, monkeypatch):
    cc_calls = []
    monkeypatch.setattr(toolchain, "compile_shared", lambda *a, **k: cc_calls.append(a))
    jf = ms.jit(add_mismatch)
    x = Tensor(np.ones((2, 3), np.float32))
    y = Tensor(np.ones((4,), np.float32))
    with pytest.raises(ms.CompileError) as info:
        jf(x, y)
    err = info.value
    assert isinstance(err, ValueError) and isinstance(err, RuntimeError)
    msg = str(err)
    assert_points_at(msg, add_mismatch, "return z + y", "z + y")
    assert "[2, 3]" in msg and "[4]" in msg
    assert cc_calls == [], "the error must be found before any C is compiled"


def test_error_is_not_cached_and_a_good_call_still_compiles(compiles):
    jf = ms.jit(add_mismatch)
    with pytest.raises(ValueError):
        jf(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4,), np.float32)))
    with pytest.raises(ValueError):
        jf(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4,), np.float32)))
    out = jf(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3,), np.float32)))
    np.testing.assert_allclose(out.asnumpy(), np.full((2, 3), 3.0))


def test_matmul_shape_error_names_the_op_and_shapes():
    def mm(a, b):
        return ops.matmul(a, b)

    with pytest.raises(RuntimeError) as info:      # MindSpore's ops.matmul (MatMulExt): RuntimeError
        ms.jit(mm)(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4, 5), np.float32)))
    msg = str(info.value)
    assert isinstance(info.value, ms.CompileError)
    assert f"{__file__}:{line_of(mm, 'return ops.matmul')}:" in msg
    assert "MatMul" in msg or "matmul" in msg
    assert "3" in msg and "4" in msg


def test_inspect_of_a_plain_function_reuses_its_specializations(compiles):
    x = t([1.0, 2.0])
    first = ms.inspect(scale_add, x, 2)
    assert ms.inspect(scale_add, x, 2) is first
    assert ms.inspect(scale_add, t([5.0, 6.0]), 2) is first
    assert len(compiles) == 1
    assert ms.inspect(scale_add, x, 3) is not first
    assert len(compiles) == 2


def test_jit_of_a_bound_method_compiles_with_its_instance():
    import numpy as np

    import pycompile as ms
    from pycompile import Parameter, Tensor, nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([2.0], np.float32)), name="w")

        def construct(self, x):
            return x * self.w

    net = Net()
    f = ms.jit(net.construct)
    np.testing.assert_array_equal(f(Tensor(np.array([3.0], np.float32))).asnumpy(), [6.0])
    net.w.set_data(Tensor(np.array([5.0], np.float32)))
    np.testing.assert_array_equal(f(Tensor(np.array([3.0], np.float32))).asnumpy(), [15.0])


def test_jit_of_a_pycompile_op_function_compiles_it(compiles):
    """ms.jit(ops.inverse): the op's function is called on the graph's values, as graph code calls
    it, not parsed as graph code (an op entry's wrapper holds a `try`: "Unsupported statement
    'Try' in graph code")."""
    x = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)
    got = ms.jit(ops.inverse)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, np.linalg.inv(x), rtol=1e-6)
    np.testing.assert_array_equal(ms.jit(ops.tile)(Tensor(x), (1, 2)).asnumpy(), np.tile(x, (1, 2)))
    assert len(compiles) == 2
