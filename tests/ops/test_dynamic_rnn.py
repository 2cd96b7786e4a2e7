"""ops.DynamicRNN and ops.DynamicGRUV2 (src/pycompile/ops/entries/dynamic_rnn.py) against a NumPy
reference written from their documented formulas, in PyNative and compiled (`ms.jit`), with
gradients checked against central finite differences of the reference.

MindSpore 2.10's CPU wheel has no kernel for either ("Unsupported op [DynamicRNN] on CPU"), so
no values can be recorded from it; its argument checks are (tests/conformance/cases_dynrnn.py)."""
import re

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

F16 = np.float16
RTOL16 = ATOL16 = 2e-3          # one float16 rounding of results of size ~1


# ---- the reference, from the docstrings' formulas ----------------------------------------------
def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def ref_dynamic_rnn(x, w, b, init_h, init_c, forget_bias=0.0, cell_clip=-1.0):
    """(y, output_h, output_c, i, j, f, o, tanhc): w's rows act on [x_t, h_{t-1}], its columns are
    the gates i, j (the candidate), f, o."""
    x, w, b = (np.asarray(a, np.float64) for a in (x, w, b))
    hidden = w.shape[1] // 4
    h, c = np.asarray(init_h, np.float64)[0], np.asarray(init_c, np.float64)[0]
    rows = {k: [] for k in ("h", "c", "i", "j", "f", "o", "tanhc")}
    for t in range(x.shape[0]):
        pre = np.concatenate([x[t], h], axis=1) @ w + b
        gi, gj, gf, go = (pre[:, k * hidden:(k + 1) * hidden] for k in range(4))
        i, j, f, o = _sigmoid(gi), np.tanh(gj), _sigmoid(gf + forget_bias), _sigmoid(go)
        c = f * c + i * j
        if cell_clip > 0:
            c = np.clip(c, -cell_clip, cell_clip)
        tanhc = np.tanh(c)
        h = o * tanhc
        for k, v in zip(rows, (h, c, i, j, f, o, tanhc)):
            rows[k].append(v)
    h_seq = np.stack(rows["h"])
    return (h_seq, h_seq) + tuple(np.stack(rows[k]) for k in ("c", "i", "j", "f", "o", "tanhc"))


def ref_dynamic_gru(x, wi, wh, bi, bh, init_h, gate_order="rzh", reset_after=True):
    """(y, output_h, update, reset, new, hidden_new)."""
    x, wi, wh, h = (np.asarray(a, np.float64) for a in (x, wi, wh, init_h))
    hidden = wh.shape[0]
    bi = np.zeros(3 * hidden) if bi is None else np.asarray(bi, np.float64)
    bh = np.zeros(3 * hidden) if bh is None else np.asarray(bh, np.float64)
    pos = {"r": gate_order.index("r"), "z": gate_order.index("z"), "n": 2}

    def part(m, g):
        sl = slice(pos[g] * hidden, (pos[g] + 1) * hidden)
        return m[..., sl]

    rows = {k: [] for k in ("h", "z", "r", "n", "hn")}
    for t in range(x.shape[0]):
        r = _sigmoid(x[t] @ part(wi, "r") + part(bi, "r") + h @ part(wh, "r") + part(bh, "r"))
        z = _sigmoid(x[t] @ part(wi, "z") + part(bi, "z") + h @ part(wh, "z") + part(bh, "z"))
        if reset_after:
            hn = h @ part(wh, "n") + part(bh, "n")
            n = np.tanh(x[t] @ part(wi, "n") + part(bi, "n") + r * hn)
        else:
            hn = (r * h) @ part(wh, "n") + part(bh, "n")
            n = np.tanh(x[t] @ part(wi, "n") + part(bi, "n") + hn)
        h = (1 - z) * n + z * h
        for k, v in zip(rows, (h, z, r, n, hn)):
            rows[k].append(v)
    h_seq = np.stack(rows["h"])
    return (h_seq, h_seq) + tuple(np.stack(rows[k]) for k in ("z", "r", "n", "hn"))


# ---- inputs --------------------------------------------------------------------------------------
def lstm_inputs(seq, batch, inp, hid, seed=0):
    r = np.random.default_rng(seed)
    return [r.uniform(-1, 1, (seq, batch, inp)).astype(F16), r.uniform(-0.6, 0.6, (inp + hid, 4 * hid)).astype(F16),
            r.uniform(-0.5, 0.5, (4 * hid,)).astype(F16), r.uniform(-1, 1, (1, batch, hid)).astype(F16),
            r.uniform(-1, 1, (1, batch, hid)).astype(F16)]


