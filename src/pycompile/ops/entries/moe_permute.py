"""MindSpore 2.10's mixture-of-experts token routing, `ops.moe_token_permute` / `ops.moe_token_unpermute`,
as decompositions (both modes; gradients and vmap follow). MindSpore's CPU wheel has no kernels for them
(Ascend only), so they follow its documentation and docstring examples (tests/ops/test_moe_permute.py):

    permuted, sorted_indices = moe_token_permute(tokens, indices)

`indices` (num_tokens,) or (num_tokens, topk) names the expert of each (token, choice); its flattened
(token-major) entries are ordered by expert, ties in their flattened order (a stable sort), and row r of
`permuted` is the token of the r-th entry in that order. `sorted_indices` (int32) gives, for each
flattened entry, the row of `permuted` it went to - the docstring's example ([5, 0, 3, 1, 2, 4] for
indices [5, 0, 3, 1, 2, 4]) is that row, not the sort order. num_out_tokens keeps the first
num_out_tokens rows (the lowest experts' entries: the rest are dropped).

    out = moe_token_unpermute(permuted, sorted_indices, probs)

puts every flattened entry's row back, out[i] = permuted[sorted_indices[i]] (zeros for a dropped entry,
whose row is past permuted's end), and with probs (num_tokens, topk) merges each token's topk rows
weighted by its probabilities: (num_tokens, hidden). Without probs topk is 1. padded_mode=True is the
documented ValueError ("It can only be False currently")."""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.entries._common import OPTIONAL, SEQUENCE, TENSOR, check_conversion
from pycompile.ops.entry import Arg, check_arg, op_entry
from pycompile.ops.function_math import argsort

_TOKENS = frozenset({mstype.bfloat16, mstype.float16, mstype.float32})


def _padded(op, padded_mode):
    if padded_mode:
        raise OpValueError(f"For '{op}', 'padded_mode' can only be False currently, but got True.")


@op_entry("moe_token_permute", prim_name="MoeTokenPermute",
          args=[Arg("tokens", "value"), Arg("indices", "value"), Arg("num_out_tokens", "value", default=None),
                Arg("padded_mode", "value", default=False)])
def moe_token_permute(tokens, indices, num_out_tokens=None, padded_mode=False):
    """(the tokens grouped by expert, each flattened entry's row among them) - see the module docstring."""
    op = "MoeTokenPermute"
    check_conversion(op, (), [("tokens", tokens, TENSOR), ("indices", indices, TENSOR),
                              ("num_out_tokens", num_out_tokens, (int, type(None))),
                              ("padded_mode", padded_mode, bool)])
    check_arg(Arg("tokens", dtypes=_TOKENS), tokens, op)
    check_arg(Arg("indices", dtypes=frozenset({mstype.int32, mstype.int64})), indices, op)
    _padded(op, padded_mode)
    if tokens.ndim != 2 or indices.ndim not in (1, 2):
        raise OpValueError(f"For '{op}', 'tokens' must be 2-D and 'indices' 1-D or 2-D, but got {tokens.ndim}-D and "
                           f"{indices.ndim}-D.")
    if indices.ndim == 2 and indices.shape[1] > 512:
        raise OpValueError(f"For '{op}', the second dimension of 'indices' must be at most 512, but got "
                           f"{indices.shape[1]}.")
    if tokens.shape[0] != indices.shape[0]:
        raise OpRuntimeError(f"For '{op}', the first dimensions of 'tokens' ({tokens.shape[0]}) and 'indices' "
                             f"({indices.shape[0]}) must be the same.")
    topk = 1 if indices.ndim == 1 else indices.shape[1]
    total = indices.shape[0] * topk
    if num_out_tokens is not None and num_out_tokens < 0:
        raise OpValueError(f"For '{op}', 'num_out_tokens' must be non-negative, but got {num_out_tokens}.")
    keep = total if num_out_tokens is None else min(num_out_tokens, total)
    order = argsort(F.reshape(indices, (total,)))                   # entries by expert, stable
    rows = F.gather(tokens, F.floor_divide(order, topk), 0)         # each entry's token
    dest = argsort(order)                                           # the row each entry went to
    return rows[:keep], F.cast(dest, mstype.int32)


@op_entry("moe_token_unpermute", prim_name="MoeTokenUnpermute",
          args=[Arg("permuted_tokens", "value"), Arg("sorted_indices", "value"), Arg("probs", "value", default=None),
                Arg("padded_mode", "value", default=False), Arg("restore_shape", "value", default=None)])
