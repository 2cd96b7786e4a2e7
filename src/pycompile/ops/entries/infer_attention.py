"""MindSpore 2.10's fused attention for inference: `ops.prompt_flash_attention` (the prompt, every query
position at once) and `ops.incre_flash_attention` (one new position against a key / value cache), with
their Primitives `ops.operations.nn_ops.PromptFlashAttention` / `IncreFlashAttention`, as
decompositions on flash_attention.py's core (both modes; gradients and vmap follow). MindSpore's CPU
wheel has no kernels for them ("The kernel PromptFlashAttention unregistered", after its argument
and shape checks, recorded word for word in tests/conformance/cases_flash_attention.py), so they
follow the documentation and are checked against NumPy (tests/ops/test_infer_attention.py):

    out = Softmax(scale * (query @ key^T) + pse_shift, masked) @ value

per (batch, query head), key / value head n // (num_heads / num_key_value_heads) serving query head
n. Choices where the documentation is silent, and why:

- pse_shift is added after the scale (the formula of the CANN kernels these call, unlike
  FlashAttentionScore's real_shift); a larger pse_shift is cut to (S1, S2) ("q_S must be greater than
  or equal to the query's S length").
- actual_seq_lengths_kv (prompt) / actual_seq_lengths (incremental): key positions at or past a
  batch's length are discarded (right padding); with kv_padding_size p (incremental) the valid keys
  are S - p - length <= j < S - p, as documented. actual_seq_lengths (prompt): query rows at or past a
  batch's length give zeros. These may be Tensors computed in graph code (the masks are tensor ops).
- masks and sparse modes 0-4 as FlashAttentionScore's (mode 0: attn_mask and the pre_tokens /
  next_tokens band - next_tokens defaults to 0 here, so a mask in mode 0 is also causal; 2-4 built
  from the mode, their 2048 x 2048 mask checked for its shape). A float16 attn_mask (deprecated)
  discards where nonzero. A query row with every key discarded gets the mean of the values.
- float16 and bfloat16 (PromptFlashAttention refuses float32 as the wheel's shape inference does;
  IncreFlashAttention takes it, as the wheel's does), computed in float32, rounded once.
- not taken here (a ValueError names the argument): the quantization arguments (int8 inputs or
  outputs, antiquant), paged attention (block_table).
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.entries._common import (OPTIONAL, SEQUENCE, TENSOR, TENSORS, check_conversion, check_enum,
                                            type_word)
from pycompile.ops.entries.flash_attention import _attend, _band, _from_bnsd, _mode_mask, _to_bnsd
from pycompile.ops.entry import Arg, op_entry, primitive_class
from pycompile.ops.function_index import tensor_scatter_update
from pycompile.ops.primitive import Primitive

_INT_MAX = 2147483647
_PFA, _IFA = "PromptFlashAttention", "IncreFlashAttention"
_LAYOUTS = ("BSH", "BNSD", "BSND", "SBH")
_MASK_DTYPES = (mstype.bool_, mstype.int8, mstype.uint8, mstype.float16)


def _no_quant(op, **args):
    given = [n for n, v in args.items() if v is not None]
    if given:
        raise OpValueError(f"For '{op}', {', '.join(repr(n) for n in given)}: quantization and paged attention "
                           f"are not supported by pycompile (float16 / bfloat16 / float32 attention only).")


def _heads(op, layout, q, k, num_heads, num_kv_heads):
    """(N, kvN, D) with the wheel's checks."""
    if num_heads <= 0:
        raise OpRuntimeError(f"For primitive[{op}], 'num_heads' must be greater than 0, but got {num_heads}.")
    if num_kv_heads < 0:
        raise OpRuntimeError(f"For primitive[{op}], 'num_key_value_heads' must be greater than or equal to 0, but "
                             f"got {num_kv_heads}.")
    kvh = num_kv_heads or num_heads
    if num_heads % kvh:
        raise OpRuntimeError(f"For primitive[{op}], the num_heads should be divide by num_key_value_heads, but got "
                             f"num_heads: {num_heads}, and num_key_value_heads: {num_kv_heads}")
    if layout in ("BSH", "SBH"):
        h = q.shape[2]
        if h % num_heads:
            raise OpRuntimeError(f"For primitive[{op}], H must be divisible by `num_heads`, but got {h} and "
                                 f"{num_heads}")
        d = h // num_heads
        if k.shape[2] % d:
            raise OpRuntimeError(f"For primitive[{op}], the hidden size of 'key' ({k.shape[2]}) must be a multiple "
                                 f"of D ({d}).")
        kv_n = k.shape[2] // d
    else:
        n_axis = 1 if layout == "BNSD" else 2
        if q.shape[n_axis] != num_heads:
            raise OpRuntimeError(f"For primitive[{op}], the N axis of 'query' ({q.shape[n_axis]}) must equal "
                                 f"num_heads ({num_heads}).")
        if q.shape[3] != k.shape[3]:
            raise OpRuntimeError(f"For primitive[{op}], the D-axis of 'query', 'key' and 'value' must be the same, "
                                 f"but got {q.shape[3]} and {k.shape[3]}.")
        kv_n, d = k.shape[n_axis], q.shape[3]
    if kv_n != kvh:
        raise OpRuntimeError(f"For primitive[{op}], KV_N must equal num_key_value_heads, but got {kv_n} and {kvh}")
    return num_heads, kvh, d


