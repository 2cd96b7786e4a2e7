"""The conformance table: issue 33's coverage of the Tensor methods pycompile had without a recorded
case (tools/name_coverage.py). Ids start with ``cov33_t_``. In-place methods (``x.add_`` style) and
host-side methods (storage, device, flags) run eagerly only: they act on a Tensor object."""
group("cov33_tensor")

_c33_X = rnd(3, 4)
_c33_I = ints(3, 4, lo=-5, hi=6)


@case("Tensor.addcdiv", inputs=[_c33_X, rnd(3, 4), rnd(3, 4, lo=0.5, hi=2.0)])
def cov33_t_addcdiv(x, a, b):
    return x.addcdiv(a, b), x.addcdiv(a, b, value=0.5)


@case("Tensor.addcmul", inputs=[_c33_X, rnd(3, 4), rnd(3, 4)])
def cov33_t_addcmul(x, a, b):
    return x.addcmul(a, b), x.addcmul(a, b, 2)


@case("Tensor.bitwise_and", "Tensor.bitwise_or", "Tensor.bitwise_xor", inputs=[_c33_I, ints(3, 4, lo=0, hi=9)])
def cov33_t_bitwise(x, y):
    return x.bitwise_and(y), x.bitwise_or(y), x.bitwise_xor(y)


@case("Tensor.bitwise_not", inputs=[_c33_I])
def cov33_t_bitwise_not(x):
    return x.bitwise_not()


@case("Tensor.ceil", inputs=[_c33_X])
def cov33_t_ceil(x):
    return x.ceil()


@case("Tensor.invert", inputs=[ints(4, lo=-5, hi=6, dtype="int16")])
def cov33_t_invert(x):
    return x.invert()


@case("Tensor.fmin", inputs=[_c33_X, rnd(3, 4)])
def cov33_t_fmin(x, y):
    return x.fmin(y)


@case("Tensor.ger", inputs=[rnd(3), rnd(4)])
def cov33_t_ger(v, w):
    return v.ger(w)


@case("Tensor.cov", inputs=[rnd(3, 6)])
def cov33_t_cov(x):
    return x.cov(), x.cov(correction=0)


@case("Tensor.cummax", "Tensor.cummin", inputs=[_c33_X])
def cov33_t_cummax_cummin(x):
    return x.cummax(1), x.cummin(0)


@case("Tensor.kthvalue", inputs=[_c33_X], oracle_bug="MindSpore 2.10 raises 'should not come here for kthvalue py_method'")
def cov33_t_kthvalue(x):
    return x.kthvalue(2, 1), x.kthvalue(1, 0, True)


@case("Tensor.eigvals", inputs=[np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)],
      trust_graph="MindSpore 2.10's PyNative Tensor.eigvals raises TypeError (eigvals() missing 1 required positional "
                  "argument: 'A'); its graph mode computes ops.eigvals, as its documentation says")
def cov33_t_eigvals(x):
    return x.eigvals()


@case("Tensor.pin_memory", inputs=[_c33_X], graph=False, reason="a host-memory copy",
      oracle_bug="MindSpore 2.10's CPU wheel raises RuntimeError (Create device context failed: no Ascend plugin); "
                 "tests/ops/test_tensor_misc.py checks the copy")
def cov33_t_pin_memory(x):
    return x.pin_memory()


@case("Tensor.fills", inputs=[_c33_X])
def cov33_t_fills(x):
    return x.fills(1.5)


@case("Tensor.repeat", inputs=[rnd(2, 3)])
def cov33_t_repeat(x):
    return x.repeat(2, 1), x.repeat(1, 2, 2)


@case("Tensor.reverse", inputs=[_c33_X])
def cov33_t_reverse(x):
    return x.reverse([0]), x.reverse([0, 1])


@case("Tensor.roll", inputs=[_c33_X])
def cov33_t_roll(x):
    return x.roll(1, 0), x.roll((1, 2), (0, 1))


@case("Tensor.scatter_add", inputs=[_c33_X, rnd(2, 4)])
def cov33_t_scatter_add(x, u):
    return x.scatter_add(Tensor(np.array([[0], [2]], np.int32)), u)


