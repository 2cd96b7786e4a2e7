"""MindSpore 2.10's `ops.fused_infer_attention_score`: one call for both inference phases, on
infer_attention.py's cores - a query of one position is the incremental step (incre_flash_attention's
semantics: `actual_seq_lengths_kv` the cache lengths, masks (B, S2) / (B, 1, S2) / (B, 1, 1, S2)),
a longer one the prompt (prompt_flash_attention's: masks, sparse modes 0-4, query and key lengths;
next_tokens defaults to 2147483647 here). Returns (attention_out, softmax_lse): softmax_lse is each
row's log-sum-exp (B, N, S1, 1) float32 with softmax_lse_flag, else a (1,) zero. Layouts BSH, BNSD,
BSND and BNSD_BSND (BNSD in, BSND out; prompt only). float16 / bfloat16, and float32, which the
wheel's shape inference takes. Not taken here (a ValueError names the argument): quantization,
paged attention (block_table), left padding (query / kv_padding_size) and the shared prefix.
MindSpore's CPU wheel has no kernel ("The kernel FusedInferAttentionScore unregistered"): values
checked against NumPy in tests/ops/test_infer_attention.py, the argument checks recorded in
tests/conformance/cases_flash_attention.py."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entries._common import OPTIONAL, SEQUENCE, TENSOR, TENSORS, check_conversion, check_enum
from pycompile.ops.entries.infer_attention import _cache, _floats, _heads, _incre, _no_quant, _prompt
from pycompile.ops.entry import Arg, op_entry

_OP = "FusedInferAttentionScore"
_INT_MAX = 2147483647
_LAYOUTS = ("BSH", "BNSD", "BSND", "BNSD_BSND")
_INPUTS = ("query", "key", "value", "pse_shift", "atten_mask", "actual_seq_lengths", "actual_seq_lengths_kv",
           "dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2", "quant_offset2", "antiquant_scale",
           "antiquant_offset", "block_table", "query_padding_size", "kv_padding_size", "key_antiquant_scale",
           "key_antiquant_offset", "value_antiquant_scale", "value_antiquant_offset", "key_shared_prefix",
           "value_shared_prefix", "actual_shared_prefix_len")
_UNTAKEN = _INPUTS[7:]
_PRIM_INPUTS = tuple("attn_mask" if n == "atten_mask" else n for n in _INPUTS)    # the Primitive's names


@op_entry("fused_infer_attention_score", prim_name=_OP,
          args=[Arg("query"), Arg("key", "value"), Arg("value", "value")]
          + [Arg(n, "value", default=None, keyword=True) for n in _INPUTS[3:]]
          + [Arg(n, "value", default=d, keyword=True) for n, d in (
              ("num_heads", 1), ("scale", 1.0), ("pre_tokens", _INT_MAX), ("next_tokens", _INT_MAX),
              ("input_layout", "BSH"), ("num_key_value_heads", 0), ("sparse_mode", 0), ("inner_precise", 1),
              ("block_size", 0), ("antiquant_mode", 0), ("key_antiquant_mode", 0), ("value_antiquant_mode", 0),
              ("softmax_lse_flag", False))])
def fused_infer_attention_score(query, key, value, num_heads=1, scale=1.0, pre_tokens=_INT_MAX, next_tokens=_INT_MAX,
                                input_layout="BSH", num_key_value_heads=0, sparse_mode=0, inner_precise=1,
                                block_size=0, antiquant_mode=0, key_antiquant_mode=0, value_antiquant_mode=0,
                                softmax_lse_flag=False, **inputs):
    """(attention_out, softmax_lse) - see the module docstring."""
    check_enum(_OP, "input_layout", input_layout, _LAYOUTS)
    keys = key if isinstance(key, (tuple, list)) else [key]         # MindSpore passes lists to the Primitive
    values = value if isinstance(value, (tuple, list)) else [value]
    attrs = (("num_heads", num_heads, int), ("scale_value", scale, float), ("pre_tokens", pre_tokens, int),
             ("next_tokens", next_tokens, int), ("input_layout", input_layout, str),
             ("num_key_value_heads", num_key_value_heads, int), ("sparse_mode", sparse_mode, int),
             ("inner_precise", inner_precise, int), ("block_size", block_size, int),
             ("antiquant_mode", antiquant_mode, int), ("softmax_lse_flag", softmax_lse_flag, bool),
             ("key_antiquant_mode", key_antiquant_mode, int), ("value_antiquant_mode", value_antiquant_mode, int))
    lists = ("actual_seq_lengths", "actual_seq_lengths_kv", "actual_shared_prefix_len")
    given = [(_PRIM_INPUTS[0], query, TENSOR), ("key", keys, TENSORS), ("value", values, TENSORS)] + [
        (p, inputs[n], SEQUENCE if n in lists else OPTIONAL) for p, n in zip(_PRIM_INPUTS[3:], _INPUTS[3:])]
    check_conversion(_OP, attrs, given)
    _no_quant(_OP, **{n: inputs[n] for n in _UNTAKEN})
    k, v = _cache(keys), _cache(values)
    _floats(_OP, (mstype.float16, mstype.bfloat16, mstype.float32), query=query, key=k, value=v)
    if not query.dtype == k.dtype == v.dtype:
        raise OpTypeError(f"For '{_OP}', 'query', 'key' and 'value' must have the same dtype, but got {query.dtype}, "
                          f"{k.dtype} and {v.dtype}.")
    layout = "BNSD" if input_layout == "BNSD_BSND" else input_layout
    rank = 3 if layout == "BSH" else 4
    if query.ndim != rank or k.ndim != rank:
        raise OpValueError(f"For primitive[{_OP}], the rank of query and key must be {rank} for '{input_layout}', but "
                           f"got {query.ndim} and {k.ndim}.")
    n, kvn, _ = _heads(_OP, layout, query, k, num_heads, num_key_value_heads)
    s1 = query.shape[2] if layout == "BNSD" else query.shape[1]
    if s1 == 1 and input_layout != "BNSD_BSND":
        out = _incre(_OP, query, k, v, inputs["atten_mask"], inputs["actual_seq_lengths_kv"], None,
                     inputs["pse_shift"], n, kvn, scale, layout, lse=softmax_lse_flag)
    else:
        out = _prompt(_OP, query, k, v, inputs["atten_mask"], inputs["actual_seq_lengths"],
                      inputs["actual_seq_lengths_kv"], inputs["pse_shift"], n, kvn, scale, pre_tokens, next_tokens,
                      layout, sparse_mode, lse=softmax_lse_flag,
                      out_layout="BSND" if input_layout == "BNSD_BSND" else None)
    if softmax_lse_flag:
        return out
    return out, F.zeros((1,), mstype.float32)
