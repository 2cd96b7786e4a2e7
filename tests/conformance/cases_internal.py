"""The conformance table: the small sequence / dict / shape primitives of ops and ops.functional
(src/pycompile/ops/function_internal.py: F.make_tuple, F.tuple_getitem, F.shape_mul,
F.broadcast_gradient_args, ops.augassign_*, ...), recorded from the wheel in both modes.
Part of the table loaded after cases.py."""
group("internal")


_PYNATIVE_BROKEN = "the wheel's PyNative call of these Primitives on tensors fails inside MindSpore (RuntimeError " \
                   "from its kernel graph / a truth-value error); its GRAPH_MODE result is what they mean"


@case("ops.make_tuple", "ops.tuple_getitem", "ops.tuple_reversed", "ops.tuple_setitem", "ops.list_len",
      inputs=[rnd(3), rnd(2, 2)], trust_graph=_PYNATIVE_BROKEN)
def fi_tuples(x, y):
    t = ops.make_tuple(x, y, x * 2)
    return (ops.tuple_getitem(t, 1), ops.tuple_reversed(t), ops.tuple_setitem(t, 0, y), ops.list_len(t))


@case("ops.make_list", "ops.list_getitem", "ops.list_setitem", inputs=[rnd(3), rnd(3)], trust_graph=_PYNATIVE_BROKEN)
def fi_lists(x, y):
    lst = ops.make_list(x, y)
    return ops.list_getitem(lst, 1), ops.list_setitem(lst, 0, y * 3)


@case("ops.dict_getitem", "ops.in_dict", "ops.not_in_dict", inputs=[rnd(3)])
def fi_dicts(x):
    d = {"a": x, "b": x + 1}
    return ops.dict_getitem(d, "b"), ops.in_dict("a", d), ops.not_in_dict("c", d)


@case("ops.is_", "ops.is_not", "ops.tuple_equal", "ops.list_equal", inputs=[rnd(3)])
def fi_compare(x):
    return (ops.is_(None, None), ops.is_not(1, None), ops.tuple_equal((1, 2), (1, 2)),
            ops.tuple_equal((1, 2), (1, 2, 3)), ops.list_equal([1, 2], [1, 3]), x)


@case("ops.shape_mul", "ops.tuple_div", "ops.reduced_shape", "ops.broadcast_gradient_args", "ops.make_slice",
      inputs=[rnd(2, 3, 4)])
def fi_shapes(x):
    return (ops.shape_mul(x.shape), ops.shape_mul(()), ops.tuple_div((4, 6), (2, 3)),
            ops.reduced_shape(x.shape, (-1,)), ops.reduced_shape(x.shape, 1), ops.reduced_shape(x.shape, ()),
            ops.broadcast_gradient_args((2, 1, 3), (4, 3)), ops.broadcast_gradient_args((1,), (1,)),
            x[ops.make_slice(0, 1, 1)])


@case("ops.tuple_div", inputs=[rnd(3)], error=True, graph=False, reason="an error raised at trace time")
def fi_tuple_div_not_divisible(x):
    return ops.tuple_div((5, 6), (2, 3)), x


@case("ops.broadcast_gradient_args", inputs=[rnd(3)], error=True, graph=False, reason="an error raised at trace time")
def fi_bga_incompatible(x):
    return ops.broadcast_gradient_args((2, 3), (4, 3)), x


@case("ops.scalar_cast", inputs=[rnd(3)], graph=False, reason="Python numbers out: PyNative")
def fi_scalar_cast(x):
    return ops.scalar_cast(3.7, ms.int64), ops.scalar_cast(0, ms.bool_), ops.scalar_cast(3, ms.float64), x


@case("ops.scalar_cast", inputs=[rnd(3)], error=True, graph=False, reason="an argument error")
def fi_scalar_cast_int32(x):
    return ops.scalar_cast(3.7, ms.int32), x


@case("ops.augassign_add", "ops.augassign_sub", "ops.augassign_mul", "ops.augassign_div", "ops.augassign_floordiv",
      "ops.augassign_mod", inputs=[rnd(2, 3, lo=1, hi=5)], graph=False,
      reason="the wheel's GRAPH_MODE result for augassign_* on a tensor is wrong (6 of 6 values; e.g. "
             "augassign_add(x, 2) gives values of 0 / 0.56 / 1); its PyNative result is x op y")
def fi_augassign(x):
    return (ops.augassign_add(x, 2), ops.augassign_sub(x, 3), ops.augassign_mul(x, 1.5), ops.augassign_div(x, 4),
            ops.augassign_floordiv(x, 2), ops.augassign_mod(x, 2), ops.augassign_floordiv(7, 2),
            ops.augassign_mod(7.5, 2))


