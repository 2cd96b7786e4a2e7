"""A `for` loop appending one tensor per iteration to a list, then `ops.stack` / `ops.concat` of
the list (the spec's vmap tutorial's `manually_batched`), compiles to ONE loop writing the rows
of a buffer (compiler/stacking.py), not one copy of the body per row. Each case is compared
with the same function run eagerly (PyNative) and with NumPy; the shapes it does not take stay
unrolled and stay correct."""
import re

import numpy as np

from frontend_helpers import assert_same

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.compiler import ir


def _x(*shape, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * 4).astype(np.float32)


def hswish_np(x):
    # piecewise as MindSpore's kernel (tests/compiler/test_edge_values.py): x itself from 3 up
    return np.where(x <= -3, np.float32(0), np.where(x >= 3, x, x * (x + np.float32(3)) / np.float32(6)))


def form(fn, *args):
    """(For loops in the traced graph, loops in the C entry, kernel call sites in the C entry, result)."""
    report = ms.inspect(fn, *args)
    entry = report.c_source[report.c_source.index("int pc_entry("):]
    fors = sum(1 for n in ir.iter_nodes(report.graph_before.body) if n.op is ir.FOR)
    return fors, entry.count("for (int64_t i"), len(re.findall(r"^\s+k\d+\(", entry, re.M))


def same(fn, *args, exact=True):
    got = ms.jit(fn)(*args)
    assert_same(got, fn(*args), rtol=0 if exact else 1e-5, atol=0 if exact else 1e-6)
    return got


# ---- the tutorial's loop ---------------------------------------------------------------------------

def manually_batched(xs):
    output = []
    for i in range(xs.shape[0]):
        output.append(ops.HSwish()(xs[i]))
    return ops.stack(output)


def test_tutorial_loop_is_one_loop_and_exact():
    x = _x(100, 2)
    got = same(manually_batched, Tensor(x))
    np.testing.assert_array_equal(got.asnumpy(), hswish_np(x))
    fors, c_loops, calls = form(manually_batched, Tensor(x))
    assert (fors, c_loops) == (1, 1)
    assert calls <= 3            # the hswish kernel (and the row index), once, inside the loop: not 100


def test_rows_are_written_straight_into_the_output():
    x = _x(100, 2)
    entry = ms.inspect(manually_batched, Tensor(x)).c_source.split("int pc_entry(")[1]
    assert "memcpy(args[1]" not in entry            # no copy of the result after the loop
    assert "memcpy(L" not in entry                  # nor of an initial value before it

    def twice(xs):
        out = []
        for i in range(xs.shape[0]):
            out.append(xs[i] * 3)
        s = ops.stack(out)
        return s, s - 1, s
    got = same(twice, Tensor(x))
    np.testing.assert_array_equal(got[2].asnumpy(), x * 3)


def test_one_and_zero_iterations():
    def f(xs):
        out = []
        for i in range(xs.shape[0]):
            out.append(ops.HSwish()(xs[i]))
        if not out:
            return xs * 2
        return ops.stack(out)
    for n in (0, 1, 2):
        x = _x(n, 3)
        got = same(f, Tensor(x))
        np.testing.assert_array_equal(got.asnumpy(), hswish_np(x) if n else x * 2)


# ---- bodies, rows, axes ----------------------------------------------------------------------------

def several_ops(xs, w, b):
    out = []
    for i in range(xs.shape[0]):
        h = ops.matmul(xs[i], w)
        h = ops.relu(h + b)
        out.append(h * 2 - xs[i].sum())
    return ops.stack(out), ops.concat(out)


