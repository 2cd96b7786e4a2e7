"""The conformance table: the "everyday surface" pycompile is to build next — shape and dtype
queries, split / chunk / unbind, arange, one_hot, sort / topk, cumulative ops, triangles,
masked and indexed gathers / scatters, slicing, math functions, norms, products, NaN handling,
random ops (compared by shape, dtype and range only). Part of the table loaded after cases.py."""
group("everyday")


# ---- small helpers -------------------------------------------------------------------------------------
@case("ops.partial", inputs=[rnd(2, 3), rnd(2, 3)])
def partial_fn(x, y):
    add_x = ops.partial(ops.add, x)
    return add_x(y)


@case("ops.Partial", inputs=[rnd(2, 3), rnd(2, 3)])
def cls_Partial(x, y):
    return ops.Partial()(ops.mul, x)(y)


@case("ops.tuple_to_array", "ops.TupleToArray")
def tuple_to_array():
    return ops.tuple_to_array((1, 2, 3)), ops.tuple_to_array((1.0, 2.5)), ops.TupleToArray()((4, 5))


@case("ops.scalar_to_tensor", "ops.ScalarToTensor")
def scalar_to_tensor():
    return (ops.scalar_to_tensor(3.5), ops.scalar_to_tensor(2), ops.scalar_to_tensor(2, ms.int32),
            ops.ScalarToTensor()(1, ms.float16))


@case("ops.shape", "ops.dtype", "ops.DType", "ops.rank", "ops.numel", inputs=[rnd(2, 3, 4), ints(5)])
def shape_dtype_rank(x, i):
    return ops.shape(x), ops.dtype(x), ops.DType()(i), ops.rank(x), ops.numel(x), ops.shape(i)


@case("ops.tuple_len", "ops.make_range")
def tuple_len_make_range():
    return ops.tuple_len((1, 2, 3)), ops.make_range(4), ops.make_range(1, 7, 2)


@case("ops.identity", inputs=[rnd(2, 3)])
def identity_fn(x):
    return ops.identity(x)


@case("ops.stop_gradient", inputs=[rnd(2, 3)])
def stop_gradient_value(x):
    return ops.stop_gradient(x * 2)


# ---- split, chunk, unbind --------------------------------------------------------------------------------
@case("ops.split", inputs=[rnd(4, 6)])
def split_sizes(x):
    return ops.split(x, 2, axis=1), ops.split(x, [1, 3], axis=0), ops.split(x, 4, axis=1)


@case("ops.split", inputs=[rnd(5, 2)])
def split_uneven(x):
    return ops.split(x, 2)


@case("ops.split", inputs=[rnd(4, 6)], error=True)
def split_sections_bad_sum(x):
    return ops.split(x, [1, 2], axis=0)


@case("ops.Split", inputs=[rnd(4, 6)])
def cls_Split(x):
    return ops.Split(axis=1, output_num=3)(x), ops.Split()(x)


@case("ops.Split", inputs=[rnd(4, 5)], error=True)
def cls_Split_not_divisible(x):
    return ops.Split(axis=1, output_num=2)(x)


@case("ops.chunk", inputs=[rnd(5, 4)])
def chunk_fn(x):
    return ops.chunk(x, 2), ops.chunk(x, 2, axis=1), ops.chunk(x, 3)


@case("ops.unbind", "ops.unstack", "ops.Unstack", inputs=[rnd(2, 3, 4)])
def unbind_unstack(x):
    return ops.unbind(x), ops.unbind(x, dim=1), ops.unstack(x, -1), ops.Unstack(axis=1)(x)


# ---- ranges, one-hot, eye, meshgrid ----------------------------------------------------------------------
@case("ops.arange")
def arange_fn():
    return (ops.arange(5), ops.arange(1, 7, 2), ops.arange(0.0, 1.0, 0.25), ops.arange(5, dtype=ms.float32),
            ops.arange(3, 0, -1))


@case("ops.range")
def range_fn():
    return ops.range(Tensor(0, ms.int32), Tensor(5, ms.int32), Tensor(2, ms.int32)), ops.range(0.0, 1.0, 0.3)


