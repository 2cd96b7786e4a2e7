"""The conformance table: `mindspore.mint` (PyTorch-style names: dim / keepdim) - the functions,
mint.nn.functional and the mint.nn layers pycompile has, one call per case, against MindSpore 2.10
in both modes. MindSpore's CPU wheel has no kernel for many mint functions ("The kernel SortExt
unregistered"): those cases record that and are skipped here with its reason; tests/ops/test_mint.py
checks them against NumPy and the ops they share a definition with."""
group("mint")

@case("ms.mint.cat", inputs=[rnd(2, 3), rnd(1, 3)])
def mint_cat(x, y):
    return ms.mint.cat([x, y], dim=0)

@case("ms.mint.concat", inputs=[rnd(2, 3)])
def mint_concat(x):
    return ms.mint.concat((x, x), 1)

@case("ms.mint.zeros", inputs=[rnd(1)])
def mint_zeros(x):
    return ms.mint.zeros((2, 3))

@case("ms.mint.ones", inputs=[rnd(1)])
def mint_ones(x):
    return ms.mint.ones((2,), dtype=ms.int32)

@case("ms.mint.full", inputs=[rnd(1)])
def mint_full(x):
    return ms.mint.full((2, 2), 1.5)

@case("ms.mint.zeros_like", inputs=[rnd(2, 3)])
def mint_zeros_like(x):
    return ms.mint.zeros_like(x, dtype=ms.float16)

@case("ms.mint.ones_like", inputs=[rnd(2, 3)])
def mint_ones_like(x):
    return ms.mint.ones_like(x)

@case("ms.mint.full_like", inputs=[rnd(2, 3)])
def mint_full_like(x):
    return ms.mint.full_like(x, 2.0)

@case("ms.mint.sum", inputs=[rnd(2, 3, 4)])
def mint_sum_all(x):
    return ms.mint.sum(x)

@case("ms.mint.sum", inputs=[rnd(2, 3, 4)])
def mint_sum_dim(x):
    return ms.mint.sum(x, 1, keepdim=True), ms.mint.sum(x, (0, 2))

@case("ms.mint.mean", inputs=[rnd(2, 3, 4)])
def mint_mean(x):
    return ms.mint.mean(x, dim=1), ms.mint.mean(x, 2, True), ms.mint.mean(x)

@case("ms.mint.prod", inputs=[rnd(2, 3, 4)])
def mint_prod(x):
    return ms.mint.prod(x, 1)

@case("ms.mint.amax", inputs=[rnd(2, 3, 4)])
def mint_amax(x):
    return ms.mint.amax(x, 1)

@case("ms.mint.amin", inputs=[rnd(2, 3, 4)])
def mint_amin(x):
    return ms.mint.amin(x, (1, 2), True)

@case("ms.mint.argmax", inputs=[rnd(2, 3, 4)])
def mint_argmax(x):
    return ms.mint.argmax(x, 2), ms.mint.argmax(x)

@case("ms.mint.argmin", inputs=[rnd(2, 3, 4)])
def mint_argmin(x):
    return ms.mint.argmin(x, 1, keepdim=True)

@case("ms.mint.max", inputs=[rnd(3, 4)])
def mint_max_all(x):
    return ms.mint.max(x)

@case("ms.mint.max", inputs=[rnd(3, 4)])
def mint_max_dim(x):
    return ms.mint.max(x, 1), ms.mint.max(x, 0, True)

@case("ms.mint.max", inputs=[rnd(3, 4), rnd(3, 4)])
def mint_max_other(x, y):
    return ms.mint.max(x, y)

@case("ms.mint.min", inputs=[rnd(3, 4)])
def mint_min_all(x):
    return ms.mint.min(x)

@case("ms.mint.min", inputs=[rnd(3, 4)])
def mint_min_dim(x):
    return ms.mint.min(x, 1)

@case("ms.mint.std", inputs=[rnd(3, 5)])
def mint_std(x):
    return ms.mint.std(x), ms.mint.std(x, 1, correction=0, keepdim=True)

@case("ms.mint.var", inputs=[rnd(3, 5)])
def mint_var(x):
    return ms.mint.var(x, 0)

@case("ms.mint.logsumexp", inputs=[rnd(3, 5)])
def mint_logsumexp(x):
    return ms.mint.logsumexp(x, 1)

@case("ms.mint.cumsum", inputs=[rnd(3, 5)])
def mint_cumsum(x):
    return ms.mint.cumsum(x, 1)

@case("ms.mint.cumprod", inputs=[rnd(3, 5)])
def mint_cumprod(x):
    return ms.mint.cumprod(x, 0)

@case("ms.mint.add", inputs=[rnd(2, 3), rnd(2, 3)])
def mint_add(x, y):
    return ms.mint.add(x, y), ms.mint.add(x, y, alpha=2)

@case("ms.mint.sub", inputs=[rnd(2, 3), rnd(2, 3)])
def mint_sub(x, y):
    return ms.mint.sub(x, y), ms.mint.sub(x, y, alpha=0.5)