def gru_inputs(seq, batch, inp, hid, state=F16, seed=0):
    r = np.random.default_rng(seed)
    return [r.uniform(-1, 1, (seq, batch, inp)).astype(F16), r.uniform(-0.6, 0.6, (inp, 3 * hid)).astype(F16),
            r.uniform(-0.6, 0.6, (hid, 3 * hid)).astype(F16), r.uniform(-0.5, 0.5, (3 * hid,)).astype(state),
            r.uniform(-0.5, 0.5, (3 * hid,)).astype(state), r.uniform(-1, 1, (batch, hid)).astype(state)]


def run(fn, mode, *arrays):
    args = [Tensor(a) for a in arrays]
    return (ms.jit(fn) if mode == "graph" else fn)(*args)


def check(got, want, dtype, rtol, atol):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == dtype and tuple(g.shape) == w.shape
        np.testing.assert_allclose(g.asnumpy().astype(np.float64), w, rtol=rtol, atol=atol)


MODES = ["pynative", "graph"]
SHAPES = [(1, 1, 1, 1), (3, 2, 4, 5), (6, 3, 2, 4), (2, 4, 7, 3)]


# ---- DynamicRNN ----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_dynamic_rnn_values(mode, shape):
    arrays = lstm_inputs(*shape)

    def f(x, w, b, h, c):
        return ops.DynamicRNN()(x, w, b, None, h, c)
    check(run(f, mode, *arrays), ref_dynamic_rnn(*arrays), ms.float16, RTOL16, ATOL16)


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_rnn_forget_bias_and_cell_clip(mode):
    arrays = lstm_inputs(5, 2, 3, 4, seed=3)
    arrays[1] = (arrays[1] * 3).astype(F16)          # large enough that |c| passes the clip

    def f(x, w, b, h, c):
        return ops.operations.DynamicRNN(forget_bias=1.5, cell_clip=0.4)(x, w, b, None, h, c)
    want = ref_dynamic_rnn(*arrays, forget_bias=1.5, cell_clip=0.4)
    assert np.abs(ref_dynamic_rnn(*arrays, forget_bias=1.5)[2]).max() > 0.4     # the clip matters
    check(run(f, mode, *arrays), want, ms.float16, RTOL16, ATOL16)


def test_dynamic_rnn_gate_layout():
    """The gate outputs are the activated column blocks i, j, f, o of [x, h] @ w + b at step 0."""
    x, w, b, h, c = lstm_inputs(1, 2, 3, 2, seed=5)
    out = ops.DynamicRNN()(*(Tensor(a) for a in (x, w, b)), None, Tensor(h), Tensor(c))
    pre = np.concatenate([x[0], h[0]], 1).astype(np.float64) @ w.astype(np.float64) + b
    for got, k, act in ((out[3], 0, _sigmoid), (out[4], 1, np.tanh), (out[5], 2, _sigmoid), (out[6], 3, _sigmoid)):
        np.testing.assert_allclose(got.asnumpy()[0], act(pre[:, 2 * k:2 * k + 2]), rtol=RTOL16, atol=ATOL16)


def test_dynamic_rnn_compiled_is_one_loop():
    arrays = [Tensor(a) for a in lstm_inputs(7, 2, 3, 4)]

    def f(x, w, b, h, c):
        return ops.DynamicRNN()(x, w, b, None, h, c)
    c_source = ms.inspect(ms.jit(f), *arrays).c_source
    assert len(re.findall(r"for \(int64_t \w+ = INT64_C\(", c_source)) >= 1
    assert c_source.count("tanh") < 7 * 3        # not one copy of the step per time step


# ---- DynamicGRUV2 --------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("gate_order, reset_after", [("rzh", True), ("zrh", True), ("rzh", False), ("zrh", False)])
def test_dynamic_gru_values_f16(mode, shape, gate_order, reset_after):
    arrays = gru_inputs(*shape)

    def f(x, wi, wh, bi, bh, h):
        return ops.DynamicGRUV2(gate_order=gate_order, reset_after=reset_after)(x, wi, wh, bi, bh, None, h)
    check(run(f, mode, *arrays), ref_dynamic_gru(*arrays, gate_order, reset_after), ms.float16, RTOL16, ATOL16)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("gate_order, reset_after", [("rzh", True), ("zrh", False)])
