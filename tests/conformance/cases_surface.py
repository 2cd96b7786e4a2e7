"""The conformance table: item assignment (`y[0] = 100.0` in PyNative and in graph code, where it
is a functional update), Parameter updates with assign_add / assign_sub, and the everyday names
of issue 18 that cases_everyday.py / cases_tensor.py do not exercise (the rest of the math
functions, class forms, Tensor methods). Part of the table loaded after cases.py."""
group("surface")


# ---- item assignment ---------------------------------------------------------------------------------
@case("Tensor.__setitem__", inputs=[rnd(3, 4)])
def setitem_int_row(x):
    y = x * 1
    y[0] = 100.0
    return y


@case("Tensor.__setitem__", inputs=[rnd(3, 4), rnd(3)])
def setitem_slice_tensor(x, t):
    y = x + 0
    y[:, 1:] = ops.reshape(t, (3, 1))
    return y


@case("Tensor.__setitem__", inputs=[rnd(3, 4), bools(3, 4)])
def setitem_bool_mask(x, m):
    y = x * 2
    y[m] = 0
    return y


@case("Tensor.__setitem__", inputs=[rnd(3, 4)])
def setitem_element_augmented(x):
    y = x * 1
    y[1, 2] += 5.0
    y[-1, ::2] = -1.0
    return y


@case("Tensor.__setitem__", inputs=[rnd(4, 3), np.array([2, 0], np.int64), rnd(2, 3)])
def setitem_index_tensor(x, idx, v):
    y = x * 1
    y[idx] = v
    return y


@case("Tensor.__setitem__", inputs=[ints(2, 3)])
def setitem_int_tensor_float_value(x):
    y = x + 0
    y[0, 1] = 7.9
    return y


@case("Tensor.__setitem__", inputs=[rnd(3, 4)])
def setitem_in_loop(x):
    y = x * 1
    for i in range(3):
        y[i, i] = i * 10.0
    return y


class AssignAddNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="p")
        self.add, self.sub = ops.AssignAdd(), ops.AssignSub()

    def construct(self, x):
        ops.assign_add(self.p, x)
        self.add(self.p, x * 2)
        ops.assign_sub(self.p, x / 2)
        self.sub(self.p, ops.ones((2, 3)))
        return self.p + 0


@cell("ops.assign_add", "ops.assign_sub", "ops.AssignAdd", "ops.AssignSub", "nn.Cell", inputs=[rnd(2, 3)])
def cls_AssignAdd_AssignSub():
    return AssignAddNet()


class AssignSubScalarNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="p")

    def construct(self, x):
        ops.assign_sub(self.p, 1.0)
        return self.p + x


@cell("ops.assign_sub", "nn.Cell", inputs=[rnd(2, 3)], error=True)
def assign_sub_scalar_rank():
    return AssignSubScalarNet()


# ---- math ---------------------------------------------------------------------------------------
MORE_MATH = [("asinh", {}), ("acosh", dict(lo=1.0, hi=4.0)), ("atanh", dict(lo=-0.9, hi=0.9)), ("trunc", {}),
             ("log2", dict(lo=0.1, hi=4.0)), ("arcsin", dict(lo=-1.0, hi=1.0)), ("arccos", dict(lo=-1.0, hi=1.0)),
             ("arctan", {}), ("arcsinh", {}), ("arccosh", dict(lo=1.0, hi=4.0)), ("arctanh", dict(lo=-0.9, hi=0.9)),
             ("sign", {})]
for _name, _dom in MORE_MATH:
    add(_name, f"ops.{_name}", unary(api(ops, _name)), [rnd(2, 3, 4, **_dom)])


@case("ops.fmod", "ops.arctan2", inputs=[rnd(3, 4, lo=-5.0, hi=5.0), rnd(4, lo=0.5, hi=2.0), ints(5, lo=-6, hi=7)])
def fmod_arctan2(x, y, i):
    return ops.fmod(x, y), ops.fmod(i, 4), ops.arctan2(x, y)


@case("ops.Asin", "ops.Atan", "ops.Tan", "ops.Sinh", "ops.Cosh", "ops.Asinh", "ops.Acosh", "ops.Atanh", "ops.Log1p",
      "ops.Expm1", "ops.Erfc", "ops.IsNan", "ops.IsInf", "ops.Inv", "ops.Trunc", inputs=[rnd(2, 3, lo=-0.9, hi=0.9)])
def cls_math(x):
    return (ops.Asin()(x), ops.Atan()(x), ops.Tan()(x), ops.Sinh()(x), ops.Cosh()(x), ops.Asinh()(x),
            ops.Acosh()(x + 2), ops.Atanh()(x), ops.Log1p()(x), ops.Expm1()(x), ops.Erfc()(x), ops.IsNan()(x),
            ops.IsInf()(x), ops.Inv()(x), ops.Trunc()(x * 3))


@case("ops.reduce_min", "ops.CumProd", "ops.Argmin", "ops.Rank", inputs=[rnd(3, 4, lo=0.5, hi=1.5)])
def reduce_min_cumprod_argmin(x):
    return (ops.reduce_min(x), ops.reduce_min(x, 1), ops.CumProd()(x, 0), ops.CumProd(exclusive=True, reverse=True)(x, 1),
            ops.Argmin()(x), ops.Argmin(axis=0)(x), ops.Rank()(x))


