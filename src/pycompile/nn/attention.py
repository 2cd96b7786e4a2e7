"""nn.MultiheadAttention with MindSpore 2.10's arguments, Parameter names and results.

Parameters: `in_proj_weight` (3E, E) and `in_proj_bias` (3E), or, when kdim / vdim differ from
embed_dim, `q_proj_weight` (E, E), `k_proj_weight` (E, kdim), `v_proj_weight` (E, vdim); the
output projection is the Dense `out_proj`; `bias_k` / `bias_v` (1, 1, E) with add_bias_kv.

Masks follow MindSpore exactly, including its mixed cases: a bool mask is True where attention
is NOT allowed and becomes -inf; a float mask is added to the scores; a bool attn_mask and a
key_padding_mask are OR-ed; a float attn_mask and a key_padding_mask are ADDED (a bool padding
mask then adds 1.0, not -inf: MindSpore 2.10 does this). Scores are q k^T / sqrt(head_dim)
(MindSpore divides q and k by head_dim ** 0.25 each: the same up to rounding). The result is
(output, weights averaged over heads or per head), or `(output,)` when need_weights is False.

Compiled, the projections are products over all (L * B) rows, the scores one batched product
whose epilogue adds the mask, then softmax and the second batched product.
"""
from __future__ import annotations

import math

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.initializer import HeUniform, Normal, Uniform, XavierUniform, initializer
from pycompile.common.parameter import Parameter
from pycompile.nn.cell import Cell
from pycompile.nn.layers import Dense, Dropout
from pycompile.nn.rnn_math import linear


def _is_float(x) -> bool:
    return x.dtype in (mstype.float16, mstype.float32, mstype.float64)


def _pad_last(mask):
    """One more key position, not masked (MindSpore's _inner_pad(mask, (0, 1)))."""
    zero = ops.zeros(tuple(mask.shape[:-1]) + (1,), mask.dtype)
    return ops.concat((mask, zero), -1)


