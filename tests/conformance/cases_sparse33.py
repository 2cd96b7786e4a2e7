"""The conformance table: issue 33's sparse names (sparse33): COOTensor / CSRTensor / RowTensor, the
coo_* / csr_* functions, the sparse Primitives and the SparseApply* / FusedSparse* optimizers (the
Parameters' values after one update). Sparse results are compared by their parts (indices, values,
shape). The csr_* functions MindSpore 2.10's CPU build cannot run (its AKG kernel builder fails:
csr_mul, csr_mv, csr2coo, ...) are tested against NumPy in tests/ops/test_sparse33_tensors.py.
Part of the table loaded after cases.py."""
group("sparse33")

_SP_G = np.array([[[0.3, -0.7, 0.2], [0.1, 0.8, -0.5]], [[-0.4, 0.6, 0.9], [0.2, -0.1, 0.3]],
                  [[0.5, 0.5, -0.2], [-0.6, 0.4, 0.1]], [[0.7, -0.3, 0.6], [0.2, 0.2, -0.8]]], np.float32)
_SP_IDX = np.array([0, 2, 0, 4], np.int32)            # a duplicate: each kernel's rule for it is recorded
_SP_IDX_U = np.array([3, 0, 4, 1], np.int32)


class _SparseUpdate(nn.Cell):
    """One sparse optimizer Primitive on Parameters of shape (5, 2, 3); returns the Parameters'
    values after the update (the Fused* kernels' own outputs are "useless", MindSpore's docs say)."""

    def __init__(self, op, n_slots, hyper=(), pos=0):
        super().__init__()
        rng = np.random.default_rng(33)
        self.op, self.hyper, self.pos, self.n = op, hyper, pos, n_slots
        self.p0 = Parameter(Tensor(rng.uniform(0.1, 1.0, (5, 2, 3)).astype(np.float32)), name="p0")
        self.p1 = Parameter(Tensor(rng.uniform(0.1, 1.0, (5, 2, 3)).astype(np.float32)), name="p1")
        self.p2 = Parameter(Tensor(rng.uniform(0.1, 1.0, (5, 2, 3)).astype(np.float32)), name="p2")

    def construct(self, grad, indices):
        ps = (self.p0, self.p1, self.p2)[:self.n]
        if self.pos == 0:
            out = self.op(*ps, grad, indices)
        else:
            out = self.op(*ps, *self.hyper, grad, indices)
        o = out[0]                 # each Parameter read after the update
        return ops.depend(self.p0, o) + 0, ops.depend(self.p1, o) + 0, ops.depend(self.p2, o) + 0


def _sparse_cell(name, n_slots, hyper, *args, **kwargs):
    def build():
        return _SparseUpdate(new(ops, name, *args, **kwargs), n_slots, hyper, pos=1 if hyper else 0)
    return build


_LR = np.float32(0.01)
for _name, _slots, _hyper, _a, _kw in (
        ("FusedSparseAdam", 3, (0.9, 0.999, 0.001, 0.9, 0.999, 1e-8), (), {}),
        ("FusedSparseLazyAdam", 3, (0.9, 0.999, 0.001, 0.9, 0.999, 1e-8), (), {}),
        ("FusedSparseFtrl", 3, (), (0.01, 0.1, 0.2, -0.5), {}),
        ("FusedSparseProximalAdagrad", 2, (Tensor(_LR), Tensor(np.float32(0.1)), Tensor(np.float32(0.2))), (), {}),
        ("SparseApplyAdagrad", 2, (), (0.01,), {}),
        ("SparseApplyAdagradV2", 2, (), (0.01, 1e-6), {}),
        ("SparseApplyFtrl", 3, (), (0.01, 0.1, 0.2, -0.5), {}),
        ("SparseApplyRMSProp", 3, (Tensor(_LR),), (0.9, 0.1, 1e-10), {})):
    for _idx, _tag in ((_SP_IDX, "dup"), (_SP_IDX_U, "unique")):
        if _name == "SparseApplyRMSProp":     # its kernel asks grad's shape to be var's
            continue
        _kw2 = {"graph": False, "reason": "MindSpore 2.10's graph-mode AdagradV2 kernel does not apply duplicate "
                 "indices in turn as its PyNative one does (the suite's GRAPH_MODE tests have none)"} \
            if (_name, _tag) == ("SparseApplyAdagradV2", "dup") else {}
        cell(f"ops.{_name}", "nn.Cell", id=f"sp33_{_name}_{_tag}", inputs=[_SP_G, _idx], **_kw2,
             tol={"Float32": (1e-6, 1e-7)}, note="MindSpore's kernels round a few results 1 ulp apart")(
            _sparse_cell(_name, _slots, _hyper, *_a, **_kw))