def moe_token_unpermute(permuted_tokens, sorted_indices, probs=None, padded_mode=False, restore_shape=None):
    """Every flattened entry's row put back, merged per token with probs (see the module docstring)."""
    op = "MoeTokenUnpermute"
    check_conversion(op, (), [("permuted_tokens", permuted_tokens, TENSOR), ("sorted_indices", sorted_indices, TENSOR),
                              ("probs", probs, OPTIONAL), ("padded_mode", padded_mode, bool),
                              ("restore_shape", restore_shape, SEQUENCE)])
    check_arg(Arg("permuted_tokens", dtypes=_TOKENS), permuted_tokens, op)
    check_arg(Arg("sorted_indices", dtypes=frozenset({mstype.int32})), sorted_indices, op)
    _padded(op, padded_mode)
    if permuted_tokens.ndim != 2 or sorted_indices.ndim != 1:
        raise OpValueError(f"For '{op}', 'permuted_tokens' must be 2-D and 'sorted_indices' 1-D, but got "
                           f"{permuted_tokens.ndim}-D and {sorted_indices.ndim}-D.")
    total, rows, hidden = sorted_indices.shape[0], permuted_tokens.shape[0], permuted_tokens.shape[1]
    if probs is not None:
        if probs.ndim != 2 or probs.shape[0] * probs.shape[1] != total:
            raise OpValueError(f"For '{op}', 'probs' must be (num_tokens, topk) with num_tokens * topk = {total} "
                               f"(the length of 'sorted_indices'), but got {tuple(probs.shape)}.")
        topk = probs.shape[1]
    else:
        topk = 1
    if total % topk:
        raise OpValueError(f"For '{op}', the length of 'sorted_indices' ({total}) must be a multiple of topk ({topk}).")
    # a dropped entry's row is past the end: read a zero row appended there
    padded = F.concat((permuted_tokens, F.zeros((1, hidden), permuted_tokens.dtype)), 0)
    where = F.minimum(sorted_indices, Tensor(np.array(rows, np.int32)))
    back = F.gather(padded, where, 0)                                # (total, hidden)
    if probs is None:
        return back
    weighted = F.mul(F.reshape(back, (total // topk, topk, hidden)), F.expand_dims(F.cast(probs, back.dtype), -1))
    return F.sum(weighted, 1)


# ---- moe_init_routing_v2 ------------------------------------------------------------------------------
_ROUTING = "MoeInitRoutingV2"


def _routing_types(x, expert_idx, active_num, expert_capacity, expert_num, drop_pad_mode, count_flag, before_flag):
    """The wheel's argument conversion."""
    check_conversion(_ROUTING, (), [
        ("x", x, TENSOR), ("expert_idx", expert_idx, TENSOR), ("active_num", active_num, int),
        ("expert_capacity", expert_capacity, int), ("expert_num", expert_num, int),
        ("drop_pad_mode", drop_pad_mode, int), ("expert_tokens_count_or_cumsum_flag", count_flag, int),
        ("expert_tokens_before_capacity_flag", before_flag, bool)])


@op_entry("moe_init_routing_v2", prim_name=_ROUTING,
          args=[Arg("x", "value"), Arg("expert_idx", "value")] + [Arg(n, "value") for n in (
              "active_num", "expert_capacity", "expert_num", "drop_pad_mode", "expert_tokens_count_or_cumsum_flag",
              "expert_tokens_before_capacity_flag")])
def moe_init_routing_v2(x, expert_idx, active_num, expert_capacity, expert_num, drop_pad_mode,
                        expert_tokens_count_or_cumsum_flag, expert_tokens_before_capacity_flag):
    """The rows of x expanded to their experts (the routing after MoeGatingTopKSoftmaxV2), by MindSpore's
    documentation and docstring example. The (row, k) entries of expert_idx (NUM_ROWS, K), flattened
    row-major, are ordered by expert, ties in flattened order (a stable sort), as moe_token_permute:

    - drop_pad_mode 0, active_num 0 (dropless): expanded_x (NUM_ROWS * K, H) holds each entry's row in
      that order; expanded_row_idx[e] is entry e's row of it;
    - drop_pad_mode 0, active_num > 0 (active): the first min(active_num, NUM_ROWS * K) of those rows;
      expanded_row_idx as dropless (an entry past the cut names a row past the returned ones: the
      documentation does not say);
    - drop_pad_mode 1 (drop / pad): expanded_x (expert_num, expert_capacity, H), each expert's first
      expert_capacity entries, zero rows after them; expanded_row_idx[e] = expert * capacity + rank of
      entry e within its expert, or -1 for a dropped entry.

    The third output, when asked for: per expert, the entries' cumulative count (flag 1) or count
    (flag 2) in mode 0, the count before the drop in mode 1 (expert_tokens_before_capacity_flag)."""
    _routing_types(x, expert_idx, active_num, expert_capacity, expert_num, drop_pad_mode,
                   expert_tokens_count_or_cumsum_flag, expert_tokens_before_capacity_flag)
    op = _ROUTING
    if x.dtype not in _TOKENS or expert_idx.dtype != mstype.int32:
        raise OpTypeError(f"For '{op}', 'x' must be float16, bfloat16 or float32 and 'expert_idx' int32, but got "
                          f"{x.dtype} and {expert_idx.dtype}.")
    if x.ndim != 2 or expert_idx.ndim != 2 or x.shape[0] != expert_idx.shape[0]:
        raise OpValueError(f"For '{op}', 'x' must be (NUM_ROWS, H) and 'expert_idx' (NUM_ROWS, K), but got "
                           f"{tuple(x.shape)} and {tuple(expert_idx.shape)}.")
    if drop_pad_mode not in (0, 1) or expert_tokens_count_or_cumsum_flag not in (0, 1, 2) or \
            min(active_num, expert_capacity, expert_num) < 0:
        raise OpValueError(f"For '{op}', drop_pad_mode must be 0 or 1, expert_tokens_count_or_cumsum_flag 0, 1 or 2 "
                           f"and the sizes non-negative, but got {drop_pad_mode}, "
                           f"{expert_tokens_count_or_cumsum_flag}, {active_num}, {expert_capacity}, {expert_num}.")
    counted = drop_pad_mode == 1 or expert_tokens_count_or_cumsum_flag
    if counted and expert_num <= 0 or drop_pad_mode == 1 and not 0 < expert_capacity <= x.shape[0]:
        raise OpValueError(f"For '{op}', expert_num must be positive, and in the drop / pad mode expert_capacity in "
                           f"(0, NUM_ROWS = {x.shape[0]}], but got {expert_num} and {expert_capacity}.")
    if counted and not isinstance(expert_idx, Symbolic):
        v = expert_idx.asnumpy()
        if v.size and (v.min() < 0 or v.max() >= expert_num):
            raise OpValueError(f"For '{op}', every value of 'expert_idx' must be in [0, {expert_num}), but got "
                               f"{v.min()} to {v.max()}.")
    n, k = expert_idx.shape
    total = n * k
    flat = F.reshape(expert_idx, (total,))
    order = argsort(flat)
    rows = F.gather(x, F.floor_divide(order, k), 0)
    dest = argsort(order)
    if counted:
        hits = F.cast(F.equal(F.expand_dims(flat, 1), Tensor(np.arange(expert_num, dtype=np.int32))), mstype.int32)
        counts = F.sum(hits, 0)                                          # (expert_num,) int32
    if drop_pad_mode == 0:
        keep = total if active_num == 0 else min(active_num, total)
        out = (rows[:keep], F.cast(dest, mstype.int32))
        if expert_tokens_count_or_cumsum_flag:
            from pycompile.ops.function_math import cumsum
            stat = cumsum(counts, 0) if expert_tokens_count_or_cumsum_flag == 1 else counts
            return out + (F.cast(stat, mstype.int32),)
        return out
    cap = expert_capacity
    sorted_expert = F.gather(flat, order, 0)                              # each sorted entry's expert
    start = F.gather(_exclusive_cumsum(counts), sorted_expert, 0)
    rank = F.sub(Tensor(np.arange(total, dtype=np.int32)), start)
    kept = F.less(rank, cap)
    slot = F.add(F.mul(sorted_expert, cap), rank)
    spare = expert_num * cap                                              # a dropped row's slot
    where = F.select(kept, slot, F.fill(mstype.int32, (total,), spare))
    from pycompile.ops.function_index import tensor_scatter_update
    table = tensor_scatter_update(F.zeros((spare + 1, x.shape[1]), x.dtype), F.expand_dims(where, 1), rows)
    expanded = F.reshape(table[:spare], (expert_num, cap, x.shape[1]))
    row_idx = F.select(F.gather(kept, dest, 0), F.gather(slot, dest, 0), F.fill(mstype.int32, (total,), -1))
    out = (expanded, F.cast(row_idx, mstype.int32))
    if expert_tokens_before_capacity_flag:
        return out + (F.cast(counts, mstype.int32),)
    return out


def _exclusive_cumsum(counts):
    from pycompile.ops.function_math import cumsum
    return F.sub(cumsum(counts, 0), counts)
