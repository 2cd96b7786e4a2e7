"""PyNative on graph mode's kernels (backend/eager.py): every op whose row says `eager_kernel`
gives in PyNative exactly what a compiled graph gives (same C), and agrees with an independent
NumPy reference; gradients through the PyNative tape equal the compiled gradients; the kernels
of a gradient are compiled ahead of the backward pass; a second process loads them from the
compile cache; without a C compiler PyNative runs NumPy."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.backend import eager
from pycompile.ops import OPS, _table
from pycompile.ops import prims as P

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ops"))
import cnn_refs as R  # noqa: E402  (NumPy references written from the definitions)
from eager_install import kernels_installed


def _a(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape).astype(np.float32)


def _softmax(x, log=False):
    x = x.astype(np.float64)
    s = x - x.max(-1, keepdims=True)
    lse = np.log(np.exp(s).sum(-1, keepdims=True))
    return (s - lse) if log else np.exp(s - lse)


def _layernorm(x, g, b, eps):
    x = x.astype(np.float64)
    m = x.mean(-1, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + eps) * g + b


def _f64(fn, x):
    return np.vectorize(fn, otypes=[np.float64])(np.asarray(x, np.float64))


CONV = dict(stride=(2, 1), dilation=(1, 2), pads=(1, 0, 2, 1), group=2)
CONV3 = dict(stride=(1, 1, 2), dilation=(1, 1, 1), pads=(0, 1, 1, 0, 1, 1), group=1)
POOL = dict(kernel=(3, 3), stride=(2, 2), pads=(1, 1, 1, 1), dilation=(1, 1), ceil_mode=True)
POOL_X = (2, 3, 7, 6)
AVG = dict(POOL, count_include_pad=False, divisor=0)
_axes = R.ref_windows(POOL_X[2:], POOL["kernel"], POOL["stride"], POOL["pads"], POOL["dilation"], True)
_axes_ex = R.ref_windows(POOL_X[2:], POOL["kernel"], POOL["stride"], POOL["pads"], POOL["dilation"], True, False)
POOL_Y = POOL_X[:2] + tuple(len(a) for a in _axes)
LN = dict(begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-5)

# op -> (inputs, attributes, NumPy reference of the inputs); one per op whose row says eager_kernel
CASES = {
    P.Conv2D: ((_a(2, 4, 9, 8), _a(6, 2, 3, 2, seed=1)), CONV,
               lambda x, w: R.ref_conv(x, w, **CONV)),
    P.Conv2DBackpropInput: ((_a(2, 6, 4, 9, seed=2), _a(6, 2, 3, 2, seed=1)), dict(CONV, input_size=(2, 4, 9, 8)),
                            lambda g, w: R.ref_conv_input_grad(g, w, (2, 4, 9, 8), **CONV)),
    P.Conv2DBackpropFilter: ((_a(2, 6, 4, 9, seed=2), _a(2, 4, 9, 8)), dict(CONV, filter_size=(6, 2, 3, 2)),
                             lambda g, x: R.ref_conv_filter_grad(g, x, (6, 2, 3, 2), **CONV)),
    P.Conv3D: ((_a(1, 2, 4, 5, 6, seed=3), _a(3, 2, 2, 3, 3, seed=4)), CONV3,
               lambda x, w: R.ref_conv(x, w, **CONV3)),
    P.Conv3DBackpropInput: ((_a(1, 3, 4, 4, 3, seed=5), _a(3, 2, 2, 3, 3, seed=4)),
                            dict(CONV3, input_size=(1, 2, 4, 5, 6)),
                            lambda g, w: R.ref_conv_input_grad(g, w, (1, 2, 4, 5, 6), **CONV3)),
    P.Conv3DBackpropFilter: ((_a(1, 3, 4, 4, 3, seed=5), _a(1, 2, 4, 5, 6, seed=3)),
                             dict(CONV3, filter_size=(3, 2, 2, 3, 3)),
                             lambda g, x: R.ref_conv_filter_grad(g, x, (3, 2, 2, 3, 3), **CONV3)),
    P.MaxPool: ((_a(*POOL_X, seed=6),), POOL, lambda x: R.ref_pool(x, _axes, "max")),
    P.MaxPoolArgmax: ((_a(*POOL_X, seed=6),), POOL, lambda x: R.ref_pool(x, _axes, "max", want="argmax")),
    P.MaxPoolGrad: ((_a(*POOL_X, seed=6), _a(*POOL_Y, seed=7)), POOL,
                    lambda x, g: R.ref_pool_grad(x, g, _axes, "max")),
    P.AvgPool: ((_a(*POOL_X, seed=6),), AVG, lambda x: R.ref_pool(x, _axes_ex, "avg")),
    P.AvgPoolGrad: ((_a(*POOL_X, seed=6), _a(*POOL_Y, seed=7)), AVG,
                    lambda x, g: R.ref_pool_grad(x, g, _axes_ex, "avg")),
    P.BatchNormStats: ((_a(4, 3, 5, 6, seed=8),), {}, R.ref_bn_stats),
    # the batch-norm rows PyNative runs as their compiled decompositions (ops/defs/norm.py)
    P.BatchNormApply: ((_a(4, 3, 5, 6, seed=8), _a(3, seed=14), _a(3, seed=15), _a(3, seed=16)), {},
                       lambda x, m, s, b: (x - m[:, None, None]) * s[:, None, None] + b[:, None, None]),
    P.BatchNormChannelDot: ((_a(4, 3, 5, 6, seed=17), _a(4, 3, 5, 6, seed=8), _a(3, seed=14)), {},
                            lambda g, x, m: (g.astype(np.float64) * (x - m[:, None, None])).sum(axis=(0, 2, 3))),
    P.BatchNormStatsGrad: ((_a(2, 3, seed=18), _a(4, 3, 5, 6, seed=8), _a(2, 3, seed=19)), {},
                           lambda g, x, st: g[0][:, None, None] / 120.0
                           + g[1][:, None, None] * (x - st[0][:, None, None]) * (2.0 / 120.0)),
    P.Softmax: ((_a(5, 37, seed=9) * 8,), {"axis": -1}, _softmax),
    P.LogSoftmax: ((_a(5, 37, seed=9) * 8,), {"axis": -1}, lambda x: _softmax(x, log=True)),
    P.LayerNorm: ((_a(3, 4, 40, seed=10), _a(40, seed=11), _a(40, seed=12)), LN,
                  lambda x, g, b: _layernorm(x, g, b, LN["epsilon"])),
    # the erf family (NumPy has no erf): Python's float64 erf / erfc element by element
    P.Erf: ((_a(7, 33, seed=13) * 4,), {}, lambda x: _f64(math.erf, x)),
    P.Erfc: ((_a(7, 33, seed=13) * 4,), {}, lambda x: _f64(math.erfc, x)),
    P.GeLUErf: ((_a(7, 33, seed=13) * 4,), {}, lambda x: 0.5 * x * _f64(math.erfc, -x / math.sqrt(2))),
    # the transcendental activations and ReLU, in float64 (softplus as log(1 + e^x)), on results past
    # KERNEL_FROM elements (smaller ones run NumPy: test_small_elementwise_results_keep_numpy)
    P.ReLU: ((_a(256, 257, seed=21),), {}, lambda x: np.maximum(x, 0)),
    # ReLU's backward (dy, y): dy where y > 0
    P.ReLUGrad: ((_a(256, 257, seed=22), np.maximum(_a(256, 257, seed=21), 0)), {},
                 lambda g, y: np.where(y > 0, g, 0)),
    P.Sigmoid: ((_a(256, 257, seed=20) * 8,), {}, lambda x: 1 / (1 + np.exp(-x.astype(np.float64)))),
    P.SiLU: ((_a(256, 257, seed=20) * 8,), {}, lambda x: x / (1 + np.exp(-x.astype(np.float64)))),
    P.Elu: ((_a(256, 257, seed=20) * 8,), {}, lambda x: np.where(x > 0, x, np.expm1(x.astype(np.float64)))),
    P.SeLU: ((_a(256, 257, seed=20) * 8,), {},
             lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x.astype(np.float64)))),
    P.Softplus: ((_a(256, 257, seed=20) * 8,), {}, lambda x: np.log1p(np.exp(x.astype(np.float64)))),
    P.Mish: ((_a(256, 257, seed=20) * 8,), {}, lambda x: x * np.tanh(np.log1p(np.exp(x.astype(np.float64))))),
    P.LogSigmoid: ((_a(256, 257, seed=20) * 8,), {}, lambda x: -np.log1p(np.exp(-x.astype(np.float64)))),
    # the tanh form (ops.gelu(approximate='tanh'), GPT's), in float64
    P.GeLU: ((_a(256, 257, seed=13) * 4,), {},
             lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x.astype(np.float64) ** 3)))),
}
NAMES = sorted(op.name for op in CASES)


def test_every_eager_kernel_op_has_a_case():
    # the products have their own cases (test_eager_products.py: shapes for each of their cuts)
    marked = {op.name for op in OPS.values() if op.eager_kernel}
    assert marked == set(NAMES) | {"MatMul", "BatchMatMul"}


def _eager_call(op):
    inputs, attrs, _ = CASES[op]
    return _table.apply(op, [Tensor(a) for a in inputs], dict(attrs))


def _all_ops(*xs):
    """Every case's op in one compiled graph (one C module for all of them)."""
    out = ()
    k = 0
    for name in NAMES:
        op = OPS[name]
        n = len(CASES[op][0])
        out = out + (ops.apply(op, list(xs[k:k + n]), dict(CASES[op][1])),)
        k += n
    return out