cell("ops.FusedSparseAdam", "nn.Cell", id="sp33_FusedSparseAdam_nesterov", inputs=[_SP_G, _SP_IDX],
     oracle_bug="the kernel's nesterov m_t is an uninitialised workspace on rows no index names: those rows "
                "move by garbage (pycompile: m_t = 0 there, the rows stay)")(
    _sparse_cell("FusedSparseAdam", 3, (0.9, 0.999, 0.001, 0.9, 0.999, 1e-8), use_nesterov=True))
cell("ops.SparseApplyAdagrad", "nn.Cell", id="sp33_SparseApplyAdagrad_no_slots", inputs=[_SP_G, _SP_IDX],
     tol={"Float32": (1e-6, 1e-7)})(_sparse_cell("SparseApplyAdagrad", 2, (), 0.01, update_slots=False))
cell("ops.SparseApplyRMSProp", "nn.Cell", id="sp33_SparseApplyRMSProp", tol={"Float32": (1e-6, 1e-7)}, graph=False,
     reason="MindSpore 2.10's graph mode reads the Parameters before this kernel's update here",
     inputs=[np.concatenate([_SP_G, _SP_G[:1] * 0.5]), np.array([0, 2, 0, 4, 1], np.int32)])(
    _sparse_cell("SparseApplyRMSProp", 3, (Tensor(_LR),), 0.9, 0.1, 1e-10))
cell("ops.SparseApplyAdagrad", "nn.Cell", id="sp33_SparseApplyAdagrad_bad_rows", error=True,
     inputs=[_SP_G[:, :1], _SP_IDX])(_sparse_cell("SparseApplyAdagrad", 2, (), 0.01))
cell("ops.FusedSparseFtrl", "nn.Cell", id="sp33_FusedSparseFtrl_bad_count", error=True,
     inputs=[_SP_G, _SP_IDX[:3]])(_sparse_cell("FusedSparseFtrl", 3, (), 0.01, 0.1, 0.2, -0.5))
cell("ops.FusedSparseAdam", "nn.Cell", id="sp33_FusedSparseAdam_float_indices", error=True,
     inputs=[_SP_G, _SP_IDX.astype(np.float32)])(
    _sparse_cell("FusedSparseAdam", 3, (0.9, 0.999, 0.001, 0.9, 0.999, 1e-8)))


# ---- sparse tensors ---------------------------------------------------------------------------------
_COO_I = np.array([[0, 1], [1, 2], [2, 0]], np.int64)
_COO_V = np.array([1.5, -2.0, 0.25], np.float32)
_CSR_P = np.array([0, 1, 1, 3], np.int32)
_CSR_J = np.array([2, 0, 3], np.int32)


@case("ms.COOTensor", "ops.coo_tensor_get_indices", "ops.coo_tensor_get_values", "ops.coo_tensor_get_dense_shape",
      inputs=[_COO_I, _COO_V], graph=False, reason="a COOTensor's properties and methods, PyNative")
def sp33_coo_tensor(i, v):
    c = ms.COOTensor(i, v, (3, 4))
    c2 = ms.COOTensor(coo_tensor=c)
    return (c.indices, c.values, c.shape, c.ndim, c.size, c.itemsize, str(c.dtype), c.to_dense(),
            c2.to_dense(), c.abs().values, c.astype(ms.float64).values, c.to_tuple()[2],
            ops.coo_tensor_get_indices(c), ops.coo_tensor_get_values(c), ops.coo_tensor_get_dense_shape(c))


@case("ms.COOTensor", inputs=[_COO_I, _COO_V])
def sp33_coo_graph(i, v):
    c = ms.COOTensor(i, v, (3, 4))
    return c.to_dense(), c.values * 2


@case("ms.COOTensor", inputs=[_COO_I.astype(np.float32), _COO_V], error=True, graph=False, reason="constructor check")
def sp33_coo_float_indices(i, v):
    return ms.COOTensor(i, v, (3, 4)).values