def _as_lengths(op, name, value, batch):
    """A (B,) int32 tensor of lengths (a list / tuple / Tensor of 1 or B values), or None."""
    if value is None:
        return None
    t = Tensor(np.asarray(value, np.int32)) if isinstance(value, (list, tuple)) else value
    if not isinstance(t, TensorMethods) or not t.dtype.is_int:
        raise OpTypeError(f"For '{op}', '{name}' must be a Tensor, tuple or list of ints, but got {type_word(value)}.")
    size = int(np.prod(t.shape)) if t.shape else 1
    if size not in (1, batch):
        raise OpValueError(f"For '{op}', the size of '{name}' must be 1 or B ({batch}), but got {size}.")
    return F.broadcast_to(F.reshape(F.cast(t, mstype.int32), (-1,)), (batch,))


def _positions(n):
    return Tensor(np.arange(n, dtype=np.int32))


def _kv_discard(lengths, batch, s2, padding=None):
    """(B, 1, 1, S2) True at the keys past each batch's length (or outside [S-p-len, S-p) with padding)."""
    pos = F.reshape(_positions(s2), (1, 1, 1, s2))
    length = F.reshape(lengths, (batch, 1, 1, 1))
    if padding is None:
        return F.greater_equal(pos, length)
    end = F.sub(s2, F.maximum(F.reshape(F.cast(padding, mstype.int32), ()), 0))
    return F.logical_or(F.less(pos, F.sub(end, length)), F.greater_equal(pos, end))


def _either(a, b):
    return b if a is None else a if b is None else F.logical_or(a, b)


def _mask_tensor(op, attn_mask, allowed):
    if attn_mask is None:
        return None
    if not isinstance(attn_mask, TensorMethods):
        raise OpTypeError(f"For '{op}', 'attn_mask' must be a Tensor or None, but got {type_word(attn_mask)}.")
    if attn_mask.dtype not in _MASK_DTYPES:
        raise OpTypeError(f"For '{op}', the dtype of 'attn_mask' must be bool, int8, uint8 or float16, but got "
                          f"{attn_mask.dtype}.")
    if tuple(attn_mask.shape) not in allowed:
        raise OpRuntimeError(f"For '{op}', the shape of 'attn_mask' must be one of {allowed}, but got "
                             f"{tuple(attn_mask.shape)}.")
    flag = attn_mask if attn_mask.dtype == mstype.bool_ else F.not_equal(attn_mask, 0)
    return flag if len(attn_mask.shape) == 4 else F.expand_dims(flag, -3) if len(attn_mask.shape) == 3 else flag


def _floats(op, dtypes, **tensors):
    for name, t in tensors.items():
        if not isinstance(t, TensorMethods) or t.dtype not in dtypes:
            allowed = ", ".join(f"Tensor[{d}]" for d in sorted(str(d) for d in dtypes))
            got = f"Tensor[{t.dtype}]" if isinstance(t, TensorMethods) else type_word(t)
            raise OpTypeError(f"For primitive[{op}], the input argument[{name}] must be a type of {{{allowed}}}, but "
                              f"got {got}.")


def _pse(op, pse, dtype, n, s1, s2):
    if pse is None:
        return None
    if not isinstance(pse, TensorMethods) or pse.dtype != dtype:
        raise OpTypeError(f"For '{op}', 'pse_shift' must be a Tensor of the query's dtype ({dtype}), but got "
                          f"{getattr(pse, 'dtype', type_word(pse))}.")
    if pse.ndim != 4 or pse.shape[1] != n or pse.shape[2] < s1 or pse.shape[3] < s2:
        raise OpRuntimeError(f"For '{op}', 'pse_shift' must be (B or 1, {n}, >= {s1}, >= {s2}), but got "
                             f"{tuple(pse.shape)}.")
    return pse[:, :, :s1, :s2] if (pse.shape[2], pse.shape[3]) != (s1, s2) else pse


