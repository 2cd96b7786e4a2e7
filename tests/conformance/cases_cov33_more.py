"""The conformance table: issue 33's coverage of the rest of the ops / Tensor names pycompile had
without a recorded case (tools/name_coverage.py): collective functions in a process that never called
init(), sparse (CSR / COO) helpers, Primitive base classes, optimizer Primitives, Tensor host methods.
Ids start with ``cov33_m_``. Host-side or stateful: graph=False where the reason says so."""
group("cov33_more")

_c33_HOSTM = dict(graph=False, reason="host-side state (the process world, Parameters, Tensor objects)")


# ---- collectives before init(): what a one-process program sees -----------------------------------------------
def _c33_coll(name, call):
    def f(x):
        out = call(getattr(ops, name), x)
        if name == "init_process_group":     # it succeeded (pycompile): leave no world behind for the other cases
            ms.communication.release()
        return out
    add(f"cov33_m_{name}", f"ops.{name}", f, [rnd(2, 3)], **_c33_HOSTM)


# not recorded: barrier / all_reduce / Primitive collectives crash the wheel's process before init() (SIGSEGV);
# these have no CPU kernel in it ("DistComm... unregistered"); all_to_all_v_c raises a NameError inside it
_c33_NO_RECORD = {"all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_to_all", "all_to_all_single",
                  "all_to_all_v_c", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "batch_isend_irecv"}
for _n, _call in [
    ("get_rank", lambda f, x: f()), ("get_world_size", lambda f, x: f()), ("is_available", lambda f, x: f()),
    ("is_initialized", lambda f, x: f()), ("get_backend", lambda f, x: f()), ("get_process_group_ranks", lambda f, x: f()),
    ("get_global_rank", lambda f, x: f("g", 0)), ("get_group_rank", lambda f, x: f("g", 0)),
    ("new_group", lambda f, x: f([0])), ("destroy_process_group", lambda f, x: f("g")),
    ("broadcast", lambda f, x: f(x, 0)),
    ("all_gather", lambda f, x: f([x.copy()], x)),
    ("all_gather_into_tensor", lambda f, x: f(x.copy(), x)), ("all_gather_into_tensor_uneven", lambda f, x: f(x.copy(), x)),
    ("all_gather_object", lambda f, x: f([None], 1)), ("all_to_all", lambda f, x: f([x.copy()], [x])),
    ("all_to_all_single", lambda f, x: f(x.copy(), x)), ("all_to_all_v_c", lambda f, x: f(x.copy(), x, [6])),
    ("reduce_scatter", lambda f, x: f(x.copy(), [x])), ("reduce_scatter_tensor", lambda f, x: f(x.copy(), x)),
    ("reduce_scatter_tensor_uneven", lambda f, x: f(x.copy(), x)), ("gather_into_tensor", lambda f, x: f(x.copy(), x)),
    ("gather_object", lambda f, x: f(1, [None])), ("scatter_tensor", lambda f, x: f(x.copy(), x)),
    ("scatter_object_list", lambda f, x: f([None], [1])), ("broadcast_object_list", lambda f, x: f([1])),
    ("send", lambda f, x: f(x, 0)), ("recv", lambda f, x: f(x.copy(), 0)), ("isend", lambda f, x: f(x, 0)),
    ("irecv", lambda f, x: f(x.copy(), 0)), ("send_object_list", lambda f, x: f([1], 0)),
    ("recv_object_list", lambda f, x: f([None], 0)), ("batch_isend_irecv", lambda f, x: f([ops.P2POp("isend", x, 0)])),
    ("init_process_group", lambda f, x: f("nccl")), ("set_comm_ops_inplace", lambda f, x: f(False)),
]:
    if _n not in _c33_NO_RECORD:
        _c33_coll(_n, _call)


@case("ops.ReduceOp", **_c33_HOSTM)
def cov33_m_reduce_op():
    return ops.ReduceOp.SUM, ops.ReduceOp.MAX, ops.ReduceOp.MIN, ops.ReduceOp.PROD