@case("ops.one_hot", inputs=[np.array([0, 2, 1, 3], np.int32)])
def one_hot_fn(idx):
    return (ops.one_hot(idx, 4), ops.one_hot(idx, 3, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32)),
            ops.one_hot(idx, 4, axis=0))


@case("ops.one_hot", inputs=[np.array([[0, 2], [-1, 1]], np.int64)])
def one_hot_2d_negative(idx):
    return ops.one_hot(idx, 3, 5, -1)


@case("ops.OneHot", inputs=[np.array([0, 2, 1], np.int32)])
def cls_OneHot(idx):
    return ops.OneHot()(idx, 3, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32)), \
        ops.OneHot(axis=0)(idx, 4, Tensor(2.0, ms.float16), Tensor(-1.0, ms.float16))


@cell("nn.OneHot", inputs=[np.array([0, 2, 1], np.int32)])
def nn_OneHot():
    return nn.OneHot(depth=4, on_value=2.0, off_value=-1.0)


@case("ops.eye", "ops.Eye")
def eye_fn():
    return ops.eye(3), ops.eye(2, 3, ms.int32), ops.Eye()(2, 2, ms.float16)


@case("ops.meshgrid", inputs=[rnd(3), rnd(2)])
def meshgrid_fn(x, y):
    return ops.meshgrid(x, y), ops.meshgrid(x, y, indexing="ij")


# ---- sort, topk, argmax with values, max / min --------------------------------------------------------------
@case("ops.topk", inputs=[rnd(3, 5)])
def topk_fn(x):
    return ops.topk(x, 2), ops.topk(x, 2, dim=0, largest=False), ops.topk(x, 3, sorted=True)


@case("ops.TopK", inputs=[rnd(3, 5), rnd(4, dtype="float16")])
def cls_TopK(x, h):
    return ops.TopK()(x, 2), ops.TopK(sorted=True)(h, 3)


@case("ops.topk", inputs=[rnd(3, 5)], error=True)
def topk_k_too_large(x):
    return ops.topk(x, 6)


@case("ops.sort", inputs=[rnd(3, 5), ints(6, lo=0, hi=100)])
def sort_fn(x, i):
    return ops.sort(x), ops.sort(x, axis=0, descending=True), ops.sort(i)


@case("ops.Sort", inputs=[rnd(3, 5)])
def cls_Sort(x):
    return ops.Sort()(x), ops.Sort(axis=0, descending=True)(x)


@case("ops.argsort", inputs=[rnd(3, 5)])
def argsort_fn(x):
    return ops.argsort(x), ops.argsort(x, axis=0, descending=True)


@case("ops.ArgMaxWithValue", "ops.ArgMinWithValue", inputs=[rnd(3, 5)])
def argmax_argmin_with_value(x):
    return (ops.ArgMaxWithValue()(x), ops.ArgMaxWithValue(axis=1, keep_dims=True)(x),
            ops.ArgMinWithValue(axis=-1)(x))


@case("ops.max", "ops.min", inputs=[rnd(3, 5)])
def max_min_fn(x):
    return ops.max(x), ops.max(x, 1), ops.max(x, axis=0, keepdims=True), ops.min(x), ops.min(x, 1)


@case("ops.reduce_max", "ops.reduce_sum", "ops.reduce_mean", inputs=[rnd(2, 3, 4)])
def reduce_sum_mean_max(x):
    return (ops.reduce_sum(x), ops.reduce_sum(x, 1), ops.reduce_mean(x, (0, 2)), ops.reduce_mean(x),
            ops.reduce_max(x, -1))


@case("ops.ReduceProd", "ops.prod", inputs=[rnd(2, 3, 4, lo=0.5, hi=1.5), ints(2, 3, lo=-3, hi=4)])
def reduce_prod(x, i):
    return ops.ReduceProd()(x), ops.ReduceProd(keep_dims=True)(x, 1), ops.prod(x, 2), ops.prod(i, 0), ops.prod(i)


