"""The conformance table: recurrent layers, attention, the Transformer encoder layer and
EmbeddingLookup. Every Parameter is set from its name (`set_params`), so pycompile must name and
shape them as MindSpore does; the records hold MindSpore's Parameter table ("params") of each
Cell. Part of the table loaded after cases.py."""
group("sequence")

SEQ, BATCH, IN, HID = 5, 2, 3, 4


def _state(layers_dirs, hidden=HID, batch=BATCH):
    return rnd(layers_dirs, batch, hidden, lo=-0.5, hi=0.5)


class WithState(nn.Cell):
    """Calls a recurrent layer with an initial state (a tuple (h, c) for LSTMs)."""

    def __init__(self, rnn, lstm=False):
        super().__init__()
        self.rnn, self.lstm = rnn, lstm

    def construct(self, x, h, c=None):
        if self.lstm:
            return self.rnn(x, (h, c))
        return self.rnn(x, h)


class WithLengths(nn.Cell):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def construct(self, x, lengths):
        return self.rnn(x, seq_length=lengths)


# ---- RNN -------------------------------------------------------------------------------------------------
@cell("nn.RNN", inputs=[rnd(SEQ, BATCH, IN)])
def rnn_tanh_1layer():
    return set_params(nn.RNN(IN, HID), 1)


@cell("nn.RNN", inputs=[rnd(SEQ, BATCH, IN)])
def rnn_relu_2layers():
    return set_params(nn.RNN(IN, HID, num_layers=2, nonlinearity="relu"), 2)


@cell("nn.RNN", inputs=[rnd(BATCH, SEQ, IN), _state(2)])
def rnn_bidirectional_batch_first_state():
    return set_params(WithState(nn.RNN(IN, HID, batch_first=True, bidirectional=True)), 3)


@cell("nn.RNN", inputs=[rnd(SEQ, BATCH, IN)])
def rnn_no_bias():
    return set_params(nn.RNN(IN, HID, has_bias=False), 4)


# ---- LSTM ------------------------------------------------------------------------------------------------
@cell("nn.LSTM", inputs=[rnd(SEQ, BATCH, IN)])
def lstm_1layer():
    return set_params(nn.LSTM(IN, HID), 11)


@cell("nn.LSTM", inputs=[rnd(SEQ, BATCH, IN)])
def lstm_2layers_bidirectional():
    return set_params(nn.LSTM(IN, HID, num_layers=2, bidirectional=True), 12)


@cell("nn.LSTM", inputs=[rnd(BATCH, SEQ, IN), _state(2), _state(2)])
def lstm_batch_first_2layers_state():
    return set_params(WithState(nn.LSTM(IN, HID, num_layers=2, batch_first=True), lstm=True), 13)


@cell("nn.LSTM", inputs=[rnd(SEQ, BATCH, IN), np.array([5, 3], np.int32)])
def lstm_seq_length():
    return set_params(WithLengths(nn.LSTM(IN, HID, bidirectional=True)), 14)


@cell("nn.LSTM", inputs=[rnd(SEQ, BATCH, IN)])
def lstm_no_bias():
    return set_params(nn.LSTM(IN, HID, has_bias=False), 15)


# ---- GRU -------------------------------------------------------------------------------------------------
@cell("nn.GRU", inputs=[rnd(SEQ, BATCH, IN)])
def gru_1layer():
    return set_params(nn.GRU(IN, HID), 21)


@cell("nn.GRU", inputs=[rnd(BATCH, SEQ, IN), _state(4)])
def gru_2layers_bidirectional_batch_first_state():
    return set_params(WithState(nn.GRU(IN, HID, num_layers=2, batch_first=True, bidirectional=True)), 22)


@cell("nn.GRU", inputs=[rnd(SEQ, BATCH, IN), np.array([2, 5], np.int32)])
def gru_seq_length():
    return set_params(WithLengths(nn.GRU(IN, HID)), 23)


# ---- cells -----------------------------------------------------------------------------------------------
@cell("nn.RNNCell", inputs=[rnd(BATCH, IN), rnd(BATCH, HID)])
def rnncell_tanh():
    return set_params(nn.RNNCell(IN, HID), 31)


@cell("nn.RNNCell", inputs=[rnd(BATCH, IN), rnd(BATCH, HID)])
def rnncell_relu():
    return set_params(nn.RNNCell(IN, HID, nonlinearity="relu"), 32)