@case("ops.P2POp", inputs=[rnd(2, 3)], **_c33_HOSTM)
def cov33_m_p2p_op(x):
    p = ops.P2POp("isend", x, 1)
    return type(p).__name__, p.peer


# ---- sparse helpers (coo2csr, csr2coo, csr_mv / mul / div / reduce_sum / gather are not recorded: the wheel's
# CPU PyNative call of them fails inside it, "Response is empty" / "Get response before Open()") ---------------------------------------------------------------------------------------------
_c33_INDPTR = np.array([0, 2, 3, 5], np.int32)
_c33_IND = np.array([0, 2, 1, 0, 3], np.int32)
_c33_VAL = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)


def _c33_csr():
    return ms.CSRTensor(Tensor(_c33_INDPTR), Tensor(_c33_IND), Tensor(_c33_VAL), (3, 4))


@case("ops.make_csr_tensor", "ops.make_coo_tensor", "ops.make_sparse_tensor", **_c33_HOSTM)
def cov33_m_make_sparse():
    c = ops.make_csr_tensor(Tensor(_c33_INDPTR), Tensor(_c33_IND), Tensor(_c33_VAL), (3, 4))
    idx = Tensor(np.array([[0, 1], [2, 3]], np.int32))
    v = Tensor(np.array([1.5, -2.0], np.float32))
    o = ops.make_coo_tensor(idx, v, (3, 4))
    s = ops.make_sparse_tensor(idx, v, (3, 4))
    return c.to_dense(), o.to_dense(), type(s).__name__, s.values


@case("ops.csr_mm", **_c33_HOSTM)
def cov33_m_csr_mm():
    c = _c33_csr()
    t = ms.CSRTensor(Tensor(np.array([0, 1, 2, 3, 4], np.int32)), Tensor(np.array([1, 0, 1, 0], np.int32)),
                     Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32)), (4, 2))
    return ops.csr_mm(c, t).to_dense()


# ---- Primitive base classes and helpers ----------------------------------------------------------------------
@case("ops.Primitive", "ops.PrimitiveWithInfer", "ops.PrimitiveWithCheck", "ops.prim_attr_register", "ops.P", **_c33_HOSTM)
def cov33_m_primitive_classes():
    class Scale(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self, k=2.0):
            pass

    s = Scale(3.0)
    p = ops.Primitive("MyOp")
    return (p.name, s.name, s.k, s.attrs.get("k"), issubclass(ops.PrimitiveWithCheck, ops.Primitive),
            ops.P.Add is ops.Add)


@case("ops.get_grad", inputs=[rnd(3), rnd(3)], graph=False, reason="gradients looked up by position in a Python tuple")
def cov33_m_get_grad(x, y):
    def f(a, b):
        return (a * b).sum()
    _, grads = ms.grad(f, grad_position=(0, 1), return_ids=True)(x, y), ms.grad(f, (0, 1), return_ids=True)(x, y)
    return ops.get_grad(grads, 1), ops.get_grad(grads, 0)


@case("ops.Print", inputs=[rnd(2)], **_c33_HOSTM)
def cov33_m_print(x):
    return ops.Print()("value:", x)


@case("ops.FloatStatus", "ops.NPUAllocFloatStatus", "ops.NPUGetFloatStatus", "ops.NPUClearFloatStatus", inputs=[rnd(3)],
      **_c33_HOSTM)
def cov33_m_float_status(x):
    s = ops.NPUAllocFloatStatus()()
    return s.shape, s.dtype, ops.NPUGetFloatStatus()(s).shape, ops.NPUClearFloatStatus()(s).shape


# ---- optimizer Primitives ---------------------------------------------------------------------------------------
def _c33_p(a, name):
    return Parameter(Tensor(np.asarray(a, np.float32)), name=name)


_c33_W = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
_c33_G = np.array([[0.1, -0.3], [0.2, 0.05]], np.float32)