@pytest.fixture(scope="module")
def compiled_results():
    args = [Tensor(a) for name in NAMES for a in CASES[OPS[name]][0]]
    return dict(zip(NAMES, ms.jit(_all_ops)(*args)))


@pytest.mark.parametrize("name", NAMES)
def test_eager_equals_compiled_bit_for_bit(name, compiled_results):
    op = OPS[name]
    _table._PLANS.clear()
    got = _eager_call(op)
    plan = next(v for k, v in _table._PLANS.items() if k[0] is op)
    assert getattr(plan, "kernel", None) is not None, f"{name} ran NumPy in PyNative"
    want = compiled_results[name]
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.asnumpy(), want.asnumpy(), equal_nan=True), \
        f"{name}: max |eager - compiled| = {np.abs(got.asnumpy() - want.asnumpy()).max()}"
    inputs, _, ref = CASES[op]
    expect = ref(*inputs)
    if np.asarray(expect).dtype.kind in "iu":
        np.testing.assert_array_equal(got.asnumpy(), expect)
    else:
        np.testing.assert_allclose(got.asnumpy(), expect, rtol=2e-5, atol=2e-5)


# ---- gradients through the PyNative tape ------------------------------------------------------------------
def _conv_loss(x, w, c):
    return (ops.apply(P.Conv2D, [x, w], dict(CONV)) * c).sum()


