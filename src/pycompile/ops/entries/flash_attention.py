"""MindSpore 2.10's fused attention for training, `ops.flash_attention_score` and the Primitive
`ops.operations.nn_ops.FlashAttentionScore` (what large-model code calls), as a decomposition:
both modes, gradients and vmap follow from the ops it is made of. MindSpore's CPU wheel has no
kernel for it ("The kernel FlashAttentionScore unregistered", after its shape checks), so it
follows the documentation and is checked against a NumPy version of the documented formula
(tests/ops/test_flash_attention.py); the shape checks the wheel makes before it looks for a kernel
give its words (recorded: tests/conformance/cases_flash_attention.py).

    out = Dropout(Softmax(Mask(scale * (query @ key^T + pse), attn_mask)), keep_prob) @ value

per (batch, query head); key / value head n // (N1 / N2) serves query head n (grouped-query
attention). Choices where the documentation is silent or says two things, and why:

- pse (`real_shift`) is added before the scale, as the Primitive's documentation writes it
  (`scale_value * (real_shift + query * key)`), as the CANN kernel's documentation says (its V2's
  pse_type 1, "the same formula as FlashAttentionScore", is `speed_fusion_attention`'s documented
  `scale * (pse + query * key^T)`) and as Huawei's reference for the kernel computes; the
  functional's docstring writes `scale * (query * key) + pse`.
- a discarded position's score is the lowest float32 (the kernel selects a minimum value there,
  it does not add a large negative number), so a query row whose every key is discarded gets the
  mean of the values (a uniform softmax), not NaN as PyTorch's scaled_dot_product_attention.
- the scores, softmax and products are computed in float32; the output is rounded once to the
  query's dtype. float16 and bfloat16 as documented, and float32, which the wheel's shape
  inference accepts too.
- sparse_mode 0: `attn_mask` if given, and then also the band of pre_tokens / next_tokens
  (position (i, j) is kept where -pre_tokens <= j - i <= next_tokens); none given: no mask.
  1: `attn_mask` only. 2: causal from the upper-left corner (j > i discarded); 3: from the
  lower-right corner (j - i > S2 - S1); 4: the band alone - modes 2-4 take their mask from the mode
  (their "optimized" 2048 x 2048 `attn_mask` is checked for its shape and not read, as the
  kernel's compressed mask stands for exactly that pattern). 5: mode 3 with the first prefix[b]
  key positions of batch b kept as well (and `attn_mask`, if given, also applied). 6-8: the
  documentation's "not implemented yet": a RuntimeError.
- `drop_mask` (uint8, (B, N1, S1, S2 // 8)): bit k of byte m keeps position 8 m + k (least
  significant bit first); kept probabilities are divided by keep_prob. keep_prob < 1 without a
  drop_mask draws the dropout here (`ops.dropout`), which the documentation leaves to the caller.
- "TND" runs each sequence of `actual_seq_qlen` / `actual_seq_kvlen` (cumulative ends, known when
  the program is built) as its own batch. `real_shift`'s compressed ALiBi form (1024 rows) is not
  taken: real_shift must have S1 rows.
- softmax_max / softmax_sum (the Primitive's first outputs, float32, the last axis repeated 8
  times as the kernel stores them): each row's largest masked score and the sum of exp(score -
  max); softmax_out is the documented empty output, shape (0,).
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.entries._common import OPTIONAL, SEQUENCE, TENSOR, check_conversion, check_enum
from pycompile.ops.entry import Arg, op_entry
from pycompile.ops.primitive import Primitive

LAYOUTS = ("BSH", "BNSD", "SBH", "BSND", "TND")
_FLOATS = (mstype.float16, mstype.bfloat16, mstype.float32)
_LOWEST = float(np.finfo(np.float32).min)
_INT_MAX = 2147483647
_OP = "FlashAttentionScore"


# ---- argument checks (the wheel's words where its shape inference makes the check) ------------------
def _attrs(head_num, keep_prob, scale_value, pre_tokens, next_tokens, inner_precise, input_layout, sparse_mode):
    """The Primitive's attributes as (name, value, type it must have)."""
    return (("head_num", head_num, int), ("keep_prob", keep_prob, float), ("scale_value", scale_value, float),
            ("pre_tokens", pre_tokens, int), ("next_tokens", next_tokens, int), ("inner_precise", inner_precise, int),
            ("input_layout", input_layout, str), ("sparse_mode", sparse_mode, int))