@case("ops.Triu", "ops.Tril", "ops.MaskedFill", "ops.MaskedSelect", inputs=[rnd(3, 4), bools(3, 4)])
def cls_triangles_masks(x, m):
    return ops.Triu()(x), ops.Tril(1)(x), ops.MaskedFill()(x, m, Tensor(2.5, ms.float32))


@case("ops.MaskedSelect", inputs=[rnd(3, 4), bools(3, 4)])
def cls_MaskedSelect(x, m):
    return ops.MaskedSelect()(x, m)


@case("ops.TensorScatterUpdate", "ops.TensorScatterAdd", "ops.TensorScatterElements",
      inputs=[rnd(4, 3), np.array([[1], [3]], np.int32), rnd(2, 3), np.array([[1, 0, 2], [0, 0, 1]], np.int64)])
def cls_tensor_scatters(x, idx, upd, idx2):
    return (ops.TensorScatterUpdate()(x, idx, upd), ops.TensorScatterAdd()(x, idx, upd),
            ops.TensorScatterElements(axis=0)(x, idx2, upd), ops.TensorScatterElements(1, "add")(x, idx2, upd))


@case("ops.Meshgrid", "ops.Range", "ops.inner", inputs=[rnd(3), rnd(2), rnd(2, 3), rnd(4, 3)])
def cls_meshgrid_range_inner(a, b, x, y):
    return ops.Meshgrid(indexing="ij")((a, b)), ops.Range()(Tensor(1, ms.int32), Tensor(9, ms.int32), Tensor(3, ms.int32)), \
        ops.inner(x, y), ops.inner(a, a)


# ---- Tensor methods -----------------------------------------------------------------------------
@case("Tensor.sort", "Tensor.argsort", "Tensor.split", "Tensor.flip", inputs=[rnd(3, 5)])
def tensor_sort_split_flip(x):
    return x.sort(), x.sort(0, True), x.argsort(), x.split(2, 1), x.flip((0,))


@case("Tensor.prod", "Tensor.cumprod", "Tensor.gather_elements", "Tensor.index_select",
      inputs=[rnd(3, 4, lo=0.5, hi=1.5), ints(3, 2, lo=0, hi=4), np.array([2, 0], np.int32)])
def tensor_prod_gathers(x, i, j):
    return x.prod(), x.prod(1, True), x.cumprod(0), x.gather_elements(1, i), x.index_select(0, j)


@case("Tensor.isnan", "Tensor.isinf", "Tensor.nan_to_num", "Tensor.log1p", "Tensor.expm1", "Tensor.sign",
      inputs=[special()])
def tensor_nan_checks(x):
    return x.isnan(), x.isinf(), x.nan_to_num(), x.nan_to_num(1.0, 2.0, -2.0), x.log1p(), x.expm1(), x.sign()


@case("Tensor.triu", "Tensor.tril", "Tensor.round", "Tensor.atan2", inputs=[rnd(3, 4, lo=-3.0, hi=3.0), rnd(4)])
def tensor_triangles_round(x, y):
    return x.triu(), x.tril(-1), x.round(), x.atan2(y)


@case("Tensor.masked_select", inputs=[rnd(3, 4), bools(3, 4)])
def tensor_masked_select(x, m):
    return x.masked_select(m)


@case("Tensor.erf", "Tensor.erfc", "Tensor.sin", "Tensor.cos", "Tensor.tan", "Tensor.sinh", "Tensor.cosh", "Tensor.asin",
      "Tensor.acos", "Tensor.atan", "Tensor.asinh", "Tensor.acosh", "Tensor.atanh", "Tensor.arcsin", "Tensor.arccos",
      "Tensor.arctan", "Tensor.arcsinh", "Tensor.arccosh", "Tensor.arctanh", inputs=[rnd(2, 3, lo=-0.9, hi=0.9)])
def tensor_trig(x):
    return (x.erf(), x.erfc(), x.sin(), x.cos(), x.tan(), x.sinh(), x.cosh(), x.asin(), x.acos(), x.atan(), x.asinh(),
            (x + 2).acosh(), x.atanh(), x.arcsin(), x.arccos(), x.arctan(), x.arcsinh(), (x + 2).arccosh(), x.arctanh())


@case("Tensor.arctan2", "Tensor.floor", "Tensor.trunc", "Tensor.fmod", "Tensor.inv", "Tensor.gather_nd",
      "Tensor.baddbmm", inputs=[rnd(3, 4, lo=-3.0, hi=3.0), rnd(4, lo=0.5, hi=2.0), np.array([[1, 2], [0, 3]], np.int32),
                                rnd(2, 3, 4), rnd(2, 4, 5)])
def tensor_more_math(x, y, i, a, b):
    return (x.arctan2(y), x.floor(), x.trunc(), x.fmod(y), y.inv(), x.gather_nd(i),
            ops.zeros((2, 3, 5), ms.float32).baddbmm(a, b), ops.ones((2, 3, 5), ms.float32).baddbmm(a, b, beta=0.5, alpha=2.0))


@case("ms.STRICT", "ms.COMPATIBLE", "ms.LAX", inputs=[rnd(3)], graph=False,
      reason="reads and sets the global context")
def jit_syntax_level_constants(x):
    before = ms.get_context("jit_syntax_level")
    ms.set_context(jit_syntax_level=ms.STRICT)
    now = ms.get_context("jit_syntax_level")
    ms.set_context(jit_syntax_level=before)
    return ms.STRICT, ms.COMPATIBLE, ms.LAX, before, now, x + 1