# ---- cumulative, triangles ------------------------------------------------------------------------------
@case("ops.cumsum", "ops.cumprod", inputs=[rnd(3, 4, lo=0.5, hi=1.5), ints(2, 4, lo=-3, hi=4)])
def cumsum_cumprod(x, i):
    return ops.cumsum(x, 1), ops.cumsum(x, 0), ops.cumsum(i, 1), ops.cumsum(i, 1, dtype=ms.float32), ops.cumprod(x, 1), \
        ops.cumprod(i, 0)


@case("ops.CumSum", inputs=[rnd(3, 4)])
def cls_CumSum(x):
    return ops.CumSum()(x, 1), ops.CumSum(exclusive=True)(x, 1), ops.CumSum(reverse=True)(x, 0), \
        ops.CumSum(exclusive=True, reverse=True)(x, 1)


@case("ops.triu", "ops.tril", inputs=[rnd(3, 4), rnd(2, 3, 3)])
def triu_tril(x, b):
    return ops.triu(x), ops.triu(x, 1), ops.tril(x), ops.tril(x, -1), ops.triu(b, -1), ops.tril(b, 2)


# ---- masks ---------------------------------------------------------------------------------------------
@case("ops.masked_fill", inputs=[rnd(3, 4), bools(3, 4)])
def masked_fill_float(x, m):
    return ops.masked_fill(x, m, 0.5)


@case("ops.masked_fill", inputs=[rnd(3, 4), bools(1, 4)])
def masked_fill_tensor_value_broadcast_mask(x, m):
    return ops.masked_fill(x, m, Tensor(-1e9, ms.float32))


@case("ops.masked_fill", inputs=[rnd(3, 4), bools(3, 4)], error=True)
def masked_fill_int_value_on_float(x, m):
    return ops.masked_fill(x, m, 2)


@case("ops.masked_fill", inputs=[ints(2, 3), bools(2, 3)])
def masked_fill_int(x, m):
    return ops.masked_fill(x, m, 7)


@case("ops.masked_select", inputs=[rnd(3, 4), bools(3, 4), bools(4)])
def masked_select_fn(x, m, m_row):
    return ops.masked_select(x, m), ops.masked_select(x, m_row)


@case("ops.masked_select", inputs=[rnd(3, 4), bools(3, 4), ints(2, 3, lo=0, hi=10)])
def masked_select_then_ops(x, m, k):
    # in graph code: a value whose length is known at run time, then elementwise ops, casts, reductions
    y = ops.masked_select(x, m)
    z = ops.exp(y) * 2 - y
    j = ops.masked_select(k, k > 4)
    return (z, ops.sum(z), y.mean(), y.max(), y.min(), y.astype(ms.int32), (y > 0).any(),
            j, j.sum(), j.max(), j.mean())


# ---- gathers and scatters ------------------------------------------------------------------------------
@case("ops.gather_elements", "ops.gather_d", "ops.GatherD", inputs=[rnd(3, 4), ints(3, 2, lo=0, hi=4), ints(2, 4, lo=0, hi=3)])
def gather_elements_d(x, idx1, idx0):
    return ops.gather_elements(x, 1, idx1), ops.gather_elements(x, 0, idx0), ops.gather_d(x, 1, idx1), \
        ops.GatherD()(x, 0, idx0)


@case("ops.gather_elements", inputs=[rnd(3, 4), np.array([[0, 4]] * 3, np.int32)], error=True)
def gather_elements_out_of_range(x, idx):
    return ops.gather_elements(x, 1, idx)


@case("ops.GatherNd", "ops.gather_nd", inputs=[rnd(3, 4, 5), np.array([[0, 1], [2, 3]], np.int32),
                                              np.array([[1], [0]], np.int64), np.array([[0, 1, 2], [2, 3, 4]], np.int32)])
def gather_nd_fn(x, idx2, idx1, idx3):
    return ops.GatherNd()(x, idx2), ops.gather_nd(x, idx1), ops.gather_nd(x, idx3)


@case("ops.GatherV2", inputs=[rnd(4, 3), ints(2, lo=0, hi=4)],
      trust_graph="PyNative raises 'For Operator[Gather], the inputs number should be 4 but got 3'")
def cls_GatherV2(x, idx):
    return ops.GatherV2()(x, idx, 0)


