"""What the conformance table (tests/conformance/cases_prim36.py) cannot check for the names of
src/pycompile/ops/entries/prim36.py, against NumPy references written from MindSpore's documentation
and kernels, in PyNative and compiled code: FusedWeightScaleApplyMomentum (no CPU kernel in the 2.10
wheel; MindSpore's GPU kernel's formula), FusedCastAdamWeightDecay on Tensor hyper-parameters and over
two steps, and TensorToTuple's documented TypeError (the wheel's call returns None there)."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops

MODES = ["pynative", "graph"]


def _rand(*shape, seed=0, lo=-2.0, hi=2.0, dtype=np.float32):
    return np.random.RandomState(seed).uniform(lo, hi, shape).astype(dtype)


def _in_mode(mode, fn):
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return fn()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


# ---- FusedWeightScaleApplyMomentum --------------------------------------------------------------------
class _WSMomNet(nn.Cell):
    def __init__(self, var, acc):
        super().__init__()
        self.var = Parameter(Tensor(var), name="var")
        self.acc = Parameter(Tensor(acc), name="acc")
        self.op = ops.FusedWeightScaleApplyMomentum()

    def construct(self, wd, scale, lr, g, mom):
        return self.op(wd, scale, self.var, self.acc, lr, g, mom)


def _ws_momentum_ref(var, acc, wd, scale, lr, g, mom):
    grad = (var * wd + g) * scale
    acc = mom * acc + grad
    return var - lr * acc, acc


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_fused_weight_scale_apply_momentum(mode, dtype):
    var, acc, g = _rand(2, 3, lo=0.1, hi=1.0, dtype=dtype), _rand(2, 3, seed=1, dtype=dtype), \
        _rand(2, 3, seed=2, dtype=dtype)
    net = _in_mode(mode, lambda: _WSMomNet(var, acc))
    s = lambda v: Tensor(np.array(v, dtype))                 # noqa: E731
    want_var, want_acc = var.astype(np.float64), acc.astype(np.float64)
    for _ in range(2):                                       # the second step reads the written Parameters
        out = _in_mode(mode, lambda: net(s(0.01), s(0.5), s(0.1), Tensor(g), s(0.9)))
        want_var, want_acc = _ws_momentum_ref(want_var, want_acc, 0.01, 0.5, 0.1, g.astype(np.float64), 0.9)
    tol = 2e-3 if dtype == np.float16 else 1e-6
    assert out.dtype == net.var.dtype
    np.testing.assert_allclose(out.asnumpy(), want_var, rtol=tol, atol=tol)
    np.testing.assert_allclose(net.var.asnumpy(), want_var, rtol=tol, atol=tol)
    np.testing.assert_allclose(net.acc.asnumpy(), want_acc, rtol=tol, atol=tol)


def test_fused_weight_scale_apply_momentum_python_numbers():
    var, acc, g = _rand(3, lo=0.1, hi=1.0), _rand(3, seed=1), _rand(3, seed=2)
    p, a = Parameter(Tensor(var), name="var"), Parameter(Tensor(acc), name="acc")
    out = ops.FusedWeightScaleApplyMomentum()(0.0, 1.0, p, a, 0.1, Tensor(g), 0.9)
    want_var, want_acc = _ws_momentum_ref(var, acc, 0.0, 1.0, 0.1, g, 0.9)
    np.testing.assert_allclose(out.asnumpy(), want_var, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(a.asnumpy(), want_acc, rtol=1e-6, atol=1e-6)


def test_fused_weight_scale_apply_momentum_accumulation_dtype():
    p = Parameter(Tensor(_rand(3)), name="var")
    a = Parameter(Tensor(_rand(3, dtype=np.float16)), name="acc")
    with pytest.raises(TypeError, match="argument\\[accumulation\\]"):
        ops.FusedWeightScaleApplyMomentum()(0.0, 1.0, p, a, 0.1, Tensor(_rand(3)), 0.9)


# ---- FusedCastAdamWeightDecay -------------------------------------------------------------------------
class _CastAdamNet(nn.Cell):
    def __init__(self, var, m, v):
        super().__init__()
        self.var = Parameter(Tensor(var), name="var")
        self.m = Parameter(Tensor(m), name="m")
        self.v = Parameter(Tensor(v), name="v")
        self.op = ops.FusedCastAdamWeightDecay()

    def construct(self, lr, decay, g, norm):
        return self.op(self.var, self.m, self.v, lr, 0.9, 0.999, 1e-6, decay, g, norm)


@pytest.mark.parametrize("mode", MODES)
def test_fused_cast_adam_weight_decay_tensor_hyper_parameters(mode):
    var, m, v = _rand(4, lo=0.1, hi=1.0), _rand(4, seed=1), _rand(4, seed=2, lo=0.1, hi=1.0)
    g = _rand(4, seed=3, dtype=np.float16)
    net = _in_mode(mode, lambda: _CastAdamNet(var, m, v))
    f = lambda x: Tensor(np.float32(x))                       # noqa: E731
    wv, wm, ww = var.astype(np.float64), m.astype(np.float64), v.astype(np.float64)
    for _ in range(2):
        out = _in_mode(mode, lambda: net(f(0.01), f(0.2), Tensor(g), f(4.0)))
        gg = g.astype(np.float64) / 4.0
        wm = 0.9 * wm + 0.1 * gg
        ww = 0.999 * ww + 0.001 * gg * gg
        wv = wv - 0.01 * (wm / (np.sqrt(ww) + 1e-6) + 0.2 * wv)
    for got, want in zip((net.var, net.m, net.v), (wv, wm, ww)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[0].asnumpy(), wv, rtol=1e-5, atol=1e-6)     # pycompile returns the new values


def test_fused_cast_adam_weight_decay_int_lr():
    p = [Parameter(Tensor(np.ones(3, np.float32)), name=n) for n in ("var", "m", "v")]
    with pytest.raises(TypeError, match="'lr'"):
        ops.FusedCastAdamWeightDecay()(*p, 1, 0.9, 0.999, 1e-6, 0.0, Tensor(np.ones(3, np.float32)), 1.0)


# ---- TensorToTuple ------------------------------------------------------------------------------------
def test_tensor_to_tuple_refuses_a_tuple():
    with pytest.raises(TypeError, match="must be a Tensor"):
        ops.TensorToTuple()((1, 2))


def test_tensor_to_tuple_of_a_computed_tensor_in_graph():
    out = ms.jit(lambda x: ops.TensorToTuple()(x * 2))(Tensor(np.array([1.5, 2.0], np.float32)))
    assert len(out) == 2
    np.testing.assert_allclose([float(o.asnumpy()) for o in out], [3.0, 4.0])


# ---- multi_scale_deformable_attn_function ------------------------------------------------------------
def _bilinear_zero(img, x, y):
    """img (H, W, D) sampled at (x, y) in [0, 1] (pixel centres at (i + 0.5) / size), zero outside."""
    h, w, _ = img.shape
    px, py = x * w - 0.5, y * h - 0.5
    x0, y0 = int(np.floor(px)), int(np.floor(py))
    out = np.zeros(img.shape[-1])
    for yy, wy in ((y0, 1 - (py - y0)), (y0 + 1, py - y0)):
        for xx, wx in ((x0, 1 - (px - x0)), (x0 + 1, px - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                out += wy * wx * img[yy, xx]
    return out


def _msda_ref(value, shapes, starts, loc, weight):
    bs, _, heads, dims = value.shape
    _, queries, _, levels, points, _ = loc.shape
    out = np.zeros((bs, queries, heads, dims))
    for b in range(bs):
        for q in range(queries):
            for hd in range(heads):
                for lv in range(levels):
                    h, w = shapes[lv]
                    img = value[b, starts[lv]:starts[lv] + h * w, hd].reshape(h, w, dims)
                    for p in range(points):
                        x, y = loc[b, q, hd, lv, p]
                        out[b, q, hd] += weight[b, q, hd, lv, p] * _bilinear_zero(img, x, y)
    return out.reshape(bs, queries, heads * dims)


@pytest.mark.parametrize("mode", MODES)
def test_multi_scale_deformable_attn_function_against_numpy(mode):
    value = _rand(2, 16, 2, 8)
    shapes, starts = np.array([[3, 4], [2, 2]], np.int32), np.array([0, 12], np.int64)
    loc = _rand(2, 3, 2, 2, 4, 2, seed=1, lo=-0.1, hi=1.1)
    weight = _rand(2, 3, 2, 2, 4, seed=2, lo=0.0, hi=1.0)
    fn = lambda v, s, o, l, w: ops.multi_scale_deformable_attn_function(v, s, o, l, w)   # noqa: E731
    run = ms.jit(fn) if mode == "graph" else fn
    got = run(Tensor(value), Tensor(shapes), Tensor(starts), Tensor(loc), Tensor(weight))
    assert got.shape == (2, 3, 16) and got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), _msda_ref(value, shapes, starts, loc, weight), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bad", ["dims", "value_dtype", "shape_dtype"])
def test_multi_scale_deformable_attn_function_errors(bad):
    value = _rand(1, 4, 1, 6 if bad == "dims" else 8, dtype=np.float64 if bad == "value_dtype" else np.float32)
    shapes = np.array([[2, 2]], np.float32 if bad == "shape_dtype" else np.int32)
    with pytest.raises(RuntimeError):                         # the documented RuntimeErrors
        ops.multi_scale_deformable_attn_function(Tensor(value), Tensor(shapes), Tensor(np.array([0], np.int32)),
                                                 Tensor(_rand(1, 2, 1, 1, 2, 2, lo=0.0, hi=1.0)),
                                                 Tensor(_rand(1, 2, 1, 1, 2)))


def test_multi_scale_deformable_attn_function_grad():
    value, loc = _rand(1, 4, 1, 8), _rand(1, 2, 1, 1, 2, 2, seed=1, lo=0.1, hi=0.9)
    weight, wout = _rand(1, 2, 1, 1, 2, seed=2), _rand(1, 2, 8, seed=3)
    s, o = Tensor(np.array([[2, 2]], np.int32)), Tensor(np.array([0], np.int32))

    def loss(v):
        return (ops.multi_scale_deformable_attn_function(v, s, o, Tensor(loc), Tensor(weight)) * Tensor(wout)).sum()
    got = ops.grad(loss)(Tensor(value)).asnumpy()
    # the output is linear in value: its gradient is the reference applied to unit values
    want = np.zeros_like(value, np.float64)
    for i in np.ndindex(value.shape):
        e = np.zeros_like(value, np.float64)
        e[i] = 1.0
        want[i] = (_msda_ref(e, [[2, 2]], [0], loc, weight) * wout).sum()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# ---- TensorDump / tensordump --------------------------------------------------------------------------
def _dumped(folder):
    """{name without the id: array} of the .npy files in folder, and the ids in file order."""
    import os
    files = sorted(os.listdir(folder), key=lambda f: int(f[:-4].rsplit("_", 1)[1]))
    return [(f[:-4].rsplit("_", 1)[0], np.load(os.path.join(folder, f))) for f in files], \
        [int(f[:-4].rsplit("_", 1)[1]) for f in files]


def F_cast(t):
    return ops.cast(t, ms.int32)


@pytest.mark.parametrize("mode", MODES)
def test_tensor_dump_writes_npy_files(mode, tmp_path):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def fn(t):
        ops.TensorDump()(str(tmp_path / "a"), t * 2)
        y = t + 1
        ops.functional.tensordump(str(tmp_path / "b.npy"), F_cast(y), "in")
        return y
    out = (ms.jit(fn) if mode == "graph" else fn)(Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), x + 1)
    files, ids = _dumped(tmp_path)
    assert [name for name, _ in files] == ["a_float32", "b_int32"]              # the CPU names: no mode in them
    assert ids[1] == ids[0] + 1                                                 # one counter, in program order
    np.testing.assert_array_equal(files[0][1], x * 2)
    assert files[1][1].dtype == np.int32 and files[1][1].tolist() == (x + 1).astype(np.int32).tolist()


def test_tensor_dump_errors():
    x = Tensor(np.ones(2, np.float32))
    with pytest.raises(TypeError, match="'file' should be 'str'"):
        ops.TensorDump()(1, x)
    with pytest.raises(ValueError, match="input_output"):
        ops.TensorDump("all")
    with pytest.raises(TypeError, match="Parameter tensor should only be Tensor"):
        ops.functional.tensordump("/tmp/x", [1, 2])


# ---- ScalarToArray / scalar_to_array ------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_scalar_to_array(mode):
    fn = lambda x: (ops.ScalarToArray()(1.0), ops.ScalarToArray()(3), ops.functional.scalar_to_array(-2.5), x)  # noqa: E731
    a, b, c, _ = (ms.jit(fn) if mode == "graph" else fn)(Tensor(np.ones(1, np.float32)))
    assert a.shape == () and a.dtype == ms.float32 and float(a.asnumpy()) == 1.0    # the documented example
    assert b.shape == () and b.dtype == ms.int64 and int(b.asnumpy()) == 3     # a Python int is Int64
    assert c.dtype == ms.float32 and float(c.asnumpy()) == -2.5


def test_scalar_to_array_refuses_other_values():
    for bad in ("a", True, Tensor(np.ones(1, np.float32))):
        with pytest.raises(TypeError):                        # documented: neither int nor float
            ops.ScalarToArray()(bad)


# ---- string_concat / string_eq / typeof / hastype -----------------------------------------------------
def test_string_utilities_are_graph_only():
    F = ops.functional
    with pytest.raises(RuntimeError, match="has no attr:__infer__"):       # the wheel's PyNative call
        F.string_eq("a", "a")
    out = ms.jit(lambda x: (F.string_concat("x", "yz"), F.string_eq("xyz", F.string_concat("xy", "z")), x))(
        Tensor(np.ones(1, np.float32)))
    assert out[0] == "xyz" and out[1] is True
    with pytest.raises(RuntimeError, match="The expected is String, not Int64"):
        ms.jit(lambda x: (F.string_eq("a", 1), x))(Tensor(np.ones(1, np.float32)))


@pytest.mark.parametrize("mode", MODES)
def test_typeof_hastype(mode):
    F = ops.functional
    fn = lambda x, i: (F.hastype(x, ms.tensor_type), F.hastype(i, ms.tensor_type), F.hastype(3, ms.int64),  # noqa: E731
                       F.hastype(3, ms.float32), F.hastype(x, ms.int64), F.typeof(i) == F.typeof(i), x)
    out = (ms.jit(fn) if mode == "graph" else fn)(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.int32)))
    assert out[:6] == (True, True, True, False, False, True)
    assert str(F.typeof(Tensor(np.ones(2, np.float16)))) == "Tensor[Float16]" and str(F.typeof(1)) == "Int64"
