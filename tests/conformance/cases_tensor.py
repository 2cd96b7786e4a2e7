"""The conformance table: Tensor methods and attributes (part of the table loaded by
conf_harness.load_cases after cases.py, whose helpers it uses)."""
group("tensor")


def _pynative_only(reason):
    return dict(graph=False, reason=reason)


@case("Tensor.shape", "Tensor.dtype", "Tensor.ndim", "Tensor.size", "Tensor.dim", "Tensor.numel", inputs=[rnd(2, 3, 4)])
def tensor_attributes(x):
    return x.shape, x.dtype, x.ndim, x.size, x.dim(), x.numel()


@case("Tensor.itemsize", "Tensor.nbytes", "Tensor.strides", inputs=[rnd(2, 3, dtype="float16"), ints(3, 4, dtype="int64")],
      **_pynative_only("memory layout attributes of a concrete tensor"))
def tensor_memory_attributes(h, i):
    return h.itemsize, h.nbytes, h.strides, i.itemsize, i.nbytes, i.strides


@case("Tensor.asnumpy", "Tensor.numpy", "Tensor.tolist", inputs=[ints(2, 3)],
      **_pynative_only("returns NumPy / Python values"))
def tensor_to_python(x):
    return x.asnumpy(), x.numpy(), x.tolist()


@case("Tensor.item", inputs=[rnd(1), ints(1, 1), bools(1)], **_pynative_only("returns a Python number"))
def tensor_item(f, i, b):
    return f.item(), i.item(), b.item()


@case("Tensor.item", inputs=[rnd(2, 3)], error=True, **_pynative_only("returns a Python number"))
def tensor_item_many(x):
    return x.item()


@case("Tensor.copy", "Tensor.assign_value", inputs=[rnd(2, 3), rnd(2, 3)], **_pynative_only("updates a tensor in place"))
def tensor_copy_assign_value(x, y):
    c = x.copy()
    x.assign_value(y)
    return c, x


@case("Tensor.T", "Tensor.transpose", "Tensor.permute", "Tensor.swapaxes", inputs=[rnd(2, 3, 4)])
def tensor_transposes(x):
    return x.T, x.transpose(), x.transpose(2, 0, 1), x.transpose((1, 0, 2)), x.permute(1, 2, 0), x.swapaxes(0, 1)


@case("Tensor.t", inputs=[rnd(3, 4)])
def tensor_t(x):
    return x.t()


@case("Tensor.reshape", "Tensor.view", "Tensor.flatten", inputs=[rnd(2, 3, 4)])
def tensor_reshapes(x):
    return x.reshape(4, 6), x.reshape((-1, 3)), x.view(6, 4), x.view((24,)), x.flatten(), x.flatten(1)


@case("Tensor.view", inputs=[rnd(2, 3, 4)], error=True)
def tensor_view_incompatible(x):
    return x.view(5, 5)


@case("Tensor.squeeze", "Tensor.unsqueeze", "Tensor.expand_dims", inputs=[rnd(1, 3, 1)])
def tensor_squeeze_unsqueeze(x):
    return x.squeeze(), x.squeeze(0), x.unsqueeze(0), x.expand_dims(-1)


@case("Tensor.broadcast_to", "Tensor.tile", "Tensor.expand_as", inputs=[rnd(3, 1), rnd(2, 3, 4)])
def tensor_broadcasts(x, y):
    return x.broadcast_to((2, 3, 4)), x.tile((1, 2)), x.expand_as(y)


@case("Tensor.repeat", inputs=[rnd(2, 3)])
def tensor_repeat(x):
    return x.repeat(2, 1), x.repeat((1, 2, 1))


@case("Tensor.astype", "Tensor.to", "Tensor.float", "Tensor.int", "Tensor.bool", inputs=[rnd(2, 3, lo=-3.0, hi=3.0)])
def tensor_casts(x):
    return x.astype(ms.int32), x.astype(ms.float16), x.to(ms.float64), x.float(), x.int(), x.bool()


@case("Tensor.sum", "Tensor.mean", inputs=[rnd(2, 3, 4), ints(2, 3)])
def tensor_sum_mean(x, i):
    return x.sum(), x.sum(1), x.sum(axis=-1, keepdims=True), i.sum(), x.mean(), x.mean(1), x.mean(0, True)


@case("Tensor.max", "Tensor.min", inputs=[rnd(3, 4)])
def tensor_max_min_axis(x):
    return x.max(), x.min(), x.max(axis=1), x.min(axis=0, keepdims=True)


@case("Tensor.max", "Tensor.min", inputs=[ints(3, 4, lo=0, hi=3, dtype="float32")])
def tensor_max_min_positional_dim(x):
    # a positional dim gives (values, indices)
    return x.max(1), x.min(0), x.max(1, True)


@case("Tensor.argmax", "Tensor.argmin", inputs=[ints(3, 4, lo=0, hi=4, dtype="float32")])
def tensor_argmax_argmin(x):
    return x.argmax(), x.argmax(1), x.argmax(axis=0, keepdims=True), x.argmin(), x.argmin(1)


@case("Tensor.all", "Tensor.any", inputs=[bools(3, 4, p=0.7)])
def tensor_all_any(b):
    return b.all(), b.all(1), b.any(), b.any(axis=0, keep_dims=True)


@case("Tensor.abs", "Tensor.exp", "Tensor.log", "Tensor.sqrt", "Tensor.rsqrt", "Tensor.square", "Tensor.neg",
      inputs=[rnd(2, 3, lo=0.2, hi=3.0)])