@case("ops.index_select", inputs=[rnd(3, 4), np.array([2, 0, 2], np.int32)])
def index_select_fn(x, idx):
    return ops.index_select(x, 1, idx), ops.index_select(x, 0, idx)


@case("ops.scatter_nd", "ops.ScatterNd", inputs=[np.array([[0], [2], [0]], np.int32), rnd(3, 4)])
def scatter_nd_fn(idx, upd):
    # a repeated index accumulates
    return ops.scatter_nd(idx, upd, (4, 4)), ops.ScatterNd()(idx, upd, (3, 4))


@case("ops.tensor_scatter_update", "ops.tensor_scatter_add",
      inputs=[rnd(4, 3), np.array([[1], [3]], np.int32), rnd(2, 3), np.array([[0, 0], [2, 1], [0, 0]], np.int64), rnd(3)])
def tensor_scatter_update_add(x, idx, upd, idx2, upd2):
    return (ops.tensor_scatter_update(x, idx, upd), ops.tensor_scatter_add(x, idx, upd),
            ops.tensor_scatter_add(x, idx2, upd2))


@case("ops.tensor_scatter_elements", inputs=[rnd(3, 4), np.array([[1, 0], [3, 3], [0, 2]], np.int32), rnd(3, 2)])
def tensor_scatter_elements_fn(x, idx, upd):
    return (ops.tensor_scatter_elements(x, idx, upd, axis=1), ops.tensor_scatter_elements(x, idx, upd, 1, "add"),
            ops.tensor_scatter_elements(x, idx[:2] % 3, upd[:2], axis=0))


class ScatterNdUpdateNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.zeros((4, 3), np.float32)), name="p")
        self.update = ops.ScatterNdUpdate()

    def construct(self, idx, upd):
        self.update(self.p, idx, upd)
        return self.p + 0


@cell("ops.ScatterNdUpdate", "nn.Cell", inputs=[np.array([[1], [3]], np.int32), rnd(2, 3)])
def cls_ScatterNdUpdate():
    return ScatterNdUpdateNet()


# ---- slicing, reversing, repeating ----------------------------------------------------------------------
@case("ops.Slice", inputs=[rnd(3, 4, 5)])
def cls_Slice(x):
    return ops.Slice()(x, (1, 0, 2), (2, 3, 2)), ops.Slice()(x, (0, 1, 0), (-1, 2, -1))


@case("ops.StridedSlice", inputs=[rnd(3, 4, 5)])
def cls_StridedSlice(x):
    return (ops.StridedSlice()(x, (0, 1, 0), (3, 4, 5), (1, 2, 2)), ops.StridedSlice()(x, (2, 0, 4), (0, 4, 0), (-1, 1, -2)),
            ops.StridedSlice(begin_mask=1, end_mask=2)(x, (1, 1, 0), (2, 3, 5), (1, 1, 1)),
            ops.StridedSlice(shrink_axis_mask=1)(x, (1, 0, 0), (2, 4, 5), (1, 1, 1)))


@case("ops.ReverseV2", "ops.flip", inputs=[rnd(2, 3, 4)])
def reverse_flip(x):
    return ops.ReverseV2(axis=(0,))(x), ops.ReverseV2(axis=(1, 2))(x), ops.flip(x, (2,)), ops.flip(x, (0, -1))


@case("ops.repeat_elements", inputs=[rnd(2, 3), ints(2, 2)])
def repeat_elements_fn(x, i):
    return ops.repeat_elements(x, 2), ops.repeat_elements(x, 3, axis=1), ops.repeat_elements(i, 2, 1)


@case("ops.repeat_interleave", inputs=[rnd(2, 3)])
def repeat_interleave_fn(x):
    return ops.repeat_interleave(x, 2, 0), ops.repeat_interleave(x, 2, 1), ops.repeat_interleave(x, 2)


@case("ops.Flatten", inputs=[rnd(2, 3, 4)])
def cls_Flatten(x):
    return ops.Flatten()(x)