def _pool_loss(x, c):
    y = ops.apply(P.MaxPool, [x], dict(POOL)) + ops.apply(P.AvgPool, [x], dict(AVG))
    return (y * c).sum()


GRADS = {
    "conv": (_conv_loss, (_a(2, 4, 9, 8), _a(6, 2, 3, 2, seed=1), _a(2, 6, 4, 9, seed=2)), (0, 1)),
    "pool": (_pool_loss, (_a(*POOL_X, seed=6), _a(*POOL_Y, seed=7)), (0,)),
}


@pytest.mark.parametrize("case", sorted(GRADS))
def test_gradients_equal_compiled_and_numpy(case):
    fn, arrays, pos = GRADS[case]
    args = [Tensor(a) for a in arrays]
    g_eager = ms.grad(fn, grad_position=pos)(*args)
    g_compiled = ms.jit(ms.grad(fn, grad_position=pos))(*args)
    provider = _table.EAGER_KERNELS[0]
    _table.EAGER_KERNELS[0] = None        # the same tape on the NumPy implementations
    _table._PLANS.clear()
    try:
        g_numpy = ms.grad(fn, grad_position=pos)(*args)
    finally:
        _table.EAGER_KERNELS[0] = provider
        _table._PLANS.clear()
    for e, c, n in zip(*(g if isinstance(g, tuple) else (g,) for g in (g_eager, g_compiled, g_numpy))):
        assert np.array_equal(e.asnumpy(), c.asnumpy()), f"{case}: eager gradient != compiled gradient"
        np.testing.assert_allclose(e.asnumpy(), n.asnumpy(), rtol=1e-5, atol=1e-5)


# ---- anticipation, the compile cache, no C compiler ---------------------------------------------------------
@pytest.fixture(autouse=True, scope="module")
def _kernels_installed():
    """The suite runs PyNative on NumPy (tests/conftest.py); this file tests the kernels."""
    with kernels_installed():
        yield


@pytest.fixture
def fresh_kernels():
    """A kernel store of its own (nothing built yet), installed for the test."""
    saved = _table.EAGER_KERNELS[0]
    k = _table.EAGER_KERNELS[0] = eager.EagerKernels()
    _table._PLANS.clear()
    yield k
    _table.EAGER_KERNELS[0] = saved
    _table._PLANS.clear()


def test_gradient_kernels_are_compiled_ahead_of_the_backward_pass(fresh_kernels):
    x, w, c = (Tensor(_a(1, 4, 6, 7, seed=20)), Tensor(_a(2, 2, 3, 3, seed=21)), Tensor(_a(1, 2, 3, 6, seed=22)))
    loss = lambda x, w, c: (ops.apply(P.Conv2D, [x, w], dict(CONV)) * c).sum()      # noqa: E731
    ms.grad(loss, grad_position=(0, 1))(x, w, c)
    st = fresh_kernels.stats
    assert st.anticipated == 2          # Conv2DBackpropInput and Conv2DBackpropFilter, from the record
    assert st.compiled == 3
    names = sorted(k[0].name for k in fresh_kernels._kernels)
    assert names == ["Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput"]


