"""The conformance table: MindSpore 2.10's Ascend-fused recurrent Primitives ops.DynamicRNN (an LSTM
over a whole sequence, gates i, j, f, o) and ops.DynamicGRUV2 (a GRU, gate order 'rzh' or 'zrh'),
src/pycompile/ops/entries/dynamic_rnn.py. Part of the table loaded after cases.py.

The 2.10 CPU wheel has no kernel for either ("Kernel select failed: Unsupported op [DynamicRNN] on
CPU"), so the value cases record only that (the harness skips them; their values are checked
against a NumPy reference in tests/ops/test_dynamic_rnn.py). What the wheel does decide on the CPU
is everything before the kernel: the constructors' attribute checks and the infer functions' dtype
and shape checks, recorded here as error cases."""
group("dynrnn")

_F16 = "float16"


def _lstm_inputs(seq=3, batch=2, inp=4, hid=5, b_dtype=_F16):
    return [rnd(seq, batch, inp, lo=-1, hi=1, dtype=_F16), rnd(inp + hid, 4 * hid, lo=-0.5, hi=0.5, dtype=_F16),
            rnd(4 * hid, lo=-0.5, hi=0.5, dtype=b_dtype), rnd(1, batch, hid, lo=-1, hi=1, dtype=_F16),
            rnd(1, batch, hid, lo=-1, hi=1, dtype=_F16)]


def _gru_inputs(seq=3, batch=2, inp=4, hid=5, h_dtype=_F16):
    return [rnd(seq, batch, inp, lo=-1, hi=1, dtype=_F16), rnd(inp, 3 * hid, lo=-0.5, hi=0.5, dtype=_F16),
            rnd(hid, 3 * hid, lo=-0.5, hi=0.5, dtype=_F16), rnd(3 * hid, lo=-0.5, hi=0.5, dtype=h_dtype),
            rnd(3 * hid, lo=-0.5, hi=0.5, dtype=h_dtype), rnd(batch, hid, lo=-1, hi=1, dtype=h_dtype)]


# ---- DynamicRNN: values (no CPU kernel in the wheel) ----------------------------------------------
@case("ops.DynamicRNN", inputs=_lstm_inputs())
def dynrnn_lstm_f16(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", "ops.operations", inputs=_lstm_inputs(2, 3, 3, 4))
def dynrnn_lstm_forget_bias(x, w, b, h, c):
    return ops.operations.DynamicRNN(forget_bias=1.0, cell_clip=0.5)(x, w, b, None, h, c)


# ---- DynamicRNN: the infer function's checks -----------------------------------------------------
@case("ops.DynamicRNN", inputs=[rnd(3, 2, 4)] + _lstm_inputs()[1:], error=True)
def dynrnn_x_f32(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=_lstm_inputs()[:2] + [rnd(20)] + _lstm_inputs()[3:], error=True)
def dynrnn_b_f32(x, w, b, h, c):
    # the docstring's Raises allows a float32 b, its Inputs and the wheel's infer only float16
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=[rnd(3, 2, 4), rnd(9, 20), rnd(20), rnd(1, 2, 5), rnd(1, 2, 5)], error=True)
def dynrnn_all_f32(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=_lstm_inputs()[:3] + [rnd(1, 2, 5), rnd(1, 2, 5)], error=True)
def dynrnn_state_f32(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=_lstm_inputs()[:2] + [rnd(20, dtype="float64")] + _lstm_inputs()[3:], error=True)
def dynrnn_b_f64(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=_lstm_inputs() + [ints(2, lo=1, hi=3, dtype="int32")], error=True)
def dynrnn_seq_length_given(x, w, b, h, c, s):
    return ops.DynamicRNN()(x, w, b, s, h, c)


@case("ops.DynamicRNN", inputs=[rnd(2, 4, dtype=_F16)] + _lstm_inputs()[1:], error=True)
def dynrnn_x_rank2(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=[_lstm_inputs()[0], rnd(9, 18, dtype=_F16), rnd(18, dtype=_F16)]
      + _lstm_inputs()[3:], error=True)
def dynrnn_w_cols_not_4h(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=[_lstm_inputs()[0], rnd(8, 20, dtype=_F16)] + _lstm_inputs()[2:], error=True)
def dynrnn_w_rows_wrong(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=_lstm_inputs()[:2] + [rnd(16, dtype=_F16)] + _lstm_inputs()[3:], error=True)
def dynrnn_b_len_wrong(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=_lstm_inputs()[:3] + [rnd(2, 5, dtype=_F16), rnd(2, 5, dtype=_F16)], error=True)
def dynrnn_h_rank2(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=_lstm_inputs()[:3] + [rnd(1, 3, 5, dtype=_F16), rnd(1, 3, 5, dtype=_F16)],
      error=True)