@case("ops.deepcopy", "ops.isconstant", "ops.dyn_shape", "ops.shape_", "ops.tensor_slice", inputs=[rnd(2, 3)],
      graph=False, reason="PyNative: isconstant / dyn_shape answer differently in graph code")
def fi_tensor_bits(x):
    return ops.deepcopy(x), ops.isconstant(x), ops.dyn_shape(x), ops.shape_(x), ops.tensor_slice(x, (0, 1), (2, 2))


@case("ops.tensor_range", inputs=[ints(1, lo=0, hi=1, dtype="int64")], graph=False,
      reason="Range of tensors: PyNative in the wheel")
def fi_tensor_range(x):
    return ops.tensor_range(ms.Tensor(0), ms.Tensor(5), ms.Tensor(1)), x


@case("ops.float_power_ext", "ops.isnan_ext", "ops.pows", "ops.mirror_pad",
      inputs=[np.array([[0.5, -1.5, np.nan], [2.0, 3.0, -0.25]], np.float32)])
def fi_ext_aliases(x):
    pads = Tensor(np.array([[1, 1], [2, 1]], np.int32))
    return (ops.float_power_ext(ops.abs(x), 2.5), ops.isnan_ext(x), ops.pows(x, 2.0),
            ops.mirror_pad(x, pads, "REFLECT"), ops.mirror_pad(x, pads, "SYMMETRIC"))


@case("ops.SoftmaxCrossEntropyWithLogits", inputs=[rnd(3, 5, lo=-3, hi=3), rnd(3, 5, lo=0, hi=1)])
def fi_softmax_xent(logits, labels):
    return ops.SoftmaxCrossEntropyWithLogits()(logits, labels / labels.sum(1, keepdims=True))


_YX = np.array([0.0, -1.0, np.inf, np.nan, 1e-30, 1e-3, 0.5, 1.9, 2.1, 3.0, 7.5, 11.9, 12.5, 24.0, 26.0, 30.0, 100.0],
               np.float32)


@case("ops.bessel_y0", "ops.bessel_y1", "ops.BesselY0", "ops.BesselY1", inputs=[_YX, _YX.astype(np.float64)])
def fi_bessel_y(x, x64):
    return ops.bessel_y0(x), ops.bessel_y1(x), ops.BesselY0()(x64), ops.BesselY1()(x64)


@case("ops.cond", inputs=[np.array([[1.0, 2.0], [3.0, 4.5]], np.float32), rnd(2, 3, 3, lo=0.5, hi=2)])
def fi_cond(a, b):
    inf = float("inf")
    return (ops.cond(a), ops.cond(a, "fro"), ops.cond(a, "nuc"), ops.cond(a, inf), ops.cond(a, -inf), ops.cond(a, 1),
            ops.cond(a, -1), ops.cond(a, 2), ops.cond(a, -2), ops.cond(b))


@case("ops.is_nonzero", inputs=[np.array([1.0], np.float32), np.array([[0]], np.int32)], graph=False,
      reason="a Python bool from the tensor's value")
def fi_is_nonzero(a, b):
    return ops.is_nonzero(a), ops.is_nonzero(b)


@case("ops.is_nonzero", inputs=[rnd(2)], error=True, graph=False, reason="a Python bool from the tensor's value")
def fi_is_nonzero_two(a):
    return ops.is_nonzero(a)


@case("ops.col2im", "ops.Col2Im", inputs=[rnd(1, 2, 4, 16), rnd(2, 1, 4, 9)])
def fi_col2im(a, b):
    size = Tensor(np.array([5, 5], np.int32))
    return (ops.col2im(a, size, [2, 2], [1, 1], [0, 0], [1, 1]),
            ops.Col2Im([2, 2], [2, 2], [1, 1], [2, 2])(b, Tensor(np.array([6, 6], np.int32))))


@case("ms._no_grad", inputs=[rnd(3)], graph=False, reason="MindSpore's _no_grad is PyNative only (graph code: TypeError)")
def fi_no_grad(x):
    def f(t):
        with ms._no_grad():
            y = t * 2
        return (y * t).sum()
    return ms.grad(f)(x)


@case("ops.add_flags", inputs=[rnd(3)], graph=False, reason="flags on a Python function object")
def fi_add_flags(x):
    def f(t):
        return t
    g = ops.add_flags(f, a=True, b=False)
    ops.add_flags(c=True)(f)
    flags = f._func_graph_flags
    return g is f, flags["a"], flags["b"], flags["c"], len(flags), x