@case("ms.mint.mul", inputs=[rnd(2, 3), rnd(2, 3)])
def mint_mul(x, y):
    return ms.mint.mul(x, y)

@case("ms.mint.div", inputs=[rnd(2, 3), rnd(2, 3, lo=0.5, hi=2.0)])
def mint_div(x, y):
    return ms.mint.div(x, y)

@case("ms.mint.div", inputs=[rnd(2, 3), rnd(2, 3, lo=0.5, hi=2.0)])
def mint_div_floor(x, y):
    return ms.mint.div(x, y, rounding_mode='floor')

@case("ms.mint.pow", inputs=[rnd(2, 3, lo=0.5, hi=2.0)])
def mint_pow(x):
    return ms.mint.pow(x, 2.0)

@case("ms.mint.maximum", inputs=[rnd(2, 3), rnd(2, 3)])
def mint_maximum(x, y):
    return ms.mint.maximum(x, y)

@case("ms.mint.clamp", inputs=[rnd(2, 3)])
def mint_clamp(x):
    return ms.mint.clamp(x, -0.5, 0.5), ms.mint.clamp(x, min=0.0)

@case("ms.mint.where", inputs=[rnd(2, 3), rnd(2, 3)])
def mint_where(x, y):
    return ms.mint.where(x > 0, x, y)

@case("ms.mint.exp", inputs=[rnd(2, 3, lo=0.5, hi=2.0)])
def mint_unary(x):
    return ms.mint.exp(x), ms.mint.sqrt(x), ms.mint.rsqrt(x), ms.mint.neg(x), ms.mint.abs(x), ms.mint.sigmoid(x), ms.mint.tanh(x), ms.mint.log(x), ms.mint.sin(x)

@case("ms.mint.gt", inputs=[rnd(2, 3), rnd(2, 3)])
def mint_compare(x, y):
    return ms.mint.gt(x, y), ms.mint.eq(x, x), ms.mint.le(x, y), ms.mint.ne(x, y)

@case("ms.mint.reshape", inputs=[rnd(2, 1, 3)])
def mint_reshape(x):
    return ms.mint.reshape(x, (3, 2))

@case("ms.mint.transpose", inputs=[rnd(2, 1, 3)])
def mint_transpose(x):
    return ms.mint.transpose(x, 0, 2)

@case("ms.mint.permute", inputs=[rnd(2, 1, 3)])
def mint_permute(x):
    return ms.mint.permute(x, (2, 0, 1))

@case("ms.mint.flatten", inputs=[rnd(2, 1, 3)])
def mint_flatten(x):
    return ms.mint.flatten(x), ms.mint.flatten(x, 1)

@case("ms.mint.squeeze", inputs=[rnd(2, 1, 3)])
def mint_squeeze(x):
    return ms.mint.squeeze(x, 1)

@case("ms.mint.unsqueeze", inputs=[rnd(2, 1, 3)])
def mint_unsqueeze(x):
    return ms.mint.unsqueeze(x, 0)

@case("ms.mint.narrow", inputs=[rnd(2, 1, 3)])
def mint_narrow(x):
    return ms.mint.narrow(x, 2, 1, 2)

@case("ms.mint.flip", inputs=[rnd(2, 1, 3)])
def mint_flip(x):
    return ms.mint.flip(x, (0, 2))

@case("ms.mint.tril", inputs=[rnd(3, 3)])
def mint_tril(x):
    return ms.mint.tril(x)

@case("ms.mint.broadcast_to", inputs=[rnd(2, 1, 3)])
def mint_broadcast_to(x):
    return ms.mint.broadcast_to(x, (2, 4, 3))

@case("ms.mint.chunk", inputs=[rnd(4, 6)])
def mint_chunk(x):
    return ms.mint.chunk(x, 3, 1)

@case("ms.mint.gather", inputs=[rnd(4, 6), ints(4, 2, hi=6, dtype='int64')])
def mint_gather(x, idx):
    return ms.mint.gather(x, 1, idx)

@case("ms.mint.index_select", inputs=[rnd(4, 6), ints(3, hi=4, dtype='int32')])
def mint_index_select(x, rows):
    return ms.mint.index_select(x, 0, rows)

@case("ms.mint.sort", inputs=[rnd(3, 6)])
def mint_sort(x):
    return ms.mint.sort(x), ms.mint.sort(x, dim=0, descending=True)

@case("ms.mint.argsort", inputs=[rnd(3, 6)])
def mint_argsort(x):
    return ms.mint.argsort(x, 1)

@case("ms.mint.topk", inputs=[rnd(3, 6)])
def mint_topk(x):
    return ms.mint.topk(x, 2), ms.mint.topk(x, 3, dim=0, largest=False)

@case("ms.mint.matmul", inputs=[rnd(2, 3, 4), rnd(2, 4, 5)])
def mint_matmul(a, b):
    return ms.mint.matmul(a, b)

@case("ms.mint.bmm", inputs=[rnd(2, 3, 4), rnd(2, 4, 5)])
def mint_bmm(a, b):
    return ms.mint.bmm(a, b)

