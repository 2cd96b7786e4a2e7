"""The conformance table: MindSpore 2.10's fused attention, ops.flash_attention_score (training),
ops.prompt_flash_attention and ops.incre_flash_attention (inference; src/pycompile/ops/entries/
flash_attention.py and infer_attention.py). Part of the table loaded after cases.py.

The 2.10 CPU wheel has no kernel for them ("The kernel FlashAttentionScore unregistered"), so the
value cases record only that (the harness skips them; values are checked against NumPy versions of
the documented formulas in tests/ops/test_flash_attention.py and test_infer_attention.py). What the
wheel decides on the CPU is what comes before the kernel: the argument conversions and the shape
inference's checks, recorded here as error cases. (head_num=0 kills the wheel's process with
SIGFPE, a division by zero in its shape inference; the documented RuntimeError is tested in
tests/ops/test_flash_attention.py.)"""
group("flash_attention")

_F16 = "float16"


def _qkv(*shape):
    return [rnd(*shape, lo=-1, hi=1, dtype=_F16) for _ in range(3)]


@case("ops.flash_attention_score", inputs=_qkv(2, 4, 64))
def fa_bsh_f16(q, k, v):
    return ops.flash_attention_score(q, k, v, 4)


@case("ops.flash_attention_score", inputs=_qkv(2, 4, 64), error=True)
def fa_err_layout_unknown(q, k, v):
    return ops.flash_attention_score(q, k, v, 4, input_layout="XYZ")


@case("ops.flash_attention_score", inputs=_qkv(2, 4, 64), error=True)
def fa_err_layout_not_str(q, k, v):
    return ops.flash_attention_score(q, k, v, 4, input_layout=3)


@case("ops.flash_attention_score", inputs=_qkv(2, 4, 64), error=True)
def fa_err_hidden_not_divisible(q, k, v):
    return ops.flash_attention_score(q, k, v, 3)


@case("ops.flash_attention_score", inputs=_qkv(2, 4, 4, 16), error=True)
def fa_err_rank_for_bsh(q, k, v):
    return ops.flash_attention_score(q, k, v, 4)


@case("ops.flash_attention_score", inputs=_qkv(2, 4, 64), error=True)
def fa_err_keep_prob_int(q, k, v):
    return ops.flash_attention_score(q, k, v, 4, keep_prob=1)


@case("ops.flash_attention_score", inputs=_qkv(2, 4, 64), error=True)
def fa_err_scalar_value_int(q, k, v):
    return ops.flash_attention_score(q, k, v, 4, scalar_value=1)


@case("ops.flash_attention_score", inputs=_qkv(2, 4, 64), error=True)
def fa_err_sparse_mode_str(q, k, v):
    return ops.flash_attention_score(q, k, v, 4, sparse_mode="a")


@case("ops.flash_attention_score", inputs=_qkv(2, 4, 64), error=True)
def fa_err_attn_mask_numpy(q, k, v):
    return ops.flash_attention_score(q, k, v, 4, attn_mask=np.ones((4, 4), np.uint8))


@case("ops.flash_attention_score", inputs=_qkv(2, 4, 64), error=True)
def fa_err_real_shift_numpy(q, k, v):
    return ops.flash_attention_score(q, k, v, 4, real_shift=np.ones((2, 4, 4, 4), np.float16))


# ---- prompt_flash_attention / incre_flash_attention ---------------------------------------------------
@case("ops.prompt_flash_attention", inputs=_qkv(1, 4, 32))
def pfa_bsh_f16(q, k, v):
    return ops.prompt_flash_attention(q, k, v, num_heads=2)


@case("ops.prompt_flash_attention", inputs=[rnd(1, 4, 32) for _ in range(3)], error=True)
def pfa_err_float32(q, k, v):
    return ops.prompt_flash_attention(q, k, v, num_heads=2)


@case("ops.prompt_flash_attention", inputs=_qkv(1, 4, 32), error=True)
def pfa_err_layout_not_str(q, k, v):
    return ops.prompt_flash_attention(q, k, v, num_heads=2, input_layout=1)


@case("ops.prompt_flash_attention", inputs=_qkv(1, 4, 32), error=True)
def pfa_err_hidden_not_divisible(q, k, v):
    return ops.prompt_flash_attention(q, k, v, num_heads=3)