def test_dynamic_gru_values_f32_state(mode, gate_order, reset_after):
    arrays = gru_inputs(4, 3, 5, 6, state=np.float32, seed=2)

    def f(x, wi, wh, bi, bh, h):
        return ops.operations.DynamicGRUV2(gate_order=gate_order, reset_after=reset_after)(x, wi, wh, bi, bh, None, h)
    check(run(f, mode, *arrays), ref_dynamic_gru(*arrays, gate_order, reset_after), ms.float32, 1e-5, 1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_gru_without_biases(mode):
    x, wi, wh, _, _, h = gru_inputs(3, 2, 3, 4, state=np.float32, seed=4)

    def f(x, wi, wh, h):
        return ops.DynamicGRUV2()(x, wi, wh, None, None, None, h)
    check(run(f, mode, x, wi, wh, h), ref_dynamic_gru(x, wi, wh, None, None, h), ms.float32, 1e-5, 1e-6)


def test_dynamic_gru_gate_orders_are_column_permutations():
    """'zrh' with the r and z column blocks swapped gives 'rzh''s results."""
    x, wi, wh, bi, bh, h = gru_inputs(3, 2, 3, 4, state=np.float32, seed=6)
    H = 4

    def swap(m):
        return np.concatenate([m[..., H:2 * H], m[..., :H], m[..., 2 * H:]], -1)
    a = ops.DynamicGRUV2()(*(Tensor(v) for v in (x, wi, wh, bi, bh)), None, Tensor(h))
    b = ops.DynamicGRUV2(gate_order="zrh")(*(Tensor(v) for v in (x, swap(wi), swap(wh), swap(bi), swap(bh))), None,
                                           Tensor(h))
    for u, v in zip(a, b):
        np.testing.assert_allclose(u.asnumpy(), v.asnumpy(), rtol=1e-6, atol=1e-7)


# ---- gradients: central differences of the float64 reference at the same (float16) point --------
def _weights(outputs, seed):
    r = np.random.default_rng(seed)
    return [np.round(r.uniform(-1, 1, o.shape) * 8) / 8 for o in outputs]     # exact in float16


def _numeric_grads(ref, arrays, weights, positions, eps=1e-6):
    base = [a.astype(np.float64) for a in arrays]
    grads = []
    for p in positions:
        g = np.zeros(base[p].shape)
        for idx in np.ndindex(base[p].shape):
            vals = []
            for s in (1, -1):
                moved = list(base)
                moved[p] = base[p].copy()
                moved[p][idx] += s * eps
                vals.append(sum((o * w).sum() for o, w in zip(ref(*moved), weights)))
            g[idx] = (vals[0] - vals[1]) / (2 * eps)
        grads.append(g)
    return grads


def _loss(op_call, weights):
    ws = [Tensor(w.astype(np.float32)) for w in weights]

    def loss(*args):
        outs = op_call(*args)
        total = 0
        for o, w in zip(outs, ws):
            total = total + (ops.cast(o, ms.float32) * w).sum()
        return total
    return loss


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_rnn_gradients(mode):
    arrays = lstm_inputs(3, 2, 3, 2, seed=7)
    want_out = ref_dynamic_rnn(*arrays, forget_bias=0.5)
    weights = _weights(want_out, 1)
    loss = _loss(lambda x, w, b, h, c: ops.DynamicRNN(forget_bias=0.5)(x, w, b, None, h, c), weights)
    grad = ms.grad(loss, grad_position=(0, 1, 2, 3, 4))
    got = (ms.jit(grad) if mode == "graph" else grad)(*(Tensor(a) for a in arrays))
    want = _numeric_grads(lambda *a: ref_dynamic_rnn(*a, forget_bias=0.5), arrays, weights, range(5))
    for g, w in zip(got, want):
        assert g.dtype == ms.float16 and tuple(g.shape) == w.shape
        np.testing.assert_allclose(g.asnumpy().astype(np.float64), w, rtol=1e-2, atol=1e-2 * np.abs(w).max())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("gate_order, reset_after", [("rzh", True), ("zrh", False)])
def test_dynamic_gru_gradients(mode, gate_order, reset_after):
    """float32 state and biases: their gradients at float32 accuracy; x and the float16 weights'
    at float16's."""
    arrays = gru_inputs(3, 2, 3, 2, state=np.float32, seed=8)
    want_out = ref_dynamic_gru(*arrays, gate_order, reset_after)
    weights = _weights(want_out, 2)
    loss = _loss(lambda x, wi, wh, bi, bh, h: ops.DynamicGRUV2(gate_order=gate_order, reset_after=reset_after)(
        x, wi, wh, bi, bh, None, h), weights)
    grad = ms.grad(loss, grad_position=(0, 1, 2, 3, 4, 5))
    got = (ms.jit(grad) if mode == "graph" else grad)(*(Tensor(a) for a in arrays))
    want = _numeric_grads(lambda *a: ref_dynamic_gru(*a, gate_order, reset_after), arrays, weights, range(6))
    for k, (g, w) in enumerate(zip(got, want)):
        assert tuple(g.shape) == w.shape
        if k < 3:
            assert g.dtype == ms.float16
            np.testing.assert_allclose(g.asnumpy().astype(np.float64), w, rtol=1e-2, atol=1e-2 * np.abs(w).max())
        else:
            assert g.dtype == ms.float32
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-4, atol=1e-5)


