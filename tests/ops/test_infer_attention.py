"""ops.prompt_flash_attention / ops.incre_flash_attention and their nn_ops Primitives
(src/pycompile/ops/entries/infer_attention.py) against a NumPy version of MindSpore 2.10's documented
formula (softmax(scale * q k^T + pse, masked) v), eagerly and compiled: grouped heads, the masks and
sparse modes, actual sequence lengths given as lists or as Tensors computed in graph code, the key /
value cache with kv_padding_size, pse_shift larger than the sequence, and the errors (MindSpore's CPU
wheel has no kernels: its argument checks are recorded in tests/conformance/cases_flash_attention.py)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.common import dtype as mstype
from pycompile.ops.operations.nn_ops import IncreFlashAttention, PromptFlashAttention

RNG = np.random.default_rng(11)
LOWEST = np.finfo(np.float32).min


def attention(q, k, v, scale, pse=None, discard=None):
    """(B, N, S1, D) q, (B, kvN, S2, D) k / v, float64; discard broadcastable to (B, N, S1, S2)."""
    k, v = (np.repeat(t, q.shape[1] // t.shape[1], axis=1) for t in (k, v))
    s = scale * (q @ k.transpose(0, 1, 3, 2))
    if pse is not None:
        s = s + pse
    if discard is not None:
        s = np.where(np.broadcast_to(discard, s.shape), LOWEST, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def bsh_to_bnsd(x, n):
    b, s, h = x.shape
    return x.reshape(b, s, n, h // n).transpose(0, 2, 1, 3)


def bnsd_to_bsh(x):
    b, n, s, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, s, n * d)


def f16(*shape):
    return RNG.standard_normal(shape).astype(np.float16)


def wide(x):
    return np.asarray(x, np.float64)


def check(got, want, dtype=np.float16):
    np.testing.assert_allclose(got.asnumpy().astype(np.float64), want.astype(dtype).astype(np.float64),
                               rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("compiled", [False, True])
def test_prompt_grouped_heads_mask_and_lengths(compiled):
    """BSH, 4 query heads over 2 key / value heads; a user mask in mode 0 with the default
    next_tokens=0 band (causal); key lengths and query lengths per batch, given as a Tensor."""
    q, k, v = f16(2, 5, 32), f16(2, 6, 16), f16(2, 6, 16)
    user = RNG.random((2, 1, 5, 6)) < 0.2
    lengths = np.array([4, 6], np.int32)

    def f(a, b, c, m, n):
        return ops.prompt_flash_attention(a, b, c, attn_mask=m, actual_seq_lengths=n, actual_seq_lengths_kv=n,
                                          num_heads=4, scale_value=0.3, num_key_value_heads=2)
    out = (ms.jit(f) if compiled else f)(*(Tensor(x) for x in (q, k, v, user, lengths)))
    assert out.dtype == mstype.float16 and out.shape == q.shape
    causal = np.arange(6)[None, :] > np.arange(5)[:, None]
    past = np.arange(6)[None, None, None, :] >= lengths[:, None, None, None]
    want = attention(bsh_to_bnsd(wide(q), 4), bsh_to_bnsd(wide(k), 2), bsh_to_bnsd(wide(v), 2), 0.3,
                     discard=user | causal | past)
    rows = np.arange(5)[None, None, :, None] < lengths[:, None, None, None]
    check(out, bnsd_to_bsh(want * rows))


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("mode", [2, 3, 4])
def test_prompt_sparse_modes_and_pse_after_the_scale(mode, compiled):
    q, k, v = f16(1, 2, 4, 16), f16(1, 2, 6, 16), f16(1, 2, 6, 16)
    pse = f16(1, 2, 8, 9)        # larger than (S1, S2): cut to it
    mask = Tensor(np.triu(np.ones((2048, 2048), np.uint8), 1))

    def f(a, b, c, p):
        return ops.prompt_flash_attention(a, b, c, attn_mask=mask, pse_shift=p, num_heads=2, scale_value=0.25,
                                          pre_tokens=1, next_tokens=1, input_layout="BNSD", sparse_mode=mode)
    out = (ms.jit(f) if compiled else f)(Tensor(q), Tensor(k), Tensor(v), Tensor(pse))
    off = np.arange(6)[None, :] - np.arange(4)[:, None]
    discard = {2: off > 0, 3: off > 2, 4: (off > 1) | (off < -1)}[mode]
    check(out, attention(wide(q), wide(k), wide(v), 0.25, pse=wide(pse)[:, :, :4, :6], discard=discard))


@pytest.mark.parametrize("compiled", [False, True])
def test_incremental_step_against_the_cache(compiled):
    """One position per batch against a cache with right padding (lengths) and, second, with
    kv_padding_size: the valid keys are S - p - length <= j < S - p."""
    q, k, v = f16(2, 1, 32), f16(2, 8, 32), f16(2, 8, 32)
    pse = f16(2, 4, 1, 8)
    lengths = np.array([3, 8], np.int64)

    def f(a, b, c, n, p):
        return (ops.incre_flash_attention(a, [b], [c], actual_seq_lengths=n, pse_shift=p, num_heads=4,
                                          scale_value=0.3),
                ops.incre_flash_attention(a, [b[:1], b[1:]], [c[:1], c[1:]], actual_seq_lengths=Tensor(
                    np.array([2, 5], np.int64)), num_heads=4, scale_value=0.3, kv_padding_size=Tensor(
                    np.array(2, np.int64))))
    right, padded = (ms.jit(f) if compiled else f)(Tensor(q), Tensor(k), Tensor(v), Tensor(lengths), Tensor(pse))
    Q, K, V = (bsh_to_bnsd(wide(t), 4) for t in (q, k, v))
    past = np.arange(8)[None, None, None, :] >= lengths[:, None, None, None]
    check(right, bnsd_to_bsh(attention(Q, K, V, 0.3, pse=wide(pse), discard=past)))
    j = np.arange(8)[None, None, None, :]
    start = (8 - 2 - np.array([2, 5]))[:, None, None, None]
    check(padded, bnsd_to_bsh(attention(Q, K, V, 0.3, discard=(j < start) | (j >= 6))))


@pytest.mark.parametrize("compiled", [False, True])
def test_primitives(compiled):
    q, k, v = f16(2, 3, 2, 16), f16(2, 5, 1, 16), f16(2, 5, 1, 16)      # BSND, 2 heads over 1
    pfa = PromptFlashAttention(num_heads=2, scale_value=0.5, input_layout="BSND", num_key_value_heads=1)
    ifa = IncreFlashAttention(num_heads=2, input_layout="BSND", scale_value=0.5, num_key_value_heads=1)

    def f(a, b, c):
        return pfa(a, b, c), ifa(a[:, :1], [b], [c])
    prompt, step = (ms.jit(f) if compiled else f)(Tensor(q), Tensor(k), Tensor(v))
    Q, K, V = (wide(t).transpose(0, 2, 1, 3) for t in (q, k, v))
    check(prompt, attention(Q, K, V, 0.5).transpose(0, 2, 1, 3))
    check(step, attention(Q[:, :, :1], K, V, 0.5).transpose(0, 2, 1, 3))
    assert pfa.num_heads == 2 and ifa.input_layout == "BSND"


def test_bfloat16_and_float32():
    q = RNG.standard_normal((1, 1, 16)).astype(np.float32)
    kv = RNG.standard_normal((1, 4, 16)).astype(np.float32)
    want = bnsd_to_bsh(attention(bsh_to_bnsd(wide(q), 1), bsh_to_bnsd(wide(kv), 1), bsh_to_bnsd(wide(kv), 1), 0.25))
    out32 = ops.incre_flash_attention(Tensor(q), [Tensor(kv)], [Tensor(kv)], scale_value=0.25)
    assert out32.dtype == mstype.float32
    np.testing.assert_allclose(out32.asnumpy(), want, rtol=1e-5, atol=1e-6)
    bq, bkv = Tensor(q).astype(mstype.bfloat16), Tensor(kv).astype(mstype.bfloat16)
    out = ops.prompt_flash_attention(bq, bkv, bkv, scale_value=0.25)
    assert out.dtype == mstype.bfloat16
    np.testing.assert_allclose(out.astype(mstype.float32).asnumpy(), want, rtol=2e-2, atol=2e-2)


def test_errors():
    q = Tensor(f16(1, 4, 32))
    with pytest.raises(ValueError, match="quantization and paged attention are not supported"):
        ops.prompt_flash_attention(q, q, q, num_heads=2, quant_scale2=Tensor(np.ones(1, np.float32)))
    with pytest.raises(ValueError, match="'block_table'"):
        ops.incre_flash_attention(q[:, :1], [q], [q], num_heads=2, block_table=Tensor(np.zeros((1, 1), np.int32)))
    with pytest.raises(RuntimeError, match="'sparse_mode' must be 0, 1, 2, 3 or 4"):
        ops.prompt_flash_attention(q, q, q, num_heads=2, sparse_mode=5)
    with pytest.raises(RuntimeError, match="shape of 'attn_mask'"):
        ops.prompt_flash_attention(q, q, q, num_heads=2, attn_mask=Tensor(np.zeros((3, 4), bool)))
    with pytest.raises(RuntimeError, match="'num_heads' must be greater than 0"):
        ops.prompt_flash_attention(q, q, q, num_heads=0)
    with pytest.raises(ValueError, match="size of 'actual_seq_lengths' must be 1 or B"):
        ops.incre_flash_attention(q[:, :1], [q], [q], num_heads=2, actual_seq_lengths=[1, 2, 3])
    with pytest.raises(ValueError, match="one position"):
        ops.incre_flash_attention(q, [q], [q], num_heads=2)
    with pytest.raises(ValueError, match="'kv_padding_size' needs 'actual_seq_lengths'"):
        ops.incre_flash_attention(q[:, :1], [q], [q], num_heads=2, kv_padding_size=Tensor(np.array(1)))
    with pytest.raises(ValueError, match="of input 'input_layout' of 'PromptFlashAttention' to enum"):
        ops.prompt_flash_attention(q, q, q, num_heads=2, input_layout="TND")


@pytest.mark.parametrize("compiled", [False, True])
def test_fused_infer_attention_score_both_phases_and_lse(compiled):
    """A prompt (S1 > 1: prompt semantics, next_tokens unbounded by default) with its rows' log-sum-exp,
    a decode step (S1 = 1: the cache lengths from actual_seq_lengths_kv), and BNSD_BSND."""
    q, k, v = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 5, 32), (2, 6, 16), (2, 6, 16)))
    step = RNG.standard_normal((2, 1, 32)).astype(np.float32)
    qb = RNG.standard_normal((2, 4, 3, 8)).astype(np.float32)
    mask = RNG.random((2, 1, 5, 6)) < 0.3
    lengths = np.array([4, 6], np.int32)

    def f(a, b, c, s, m, n, x):
        prompt, lse = ops.fused_infer_attention_score(a, b, c, atten_mask=m, num_heads=4, num_key_value_heads=2,
                                                      scale=0.3, softmax_lse_flag=True)
        decode, none = ops.fused_infer_attention_score(s, [b], [c], actual_seq_lengths_kv=n, num_heads=4,
                                                       num_key_value_heads=2, scale=0.3)
        bsnd, _ = ops.fused_infer_attention_score(x, x, x, num_heads=4, input_layout="BNSD_BSND")
        return prompt, lse, decode, none, bsnd
    prompt, lse, decode, none, bsnd = (ms.jit(f) if compiled else f)(
        *(Tensor(t) for t in (q, k, v, step, mask.astype(np.uint8), lengths, qb)))
    Q, K, V = bsh_to_bnsd(wide(q), 4), bsh_to_bnsd(wide(k), 2), bsh_to_bnsd(wide(v), 2)
    np.testing.assert_allclose(prompt.asnumpy(), bnsd_to_bsh(attention(Q, K, V, 0.3, discard=mask)), rtol=2e-5,
                               atol=2e-6)
    s = 0.3 * (Q @ np.repeat(K, 2, axis=1).transpose(0, 1, 3, 2))
    s = np.where(np.broadcast_to(mask, s.shape), LOWEST, s)
    top = s.max(-1, keepdims=True)
    np.testing.assert_allclose(lse.asnumpy(), top + np.log(np.exp(s - top).sum(-1, keepdims=True)), rtol=1e-5)
    past = np.arange(6)[None, None, None, :] >= lengths[:, None, None, None]
    np.testing.assert_allclose(decode.asnumpy(), bnsd_to_bsh(attention(bsh_to_bnsd(wide(step), 4), K, V, 0.3,
                                                                       discard=past)), rtol=2e-5, atol=2e-6)
    assert none.shape == (1,) and none.asnumpy().tolist() == [0.0]
    X = wide(qb)
    np.testing.assert_allclose(bsnd.asnumpy(), attention(X, X, X, 1.0).transpose(0, 2, 1, 3), rtol=2e-5, atol=2e-6)
    with pytest.raises(ValueError, match="'block_table'"):
        ops.fused_infer_attention_score(Tensor(step), Tensor(k), Tensor(v), num_heads=4, num_key_value_heads=2,
                                        block_table=Tensor(np.zeros((2, 1), np.int32)))