def test_a_convolution_of_data_computes_no_input_gradient(fresh_kernels):
    """The tape tells a rule which cotangents are read (grads.needs): differentiating the weight
    of a convolution of data runs Conv2DBackpropFilter alone, and anticipates only its kernel."""
    x, c = Tensor(_a(1, 4, 6, 7, seed=20)), Tensor(_a(1, 2, 3, 6, seed=22))
    w = ms.Parameter(Tensor(_a(2, 2, 3, 3, seed=21)), name="w")
    loss = lambda x, c: (ops.apply(P.Conv2D, [x, w], dict(CONV)) * c).sum()      # noqa: E731
    _, (gw,) = ms.value_and_grad(loss, grad_position=None, weights=[w])(x, c)
    names = sorted(k[0].name for k in fresh_kernels._kernels)
    assert names == ["Conv2D", "Conv2DBackpropFilter"]
    assert fresh_kernels.stats.anticipated == 1
    want = R.ref_conv_filter_grad(c.asnumpy(), x.asnumpy(), (2, 2, 3, 3), **CONV)
    np.testing.assert_allclose(gw.asnumpy(), want, rtol=2e-5, atol=2e-5)


def test_a_second_process_loads_the_kernels_from_the_compile_cache(fresh_kernels, tmp_path):
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path))
    x = Tensor(_a(3, 2, 5, 5, seed=30))
    first = ops.apply(P.MaxPool, [x], dict(POOL))
    assert fresh_kernels.stats.compiled == 1 and fresh_kernels.stats.disk_hits == 0
    assert os.listdir(tmp_path / "pycompile-v1" / "eager-MaxPool")
    other = eager.EagerKernels()        # what a new process starts with
    _table.EAGER_KERNELS[0] = other
    _table._PLANS.clear()
    again = ops.apply(P.MaxPool, [x], dict(POOL))
    assert other.stats.disk_hits == 1 and other.stats.compiled == 0
    assert np.array_equal(first.asnumpy(), again.asnumpy())


def test_without_a_c_compiler_pynative_runs_numpy(tmp_path):
    code = textwrap.dedent("""
        import numpy as np
        import pycompile as ms
        from pycompile import ops
        from pycompile.backend import eager
        from pycompile.ops import prims as P
        x = ms.Tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4))
        y = ops.apply(P.MaxPool, [x], dict(kernel=(2, 2), stride=(2, 2), pads=(0, 0, 0, 0), dilation=(1, 1),
                                          ceil_mode=False))
        print(y.asnumpy().ravel().tolist(), bool(eager.KERNELS.disabled))
    """)
    env = dict(os.environ, CC=str(tmp_path / "no-such-cc"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("]")[0] == "[5.0, 7.0, 13.0, 15.0, 21.0, 23.0, 29.0, 31.0"
    assert out.stdout.strip().endswith("True")
    assert "Traceback" not in out.stderr


# ---- the NumPy forms PyNative's LeNet step spends its elementwise time in -------------------------------------
EDGES = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3.0, -3.0, 65504.0, -1e30])


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.int8, np.int32, np.uint8, np.bool_])
def test_relu_and_select_numpy_forms_equal_np_where_bit_for_bit(dt):
    """ReLU and Select pick their bits without np.where's per-element branch (speed only): the
    values, signed zeros and NaN payloads are np.where's."""
    from pycompile.ops.defs.elementwise import _relu, _select
    rng = np.random.default_rng(3)
    with np.errstate(all="ignore"):
        big = np.resize(EDGES, (64, 80)).astype(dt) if dt != np.bool_ else rng.random((64, 80)) > 0.5
    other = big[::-1].copy()
    cond = rng.random((64, 80)) > 0.5
    for c, x, y in ((cond, big, other), (cond, big, np.zeros((), big.dtype)), (cond[:1], big[0], other),
                    (cond[:4, :4], big[:4, :4], other[:4, :4])):
        want = np.where(c, x, y)
        got = _select(c, x, y)
        assert got.dtype == want.dtype and np.array_equal(got.view(np.uint8), want.view(np.uint8))
    if dt != np.bool_:
        want = np.where(big > 0, big, np.zeros((), big.dtype))
        assert np.array_equal(_relu(big).view(np.uint8), want.view(np.uint8))


def test_small_elementwise_results_keep_numpy():
    """An elementwise row with a kernel size (KERNEL_FROM) runs NumPy below it: no compile for a
    small result's signature."""
    from pycompile.ops.defs.elementwise import KERNEL_FROM
    assert P.Sigmoid.eager_kernel == KERNEL_FROM and P.SiLU.eager_kernel == KERNEL_FROM
    _table._PLANS.clear()
    for op in (P.Sigmoid, P.SiLU, P.ReLU):
        _table.apply(op, [Tensor(_a(7, 33, seed=22))], {})
    plans = [v for k, v in _table._PLANS.items() if k[0] in (P.Sigmoid, P.SiLU, P.ReLU)]
    assert len(plans) == 3 and not [p for p in plans if getattr(p, "kernel", None) is not None]