def _run(q, k, v, layout, n, kvn, scale, pse, discard, row_keep=None, lse=False, out_layout=None):
    """The attention in float32 on flash_attention's core, pse added after the scale: the output in
    out_layout (default: layout), and with lse the rows' log-sum-exp (B, N, S1, 1) float32."""
    qf, kf, vf = (F.cast(_to_bnsd(t, layout, h), mstype.float32) for t, h in ((q, n), (k, kvn), (v, kvn)))
    out, top, total = _attend(qf, kf, vf, kvn, scale, pse, discard, None, 1.0, lse, pse_scaled=False)
    if row_keep is not None:
        out = F.mul(out, F.cast(row_keep, mstype.float32))
    out = F.cast(_from_bnsd(out, out_layout or layout), q.dtype)
    if not lse:
        return out
    return out, F.add(top[..., :1], F.log(total[..., :1]))


def _dims(layout, q, k):
    """(B, S1, S2) of a layout."""
    b = q.shape[1] if layout == "SBH" else q.shape[0]
    s1 = q.shape[2] if layout == "BNSD" else q.shape[0 if layout == "SBH" else 1]
    s2 = k.shape[2] if layout == "BNSD" else k.shape[0 if layout == "SBH" else 1]
    return b, s1, s2


def _prompt(op, query, key, value, attn_mask, q_lengths, kv_lengths, pse_shift, n, kvn, scale, pre, nxt, layout,
            sparse_mode, lse=False, out_layout=None):
    """Attention over a whole prompt after the argument checks (prompt_flash_attention's and
    fused_infer_attention_score's)."""
    if sparse_mode not in range(5):
        raise OpRuntimeError(f"For '{op}', 'sparse_mode' must be 0, 1, 2, 3 or 4, but got {sparse_mode}.")
    b, s1, s2 = _dims(layout, query, key)
    if sparse_mode in (2, 3, 4):
        _mask_tensor(op, attn_mask, [(2048, 2048), (1, 2048, 2048), (1, 1, 2048, 2048)])
        discard = Tensor(_mode_mask(sparse_mode, b, s1, s2, pre, nxt, None))     # FlashAttentionScore's masks
    else:
        discard = _mask_tensor(op, attn_mask, [(s1, s2), (b, s1, s2), (1, s1, s2), (b, 1, s1, s2), (1, 1, s1, s2)])
        if discard is not None and sparse_mode == 0:
            band = _band(s1, s2, pre, nxt)
            discard = F.logical_or(discard, Tensor(band)) if band.any() else discard
    kv_len = _as_lengths(op, "actual_seq_lengths_kv", kv_lengths, b)
    if kv_len is not None:
        discard = _either(discard, _kv_discard(kv_len, b, s2))
    q_len = _as_lengths(op, "actual_seq_lengths", q_lengths, b)
    rows = None if q_len is None else F.less(F.reshape(_positions(s1), (1, 1, s1, 1)), F.reshape(q_len, (b, 1, 1, 1)))
    pse = _pse(op, pse_shift, query.dtype, n, s1, s2)
    return _run(query, key, value, layout, n, kvn, float(scale), pse, discard, rows, lse, out_layout)


def _incre(op, query, k, v, attn_mask, kv_lengths, kv_padding_size, pse_shift, n, kvn, scale, layout, lse=False):
    """One query position against the cache after the argument checks (incre_flash_attention's and
    fused_infer_attention_score's)."""
    b, s1, s2 = _dims(layout, query, k)
    if s1 != 1:
        raise OpValueError(f"For '{op}', the query must hold one position (S = 1), but got S = {s1}.")
    discard = _mask_tensor(op, attn_mask, [(b, s2), (b, 1, s2), (b, 1, 1, s2)])
    if discard is not None and len(attn_mask.shape) == 2:
        discard = F.reshape(discard, (b, 1, 1, s2))
    lengths = _as_lengths(op, "actual_seq_lengths", kv_lengths, b)
    if kv_padding_size is not None and lengths is None:
        raise OpValueError(f"For '{op}', 'kv_padding_size' needs 'actual_seq_lengths'.")
    if lengths is not None:
        discard = _either(discard, _kv_discard(lengths, b, s2, kv_padding_size))
    pse = _pse(op, pse_shift, query.dtype, n, 1, s2)
    return _run(query, k, v, layout, n, kvn, float(scale), pse, discard, lse=lse)