@case("Tensor.scatter_min", "Tensor.scatter_mul", "Tensor.scatter_sub", inputs=[_c33_X, rnd(2, 4)])
def cov33_t_scatter_min_mul_sub(x, u):
    i = Tensor(np.array([[0], [2]], np.int32))
    return x.scatter_min(i, u), x.scatter_mul(i, u), x.scatter_sub(i, u)


@case("Tensor.triangular_solve", oracle_bug="MindSpore 2.10 raises AttributeError: 'Registry' object has no attribute "
      "'triangular_solve'", inputs=[rnd(3, 2), np.array([[2.0, 0.5, 1.0], [0.0, 1.5, -0.5], [0.0, 0.0, 3.0]], np.float32)])
def cov33_t_triangular_solve(b, a):
    return b.triangular_solve(a), b.triangular_solve(a, upper=True, transpose=True)


@case("Tensor.unsorted_segment_min", "Tensor.unsorted_segment_prod", inputs=[_c33_X])
def cov33_t_unsorted_segment(x):
    s = Tensor(np.array([0, 1, 0], np.int32))
    return x.unsorted_segment_min(s, 2), x.unsorted_segment_prod(s, 2)


@case("Tensor.contiguous", "Tensor.is_contiguous", inputs=[_c33_X], graph=False,
      reason="MindSpore 2.10's GRAPH_MODE aborts the process on Tensor.clone / contiguous ('Invalid model output size')")
def cov33_t_contiguous(x):
    return x.contiguous(), x.is_contiguous()


@case("Tensor.unique", inputs=[np.array([3, 1, 3, 2, 1], np.int32)], graph=False, reason="data-dependent shape")
def cov33_t_unique(x):
    return x.unique()


@case("Tensor.nonzero", inputs=[np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], np.float32)], graph=False,
      reason="data-dependent shape")
def cov33_t_nonzero(x):
    return x.nonzero(), x.nonzero(as_tuple=True)


@case("Tensor.new_full", inputs=[_c33_X], graph=False, reason="a new Tensor made on the host")
def cov33_t_new_full(x):
    return x.new_full((2, 2), 3.5)


@case("Tensor.new_empty", inputs=[_c33_X], graph=False, reason="new_empty's values are undefined")
def cov33_t_new_empty(x):
    e = x.new_empty((2, 3))
    return e.shape, e.dtype


@case("Tensor.resize", inputs=[rnd(2, 3)], graph=False, reason="a host-side copy")
def cov33_t_resize(x):
    return x.resize(3, 2), x.resize((1, 7))


@case("Tensor.stride", "Tensor.storage_offset", "Tensor.has_init", inputs=[rnd(2, 3, 4)], graph=False,
      reason="host-side attributes of a Tensor object")
def cov33_t_stride(x):
    return x.stride(), x.stride(1), x.storage_offset(), x.has_init


# ---- in place: the result and the tensor after ------------------------------------------------------------------
def _c33_inplace(fn):
    def f(x, *rest):
        y = x.copy()
        r = fn(y, *rest)
        return r, y
    return f