# ---- math ------------------------------------------------------------------------------------------------
MATH = [("log1p", dict(lo=-0.9, hi=3.0)), ("expm1", {}), ("erfc", {}), ("tan", dict(lo=-1.4, hi=1.4)),
        ("asin", dict(lo=-1.0, hi=1.0)), ("acos", dict(lo=-1.0, hi=1.0)), ("atan", dict(lo=-5.0, hi=5.0)),
        ("sinh", {}), ("cosh", {}), ("isnan", {}), ("isinf", {}), ("inv", dict(lo=0.5, hi=2.0)), ("round", dict(lo=-3.0, hi=3.0))]
for _name, _dom in MATH:
    add(_name, f"ops.{_name}", unary(api(ops, _name)), [rnd(2, 3, 4, **_dom)])
    if _name in ("log1p", "expm1", "atan", "tan"):
        add(f"{_name}_f16", f"ops.{_name}", unary(api(ops, _name)), [rnd(3, 4, dtype="float16", **_dom)])


@case("ops.isnan", "ops.isinf", "ops.isfinite", "ops.nan_to_num", inputs=[special()])
def nan_inf_checks(x):
    return ops.isnan(x), ops.isinf(x), ops.isfinite(x), ops.nan_to_num(x), ops.nan_to_num(x, 0.5, 100.0, -100.0)


@case("ops.round", inputs=[np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.25, -1.26], np.float32)])
def round_half(x):
    return ops.round(x)


@case("ops.Round", "ops.Sign", inputs=[np.array([-2.5, -1.5, -0.0, 0.5, 1.5, 2.7, 0.0, -3.2], np.float32)])
def cls_Round_Sign(x):
    return ops.Round()(x), ops.Sign()(x)


@case("ops.ACos", "ops.atan2", inputs=[rnd(2, 3, lo=-1.0, hi=1.0), rnd(2, 3), rnd(3)])
def acos_atan2(x, y, z):
    return ops.ACos()(x), ops.atan2(y, z), ops.atan2(x, y)


@case("ops.tensor_pow", "ops.tensor_mul", inputs=[rnd(2, 3, lo=0.5, hi=2.0), rnd(2, 3)])
def tensor_pow_mul(x, y):
    return ops.tensor_pow(x, y), ops.tensor_mul(x, y)


@case("ops.clip_by_value", inputs=[rnd(3, 4), rnd(4, lo=-1.0, hi=0.0)])
def clip_by_value_fn(x, lo):
    return ops.clip_by_value(x, -0.5, 0.5), ops.clip_by_value(x, lo, 1.0)


@case("ops.clip_by_global_norm", inputs=[rnd(3, 4), rnd(5)])
def clip_by_global_norm_fn(a, b):
    return ops.clip_by_global_norm((a, b), 1.0), ops.clip_by_global_norm((a, b), 100.0)


# ---- norms -------------------------------------------------------------------------------------------
@case("ops.norm", inputs=[rnd(3, 4), rnd(5)])
def norm_fn(x, v):
    return (ops.norm(x), ops.norm(v), ops.norm(x, dim=1), ops.norm(x, 1, dim=0), ops.norm(v, float("inf")),
            ops.norm(x, "fro"), ops.norm(x, dim=1, keepdim=True))


@case("ops.norm", "ops.matrix_norm", inputs=[rnd(3, 4), rnd(2, 3, 3, dtype="float64"), rnd(4, 2, 3)])
def norm_singular_values(x, b, c):
    # the matrix norms from singular values: the largest (2), the smallest (-2), their sum ('nuc')
    return (ops.norm(x, 2), ops.norm(x, -2), ops.norm(x, "nuc"), ops.norm(b, 2, dim=(-2, -1)),
            ops.matrix_norm(b, "nuc"), ops.matrix_norm(c, -2, axis=(0, 2), keepdims=True), ops.matrix_norm(c),
            ops.norm(x.T, "nuc", keepdim=True))


@case("ops.L2Normalize", inputs=[rnd(3, 4)])
def cls_L2Normalize(x):
    return ops.L2Normalize()(x), ops.L2Normalize(axis=1, epsilon=1e-6)(x)


@case("ops.LpNorm", inputs=[rnd(3, 4)])
def cls_LpNorm(x):
    return ops.LpNorm(axis=1)(x), ops.LpNorm(axis=0, p=1, keep_dims=True)(x)