# ---- prompt --------------------------------------------------------------------------------------------
def prompt_attention(query, key, value, attn_mask=None, actual_seq_lengths=None, actual_seq_lengths_kv=None,
                     pse_shift=None, deq_scale1=None, quant_scale1=None, deq_scale2=None, quant_scale2=None,
                     quant_offset2=None, num_heads=1, scale_value=1.0, pre_tokens=_INT_MAX, next_tokens=0,
                     input_layout="BSH", num_key_value_heads=0, sparse_mode=0, inner_precise=1):
    attrs = (("num_heads", num_heads, int), ("scale_value", scale_value, float), ("pre_tokens", pre_tokens, int),
             ("next_tokens", next_tokens, int), ("input_layout", input_layout, str),
             ("num_key_value_heads", num_key_value_heads, int), ("sparse_mode", sparse_mode, int),
             ("inner_precise", inner_precise, int))
    names = ("query", "key", "value", "attn_mask", "actual_seq_lengths", "actual_seq_lengths_kv", "pse_shift",
             "deq_scale1", "quant_scale1", "deq_scale2", "quant_scale2", "quant_offset2")
    inputs = (query, key, value, attn_mask, actual_seq_lengths, actual_seq_lengths_kv, pse_shift, deq_scale1,
              quant_scale1, deq_scale2, quant_scale2, quant_offset2)
    check_enum(_PFA, "input_layout", input_layout, _LAYOUTS)
    wants = (TENSOR,) * 3 + (OPTIONAL, SEQUENCE, SEQUENCE) + (OPTIONAL,) * 6
    check_conversion(_PFA, attrs, list(zip(names, inputs, wants)))
    _floats(_PFA, (mstype.float16, mstype.bfloat16, mstype.int8), key=key, value=value, query=query)
    if query.dtype == mstype.int8:
        _no_quant(_PFA, query_int8=True)
    _no_quant(_PFA, deq_scale1=deq_scale1, quant_scale1=quant_scale1, deq_scale2=deq_scale2,
              quant_scale2=quant_scale2, quant_offset2=quant_offset2)
    if not query.dtype == key.dtype == value.dtype:
        raise OpTypeError(f"For '{_PFA}', 'query', 'key' and 'value' must have the same dtype, but got "
                          f"{query.dtype}, {key.dtype} and {value.dtype}.")
    rank = 3 if input_layout in ("BSH", "SBH") else 4
    if query.ndim != rank:
        raise OpValueError(f"For primitive[{_PFA}], the rank of query must be equal to {rank}, but got {query.ndim}.")
    n, kvn, _ = _heads(_PFA, input_layout, query, key, num_heads, num_key_value_heads)
    return _prompt(_PFA, query, key, value, attn_mask, actual_seq_lengths, actual_seq_lengths_kv, pse_shift, n, kvn,
                   scale_value, pre_tokens, next_tokens, input_layout, sparse_mode)


_PFA_ARGS = [Arg("query"), Arg("key"), Arg("value")] + [Arg(n, "value", default=None) for n in (
    "attn_mask", "actual_seq_lengths", "actual_seq_lengths_kv", "pse_shift", "deq_scale1", "quant_scale1",
    "deq_scale2", "quant_scale2", "quant_offset2")] + [
    Arg("num_heads", "value", default=1), Arg("scale_value", "value", default=1.0),
    Arg("pre_tokens", "value", default=_INT_MAX), Arg("next_tokens", "value", default=0),
    Arg("input_layout", "value", default="BSH"), Arg("num_key_value_heads", "value", default=0),
    Arg("sparse_mode", "value", default=0), Arg("inner_precise", "value", default=1)]


@op_entry("prompt_flash_attention", prim_name=_PFA, args=_PFA_ARGS)
def prompt_flash_attention(query, key, value, attn_mask=None, actual_seq_lengths=None, actual_seq_lengths_kv=None,
                           pse_shift=None, deq_scale1=None, quant_scale1=None, deq_scale2=None, quant_scale2=None,
                           quant_offset2=None, num_heads=1, scale_value=1.0, pre_tokens=_INT_MAX, next_tokens=0,
                           input_layout="BSH", num_key_value_heads=0, sparse_mode=0, inner_precise=1):
    """Attention over a whole prompt (see the module docstring)."""
    return prompt_attention(query, key, value, attn_mask, actual_seq_lengths, actual_seq_lengths_kv, pse_shift,
                            deq_scale1, quant_scale1, deq_scale2, quant_scale2, quant_offset2, num_heads, scale_value,
                            pre_tokens, next_tokens, input_layout, num_key_value_heads, sparse_mode, inner_precise)


