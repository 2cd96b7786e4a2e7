"""Every construct the frontend supports, compiled with `ms.jit` and compared with running the
same Python function eagerly (PyNative) or with NumPy."""
import numpy as np
import pytest

from frontend_helpers import assert_same, check, t

import pycompile as ms
from pycompile import Tensor, nn, ops

GLOBAL_SCALE = 3.0
GLOBAL_TABLE = (1, 2, 4)
GLOBAL_TENSOR = Tensor(np.array([10.0, 20.0], np.float32))


# ---- assignments and operators ---------------------------------------------------------------------------

def assignments(x, y):
    a, b = x, y
    (c, d), e = (a + 1, b * 2), 3
    first, *rest = (x, y, e)
    *init, last = [1, 2, 3]
    h, *mid, tl = (x, 1, 2.5, y)
    [p, q] = [d, c]
    u = v = a
    a += b
    a -= 1
    a *= 2
    a /= 4
    n = 2
    n += 3
    n **= 2
    n //= 3
    n %= 5
    s = a + c + d + first + rest[0] + rest[1] + last + sum(init) + mid[0] * mid[1] + n + p - q
    return s, h, tl, len(rest), len(mid), u - v, n


def test_assignments_unpacking_starred_and_augmented():
    check(assignments, t([1.0, 2.0]), t([3.0, -1.0]))