def _check_call(attrs, inputs):
    """What the wheel checks before it looks for a kernel: the layout, then its argument conversion
    (query / key / value Tensors, the masks Tensors or None, prefix and the lengths also lists or
    tuples), then the values."""
    values = {name: value for name, value, _ in attrs}
    check_enum(_OP, "input_layout", values["input_layout"], LAYOUTS)
    wants = (TENSOR,) * 3 + (OPTIONAL,) * 4 + (SEQUENCE,) * 3
    names = ("query", "key", "value", "real_shift", "drop_mask", "padding_mask", "attn_mask", "prefix",
             "actual_seq_qlen", "actual_seq_kvlen")
    check_conversion(_OP, attrs, list(zip(names, inputs, wants)))
    if values["head_num"] <= 0:
        raise OpRuntimeError(f"For '{_OP}', 'head_num' must be greater than 0, but got {values['head_num']}.")
    if not 0.0 < values["keep_prob"] <= 1.0:
        raise OpValueError(f"For '{_OP}', 'keep_prob' must be in (0.0, 1.0], but got {values['keep_prob']}.")
    if values["sparse_mode"] not in range(6):
        raise OpRuntimeError(f"For '{_OP}', the specified value of 'sparse_mode' ({values['sparse_mode']}) is "
                             f"invalid: 0-5 are implemented (6-8 are 'not implemented yet' in MindSpore's "
                             f"documentation).")
    if values["pre_tokens"] < 0 and values["next_tokens"] < 0:
        raise OpValueError(f"For '{_OP}', 'pre_tokens' and 'next_tokens' must not both be negative, but got "
                           f"{values['pre_tokens']} and {values['next_tokens']}.")


def _tensor(name, value, dtypes=None, optional=True):
    if value is None and optional:
        return None
    if not isinstance(value, TensorMethods):
        raise OpTypeError(f"For '{_OP}', '{name}' must be a Tensor{' or None' if optional else ''}, but got "
                          f"{type(value).__name__}.")
    if dtypes is not None and value.dtype not in dtypes:
        allowed = ", ".join(str(d) for d in dtypes)
        raise OpTypeError(f"For '{_OP}', the dtype of '{name}' must be one of [{allowed}], but got {value.dtype}.")
    return value


def _lengths(name, value):
    """actual_seq_qlen / kvlen / prefix as Python ints (a list, tuple or a Tensor with a value)."""
    if value is None:
        return None
    if isinstance(value, Symbolic):
        raise OpTypeError(f"For '{_OP}', '{name}' must be known when the program is built (a tuple or list of "
                          f"ints), but got a Tensor computed in graph code.")
    if isinstance(value, TensorMethods):
        value = value.asnumpy().reshape(-1).tolist()
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                        for v in value):
        raise OpTypeError(f"For '{_OP}', '{name}' must be a tuple or list of ints, but got {value!r}.")
    return [int(v) for v in value]


# ---- layouts -----------------------------------------------------------------------------------------
def _dims(layout, q, k, head_num):
    """(B, N1, S1, S2, N2, D) from the layout, with the wheel's rank and divisibility checks."""
    want = 3 if layout in ("BSH", "SBH", "TND") else 4
    for name, t in (("query", q), ("key", k)):
        if t.ndim != want:
            raise OpRuntimeError(f"{_OP}: The rank of '{name}' must be {want}, but got {t.ndim} and {q.ndim}")
    if layout in ("BSH", "SBH"):
        b, s1, h1 = q.shape if layout == "BSH" else (q.shape[1], q.shape[0], q.shape[2])
        s2, h2 = (k.shape[1], k.shape[2]) if layout == "BSH" else (k.shape[0], k.shape[2])
        if h1 % head_num:
            raise OpRuntimeError(f"{_OP}: 'hidden_size` must be divisible by `head_num`, but got {h1} and {head_num}")
        d = h1 // head_num
        if h2 % d:
            raise OpRuntimeError(f"For '{_OP}', the hidden size of 'key' ({h2}) must be a multiple of the head "
                                 f"size D ({d}).")
        return b, head_num, s1, s2, h2 // d, d
    if layout == "TND":
        n1, d, n2 = q.shape[1], q.shape[2], k.shape[1]
        if d != k.shape[2]:
            raise OpRuntimeError(f"For '{_OP}', the D-axis of 'query', 'key' and 'value' must be the same, but got "
                                 f"{d} and {k.shape[2]}.")
        return None, n1, None, None, n2, d
    if layout == "BNSD":
        (b, n1, s1, d), (n2, s2, dk) = q.shape, (k.shape[1], k.shape[2], k.shape[3])
    else:
        (b, s1, n1, d), (s2, n2, dk) = q.shape, (k.shape[1], k.shape[2], k.shape[3])
    if d != dk:
        raise OpRuntimeError(f"For '{_OP}', the D-axis of 'query', 'key' and 'value' must be the same, but got "
                             f"{d} and {dk}.")
    if n1 != head_num:
        raise OpRuntimeError(f"For '{_OP}', 'head_num' ({head_num}) must be the N axis of 'query' ({n1}).")
    return b, n1, s1, s2, n2, d