class PromptFlashAttention(Primitive):
    """`mindspore.ops.operations.nn_ops.PromptFlashAttention` (see the module docstring)."""

    def __init__(self, num_heads=1, scale_value=1.0, pre_tokens=_INT_MAX, next_tokens=0, input_layout="BSH",
                 num_key_value_heads=0, sparse_mode=0, inner_precise=1):
        super().__init__(_PFA)
        self._attrs = dict(num_heads=num_heads, scale_value=scale_value, pre_tokens=pre_tokens,
                           next_tokens=next_tokens, input_layout=input_layout,
                           num_key_value_heads=num_key_value_heads, sparse_mode=sparse_mode,
                           inner_precise=inner_precise)
        self.add_prim_attrs(**self._attrs)

    def __call__(self, query, key, value, attn_mask=None, actual_seq_lengths=None, actual_seq_lengths_kv=None,
                 pse_shift=None, deq_scale1=None, quant_scale1=None, deq_scale2=None, quant_scale2=None,
                 quant_offset2=None):
        return prompt_attention(query, key, value, attn_mask, actual_seq_lengths, actual_seq_lengths_kv, pse_shift,
                                deq_scale1, quant_scale1, deq_scale2, quant_scale2, quant_offset2, **self._attrs)


# ---- incremental ---------------------------------------------------------------------------------------
def _cache(tensors):
    """key / value: one Tensor for the whole batch, or one per batch entry (concatenated)."""
    return tensors[0] if len(tensors) == 1 else F.concat(list(tensors), 0)


def incre_attention(query, key, value, attn_mask=None, actual_seq_lengths=None, pse_shift=None, dequant_scale1=None,
                    quant_scale1=None, dequant_scale2=None, quant_scale2=None, quant_offset2=None,
                    antiquant_scale=None, antiquant_offset=None, block_table=None, kv_padding_size=None, num_heads=1,
                    input_layout="BSH", scale_value=1.0, num_key_value_heads=0, block_size=0, inner_precise=1):
    attrs = (("num_heads", num_heads, int), ("input_layout", input_layout, str), ("scale_value", scale_value, float),
             ("num_key_value_heads", num_key_value_heads, int), ("block_size", block_size, int),
             ("inner_precise", inner_precise, int))
    names = ("query", "key", "value", "attn_mask", "actual_seq_lengths", "pse_shift", "dequant_scale1",
             "quant_scale1", "dequant_scale2", "quant_scale2", "quant_offset2", "antiquant_scale", "antiquant_offset",
             "block_table", "kv_padding_size")
    inputs = (query, key, value, attn_mask, actual_seq_lengths, pse_shift, dequant_scale1, quant_scale1,
              dequant_scale2, quant_scale2, quant_offset2, antiquant_scale, antiquant_offset, block_table,
              kv_padding_size)
    check_enum(_IFA, "input_layout", input_layout, _LAYOUTS)
    # key / value are lists of Tensors (a Tensor is refused, as the wheel's conversion refuses it)
    wants = (TENSOR, TENSORS, TENSORS, OPTIONAL, SEQUENCE) + (OPTIONAL,) * 10
    check_conversion(_IFA, attrs, list(zip(names, inputs, wants)))
    _no_quant(_IFA, dequant_scale1=dequant_scale1, quant_scale1=quant_scale1, dequant_scale2=dequant_scale2,
              quant_scale2=quant_scale2, quant_offset2=quant_offset2, antiquant_scale=antiquant_scale,
              antiquant_offset=antiquant_offset, block_table=block_table)
    k, v = _cache(key), _cache(value)
    floats = (mstype.float16, mstype.bfloat16, mstype.float32)
    _floats(_IFA, floats, query=query, key=k, value=v)
    if k.dtype != v.dtype or query.dtype != k.dtype:
        raise OpTypeError(f"For '{_IFA}', 'query', 'key' and 'value' must have the same dtype, but got "
                          f"{query.dtype}, {k.dtype} and {v.dtype}.")
    rank = 3 if input_layout in ("BSH", "SBH") else 4
    if query.ndim != rank or k.ndim != rank:
        raise OpValueError(f"For primitive[{_IFA}], the rank of query and key must be {rank} for '{input_layout}', "
                           f"but got {query.ndim} and {k.ndim}.")
    n, kvn, _ = _heads(_IFA, input_layout, query, k, num_heads, num_key_value_heads)
    return _incre(_IFA, query, k, v, attn_mask, actual_seq_lengths, kv_padding_size, pse_shift, n, kvn, scale_value,
                  input_layout)