def arithmetic(x, y, i, k):
    r1 = (x + y, x - y, x * y, x / y, x // y, x % y, x ** 2, -x, +x, abs(x))
    r2 = (x + 1, 2 - x, x * 1.5, 3 / y, 2 ** x, x - 0.5 * y)
    r3 = (i & k, i | k, i ^ k, -i, i // 3, i % 3)
    r4 = (x < y, x <= y, x > y, x >= y, x == y, x != y, x > 0.5)
    n = 7
    m = 2.5
    r5 = (n + 1, n - m, n * m, n / 2, n // 2, n % 3, n ** 2, -n, n > m, n == 7, not n, n and m, 0 or m)
    return r1 + r2 + r3 + r4 + r5


def test_arithmetic_comparison_unary_on_tensors_and_numbers():
    x = t([[1.0, -2.5], [3.0, 4.0]])
    y = t([[2.0, 2.0], [-1.5, 4.0]])
    i = t([5, -3, 12], np.int32)
    k = t([3, 6, 10], np.int32)
    check(arithmetic, x, y, i, k)


def matmul_and_bool_ops(x, w, b):
    z = x @ w
    m = (b & (z > 0)) | ~b
    return z, m, b ^ m


def test_matmul_and_bool_tensor_ops():
    x = t([[1.0, 2.0], [3.0, -4.0]])
    w = t([[0.5, -1.0, 2.0], [1.0, 0.0, -3.0]])
    b = t([[True, False, True], [False, True, True]], np.bool_)
    check(matmul_and_bool_ops, x, w, b)


def boolean_ops(x, y):
    a = x > 0
    b = y > 0
    both = a and b                 # Python semantics: b if a else a
    either = a or b
    chain = 0 < x < 5              # (0 < x) and (x < 5)
    chain3 = -1 < x <= y < 10
    neg = not a
    picked = x and y               # the value of y, not a boolean
    fallback = (x - x) or y        # zero is falsy -> y
    const = 1 < 2 < 3
    return both, either, chain, chain3, neg, picked, fallback, const


def test_boolean_ops_and_chained_comparisons_on_single_element_tensors():
    check(boolean_ops, t([2.0]), t([3.0]))
    check(boolean_ops, t([-2.0]), t([3.0]))
    check(boolean_ops, t([7.0]), t([-3.0]))


# ---- containers, builtins ------------------------------------------------------------------------------

def containers(x, y):
    tup = (x, y, 3)
    lst = [x, 2.0]
    lst.append(y)
    lst.extend([x * 2])
    lst.insert(0, y - 1)
    popped = lst.pop()
    nested = ((x, 1), [y, (2, x)])
    d = {"a": x, "b": 2}
    d["c"] = y
    picked = tup[0] + tup[-2] + tup[2] + lst[1] + nested[1][1][1] + d["a"] * d["b"] + d["c"]
    sl = tup[1:]
    rev = tup[::-1]
    return (picked, sl, rev, len(tup), len(lst), len(x), popped, tup[:2] + (lst[0],),
            isinstance(x, Tensor), isinstance(3, int), isinstance(tup, (list, tuple)),
            isinstance(2.0, int), type(3) is int, max(3, 4), min((2, 9)), max(x[:1], y[:1]), min(x[1:2], y[1:2], 0.5),
            max(x), min(y),
            [i * 2 for i in range(3)], list(range(len(x))), tuple(lst[1:3]),
            sum((x, y, x)), any((0, 1)), all((1, 0)), abs(-3), int(2.7), float(2), bool(0))


def test_containers_and_builtins():
    check(containers, t([1.0, 2.0, 3.0]), t([0.5, -1.0, 4.0]))


# ---- calls ---------------------------------------------------------------------------------------------

def helper_add(a, b=2, *rest, scale=1.0, **extra):
    out = (a + b) * scale
    for r in rest:
        out = out + r
    for key in sorted(extra):
        out = out + extra[key]
    return out


def helper_pair(a):
    return a + 1, a - 1


def calls(x, y):
    r1 = helper_add(x)
    r2 = helper_add(x, y, x, y, scale=0.5, p=1.0, q=x)
    r3 = helper_add(*(x, y), **{"scale": 2.0})
    hi, lo = helper_pair(y)

    def inner(z, k=3):
        return z * k + x            # closes over x

    sq = lambda v: v * v            # noqa: E731
    add2 = lambda u, w=1: u + w     # noqa: E731
    r4 = inner(y) + inner(y, k=2) + sq(y) + add2(x) + add2(x, w=y)
    comp = [inner(v) for v in (x, y) if v is not None]
    comp2 = [a * b for a, b in zip((x, y), (1, 2))]
    comp3 = [i + j for i in range(2) for j in range(3) if i != j]
    mapped = tuple(map(sq, (x, y)))
    dct = {k: v * 2 for k, v in (("a", x), ("b", y))}
    return r1, r2, r3, hi, lo, r4, comp, comp2, comp3, mapped, dct["b"], GLOBAL_SCALE * x, GLOBAL_TABLE[2] + y


def test_user_functions_closures_lambdas_comprehensions_globals():
    check(calls, t([1.0, -2.0]), t([0.5, 3.0]))


def make_closure(scale, offset):
    consts = (scale, offset)

    def fn(x):
        return x * consts[0] + offset + GLOBAL_TENSOR

    return fn


def test_closure_constants_and_global_tensor():
    fn = make_closure(2.0, 0.5)
    check(fn, t([1.0, 2.0]))
    # a different closure of the same code compiles its own constants
    check(make_closure(-1.0, 3.0), t([1.0, 2.0]))


def factorial_scale(n, x):
    if n <= 1:
        return x
    return factorial_scale(n - 1, x * n)       # recursion on a Python number ends at compile time


def defaults_and_recursion(x):
    fns = [lambda v, k=k: v * k for k in range(3)]     # defaults are evaluated when the lambda is made

    def kw(v, *, scale=2, **extra):
        return v * scale + extra.get("shift", 0)

    def pos_only(a, b=1, /, *rest):
        return a - b + len(rest)

    return [f(x) for f in fns], kw(x), kw(x, scale=3, shift=1), pos_only(x), pos_only(x, 2, 0, 0), \
        factorial_scale(4, x)


def test_nested_function_defaults_keyword_only_and_constant_recursion():
    check(defaults_and_recursion, t([1.0, -2.0]))


def ops_calls(x, y):
    a = ops.add(x, y)
    b = ops.Mul()(x, y)
    c = ops.ReduceSum(keep_dims=True)(x, 1)
    d = ops.reshape(x, (3, 2))
    e = ops.transpose(x, (1, 0))
    f = ops.concat((x, y), 0)
    g = ops.stack([x, y], 1)
    h = ops.cast(x, ms.int32)
    i = ops.select(x > y, x, y)
    j = ops.zeros((2, 2), ms.float32) + ops.ones_like(y)[:, :2]
    k = ops.matmul(x, ops.transpose(y, (1, 0)))
    m = ops.sigmoid(x) + ops.exp(-ops.abs(y)) + ops.sqrt(ops.square(x))
    return a, b, c, d, e, f, g, h, i, j, k, m


def test_ops_functional_and_primitive_class_form():
    x = t([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    y = t([[0.5, 2.5, -3.0], [1.0, 1.0, 1.0]])
    check(ops_calls, x, y)


def tensor_methods(x):
    return (x.sum(), x.sum(axis=1), x.mean(0), x.reshape(3, 2), x.reshape((6,)), x.transpose(),
            x.astype(ms.int32), x.abs(), x.max(), x.min(axis=0), x.exp(), x.shape, x.ndim, x.dtype,
            x.size, x.T, x.squeeze() if x.shape[0] == 1 else x.expand_dims(0), x.view(-1), x.flatten())


def test_tensor_methods_and_attributes():
    check(tensor_methods, t([[1.0, -2.0, 3.0], [4.0, 0.5, -0.5]]))


def indexing(x, i):
    return (x[0], x[-1], x[1, 2], x[:, 1], x[1:, ::2], x[..., 0], x[None, 0], x[0][1:],
            x[:, -2:], x[::-1], x[i], x[(0, 1)], x[0, None, 1:], x.shape[1], x[1][-1])


def test_tensor_indexing_and_slicing():
    x = t(np.arange(12).reshape(3, 4))
    check(indexing, x, 2)


def tensor_in_graph(x):
    c = Tensor(np.array([1.0, 2.0], np.float32))
    d = Tensor([3, 4], ms.float32)
    e = ms.tensor(2.0)
    return x + c * d + e, Tensor(x, ms.int32)


def test_tensor_constants_and_conversions_in_graph():
    check(tensor_in_graph, t([0.5, 1.5]))


# ---- cells ---------------------------------------------------------------------------------------------

class Scale(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k


class Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, x):
        return x + self.w


class Net(Base):
    def __init__(self):
        super().__init__()
        self.sub = Scale(3.0)
        self.layers = nn.CellList([Scale(2.0), nn.ReLU(), Scale(-1.0)])
        self.seq = nn.SequentialCell(Scale(0.5), nn.ReLU())
        self.offset = 1.5
        self.flags = (True, False)
        self.act = ops.ReLU()

    def helper(self, x, n=2):
        return x * n + self.offset

    def construct(self, x):
        base = super().construct(x)
        via_super = super(Net, self).construct(x)
        y = self.sub(base) + self.helper(x) + self.helper(x, n=3)
        for layer in self.layers:
            y = layer(y)
        for i in range(len(self.layers)):
            y = y + self.layers[i](x)
        for i, layer in enumerate(self.layers):
            y = y + layer(x) * i
        z = self.seq(y) + self.act(x)
        if self.flags[0]:
            z = z + 1
        if self.flags[1]:
            z = z - 100
        return z, via_super, self.w * 2


def test_cells_methods_subcells_super_celllist_sequential():
    net = Net()
    x = t([0.5, -3.0])
    expected = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    got = net(x)
    assert_same(got, expected)


def test_graph_mode_cell_equals_pynative_with_parameter_update():
    class Acc(nn.Cell):
        def __init__(self):
            super().__init__()
            self.total = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="total")

        def construct(self, x):
            ops.assign(self.total, self.total + x)
            return self.total * 1

    x = t([1.0, 2.0])
    eager = Acc()
    e1, e2 = eager(x), eager(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = Acc()
    g1, g2 = graph(x), graph(x)
    assert_same(g1, e1)
    assert_same(g2, e2)
    assert_same(graph.total.value(), eager.total.value())


# ---- print ---------------------------------------------------------------------------------------------

def printing(x, y):
    print("start")
    print(x)
    print("x is", x, "and y", y)
    z = x + y
    print(z)
    print("count", 3)
    print(True, 2.5, 3.0, [1, 2], ((1, 2), 3), 1e-05, 123456789.0)
    return z


def test_print_order_and_format_match_mindspore(capsys):
    x = t([1.0, 2.0])
    y = t([3, 4], np.int32)
    f = ms.jit(printing)
    print("before")
    f(x, y)
    print("after")
    out = capsys.readouterr().out
    # the format and order MindSpore 2.10 prints for the same program (checked with the reference)
    assert out == ("before\n"
                   "start\n"
                   "Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00])\n"
                   "x is\n"
                   "Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00])\n"
                   "and y\n"
                   "Tensor(shape=[2], dtype=Int32, value=[3 4])\n"
                   "Tensor(shape=[2], dtype=Float32, value=[ 4.00000000e+00  6.00000000e+00])\n"
                   "count\n"
                   "3\n"
                   "1\n2.5\n3\n(1, 2)\n1\n2\n3\n1e-05\n1.23457e+08\n"
                   "after\n")
    # a second call prints again (prints are effects, never folded or cached)
    f(x, y)
    assert capsys.readouterr().out.count("start\n") == 1


if __name__ == "__main__":
    pytest.main([__file__])