@case("ms.COOTensor", inputs=[_COO_I, _COO_V], error=True, graph=False, reason="constructor check")
def sp33_coo_shape_rank(i, v):
    return ms.COOTensor(i, v, (3,)).values


@case("ms.CSRTensor", "ops.csr_tensor_get_indptr", "ops.csr_tensor_get_indices", "ops.csr_tensor_get_values",
      "ops.csr_tensor_get_dense_shape", "ops.csr_to_dense", "ops.csr_to_coo", inputs=[_CSR_P, _CSR_J, _COO_V],
      graph=False, reason="a CSRTensor's properties and methods, PyNative")
def sp33_csr_tensor(p, j, v):
    c = ms.CSRTensor(p, j, v, (3, 4))
    coo = ops.csr_to_coo(c)
    return (c.indptr, c.indices, c.values, c.shape, c.ndim, c.size, c.to_dense(), ops.csr_to_dense(c),
            c.abs().values, c.astype(ms.float64).values, coo.indices, coo.values, coo.shape,
            ops.csr_tensor_get_indptr(c), ops.csr_tensor_get_indices(c), ops.csr_tensor_get_values(c),
            ops.csr_tensor_get_dense_shape(c))


@case("ms.CSRTensor", inputs=[np.array([0, 1, 2], np.int32), _CSR_J, _COO_V], error=True, graph=False,
      reason="constructor check")
def sp33_csr_bad_indptr(p, j, v):
    return ms.CSRTensor(p, j, v, (3, 4)).values


@case("ms.RowTensor", inputs=[np.array([0, 2], np.int64), rnd(2, 3)], graph=False, reason="properties")
def sp33_row_tensor(i, v):
    r = ms.RowTensor(i, v, (4, 3))
    r2 = ms.RowTensor(row_tensor=r)
    return r.indices, r.values, r.dense_shape, r2.values


_SP_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1",
             "floor", "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg", "relu", "relu6", "round",
             "sigmoid", "sin", "sinh", "softsign", "sqrt", "square", "tan", "tanh")
_SP_VALS = np.array([0.5, -0.75, 1.5, 3.0, -0.0, np.nan], np.float32)
_SP_VI = np.array([[0, 0], [0, 3], [1, 1], [2, 2], [2, 3], [3, 0]], np.int64)


@case(*[f"ops.coo_{n}" for n in _SP_UNARY], inputs=[_SP_VI, _SP_VALS], graph=False, reason="the whole table, PyNative")
def sp33_coo_unary(i, v):
    c = ms.COOTensor(i, v, (4, 4))
    return tuple(api(ops, f"coo_{n}")(c).values for n in _SP_UNARY)


@case(*[f"ops.csr_{n}" for n in _SP_UNARY], inputs=[np.array([0, 2, 3, 5, 6], np.int32),
                                                       np.array([0, 3, 1, 2, 3, 0], np.int32), _SP_VALS],
      graph=False, reason="the whole table, PyNative")
def sp33_csr_unary(p, j, v):
    c = ms.CSRTensor(p, j, v, (4, 4))
    return tuple(api(ops, f"csr_{n}")(c).values for n in _SP_UNARY)


@case("ops.coo_relu", "ops.coo_exp", "ops.coo_sqrt", inputs=[_SP_VI, _SP_VALS])
def sp33_coo_unary_graph(i, v):
    c = ms.COOTensor(i, v, (4, 4))
    return ops.coo_relu(c).values, ops.coo_exp(c).values, ops.coo_sqrt(c).values


@case("ms.CSRTensor", "ops.csr_softmax", inputs=[_CSR_P, _CSR_J, _COO_V], graph=False, reason="csr ops, PyNative")
def sp33_csr_softmax(p, j, v):
    return ops.csr_softmax(ms.CSRTensor(p, j, v, (3, 4)), ms.float32).values


@case("ms.CSRTensor", "ops.csr_add", inputs=[_CSR_P, _CSR_J, _COO_V], graph=False, reason="csr ops, PyNative")
def sp33_csr_add(p, j, v):
    c = ms.CSRTensor(p, j, v, (3, 4))
    a = ops.csr_add(c, c, Tensor(np.float32(1.0)), Tensor(np.float32(2.0)))
    return a.indptr, a.indices, a.values