@case("ops.prompt_flash_attention", inputs=_qkv(1, 4, 32), error=True)
def pfa_err_kv_heads_not_dividing(q, k, v):
    return ops.prompt_flash_attention(q, k, v, num_heads=2, num_key_value_heads=3)


@case("ops.prompt_flash_attention", inputs=[rnd(1, 2, 4, 16, dtype=_F16), rnd(1, 1, 4, 16, dtype=_F16),
                                            rnd(1, 1, 4, 16, dtype=_F16)], error=True)
def pfa_err_kv_n_not_kv_heads(q, k, v):
    return ops.prompt_flash_attention(q, k, v, num_heads=2, num_key_value_heads=2, input_layout="BNSD")


@case("ops.prompt_flash_attention", inputs=_qkv(1, 4, 32), error=True)
def pfa_err_scale_int(q, k, v):
    return ops.prompt_flash_attention(q, k, v, num_heads=2, scale_value=1)


@case("ops.prompt_flash_attention", inputs=_qkv(1, 2, 4, 16), error=True)
def pfa_err_rank_for_bsh(q, k, v):
    return ops.prompt_flash_attention(q, k, v, num_heads=2)


@case("ops.incre_flash_attention", inputs=[rnd(1, 1, 32, dtype=_F16)] + _qkv(1, 4, 32)[:2])
def ifa_bsh_f16(q, k, v):
    return ops.incre_flash_attention(q, [k], [v], num_heads=2)


@case("ops.incre_flash_attention", inputs=[rnd(1, 1, 32, dtype=_F16)] + _qkv(1, 4, 32)[:2], error=True)
def ifa_err_cache_a_tensor(q, k, v):
    return ops.incre_flash_attention(q, k, v, num_heads=2)


@case("ops.incre_flash_attention", inputs=[rnd(1, 1, 32, dtype=_F16)] + _qkv(1, 4, 32)[:2], error=True)
def ifa_err_scale_int(q, k, v):
    return ops.incre_flash_attention(q, [k], [v], num_heads=2, scale_value=1)


# ---- ring_attention_update -----------------------------------------------------------------------------
def _ring(stats=(1, 2, 4, 8)):
    return [rnd(4, 1, 32), rnd(*stats, lo=0.5), rnd(1, 2, 4, 8, lo=0.5), rnd(4, 1, 32), rnd(1, 2, 4, 8, lo=0.5),
            rnd(1, 2, 4, 8, lo=0.5)]


@case("ops.ring_attention_update", inputs=_ring())
def ring_sbh(o1, m1, s1, o2, m2, s2):
    return ops.ring_attention_update(o1, m1, s1, o2, m2, s2)


@case("ops.ring_attention_update", inputs=_ring(), error=True)
def ring_err_layout_unknown(o1, m1, s1, o2, m2, s2):
    return ops.ring_attention_update(o1, m1, s1, o2, m2, s2, layout="BSH")


@case("ops.ring_attention_update", inputs=_ring(), error=True)
def ring_err_layout_not_str(o1, m1, s1, o2, m2, s2):
    return ops.ring_attention_update(o1, m1, s1, o2, m2, s2, layout=1)


@case("ops.ring_attention_update", inputs=_ring((1, 2, 3, 8)), error=True)
def ring_err_s_dims_differ(o1, m1, s1, o2, m2, s2):
    return ops.ring_attention_update(o1, m1, s1, o2, m2, s2)


@case("ops.ring_attention_update", inputs=_ring(), error=True)
def ring_err_numpy_input(o1, m1, s1, o2, m2, s2):
    return ops.ring_attention_update(np.ones((4, 1, 32), np.float32), m1, s1, o2, m2, s2)


# ---- the paged key / value cache (values: tests/ops/test_paged_attention.py) ---------------------------
_CTOR = dict(graph=False, reason="a Primitive's constructor: its arguments are kept when it is built, outside "
                                 "the compiled code")


@case("ops.PagedAttention", "ops.PagedAttentionMask", **_CTOR)
def paged_attention_attributes():
    p, t = ops.PagedAttention(4, 0.25, 2), ops.PagedAttention(4, 0.25, 2, "PERTOKEN", "TRAPEZOIDAL")
    m = ops.operations.PagedAttentionMask(4, 0.5, 4, "PERTOKEN")
    return (p.head_num, p.scale_value, p.kv_head_num, p.kv_cache_quant_mode, p.mask_mode, p.mla_v_dim,
            t.kv_cache_quant_mode, t.mask_mode, t.attrs["mask_mode"], m.head_num, m.scale_value, m.kv_head_num,
            m.kv_cache_quant_mode)