class MultiheadAttention(Cell):
    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, dtype=mstype.float32):
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise ValueError("The init argument 'embed_dim' must be divisible by 'num_heads'.")
        dtype = dtype or mstype.float32
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, embed_dim), dtype), "q_proj_weight")
            self.k_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, self.kdim), dtype), "k_proj_weight")
            self.v_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, self.vdim), dtype), "v_proj_weight")
            self.in_proj_weight = None
        else:
            self.in_proj_weight = Parameter(initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype),
                                            "in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype), "in_proj_bias") if has_bias \
            else None
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias, weight_init=HeUniform(math.sqrt(5)),
                              bias_init=Uniform(1 / math.sqrt(embed_dim)), dtype=dtype)
        if add_bias_kv:
            std = 1 / math.sqrt(embed_dim)          # Xavier normal of a (1, 1, E) tensor
            self.bias_k = Parameter(initializer(Normal(std), (1, 1, embed_dim), dtype), "bias_k")
            self.bias_v = Parameter(initializer(Normal(std), (1, 1, embed_dim), dtype), "bias_v")
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self.attn_dropout = Dropout(p=dropout)
        self.dtype = dtype

    # -- projections ---------------------------------------------------------------------------------
    def _project(self, query, key, value):
        e = self.embed_dim
        b = self.in_proj_bias
        bq, bk, bv = (None, None, None) if b is None else (b[:e], b[e:2 * e], b[2 * e:])
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            wq, wk, wv = w[:e], w[e:2 * e], w[2 * e:]
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        return [ops.reshape(linear(ops.reshape(x, (-1, x.shape[-1])), w_, b_), tuple(x.shape[:-1]) + (e,))
                for x, w_, b_ in ((query, wq, bq), (key, wk, bk), (value, wv, bv))]

    def _check_attn_mask(self, attn_mask, bsz, tgt_len, src_len):
        """attn_mask as a (1, L, S) or (B * heads, L, S) bool or float tensor (or None)."""
        heads = self.num_heads
        if attn_mask is not None:
            if attn_mask.dtype == mstype.uint8:
                attn_mask = ops.cast(attn_mask, mstype.bool_)
            elif not _is_float(attn_mask) and attn_mask.dtype != mstype.bool_:
                raise ValueError(f"`attn_mask` only support float, byte, and bool types, but got not {attn_mask.dtype}.")
            if attn_mask.ndim == 2:
                if tuple(attn_mask.shape) != (tgt_len, src_len):
                    raise ValueError(f"The shape of the `attn_mask` should be {(tgt_len, src_len)}, but got "
                                     f"{attn_mask.shape}.")
                attn_mask = ops.expand_dims(attn_mask, 0)
            elif attn_mask.ndim == 3:
                if tuple(attn_mask.shape) != (bsz * heads, tgt_len, src_len):
                    raise ValueError(f"The shape of the `attn_mask` should be {(bsz * heads, tgt_len, src_len)}, "
                                     f"but got {attn_mask.shape}.")
            else:
                raise ValueError(f"The ndim of `attn_mask` only support 2 or 3, but got {attn_mask.ndim}.")
        return attn_mask

    def _combine(self, attn_mask, key_padding_mask, bsz, src_len, dtype):
        """The additive (float) mask, shaped (1, 1, L, S) or (B, heads, L, S), or None."""
        heads = self.num_heads
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (bsz, src_len):
                raise ValueError(f"The shape of `key_padding_mask` should be {(bsz, src_len)}, but got "
                                 f"{key_padding_mask.shape}.")
            kpm = ops.reshape(ops.broadcast_to(ops.reshape(key_padding_mask, (bsz, 1, 1, src_len)),
                                               (bsz, heads, 1, src_len)), (bsz * heads, 1, src_len))
            if attn_mask is None:
                attn_mask = kpm
            elif attn_mask.dtype == mstype.bool_:
                attn_mask = ops.logical_or(attn_mask, kpm if kpm.dtype == mstype.bool_ else ops.ne(kpm, 0))
            else:
                attn_mask = attn_mask + (ops.cast(kpm, attn_mask.dtype) if kpm.dtype == mstype.bool_ else kpm)
        if attn_mask is None:
            return None
        if attn_mask.dtype == mstype.bool_:
            attn_mask = ops.select(attn_mask, ops.full_like(attn_mask, float("-inf"), dtype=dtype),
                                   ops.zeros_like(attn_mask, dtype=dtype))
        if attn_mask.shape[0] == 1:
            return ops.expand_dims(attn_mask, 0)
        return ops.reshape(attn_mask, (bsz, heads, -1, src_len))

    # -- the call ------------------------------------------------------------------------------------
    def construct(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                  average_attn_weights=True):
        if key_padding_mask is not None and key_padding_mask.dtype != mstype.bool_ and not _is_float(key_padding_mask):
            raise ValueError("only bool and floating types of key_padding_mask are supported")
        is_batched = query.ndim == 3
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(f"The `query` should be unbatched 2D or batched 3D tensor, and `key` and `value` of the "
                             f"same rank, but got {query.ndim}D, {key.ndim}D and {value.ndim}D.")
        if self.batch_first and is_batched:
            query, key, value = (ops.swapaxes(x, 1, 0) for x in (query, key, value))
        if not is_batched:
            query, key, value = (ops.expand_dims(x, 1) for x in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = ops.expand_dims(key_padding_mask, 0)
        tgt_len, bsz, embed = query.shape
        if embed != self.embed_dim:
            raise ValueError(f"The `embed_dim` should be {self.embed_dim}, but got {embed}.")
        if self._qkv_same_embed_dim and key.shape != value.shape:
            raise ValueError(f"The shape of `key` {key.shape} does not match `value` {value.shape}.")
        heads, hd = self.num_heads, self.head_dim
        q, k, v = self._project(query, key, value)
        attn_mask = self._check_attn_mask(attn_mask, bsz, tgt_len, key.shape[0])
        if self.bias_k is not None:
            k = ops.concat((k, ops.broadcast_to(self.bias_k, (1, bsz, embed))), 0)
            v = ops.concat((v, ops.broadcast_to(self.bias_v, (1, bsz, embed))), 0)
            attn_mask = None if attn_mask is None else _pad_last(attn_mask)
            key_padding_mask = None if key_padding_mask is None else _pad_last(key_padding_mask)
        if self.add_zero_attn:
            k = ops.concat((k, ops.zeros((1, bsz, embed), k.dtype)), 0)
            v = ops.concat((v, ops.zeros((1, bsz, embed), v.dtype)), 0)
            attn_mask = None if attn_mask is None else _pad_last(attn_mask)
            key_padding_mask = None if key_padding_mask is None else _pad_last(key_padding_mask)
        src_len = k.shape[0]
        mask = self._combine(attn_mask, key_padding_mask, bsz, src_len, q.dtype)
        # (L, B, E) -> (B, heads, L, hd)
        q = ops.transpose(ops.reshape(q, (tgt_len, bsz, heads, hd)), (1, 2, 0, 3))
        k = ops.transpose(ops.reshape(k, (src_len, bsz, heads, hd)), (1, 2, 0, 3))
        v = ops.transpose(ops.reshape(v, (src_len, bsz, heads, hd)), (1, 2, 0, 3))
        scores = ops.BatchMatMul(transpose_b=True)(q, k) * (1 / math.sqrt(hd))
        if mask is not None:
            scores = scores + mask
        weights = ops.softmax(scores, -1)
        if self.training and self.dropout > 0:
            weights = self.attn_dropout(weights)
        out = ops.BatchMatMul()(weights, v)                                   # (B, heads, L, hd)
        out = ops.reshape(ops.transpose(out, (2, 0, 1, 3)), (tgt_len * bsz, embed))
        out = ops.reshape(self.out_proj(out), (tgt_len, bsz, embed))
        if average_attn_weights:
            weights = ops.sum(weights, 1) / heads
        if not is_batched:
            out = ops.squeeze(out, 1)
            weights = ops.squeeze(weights, 0)
        elif self.batch_first:
            out = ops.swapaxes(out, 1, 0)
        if need_weights:
            return out, weights
        return (out,)


__all__ = ["MultiheadAttention"]