def test_body_with_several_ops_and_temporaries():
    x, w, b = _x(7, 3), _x(3, 4, seed=1), _x(4, seed=2)
    stacked, concat = same(several_ops, Tensor(x), Tensor(w), Tensor(b), exact=False)
    expect = np.maximum(x @ w + b, 0) * 2 - x.sum(1, keepdims=True)
    np.testing.assert_allclose(stacked.asnumpy(), expect, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(concat.asnumpy(), expect.reshape(-1), rtol=1e-5, atol=1e-5)
    assert form(several_ops, Tensor(x), Tensor(w), Tensor(b))[:2] == (1, 1)


def rows_2d(xs):
    out = []
    for row in xs:          # a loop over a tensor's rows: each a 2-D (3, 4) tensor
        out.append(ops.relu(row) + row * 3)
    return ops.stack(out, 1), ops.stack(out, -1), ops.concat(out, 1), ops.cat(out, -2), ops.Stack(axis=2)(out)


def test_2d_rows_and_other_axes():
    x = _x(5, 3, 4)
    r = np.maximum(x, 0) + x * 3
    got = same(rows_2d, Tensor(x))
    rows = list(r)
    for g, e in zip(got, (np.stack(rows, 1), np.stack(rows, -1), np.concatenate(rows, 1),
                          np.concatenate(rows, -2), np.stack(rows, 2))):
        np.testing.assert_array_equal(g.asnumpy(), e)
    assert form(rows_2d, Tensor(x))[:2] == (1, 1)


def test_range_with_start_and_step_and_the_target_after_the_loop():
    def f(xs):
        out = []
        for i in range(1, xs.shape[0], 2):
            out.append(xs[i] * i)
        return ops.stack(out), i
    x = _x(8, 3)
    got = same(f, Tensor(x))
    np.testing.assert_array_equal(got[0].asnumpy(), np.stack([x[i] * i for i in range(1, 8, 2)]))
    assert form(f, Tensor(x))[:2] == (1, 1)


# ---- nesting ---------------------------------------------------------------------------------------

def nested(xs, flag):
    acc = xs * 0
    for j in range(3):
        out = []
        for i in range(xs.shape[0]):
            out.append(xs[i] * (j + 1))
        acc = acc + ops.stack(out)
    if flag.sum() > 0:          # a runtime condition
        out2 = []
        for i in range(xs.shape[0]):
            out2.append(ops.tanh(xs[i]))
        y = ops.stack(out2)
    else:
        y = -xs
    return acc, y


def test_nested_in_a_loop_and_an_if():
    x = _x(6, 2)
    for flag in (1.0, -1.0):
        got = same(nested, Tensor(x), Tensor(np.float32(flag)), exact=False)
        np.testing.assert_allclose(got[0].asnumpy(), x * 6, rtol=1e-6)
        np.testing.assert_allclose(got[1].asnumpy(), np.tanh(x) if flag > 0 else -x, rtol=1e-5, atol=1e-6)
    fors, c_loops, calls = form(nested, Tensor(x), Tensor(np.float32(1.0)))
    # the outer loop may unroll (its list changes), the inner ones stay loops: not 6 x 3 + 6 bodies
    assert fors <= 4 and c_loops <= 4 and calls < 12


# ---- other uses of the list, and the shapes that stay unrolled ---------------------------------

def other_uses(xs):
    out = []
    for i in range(xs.shape[0]):
        out.append(xs[i] + 1)
    first, n = out[0], len(out)
    more = list(out)
    more.append(xs[0])                  # a changed list: stacked the ordinary way
    return first, n, ops.stack(more), ops.stack(out[1:]), ops.addn(out)


def unrolled_shapes(xs):
    a = []
    c = 0
    for i in range(xs.shape[0]):        # a Python counter carried along: unrolled
        a.append(xs[i] * 2)
        c += 1
    b = []
    for i in range(xs.shape[0]):        # the list read in the body: unrolled
        b.append(xs[i] * len(b))
    d = [xs[0]]
    for i in range(xs.shape[0]):        # not empty at the start: unrolled
        d.append(xs[i] - 1)
    e = []
    for i in range(xs.shape[0]):        # two appends per iteration: unrolled
        e.append(xs[i])
        e.append(-xs[i])
    g = []
    for i in range(xs.shape[0]):        # a temporary read after the loop: unrolled
        tmp = xs[i] * 3
        g.append(tmp)
    h = []
    for i in range(xs.shape[0]):        # a Python number appended: unrolled
        h.append(i * 2)
    return ops.stack(a), c, ops.stack(b), ops.stack(d), ops.stack(e), ops.stack(g), tmp, Tensor(h)


def test_other_uses_of_the_list_and_unrolled_shapes_stay_correct():
    x = _x(4, 3)
    got = same(other_uses, Tensor(x))
    np.testing.assert_array_equal(got[2].asnumpy(), np.concatenate([x + 1, x[:1]]))
    got = same(unrolled_shapes, Tensor(x))
    np.testing.assert_array_equal(got[2].asnumpy(), np.stack([x[i] * i for i in range(4)]))
    np.testing.assert_array_equal(got[7].asnumpy(), np.arange(4) * 2)


def test_under_grad_it_unrolls_and_the_gradient_matches_finite_differences():
    def loss(xs, w):
        out = []
        for i in range(xs.shape[0]):
            out.append(ops.tanh(ops.matmul(xs[i], w)) * xs[i].sum())
        return ops.stack(out).sum()
    x, w = _x(5, 3) / 4, _x(3, 2, seed=1) / 4
    g = ms.jit(ms.grad(loss, grad_position=(0, 1)))
    gx, gw = (v.asnumpy().astype(np.float64) for v in g(Tensor(x), Tensor(w)))

    def f64(xv, wv):
        return sum((np.tanh(xv[i] @ wv) * xv[i].sum()).sum() for i in range(len(xv)))
    eps = 1e-3
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    for arr, grad in ((x64, gx), (w64, gw)):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            old = arr[idx]
            arr[idx] = old + eps
            up = f64(x64, w64)
            arr[idx] = old - eps
            down = f64(x64, w64)
            arr[idx] = old
            num[idx] = (up - down) / (2 * eps)
        np.testing.assert_allclose(grad, num, rtol=2e-3, atol=2e-4)


def _clamps(x):
    out = []
    for i in range(x.shape[0]):
        out.append(ops.stack([ops.HSwish()(x[i]), ops.relu6(x[i]), ops.HSigmoid()(x[i])]))
    return ops.stack(out)


def test_clamp_corners_in_scalar_rows_and_vector_loops():
    """The clamp inside HSwish / ReLU6 / HSigmoid (two selects, maxss / minss) on its corners:
    NaN stays NaN, infinities, -0.0 and the bounds, in 2-element rows (scalar code) and over a
    whole array (vectorized), against NumPy."""
    corners = np.array([np.nan, -np.inf, np.inf, -0.0, -3.0, 3.0, 6.0, 7.0, -4.0, 0.5], np.float32)
    x = corners.reshape(5, 2)
    got = ms.jit(_clamps)(Tensor(x)).asnumpy()
    with np.errstate(invalid="ignore"):         # inf * 0 at -inf: NaN, as compiled
        hs = hswish_np(x)
    r6 = np.clip(x, 0, 6)
    hsig = np.clip(x + np.float32(3), 0, 6) / np.float32(6)
    np.testing.assert_array_equal(got, np.stack([hs, r6, hsig], axis=1))
    big = np.tile(corners, 40)
    whole = ms.jit(lambda v: (ops.relu6(v), ops.HSigmoid()(v)))(Tensor(big))
    np.testing.assert_array_equal(whole[0].asnumpy(), np.clip(big, 0, 6))
    np.testing.assert_array_equal(whole[1].asnumpy(), np.clip(big + np.float32(3), 0, 6) / np.float32(6))