@case("ops.PagedAttention", **_CTOR, error=True)
def paged_attention_err_mask_mode():
    return ops.PagedAttention(4, 0.25, 2, "DEFAULT", "Y")


@case("ops.PagedAttention", inputs=[rnd(2, 4, 8, dtype=_F16), rnd(6, 4, 2, 8, dtype=_F16), rnd(6, 4, 2, 8, dtype=_F16),
                                    ints(2, 2, hi=6), ints(2, lo=1, hi=8)])
def paged_attention_values(q, kc, vc, tables, lengths):
    return ops.PagedAttention(4, 0.25, 2)(q, kc, vc, tables, lengths)


@case("ops.ReshapeAndCache", inputs=[rnd(2, 2, 16, dtype=_F16), rnd(2, 2, 16, dtype=_F16),
                                     rnd(6, 4, 2, 8, dtype=_F16), rnd(6, 4, 2, 8, dtype=_F16), ints(4, hi=24)])
def reshape_and_cache_values(k, v, kc, vc, slots):
    return ops.ReshapeAndCache()(k, v, kc, vc, slots)


@case("ops.ReshapeAndCache", inputs=[rnd(4, 2, 8, dtype=_F16), rnd(4, 2, 8, dtype=_F16), rnd(6, 4, 2, 8, dtype=_F16),
                                     rnd(6, 4, 2, 8, dtype=_F16), ints(4, hi=24)], error=True)
def reshape_and_cache_err_tokens(k, v, kc, vc, slots):
    # a 3-D key is (batch, seq, hidden) to the wheel's shape inference: 8 tokens for 4 slots
    return ops.ReshapeAndCache()(k, v, kc, vc, slots)


# ---- fused_infer_attention_score (values: tests/ops/test_infer_attention.py) ------------------------------
@case("ops.fused_infer_attention_score", inputs=_qkv(1, 4, 32))
def fias_prompt_bsh(q, k, v):
    return ops.fused_infer_attention_score(q, k, v, num_heads=2)


@case("ops.fused_infer_attention_score", inputs=_qkv(1, 4, 32), error=True)
def fias_err_layout_unknown(q, k, v):
    return ops.fused_infer_attention_score(q, k, v, num_heads=2, input_layout="XX")


@case("ops.fused_infer_attention_score", inputs=_qkv(1, 4, 32), error=True)
def fias_err_layout_not_str(q, k, v):
    return ops.fused_infer_attention_score(q, k, v, num_heads=2, input_layout=1)


@case("ops.fused_infer_attention_score", inputs=_qkv(1, 4, 32), error=True)
def fias_err_scale_int(q, k, v):
    return ops.fused_infer_attention_score(q, k, v, num_heads=2, scale=1)


# ---- speed_fusion_attention (values: tests/ops/test_flash_attention.py) ------------------------------------
@case("ops.speed_fusion_attention", inputs=_qkv(1, 4, 32))
def sfa_bsh(q, k, v):
    return ops.speed_fusion_attention(q, k, v, 2, "BSH")[0]


@case("ops.speed_fusion_attention", inputs=_qkv(1, 4, 32), error=True)
def sfa_err_layout_unknown(q, k, v):
    return ops.speed_fusion_attention(q, k, v, 2, "XX")


@case("ops.speed_fusion_attention", inputs=_qkv(1, 4, 32), error=True)
def sfa_err_pse_type_str(q, k, v):
    return ops.speed_fusion_attention(q, k, v, 2, "BSH", pse_type="a")


@case("ops.speed_fusion_attention", inputs=_qkv(1, 4, 32), error=True)
def sfa_err_scale_int(q, k, v):
    return ops.speed_fusion_attention(q, k, v, 2, "BSH", scale=1)


@case("ops.speed_fusion_attention", inputs=_qkv(1, 4, 32), error=True)
def sfa_err_keep_prob_int(q, k, v):
    return ops.speed_fusion_attention(q, k, v, 2, "BSH", keep_prob=1)


@case("ops.speed_fusion_attention", inputs=_qkv(1, 4, 32), error=True)
def sfa_err_gen_mask_parallel_int(q, k, v):
    return ops.speed_fusion_attention(q, k, v, 2, "BSH", gen_mask_parallel=1)