_IFA_ARGS = [Arg("query"), Arg("key", "value"), Arg("value", "value")] + [Arg(n, "value", default=None) for n in (
    "attn_mask", "actual_seq_lengths", "pse_shift", "dequant_scale1", "quant_scale1", "dequant_scale2",
    "quant_scale2", "quant_offset2", "antiquant_scale", "antiquant_offset", "block_table")] + [
    Arg("num_heads", "value", default=1), Arg("input_layout", "value", default="BSH"),
    Arg("scale_value", "value", default=1.0), Arg("num_key_value_heads", "value", default=0),
    Arg("block_size", "value", default=0), Arg("inner_precise", "value", default=1),
    Arg("kv_padding_size", "value", default=None)]


@op_entry("incre_flash_attention", prim_name=_IFA, args=_IFA_ARGS)
def incre_flash_attention(query, key, value, attn_mask=None, actual_seq_lengths=None, pse_shift=None,
                          dequant_scale1=None, quant_scale1=None, dequant_scale2=None, quant_scale2=None,
                          quant_offset2=None, antiquant_scale=None, antiquant_offset=None, block_table=None,
                          num_heads=1, input_layout="BSH", scale_value=1.0, num_key_value_heads=0, block_size=0,
                          inner_precise=1, kv_padding_size=None):
    """One query position against the key / value cache (see the module docstring)."""
    return incre_attention(query, key, value, attn_mask, actual_seq_lengths, pse_shift, dequant_scale1,
                           quant_scale1, dequant_scale2, quant_scale2, quant_offset2, antiquant_scale,
                           antiquant_offset, block_table, kv_padding_size, num_heads, input_layout, scale_value,
                           num_key_value_heads, block_size, inner_precise)


class IncreFlashAttention(Primitive):
    """`mindspore.ops.operations.nn_ops.IncreFlashAttention` (see the module docstring)."""

    def __init__(self, num_heads=1, input_layout="BSH", scale_value=1.0, num_key_value_heads=0, block_size=0,
                 inner_precise=1):
        super().__init__(_IFA)
        self._attrs = dict(num_heads=num_heads, input_layout=input_layout, scale_value=scale_value,
                           num_key_value_heads=num_key_value_heads, block_size=block_size,
                           inner_precise=inner_precise)
        self.add_prim_attrs(**self._attrs)

    def __call__(self, query, key, value, attn_mask=None, actual_seq_lengths=None, pse_shift=None,
                 dequant_scale1=None, quant_scale1=None, dequant_scale2=None, quant_scale2=None, quant_offset2=None,
                 antiquant_scale=None, antiquant_offset=None, block_table=None, kv_padding_size=None):
        return incre_attention(query, key, value, attn_mask, actual_seq_lengths, pse_shift, dequant_scale1,
                               quant_scale1, dequant_scale2, quant_scale2, quant_offset2, antiquant_scale,
                               antiquant_offset, block_table, kv_padding_size, **self._attrs)