# ---- errors --------------------------------------------------------------------------------------
def _rnn_call(**attrs):
    def f(x, w, b, h, c):
        return ops.DynamicRNN(**attrs)(x, w, b, None, h, c)
    return f


def _gru_call(**attrs):
    def f(x, wi, wh, bi, bh, h):
        return ops.DynamicGRUV2(**attrs)(x, wi, wh, bi, bh, None, h)
    return f


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attrs, msg", [
    ({"use_peephole": True}, "use_peephole=True needs peephole weights"),
    ({"num_proj": 2}, "num_proj=2 needs a projection weight"),
    ({"keep_prob": 0.5}, "keep_prob=0.5 needs a dropout mask"),
    ({"cell_depth": 2}, "cell_depth=2 needs the weights of every cell"),
])
def test_dynamic_rnn_refuses_what_needs_missing_inputs(mode, attrs, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        run(_rnn_call(**attrs), mode, *lstm_inputs(2, 2, 3, 4))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attrs, msg", [
    ({"num_proj": 2}, "num_proj=2 needs a projection weight"),
    ({"keep_prob": 0.5}, "keep_prob=0.5 needs a dropout mask"),
    ({"cell_clip": 1.0}, "cell_clip=1.0 needs a cell state"),
    ({"time_major": False}, "time_major=False needs a batch-major layout"),
])
def test_dynamic_gru_refuses_what_needs_missing_inputs(mode, attrs, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        run(_gru_call(**attrs), mode, *gru_inputs(2, 2, 3, 4))


@pytest.mark.parametrize("mode", MODES)
def test_argument_errors_are_the_wheels(mode):
    """A few of the recorded checks, in both modes (the rest: tests/conformance/cases_dynrnn.py)."""
    x, w, b, h, c = lstm_inputs(3, 2, 4, 5)
    with pytest.raises(TypeError, match=re.escape("For primitive[DynamicRNN], the input argument[b] must be a type "
                                                  "of {Tensor[Float16]}, but got Tensor[Float32].")):
        run(_rnn_call(), mode, x, w, b.astype(np.float32), h, c)
    with pytest.raises(ValueError, match=re.escape("For 'DynamicRNN', w_shape[0] should equal to input_size + "
                                                   "hidden_size, but gets 8.")):
        run(_rnn_call(), mode, x, w[:8], b, h, c)
    with pytest.raises(ValueError, match=re.escape("The primitive[DynamicGRUV2]'s input arguments init h shape should "
                                                   "equal to (2, 5), but get the real shape (3, 5).")):
        gx, wi, wh, bi, bh, gh = gru_inputs(3, 2, 4, 5)
        run(_gru_call(), mode, gx, wi, wh, bi, bh, np.zeros((3, 5), F16))
    with pytest.raises(ValueError, match="the dimension of 'seq_length' must be None"):
        gx, wi, wh, bi, bh, gh = gru_inputs(3, 2, 4, 5)
        (ms.jit(lambda *a: ops.DynamicGRUV2()(*a[:5], a[6], a[5])) if mode == "graph" else
         (lambda *a: ops.DynamicGRUV2()(*a[:5], a[6], a[5])))(*(Tensor(v) for v in (gx, wi, wh, bi, bh, gh)),
                                                             Tensor(np.array([3, 2], np.int32)))
