"""ops.moe_token_permute / moe_token_unpermute (src/pycompile/ops/entries/moe_permute.py) by MindSpore
2.10's documentation (its CPU wheel has no kernels): the docstring's example, a NumPy version of the
routing with top-2 experts and dropped tokens, the round trip, both modes, gradients against central
differences, and the documented errors."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

RNG = np.random.default_rng(21)


def route(tokens, indices, probs=None, keep=None):
    """NumPy: (permuted rows, each flattened entry's row, unpermuted and merged)."""
    flat = indices.reshape(-1)
    topk = flat.size // tokens.shape[0]
    order = np.argsort(flat, kind="stable")
    dest = np.empty_like(order)
    dest[order] = np.arange(flat.size)
    keep = flat.size if keep is None else keep
    permuted = tokens[order // topk][:keep]
    back = np.where((dest < keep)[:, None], np.concatenate([permuted, np.zeros((1, tokens.shape[1]))])[
        np.minimum(dest, keep)], 0)
    merged = back if probs is None else (back.reshape(-1, topk, tokens.shape[1]) * probs[..., None]).sum(1)
    return permuted, dest, merged


def test_the_documented_example():
    tokens = Tensor([[1, 1, 1], [7, 7, 7], [2, 2, 2], [1, 1, 1], [2, 2, 2], [3, 3, 3]], dtype=ms.bfloat16)
    permuted, rows = ops.moe_token_permute(tokens, Tensor([5, 0, 3, 1, 2, 4], dtype=ms.int32))
    assert permuted.dtype == ms.bfloat16 and rows.dtype == ms.int32
    assert permuted.astype(ms.float32).asnumpy().tolist() == [[7] * 3, [1] * 3, [2] * 3, [2] * 3, [3] * 3, [1] * 3]
    assert rows.asnumpy().tolist() == [5, 0, 3, 1, 2, 4]
    back = ops.moe_token_unpermute(permuted, rows)
    np.testing.assert_array_equal(back.astype(ms.float32).asnumpy(), tokens.astype(ms.float32).asnumpy())


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("keep", [None, 9])
def test_top2_routing_and_merge_against_numpy(compiled, keep):
    tokens = RNG.standard_normal((7, 5)).astype(np.float32)
    indices = RNG.integers(0, 4, (7, 2)).astype(np.int64)
    probs = RNG.uniform(0, 1, (7, 2)).astype(np.float32)

    def f(t, i, p):
        permuted, rows = ops.moe_token_permute(t, i, keep)
        return permuted, rows, ops.moe_token_unpermute(permuted, rows, p)
    permuted, rows, merged = (ms.jit(f) if compiled else f)(Tensor(tokens), Tensor(indices), Tensor(probs))
    want_p, want_rows, want_m = route(tokens.astype(np.float64), indices, probs, keep)
    np.testing.assert_allclose(permuted.asnumpy(), want_p, rtol=1e-6)
    np.testing.assert_array_equal(rows.asnumpy(), want_rows)
    np.testing.assert_allclose(merged.asnumpy(), want_m, rtol=1e-5, atol=1e-6)
    assert permuted.shape == ((14 if keep is None else keep), 5)


@pytest.mark.parametrize("compiled", [False, True])
def test_gradients_match_central_differences(compiled):
    tokens = RNG.standard_normal((4, 3))
    indices = Tensor(np.array([[1, 0], [2, 1], [0, 0], [2, 1]], np.int32))
    probs = RNG.uniform(0, 1, (4, 2))
    w = RNG.standard_normal((4, 3)).astype(np.float32)

    def loss(t, p):
        permuted, rows = ops.moe_token_permute(t, indices)
        return (ops.moe_token_unpermute(permuted * permuted, rows, p) * Tensor(w)).sum()
    g = ms.grad(loss, (0, 1))
    gt, gp = (ms.jit(g) if compiled else g)(Tensor(tokens.astype(np.float32)), Tensor(probs.astype(np.float32)))
    # d/dt sum_k p[n, k] t[n]^2 w[n] = 2 t[n] w[n] sum_k p[n, k]; d/dp[n, k] = sum_h t[n, h]^2 w[n, h]
    np.testing.assert_allclose(gt.asnumpy(), 2 * tokens * w * probs.sum(1, keepdims=True), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gp.asnumpy(), np.repeat((tokens ** 2 * w).sum(1, keepdims=True), 2, 1), rtol=1e-4,
                               atol=1e-5)


def test_errors():
    t, i = Tensor(np.ones((3, 2), np.float32)), Tensor(np.array([0, 1, 0], np.int32))
    with pytest.raises(ValueError, match="'padded_mode' can only be False"):
        ops.moe_token_permute(t, i, padded_mode=True)
    with pytest.raises(TypeError, match="Failed calling MoeTokenPermute with .*num_out_tokens=float"):
        ops.moe_token_permute(t, i, 2.0)
    with pytest.raises(RuntimeError, match="first dimensions"):
        ops.moe_token_permute(t, Tensor(np.array([0, 1], np.int32)))
    with pytest.raises(ValueError, match="at most 512"):
        ops.moe_token_permute(t, Tensor(np.zeros((3, 513), np.int32)))
    with pytest.raises(TypeError):
        ops.moe_token_permute(t, Tensor(np.zeros(3, np.float32)))
    with pytest.raises(ValueError, match="'padded_mode' can only be False"):
        ops.moe_token_unpermute(t, i, padded_mode=True)
    with pytest.raises(ValueError, match="'probs' must be"):
        ops.moe_token_unpermute(t, i, Tensor(np.ones((2, 2), np.float32)))


def _routing_numpy(x, idx, cap, experts):
    """NumPy: (dropless rows, dropless row of each entry, drop/pad table, drop/pad row of each entry)."""
    flat = idx.reshape(-1)
    order = np.argsort(flat, kind="stable")
    dest = np.empty_like(order)
    dest[order] = np.arange(flat.size)
    rows = x[order // idx.shape[1]]
    table = np.zeros((experts, cap, x.shape[1]), x.dtype)
    where = np.full(flat.size, -1)
    seen = np.zeros(experts, int)
    for r, e in enumerate(flat[order]):
        if seen[e] < cap:
            table[e, seen[e]] = rows[r]
            where[order[r]] = e * cap + seen[e]
        seen[e] += 1
    return rows, dest, table, where


@pytest.mark.parametrize("compiled", [False, True])
def test_moe_init_routing_v2(compiled):
    """The docstring's drop / pad example, then the dropless, active and drop / pad modes and the
    statistics against NumPy."""
    x = Tensor(np.array([[0.1, 0.2, 0.3], [0.2, 0.7, 0.8], [0.3, 0.3, 0.5]]), ms.float16)
    e = Tensor(np.array([[0, 1, 1], [2, 1, 1], [0, 0, 0]]), ms.int32)
    run = (lambda f: ms.jit(f)) if compiled else (lambda f: f)
    out1, out2 = run(lambda a, b: ops.moe_init_routing_v2(a, b, 3, 2, 3, 1, 0, False))(x, e)
    np.testing.assert_array_equal(out1.astype(ms.float32).asnumpy(), np.array(
        [[[0.1, 0.2, 0.3], [0.3, 0.3, 0.5]], [[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]], [[0.2, 0.7, 0.8], [0, 0, 0]]],
        np.float16).astype(np.float32))
    assert out2.asnumpy().tolist() == [0, 2, 3, 4, -1, -1, 1, -1, -1]

    xs = RNG.standard_normal((6, 4)).astype(np.float32)
    idx = RNG.integers(0, 5, (6, 3)).astype(np.int32)
    rows, dest, table, where = _routing_numpy(xs, idx, 2, 5)
    counts = np.bincount(idx.reshape(-1), minlength=5)

    def f(a, b):
        return (ops.moe_init_routing_v2(a, b, 0, 0, 5, 0, 1, False),
                ops.moe_init_routing_v2(a, b, 7, 0, 5, 0, 2, False),
                ops.moe_init_routing_v2(a, b, 0, 2, 5, 1, 0, True))
    dropless, active, padded = run(f)(Tensor(xs), Tensor(idx))
    np.testing.assert_array_equal(dropless[0].asnumpy(), rows)
    np.testing.assert_array_equal(dropless[1].asnumpy(), dest)
    np.testing.assert_array_equal(dropless[2].asnumpy(), np.cumsum(counts))
    np.testing.assert_array_equal(active[0].asnumpy(), rows[:7])
    np.testing.assert_array_equal(active[2].asnumpy(), counts)
    np.testing.assert_array_equal(padded[0].asnumpy(), table)
    np.testing.assert_array_equal(padded[1].asnumpy(), where)
    np.testing.assert_array_equal(padded[2].asnumpy(), counts)


def test_moe_init_routing_v2_errors():
    x, e = Tensor(np.ones((3, 2), np.float32)), Tensor(np.zeros((3, 2), np.int32))
    with pytest.raises(TypeError, match="Failed calling MoeInitRoutingV2 with"):
        ops.moe_init_routing_v2(x, e, 3.0, 2, 3, 0, 0, False)
    with pytest.raises(ValueError, match="every value of 'expert_idx' must be in"):
        ops.moe_init_routing_v2(x, Tensor(np.full((3, 2), 5, np.int32)), 0, 2, 3, 1, 0, False)
    with pytest.raises(ValueError, match="expert_capacity in"):
        ops.moe_init_routing_v2(x, e, 0, 0, 3, 1, 0, False)
