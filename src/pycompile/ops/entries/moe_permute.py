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
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry
from pycompile.ops.function_math import argsort

_TOKENS = frozenset({mstype.bfloat16, mstype.float16, mstype.float32})


def _padded(op, padded_mode):
    if not isinstance(padded_mode, bool):
        raise OpTypeError(f"For '{op}', 'padded_mode' must be a bool, but got {type(padded_mode).__name__}.")
    if padded_mode:
        raise OpValueError(f"For '{op}', 'padded_mode' can only be False currently, but got True.")


@op_entry("moe_token_permute", prim_name="MoeTokenPermute",
          args=[Arg("tokens", dtypes=_TOKENS), Arg("indices", dtypes=frozenset({mstype.int32, mstype.int64})),
                Arg("num_out_tokens", "value", default=None), Arg("padded_mode", "value", default=False)])
def moe_token_permute(tokens, indices, num_out_tokens=None, padded_mode=False):
    """(the tokens grouped by expert, each flattened entry's row among them) - see the module docstring."""
    op = "MoeTokenPermute"
    _padded(op, padded_mode)
    if num_out_tokens is not None and (isinstance(num_out_tokens, bool) or not isinstance(num_out_tokens, int)):
        raise OpTypeError(f"For '{op}', 'num_out_tokens' must be an int, but got {type(num_out_tokens).__name__}.")
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
          args=[Arg("permuted_tokens", dtypes=_TOKENS), Arg("sorted_indices", dtypes=frozenset({mstype.int32})),
                Arg("probs", "value", default=None), Arg("padded_mode", "value", default=False),
                Arg("restore_shape", "value", default=None)])
def moe_token_unpermute(permuted_tokens, sorted_indices, probs=None, padded_mode=False, restore_shape=None):
    """Every flattened entry's row put back, merged per token with probs (see the module docstring)."""
    op = "MoeTokenUnpermute"
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