@case("ops.coo_concat", inputs=[_COO_I, _COO_V, np.array([[0, 0], [2, 3]], np.int64), np.array([4.0, 5.0], np.float32)],
      graph=False, reason="COOTensors built in PyNative")
def sp33_coo_concat(i1, v1, i2, v2):
    a, b = ms.COOTensor(i1, v1, (3, 4)), ms.COOTensor(i2, v2, (3, 4))
    c0, c1 = ops.coo_concat((a, b), 0), ops.coo_concat((a, b), 1)
    return c0.indices, c0.values, c0.shape, c1.indices, c1.values, c1.shape


@case("ops.coo_add", inputs=[_COO_I, _COO_V, np.array([[0, 1], [2, 3]], np.int64), np.array([-1.5, 5.0], np.float32)],
      graph=False, reason="the sum's pattern depends on the values")
def sp33_coo_add(i1, v1, i2, v2):
    a, b = ms.COOTensor(i1, v1, (3, 4)), ms.COOTensor(i2, v2, (3, 4))
    s = ops.coo_add(a, b, Tensor(np.float32(0.1)))
    return s.indices, s.values, s.shape


@case("ops.dense_to_sparse_coo", "ops.dense_to_sparse_csr", "Tensor.to_coo", "Tensor.to_csr",
      inputs=[np.array([[0, 1.5, 0], [-2, 0, 3], [0, 0, 0]], np.float32)], graph=False,
      reason="the pattern depends on the values")
def sp33_dense_to_sparse(x):
    a, b, c, d = ops.dense_to_sparse_coo(x), ops.dense_to_sparse_csr(x), x.to_coo(), x.to_csr()
    return a.indices, a.values, a.shape, b.indptr, b.indices, b.values, c.indices, c.values, d.indptr, d.indices, d.values


@case("ops.sparse_segment_mean", inputs=[rnd(5, 3), np.array([0, 1, 2, 4], np.int32), np.array([0, 0, 2, 2], np.int32)])
def sp33_sparse_segment_mean(x, i, s):
    return ops.sparse_segment_mean(x, i, s)


# ---- sparse Primitives and layers ---------------------------------------------------------------
@case("ops.SparseToDense", "ops.SparseTensorDenseMatmul", "ops.SparseTensorDenseAdd", inputs=[_COO_I, _COO_V, rnd(4, 2),
                                                                                             rnd(3, 4)])
def sp33_sparse_prims(i, v, d, e):
    mm = ops.SparseTensorDenseMatmul()
    mm_t = ops.SparseTensorDenseMatmul(adjoint_st=True, adjoint_dt=True)
    return (ops.SparseToDense()(i, v, (3, 4)), mm(i, v, (3, 4), d), mm_t(i, v, (4, 3), ops.transpose(d, (1, 0))),
            ops.SparseTensorDenseAdd()(i, v, Tensor(np.array([3, 4], np.int64)), e))


@case("ops.SparseSlice", inputs=[np.array([[0, 1], [1, 2], [2, 0], [1, 3]], np.int64), rnd(4)], graph=False,
      reason="the output's length depends on the indices")
def sp33_sparse_slice(i, v):
    return ops.SparseSlice()(i, v, Tensor(np.array([3, 4], np.int64)), Tensor(np.array([1, 1], np.int64)),
                             Tensor(np.array([2, 5], np.int64)))


@case("ops.SparseSoftmaxCrossEntropyWithLogits", inputs=[rnd(4, 5), np.array([0, 3, 4, 1], np.int32)])
def sp33_sparse_softmax_ce(x, y):
    return (ops.SparseSoftmaxCrossEntropyWithLogits()(x, y),
            ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(x, y))


class _SpLayers(nn.Cell):
    def __init__(self):
        super().__init__()
        self.to_dense = new(nn, "SparseToDense")
        self.mm = new(nn, "SparseTensorDenseMatmul")

    def construct(self, i, v, d):
        return self.to_dense(ms.COOTensor(i, v, (3, 4))), self.mm(i, v, (3, 4), d)


@cell("nn.SparseToDense", "nn.SparseTensorDenseMatmul", inputs=[_COO_I, _COO_V, rnd(4, 2)])
def sp33_sparse_layers():
    return _SpLayers()