class LSTMCellStep(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(IN, HID)

    def construct(self, x, h, c):
        return self.cell(x, (h, c))


@cell("nn.LSTMCell", inputs=[rnd(BATCH, IN), rnd(BATCH, HID), rnd(BATCH, HID)])
def lstmcell_step():
    return set_params(LSTMCellStep(), 33)


@cell("nn.LSTMCell", inputs=[rnd(BATCH, IN)], graph=False, reason="records the bare Cell's Parameter names only")
def lstmcell_params():
    cell = set_params(nn.LSTMCell(IN, HID), 33)
    return _ParamsOnly(cell)


class _ParamsOnly(nn.Cell):
    """Returns its input unchanged: a case whose record is the inner Cell's Parameter table."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def construct(self, x):
        return x


@cell("nn.GRUCell", inputs=[rnd(BATCH, IN), rnd(BATCH, HID)])
def grucell_step():
    return set_params(nn.GRUCell(IN, HID), 34)


# ---- attention -------------------------------------------------------------------------------------------
E, HEADS, L, S = 8, 2, 3, 4


class MHA(nn.Cell):
    def __init__(self, need_weights=True, average=True, **kw):
        super().__init__()
        self.attn = nn.MultiheadAttention(E, HEADS, **kw)
        self.need_weights, self.average = need_weights, average

    def construct(self, q, k, v, key_padding_mask=None, attn_mask=None):
        return self.attn(q, k, v, key_padding_mask=key_padding_mask, need_weights=self.need_weights,
                         attn_mask=attn_mask, average_attn_weights=self.average)


@cell("nn.MultiheadAttention", inputs=[rnd(L, BATCH, E), rnd(S, BATCH, E), rnd(S, BATCH, E)])
def mha_cross_attention():
    return set_params(MHA(), 41)


@cell("nn.MultiheadAttention", inputs=[rnd(L, BATCH, E)])
def mha_self_attention_bare():
    # the bare Cell (its Parameter names) called as self-attention
    return _SelfAttention(set_params(nn.MultiheadAttention(E, HEADS), 42))


class _SelfAttention(nn.Cell):
    def __init__(self, attn):
        super().__init__()
        self.attn = attn

    def construct(self, x):
        return self.attn(x, x, x)


@cell("nn.MultiheadAttention", inputs=[rnd(L, BATCH, E), rnd(S, BATCH, E), rnd(S, BATCH, E),
                                        np.array([[False, False, True, True], [False, False, False, True]])])
def mha_key_padding_mask():
    return set_params(MHA(), 43)


@cell("nn.MultiheadAttention", inputs=[rnd(L, BATCH, E), rnd(L, BATCH, E), rnd(L, BATCH, E), np.zeros((BATCH, L), bool),
                                        np.triu(np.ones((L, L), bool), 1)])
def mha_causal_bool_attn_mask():
    return set_params(MHA(need_weights=False), 44)


@cell("nn.MultiheadAttention", inputs=[rnd(BATCH, L, E), rnd(BATCH, S, E), rnd(BATCH, S, E),
                                        np.array([[False, False, False, True], [False, True, True, True]]),
                                        np.where(np.triu(np.ones((L, S), bool), 2), -1e9, 0.0).astype(np.float32)])
def mha_batch_first_float_mask_per_head_weights():
    return set_params(MHA(average=False, batch_first=True), 45)


@cell("nn.MultiheadAttention", inputs=[rnd(L, BATCH, E), rnd(S, BATCH, 5), rnd(S, BATCH, 6)])
def mha_kdim_vdim():
    return set_params(MHA(kdim=5, vdim=6, has_bias=False), 46)


# ---- Transformer encoder layer ---------------------------------------------------------------------------
@cell("nn.TransformerEncoderLayer", inputs=[rnd(L, BATCH, E)])
def transformer_encoder_layer():
    net = set_params(nn.TransformerEncoderLayer(E, HEADS, dim_feedforward=16, dropout=0.0), 51, scale=0.3)
    net.set_train(False)
    return net


class EncoderWithMasks(nn.Cell):
    def __init__(self, **kw):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(E, HEADS, dim_feedforward=16, dropout=0.0, **kw)

    def construct(self, src, src_mask, pad):
        return self.layer(src, src_mask=src_mask, src_key_padding_mask=pad)


@cell("nn.TransformerEncoderLayer", inputs=[rnd(BATCH, L, E), np.triu(np.ones((L, L), bool), 1),
                                            np.array([[False, False, True], [False, False, False]])])
def transformer_encoder_layer_masks_norm_first_gelu():
    net = set_params(EncoderWithMasks(batch_first=True, norm_first=True, activation="gelu"), 52, scale=0.3)
    net.set_train(False)
    return net


# ---- EmbeddingLookup -------------------------------------------------------------------------------------
@cell("nn.EmbeddingLookup", inputs=[ints(2, 3, lo=0, hi=10)])
def embedding_lookup():
    return set_params(nn.EmbeddingLookup(10, 4), 61)


@cell("nn.EmbeddingLookup", inputs=[np.array([[0, 9], [12, -1]], np.int32)])
def embedding_lookup_out_of_range_ids():
    return set_params(nn.EmbeddingLookup(10, 4), 62)

@case("ops.LSTM", inputs=[rnd(3, 2, 4), rnd(2, 2, 2), rnd(2, 2, 4), rnd(240, 1, 1, lo=-0.5, hi=0.5)])
def ops_lstm_bidirectional_projected(x, h, c, w):
    y, hn, cn, _, _ = ops.LSTM(4, 4, 1, True, True, 0.0, 2)(x, h, c, w)   # reserve / state: the kernel's
    return y, hn, cn

@case("ops.LSTM", inputs=[rnd(4, 3, 4), rnd(2, 3, 4), rnd(2, 3, 4), rnd(320, 1, 1, lo=-0.5, hi=0.5)])
def ops_lstm_two_layers(x, h, c, w):
    y, hn, cn, _, _ = ops.LSTM(4, 4, 2, True, False, 0.0)(x, h, c, w)
    return y, hn, cn