@case("ops.ApplyKerasMomentum", **_c33_HOSTM)
def cov33_m_apply_keras_momentum():
    w, a = _c33_p(_c33_W, "w"), _c33_p(np.full((2, 2), 0.1), "a")
    out = ops.ApplyKerasMomentum()(w, a, Tensor(np.float32(0.1)), Tensor(_c33_G), Tensor(np.float32(0.9)))
    return out, w.asnumpy(), a.asnumpy()


@case("ops.LARSUpdate", **_c33_HOSTM)
def cov33_m_lars_update():
    w, g = Tensor(_c33_W), Tensor(_c33_G)
    return ops.LARSUpdate()(w, g, (w * w).sum(), (g * g).sum(), Tensor(np.float32(0.01)), Tensor(np.float32(0.0)))


@case("ops.SparseApplyAdadelta", **_c33_HOSTM)
def cov33_m_sparse_apply_adadelta():
    w, a, u = _c33_p(_c33_W, "w"), _c33_p(np.full((2, 2), 0.1), "a"), _c33_p(np.full((2, 2), 0.2), "u")
    out = ops.SparseApplyAdadelta(1e-6)(w, a, u, Tensor(np.float32(0.5)), Tensor(np.float32(0.9)), Tensor(_c33_G),
                                        Tensor(np.array([1, 0], np.int32)))
    return out, w.asnumpy(), a.asnumpy(), u.asnumpy()


@case("ops.SparseApplyFtrlV2", **_c33_HOSTM)
def cov33_m_sparse_apply_ftrl_v2():
    w, a, l = _c33_p(_c33_W, "w"), _c33_p(np.full((2, 2), 0.1), "a"), _c33_p(np.full((2, 2), 0.2), "l")
    out = ops.SparseApplyFtrlV2(0.01, 0.0, 0.0, 0.0, -0.5)(w, a, l, Tensor(_c33_G[:1]), Tensor(np.array([0], np.int32)))
    return out, w.asnumpy(), a.asnumpy(), l.asnumpy()


@case("ops.SparseApplyProximalAdagrad", **_c33_HOSTM)
def cov33_m_sparse_apply_proximal_adagrad():
    w, a = _c33_p(_c33_W, "w"), _c33_p(np.full((2, 2), 0.1), "a")
    out = ops.SparseApplyProximalAdagrad()(w, a, Tensor(np.float32(0.01)), Tensor(np.float32(0.0)),
                                           Tensor(np.float32(0.0)), Tensor(_c33_G[:1]), Tensor(np.array([1], np.int32)))
    return out, w.asnumpy(), a.asnumpy()


# ---- Tensor host methods, one a case -----------------------------------------------------------------------------
def _c33_tensor(name, fn):
    def f(x):
        return fn(x.copy())
    add(f"cov33_m_t_{name}", f"Tensor.{name}", f, [rnd(2, 3)], **_c33_HOSTM)


for _n, _fn in [("requires_grad_", lambda y: type(y.requires_grad_()).__name__), ("to_", lambda y: y.to_("CPU") is y),
                ("move_to", lambda y: y.move_to("CPU")), ("data_sync", lambda y: y.data_sync(True)),
                ("set_const_arg", lambda y: y.set_const_arg() is y), ("device", lambda y: y.device),
                ("storage", lambda y: type(y.storage()).__name__), ("untyped_storage", lambda y: type(y.untyped_storage()).__name__),
                ("set_cast_dtype", lambda y: y.set_cast_dtype(ms.float16)), ("set_init_flag", lambda y: y.set_init_flag(True)),
                ("flush_from_cache", lambda y: y.flush_from_cache()), ("wait_pipeline", lambda y: y.wait_pipeline()),
                ("delta_seed", lambda y: y.delta_seed),
                ("convert_bytes_to_tensor", lambda y: Tensor.convert_bytes_to_tensor(np.arange(4, dtype=np.float32).tobytes(),
                                                                                      (2, 2), ms.float32))]:
    _c33_tensor(_n, _fn)