def tensor_unary_math(x):
    return x.abs(), x.exp(), x.log(), x.sqrt(), x.rsqrt(), x.square(), x.neg()


@case("Tensor.tanh", "Tensor.sigmoid", "Tensor.softmax", "Tensor.isfinite", inputs=[special()])
def tensor_unary_special(x):
    return x.tanh(), x.sigmoid(), x.softmax(0), x.isfinite()


@case("Tensor.log2", inputs=[rnd(2, 3, lo=0.2, hi=8.0)])
def tensor_log2(x):
    return x.log2()


@case("Tensor.add", "Tensor.sub", "Tensor.mul", "Tensor.div", "Tensor.pow", "Tensor.maximum", "Tensor.minimum",
      inputs=[rnd(2, 3, lo=0.5, hi=2.0), rnd(3, lo=0.5, hi=2.0)])
def tensor_binary_math(x, y):
    return x.add(y), x.sub(y), x.mul(y), x.div(y), x.pow(y), x.maximum(y), x.minimum(y), x.add(1), x.pow(2)


@case("Tensor.clip", "Tensor.clamp", inputs=[rnd(3, 4)])
def tensor_clip_clamp(x):
    return x.clip(-0.5, 0.5), x.clamp(min=0.0), x.clamp(max=1.0)


@case("Tensor.matmul", inputs=[rnd(2, 3), rnd(3, 4), rnd(3)])
def tensor_matmul(x, y, v):
    return x.matmul(y), x.matmul(v), x @ y


@case("Tensor.gather", inputs=[rnd(3, 5), ints(2, lo=0, hi=5), ints(2, lo=0, hi=3)])
def tensor_gather(x, idx, idx0):
    return x.gather(idx, 1), x.gather(idx0, 0)


@case("Tensor.__add__", "Tensor.__mul__", "Tensor.__truediv__", "Tensor.__floordiv__", "Tensor.__mod__",
      "Tensor.__pow__", "Tensor.__neg__", inputs=[rnd(2, 3, lo=-3.0, hi=3.0), rnd(3, lo=0.5, hi=2.0)])
def tensor_operators(x, y):
    return x + y, 2 - x, x * y, x / y, 1 / y, x // y, x % y, y ** 2, 2 ** y, -x


@case("Tensor.__and__", "Tensor.__or__", "Tensor.__invert__", "Tensor.__lt__", "Tensor.__eq__",
      inputs=[bools(2, 3), bools(2, 3), ints(2, 3, lo=-2, hi=3)])
def tensor_logic_operators(a, b, i):
    return a & b, a | b, ~a, i < 1, i == 0, i >= 0, i != 1


@case("Tensor.cumsum", inputs=[rnd(3, 4), ints(2, 3)])
def tensor_cumsum(x, i):
    return x.cumsum(1), x.cumsum(axis=0), i.cumsum(1)


@case("Tensor.norm", inputs=[rnd(3, 4)])
def tensor_norm(x):
    return x.norm(), x.norm(dim=1), x.norm(1)


@case("Tensor.norm", inputs=[rnd(3, 4), rnd(2, 4, 3, dtype="float64")])
def tensor_norm_singular_values(x, b):
    return x.norm(2), x.norm(-2, keepdim=True), x.norm("nuc"), b.norm(2, dim=(1, 2)), b.norm("nuc", dim=(2, 1))


@case("Tensor.var", inputs=[rnd(3, 4)])
def tensor_var(x):
    return x.var(), x.var(1), x.var(axis=0, keepdims=True)


@case("Tensor.chunk", "Tensor.unbind", inputs=[rnd(3, 4)])
def tensor_chunk_unbind(x):
    return x.chunk(2, 1), x.chunk(2), x.unbind(0), x.unbind(1)


@case("Tensor.topk", inputs=[rnd(3, 5)])
def tensor_topk(x):
    return x.topk(2), x.topk(1, 0)


@case("Tensor.masked_fill", inputs=[rnd(3, 4), bools(3, 4), bools(4)])
def tensor_masked_fill(x, m, m_row):
    return x.masked_fill(m, 0.0), x.masked_fill(m_row, -1e9)


@case("Tensor.repeat_interleave", inputs=[rnd(2, 3)])
def tensor_repeat_interleave(x):
    return x.repeat_interleave(2, 0), x.repeat_interleave(2, 1), x.repeat_interleave(2)


@case("Tensor.inner", "Tensor.outer", inputs=[rnd(2, 3), rnd(4, 3), rnd(3), rnd(2)])
def tensor_inner_outer(x, y, v, w):
    return x.inner(y), v.inner(v), v.outer(w)


@case("Tensor.conj", "Tensor.value", inputs=[rnd(2, 3)])
def tensor_conj_value(x):
    return x.conj(), x.value()


@case("Tensor.fill", "Tensor.new_zeros", "Tensor.new_ones", inputs=[rnd(2, 3), ints(2, 2)])
def tensor_fill_new(x, i):
    return x.new_zeros((2,)), i.new_ones((1, 3)), x.new_ones((2, 2), dtype=ms.int32), x.fill(2.5)


@case("Tensor.uniform", inputs=[rnd(20, 3)])
def tensor_uniform(x):
    # random values: only their shape, dtype and range are compared
    y = x.uniform(-1.0, 2.0)
    return y.shape, y.dtype, ops.logical_and(y >= -1.0, y < 2.0).all()
