"""ops.flash_attention_score and ops.operations.nn_ops.FlashAttentionScore
(src/pycompile/ops/entries/flash_attention.py) against a NumPy version of MindSpore 2.10's documented
formula, eagerly and compiled: every layout, grouped-query heads, pse, each sparse mode's mask, the
drop mask's bits, float16 / bfloat16, the Primitive's softmax statistics, gradients against central
differences, and the errors (MindSpore's CPU wheel has no kernel for it: its shape checks are
recorded in tests/conformance/cases_flash_attention.py)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.common import dtype as mstype
from pycompile.ops.operations.nn_ops import FlashAttentionScore

RNG = np.random.default_rng(7)
LOWEST = np.finfo(np.float32).min


def _bnsd(x, layout, n):
    """NumPy: a layout's array -> (B, N, S, D) float64."""
    x = np.asarray(x, np.float64)
    if layout == "BSH":
        b, s, h = x.shape
        return x.reshape(b, s, n, h // n).transpose(0, 2, 1, 3)
    if layout == "SBH":
        s, b, h = x.shape
        return x.reshape(s, b, n, h // n).transpose(1, 2, 0, 3)
    if layout == "BSND":
        return x.transpose(0, 2, 1, 3)
    return x


def _layout(y, layout):
    b, n, s, d = y.shape
    if layout == "BSH":
        return y.transpose(0, 2, 1, 3).reshape(b, s, n * d)
    if layout == "SBH":
        return y.transpose(2, 0, 1, 3).reshape(s, b, n * d)
    if layout == "BSND":
        return y.transpose(0, 2, 1, 3)
    return y


def reference(q, k, v, n1, n2, scale, layout="BSH", pse=None, discard=None, keep=None, keep_prob=1.0):
    """The documented formula in float64: softmax(mask(scale (q k^T + pse))) (dropped, / keep_prob) v;
    query head h reads key / value head h // (n1 / n2). Returns (out, row max, row sum)."""
    Q, K, V = _bnsd(q, layout, n1), _bnsd(k, layout, n2), _bnsd(v, layout, n2)
    K, V = (np.repeat(t, n1 // n2, axis=1) for t in (K, V))
    s = Q @ K.transpose(0, 1, 3, 2)
    if pse is not None:
        s = s + pse
    s = s * scale
    if discard is not None:
        s = np.where(np.broadcast_to(discard, s.shape), LOWEST, s)
    top = s.max(-1, keepdims=True)
    e = np.exp(s - top)
    p = e / e.sum(-1, keepdims=True)
    if keep is not None:
        p = p * keep / keep_prob
    return _layout(p @ V, layout), top, e.sum(-1, keepdims=True)


def _qkv(shape_q, shape_k, dtype=np.float32):
    return [RNG.standard_normal(s).astype(dtype) for s in (shape_q, shape_k, shape_k)]


def _run(compiled, fn, *args):
    return (ms.jit(fn) if compiled else fn)(*[Tensor(a) if isinstance(a, np.ndarray) else a for a in args])


LAYOUT_SHAPES = {   # (query, key) for B=2, N1=4, N2=2, S1=5, S2=7, D=8
    "BSH": ((2, 5, 32), (2, 7, 16)), "SBH": ((5, 2, 32), (7, 2, 16)),
    "BSND": ((2, 5, 4, 8), (2, 7, 2, 8)), "BNSD": ((2, 4, 5, 8), (2, 2, 7, 8))}


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("layout", sorted(LAYOUT_SHAPES))
def test_layouts_and_grouped_heads(layout, compiled):
    q, k, v = _qkv(*LAYOUT_SHAPES[layout])
    out = _run(compiled, lambda a, b, c: ops.flash_attention_score(a, b, c, 4, scalar_value=0.35,
                                                                   input_layout=layout), q, k, v)
    assert out.dtype == mstype.float32 and out.shape == q.shape
    np.testing.assert_allclose(out.asnumpy(), reference(q, k, v, 4, 2, 0.35, layout)[0], rtol=2e-5, atol=2e-6)


def _masks(s1, s2, pre, nxt, prefix=None):
    off = np.arange(s2)[None, :] - np.arange(s1)[:, None]
    masks = {2: off > 0, 3: off > s2 - s1, 4: (off > nxt) | (off < -pre)}
    if prefix is not None:
        cols = np.arange(s2)[None, None, None, :] >= np.asarray(prefix).reshape(-1, 1, 1, 1)
        masks[5] = (off > s2 - s1)[None, None] & cols
    return masks


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("mode", [2, 3, 4, 5])
def test_sparse_modes_build_their_masks(mode, compiled):
    """2: causal from the upper-left corner, 3: from the lower-right, 4: the pre / next band, 5: mode
    3 with the first prefix[b] keys kept; the 2048 x 2048 mask is the documented stand-in."""
    q, k, v = _qkv((2, 4, 5, 8), (2, 4, 7, 8))
    compressed = np.triu(np.ones((2048, 2048), np.uint8), 1)
    prefix = [3, 1]
    extra = {"prefix": prefix} if mode == 5 else {}
    mask = None if mode == 5 else compressed

    def f(a, b, c):
        return ops.flash_attention_score(a, b, c, 4, attn_mask=None if mask is None else Tensor(mask),
                                         scalar_value=0.5, pre_tokens=1, next_tokens=2, input_layout="BNSD",
                                         sparse_mode=mode, **extra)
    out = _run(compiled, f, q, k, v)
    want = reference(q, k, v, 4, 4, 0.5, "BNSD", discard=_masks(5, 7, 1, 2, prefix)[mode])[0]
    np.testing.assert_allclose(out.asnumpy(), want, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_user_masks_modes_0_and_1_and_pse(compiled):
    """Mode 0 applies attn_mask and the pre / next band; mode 1 the mask alone; pse is added before the
    scale (the Primitive's documented order)."""
    q, k, v = _qkv((2, 6, 32), (2, 6, 32))
    user = RNG.random((2, 1, 6, 6)) < 0.3
    pse = RNG.standard_normal((1, 4, 6, 6)).astype(np.float32)

    def f(a, b, c, m, p):
        return (ops.flash_attention_score(a, b, c, 4, real_shift=p, attn_mask=m, scalar_value=0.4, pre_tokens=2,
                                          next_tokens=1),
                ops.flash_attention_score(a, b, c, 4, real_shift=p, attn_mask=m, scalar_value=0.4, pre_tokens=2,
                                          next_tokens=1, sparse_mode=1))
    m0, m1 = _run(compiled, f, q, k, v, user.astype(np.uint8), pse)
    band = _masks(6, 6, 2, 1)[4]
    np.testing.assert_allclose(m0.asnumpy(), reference(q, k, v, 4, 4, 0.4, pse=pse, discard=user | band)[0],
                               rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(m1.asnumpy(), reference(q, k, v, 4, 4, 0.4, pse=pse, discard=user)[0],
                               rtol=2e-5, atol=2e-6)


def test_a_row_with_every_key_discarded_gets_the_mean_of_the_values():
    q, k, v = _qkv((1, 1, 3, 8), (1, 1, 4, 8))
    mask = np.zeros((3, 4), bool)
    mask[1] = True
    out = ops.flash_attention_score(Tensor(q), Tensor(k), Tensor(v), 1, attn_mask=Tensor(mask), sparse_mode=1,
                                    input_layout="BNSD").asnumpy()
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out[0, 0, 1], v[0, 0].mean(0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_drop_mask_bits_least_significant_first(compiled):
    q, k, v = _qkv((1, 2, 3, 8), (1, 2, 16, 8))
    packed = RNG.integers(0, 256, (1, 2, 3, 2), dtype=np.uint8)
    keep = np.unpackbits(packed, axis=-1, bitorder="little").astype(np.float64)
    out = _run(compiled, lambda a, b, c, m: ops.flash_attention_score(a, b, c, 2, drop_mask=m, keep_prob=0.8,
                                                                      input_layout="BNSD"), q, k, v, packed)
    want = reference(q, k, v, 2, 2, 1.0, "BNSD", keep=keep, keep_prob=0.8)[0]
    np.testing.assert_allclose(out.asnumpy(), want, rtol=2e-5, atol=2e-6)
    # keep_prob 1.0: the documented "drop_mask should be None" - nothing is dropped
    full = ops.flash_attention_score(Tensor(q), Tensor(k), Tensor(v), 2, drop_mask=Tensor(packed),
                                     input_layout="BNSD")
    np.testing.assert_allclose(full.asnumpy(), reference(q, k, v, 2, 2, 1.0, "BNSD")[0], rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_tnd_runs_each_sequence_alone(compiled):
    qlen, kvlen = [3, 5, 9], [4, 7, 10]     # sequences of 3, 2, 4 queries and 4, 3, 3 keys
    q, k, v = _qkv((9, 4, 8), (10, 2, 8))
    out = _run(compiled, lambda a, b, c: ops.flash_attention_score(
        a, b, c, 4, actual_seq_qlen=qlen, actual_seq_kvlen=kvlen, scalar_value=0.3, input_layout="TND",
        sparse_mode=3, attn_mask=Tensor(np.triu(np.ones((2048, 2048), np.uint8), 1))), q, k, v)
    want = []
    for (q0, q1), (k0, k1) in zip(zip([0] + qlen, qlen), zip([0] + kvlen, kvlen)):
        s1, s2 = q1 - q0, k1 - k0
        seq = [t[a:e].transpose(1, 0, 2)[None] for t, a, e in ((q, q0, q1), (k, k0, k1), (v, k0, k1))]
        r = reference(*seq, 4, 2, 0.3, "BNSD", discard=_masks(s1, s2, 0, 0)[3])[0]
        want.append(r[0].transpose(1, 0, 2))
    got = out.asnumpy()
    assert got.shape == (9, 4, 8)
    np.testing.assert_allclose(got, np.concatenate(want), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("dtype", [mstype.float16, mstype.bfloat16])
@pytest.mark.parametrize("compiled", [False, True])
def test_half_precision_computes_in_float32_and_rounds_once(dtype, compiled):
    q, k, v = (Tensor(a).astype(dtype) for a in _qkv((2, 5, 32), (2, 5, 32)))
    out = _run(compiled, lambda a, b, c: ops.flash_attention_score(a, b, c, 4, scalar_value=0.35), q, k, v)
    assert out.dtype == dtype
    wide = [t.astype(mstype.float32).asnumpy() for t in (q, k, v)]
    want = Tensor(reference(*wide, 4, 4, 0.35)[0].astype(np.float32)).astype(dtype)
    tol = 1e-2 if dtype == mstype.bfloat16 else 1e-3
    np.testing.assert_allclose(out.astype(mstype.float32).asnumpy(), want.astype(mstype.float32).asnumpy(),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("compiled", [False, True])
def test_primitive_outputs_and_statistics(compiled):
    q, k, v = _qkv((2, 4, 32), (2, 6, 32))
    prim = FlashAttentionScore(4, scale_value=0.25, sparse_mode=3, input_layout="BSH")
    mask = Tensor(np.triu(np.ones((2048, 2048), np.uint8), 1))
    top, total, empty, out = _run(compiled, lambda a, b, c: prim(a, b, c, None, None, None, mask), q, k, v)
    want, wtop, wtotal = reference(q, k, v, 4, 4, 0.25, discard=_masks(4, 6, 0, 0)[3])
    assert top.shape == total.shape == (2, 4, 4, 8) and top.dtype == total.dtype == mstype.float32
    assert empty.shape == (0,)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(top.asnumpy(), np.broadcast_to(wtop, (2, 4, 4, 8)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(total.asnumpy(), np.broadcast_to(wtotal, (2, 4, 4, 8)), rtol=1e-5)
    assert prim.head_num == 4 and prim.input_layout == "BSH"


@pytest.mark.parametrize("compiled", [False, True])
def test_gradients_match_central_differences(compiled):
    q, k, v = (a.astype(np.float64) for a in _qkv((1, 3, 8), (1, 4, 4)))
    pse = RNG.standard_normal((1, 2, 3, 4))
    w = RNG.standard_normal((1, 3, 8))
    mask = Tensor(np.triu(np.ones((2048, 2048), np.uint8), 1))

    def loss(a, b, c, p):
        out = ops.flash_attention_score(a, b, c, 2, real_shift=p, attn_mask=mask, scalar_value=0.6,
                                        sparse_mode=3)
        return (out * Tensor(w.astype(np.float32))).sum()
    f32 = [Tensor(t.astype(np.float32)) for t in (q, k, v, pse)]
    grads = (ms.jit(ms.grad(loss, (0, 1, 2, 3))) if compiled else ms.grad(loss, (0, 1, 2, 3)))(*f32)

    def value(arrays):
        return float(loss(*[Tensor(t.astype(np.float32)) for t in arrays]).asnumpy())
    arrays = [q, k, v, pse]
    for which, g in enumerate(grads):
        fd = np.zeros_like(arrays[which])
        for i in np.ndindex(fd.shape):
            hi = [a.copy() for a in arrays]
            lo = [a.copy() for a in arrays]
            hi[which][i] += 1e-2
            lo[which][i] -= 1e-2
            fd[i] = (value(hi) - value(lo)) / 2e-2
        np.testing.assert_allclose(g.asnumpy(), fd, rtol=2e-2, atol=2e-3, err_msg=f"input {which}")


def test_argument_errors():
    q = Tensor(np.ones((2, 4, 64), np.float16))
    with pytest.raises(RuntimeError, match="'head_num' must be greater than 0"):
        ops.flash_attention_score(q, q, q, 0)     # the wheel dies of SIGFPE here
    with pytest.raises(TypeError, match="must have the same dtype"):
        ops.flash_attention_score(q, q, q.astype(mstype.float32), 4)
    with pytest.raises(TypeError, match="dtype of 'query'"):
        ops.flash_attention_score(*(Tensor(np.ones((2, 4, 64), np.float64)),) * 3, 4)
    with pytest.raises(RuntimeError, match="sparse_mode"):
        ops.flash_attention_score(q, q, q, 4, sparse_mode=6)
    with pytest.raises(RuntimeError, match="optimized"):
        ops.flash_attention_score(q, q, q, 4, attn_mask=Tensor(np.ones((4, 4), np.uint8)), sparse_mode=2)
    with pytest.raises(RuntimeError, match="shape of 'attn_mask'"):
        ops.flash_attention_score(q, q, q, 4, attn_mask=Tensor(np.ones((3, 4), np.uint8)))
    with pytest.raises(TypeError, match="dtype of 'attn_mask'"):
        ops.flash_attention_score(q, q, q, 4, attn_mask=Tensor(np.ones((4, 4), np.float32)))
    with pytest.raises(RuntimeError, match="divisible by the number of key / value heads"):
        kv = Tensor(np.ones((2, 4, 48), np.float16))
        ops.flash_attention_score(q, kv, kv, 4)
    with pytest.raises(ValueError, match="'actual_seq_qlen' and 'actual_seq_kvlen' must not be None"):
        ops.flash_attention_score(*(Tensor(np.ones((4, 2, 8), np.float16)),) * 3, 2, input_layout="TND")
    with pytest.raises(ValueError, match="0 should not exist"):
        ops.flash_attention_score(*(Tensor(np.ones((4, 2, 8), np.float16)),) * 3, 2, input_layout="TND",
                                  actual_seq_qlen=[2, 4], actual_seq_kvlen=[4, 4])
    with pytest.raises(ValueError, match="keep_prob"):
        ops.flash_attention_score(q, q, q, 4, keep_prob=0.0)


def test_an_error_in_graph_code_names_the_users_line():
    q = Tensor(np.ones((2, 4, 64), np.float16))

    @ms.jit
    def f(a):
        return ops.flash_attention_score(a, a, a, 3)
    with pytest.raises(RuntimeError) as info:
        f(q)
    assert "divisible by `head_num`" in str(info.value)
    assert "test_flash_attention.py" in str(info.value)


def test_vmap_maps_over_a_leading_axis_in_both_modes():
    x = RNG.standard_normal((3, 2, 5, 16)).astype(np.float32)

    def f(a):
        return ops.flash_attention_score(a, a, a, 2, scalar_value=0.3)
    want = np.stack([reference(e, e, e, 2, 2, 0.3)[0] for e in x])
    for fn in (ms.vmap(f), ms.jit(ms.vmap(f))):
        np.testing.assert_allclose(fn(Tensor(x)).asnumpy(), want, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_ring_attention_update_merges_two_halves_into_the_whole(compiled):
    """Attention over keys [0, 6) and [6, 10) merged from their softmax statistics is the attention over
    all ten keys (SBH), and the same per sequence in TND."""
    q = RNG.standard_normal((4, 2, 16)).astype(np.float32)
    k, v = (RNG.standard_normal((10, 2, 16)).astype(np.float32) for _ in range(2))
    fa = FlashAttentionScore(2, scale_value=0.3, input_layout="SBH")

    def f(a, b, c):
        m1, s1, _, o1 = fa(a, b[:6], c[:6])
        m2, s2, _, o2 = fa(a, b[6:], c[6:])
        return ops.ring_attention_update(o1, m1, s1, o2, m2, s2), fa(a, b, c)
    (out, top, total), (wtop, wtotal, _, whole) = _run(compiled, f, q, k, v)
    np.testing.assert_allclose(out.asnumpy(), whole.asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(top.asnumpy(), wtop.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(total.asnumpy(), wtotal.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(whole.asnumpy(), reference(q, k, v, 2, 2, 0.3, "SBH")[0], rtol=2e-5, atol=2e-6)

    tq, tk, tv = (RNG.standard_normal(s).astype(np.float16) for s in ((5, 1, 64), (8, 1, 64), (8, 1, 64)))
    qlen, half, rest = [2, 5], [2, 4], [2, 4]     # each sequence's keys split in two of 2 + 2

    def g(a, b, c):
        idx1 = Tensor(np.array([0, 1, 4, 5], np.int32))
        idx2 = Tensor(np.array([2, 3, 6, 7], np.int32))
        part = [ops.operations.nn_ops.FlashAttentionScore(1, input_layout="TND")(
            a, ops.gather(b, i, 0), ops.gather(c, i, 0), None, None, None, None, None, qlen, lens)
            for i, lens in ((idx1, half), (idx2, rest))]
        (m1, s1, _, o1), (m2, s2, _, o2) = part
        whole = ops.flash_attention_score(a, b, c, 1, actual_seq_qlen=qlen, actual_seq_kvlen=[4, 8],
                                          input_layout="TND")
        return ops.ring_attention_update(o1, m1, s1, o2, m2, s2, Tensor(np.array([0, 2, 5], np.int64)),
                                         "TND")[0], whole
    merged, whole = _run(compiled, g, tq, tk, tv)
    assert merged.dtype == mstype.float16
    np.testing.assert_allclose(merged.asnumpy().astype(np.float32), whole.asnumpy().astype(np.float32), atol=2e-3)


def test_ring_attention_update_errors():
    o, m = Tensor(np.ones((4, 2, 64), np.float32)), Tensor(np.ones((4, 2, 8), np.float32))
    with pytest.raises(RuntimeError, match="'actual_seq_qlen' is mandatory"):
        ops.ring_attention_update(o, m, m, o, m, m, layout="TND")
    with pytest.raises(RuntimeError, match="non-decreasing from 0 to T"):
        ops.ring_attention_update(o, m, m, o, m, m, Tensor(np.array([0, 3, 2, 4])), layout="TND")
    with pytest.raises(RuntimeError, match="multiple of 64"):
        x = Tensor(np.ones((4, 2, 32), np.float32))
        ops.ring_attention_update(x, m, m, x, m, m, Tensor(np.array([0, 4])), layout="TND")
    with pytest.raises(TypeError, match="'prev_softmax_max'"):
        ops.ring_attention_update(o, m.astype(mstype.float16), m, o, m, m, Tensor(np.array([0, 4])), layout="TND")


class _Block(ms.nn.Cell):
    """A causal self-attention layer as large-model code writes it (the Primitive, BNSD, sparse mode 2)
    or with plain products and softmax (use_fa=False): the same Parameters, the same function."""

    def __init__(self, use_fa):
        super().__init__()
        self.qkv = ms.nn.Dense(16, 48, weight_init="normal")
        self.out = ms.nn.Dense(16, 16, weight_init="normal")
        self.use_fa = use_fa
        self.fa = FlashAttentionScore(2, scale_value=0.25, input_layout="BNSD", sparse_mode=2)
        self.mask = Tensor(np.triu(np.ones((2048, 2048), np.uint8), 1))
        self.causal = Tensor(np.triu(np.ones((5, 5), bool), 1))

    def construct(self, x):
        b, s, _ = x.shape
        q, k, v = ops.split(self.qkv(x), 16, -1)
        q, k, v = (ops.transpose(ops.reshape(t, (b, s, 2, 8)), (0, 2, 1, 3)) for t in (q, k, v))
        if self.use_fa:
            y = self.fa(q, k, v, None, None, None, self.mask)[3]
        else:
            scores = ops.masked_fill(ops.matmul(q, ops.transpose(k, (0, 1, 3, 2))) * 0.25, self.causal, -1e30)
            y = ops.matmul(ops.softmax(scores, -1), v)
        return self.out(ops.reshape(ops.transpose(y, (0, 2, 1, 3)), (b, s, 16)))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_causal_layer_trains_as_the_same_layer_written_with_products(mode):
    ms.set_context(mode=mode)
    try:
        x = Tensor(RNG.standard_normal((3, 5, 16)).astype(np.float32))
        y = Tensor(RNG.standard_normal((3, 5, 16)).astype(np.float32))
        losses = {}
        for use_fa in (True, False):
            ms.set_seed(5)
            net = _Block(use_fa)
            step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, ms.nn.MSELoss()),
                                          ms.nn.SGD(net.trainable_params(), 0.5))
            losses[use_fa] = [float(step(x, y).asnumpy()) for _ in range(4)]
        assert losses[True][-1] < losses[True][0]
        np.testing.assert_allclose(losses[True], losses[False], rtol=1e-5)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("pse_type", [0, 1, 2, 3])
def test_speed_fusion_attention_pse_types(pse_type, compiled):
    """pse_type 1 adds pse before the scale (FlashAttentionScore's), 0 after it; 2 / 3 generate
    -slope * |d| / -slope * sqrt(|d|) from per-head slopes, d shifted by q_start_idx / kv_start_idx."""
    q, k, v = _qkv((2, 2, 5, 8), (2, 2, 6, 8))
    if pse_type < 2:
        arg = RNG.standard_normal((1, 2, 5, 6)).astype(np.float32)
        bias = arg
    else:
        arg = RNG.uniform(0.1, 1.0, (2, 2)).astype(np.float32)          # (B, N1) slopes
        d = np.abs((np.arange(6)[None, :] + 3) - (np.arange(5)[:, None] + 1)).astype(np.float64)
        bias = -arg[:, :, None, None] * (np.sqrt(d) if pse_type == 3 else d)

    def f(a, b, c, p):
        return ops.speed_fusion_attention(a, b, c, 2, "BNSD", pse=p, scale=0.3, pse_type=pse_type, q_start_idx=[1],
                                          kv_start_idx=[3])
    out = _run(compiled, f, q, k, v, arg)
    assert len(out) == 7 and out[3].shape == (0,) and out[4].dtype == out[5].dtype == out[6].dtype == mstype.int64
    scores = np.asarray(q, np.float64) @ np.asarray(k, np.float64).transpose(0, 1, 3, 2)
    scores = 0.3 * (scores + bias) if pse_type == 1 else 0.3 * scores + bias
    p = np.exp(scores - scores.max(-1, keepdims=True))
    want = (p / p.sum(-1, keepdims=True)) @ v
    np.testing.assert_allclose(out[0].asnumpy(), want, rtol=2e-5, atol=2e-6)
    top = scores.max(-1, keepdims=True)
    np.testing.assert_allclose(out[1].asnumpy(), np.broadcast_to(top, (2, 2, 5, 8)), rtol=1e-5, atol=1e-6)
    assert int(out[6].asnumpy()) == 0


def test_speed_fusion_attention_dropout_and_errors():
    q = Tensor(RNG.standard_normal((1, 4, 16)).astype(np.float32))
    out = ops.speed_fusion_attention(q, q, q, 2, "BSH", keep_prob=0.5)
    assert int(out[6].asnumpy()) == 1 * 2 * 4 * 4 and out[0].shape == (1, 4, 16)
    with pytest.raises(ValueError, match="'pse_type' \\(5\\) is invalid"):
        ops.speed_fusion_attention(q, q, q, 2, "BSH", pse_type=5)
    with pytest.raises(RuntimeError, match="holds the slopes"):
        ops.speed_fusion_attention(q, q, q, 2, "BSH", pse=Tensor(np.ones((3,), np.float32)), pse_type=2)