# ---- paged key / value cache (vLLM-style blocks) ------------------------------------------------------
# MindSpore documents these "only to export MindIR and run in MindSpore Lite" (no backend kernel); here
# they compute, so inference code with a block-wise cache runs and tests on the CPU.
#   a slot s of a cache (num_blocks, block_size, kv_heads, head_dim) is block s // block_size, row
#   s % block_size; a token of sequence i at position p reads slot
#   block_tables[i, p // block_size] * block_size + p % block_size.
def _cache4(op, cache, kv_heads):
    """A cache as (num_blocks, block_size, kv_heads, head_dim): the 3-D (.., kv_heads * head_dim) form too."""
    if cache.ndim == 4:
        return cache
    if cache.ndim == 3 and kv_heads and cache.shape[2] % kv_heads == 0:
        return F.reshape(cache, tuple(cache.shape[:2]) + (kv_heads, cache.shape[2] // kv_heads))
    raise OpValueError(f"For '{op}', a cache must be (num_blocks, block_size, kv_heads, head_dim) or (num_blocks, "
                       f"block_size, kv_heads * head_dim), but got {tuple(cache.shape)}.")


def _paged(op, query, key_cache, value_cache, block_tables, context_lens, head_num, scale_value, kv_head_num,
           bias=None, mask=None):
    if query.ndim != 3 or query.shape[1] != head_num:
        raise OpValueError(f"For '{op}', 'query' must be (num_tokens, head_num={head_num}, head_dim), but got "
                           f"{tuple(query.shape)}.")
    kv = kv_head_num or head_num
    if head_num % kv:
        raise OpValueError(f"For '{op}', 'head_num' ({head_num}) must be a multiple of 'kv_head_num' ({kv}).")
    kc, vc = _cache4(op, key_cache, kv), _cache4(op, value_cache, kv)
    n, d = query.shape[0], query.shape[2]
    block = kc.shape[1]
    width = block_tables.shape[1] * block                      # the positions a table can name
    pos = np.arange(width)
    slots = F.add(F.mul(F.gather(F.cast(block_tables, mstype.int32), Tensor((pos // block).astype(np.int32)), 1),
                        block), Tensor((pos % block).astype(np.int32)))           # (n, width)
    flat_k = F.reshape(kc, (-1, kv, kc.shape[3]))
    flat_v = F.reshape(vc, (-1, kv, vc.shape[3]))
    k = F.transpose(F.gather(flat_k, slots, 0), (0, 2, 1, 3))   # (n, kv, width, d)
    v = F.transpose(F.gather(flat_v, slots, 0), (0, 2, 1, 3))
    q = F.expand_dims(query, 2)                                  # (n, heads, 1, d): one position per token
    past = F.greater_equal(F.reshape(_positions(width), (1, 1, 1, width)),
                           F.reshape(F.cast(context_lens, mstype.int32), (n, 1, 1, 1)))
    extra = None
    for add in (bias, mask):                                     # additive, (n, max_context) or per head
        if add is not None:
            t = F.cast(add, mstype.float32)
            t = F.reshape(t, (n, 1, 1, t.shape[-1])) if t.ndim == 2 else F.reshape(t, (n, t.shape[1], 1, t.shape[-1]))
            if t.shape[-1] < width:
                t = F.concat((t, F.zeros(tuple(t.shape[:-1]) + (width - t.shape[-1],), mstype.float32)), -1)
            extra = t[..., :width] if extra is None else F.add(extra, t[..., :width])
    qf, kf, vf = (F.cast(t, mstype.float32) for t in (q, k, v))
    out = _attend(qf, kf, vf, kv, float(scale_value), extra, past, None, 1.0, False, pse_scaled=False)[0]
    return F.cast(F.reshape(out, (n, head_num, d)), query.dtype)


_QUANT_MODES = {"DEFAULT": 0, "PERTOKEN": 1}
_MASK_MODES = {"MASK_DEFAULT": 0, "TRAPEZOIDAL": 1}


def _enum(op, name, value, table):
    """A mode's number, as the wheel keeps it (its errors for another type or an unknown name)."""
    check_enum(op, name, value, table)
    return table[value]


@primitive_class
class PagedAttention(Primitive):
    """`ops.PagedAttention(head_num, scale_value, kv_head_num)`: each token's attention over its
    sequence's first context_lens[i] positions in the paged cache (see above); `attn_mask` and
    `alibi_mask` (num_tokens, max_context_lens) are added to the scaled scores. Not taken here:
    int8 caches (antiquant), q_seq_lens, mask_mode "TRAPEZOIDAL", mla_v_dim."""

    def __init__(self, head_num, scale_value, kv_head_num, kv_cache_quant_mode="DEFAULT", mask_mode="MASK_DEFAULT",
                 mla_v_dim=0):
        super().__init__("PagedAttention")
        self.head_num, self.scale_value, self.kv_head_num = head_num, scale_value, kv_head_num
        self.kv_cache_quant_mode = _enum("PagedAttention", "kv_cache_quant_mode", kv_cache_quant_mode, _QUANT_MODES)
        self.mask_mode = _enum("PagedAttention", "mask_mode", mask_mode, _MASK_MODES)
        self.mla_v_dim = mla_v_dim
        self.add_prim_attrs(head_num=head_num, scale_value=scale_value, kv_head_num=kv_head_num,
                            kv_cache_quant_mode=self.kv_cache_quant_mode, mask_mode=self.mask_mode,
                            mla_v_dim=mla_v_dim)

    def __call__(self, query, key_cache, value_cache=None, block_tables=None, context_lens=None, antiquant_scale=None,
                 antiquant_offset=None, attn_mask=None, q_seq_lens=None, alibi_mask=None):
        _no_quant("PagedAttention", antiquant_scale=antiquant_scale, antiquant_offset=antiquant_offset,
                  q_seq_lens=q_seq_lens)
        if self.mask_mode or self.mla_v_dim:
            raise OpValueError("For 'PagedAttention', mask_mode 'TRAPEZOIDAL' and mla_v_dim are not supported by "
                               "pycompile (MASK_DEFAULT, mla_v_dim=0 only).")
        if value_cache is None or block_tables is None or context_lens is None:
            raise OpValueError("For 'PagedAttention', 'value_cache', 'block_tables' and 'context_lens' are required.")
        return _paged("PagedAttention", query, key_cache, value_cache, block_tables, context_lens, self.head_num,
                      self.scale_value, self.kv_head_num, alibi_mask, attn_mask)


@primitive_class
class PagedAttentionMask(Primitive):
    """`ops.PagedAttentionMask(head_num, scale_value, kv_head_num)`: PagedAttention with `alibi_mask`
    (num_tokens, head_num, 1, max_context_lens) added to the scaled scores."""

    def __init__(self, head_num, scale_value, kv_head_num, kv_cache_quant_mode="DEFAULT"):
        super().__init__("PagedAttentionMask")
        self.head_num, self.scale_value, self.kv_head_num = head_num, scale_value, kv_head_num
        self.kv_cache_quant_mode = _enum("PagedAttentionMask", "kv_cache_quant_mode", kv_cache_quant_mode,
                                         _QUANT_MODES)
        self.add_prim_attrs(head_num=head_num, scale_value=scale_value, kv_head_num=kv_head_num,
                            kv_cache_quant_mode=self.kv_cache_quant_mode)

    def __call__(self, query, key_cache, value_cache, block_tables, context_lens, antiquant_scale=None,
                 antiquant_offset=None, alibi_mask=None):
        _no_quant("PagedAttentionMask", antiquant_scale=antiquant_scale, antiquant_offset=antiquant_offset)
        if alibi_mask is not None and alibi_mask.ndim == 4:
            alibi_mask = F.reshape(alibi_mask, (alibi_mask.shape[0], alibi_mask.shape[1], alibi_mask.shape[3]))
        return _paged("PagedAttentionMask", query, key_cache, value_cache, block_tables, context_lens, self.head_num,
                      self.scale_value, self.kv_head_num, alibi_mask)


def _write_cache(cache, rows, slots):
    """cache (num_blocks, block_size, ...) with rows (num_tokens, row) written at slots (negative slots
    skipped); in place for a Parameter (ops.assign) or an eager Tensor; the new value."""
    row = int(np.prod(cache.shape[2:]))
    flat = F.reshape(cache, (-1, row))
    spare = F.concat((flat, F.zeros((1, row), cache.dtype)), 0)          # negative slots land here
    where = F.select(F.less(slots, 0), F.fill(mstype.int32, tuple(slots.shape), flat.shape[0]), slots)
    new = F.reshape(tensor_scatter_update(spare, F.expand_dims(where, 1), F.cast(rows, cache.dtype))[:flat.shape[0]],
                    tuple(cache.shape))
    if isinstance(cache, Parameter):
        F.assign(cache, new)
        return cache
    if isinstance(cache, Tensor) and isinstance(new, Tensor):
        np.copyto(cache._data, new._data)
        return cache
    return new


def _tokens(name, x, cache, slots):
    """x's rows, one per token: a 2-D x is (num_tokens, hidden), a 3-D one (batch, seq, hidden) - the
    wheel's shape inference counts batch * seq tokens (not the documented (num_tokens, heads, dim))."""
    tokens = int(np.prod(x.shape[:-1]))
    if tokens != slots.shape[0]:
        raise OpRuntimeError(f"The num_tokens of slot mapping and {name} must be the same, but got slot mapping "
                             f"num_tokens: {slots.shape[0]}, {name} num_tokens: {tokens}")
    row = int(np.prod(cache.shape[2:]))
    if x.shape[-1] != row:
        raise OpRuntimeError(f"For 'ReshapeAndCache', the last dimension of '{name}' ({x.shape[-1]}) must be the "
                             f"size of a cache row ({row}: the cache's dimensions after block_size).")
    return F.reshape(x, (tokens, row))


@primitive_class
class ReshapeAndCache(Primitive):
    """`ops.ReshapeAndCache()(key, value, key_cache, value_cache, slot_mapping)`: each token's key (and
    value) row written into its slot of the paged cache, in place (a Parameter through ops.assign, so in
    graph code too; a slot < 0 is padding and writes nothing); returns key, as documented. key is
    (num_tokens, hidden) or (batch, seq, hidden), as the wheel's shape inference takes it (see
    _tokens), hidden the size of a cache row."""

    def __init__(self):
        super().__init__("ReshapeAndCache")

    def __call__(self, key, value=None, key_cache=None, value_cache=None, slot_mapping=None):
        if key_cache is None or slot_mapping is None:
            raise OpValueError("For 'ReshapeAndCache', 'key_cache' and 'slot_mapping' are required.")
        slots = F.cast(F.reshape(slot_mapping, (-1,)), mstype.int32)
        _write_cache(key_cache, _tokens("key", key, key_cache, slots), slots)
        if value is not None and value_cache is not None:
            _write_cache(value_cache, _tokens("value", value, value_cache, slots), slots)
        return key