def dynrnn_h_batch_wrong(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


@case("ops.DynamicRNN", inputs=_lstm_inputs()[:4] + [rnd(1, 2, 4, dtype=_F16)], error=True)
def dynrnn_c_shape_wrong(x, w, b, h, c):
    return ops.DynamicRNN()(x, w, b, None, h, c)


# ---- DynamicRNN: the constructor's checks --------------------------------------------------------
def _dynrnn_init(**attrs):
    def f(x, w, b, h, c):
        return ops.DynamicRNN(**attrs)(x, w, b, None, h, c)
    return f


for _id, _attrs in [("cell_type_gru", {"cell_type": "GRU"}), ("direction_bi", {"direction": "BIDIRECTIONAL"}),
                    ("activation_relu", {"activation": "relu"}), ("time_major_false", {"time_major": False}),
                    ("keep_prob_int", {"keep_prob": 1}), ("keep_prob_range", {"keep_prob": 1.5}),
                    ("forget_bias_int", {"forget_bias": 1}), ("cell_clip_int", {"cell_clip": 2}),
                    ("cell_depth_float", {"cell_depth": 1.0}), ("num_proj_negative", {"num_proj": -1}),
                    ("use_peephole_int", {"use_peephole": 1}), ("is_training_str", {"is_training": "yes"}),
                    ("cell_type_int", {"cell_type": 1})]:
    add(f"dynrnn_init_{_id}", ["ops.DynamicRNN"], _dynrnn_init(**_attrs), inputs=_lstm_inputs(), error=True)


# ---- DynamicGRUV2: values (no CPU kernel in the wheel) -------------------------------------------
@case("ops.DynamicGRUV2", inputs=_gru_inputs())
def dyngru_f16(x, wi, wh, bi, bh, h):
    return ops.DynamicGRUV2()(x, wi, wh, bi, bh, None, h)


@case("ops.DynamicGRUV2", "ops.operations", inputs=_gru_inputs(2, 3, 3, 4, h_dtype="float32"))
def dyngru_zrh_f32_state(x, wi, wh, bi, bh, h):
    return ops.operations.DynamicGRUV2(gate_order="zrh", reset_after=False)(x, wi, wh, bi, bh, None, h)


@case("ops.DynamicGRUV2", inputs=_gru_inputs(4, 1, 2, 3)[:3] + [_gru_inputs(4, 1, 2, 3)[5]])
def dyngru_no_bias(x, wi, wh, h):
    return ops.DynamicGRUV2()(x, wi, wh, None, None, None, h)


# ---- DynamicGRUV2: the infer function's checks ---------------------------------------------------
def _gru(x, wi, wh, bi, bh, h):
    return ops.DynamicGRUV2()(x, wi, wh, bi, bh, None, h)


_G = _gru_inputs()
for _id, _ins in [("x_f32", [rnd(3, 2, 4)] + _G[1:]),
                  ("weight_f32", _G[:1] + [rnd(4, 15), rnd(5, 15)] + _G[3:]),
                  ("all_f32", [rnd(3, 2, 4), rnd(4, 15), rnd(5, 15), rnd(15), rnd(15), rnd(2, 5)]),
                  ("state_f64", _G[:3] + [rnd(15, dtype="float64"), rnd(15, dtype="float64"),
                                          rnd(2, 5, dtype="float64")]),
                  ("init_h_f64", _G[:5] + [rnd(2, 5, dtype="float64")]),
                  ("bias_dtype_not_init_h", _G[:5] + [rnd(2, 5)]),
                  ("x_rank2", [rnd(2, 4, dtype=_F16)] + _G[1:]),
                  ("init_h_rank3", _G[:5] + [rnd(1, 2, 5, dtype=_F16)]),
                  ("weight_input_shape", _G[:1] + [rnd(3, 15, dtype=_F16)] + _G[2:]),
                  ("weight_hidden_shape", _G[:2] + [rnd(5, 12, dtype=_F16)] + _G[3:]),
                  ("init_h_shape", _G[:5] + [rnd(3, 5, dtype=_F16)]),
                  ("bias_input_len", _G[:3] + [rnd(12, dtype=_F16)] + _G[4:]),
                  ("bias_hidden_len", _G[:4] + [rnd(16, dtype=_F16)] + _G[5:])]:
    add(f"dyngru_{_id}", ["ops.DynamicGRUV2"], _gru, inputs=_ins, error=True)


@case("ops.DynamicGRUV2", inputs=_gru_inputs() + [ints(2, lo=1, hi=3, dtype="int32")], error=True)
def dyngru_seq_length_given(x, wi, wh, bi, bh, h, s):
    return ops.DynamicGRUV2()(x, wi, wh, bi, bh, s, h)


# ---- DynamicGRUV2: the constructor's checks ------------------------------------------------------
def _dyngru_init(**attrs):
    def f(x, wi, wh, bi, bh, h):
        return ops.DynamicGRUV2(**attrs)(x, wi, wh, bi, bh, None, h)
    return f


for _id, _attrs in [("gate_order_bad", {"gate_order": "hzr"}), ("direction_bi", {"direction": "BIDIRECTIONAL"}),
                    ("activation_relu", {"activation": "relu"}), ("cell_depth_float", {"cell_depth": 1.0}),
                    ("keep_prob_int", {"keep_prob": 1}), ("cell_clip_int", {"cell_clip": -1}),
                    ("num_proj_negative", {"num_proj": -2}), ("time_major_int", {"time_major": 1}),
                    ("reset_after_int", {"reset_after": 0}), ("is_training_none", {"is_training": None})]:
    add(f"dyngru_init_{_id}", ["ops.DynamicGRUV2"], _dyngru_init(**_attrs), inputs=_gru_inputs(), error=True)