def _to_bnsd(x, layout, n):
    if layout == "BNSD":
        return x
    if layout == "BSND":
        return F.transpose(x, (0, 2, 1, 3))
    if layout == "BSH":
        b, s, h = x.shape
        return F.transpose(F.reshape(x, (b, s, n, h // n)), (0, 2, 1, 3))
    s, b, h = x.shape     # SBH
    return F.transpose(F.reshape(x, (s, b, n, h // n)), (1, 2, 0, 3))


def _from_bnsd(y, layout):
    b, n, s, d = y.shape
    if layout == "BNSD":
        return y
    if layout == "BSND":
        return F.transpose(y, (0, 2, 1, 3))
    if layout == "BSH":
        return F.reshape(F.transpose(y, (0, 2, 1, 3)), (b, s, n * d))
    return F.reshape(F.transpose(y, (2, 0, 1, 3)), (s, b, n * d))     # SBH


# ---- masks -------------------------------------------------------------------------------------------
def _band(s1, s2, pre, nxt):
    """True where (i, j) is outside -pre <= j - i <= nxt."""
    off = np.arange(s2)[None, :] - np.arange(s1)[:, None]
    return (off > nxt) | (off < -pre)


def _mode_mask(mode, b, s1, s2, pre, nxt, prefix):
    """The mask a sparse mode builds, numpy bool (S1, S2) or (B, 1, S1, S2); None: none."""
    off = np.arange(s2)[None, :] - np.arange(s1)[:, None]
    if mode == 2:
        return off > 0
    if mode == 3:
        return off > s2 - s1
    if mode == 4:
        return _band(s1, s2, pre, nxt)
    if mode == 5:
        if prefix is None or len(prefix) != b:
            raise OpRuntimeError(f"For '{_OP}', sparse_mode 5 needs 'prefix' with one value per batch ({b}), but "
                                 f"got {prefix!r}.")
        cols = np.arange(s2)[None, None, None, :] >= np.asarray(prefix).reshape(b, 1, 1, 1)
        return (off > s2 - s1)[None, None] & cols
    return None


def _user_mask(attn_mask, mode, b, n1, s1, s2):
    """The user's attn_mask as a bool tensor broadcastable to (B, N1, S1, S2) (None if not read)."""
    if attn_mask is None:
        return None
    shape = tuple(attn_mask.shape)
    if mode in (2, 3, 4):
        if shape != (2048, 2048):
            raise OpRuntimeError(f"For '{_OP}', with sparse_mode {mode} 'attn_mask' must be the optimized (2048, "
                                 f"2048) mask, but got {shape}.")
        return None
    allowed = [(b, n1, s1, s2), (b, 1, s1, s2)] + ([(s1, s2)] if mode in (0, 1) else [])
    if shape not in allowed:
        raise OpRuntimeError(f"For '{_OP}', the shape of 'attn_mask' must be one of {allowed}, but got {shape}.")
    return F.not_equal(attn_mask, 0) if attn_mask.dtype != mstype.bool_ else attn_mask


def _discard(mode, attn_mask, b, n1, s1, s2, pre, nxt, prefix):
    """Every discarded position: a bool tensor broadcastable to (B, N1, S1, S2), or None."""
    user = _user_mask(attn_mask, mode, b, n1, s1, s2)
    if mode == 0:
        if user is None:
            return None
        band = _band(s1, s2, pre, nxt)
        return F.logical_or(user, Tensor(band)) if band.any() else user
    built = _mode_mask(mode, b, s1, s2, pre, nxt, prefix)
    if built is None:
        return user
    if user is None:
        return Tensor(built)
    return F.logical_or(user, Tensor(built))


def _keep_bits(drop_mask, shape):
    """drop_mask's bits (least significant first) as float32 0 / 1 of `shape` (B, N1, S1, S2)."""
    packed = tuple(shape[:-1]) + (shape[-1] // 8,)
    if shape[-1] % 8 or tuple(drop_mask.shape) != packed:
        raise OpRuntimeError(f"For '{_OP}', the shape of 'drop_mask' must be {packed} (S2 a multiple of 8), but got "
                             f"{tuple(drop_mask.shape)}.")
    byte = F.expand_dims(F.cast(drop_mask, mstype.int32), -1)
    powers = Tensor(np.array([1 << k for k in range(8)], np.int32))
    bits = F.remainder(F.floor_divide(byte, powers), 2)
    return F.cast(F.reshape(bits, tuple(shape)), mstype.float32)


# ---- the computation ---------------------------------------------------------------------------------
def _attend(q, k, v, n2, scale, pse, discard, drop_mask, keep_prob, stats, pse_scaled=True):
    """(B, N1, S1, D) float32 attention of BNSD q / k / v: (out, row max, row sum) (stats: else None).
    pse_scaled: scale * (q k^T + pse), else scale * q k^T + pse."""
    b, n1, s1, d = q.shape
    s2 = k.shape[2]
    if n2 != n1:
        group = n1 // n2
        k, v = (F.reshape(F.broadcast_to(F.expand_dims(t, 2), (b, n2, group, s2, d)), (b, n1, s2, d))
                for t in (k, v))
    scores = F.matmul(q, F.transpose(k, (0, 1, 3, 2)))
    if pse is not None and pse_scaled:
        scores = F.add(scores, F.cast(pse, mstype.float32))
    scores = F.mul(scores, scale)
    if pse is not None and not pse_scaled:
        scores = F.add(scores, F.cast(pse, mstype.float32))
    if discard is not None:
        scores = F.select(F.broadcast_to(discard, (b, n1, s1, s2)), F.fill(mstype.float32, (b, n1, s1, s2), _LOWEST),
                          scores)
    probs = F.softmax(scores, -1)
    if drop_mask is not None:
        probs = F.mul(probs, F.mul(_keep_bits(drop_mask, (b, n1, s1, s2)), 1.0 / keep_prob))
    elif keep_prob < 1.0:
        from pycompile.ops.function_random import dropout
        probs = dropout(probs, 1.0 - keep_prob)
    out = F.matmul(probs, v)
    if not stats:
        return out, None, None
    top = F.amax(scores, -1, True)
    total = F.sum(F.exp(F.sub(scores, top)), -1, True)
    return out, F.broadcast_to(top, (b, n1, s1, 8)), F.broadcast_to(total, (b, n1, s1, 8))


def flash_attention(query, key, value, head_num, real_shift=None, drop_mask=None, padding_mask=None,
                    attn_mask=None, prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, keep_prob=1.0,
                    scale_value=1.0, pre_tokens=_INT_MAX, next_tokens=_INT_MAX, inner_precise=0,
                    input_layout="BSH", sparse_mode=0, stats=True, pse_type=1, q_start_idx=None, kv_start_idx=None):
    """The Primitive's four outputs (softmax_max, softmax_sum, softmax_out, attention_out). pse_type
    (speed_fusion_attention's): 1 scale * (qk + pse), 0 scale * qk + pse, 2 / 3 a bias generated from
    the slopes in real_shift (_alibi)."""
    _check_call(_attrs(head_num, keep_prob, scale_value, pre_tokens, next_tokens, inner_precise, input_layout,
                       sparse_mode),
                (query, key, value, real_shift, drop_mask, padding_mask, attn_mask, prefix, actual_seq_qlen,
                 actual_seq_kvlen))
    q = _tensor("query", query, _FLOATS, optional=False)
    k = _tensor("key", key, _FLOATS, optional=False)
    v = _tensor("value", value, _FLOATS, optional=False)
    if not q.dtype == k.dtype == v.dtype:
        raise OpTypeError(f"For '{_OP}', 'query', 'key' and 'value' must have the same dtype, but got {q.dtype}, "
                          f"{k.dtype} and {v.dtype}.")
    if tuple(k.shape) != tuple(v.shape):
        raise OpRuntimeError(f"For '{_OP}', 'key' and 'value' must have the same shape, but got "
                             f"{tuple(k.shape)} and {tuple(v.shape)}.")
    pse = _tensor("real_shift", real_shift, (mstype.float32,) if pse_type in (2, 3) else (q.dtype,))
    drop_mask = _tensor("drop_mask", drop_mask, (mstype.uint8,))
    if padding_mask is not None:
        _tensor("padding_mask", padding_mask)
    attn_mask = _tensor("attn_mask", attn_mask, (mstype.bool_, mstype.uint8))
    if drop_mask is not None and keep_prob == 1.0:
        drop_mask = None     # "When keep_prob is 1.0, drop_mask should be None": nothing is dropped
    b, n1, s1, s2, n2, d = _dims(input_layout, q, k, head_num)
    if n2 == 0 or n1 % n2:
        raise OpRuntimeError(f"For '{_OP}', 'head_num' ({n1}) must be divisible by the number of key / value "
                             f"heads N2 ({n2}).")
    prefix = _lengths("prefix", prefix)
    scale = float(scale_value)
    if input_layout == "TND":
        out, top, total = _tnd(q, k, v, n2, scale, pse, attn_mask, drop_mask, keep_prob, sparse_mode,
                               pre_tokens, next_tokens, _lengths("actual_seq_qlen", actual_seq_qlen),
                               _lengths("actual_seq_kvlen", actual_seq_kvlen), stats)
    else:
        if actual_seq_qlen is not None or actual_seq_kvlen is not None:
            raise OpValueError(f"For '{_OP}', 'actual_seq_qlen' and 'actual_seq_kvlen' are for input_layout "
                               f"'TND' only, but input_layout is '{input_layout}'.")
        if pse is not None and pse_type in (2, 3):
            pse = _alibi(pse, b, n1, s1, s2, q_start_idx, kv_start_idx, pse_type == 3)
        elif pse is not None and tuple(pse.shape) not in ((b, n1, s1, s2), (1, n1, s1, s2)):
            raise OpRuntimeError(f"For '{_OP}', the shape of 'real_shift' must be {(b, n1, s1, s2)} or "
                                 f"{(1, n1, s1, s2)}, but got {tuple(pse.shape)}.")
        discard = _discard(sparse_mode, attn_mask, b, n1, s1, s2, pre_tokens, next_tokens, prefix)
        qf, kf, vf = (F.cast(_to_bnsd(t, input_layout, n), mstype.float32)
                      for t, n in ((q, n1), (k, n2), (v, n2)))
        out, top, total = _attend(qf, kf, vf, n2, scale, pse, discard, drop_mask, keep_prob, stats,
                                  pse_scaled=pse_type == 1)
        out = _from_bnsd(out, input_layout)
    empty = F.zeros((0,), q.dtype)
    return top, total, empty, F.cast(out, q.dtype)


def _alibi(slopes, b, n1, s1, s2, q_start, kv_start, sqrt):
    """The bias of pse_type 2 / 3 from per-head slopes ((B, N1) or (N1,), float32): -slope * |d|
    (3: -slope * sqrt(|d|)) with d = (j + kv_start) - (i + q_start) for query row i and key column
    j, as the kernel generates it (q_start / kv_start: one int each, default 0)."""
    shape = tuple(slopes.shape)
    if shape not in ((b, n1), (n1,)):
        raise OpRuntimeError(f"For '{_OP}', with pse_type 2 or 3 'pse' holds the slopes, (B, N1) = {(b, n1)} or "
                             f"(N1,) = {(n1,)}, but got {shape}.")
    starts = []
    for name, v in (("q_start_idx", q_start), ("kv_start_idx", kv_start)):
        v = _lengths(name, v) or [0]
        if len(v) != 1:
            raise OpValueError(f"For '{_OP}', '{name}' must hold one int, but got {v}.")
        starts.append(v[0])
    dist = np.abs((np.arange(s2)[None, :] + starts[1]) - (np.arange(s1)[:, None] + starts[0])).astype(np.float32)
    shape = (1, 1, s1, s2)
    grid = Tensor((np.sqrt(dist) if sqrt else dist).reshape(shape))
    per_head = F.reshape(slopes, (b if len(slopes.shape) == 2 else 1, n1, 1, 1))
    return F.neg(F.mul(per_head, grid))


def _tnd(q, k, v, n2, scale, pse, attn_mask, drop_mask, keep_prob, mode, pre, nxt, qlen, kvlen, stats):
    """"TND": each sequence (cumulative ends qlen / kvlen) as a batch of one; outputs concatenated."""
    if qlen is None or kvlen is None:
        raise OpValueError(f"For '{_OP}', with input_layout 'TND' 'actual_seq_qlen' and 'actual_seq_kvlen' must "
                           f"not be None.")
    if any(b == a for a, b in zip([0] + kvlen, kvlen)):
        raise OpValueError(f"For '{_OP}', a sequence of 'actual_seq_kvlen' is empty ({kvlen}): 0 should not exist in "
                           f"the key / value lengths, as MindSpore documents.")
    if len(qlen) != len(kvlen) or qlen[-1:] != [q.shape[0]] or kvlen[-1:] != [k.shape[0]] or any(
            b < a for seq in (qlen, kvlen) for a, b in zip([0] + seq, seq)):
        raise OpValueError(f"For '{_OP}', 'actual_seq_qlen' and 'actual_seq_kvlen' must be non-decreasing lists "
                           f"of the same length ending at T1 ({q.shape[0]}) and T2 ({k.shape[0]}), but got {qlen} "
                           f"and {kvlen}.")
    if pse is not None or drop_mask is not None:
        raise OpValueError(f"For '{_OP}', 'real_shift' and 'drop_mask' are not taken with input_layout 'TND' "
                           f"here (MindSpore's compressed forms of them).")
    n1 = q.shape[1]
    outs, tops, totals = [], [], []
    for (q0, q1), (k0, k1) in zip(zip([0] + qlen, qlen), zip([0] + kvlen, kvlen)):
        if q1 == q0:
            continue
        s1, s2 = q1 - q0, k1 - k0
        qs, ks, vs = (F.cast(F.expand_dims(F.transpose(t[a:e], (1, 0, 2)), 0), mstype.float32)
                      for t, a, e in ((q, q0, q1), (k, k0, k1), (v, k0, k1)))
        discard = _discard(mode, attn_mask, 1, n1, s1, s2, pre, nxt, None)
        out, top, total = _attend(qs, ks, vs, n2, scale, None, discard, None, keep_prob, stats)
        outs.append(F.transpose(out[0], (1, 0, 2)))
        if stats:
            tops.append(F.transpose(top[0], (1, 0, 2)))
            totals.append(F.transpose(total[0], (1, 0, 2)))
    cat = (lambda ts: ts[0] if len(ts) == 1 else F.concat(ts, 0))
    return cat(outs), (cat(tops) if stats else None), (cat(totals) if stats else None)


@op_entry("flash_attention_score", prim_name=_OP,
          args=[Arg("query"), Arg("key"), Arg("value"), Arg("head_num", "value"),
                Arg("real_shift", "value", default=None), Arg("drop_mask", "value", default=None),
                Arg("padding_mask", "value", default=None), Arg("attn_mask", "value", default=None),
                Arg("prefix", "value", default=None), Arg("actual_seq_qlen", "value", default=None),
                Arg("actual_seq_kvlen", "value", default=None), Arg("keep_prob", "value", default=1.0),
                Arg("scalar_value", "value", default=1.0), Arg("pre_tokens", "value", default=_INT_MAX),
                Arg("next_tokens", "value", default=_INT_MAX), Arg("inner_precise", "value", default=0),
                Arg("input_layout", "value", default="BSH"), Arg("sparse_mode", "value", default=0)])
def flash_attention_score(query, key, value, head_num, real_shift=None, drop_mask=None, padding_mask=None,
                          attn_mask=None, prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, keep_prob=1.0,
                          scalar_value=1.0, pre_tokens=_INT_MAX, next_tokens=_INT_MAX, inner_precise=0,
                          input_layout="BSH", sparse_mode=0):
    """FlashAttentionScore's attention_out (see the module docstring)."""
    return flash_attention(query, key, value, head_num, real_shift, drop_mask, padding_mask, attn_mask, prefix,
                           actual_seq_qlen, actual_seq_kvlen, keep_prob, scalar_value, pre_tokens, next_tokens,
                           inner_precise, input_layout, sparse_mode, stats=False)[3]


class FlashAttentionScore(Primitive):
    """`mindspore.ops.operations.nn_ops.FlashAttentionScore` (see the module docstring): returns
    (softmax_max, softmax_sum, softmax_out, attention_out)."""

    def __init__(self, head_num, keep_prob=1.0, scale_value=1.0, pre_tokens=_INT_MAX, next_tokens=_INT_MAX,
                 inner_precise=0, input_layout="BSH", sparse_mode=0):
        super().__init__(_OP)     # the attributes are checked when it is called, as the wheel does
        self.head_num, self.keep_prob, self.scale_value = head_num, keep_prob, scale_value
        self.pre_tokens, self.next_tokens, self.inner_precise = pre_tokens, next_tokens, inner_precise
        self.input_layout, self.sparse_mode = input_layout, sparse_mode
        self.add_prim_attrs(head_num=head_num, keep_prob=keep_prob, scale_value=scale_value, pre_tokens=pre_tokens,
                            next_tokens=next_tokens, inner_precise=inner_precise, input_layout=input_layout,
                            sparse_mode=sparse_mode)

    def __call__(self, query, key, value, real_shift=None, drop_mask=None, padding_mask=None, attn_mask=None,
                 prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None):
        return flash_attention(query, key, value, self.head_num, real_shift, drop_mask, padding_mask, attn_mask,
                               prefix, actual_seq_qlen, actual_seq_kvlen, self.keep_prob, self.scale_value,
                               self.pre_tokens, self.next_tokens, self.inner_precise, self.input_layout,
                               self.sparse_mode)


# ---- ring attention: merging two partial attentions ----------------------------------------------------
_RING = "RingAttentionUpdate"
_RING_INPUTS = ("prev_attn_out", "prev_softmax_max", "prev_softmax_sum", "cur_attn_out", "cur_softmax_max",
                "cur_softmax_sum", "actual_seq_qlen")


@op_entry("ring_attention_update", prim_name=_RING,
          args=[Arg(n, "value") for n in _RING_INPUTS[:6]] + [Arg("actual_seq_qlen", "value", default=None),
                                                               Arg("layout", "value", default="SBH")])
def ring_attention_update(prev_attn_out, prev_softmax_max, prev_softmax_sum, cur_attn_out, cur_softmax_max,
                          cur_softmax_sum, actual_seq_qlen=None, layout="SBH"):
    """Two attentions of the same queries over two parts of the keys, merged into the attention over both
    from their softmax statistics (FlashAttentionScore's softmax_max / softmax_sum):

        m = max(m1, m2),  s = s1 exp(m1 - m) + s2 exp(m2 - m)
        out = (out1 s1 exp(m1 - m) + out2 s2 exp(m2 - m)) / s

    returning (out, m, s); computed in float32, out rounded to its dtype. "SBH": out (S, B, H), the
    statistics (B, N, S, 8); "TND": out (T, N, D), statistics (T, N, 8)."""
    inputs = (prev_attn_out, prev_softmax_max, prev_softmax_sum, cur_attn_out, cur_softmax_max, cur_softmax_sum,
              actual_seq_qlen)
    if not isinstance(layout, str):
        raise OpTypeError(f"For '{_RING}', the input 'layout' should be a str, but got {type(layout)}.")
    check_conversion(_RING, (), [(n, v, TENSOR if i < 6 else OPTIONAL) for i, (n, v) in
                                 enumerate(zip(_RING_INPUTS, inputs))] + [("layout", layout, str)])
    if layout not in ("SBH", "TND"):
        raise OpValueError(f"For {_RING}, the value of 'layout' must be SBH/TND.")
    o1, m1, s1, o2, m2, s2 = inputs[:6]
    for name, t, dtypes in (("prev_attn_out", o1, _FLOATS), ("cur_attn_out", o2, (o1.dtype,))) + tuple(
            (n, t, (mstype.float32,)) for n, t in zip(_RING_INPUTS[1:6], (m1, s1, None, m2, s2)) if t is not None):
        if t.dtype not in dtypes:
            raise OpTypeError(f"For '{_RING}', the dtype of '{name}' must be one of "
                              f"[{', '.join(str(d) for d in dtypes)}], but got {t.dtype}.")
    stats_shape = tuple(m1.shape)
    if layout == "SBH" and o1.ndim == 3:          # the wheel's first shape check: S of every input alike
        for t in (m1, s1, m2, s2):
            if t.ndim == 4 and t.shape[2] != o1.shape[0]:
                raise OpValueError(f"For '{_RING}', the S-dim of inputs should be the consistent, but got "
                                   f"{o1.shape[0]} and {t.shape[2]}respectively.")
    if any(tuple(t.shape) != stats_shape for t in (s1, m2, s2)) or tuple(o2.shape) != tuple(o1.shape):
        raise OpValueError(f"For '{_RING}', the two attentions and their statistics must have the same shapes, "
                           f"but got {tuple(o1.shape)} / {tuple(o2.shape)} and {stats_shape}, "
                           f"{tuple(s1.shape)}, {tuple(m2.shape)}, {tuple(s2.shape)}.")
    if layout == "SBH":
        if o1.ndim != 3 or len(stats_shape) != 4 or stats_shape[-1] != 8:
            raise OpValueError(f"For '{_RING}', 'SBH' takes attentions (S, B, H) and statistics (B, N, S, 8), but "
                               f"got {tuple(o1.shape)} and {stats_shape}.")
        s, b, h = o1.shape
        n = stats_shape[1]
        if stats_shape[0] != b or h % n:
            raise OpValueError(f"For '{_RING}', statistics {stats_shape} do not fit attentions {tuple(o1.shape)}.")
    else:
        if o1.ndim != 3 or len(stats_shape) != 3 or stats_shape[:2] != tuple(o1.shape[:2]) or stats_shape[2] != 8:
            raise OpValueError(f"For '{_RING}', 'TND' takes attentions (T, N, D) and statistics (T, N, 8), but got "
                               f"{tuple(o1.shape)} and {stats_shape}.")
        if o1.shape[2] % 64:
            raise OpRuntimeError(f"For '{_RING}', with layout 'TND' the last dimension of 'prev_attn_out' must be a "
                                 f"multiple of 64, but got {o1.shape[2]}.")
        if actual_seq_qlen is None:
            raise OpRuntimeError(f"For '{_RING}', with layout 'TND' 'actual_seq_qlen' is mandatory.")
        ends = _lengths("actual_seq_qlen", actual_seq_qlen)
        if ends[:1] != [0] or ends[-1] != o1.shape[0] or any(b < a for a, b in zip(ends, ends[1:])):
            raise OpRuntimeError(f"For '{_RING}', 'actual_seq_qlen' must be non-decreasing from 0 to T "
                                 f"({o1.shape[0]}), but got {ends}.")
    top = F.maximum(m1, m2)
    w1, w2 = F.mul(s1, F.exp(F.sub(m1, top))), F.mul(s2, F.exp(F.sub(m2, top)))
    total = F.add(w1, w2)
    a1, a2 = F.div(w1[..., :1], total[..., :1]), F.div(w2[..., :1], total[..., :1])
    if layout == "SBH":     # (B, N, S, 1) -> (S, B, N, 1) against out's (S, B, N, D)
        a1, a2 = (F.transpose(a, (2, 0, 1, 3)) for a in (a1, a2))
        f1, f2 = (F.reshape(F.cast(o, mstype.float32), (s, b, n, h // n)) for o in (o1, o2))
        out = F.reshape(F.add(F.mul(f1, a1), F.mul(f2, a2)), (s, b, h))
    else:
        out = F.add(F.mul(F.cast(o1, mstype.float32), a1), F.mul(F.cast(o2, mstype.float32), a2))
    return F.cast(out, o1.dtype), top, total