C33INPLACE = [
    ("clamp_", lambda y: y.clamp_(-0.5, 0.5), [_c33_X]),
    ("erfinv_", lambda y: y.erfinv_(), [rnd(3, 4, lo=-0.9, hi=0.9)]),
    ("fill_", lambda y: y.fill_(2.5), [_c33_X]),
    ("fill_diagonal_", lambda y: y.fill_diagonal_(9.0, False), [_c33_X]),
    ("floor_", lambda y: y.floor_(), [_c33_X]),
    ("log_", lambda y: y.log_(), [rnd(3, 4, lo=0.5, hi=3.0)]),
    ("sigmoid_", lambda y: y.sigmoid_(), [_c33_X]),
    ("sign_", lambda y: y.sign_(), [_c33_X]),
    ("tanh_", lambda y: y.tanh_(), [_c33_X]),
    ("zero_", lambda y: y.zero_(), [_c33_X]),
    ("masked_fill_", lambda y, m: y.masked_fill_(m, 0.5), [_c33_X, bools(3, 4)]),
    ("masked_scatter_", lambda y, m: y.masked_scatter_(m, Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))),
     [_c33_X, bools(3, 4)]),
    ("index_add_", lambda y, s: y.index_add_(0, Tensor(np.array([0, 2], np.int64)), s), [_c33_X, rnd(2, 4)]),
    ("index_copy_", lambda y, s: y.index_copy_(0, Tensor(np.array([2, 0], np.int64)), s), [_c33_X, rnd(2, 4)]),
    ("index_fill_", lambda y: y.index_fill_(1, Tensor(np.array([1, 3], np.int64)), -1.0), [_c33_X]),
    ("index_put_", lambda y, v: y.index_put_((Tensor(np.array([0, 2], np.int64)), Tensor(np.array([1, 3], np.int64))), v),
     [_c33_X, rnd(2)]),
    ("put_", lambda y, v: y.put_(Tensor(np.array([0, 7], np.int64)), v), [_c33_X, rnd(2)]),
    ("scatter_", lambda y, s: y.scatter_(0, Tensor(np.array([[2, 0, 1, 2]], np.int64)), s), [_c33_X, rnd(1, 4)]),
    ("scatter_add_", lambda y, s: y.scatter_add_(1, Tensor(np.array([[0, 0], [1, 3], [2, 2]], np.int64)), s), [_c33_X, rnd(3, 2)]),
    ("addmm_", lambda y, a, b: y.addmm_(a, b, beta=0.5, alpha=2.0), [_c33_X, rnd(3, 5), rnd(5, 4)]),
]
_c33_BROKEN = {"fill_diagonal_": "MindSpore 2.10 raises 'should not come here for fill_diagonal method'",
           "put_": "MindSpore 2.10 raises 'There is no branch to go function tensor_put_!'"}
for _n, _f, _ins in C33INPLACE:
    add(f"cov33_t_{_n}", f"Tensor.{_n}", _c33_inplace(_f), _ins, graph=False, reason="an in-place update of a Tensor object",
        oracle_bug=_c33_BROKEN.get(_n, ""))


@case("Tensor.requires_grad_", "Tensor.to_", "Tensor.move_to", "Tensor.data_sync", "Tensor.set_const_arg",
      inputs=[_c33_X], graph=False, reason="host-side methods of a Tensor object")
def cov33_t_host_methods(x):
    y = x.copy()
    return y.requires_grad_() is y, y.to_("CPU") is y, y.move_to("CPU"), y.data_sync(True), \
        y.set_const_arg() is y


@case("Tensor.set_dtype", inputs=[_c33_X], graph=False, reason="host-side methods of a Tensor object")
def cov33_t_set_dtype(x):
    y = x.copy()
    y.set_dtype(ms.float16)
    return y.dtype


# ---- random: shape, dtype, range ----------------------------------------------------------------------------------
def _c33_rand(fn, lo=None, hi=None):
    def f(x):
        o = fn(x.copy())
        out = (o.shape, o.dtype)
        if lo is not None:
            out += ((o >= lo).all(), (o <= hi).all())
        return out
    return f


C33RANDOM = [("bernoulli", lambda x: (x * 0.4).bernoulli(), 0, 1), ("bernoulli_", lambda x: x.bernoulli_(0.5), 0, 1),
          ("exponential_", lambda x: x.exponential_(2.0), 0, 1e9), ("normal_", lambda x: x.normal_(1.0, 0.5), None, None),
          ("random_", lambda x: x.random_(0, 5), 0, 4), ("uniform", lambda x: x.uniform(-1.0, 1.0), -1, 1),
          ("uniform_", lambda x: x.uniform_(-1.0, 1.0), -1, 1)]
for _n, _f, _lo, _hi in C33RANDOM:
    add(f"cov33_t_{_n}", f"Tensor.{_n}", _c33_rand(_f, _lo, _hi), [rnd(3, 4, lo=0.5, hi=1.5)], graph=False, reason="random")