@case("ms.mint.mm", inputs=[rnd(3, 4), rnd(4, 5)])
def mint_mm(a, b):
    return ms.mint.mm(a, b)

@case("ms.mint.softmax", inputs=[rnd(2, 3, 4)])
def mint_softmax(a):
    return ms.mint.softmax(a, 1)

@case("ms.mint.softmax", inputs=[rnd(2, 3, 4)])
def mint_softmax_dtype(a):
    return ms.mint.softmax(a, dim=-1, dtype=ms.float64)

@case("ms.mint.nn.functional.relu", inputs=[rnd(2, 4)])
def mint_f_relu(x):
    return ms.mint.nn.functional.relu(x)

@case("ms.mint.nn.functional.gelu", inputs=[rnd(2, 4)])
def mint_f_gelu(x):
    return ms.mint.nn.functional.gelu(x), ms.mint.nn.functional.gelu(x, approximate='tanh')

@case("ms.mint.nn.functional.silu", inputs=[rnd(2, 4)])
def mint_f_silu(x):
    return ms.mint.nn.functional.silu(x)

@case("ms.mint.nn.functional.softmax", inputs=[rnd(2, 4)])
def mint_f_softmax(x):
    return ms.mint.nn.functional.softmax(x, 1)

@case("ms.mint.nn.functional.log_softmax", inputs=[rnd(2, 4)])
def mint_f_log_softmax(x):
    return ms.mint.nn.functional.log_softmax(x, dim=0)

@case("ms.mint.nn.functional.leaky_relu", inputs=[rnd(2, 4)])
def mint_f_leaky_relu(x):
    return ms.mint.nn.functional.leaky_relu(x, 0.2)

@case("ms.mint.nn.functional.linear", inputs=[rnd(2, 4), rnd(3, 4), rnd(3)])
def mint_f_linear(x, w, b):
    return ms.mint.nn.functional.linear(x, w, b), ms.mint.nn.functional.linear(x, w)

@case("ms.mint.nn.functional.layer_norm", inputs=[rnd(2, 4), rnd(4), rnd(4)])
def mint_f_layer_norm(x, g, b):
    return ms.mint.nn.functional.layer_norm(x, (4,)), ms.mint.nn.functional.layer_norm(x, [4], g, b, eps=1e-3)

@case("ms.mint.nn.functional.dropout", inputs=[rnd(2, 4)])
def mint_f_dropout_eval(x):
    return ms.mint.nn.functional.dropout(x, 0.3, training=False)

@case("ms.mint.nn.functional.sigmoid", inputs=[rnd(2, 4)])
def mint_f_activations(x):
    return ms.mint.nn.functional.sigmoid(x), ms.mint.nn.functional.tanh(x), ms.mint.nn.functional.elu(x), ms.mint.nn.functional.softplus(x)

@case("ms.mint.nn.functional.mse_loss", inputs=[rnd(4, 5), rnd(4, 5)])
def mint_f_mse_loss(x, y):
    return ms.mint.nn.functional.mse_loss(x, y)

@case("ms.mint.nn.functional.l1_loss", inputs=[rnd(4, 5), rnd(4, 5)])
def mint_f_l1_loss(x, y):
    return ms.mint.nn.functional.l1_loss(x, y, reduction='sum')

@case("ms.mint.nn.functional.cross_entropy", inputs=[rnd(4, 5), ints(4, hi=5, dtype='int32')])
def mint_f_cross_entropy(x, labels):
    return ms.mint.nn.functional.cross_entropy(x, labels)

@case("ms.mint.nn.functional.binary_cross_entropy_with_logits", inputs=[rnd(4, 5), rnd(4, 5, lo=0.0, hi=1.0)])
def mint_f_bce_logits(x, y):
    return ms.mint.nn.functional.binary_cross_entropy_with_logits(x, y)

@cell("ms.mint.nn.Linear", inputs=[rnd(2, 3)])
def mint_linear():
    return ms.mint.nn.Linear(3, 4, weight_init=Tensor(H.uniform((4, 3), seed=7)), bias_init="zeros")


@cell("ms.mint.nn.LayerNorm", inputs=[rnd(2, 3, 4)])
def mint_layer_norm():
    return ms.mint.nn.LayerNorm((3, 4), eps=1e-4)


@cell("ms.mint.nn.Softmax", "ms.mint.nn.Flatten", "ms.mint.nn.ReLU", "ms.mint.nn.Dropout", "ms.mint.nn.Identity",
      inputs=[rnd(2, 3, 4)])
def mint_layers():
    return ms.nn.SequentialCell([ms.mint.nn.Softmax(dim=1), ms.mint.nn.Flatten(), ms.mint.nn.ReLU(),
                                 ms.mint.nn.Dropout(0.5), ms.mint.nn.Identity()]).set_train(False)


@cell("ms.mint.nn.GELU", inputs=[rnd(2, 3)])
def mint_gelu_layer():
    return ms.mint.nn.GELU(approximate="tanh")
