"""In-place Tensor methods (ops/entries/inplace.py): `self` is updated and returned, keeping its
shape and dtype, as MindSpore 2.10 documents (its CPU wheel's PyNative returns a new tensor instead:
the returned values are recorded in tests/conformance/cases_inplace.py). Expected values are
NumPy's. In graph code the receiver's name is rebound, through loops and branches."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile.errors import CompileError

RNG = np.random.default_rng(7)
A = RNG.uniform(-3, 3, (3, 4)).astype(np.float32)
B = RNG.uniform(0.5, 2, (3, 4)).astype(np.float32)


def _np_put(a, idx, src, acc):
    out = a.copy().reshape(-1)
    for i, v in zip(idx.reshape(-1), src.reshape(-1)):
        out[i] = out[i] + v if acc else v
    return out.reshape(a.shape)


def _np_index(a, dim, idx, src, mode):
    out = a.copy()
    for k, i in enumerate(idx):
        sl = [slice(None)] * a.ndim
        sl[dim] = i
        take = [slice(None)] * a.ndim
        take[dim] = k
        if mode == "add":
            out[tuple(sl)] += src[tuple(take)]
        elif mode == "copy":
            out[tuple(sl)] = src[tuple(take)]
        else:
            out[tuple(sl)] = src
    return out


IDX = np.array([2, 0], np.int64)
SRC = RNG.uniform(-1, 1, (3, 2)).astype(np.float32)
MASK = RNG.uniform(size=(3, 4)) > 0.5
S_INDEX = np.array([[1, 0, 3, 2], [0, 1, 2, 3], [3, 2, 0, 1]], np.int64)

CASES = [
    ("add_", (Tensor(B),), {"alpha": 2}, A + 2 * B),
    ("add_", (1.5,), {}, A + 1.5),
    ("sub_", (Tensor(B[0]),), {}, A - B[0]),
    ("mul_", (Tensor(B),), {}, A * B),
    ("div_", (Tensor(B),), {}, A / B),
    ("div_", (Tensor(B),), {"rounding_mode": "floor"}, np.floor(A / B)),
    ("div_", (Tensor(B),), {"rounding_mode": "trunc"}, np.trunc(A / B)),
    ("floor_divide_", (2.0,), {}, np.floor_divide(A, 2.0)),
    ("remainder_", (1.5,), {}, np.mod(A, 1.5)),
    ("exp_", (), {}, np.exp(A)),
    ("log_", (), {}, np.log(np.abs(A) + 0.5)),
    ("sigmoid_", (), {}, 1 / (1 + np.exp(-A))),
    ("tanh_", (), {}, np.tanh(A)),
    ("floor_", (), {}, np.floor(A)),
    ("sign_", (), {}, np.sign(A)),
    ("clamp_", (-1.0, 1.0), {}, np.clip(A, -1, 1)),
    ("fill_", (2.5,), {}, np.full_like(A, 2.5)),
    ("fill_", (Tensor(np.array([4.0], np.float32)),), {}, np.full_like(A, 4.0)),
    ("zero_", (), {}, np.zeros_like(A)),
    ("copy_", (Tensor(B),), {}, B),
    ("masked_fill_", (Tensor(MASK), -7.0), {}, np.where(MASK, -7.0, A).astype(np.float32)),
    ("addmm_", (Tensor(B[:, :2]), Tensor(B[:2, :])), {"beta": 0.5, "alpha": 2},
     0.5 * A + 2 * (B[:, :2] @ B[:2, :])),
    ("index_add_", (1, Tensor(IDX), Tensor(SRC)), {"alpha": 3}, _np_index(A, 1, IDX, 3 * SRC, "add")),
    ("index_copy_", (1, Tensor(IDX), Tensor(SRC)), {}, _np_index(A, 1, IDX, SRC, "copy")),
    ("index_fill_", (0, Tensor(np.array([1], np.int32)), 9.0), {}, _np_index(A, 0, [1], 9.0, "fill")),
    ("put_", (Tensor(np.array([0, -1, 5], np.int64)), Tensor(np.array([1., 2., 3.], np.float32))), {},
     _np_put(A, np.array([0, 11, 5]), np.array([1., 2., 3.]), False)),
    ("put_", (Tensor(np.array([0, 0], np.int64)), Tensor(np.array([1., 2.], np.float32)), True), {},
     _np_put(A, np.array([0, 0]), np.array([1., 2.]), True)),
    ("scatter_", (1, Tensor(S_INDEX), Tensor(B)), {},
     np.take_along_axis(B, np.argsort(S_INDEX, 1), 1)),
    ("scatter_add_", (1, Tensor(S_INDEX[:, :2]), Tensor(B)), {},
     A + np.stack([np.bincount(S_INDEX[r, :2], B[r, :2], minlength=4) for r in range(3)]).astype(np.float32)),
]


def _source(name, args):
    a = A.copy()
    if name == "log_":
        a = np.abs(a) + 0.5
    return a


@pytest.mark.parametrize("name,args,kwargs,expected", CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(CASES)])
def test_pynative_updates_self_and_returns_it(name, args, kwargs, expected):
    x = Tensor(_source(name, args))
    alias = x
    out = getattr(x, name)(*args, **kwargs)
    assert out is x
    assert x.dtype == ms.float32 and x.shape == (3, 4)
    np.testing.assert_allclose(alias.asnumpy(), expected, rtol=1e-6, atol=1e-6)


def test_masked_scatter_and_fill_diagonal():
    x = Tensor(A.copy())
    src = np.arange(12, dtype=np.float32)
    x.masked_scatter_(Tensor(MASK), Tensor(src))
    expected = A.copy()
    expected[MASK] = src[:MASK.sum()]
    np.testing.assert_array_equal(x.asnumpy(), expected)
    tall = Tensor(np.zeros((7, 3), np.float32))
    tall.fill_diagonal_(1.0, wrap=True)
    ref = np.zeros((7, 3), np.float32)
    np.fill_diagonal(ref, 1.0, wrap=True)
    np.testing.assert_array_equal(tall.asnumpy(), ref)
    cube = Tensor(np.zeros((3, 3, 3), np.float32))
    cube.fill_diagonal_(2.0)
    assert cube.asnumpy()[1, 1, 1] == 2 and cube.asnumpy().sum() == 6


def test_the_result_keeps_self_dtype_and_shape():
    x = Tensor(np.array([1, 2, 3], np.int32))
    x.add_(1.5)             # computed in float, stored back as int32 (as C converts)
    assert x.dtype == ms.int32 and x.asnumpy().tolist() == [2, 3, 4]
    b = Tensor(np.array([True, False]))
    b.fill_(0)
    assert b.dtype == ms.bool_ and b.asnumpy().tolist() == [False, False]
    with pytest.raises(ValueError, match=r"Tensor.add_.*\[2, 3\].*\[3\]"):
        Tensor(np.ones(3, np.float32)).add_(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(RuntimeError, match="0-D Tensor or 1-D Tensor with shape=\\[1\\]"):
        Tensor(np.ones(3, np.float32)).fill_(Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="Long"):
        Tensor(np.ones(3, np.float32)).put_(Tensor(np.array([0], np.int32)), Tensor(np.ones(1, np.float32)))


def test_random_fills_have_their_distributions():
    ms.set_seed(3)
    x = Tensor(np.zeros(20000, np.float32))
    x.uniform_(2, 5)
    v = x.asnumpy()
    assert 2 <= v.min() and v.max() < 5 and abs(v.mean() - 3.5) < 0.03
    x.normal_(1, 2)
    v = x.asnumpy()
    assert abs(v.mean() - 1) < 0.05 and abs(v.std() - 2) < 0.05
    x.exponential_(4.0)
    assert x.asnumpy().min() >= 0 and abs(x.asnumpy().mean() - 0.25) < 0.01
    x.bernoulli_(0.3)
    assert set(np.unique(x.asnumpy())) <= {0.0, 1.0} and abs(x.asnumpy().mean() - 0.3) < 0.015
    x.random_(3, 7)
    assert set(np.unique(x.asnumpy())) == {3.0, 4.0, 5.0, 6.0}


def test_requires_grad_flag():
    p = Parameter(Tensor(A), name="p")
    assert p.requires_grad_(False) is p and p.requires_grad is False


# ---- graph mode ---------------------------------------------------------------------------------------
@ms.jit
def _loop_and_branch(x, n, flag):
    x.add_(1)
    for _ in range(3):
        x.mul_(2)
    while n > 0:
        x.sub_(1)
        n = n - 1
    if flag > 0:
        x.clamp_(-5.0, 5.0)
    y = x
    x.zero_()
    return x, y


def test_graph_code_rebinds_the_name_through_loops_and_branches():
    a = A.copy()
    x, y = _loop_and_branch(Tensor(a), Tensor(2), Tensor(1))
    expected = np.clip((a + 1) * 8 - 2, -5, 5)
    np.testing.assert_allclose(y.asnumpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(x.asnumpy(), np.zeros_like(a))
    # the same function in PyNative: `y = x` aliases, so y is zeroed too (documented difference)
    x2, y2 = _loop_and_branch.__wrapped__(Tensor(a), Tensor(2), Tensor(1))
    assert y2 is x2 and not y2.asnumpy().any()


class _Accumulate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = Parameter(Tensor(np.zeros(4, np.float32)), name="total")

    def construct(self, x):
        self.total.add_(x)
        return self.total * 1


class _AttributeTensor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.buf = Tensor(np.zeros(4, np.float32))

    def construct(self, x):
        self.buf.add_(x)
        return x


def test_graph_mode_parameter_is_assigned_and_a_tensor_attribute_is_refused():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _Accumulate()
    one = Tensor(np.ones(4, np.float32))
    net(one)
    out = net(one)
    np.testing.assert_array_equal(out.asnumpy(), np.full(4, 2.0))
    np.testing.assert_array_equal(net.total.asnumpy(), np.full(4, 2.0))
    with pytest.raises(CompileError, match="test_inplace_methods.py:[0-9]+.*in-place method 'add_'"):
        _AttributeTensor()(one)


def _square_sum(x):
    x.mul_(x)
    x.add_(x, alpha=0.5)
    return x.sum()


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_gradient_flows_through_inplace_ops(mode):
    """d/dx sum(1.5 x²) = 3x, against central differences in float64."""
    a = RNG.uniform(-2, 2, (5,))
    g = ms.grad(_square_sum)
    g = ms.jit(g) if mode == "jit" else g
    got = g(Tensor(a)).asnumpy()
    eps = 1e-6
    fd = np.array([(_square_sum(Tensor(a + eps * e)).asnumpy() - _square_sum(Tensor(a - eps * e)).asnumpy())
                   / (2 * eps) for e in np.eye(5)])
    np.testing.assert_allclose(got, fd, rtol=1e-6)
    np.testing.assert_allclose(got, 3 * a, rtol=1e-9)


def test_vmap_of_inplace_ops():
    out = ops.vmap(lambda v: v.add_(1).mul_(v))(Tensor(A))
    np.testing.assert_allclose(out.asnumpy(), (A + 1) ** 2, rtol=1e-6)


def test_a_constant_tensor_cannot_take_a_differentiated_value():
    buf = Tensor(np.zeros(2, np.float32))

    def f(x):
        buf.add_(x)
        return x.sum()
    with pytest.raises(TypeError, match="out-of-place"):
        ms.grad(f)(Tensor(np.ones(2, np.float32)))


@ms.jit
def _every_case_compiled(a):
    outs = []
    for name, args, kwargs, _ in CASES:
        x = ops.abs(a) + 0.5 if name == "log_" else a * 1
        outs.append(getattr(x, name)(*args, **kwargs))
    return outs


def test_compiled_results_equal_pynative_and_numpy():
    compiled = _every_case_compiled(Tensor(A))
    for (name, args, kwargs, expected), got in zip(CASES, compiled):
        eager = getattr(Tensor(_source(name, args)), name)(*args, **kwargs)
        np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(got.asnumpy(), eager.asnumpy(), rtol=1e-6, atol=1e-6, err_msg=name)
