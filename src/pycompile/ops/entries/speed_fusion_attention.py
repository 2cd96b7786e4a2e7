"""MindSpore 2.10's `ops.speed_fusion_attention` (torch_npu's npu_fusion_attention interface) on
flash_attention.py's core. MindSpore's CPU wheel has no kernel for it, so it follows the
documentation (tests/ops/test_flash_attention.py checks it against NumPy):

    pse_type 1: Softmax(Mask(scale * (pse + query key^T))) value     (FlashAttentionScore's)
    pse_type 0: Softmax(Mask(scale * (query key^T) + pse)) value
    pse_type 2 / 3: pse holds per-head slopes ((B, N1) or (N1,), float32) and the bias is generated:
                    -slope * |d| (3: -slope * sqrt(|d|)), d = (j + kv_start_idx) - (i + q_start_idx)

with FlashAttentionScore's layouts, masks, sparse modes and dropout (keep_prob < 1: drawn here from
the default generator, there is no drop_mask argument). Returns (attention_out, softmax_max,
softmax_sum, softmax_out, seed, offset, numels): seed and offset are the default generator's at the
call (int64 scalars: the stream the dropout drew from - pycompile's, not the NPU's), numels the
dropout mask's element count B * N1 * S1 * S2 (0 when nothing is dropped). MindSpore documents it
for PyNative only; it runs in graph code here too. gen_mask_parallel and sync are debug switches,
taken and not used (MindSpore's "not implemented yet")."""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.entries._common import OPTIONAL, SEQUENCE, TENSOR, check_conversion, check_enum
from pycompile.ops.entries.flash_attention import _INT_MAX, LAYOUTS, _dims, flash_attention
from pycompile.ops.entry import Arg, op_entry
from pycompile.ops.function_random import RNG_STATE

_OP = "SpeedFusionAttention"
_KEYWORDS = (("pse", None), ("padding_mask", None), ("atten_mask", None), ("scale", 1.0), ("keep_prob", 1.0),
             ("pre_tokens", _INT_MAX), ("next_tokens", _INT_MAX), ("inner_precise", 0), ("prefix", None),
             ("actual_seq_qlen", None), ("actual_seq_kvlen", None), ("sparse_mode", 0), ("gen_mask_parallel", True),
             ("sync", False), ("pse_type", 1), ("q_start_idx", None), ("kv_start_idx", None))


def _check_types(query, key, value, head_num, input_layout, pse, padding_mask, atten_mask, scale, keep_prob,
                 pre_tokens, next_tokens, inner_precise, prefix, actual_seq_qlen, actual_seq_kvlen, sparse_mode,
                 gen_mask_parallel, sync, pse_type, q_start_idx, kv_start_idx):
    """The wheel's argument conversion (seed and offset, which the functional adds, as Tensors)."""
    check_conversion(_OP, (), [
        ("query", query, TENSOR), ("key", key, TENSOR), ("value", value, TENSOR), ("head_num", head_num, int),
        ("input_layout", input_layout, str), ("seed", Tensor(0), TENSOR), ("offset", Tensor(0), TENSOR),
        ("pse", pse, OPTIONAL), ("padding_mask", padding_mask, OPTIONAL), ("atten_mask", atten_mask, OPTIONAL),
        ("scale", scale, float), ("keep_prob", keep_prob, float), ("pre_tokens", pre_tokens, int),
        ("next_tokens", next_tokens, int), ("inner_precise", inner_precise, int), ("prefix", prefix, SEQUENCE),
        ("actual_seq_qlen", actual_seq_qlen, SEQUENCE), ("actual_seq_kvlen", actual_seq_kvlen, SEQUENCE),
        ("sparse_mode", sparse_mode, int), ("gen_mask_parallel", gen_mask_parallel, bool), ("sync", sync, bool),
        ("pse_type", pse_type, int), ("q_start_idx", q_start_idx, SEQUENCE), ("kv_start_idx", kv_start_idx, SEQUENCE)])


@op_entry("speed_fusion_attention", prim_name=_OP,
          args=[Arg("query"), Arg("key"), Arg("value"), Arg("head_num", "value"), Arg("input_layout", "value")]
          + [Arg(n, "value", default=d, keyword=True) for n, d in _KEYWORDS])
def speed_fusion_attention(query, key, value, head_num, input_layout, pse=None, padding_mask=None, atten_mask=None,
                           scale=1.0, keep_prob=1.0, pre_tokens=_INT_MAX, next_tokens=_INT_MAX, inner_precise=0,
                           prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, sparse_mode=0,
                           gen_mask_parallel=True, sync=False, pse_type=1, q_start_idx=None, kv_start_idx=None):
    """(attention_out, softmax_max, softmax_sum, softmax_out, seed, offset, numels) - see the module
    docstring."""
    check_enum(_OP, "input_layout", input_layout, LAYOUTS)
    _check_types(query, key, value, head_num, input_layout, pse, padding_mask, atten_mask, scale, keep_prob,
                 pre_tokens, next_tokens, inner_precise, prefix, actual_seq_qlen, actual_seq_kvlen, sparse_mode,
                 gen_mask_parallel, sync, pse_type, q_start_idx, kv_start_idx)
    if pse_type not in (0, 1, 2, 3):
        raise OpValueError(f"For '{_OP}', the specified value of 'pse_type' ({pse_type}) is invalid: it must be 0, "
                           f"1, 2 or 3.")
    state = RNG_STATE                # the stream the dropout draws from, read before it does
    seed, offset = F.cast(state[0], mstype.int64), F.cast(state[1], mstype.int64)
    top, total, empty, out = flash_attention(query, key, value, head_num, pse, None, padding_mask, atten_mask,
                                             prefix, actual_seq_qlen, actual_seq_kvlen, keep_prob, scale, pre_tokens,
                                             next_tokens, inner_precise, input_layout, sparse_mode, True,
                                             pse_type=pse_type, q_start_idx=q_start_idx, kv_start_idx=kv_start_idx)
    numels = 0
    if keep_prob < 1.0 and input_layout != "TND":
        b, n1, s1, s2, _, _ = _dims(input_layout, query, key, head_num)
        numels = b * n1 * s1 * s2
    return out, top, total, empty, seed, offset, Tensor(np.array(numels, np.int64))