@case("ops.cosine_similarity", inputs=[rnd(3, 4), rnd(3, 4), rnd(1, 4)])
def cosine_similarity_fn(x, y, z):
    return ops.cosine_similarity(x, y), ops.cosine_similarity(x, z, dim=1)


# ---- products -------------------------------------------------------------------------------------------
@case("ops.outer", "ops.mv", inputs=[rnd(3), rnd(4), rnd(4, 3)])
def outer_mv(v, w, m):
    return ops.outer(v, w), ops.mv(m, v)


@case("ops.tensor_dot", inputs=[rnd(2, 3, 4), rnd(4, 3, 5)])
def tensor_dot_fn(a, b):
    return ops.tensor_dot(a, b, 1), ops.tensor_dot(a, b, ((1, 2), (1, 0)))


@case("ops.baddbmm", inputs=[rnd(2, 3, 5), rnd(2, 3, 4), rnd(2, 4, 5)])
def baddbmm_fn(c, a, b):
    return ops.baddbmm(c, a, b), ops.baddbmm(c, a, b, beta=0.5, alpha=2.0)


# MindSpore 2.10's CPU build has no Einsum kernel ("Unsupported op [Einsum] on CPU"): these are
# recorded as such and not compared until another oracle is found; a few common equations
EINSUM = {"mm": ("ij,jk->ik", [(3, 4), (4, 5)]), "attention": ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
          "rowsum": ("ij->i", [(3, 4)]), "outer": ("i,j->ij", [(3,), (4,)])}


def _einsum(eq):
    def f(*xs):
        return ops.einsum(eq, *xs)
    return f


for _k, (_eq, _shapes) in EINSUM.items():
    add(f"einsum_{_k}", "ops.einsum", _einsum(_eq), [rnd(*s) for s in _shapes])


@case("ops.bmm", "ops.BatchMatMul", inputs=[rnd(2, 3, 4, dtype="float16"), rnd(2, 4, 2, dtype="float16")])
def bmm_f16(x, y):
    return ops.bmm(x, y), ops.BatchMatMul(transpose_a=True)(ops.transpose(x, (0, 2, 1)), y)


# ---- random ops: shape, dtype and range only ---------------------------------------------------------------
def _in_range(x, lo, hi):
    return ops.logical_and(x >= lo, x < hi).all()


@case("ops.rand", "ops.randn", "ops.rand_like", "ops.randn_like", inputs=[rnd(30, 2)])
def rand_randn(x):
    a, b, c, d = ops.rand(30, 2), ops.randn(30, 2), ops.rand_like(x), ops.randn_like(x)
    return a.shape, a.dtype, _in_range(a, 0.0, 1.0), b.shape, b.dtype, ops.isfinite(b).all(), c.shape, c.dtype, \
        _in_range(c, 0.0, 1.0), d.shape, d.dtype


@case("ops.uniform", "ops.normal", "ops.standard_normal", "ops.StandardNormal", "ops.UniformReal")
def uniform_normal():
    u = ops.uniform((20, 3), Tensor(-1.0, ms.float32), Tensor(2.0, ms.float32))
    n = ops.normal((20, 3), Tensor(0.0, ms.float32), Tensor(1.0, ms.float32))
    s, s2, r = ops.standard_normal((4, 5)), ops.StandardNormal()((2, 2)), ops.UniformReal()((30,))
    return (u.shape, u.dtype, _in_range(u, -1.0, 2.0), n.shape, n.dtype, s.shape, s.dtype, s2.shape, r.shape, r.dtype,
            _in_range(r, 0.0, 1.0))


@case("ops.randint", "ops.randperm")
def randint_randperm():
    r = ops.randint(2, 9, (50,))
    p = ops.randperm(6)
    return r.shape, r.dtype, _in_range(r, 2, 9), p.shape, p.dtype, ops.sort(p)[0]


@case("ops.multinomial", inputs=[np.array([[0.2, 0.0, 0.8], [0.0, 1.0, 0.0]], np.float32)])
def multinomial_fn(p):
    s = ops.multinomial(p, 4)
    return s.shape, s.dtype, s[1], ops.logical_or(s[0] == 0, s[0] == 2).all()
